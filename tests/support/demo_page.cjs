// SPDX-License-Identifier: Apache-2.0
// Loads an export's demo/index.html in headless Chromium from a local static server (or, with
// "file", from disk as a file:// URL, as a double-click opens it), once per text (?text=...: the
// page classifies it at load, as when typed), and reads the page's result (<pre id="result">,
// JSON) from the DOM Chromium dumps.
// Usage: node demo_page.cjs CHROMIUM EXPORT_FOLDER TEXTS.json OUT.json [file]
// TEXTS.json: ["...", ...]; OUT.json: [{"text", "wordpieces", "input_ids", "labels", "probabilities"} | {"error"}, ...]
// OUT.json.requests.json: every path the pages asked the server for, with its status: ["200 /demo/index.html", ...]
const fs = require("fs");
const http = require("http");
const path = require("path");
const { execFile } = require("child_process");
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

function unescapeHtml(s) {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

function load(url, profile) {
  return new Promise((resolve) => {
    execFile(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
                        "--virtual-time-budget=300000", "--dump-dom", url],
             { timeout: 120000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => resolve({ err, stdout, stderr }));
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
    const m = /<pre id="result">([^<]*)<\/pre>/.exec(r.stdout);
    const status = /<p id="status"[^>]*>([^<]*)<\/p>/.exec(r.stdout);
    if (m && m[1]) out.push(JSON.parse(unescapeHtml(m[1])));
    else out.push({ error: (status ? unescapeHtml(status[1]) : "no page") + " " + String(r.err || "") + " " +
                           r.stderr.slice(-600) });
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
  fs.writeFileSync(outPath + ".requests.json", JSON.stringify(requests));
  server.close();
});
