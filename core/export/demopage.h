// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// The export's demo/index.html (docs/file-formats.md "demo/index.html"): one self-contained
/// page that classifies the text box's text as you type, entirely in the browser, opened from
/// disk (file://) or from any static server. Browsers refuse fetch() on file://, so the page
/// reads nothing but scripts beside it (writeDemoData): demo/model/export.js (labels,
/// do_lower_case, max_seq_length, vocab.txt's text, the list of model parts),
/// demo/model/model-NNN.js (onnx/model.onnx in base64 parts), demo/ort/ort.wasm.min.js
/// (onnxruntime-web, from npm's dist/) and demo/ort/ort-wasm-simd-threaded.js (its module as
/// text, run from a blob: URL, and its WebAssembly binary in base64, given to it as
/// env.wasm.wasmBinary). It tokenizes as core/tokenize/fulltokenizer.h does (google-research/bert's
/// BasicTokenizer + WordPiece, max 200 characters a word, [CLS] … [SEP] within
/// max_seq_length), runs the model with onnxruntime-web's WebAssembly backend (one thread) and
/// shows a bar per label and the wordpieces; a missing file is named with the fix (export again
/// with --demo). `?text=...` in the URL classifies that text at load; the result is also in
/// <pre id="result"> as JSON ({"text", "wordpieces", "input_ids", "labels", "probabilities"};
/// a multi-label model: each label's sigmoid, plus "thresholds" and "predicted_labels", the
/// labels at or above their threshold, whose bars are marked), for scripts and tests. Pure;
/// thread-safe.
std::string demoPageHtml();

/// Writes the scripts demo/index.html reads into the export folder `exportDir`, from the files
/// already there: demo/ort/ort-wasm-simd-threaded.js (from demo/ort/ort-wasm-simd-threaded.mjs
/// and .wasm), demo/model/model-000.js, model-001.js, … (onnx/model.onnx in parts of at most
/// `partBytes` bytes, rounded down to a multiple of 3, each `wbDemoModelPart(index,
/// "<base64>");`) and demo/model/export.js (`window.wbDemoExport = {"labels", "do_lower_case",
/// "max_seq_length", "vocab", "model_bytes", "model_parts"};`, plus "problem_type" and
/// "thresholds" when the folder's config.json is multi-label). The demo folder grows by about
/// 4/3 of the model's size. Returns the names written relative to `exportDir`, in that order.
/// Every file atomic; throws wb::Error naming the file that cannot be read or written.
std::vector<std::string> writeDemoData(const std::string &exportDir, const std::vector<std::string> &labels,
                                       bool doLowerCase, int64_t maxSeqLength, size_t partBytes = 24u << 20);

/// `bytes` in base64 (RFC 4648, padded). Pure; thread-safe.
std::string base64Text(const std::string &bytes);

} // namespace wb
