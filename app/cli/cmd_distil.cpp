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
#include "core/util/digest.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <ostream>

namespace wb::cli {

namespace {

std::string withCommas(int64_t n)
{
    std::string s = std::to_string(n);
    for (int at = int(s.size()) - 3; at > (n < 0 ? 1 : 0); at -= 3)
        s.insert(size_t(at), ",");
    return s;
}

/// The lines that say what the student learns from.
void describe(const DistillationData &d, const std::string &dir, std::ostream &err)
{
    for (const std::string &note : d.notes)
        err << "note: " << note << "\n";
    char accuracy[64] = "";
    if (d.teacher_agreement_train > 0)
        std::snprintf(accuracy, sizeof accuracy, " (the teacher gets %.1f %% of them right)",
                      100.0 * d.teacher_agreement_train);
    err << "teacher: " << d.teacher_weights << (d.teacher_weights_label.empty() ? "" : " (" + d.teacher_weights_label + ")")
        << "\n"
        << "student's data: " << withCommas(d.labelled) << " labelled texts" << accuracy << ", "
        << withCommas(d.transfer) << " transfer texts labelled by the teacher";
    if (d.transfer_in_eval + d.transfer_duplicates > 0)
        err << " (left out: " << withCommas(d.transfer_in_eval) << " in the eval set, "
            << withCommas(d.transfer_duplicates) << " repeated)";
    err << "; evaluated on the teacher's " << withCommas(d.eval) << " eval texts\n";
    if (d.cached)
        err << "teacher's outputs: reused from " << dir << " (teacher.json matches the teacher and the texts)\n";
    else
        err << "teacher's outputs: computed in " << d.teacher_seconds << " s, kept in " << dir << "\n";
}

} // namespace

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
            StopToken stop;
            DistillationData data;
            {
                InterruptGuard guard(stop, "\nstopping the teacher (Ctrl+C again to quit at once)...\n");
                data = prepareDistillationData(request, stop, [&e](const std::string &line) { e << line << "\n"; });
            }
            describe(data, dir, e);
            o.train_data_path = data.train_data_path;
            o.eval_data_path = data.eval_data_path;
            o.input_meta_data_path = data.input_meta_data_path;
            if (o.vocab_file.empty())
                o.vocab_file = data.teacher_vocab_file;
            else if (!data.teacher_vocab_file.empty() && sha256FileHex(o.vocab_file) != sha256FileHex(data.teacher_vocab_file))
                throw Error("vocab_file", "the student's vocabulary '" + o.vocab_file + "' is not the teacher's ('"
                                              + data.teacher_vocab_file + "'): the records hold the teacher's wordpiece ids",
                            "leave " + optionName("vocab_file") + " out, or distil into a student of the same vocabulary");
            if (o.do_lower_case.empty())
                o.do_lower_case = data.teacher_do_lower_case;
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
