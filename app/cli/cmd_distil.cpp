// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli distil` (issue 48; docs/distillation.md): a finished run teaches a student.
// The teacher's outputs are computed once into <model_dir>/distillation/
// (core/distil/distillationdata.h), then the student is a `train` run of those records, with all
// of train's flags, progress, Ctrl+C and resume.
#include "app/cli/commandplan.h"
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/interrupt.h"

#include "core/config/optionwords.h"
#include "core/distil/distillationdata.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <ostream>

namespace wb::cli {

int cmdDistil(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    DistillationRequest request;
    CommandHooks hooks;
    hooks.flags = [&request](CLI::App &app) {
        app.add_option("--teacher_dir", request.teacher_dir,
                       "the teacher: the model_dir of a finished fine-tuning run (required)");
        app.add_option("--teacher_checkpoint", request.teacher_checkpoint,
                       "which of the teacher's checkpoints: best, latest or a ckpt-N (default: its best model when "
                       "it kept one, else its latest)");
        app.add_option("--transfer_data", request.transfer_data,
                       "unlabelled texts the teacher labels for the student, besides its own training texts: a text "
                       "file (one per line), a .csv/.tsv/.jsonl/.json column or a folder (one file a text)");
        app.add_option("--transfer_column", request.transfer_column,
                       "the column of --transfer_data's table (default: recognised as prepare does)");
        app.add_flag("--email_body_only", request.email_body_only,
                     "each transfer text is an e-mail: keep its body, as prepare --email_body_only");
        app.add_option("--max_transfer_texts", request.max_transfer_texts, "use at most this many (0: all)")
            ->check(CLI::NonNegativeNumber);
    };
    hooks.before = [&request](TrainingOptions &o, bool, std::ostream &, std::ostream &e) -> int {
        try {
            for (const auto &[flag, value] : {std::pair<const char *, const std::string *>{"train_data_path", &o.train_data_path},
                                              {"eval_data_path", &o.eval_data_path},
                                              {"input_meta_data_path", &o.input_meta_data_path}})
                if (!value->empty())
                    throw Error(flag, "distil makes the student's data from the teacher's run",
                                "leave " + optionName(flag) + " out; the teacher's records are taken from "
                                    + optionName("teacher_dir"));
            if (request.teacher_dir.empty())
                throw Error("teacher_dir", "no teacher was named",
                            "pass " + optionName("teacher_dir") + " with the model_dir of a finished fine-tuning run");
            if (o.model_dir.empty())
                throw Error("model_dir", "the student needs a model_dir of its own", "pass " + optionName("model_dir"));
            const std::string dir = (std::filesystem::path(o.model_dir) / "distillation").string();
            request.output_dir = dir;
            request.seed = uint64_t(o.seed);
            request.batch_size = o.eval_batch_size;
            // A wrong flag is reported before the teacher's pass, not after it.
            if (const Diagnostics early = checkStudentOptions(o, request); early.hasErrors())
                return reportInvalidConfiguration(e, early);
            StopToken stop;
            DistillationData data;
            {
                InterruptGuard guard(stop, "\nstopping the teacher (Ctrl+C again to quit at once)...\n");
                data = prepareDistillationData(request, stop, [&e](const std::string &line) { e << line << "\n"; });
            }
            for (const std::string &line : distillationSummary(data, dir))
                e << line << "\n";
            o = studentOptions(o, data);
            return kExitOk;
        } catch (...) {
            return reportCommandException(e, "distil");
        }
    };
    return runTrainingCommand(
        "distil", RunPurpose::Train,
        "Distil a finished run (--teacher_dir) into a student: the teacher labels its own training texts and\n"
        "--transfer_data once (cached in <model_dir>/distillation/), then the student trains as 'train' does\n"
        "on the teacher's soft labels (--distillation_temperature, --distillation_alpha) and is evaluated on\n"
        "the teacher's eval set, with its agreement with the teacher. Choose the student with train's flags\n"
        "(--pretrained_model, --bert_config_file, --init_checkpoint). Resumes like train (docs/distillation.md).",
        args, out, err, hooks);
}

} // namespace wb::cli
