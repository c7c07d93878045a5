// SPDX-License-Identifier: Apache-2.0
// Test support: the one observer that records every run event, for every test that runs.
#pragma once

#include "core/events/trainingobserver.h"

#include <mutex>
#include <string>
#include <vector>

namespace wbtest {

/// Records the events of a run. Thread-safe (workers and launchers call it from their
/// threads); read the vectors after the run, or under `mutex`.
struct RecordingObserver : wb::TrainingObserver
{
    std::mutex mutex;
    std::vector<wb::RunStarted> started;
    std::vector<wb::StepMetrics> steps;
    std::vector<wb::EvalMetrics> evals;
    std::vector<wb::CheckpointSaved> checkpoints;
    std::vector<std::string> logs;
    std::vector<wb::RunFinished> finished;
    /// When set, requestStop() is called on it after this many checkpoints.
    wb::StopToken *stopAfterCheckpoints = nullptr;
    int stopAfterCount = 1;

    void runStarted(const wb::RunStarted &s) override { add(started, s); }
    void stepCompleted(const wb::StepMetrics &m) override { add(steps, m); }
    void evaluationCompleted(const wb::EvalMetrics &m) override { add(evals, m); }
    void checkpointSaved(const wb::CheckpointSaved &c) override
    {
        std::lock_guard<std::mutex> lock(mutex);
        checkpoints.push_back(c);
        if (stopAfterCheckpoints && int(checkpoints.size()) >= stopAfterCount)
            stopAfterCheckpoints->requestStop();
    }
    void logMessage(const std::string &line) override { add(logs, line); }
    void runFinished(const wb::RunFinished &r) override { add(finished, r); }

    /// True when a log line contains `text`.
    bool logged(const std::string &text)
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (const auto &l : logs)
            if (l.find(text) != std::string::npos)
                return true;
        return false;
    }

private:
    template <typename T> void add(std::vector<T> &v, const T &x)
    {
        std::lock_guard<std::mutex> lock(mutex);
        v.push_back(x);
    }
};

} // namespace wbtest
