// SPDX-License-Identifier: Apache-2.0
// onnxruntime-web's side of the int8 benchmark (issue 48): several exported onnx/model.onnx files
// (the float32 one first) timed in headless Chromium with onnxruntime-web's WebAssembly backend
// (one thread, as the demo page runs without cross-origin isolation; all graph optimisations),
// batch 1 × seq 128 (input_ids: [CLS], 126 ids 2000 + k, [SEP]; attention_mask all 1), the models
// in alternating rounds (ROUNDS rounds of REPEATS runs each, after warm-up runs per model, 20 and 3 s at
// least: the browser compiles WebAssembly again, optimised, once it is hot), the mean of each round (the
// page's clock is coarse), and the median over the rounds. The page and the files come from a static server on loopback; the page
// posts its figures back, and Chromium is then stopped.
// Usage: node ort_web_int8.cjs CHROMIUM ORT_WEB_DIST REPEATS ROUNDS MODEL.onnx [MODEL.onnx ...]
// Prints one JSON line: {"user_agent", "models": [{"path", "bytes", "median_ms", "round_ms": [...]}],
//                        "speedup_vs_first": [...] (the first model's median over each one's),
//                        "speedup_paired": [...] (the median of the rounds' ratios)}.
const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");
const { spawn } = require("child_process");

const [chromium, dist, repeatsText, roundsText, ...models] = process.argv.slice(2);
if (!chromium || !dist || models.length === 0) {
  process.stderr.write("usage: node ort_web_int8.cjs CHROMIUM ORT_WEB_DIST REPEATS ROUNDS MODEL.onnx [MODEL.onnx ...]\n");
  process.exit(2);
}
const repeats = Math.max(1, parseInt(repeatsText || "30", 10));
const rounds = Math.max(1, parseInt(roundsText || "5", 10));

const page = `<!doctype html><meta charset="utf-8"><title>ort-web int8</title>
<script type="module">
import * as ort from "/ort/ort.wasm.min.mjs";
ort.env.wasm.numThreads = 1;
ort.env.wasm.wasmPaths = "/ort/";
const count = ${models.length}, repeats = ${repeats}, rounds = ${rounds}, seq = 128;
const ids = new BigInt64Array(seq);
ids[0] = 101n; ids[seq - 1] = 102n;
for (let k = 1; k < seq - 1; ++k) ids[k] = BigInt(2000 + k);
const feeds = {
  input_ids: new ort.Tensor("int64", ids, [1, seq]),
  attention_mask: new ort.Tensor("int64", new BigInt64Array(seq).fill(1n), [1, seq]),
  token_type_ids: new ort.Tensor("int64", new BigInt64Array(seq), [1, seq]),
};
async function post(body) { await fetch("/result", { method: "POST", body: JSON.stringify(body) }); }
try {
  const sessions = [];
  for (let i = 0; i < count; ++i) {
    const s = await ort.InferenceSession.create("/model/" + i + ".onnx",
                                               { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
    const warm = performance.now(); // past WebAssembly's tier-up: 20 runs and 3 s at least
    for (let w = 0; w < 20 || performance.now() - warm < 3000; ++w) await s.run(feeds);
    sessions.push(s);
  }
  const roundMs = sessions.map(() => []);
  for (let r = 0; r < rounds; ++r) {
    for (let i = 0; i < count; ++i) {
      const t0 = performance.now();
      for (let k = 0; k < repeats; ++k) await sessions[i].run(feeds);
      roundMs[i].push((performance.now() - t0) / repeats);
    }
  }
  await post({ user_agent: navigator.userAgent, round_ms: roundMs });
} catch (e) {
  await post({ error: String(e && e.stack || e) });
}
</script>`;

const types = { ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm" };
const distRoot = path.resolve(dist);
let browser = null;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (req.method === "POST" && url.pathname === "/result") {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.end("ok");
      finish(JSON.parse(body));
    });
    return;
  }
  if (url.pathname === "/bench.html") {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(page);
    return;
  }
  let file = null;
  const m = /^\/model\/(\d+)\.onnx$/.exec(url.pathname);
  if (m && Number(m[1]) < models.length) file = path.resolve(models[Number(m[1])]);
  else if (url.pathname.startsWith("/ort/")) {
    file = path.join(distRoot, path.basename(url.pathname));
  }
  if (!file || !fs.existsSync(file)) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function finish(result) {
  if (browser) browser.kill("SIGKILL");
  server.close();
  if (result.error) {
    process.stderr.write("the page failed: " + result.error + "\n");
    process.exit(1);
  }
  const out = {
    user_agent: result.user_agent,
    models: models.map((p, i) => ({ path: p, bytes: fs.statSync(p).size, median_ms: median(result.round_ms[i]),
                                    round_ms: result.round_ms[i] })),
  };
  out.speedup_vs_first = out.models.map((m) => out.models[0].median_ms / m.median_ms);
  // Pair by pair: the median over the rounds of each round's ratio (the rounds alternate, so a
  // slower stretch of the machine slows both sides of a pair).
  out.speedup_paired = out.models.map((m) => median(m.round_ms.map((ms, r) => out.models[0].round_ms[r] / ms)));
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
}

server.listen(0, "127.0.0.1", () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ort-web-int8-"));
  browser = spawn(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--user-data-dir=" + profile, "--remote-debugging-port=0",
                             `http://127.0.0.1:${server.address().port}/bench.html`],
                  { stdio: ["ignore", "ignore", "ignore"] });
  browser.on("exit", (code) => {
    process.stderr.write("chromium exited (" + code + ") before the page posted its figures\n");
    process.exit(1);
  });
  setTimeout(() => {
    process.stderr.write("no figures after 15 minutes\n");
    browser.kill("SIGKILL");
    process.exit(1);
  }, 15 * 60 * 1000);
});
