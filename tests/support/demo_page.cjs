// SPDX-License-Identifier: Apache-2.0
// Loads an export's demo/index.html in headless Chromium from a local static server (or, with
// "file", from disk as a file:// URL, as a double-click opens it), once per text (?text=...: the
// page classifies it at load, as when typed), and reads the page's result (<pre id="result">,
// JSON) from its DOM.
// Usage: node demo_page.cjs CHROMIUM EXPORT_FOLDER TEXTS.json OUT.json [file]
// TEXTS.json: ["...", ...]; OUT.json: [{"text", "wordpieces", "input_ids", "labels", "probabilities"} | {"error"}, ...]
// OUT.json.requests.json: every path the pages asked the server for, with its status: ["200 /demo/index.html", ...]
const fs = require("fs");
const http = require("http");
const path = require("path");
const { spawn } = require("child_process");
const { pathToFileURL } = require("url");
const [chromium, folder, textsPath, outPath, mode] = process.argv.slice(2);

const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
                ".json": "application/json", ".txt": "text/plain", ".onnx": "application/octet-stream" };
const root = path.resolve(folder);
const requests = [];
const server = http.createServer((req, res) => {
  const pathname = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = path.join(root, pathname);
  if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    requests.push("404 " + pathname); res.writeHead(404); res.end(); return;
  }
  requests.push("200 " + pathname);
  res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});

// Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: it reads
// commands from its fd 3 and writes replies to fd 4, each a JSON text ended by a NUL byte), and
// the page's DOM is read every 200 ms until the result or an error shows, in real time: the page
// compiles WebAssembly off the main thread, which --virtual-time-budget does not wait for.
function load(url, profile) {
  return new Promise((resolve) => {
    const browser = spawn(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                     "--user-data-dir=" + profile, "--remote-debugging-pipe", url],
                          { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
    let stderr = "", buffer = "", last = "", nextId = 1, done = false, timer = null;
    const waiting = new Map();
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      browser.kill("SIGKILL");
      resolve({ ...r, stderr });
    };
    const send = (method, params, sessionId) => new Promise((reply) => {
      const id = nextId++;
      waiting.set(id, reply);
      browser.stdio[3].write(JSON.stringify({ id, method, params: params || {}, ...(sessionId ? { sessionId } : {}) }) + "\0");
    });
    browser.stdio[2].on("data", (c) => { stderr = (stderr + c).slice(-4000); });
    browser.stdio[4].on("data", (c) => {
      buffer += c;
      let end;
      while ((end = buffer.indexOf("\0")) >= 0) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.id && waiting.has(message.id)) {
          waiting.get(message.id)(message);
          waiting.delete(message.id);
        }
      }
    });
    browser.stdio[3].on("error", () => {});
    browser.on("exit", (code, signal) => finish({ err: "chromium exited (" + (code ?? signal) + ")" }));
    timer = setTimeout(() => finish({ status: last, err: "no result after 120 s" }), 120000);
    const probe = "JSON.stringify({ result: document.getElementById('result')?.textContent || '', " +
                  "status: document.getElementById('status')?.textContent || '', " +
                  "failed: document.getElementById('status')?.className === 'error' })";
    (async () => {
      const targets = await send("Target.getTargets");
      const page = (targets.result?.targetInfos || []).find((t) => t.type === "page");
      if (!page) return finish({ err: "no page target: " + JSON.stringify(targets) });
      const attached = await send("Target.attachToTarget", { targetId: page.targetId, flatten: true });
      const sessionId = attached.result?.sessionId;
      if (!sessionId) return finish({ err: "could not attach: " + JSON.stringify(attached) });
      while (!done) {
        const r = await send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId);
        const value = r.result?.result?.value;
        if (value) {
          const state = JSON.parse(value);
          if (state.result) return finish({ result: state.result, status: state.status });
          if (state.failed) return finish({ status: state.status, err: "the page reported an error" });
          last = state.status;
        }
        await new Promise((wake) => setTimeout(wake, 200));
      }
    })().catch((e) => finish({ err: String(e && e.stack || e) }));
  });
}

server.listen(0, "127.0.0.1", async () => {
  const port = server.address().port;
  const texts = JSON.parse(fs.readFileSync(textsPath, "utf8"));
  const out = [];
  for (let i = 0; i < texts.length; ++i) {
    const page = mode === "file" ? pathToFileURL(path.join(root, "demo", "index.html")).href
                                 : `http://127.0.0.1:${port}/demo/index.html`;
    const url = `${page}?text=${encodeURIComponent(texts[i])}`;
    const r = await load(url, path.resolve(outPath) + ".chromium-profile-" + i);
    if (r.result) out.push(JSON.parse(r.result));
    else out.push({ error: (r.status || "no page") + " " + String(r.err || "") + " " + r.stderr.slice(-600) });
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
  fs.writeFileSync(outPath + ".requests.json", JSON.stringify(requests));
  server.close();
});
