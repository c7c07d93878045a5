// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace wb {

/// The export's demo/index.html (docs/file-formats.md "demo/index.html"): one self-contained
/// page that classifies the text box's text as you type, entirely in the browser. It reads the
/// export folder around it (../config.json for id2label, ../tokenizer_config.json for
/// do_lower_case and max_seq_length, ../vocab.txt, ../onnx/model.onnx), tokenizes as
/// core/data/fulltokenizer.h does (google-research/bert's BasicTokenizer + WordPiece, max 200
/// characters a word, [CLS] … [SEP] within max_seq_length), runs the model with
/// onnxruntime-web's WebAssembly build (demo/ort/: ort.wasm.min.js, ort-wasm-simd-threaded.wasm
/// and ort-wasm-simd-threaded.mjs from npm's onnxruntime-web dist/ folder; the page says so
/// when they are missing) and shows a bar per label and the wordpieces. `?text=...` in the URL
/// classifies that text at load; the result is also in <pre id="result"> as JSON
/// ({"text", "wordpieces", "input_ids", "labels", "probabilities"}), for scripts and tests.
/// Works from a plain static server (browsers refuse fetch() from file://). Pure; thread-safe.
std::string demoPageHtml();

} // namespace wb
