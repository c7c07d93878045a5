// SPDX-License-Identifier: Apache-2.0
// Token ids from Hugging Face's tokenizers.js (npm @huggingface/tokenizers) with a BERT WordPiece
// tokenizer.json built from VOCAB (max_input_chars_per_word 200, as google-research/bert).
// Usage: NODE_PATH=<dir with node_modules> node hf_tokenizer_ids.mjs MODULE_DIR VOCAB FILES.txt OUT.jsonl
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [moduleDir, vocabPath, filesPath, outPath] = process.argv.slice(2);
const { Tokenizer } = await import(pathToFileURL(path.join(moduleDir, "dist/tokenizers.mjs")).href);
const vocab = {};
fs.readFileSync(vocabPath, "utf8").split("\n").forEach((t, i) => { t = t.trim(); if (i < 30522 || t) vocab[t] = i; });
const special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const json = {
  version: "1.0", truncation: null, padding: null,
  added_tokens: special.map((t) => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
  normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: "BertPreTokenizer" },
  post_processor: null, decoder: null,
  model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 200, vocab },
};
const tok = new Tokenizer(json, { do_lower_case: true });
const files = fs.readFileSync(filesPath, "utf8").split("\n").filter((f) => f);
const texts = files.map((f) => new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(fs.readFileSync(f)).replace(/\uFFFD/g, ""));
let bytes = 0;
for (const f of files) bytes += fs.statSync(f).size;
const t0 = process.hrtime.bigint();
const out = texts.map((t) => tok.encode(t, { add_special_tokens: false }).ids);
const s = Number(process.hrtime.bigint() - t0) / 1e9;
fs.writeFileSync(outPath, out.map((ids) => JSON.stringify(ids)).join("\n") + "\n");
console.log(JSON.stringify({ bench: "tokenizer_hf_js", files: files.length, seconds: s, mb_per_s: bytes / 1e6 / s }));
