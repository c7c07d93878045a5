// SPDX-License-Identifier: Apache-2.0
// The logits ONNX Runtime (npm `onnxruntime-node`, its CPU execution provider) computes with an
// exported onnx/model.onnx, for batches of int64 inputs.
// Usage: node ort_logits.cjs NODE_MODULES MODEL.onnx BATCHES.json OUT.json
// BATCHES.json: [{"input_ids": [[...], ...], "attention_mask": [[...]], "token_type_ids": [[...]]}, ...]
// OUT.json: [{"dims": [batch, num_labels], "logits": [...row-major...], "inputs": [...], "outputs": [...]}, ...]
const fs = require("fs");
const path = require("path");
const [modules, modelPath, batchesPath, outPath] = process.argv.slice(2);
const ort = require(path.join(modules, "onnxruntime-node"));

function tensor(rows) {
  const b = rows.length, s = rows[0].length;
  const data = new BigInt64Array(b * s);
  rows.forEach((r, i) => r.forEach((v, j) => { data[i * s + j] = BigInt(v); }));
  return new ort.Tensor("int64", data, [b, s]);
}

(async () => {
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const batches = JSON.parse(fs.readFileSync(batchesPath, "utf8"));
  const out = [];
  for (const batch of batches) {
    const feeds = {};
    for (const name of ["input_ids", "attention_mask", "token_type_ids"]) feeds[name] = tensor(batch[name]);
    const result = await session.run(feeds);
    const logits = result.logits;
    out.push({ dims: logits.dims, type: logits.type, logits: Array.from(logits.data),
               inputs: session.inputNames, outputs: session.outputNames });
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
