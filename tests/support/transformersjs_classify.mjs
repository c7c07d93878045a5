// SPDX-License-Identifier: Apache-2.0
// transformers.js (npm `@huggingface/transformers`) classifying texts with an export folder as
// its model, local files only: pipeline("text-classification", name) with env.localModelPath
// the folder's parent and remote models off.
// Usage: node transformersjs_classify.mjs NODE_MODULES EXPORT_FOLDER TEXTS.jsonl OUT.jsonl [batch]
// TEXTS.jsonl: {"text": "..."} per line; OUT.jsonl: [{"label": "...", "score": p}, ...] per line, every label.
// "batch": the texts go to the pipeline as one list (padded to the longest: the tokenizer needs
// tokenizer_config.json's pad_token), else one call per text.
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [modules, folder, textsPath, outPath, mode] = process.argv.slice(2);
const entry = path.join(modules, "@huggingface", "transformers");
const pkg = JSON.parse(fs.readFileSync(path.join(entry, "package.json"), "utf8"));
const main = pkg.exports?.node?.import?.default ?? "./dist/transformers.node.mjs"; // its Node.js ES module
const { pipeline, env } = await import(pathToFileURL(path.join(entry, main)).href);

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = path.dirname(path.resolve(folder)) + path.sep;
env.useBrowserCache = false;
env.useFSCache = false;

try {
  const classify = await pipeline("text-classification", path.basename(path.resolve(folder)), {
    dtype: "fp32", device: "cpu", local_files_only: true,
  });
  const rows = fs.readFileSync(textsPath, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l));
  const out = [];
  if (mode === "batch") {
    const all = await classify(rows.map((r) => r.text), { top_k: null });
    if (!Array.isArray(all) || all.length !== rows.length) throw new Error("the pipeline gave " + JSON.stringify(all));
    for (const labels of all) out.push(JSON.stringify(labels));
  } else {
    for (const r of rows) out.push(JSON.stringify(await classify(r.text, { top_k: null })));
  }
  fs.writeFileSync(outPath, out.join("\n") + "\n");
} catch (e) {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
}
