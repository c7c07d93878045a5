// SPDX-License-Identifier: Apache-2.0
// The tokenizer in the page follows google-research/bert tokenization.py (BasicTokenizer:
// _clean_text, _tokenize_chinese_chars, lower case and accent stripping, _run_split_on_punc;
// WordpieceTokenizer: greedy longest match, "##" continuations, [UNK] for words over 200
// characters), as core/tokenize/fulltokenizer.cpp does. onnxruntime-web's API: InferenceSession,
// Tensor, env.wasm.wasmPaths (https://onnxruntime.ai/docs/api/js/).
#include "core/export/demopage.h"

#include "core/formats/thresholds.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// The page's <head>: its title and style sheet.
const char *pageHead()
{
    return R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Text classifier demo</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; color: #222; }
  textarea { width: 100%; min-height: 7em; font: inherit; padding: .5em; box-sizing: border-box; }
  .bar { display: flex; align-items: center; gap: .6em; margin: .3em 0; }
  .bar .name { width: 10em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .bar .track { flex: 1; background: #eee; height: 1.2em; border-radius: 3px; }
  .bar .fill { background: #3b7dd8; height: 100%; border-radius: 3px; }
  .bar.best .fill { background: #1f5fb8; }
  .bar .value { width: 5em; text-align: right; font-variant-numeric: tabular-nums; }
  .pieces span { display: inline-block; margin: 2px; padding: 1px 5px; border-radius: 3px; background: #f0f0f0;
                 font-family: ui-monospace, monospace; font-size: 90%; }
  .pieces span.special { background: #ddd; color: #666; }
  #status { color: #666; }
  #status.error { color: #b00020; }
  #result { display: none; }
</style>
</head>
)html";
}

/// The page's visible part: the text box, the button, the result bars, and onnxruntime-web's script.
const char *pageBody()
{
    return R"html(<body>
<h1 id="title">Text classifier</h1>
<p id="status">Loading the model…</p>
<textarea id="text" placeholder="Type a text to classify" disabled></textarea>
<div id="bars"></div>
<h3>Wordpieces</h3>
<div id="pieces" class="pieces"></div>
<pre id="result"></pre>
<script src="ort/ort.wasm.min.js"></script>
<script src="ort/ort-wasm-simd-threaded.js"></script>
<script src="model/export.js"></script>
)html";
}

/// The start of the page's script: its status line and the WordPiece tokenizer.
const char *pageTokenizerScript()
{
    return R"html(<script>
"use strict";
const statusLine = document.getElementById("status");
function fail(message) { statusLine.textContent = message; statusLine.className = "error"; }

// --- google-research/bert's BasicTokenizer and WordpieceTokenizer ---------------------------
const isWhitespace = (c) => c === " " || c === "\t" || c === "\n" || c === "\r" || /\p{Zs}/u.test(c);
const isControl = (c) => !(c === "\t" || c === "\n" || c === "\r") && /\p{C}/u.test(c);
function isPunctuation(c) {
  const cp = c.codePointAt(0);
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return /\p{P}/u.test(c);
}
function isChinese(cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}
function basicTokens(text, lower) {
  let clean = "";
  for (const c of text) {
    const cp = c.codePointAt(0);
    if (cp === 0 || cp === 0xFFFD || isControl(c)) continue;
    if (isWhitespace(c)) clean += " ";
    else if (isChinese(cp)) clean += " " + c + " ";
    else clean += c;
  }
  const out = [];
  for (let word of clean.split(" ").filter((w) => w)) {
    if (lower) word = word.toLowerCase().normalize("NFD").replace(/\p{Mn}/gu, "");
    let current = "";
    for (const c of word) {
      if (isPunctuation(c)) { if (current) out.push(current); out.push(c); current = ""; }
      else current += c;
    }
    if (current) out.push(current);
  }
  return out.filter((w) => w);
}
function wordpieces(word, vocab) {
  const chars = Array.from(word);
  if (chars.length > 200) return ["[UNK]"];
  const pieces = [];
  for (let start = 0; start < chars.length;) {
    let end = chars.length, found = null;
    while (start < end) {
      const piece = (start > 0 ? "##" : "") + chars.slice(start, end).join("");
      if (vocab.has(piece)) { found = piece; break; }
      --end;
    }
    if (found === null) return ["[UNK]"];
    pieces.push(found);
    start = end;
  }
  return pieces;
}

)html";
}

/// The page's model code: its files read by <script> (a page opened from disk, file://, may
/// not fetch()), a text classified by the ONNX session, the result bars.
const char *pageModelScript()
{
    return R"html(// --- the model ------------------------------------------------------------------------------
let session = null, vocab = null, labels = [], lower = true, maxSeqLength = 128, thresholds = null;

// The export's files come as scripts (demo/model/, demo/ort/): a page opened from disk
// (file://) may run scripts beside it but not fetch() them, so the bytes are base64 text.
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error("cannot read demo/" + src));
    document.head.appendChild(s);
  });
}
function base64Into(text, bytes, at) {
  const raw = atob(text);
  if (at + raw.length > bytes.length) throw new Error("the model's parts hold more bytes than demo/model/export.js says");
  for (let i = 0; i < raw.length; ++i) bytes[at + i] = raw.charCodeAt(i);
  return raw.length;
}
let modelBytes = null, modelFilled = 0, partExpected = 0;
window.wbDemoModelPart = (index, text) => {
  if (index !== partExpected) throw new Error("demo/model/: part " + index + " where part " + partExpected + " belongs");
  modelFilled += base64Into(text, modelBytes, modelFilled);
  ++partExpected;
};

async function classify(text) {
  const pieces = ["[CLS]"];
  for (const w of basicTokens(text, lower)) pieces.push(...wordpieces(w, vocab));
  pieces.length = Math.min(pieces.length, maxSeqLength - 1);
  pieces.push("[SEP]");
  const ids = pieces.map((p) => vocab.get(p) ?? vocab.get("[UNK]"));
  const n = ids.length;
  const feeds = {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, (v) => BigInt(v)), [1, n]),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(n).fill(1n), [1, n]),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(n), [1, n]),
  };
  const logits = Array.from((await session.run(feeds)).logits.data);
  if (labels.length !== logits.length) labels = logits.map((_, k) => labels[k] ?? "label " + k);
  if (thresholds) { // multi-label: one sigmoid per label, the label set at config.json's thresholds
    const probabilities = logits.map((v) => 1 / (1 + Math.exp(-v)));
    const predicted_labels = labels.filter((_, k) => probabilities[k] >= (thresholds[k] ?? 0.5));
    return { text, wordpieces: pieces, input_ids: ids, labels, probabilities, thresholds, predicted_labels };
  }
  const m = Math.max(...logits);
  const e = logits.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return { text, wordpieces: pieces, input_ids: ids, labels, probabilities: e.map((v) => v / sum) };
}

function show(r) {
  const best = r.probabilities.indexOf(Math.max(...r.probabilities));
  const chosen = (k) => (r.thresholds ? r.probabilities[k] >= (r.thresholds[k] ?? 0.5) : k === best);
  const bars = document.getElementById("bars");
  bars.replaceChildren(...r.probabilities.map((p, k) => {
    const row = document.createElement("div");
    row.className = "bar" + (chosen(k) ? " best" : "");
    row.innerHTML = '<span class="name"></span><span class="track"><span class="fill" style="display:block"></span></span>' +
                    '<span class="value"></span>';
    row.querySelector(".name").textContent = r.labels[k];
    row.querySelector(".fill").style.width = (100 * p).toFixed(1) + "%";
    row.querySelector(".value").textContent = (100 * p).toFixed(1) + " %" +
        (r.thresholds ? " (threshold " + (100 * (r.thresholds[k] ?? 0.5)).toFixed(0) + " %)" : "");
    return row;
  }));
  document.getElementById("pieces").replaceChildren(...r.wordpieces.map((w) => {
    const s = document.createElement("span");
    s.textContent = w;
    if (w === "[CLS]" || w === "[SEP]") s.className = "special";
    return s;
  }));
  document.getElementById("result").textContent = JSON.stringify(r);
}

)html";
}

/// The end of the page's script: classification as the text changes, and the start-up that loads
/// the vocabulary, labels, model and runtime from the scripts beside the page.
const char *pageStartScript()
{
    return R"html(let pending = Promise.resolve();
function update() {
  const text = document.getElementById("text").value;
  pending = pending.then(() => classify(text)).then(show).catch((e) => fail(String(e)));
}

(async () => {
  const again = " Export again with --demo (the window's Export Model…: Web demo): it writes demo/ whole.";
  if (typeof ort === "undefined" || typeof wbDemoOrt === "undefined") {
    fail("onnxruntime-web is missing from demo/ort/ (ort.wasm.min.js, ort-wasm-simd-threaded.js)." + again);
    return;
  }
  if (typeof wbDemoExport === "undefined") {
    fail("demo/model/export.js is missing." + again);
    return;
  }
  try {
    const d = wbDemoExport;
    lower = d.do_lower_case !== false;
    maxSeqLength = d.max_seq_length || 128;
    labels = d.labels.slice();
    if (d.problem_type === "multi_label_classification") thresholds = d.thresholds.slice();
    vocab = new Map();
    d.vocab.split("\n").forEach((t, i) => { t = t.replace(/\r$/, ""); if (t) vocab.set(t, i); });
    modelBytes = new Uint8Array(d.model_bytes);
    for (const part of d.model_parts) await loadScript("model/" + part);
    if (modelFilled !== d.model_bytes)
      throw new Error("demo/model/ holds " + modelFilled + " bytes of the model, not " + d.model_bytes);
    // onnxruntime-web takes its WebAssembly binary as bytes and its module as a blob: URL, so it
    // never fetches a file.
    const wasm = new Uint8Array(wbDemoOrt.wasm_bytes);
    base64Into(wbDemoOrt.wasm, wasm, 0);
    ort.env.wasm.wasmBinary = wasm;
    ort.env.wasm.wasmPaths = { mjs: URL.createObjectURL(new Blob([wbDemoOrt.mjs], { type: "text/javascript" })) };
    ort.env.wasm.numThreads = 1;
    session = await ort.InferenceSession.create(modelBytes, { executionProviders: ["wasm"] });
  } catch (e) {
    fail("Cannot load the model: " + e + "." + again);
    return;
  }
  statusLine.textContent = "Ready: " + labels.join(", ") + ". Runs in this browser; nothing is sent anywhere.";
  const box = document.getElementById("text");
  box.disabled = false;
  box.addEventListener("input", update);
  const given = new URLSearchParams(location.search).get("text");
  if (given !== null) { box.value = given; update(); }
})();
</script>
</body>
</html>
)html";
}

constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends the base64 text (RFC 4648, with padding) of `n` bytes at `data` to `out`.
void appendBase64(const unsigned char *data, size_t n, std::string &out)
{
    out.reserve(out.size() + (n + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        const unsigned v = unsigned(data[i]) << 16 | unsigned(data[i + 1]) << 8 | unsigned(data[i + 2]);
        out += kBase64Alphabet[v >> 18 & 63];
        out += kBase64Alphabet[v >> 12 & 63];
        out += kBase64Alphabet[v >> 6 & 63];
        out += kBase64Alphabet[v & 63];
    }
    if (n - i == 1) {
        const unsigned v = unsigned(data[i]) << 16;
        out += kBase64Alphabet[v >> 18 & 63];
        out += kBase64Alphabet[v >> 12 & 63];
        out += "==";
    } else if (n - i == 2) {
        const unsigned v = unsigned(data[i]) << 16 | unsigned(data[i + 1]) << 8;
        out += kBase64Alphabet[v >> 18 & 63];
        out += kBase64Alphabet[v >> 12 & 63];
        out += kBase64Alphabet[v >> 6 & 63];
        out += '=';
    }
}

std::string readWhole(const fs::path &path, const char *what)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad())
        throw Error(path.string(), std::string("cannot read ") + what + " for the web demo",
                    "check that the export folder is readable, then export again with " + optionName("demo"));
    return text.str();
}

/// JSON text with invalid UTF-8 replaced (a vocab line of another encoding).
std::string jsonText(const nlohmann::ordered_json &j)
{
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace

std::string base64Text(const std::string &bytes)
{
    std::string out;
    appendBase64(reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(), out);
    return out;
}

std::vector<std::string> writeDemoData(const std::string &exportDir, const std::vector<std::string> &labels,
                                       bool doLowerCase, int64_t maxSeqLength, size_t partBytes)
{
    if (partBytes < 3)
        partBytes = 3;
    partBytes -= partBytes % 3; // whole base64 quanta: each part decodes on its own
    const fs::path dir = exportDir;
    std::vector<std::string> written;
    // onnxruntime-web's module (text) and WebAssembly binary (base64) as one script.
    {
        const std::string mjs = readWhole(dir / "demo" / "ort" / "ort-wasm-simd-threaded.mjs", "onnxruntime-web's module");
        const std::string wasm = readWhole(dir / "demo" / "ort" / "ort-wasm-simd-threaded.wasm", "onnxruntime-web's binary");
        std::string text = "// onnxruntime-web's ort-wasm-simd-threaded.mjs and .wasm for demo/index.html (written by export --demo)\n"
                           "window.wbDemoOrt = {\"mjs\": " + jsonText(mjs) + ",\n\"wasm_bytes\": " + std::to_string(wasm.size())
                           + ",\n\"wasm\": \"";
        appendBase64(reinterpret_cast<const unsigned char *>(wasm.data()), wasm.size(), text);
        text += "\"};\n";
        writeFileAtomic((dir / "demo" / "ort" / "ort-wasm-simd-threaded.js").string(), text);
        written.push_back("demo/ort/ort-wasm-simd-threaded.js");
    }
    // The model in parts of partBytes (a script's text has a length limit in browsers: V8's is
    // about 512 M characters), read and written a part at a time.
    const fs::path model = dir / "onnx" / "model.onnx";
    std::ifstream in(model, std::ios::binary);
    if (!in)
        throw Error(model.string(), "cannot read the ONNX model for the web demo",
                    "export with " + optionName("onnx_dtype") + " fp32 (the demo runs onnx/model.onnx)");
    fs::create_directories(dir / "demo" / "model");
    std::vector<std::string> parts;
    std::string buffer(partBytes, '\0');
    uint64_t total = 0;
    for (;;) {
        in.read(buffer.data(), std::streamsize(partBytes));
        const size_t got = size_t(in.gcount());
        if (got == 0)
            break;
        char name[32];
        std::snprintf(name, sizeof name, "model-%03zu.js", parts.size());
        std::string text = "wbDemoModelPart(" + std::to_string(parts.size()) + ", \"";
        appendBase64(reinterpret_cast<const unsigned char *>(buffer.data()), got, text);
        text += "\");\n";
        writeFileAtomic((dir / "demo" / "model" / name).string(), text);
        written.push_back(std::string("demo/model/") + name);
        parts.push_back(name);
        total += got;
        if (got < partBytes)
            break;
    }
    if (in.bad())
        throw Error(model.string(), "cannot read the ONNX model for the web demo", "check the export folder, then export again");
    nlohmann::ordered_json j;
    j["labels"] = labels;
    j["do_lower_case"] = doLowerCase;
    j["max_seq_length"] = maxSeqLength;
    j["vocab"] = readWhole(dir / "vocab.txt", "vocab.txt");
    j["model_bytes"] = total;
    j["model_parts"] = parts;
    // A multi-label model: one sigmoid per label and the thresholds config.json (written before the demo) carries.
    std::ifstream configIn(dir / "config.json");
    const auto config = nlohmann::json::parse(configIn, nullptr, false);
    if (config.is_object() && config.value("problem_type", std::string()) == "multi_label_classification") {
        j["problem_type"] = "multi_label_classification";
        j["thresholds"] = configThresholds(config, int64_t(labels.size())).values;
    }
    writeFileAtomic((dir / "demo" / "model" / "export.js").string(),
                    "// The export's labels, casing, vocab.txt and the parts of onnx/model.onnx for demo/index.html "
                    "(written by export --demo)\nwindow.wbDemoExport = " + jsonText(j) + ";\n");
    written.push_back("demo/model/export.js");
    return written;
}

std::string demoPageHtml()
{
    return std::string(pageHead()) + pageBody() + pageTokenizerScript() + pageModelScript() +
           pageStartScript();
}

} // namespace wb
