// SPDX-License-Identifier: Apache-2.0
// Replays the committed seeds (fuzz/corpus/<target>) and fixed crashers
// (fuzz/regressions/<target>) through every fuzz target, without libFuzzer: the ctest
// fuzz.replay, built with the ordinary compiler. Each fuzz_<target>.cpp is compiled with
// LLVMFuzzerTestOneInput renamed to fuzz_<target>_entry (tests/fuzz.cmake).
// Usage: wb_fuzzreplay <fuzz dir>. Exit 0 when every input ran; a target's contract check
// aborts the process, naming nothing, so the input is printed before it runs.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define WB_FUZZ_TARGETS(X)                                                                                         \
    X(bertconfig) X(inputmetadata) X(tfconfig) X(tfrecord) X(example) X(safetensors) X(torchpickle) X(eventfile)   \
        X(csvtsv) X(vocab) X(projectfile) X(progressjsonl) X(evalexamples) X(bestrecord) X(runconfig) X(labelnames) \
            X(preparereport) X(metricsjsonl) X(lrfind) X(hubresponse) X(pretrainingtext) X(pretrainingrecord)     \
                X(emailbody) X(splitfile) X(sweepfile) X(sweepevents) X(corrections) X(labelstore)

#define WB_DECLARE(name) extern "C" int fuzz_##name##_entry(const uint8_t *data, size_t size);
WB_FUZZ_TARGETS(WB_DECLARE)

namespace fs = std::filesystem;

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <fuzz dir>\n", argv[0]);
        return 2;
    }
    struct Target
    {
        const char *name;
        int (*entry)(const uint8_t *, size_t);
    };
#define WB_ENTRY(name) Target{#name, fuzz_##name##_entry},
    const std::vector<Target> targets = {WB_FUZZ_TARGETS(WB_ENTRY)};
    int total = 0;
    for (const Target &t : targets) {
        int inputs = 0;
        for (const char *set : {"corpus", "regressions"}) {
            const fs::path dir = fs::path(argv[1]) / set / t.name;
            if (!fs::is_directory(dir))
                continue;
            std::vector<fs::path> files;
            for (const auto &e : fs::directory_iterator(dir))
                if (e.is_regular_file())
                    files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const fs::path &f : files) {
                std::ifstream in(f, std::ios::binary);
                const std::string bytes{std::istreambuf_iterator<char>(in), {}};
                std::fprintf(stderr, "%s\n", f.c_str());
                t.entry(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
                ++inputs;
            }
        }
        if (inputs == 0) {
            std::fprintf(stderr, "fuzz_%s: no seed corpus in %s/corpus/%s\n", t.name, argv[1], t.name);
            return 1;
        }
        std::printf("fuzz_%s: %d inputs replayed\n", t.name, inputs);
        total += inputs;
    }
    std::printf("%d inputs, no crash\n", total);
    return 0;
}
