// SPDX-License-Identifier: Apache-2.0
// The input_ids and token_type_ids that Hugging Face's tokenizers (npm `tokenizers`, the Rust
// implementation) give for texts, with a tokenizer.json as transformers' BertTokenizerFast loads it.
// Usage: node hf_tokenizer_ids.cjs NODE_MODULES TOKENIZER_JSON TEXTS.jsonl OUT.jsonl
// TEXTS.jsonl: {"text_a": "...", "text_b": "..." (optional)} per line; OUT.jsonl: {"input_ids", "token_type_ids"}.
const fs = require("fs");
const path = require("path");
const [modules, tokenizerJson, textsPath, outPath] = process.argv.slice(2);
const { Tokenizer } = require(path.join(modules, "tokenizers"));

(async () => {
  const tokenizer = Tokenizer.fromFile(tokenizerJson);
  const rows = fs.readFileSync(textsPath, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l));
  const out = [];
  for (const r of rows) {
    const e = await tokenizer.encode(r.text_a, r.text_b === undefined ? null : r.text_b);
    out.push(JSON.stringify({ input_ids: e.getIds(), token_type_ids: e.getTypeIds() }));
  }
  fs.writeFileSync(outPath, out.join("\n") + "\n");
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
