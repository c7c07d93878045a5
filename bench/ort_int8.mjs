// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's side of bench_int8 (issue 48): runs several exported onnx/model.onnx files (the
// float32 one first) with npm `onnxruntime-node` (CPU execution provider, 1 intra-op and 1
// inter-op thread, sequential, all graph optimisations), one record at a time (batch 1):
//   - accuracy: every record of RECORDS.json, argmax of the logits against its label;
//   - speed: batch 1 × seq 128 on the first record, the models in alternating rounds
//     (ROUNDS rounds of REPEATS runs each after 3 warm-ups), median per round.
// Prints one JSON line: {"models": [{"path", "accuracy", "agree_with_first", "max_probability_difference",
// "median_ms", "round_ms": [...]}, ...]}.
// Usage: node ort_int8.mjs NODE_MODULES RECORDS.json REPEATS ROUNDS MODEL.onnx [MODEL.onnx ...]
// RECORDS.json: {"seq", "records": [{"input_ids": [...], "attention_mask": [...], "token_type_ids": [...], "label"}]}
import fs from "fs";
import path from "path";
import { createRequire } from "module";

const [modules, recordsPath, repeatsText, roundsText, ...models] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const ort = require(path.join(modules, "onnxruntime-node"));
const repeats = Math.max(1, parseInt(repeatsText || "50", 10));
const rounds = Math.max(1, parseInt(roundsText || "5", 10));
const data = JSON.parse(fs.readFileSync(recordsPath, "utf8"));
const seq = data.seq;

function feeds(r) {
  const f = {};
  for (const name of ["input_ids", "attention_mask", "token_type_ids"])
    f[name] = new ort.Tensor("int64", BigInt64Array.from(r[name], (v) => BigInt(v)), [1, seq]);
  return f;
}
function softmax(z) {
  const m = Math.max(...z);
  const e = z.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}

const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" };
const sessions = [];
for (const m of models) sessions.push(await ort.InferenceSession.create(m, options));
const inputs = data.records.map(feeds);

// Accuracy and agreement with the first model.
const probs = [];
const out = models.map((m) => ({ path: m }));
for (let s = 0; s < sessions.length; ++s) {
  let right = 0;
  probs.push([]);
  for (let i = 0; i < inputs.length; ++i) {
    const logits = Array.from((await sessions[s].run(inputs[i])).logits.data);
    const p = softmax(logits);
    probs[s].push(p);
    if (p.indexOf(Math.max(...p)) === data.records[i].label) ++right;
  }
  out[s].accuracy = right / inputs.length;
  let agree = 0, worst = 0;
  for (let i = 0; i < inputs.length; ++i) {
    const a = probs[0][i], b = probs[s][i];
    if (a.indexOf(Math.max(...a)) === b.indexOf(Math.max(...b))) ++agree;
    for (let k = 0; k < a.length; ++k) worst = Math.max(worst, Math.abs(a[k] - b[k]));
  }
  out[s].agree_with_first = agree / inputs.length;
  out[s].max_probability_difference = worst;
  out[s].round_ms = [];
}

// Speed: batch 1 × seq 128, alternating rounds.
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (const s of sessions) for (let i = 0; i < 3; ++i) await s.run(inputs[0]);
for (let r = 0; r < rounds; ++r) {
  for (let s = 0; s < sessions.length; ++s) {
    const times = [];
    for (let i = 0; i < repeats; ++i) {
      const t0 = process.hrtime.bigint();
      await sessions[s].run(inputs[0]);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    out[s].round_ms.push(median(times));
  }
}
for (const o of out) o.median_ms = median(o.round_ms);
console.log(JSON.stringify({ examples: inputs.length, seq, repeats, rounds, models: out }));
