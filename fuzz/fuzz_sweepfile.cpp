// SPDX-License-Identifier: Apache-2.0
// Fuzzes sweep.json reading (`wb sweep` resumes a sweep folder from it; the window's Sweep
// dialog lists its runs): readSweepFile on the input as <folder>/sweep.json. It returns the
// file or throws wb::Error naming sweep.json (any other exception is a crash). An accepted
// file is written back with the writer and read again: the same plan (samePlan) and the same
// text. Its spec is planned (planSweep throws wb::Error or returns at most 10000 runs), each
// parameter's text parses back to itself, and each run's flags and values apply.
#include "core/formats/sweep.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace {

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::ScratchDir dir;
    dir.write("in/sweep.json", data, size);
    const std::string in = dir.path() + "/in";
    const std::string out = dir.path() + "/out";
    std::optional<wb::SweepFile> file;
    try {
        file = wb::readSweepFile(in);
    } catch (const wb::Error &e) {
        if (e.field().find("sweep.json") == std::string::npos)
            std::abort(); // every error names the file
        return 0;
    }
    if (!file)
        std::abort(); // the file exists
    wb::writeSweepFile(out, *file);
    const std::optional<wb::SweepFile> again = wb::readSweepFile(out);
    if (!again || !wb::samePlan(*file, *again))
        std::abort();
    const std::string text = readText(wb::sweepFilePath(out));
    wb::writeSweepFile(out, *again);
    if (readText(wb::sweepFilePath(out)) != text)
        std::abort();
    for (const wb::SweepParameter &p : file->spec.parameters) {
        try {
            const wb::SweepParameter back = wb::parseSweepParameter(wb::sweepParameterText(p));
            if (wb::sweepParameterText(back) != wb::sweepParameterText(p))
                std::abort();
        } catch (const wb::Error &) {
            // a parameter the file holds but --param would refuse (checked when planning)
        }
    }
    try {
        const std::vector<wb::SweepRun> runs = wb::planSweep(file->spec);
        if (runs.empty() || runs.size() > 10000)
            std::abort();
        wb::TrainingOptions o;
        for (const wb::SweepRun &r : runs) {
            wb::applySweepRun(o, r);
            if (wb::sweepRunFlags(r).size() != r.values.size())
                std::abort();
        }
    } catch (const wb::Error &) {
    }
    for (const wb::SweepRunRecord &r : file->runs)
        (void)wb::sweepRunFlags(r.run);
    return 0;
}
