// SPDX-License-Identifier: Apache-2.0
// The tokenizer in the page follows google-research/bert tokenization.py (BasicTokenizer:
// _clean_text, _tokenize_chinese_chars, lower case and accent stripping, _run_split_on_punc;
// WordpieceTokenizer: greedy longest match, "##" continuations, [UNK] for words over 200
// characters), as core/data/fulltokenizer.cpp does. onnxruntime-web's API: InferenceSession,
// Tensor, env.wasm.wasmPaths (https://onnxruntime.ai/docs/api/js/).
#include "core/train/demopage.h"

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

/// The page's model code: its files fetched, a text classified by the ONNX session, the result bars.
const char *pageModelScript()
{
    return R"html(// --- the model ------------------------------------------------------------------------------
let session = null, vocab = null, labels = [], lower = true, maxSeqLength = 128;

async function fetchText(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error("cannot read " + path + " (" + r.status + ")");
  return r.text();
}

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
  const m = Math.max(...logits);
  const e = logits.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return { text, wordpieces: pieces, input_ids: ids, labels, probabilities: e.map((v) => v / sum) };
}

function show(r) {
  const best = r.probabilities.indexOf(Math.max(...r.probabilities));
  const bars = document.getElementById("bars");
  bars.replaceChildren(...r.probabilities.map((p, k) => {
    const row = document.createElement("div");
    row.className = "bar" + (k === best ? " best" : "");
    row.innerHTML = '<span class="name"></span><span class="track"><span class="fill" style="display:block"></span></span>' +
                    '<span class="value"></span>';
    row.querySelector(".name").textContent = r.labels[k];
    row.querySelector(".fill").style.width = (100 * p).toFixed(1) + "%";
    row.querySelector(".value").textContent = (100 * p).toFixed(1) + " %";
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
/// the vocabulary, labels and model.
const char *pageStartScript()
{
    return R"html(let pending = Promise.resolve();
function update() {
  const text = document.getElementById("text").value;
  pending = pending.then(() => classify(text)).then(show).catch((e) => fail(String(e)));
}

(async () => {
  if (typeof ort === "undefined") {
    fail("onnxruntime-web is missing from demo/ort/: export again with --demo (it copies ort.wasm.min.js, " +
         "ort-wasm-simd-threaded.wasm and ort-wasm-simd-threaded.mjs of npm's onnxruntime-web there), then serve the " +
         "export folder (e.g. python3 -m http.server) and open demo/.");
    return;
  }
  ort.env.wasm.wasmPaths = new URL("ort/", document.baseURI).href;
  ort.env.wasm.numThreads = 1;
  try {
    const config = JSON.parse(await fetchText("../config.json"));
    const tok = JSON.parse(await fetchText("../tokenizer_config.json"));
    lower = tok.do_lower_case !== false;
    maxSeqLength = tok.max_seq_length || tok.model_max_length || 128;
    const n = config.num_labels || Object.keys(config.id2label || {}).length;
    labels = Array.from({ length: n }, (_, k) => (config.id2label || {})[String(k)] ?? "label " + k);
    vocab = new Map();
    (await fetchText("../vocab.txt")).split("\n").forEach((t, i) => { t = t.replace(/\r$/, ""); if (t) vocab.set(t, i); });
    session = await ort.InferenceSession.create("../onnx/model.onnx", { executionProviders: ["wasm"] });
  } catch (e) {
    fail("Cannot load the model: " + e + ". Serve the export folder with a static server (browsers refuse file:// " +
         "reads) and open demo/index.html there.");
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

} // namespace

std::string demoPageHtml()
{
    return std::string(pageHead()) + pageBody() + pageTokenizerScript() + pageModelScript() +
           pageStartScript();
}

} // namespace wb
