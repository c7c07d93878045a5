// SPDX-License-Identifier: Apache-2.0
#include "core/formats/onnxruntimeweb.h"

#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/util/error.h"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace wb {

namespace {

std::string localHint()
{
    return passOption("onnxruntime_web_dir", "DIR") + " with an unpacked onnxruntime-web package (npm pack onnxruntime-web@"
           + onnxRuntimeWebPin().version + ", then tar xzf it: DIR is its package/ folder)";
}

} // namespace

NpmPackagePin onnxRuntimeWebPin()
{
    // npm view onnxruntime-web@1.31.0-dev.20260914-8d85527a0 dist.integrity
    return {"onnxruntime-web", "1.31.0-dev.20260914-8d85527a0",
            "sha512-Iy7rtadoBgxS/LLvDr3QW38DB1PNXRnr0GJMcL0TAt7c9qjgVQl83UlGCVyeAnK2InpmW8Uc3PL8XIuqtDeF6g=="};
}

const std::vector<std::string> &onnxRuntimeWebFiles()
{
    static const std::vector<std::string> files{"ort.wasm.min.js", "ort-wasm-simd-threaded.wasm",
                                                "ort-wasm-simd-threaded.mjs"};
    return files;
}

std::string onnxRuntimeWebFolder(const std::string &dir)
{
    std::error_code ec;
    for (const fs::path &candidate : {fs::path(dir), fs::path(dir) / "dist"}) {
        bool all = true;
        for (const auto &f : onnxRuntimeWebFiles())
            all = all && fs::is_regular_file(candidate / f, ec);
        if (all)
            return candidate.string();
    }
    const fs::path shown = fs::is_directory(fs::path(dir) / "dist", ec) ? fs::path(dir) / "dist" : fs::path(dir);
    for (const auto &f : onnxRuntimeWebFiles())
        if (!fs::is_regular_file(shown / f, ec))
            throw Error("onnxruntime_web_dir", "no " + f + " in " + shown.string()
                                                   + " (the web demo needs ort.wasm.min.js, ort-wasm-simd-threaded.wasm "
                                                     "and ort-wasm-simd-threaded.mjs from onnxruntime-web's dist/)",
                        localHint() + ", or leave " + optionName("onnxruntime_web_dir")
                            + " out to fetch them from the npm registry");
    return shown.string();
}

std::string obtainOnnxRuntimeWeb(const std::string &localDir, const NpmSettings &settings, const StopToken *stop)
{
    if (!localDir.empty())
        return onnxRuntimeWebFolder(localDir);
    std::vector<std::string> files;
    for (const auto &f : onnxRuntimeWebFiles())
        files.push_back("dist/" + f);
    return fetchNpmPackageFiles(onnxRuntimeWebPin(), files, settings, localHint(), stop) + "/dist";
}

std::string resolveDemoRuntime(TrainingOptions &o, const StopToken *stop)
{
    if (!o.demo && o.onnxruntime_web_dir.empty())
        return {};
    const bool local = !o.onnxruntime_web_dir.empty();
    o.onnxruntime_web_dir = obtainOnnxRuntimeWeb(o.onnxruntime_web_dir, NpmSettings::fromEnvironment(), stop);
    o.demo = true;
    return "the web demo runs on onnxruntime-web " + (local ? std::string() : onnxRuntimeWebPin().version + " ")
           + "from " + o.onnxruntime_web_dir;
}

std::vector<std::string> copyOnnxRuntimeWeb(const std::string &from, const std::string &demoDir)
{
    const std::string src = onnxRuntimeWebFolder(from);
    const fs::path ort = fs::path(demoDir) / "ort";
    std::error_code ec;
    fs::create_directories(ort, ec);
    std::vector<std::string> written;
    for (const auto &f : onnxRuntimeWebFiles()) {
        fs::copy_file(fs::path(src) / f, ort / f, fs::copy_options::overwrite_existing, ec);
        if (ec)
            throw Error((ort / f).string(), "cannot copy onnxruntime-web's " + f + " from " + src + ": " + ec.message(),
                        "check that the export folder is writable and has space");
        written.push_back("demo/ort/" + f);
    }
    return written;
}

} // namespace wb
