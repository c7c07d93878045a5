// SPDX-License-Identifier: Apache-2.0
// The loop of a sweep (plan, next, started, ended) over sweep.json, for every front-end.
#include "core/formats/sweepdriver.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

namespace wb {

SweepDriver::SweepDriver(std::string sweepDir, SweepFile file) : m_sweepDir(std::move(sweepDir)), m_file(std::move(file)) {}

SweepFile SweepDriver::withPlannedRuns(SweepFile planned)
{
    planned.runs.clear();
    for (const SweepRun &run : planSweep(planned.spec))
        planned.runs.push_back({run, SweepRunStatus::Pending, {}});
    return planned;
}

SweepDriver SweepDriver::planOrResume(const std::string &sweepDir, SweepFile planned, const std::string &otherPlanMessage,
                                      const std::string &otherPlanHint)
{
    if (std::optional<SweepFile> existing = readSweepFile(sweepDir)) {
        if (!samePlan(planned, *existing))
            throw Error(sweepFilePath(sweepDir), otherPlanMessage, otherPlanHint);
        return SweepDriver(sweepDir, std::move(*existing));
    }
    return SweepDriver(sweepDir, std::move(planned));
}

std::optional<SweepDriver> SweepDriver::resume(const std::string &sweepDir)
{
    std::optional<SweepFile> file = readSweepFile(sweepDir);
    if (!file)
        return std::nullopt;
    return SweepDriver(sweepDir, std::move(*file));
}

void SweepDriver::save() const { writeSweepFile(m_sweepDir, m_file); }

std::string SweepDriver::runDir(size_t i) const { return sweepRunDir(m_sweepDir, m_file.runs.at(i).run); }

std::vector<std::string> SweepDriver::trainArgs(size_t i) const
{
    std::vector<std::string> args = m_file.base_flags;
    for (std::string &f : sweepRunFlags(m_file.runs.at(i).run))
        args.push_back(std::move(f));
    args.push_back("--model_dir=" + runDir(i));
    return args;
}

bool SweepDriver::isDone(size_t i) const
{
    return m_file.runs.at(i).status == SweepRunStatus::Completed && sweepRunCompleted(runDir(i));
}

std::vector<size_t> SweepDriver::pendingRuns(std::vector<size_t> *skipped) const
{
    std::vector<size_t> pending;
    for (size_t i = 0; i < m_file.runs.size(); ++i) {
        if (!isDone(i))
            pending.push_back(i);
        else if (skipped)
            skipped->push_back(i);
    }
    return pending;
}

std::optional<size_t> SweepDriver::next()
{
    if (!m_queue)
        m_queue = pendingRuns();
    if (m_handedOut >= m_queue->size())
        return std::nullopt;
    return (*m_queue)[m_handedOut++];
}

std::optional<size_t> SweepDriver::indexOf(const std::string &name) const
{
    for (size_t i = 0; i < m_file.runs.size(); ++i)
        if (m_file.runs[i].run.name == name)
            return i;
    return std::nullopt;
}

void SweepDriver::started(size_t i)
{
    m_file.runs.at(i).status = SweepRunStatus::Running;
    save();
}

void SweepDriver::ended(size_t i, SweepRunStatus status)
{
    SweepRunRecord &r = m_file.runs.at(i);
    r.status = status;
    r.final_metrics = sweepRunFinalMetrics(runDir(i));
    if (status == SweepRunStatus::Failed)
        ++m_failed;
    save();
}

SweepRunStatus SweepDriver::statusOfExitCode(int exitCode)
{
    return exitCode == 0 ? SweepRunStatus::Completed : exitCode == 130 ? SweepRunStatus::Stopped : SweepRunStatus::Failed;
}

bool SweepDriver::lowerIsBetter(const std::string &metric) { return metric == "eval_loss" || metric == "train_loss"; }

double SweepDriver::metricOf(size_t i) const
{
    const auto &m = m_file.runs.at(i).final_metrics;
    const auto it = m.find(m_file.metric);
    return it == m.end() ? NAN : it->second;
}

std::vector<size_t> SweepDriver::resultsOrder() const
{
    std::vector<size_t> order(m_file.runs.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const bool lower = lowerIsBetter(m_file.metric);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const double x = metricOf(a), y = metricOf(b);
        if (!std::isfinite(y))
            return std::isfinite(x);
        if (!std::isfinite(x))
            return false;
        return lower ? x < y : x > y;
    });
    return order;
}

std::string sweepSeedGroup(const std::string &runDir)
{
    namespace fs = std::filesystem;
    fs::path run(runDir);
    if (!run.has_filename())
        run = run.parent_path(); // "…/run-001/"
    const fs::path sweepDir = run.parent_path();
    std::error_code ec;
    if (sweepDir.empty() || !fs::is_regular_file(sweepDir / "sweep.json", ec))
        return {};
    try {
        const std::optional<SweepFile> file = readSweepFile(sweepDir.string());
        if (!file)
            return {};
        for (const SweepRunRecord &r : file->runs) {
            if (r.run.name != run.filename().string())
                continue;
            bool seedSwept = false;
            SweepRun rest;
            for (const auto &[name, value] : r.run.values) {
                if (name == "seed")
                    seedSwept = true;
                else
                    rest.values.emplace_back(name, value);
            }
            if (!seedSwept)
                return {};
            std::string group = sweepDir.filename().string();
            for (const std::string &flag : sweepRunFlags(rest))
                group += " " + flag.substr(2);
            return group;
        }
    } catch (const std::exception &) {
        // not a sweep this version reads: no group (the sweep's own commands name the problem)
    }
    return {};
}

} // namespace wb
