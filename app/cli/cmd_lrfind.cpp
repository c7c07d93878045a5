// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/interrupt.h"
#include "app/cli/runflags.h"

#include "core/config/schedule.h"
#include "core/engine/lrfind.h"
#include "core/advice/runfacts.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"

#include <ostream>

namespace wb::cli {

namespace {

/// Prints the log lines of the range test.
class LogObserver : public TrainingObserver
{
public:
    explicit LogObserver(std::ostream &out) : m_out(out) {}
    void runStarted(const RunStarted &) override {}
    void stepCompleted(const StepMetrics &) override {}
    void evaluationCompleted(const EvalMetrics &) override {}
    void checkpointSaved(const CheckpointSaved &) override {}
    void logMessage(const std::string &line) override { m_out << line << "\n" << std::flush; }
    void runFinished(const RunFinished &) override {}

private:
    std::ostream &m_out;
};

} // namespace

int cmdLrFind(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Learning-rate range test: train a throwaway copy of the model for --lr_find_steps steps\n"
                 "with the learning rate rising exponentially from --lr_find_start to --lr_find_end, stop when\n"
                 "the smoothed loss exceeds 4x its minimum, and suggest a learning rate (fastai's valley; also\n"
                 "minimum/10), or say that the curve is flat or noisy. Takes train's flags; writes only\n"
                 "<model_dir>/lr_find.json.",
                 "bert-workbench-cli lr_find");
    TrainingOptions options;
    if (const auto done = parseCommandFlags(app, options, addRunFlags, args, out, err))
        return *done;
    try { // lr_find on a run: what it recorded fills the options not given (as classify, predict, export)
        for (const auto &note : fillFromRecordedRun(options, /*withTrainData=*/true))
            err << "note: " << note << "\n";
    } catch (...) {
        return reportCurrentException(err, "model_dir", kExitInvalid);
    }
    if (const int fetched = fetchPretrainedForRun(options, false, out, err); fetched != kExitOk)
        return fetched;
    const PreparedRun prepared = prepareRun(options, RunPurpose::LrFind); // checks the lr_find_* range too
    if (!prepared.ok())
        return reportInvalidConfiguration(err, prepared.validation.diagnostics);
    LogObserver log(out);
    StopToken stop;
    InterruptGuard guard(stop, "\nstopping the range test after this step (Ctrl+C again to quit at once)...\n");
    try {
        const LrFindResult r = findLearningRate(prepared, log, stop);
        // The window's dialog shows the same sentences (lrFindSummary), on the run's facts.
        out << lrFindSummary(r, runFactsFor(prepared.options, Schedule{})) << "\n";
        return kExitOk;
    } catch (...) {
        return reportCurrentException(err, "lr_find", kExitRuntime);
    }
}

} // namespace wb::cli
