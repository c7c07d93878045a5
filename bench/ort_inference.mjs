// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's side of bench_inference: runs an exported onnx/model.onnx with npm
// `onnxruntime-node` (CPU execution provider, THREADS intra-op threads (default 1) and 1 inter-op thread, sequential,
// all graph optimisations) on the inputs bench_inference wrote, and prints one JSON line:
// {"median_ms", "min_ms", "repeats", "logits": first row}.
// Usage: node ort_inference.mjs NODE_MODULES MODEL.onnx INPUTS.json REPEATS [THREADS]
// INPUTS.json: {"batch", "seq", "input_ids": [...row-major...], "attention_mask": [...], "token_type_ids": [...]}
import fs from "fs";
import path from "path";
import { createRequire } from "module";

const [modules, modelPath, inputsPath, repeatsText, threadsText] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const ort = require(path.join(modules, "onnxruntime-node"));
const repeats = Math.max(1, parseInt(repeatsText || "10", 10));
const j = JSON.parse(fs.readFileSync(inputsPath, "utf8"));
const shape = [j.batch, j.seq];
const feeds = {};
for (const name of ["input_ids", "attention_mask", "token_type_ids"])
  feeds[name] = new ort.Tensor("int64", BigInt64Array.from(j[name], (v) => BigInt(v)), shape);
const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: Math.max(1, parseInt(threadsText || "1", 10)), interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" });
let result;
for (let i = 0; i < 2; ++i) result = await session.run(feeds); // warm-up
const times = [];
for (let i = 0; i < repeats; ++i) {
  const t0 = process.hrtime.bigint();
  result = await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const width = result.logits.dims[1];
console.log(JSON.stringify({ median_ms: times[Math.floor(times.length / 2)], min_ms: times[0], repeats,
                             logits: Array.from(result.logits.data.slice(0, width)) }));
