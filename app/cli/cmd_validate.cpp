// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/runflags.h"

#include "core/engine/preparedrun.h"

#include <ostream>

namespace wb::cli {

int cmdValidate(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Run every pre-flight check (configs, meta data, strategy, schedule, data files,\n"
                 "init checkpoint) and report all problems at once. Trains nothing.",
                 "bert-workbench-cli validate");
    TrainingOptions options;
    if (const auto done = parseCommandFlags(app, options, addRunFlags, args, out, err))
        return *done;

    if (const int fetched = fetchPretrainedForRun(options, false, out, err); fetched != kExitOk)
        return fetched;
    const ValidationResult result = prepareRun(options, RunPurpose::Validate).validation;
    err << result.diagnostics.format();
    if (!result.ok()) {
        err << result.diagnostics.errorCount() << " problem(s) found; nothing was run.\n";
        return kExitInvalid;
    }
    out << "configuration is valid: strategy " << result.strategy.name();
    if (result.schedule) {
        const Schedule &s = *result.schedule;
        out << ", steps_per_epoch " << s.steps_per_epoch << ", total_steps " << s.total_steps
            << ", warmup_steps " << s.warmup_steps << ", eval_steps " << s.eval_steps;
    }
    out << "\n";
    if (result.memory)
        out << result.memory->summary() << "\n";
    return kExitOk;
}

} // namespace wb::cli
