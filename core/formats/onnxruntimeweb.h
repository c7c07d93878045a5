// SPDX-License-Identifier: Apache-2.0
#pragma once

// onnxruntime-web's browser files for the export's web demo (`export --demo`;
// docs/file-formats.md "demo/index.html"): demo/index.html loads them from demo/ort/, so the
// page works offline. Torch-free header (the window's Export Model… dialog includes it).

#include "core/events/stoptoken.h"
#include "core/hub/npmpackage.h"

#include <string>
#include <vector>

namespace wb {

struct TrainingOptions;

/// The onnxruntime-web release the demo page is written and tested for, with the registry's
/// dist.integrity of its tarball (the version @huggingface/transformers 4.3.1 depends on).
NpmPackagePin onnxRuntimeWebPin();

/// The files demo/ort/ holds, as named in onnxruntime-web's dist/ folder:
/// ort.wasm.min.js, ort-wasm-simd-threaded.wasm, ort-wasm-simd-threaded.mjs.
const std::vector<std::string> &onnxRuntimeWebFiles();

/// Returns the folder of `dir` that holds the three files: `dir` itself, or its dist/ (an
/// unpacked onnxruntime-web package, node_modules/onnxruntime-web). Throws wb::Error naming
/// the first missing file, hint --onnxruntime_web_dir.
std::string onnxRuntimeWebFolder(const std::string &dir);

/// The folder to copy the three files from for `export --demo`: `localDir`
/// (--onnxruntime_web_dir, checked as onnxRuntimeWebFolder does, no network) when given,
/// else the npm cache's copy of onnxRuntimeWebPin() (fetchNpmPackageFiles: the registry of
/// `settings`, the pinned integrity; a cached copy needs no network). Throws wb::Error with
/// the URL or file and the fix (--onnxruntime_web_dir); StoppedByUser when `stop` asks.
std::string obtainOnnxRuntimeWeb(const std::string &localDir, const NpmSettings &settings,
                                 const StopToken *stop = nullptr);

/// For an export that asks for the demo (o.demo, or o.onnxruntime_web_dir given): sets
/// o.demo and replaces o.onnxruntime_web_dir with obtainOnnxRuntimeWeb's folder (the
/// environment's NpmSettings), and returns a note for stderr ("onnxruntime-web <version>
/// from <folder>"); "" and nothing changed otherwise. Front-ends call it after the pre-flight
/// check, before the run, so that a failed fetch is bad input (CLI exit 2) and the export
/// folder is not touched. Throws as obtainOnnxRuntimeWeb.
std::string resolveDemoRuntime(TrainingOptions &o, const StopToken *stop = nullptr);

/// Copies the three files from `from` (a folder onnxRuntimeWebFolder accepts) into
/// `demoDir`/ort/ and returns their names relative to `demoDir`'s parent ("demo/ort/…").
/// Throws wb::Error naming the file that cannot be read or written.
std::vector<std::string> copyOnnxRuntimeWeb(const std::string &from, const std::string &demoDir);

} // namespace wb
