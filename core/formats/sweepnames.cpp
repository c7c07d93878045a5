// SPDX-License-Identifier: Apache-2.0
// The names of sweeps and of their runs beside a project's other runs.
#include "core/formats/sweepnames.h"

#include "core/formats/sweep.h"

#include <exception>
#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// `dir` without a trailing '/' ("runs/run-1/" → "runs/run-1").
fs::path withoutTrailingSlash(const std::string &dir)
{
    fs::path p(dir);
    if (!p.has_filename() && p.has_parent_path())
        p = p.parent_path();
    return p;
}

} // namespace

std::string nextSweepDir(const std::string &modelDir)
{
    fs::path run = withoutTrailingSlash(modelDir);
    if (sweepMembership(run.string()))
        run = run.parent_path(); // a sweep's run: the new sweep goes beside that sweep
    const fs::path parent = run.parent_path();
    std::error_code ec;
    for (int n = 1;; ++n) {
        const fs::path candidate = parent / ("sweep-" + std::to_string(n));
        if (!fs::exists(candidate, ec))
            return candidate.string();
    }
}

std::optional<SweepMembership> sweepMembership(const std::string &runDir)
{
    const fs::path run = withoutTrailingSlash(runDir);
    const fs::path sweepDir = run.parent_path();
    std::error_code ec;
    if (run.filename().empty() || !fs::is_regular_file(sweepDir / "sweep.json", ec))
        return std::nullopt;
    try {
        const std::optional<SweepFile> file = readSweepFile(sweepDir.string());
        if (!file)
            return std::nullopt;
        for (const SweepRunRecord &r : file->runs) {
            if (r.run.name != run.filename().string())
                continue;
            SweepMembership m;
            m.sweepDir = sweepDir.string();
            m.run = r.run.name;
            for (const SweepParameter &p : file->spec.parameters)
                m.swept.push_back(p.name);
            m.metric = file->metric;
            return m;
        }
    } catch (const std::exception &) {
        // not a sweep this version reads: the run is named by its folder alone
    }
    return std::nullopt;
}

std::string runDisplayName(const std::string &runDir)
{
    const fs::path run = withoutTrailingSlash(runDir);
    if (const std::optional<SweepMembership> m = sweepMembership(run.string()))
        return fs::path(m->sweepDir).filename().string() + "/" + m->run;
    return run.filename().string();
}

} // namespace wb
