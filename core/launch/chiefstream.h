// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free and Qt-free: the CLI's launcher and the window's local workers both use it.

#include "core/launch/locallauncher.h"
#include "core/io/eachevent.h"
#include "core/io/runevents.h"

#include <string>

namespace wb {

/// Follows a local cluster's chief through its `--progress_format=jsonl` stream and decides
/// how the cluster's run ended, for the CLI's launcher and the window's "Local workers".
///
/// feedOutput() decodes each chief stdout line: events go on to `forward` (when given;
/// "finished" is kept, not forwarded), other lines become forward->logMessage(). The last
/// step, loss and checkpoint are remembered, so that result() can say how far a run got
/// even when the chief was killed before reporting its end. Thread rules: one thread (the
/// launcher's sinks run on the thread that calls LocalLauncher::run).
class ChiefStream
{
public:
    explicit ChiefStream(TrainingObserver *forward = nullptr);

    /// One line of the chief's stdout. Returns what it was.
    RunEventKind feedOutput(const std::string &line);
    /// One line of any worker's stderr; the chief's own "error: …" lines are remembered.
    void feedError(const std::string &line);

    /// True once the chief reported "finished".
    bool finished() const { return m_finished; }

    /// How the cluster ended: the chief's own result, except when another worker failed
    /// (Failed, field "cluster", the launcher's message naming rank, pid and status) or the
    /// chief never reported (Cancelled after a user stop, else Failed). Carries the last
    /// step, loss and checkpoint seen.
    RunFinished result(const LocalLaunchResult &launched) const;

private:
    class Tracker : public EachEventObserver<Tracker>
    {
    public:
        explicit Tracker(TrainingObserver *forward) : m_forward(forward) {}
        /// Remembers what result() needs of `event`, then forwards it (when forwarding).
        template <typename Event>
        void onEvent(const Event &event)
        {
            track(event);
            if (m_forward)
                notify(*m_forward, event);
        }
        void onEvent(const RunFinished &) {} ///< kept by feedOutput, never forwarded

        TrainingObserver *m_forward;
        RunFinished progress; ///< last_step, final_train_loss, last_checkpoint so far

    private:
        void track(const RunStarted &info) { progress.last_step = info.start_step; }
        void track(const StepMetrics &m)
        {
            progress.last_step = m.step;
            progress.final_train_loss = m.loss;
        }
        void track(const CheckpointSaved &c) { progress.last_checkpoint = c.path; }
        template <typename Event>
        void track(const Event &) {} // evaluations, log lines and notes: nothing to remember
    };

    Tracker m_tracker;
    RunFinished m_end;
    bool m_finished = false;
    std::string m_chiefError;
};

} // namespace wb
