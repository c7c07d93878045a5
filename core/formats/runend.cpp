// SPDX-License-Identifier: Apache-2.0
#include "core/formats/runend.h"

#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/formats/trainingsummary.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace wb {

namespace fs = std::filesystem;

RunEnd runEndOf(const RunFinished &r, int64_t totalSteps)
{
    RunEnd e;
    e.last_step = r.last_step;
    e.total_steps = totalSteps;
    e.best_step = r.best_checkpoint.empty() ? -1 : r.best_step;
    switch (r.status) {
    case RunStatus::Completed:
        e.kind = r.stopped_early_at_step > 0 ? RunEnd::Kind::StoppedEarly : RunEnd::Kind::Completed;
        e.stopped_early_at_step = r.stopped_early_at_step;
        break;
    case RunStatus::Cancelled:
        e.kind = RunEnd::Kind::Stopped;
        break;
    case RunStatus::Failed:
        e.kind = RunEnd::Kind::Failed;
        break;
    }
    return e;
}

RunEnd recordedRunEnd(const std::string &modelDir, int64_t lastStep, int64_t totalSteps)
{
    RunEnd e;
    e.last_step = lastStep;
    e.total_steps = totalSteps;
    std::optional<TrainingSummary> summary;
    try {
        summary = readTrainingSummary(modelDir);
    } catch (...) {
        // an unreadable summary counts as none: the run's files say how far it got
    }
    if (summary && summary->stopped_early_at_step > 0) {
        e.kind = RunEnd::Kind::StoppedEarly;
        e.stopped_early_at_step = summary->stopped_early_at_step;
        e.last_step = std::max(lastStep, summary->stopped_early_at_step);
    } else if (summary || (totalSteps > 0 && lastStep >= totalSteps)) {
        e.kind = RunEnd::Kind::Completed;
        e.last_step = std::max(lastStep, summary ? summary->total_training_steps : int64_t(0));
    } else if (lastStep > 0) {
        e.kind = RunEnd::Kind::Stopped;
    }
    const RunCheckpointChoice kept = chooseRunCheckpoint(modelDir);
    if (kept.best) {
        e.best_step = kept.step;
        e.best_metric = kept.metric;
        e.best_value = kept.value;
    }
    return e;
}

std::string runEndPhrase(const RunEnd &e)
{
    const auto step = [](int64_t s) { return "step " + std::to_string(s); };
    std::string text;
    switch (e.kind) {
    case RunEnd::Kind::None:
        return {};
    case RunEnd::Kind::Completed:
        text = "completed at " + step(e.last_step);
        break;
    case RunEnd::Kind::StoppedEarly:
        text = "stopped early at " + step(e.stopped_early_at_step);
        break;
    case RunEnd::Kind::Stopped:
        text = "stopped at " + step(e.last_step);
        break;
    case RunEnd::Kind::Failed:
        return e.last_step > 0 ? "failed at " + step(e.last_step) : "failed before the first step";
    }
    if (e.best_step >= 0)
        text += ", best at " + step(e.best_step);
    return text;
}

std::string RunEndPhrase(const RunEnd &e)
{
    std::string s = runEndPhrase(e);
    if (!s.empty())
        s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

std::string bestEvalExamplesPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "best" / "eval_examples.jsonl").string();
}

std::string keptEvalExamplesPath(const std::string &modelDir)
{
    std::error_code ec;
    if (chooseRunCheckpoint(modelDir).best && fs::is_regular_file(bestEvalExamplesPath(modelDir), ec))
        return bestEvalExamplesPath(modelDir);
    return evalExamplesPath(modelDir);
}

} // namespace wb
