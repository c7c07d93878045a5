// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commandplan.h"
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/interrupt.h"
#include "app/cli/locallaunch.h"
#include "app/cli/runflags.h"

#include "core/advice/coach.h"
#include "core/engine/preparedrun.h"
#include "core/engine/pretrainpreflight.h"
#include "core/engine/runplan.h"
#include "core/formats/runidentity.h"
#include "core/io/runevents.h"
#include "core/launch/trainer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace wb::cli {

namespace {

double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Prints progress: a redrawn bar on a terminal, plain lines otherwise.
class ConsoleObserver : public TrainingObserver
{
public:
    ConsoleObserver(std::ostream &out, std::ostream &err, bool tty) : m_out(out), m_err(err), m_tty(tty) {}

    void runStarted(const RunStarted &info) override { m_total = info.total_steps; }
    void stepCompleted(const StepMetrics &m) override
    {
        std::ostringstream s;
        s << "step " << m.step << "/" << m.total_steps << "  epoch " << std::fixed << std::setprecision(2) << m.epoch
          << "  loss " << std::setprecision(4) << m.loss << "  lr " << std::scientific << std::setprecision(2)
          << m.learning_rate << "  " << std::fixed << std::setprecision(1) << m.examples_per_second << " examples/s";
        if (m_tty) {
            const int width = 30;
            const int done = m.total_steps > 0 ? int(width * m.step / m.total_steps) : 0;
            m_out << "\r\033[K[" << std::string(size_t(done), '=') << std::string(size_t(width - done), ' ') << "] "
                  << s.str() << std::flush;
            m_barShown = true;
        } else if (seconds() - m_lastPlain >= kPlainProgressInterval || m.step == m.total_steps) {
            m_out << s.str() << "\n" << std::flush;
            m_lastPlain = seconds();
        }
    }
    void evaluationCompleted(const EvalMetrics &) override {}
    void checkpointSaved(const CheckpointSaved &) override {}
    void logMessage(const std::string &line) override
    {
        clearBar();
        // Warnings go to stderr: stdout holds what the command did (export's file list).
        (line.rfind("warning: ", 0) == 0 ? m_err : m_out) << line << "\n" << std::flush;
    }
    /// The coach's notes go to stderr as they arise or are withdrawn (stdout keeps the progress),
    /// and the current ones again in the end.
    void coachNote(const CoachNote &n) override
    {
        clearBar();
        m_out << std::flush;
        m_err << (n.severity == kWithdrawn ? "note withdrawn: " : "note: ") << n.text << "\n" << std::flush;
        applyCoachNote(m_notes, n); // the log lines are the history; the end lists the current set
    }
    void runFinished(const RunFinished &r) override
    {
        clearBar();
        if (r.status == RunStatus::Failed) {
            if (r.message.rfind("error: ", 0) == 0) { // already in diagnostics format
                m_err << r.message << "\n";
                if (!r.hint.empty())
                    m_err << "  hint: " << r.hint << "\n";
            } else {
                reportError(m_err, ErrorText{r.field.empty() ? "run" : r.field, r.message, r.hint});
            }
        } else {
            m_out << runStatusName(r.status) << ": " << r.message << "\n";
        }
        if (!m_notes.empty()) {
            m_err << "the coach's notes at the end of this run (" << m_notes.size() << "):\n";
            for (const CoachNote &n : m_notes)
                m_err << "  step " << n.step << ": " << n.text << "\n";
        }
        m_out << std::flush;
    }

private:
    void clearBar()
    {
        if (m_barShown) {
            m_out << "\r\033[K";
            m_barShown = false;
        }
    }
    std::ostream &m_out;
    std::ostream &m_err;
    bool m_tty;
    bool m_barShown = false;
    double m_lastPlain = 0;
    int64_t m_total = 0;
    std::vector<CoachNote> m_notes; ///< the coach's current set
};

int exitCodeFor(const RunFinished &r)
{
    switch (r.status) {
    case RunStatus::Completed: return kExitOk;
    case RunStatus::Cancelled: return kExitStopped;
    case RunStatus::Failed: return kExitRuntime;
    }
    return kExitRuntime;
}

/// run_pretraining.py's flags (runPretrainingOptions(), core/config/commandoptions.h), each row
/// bound to its member of `f`, in a --help group of their own; `pretrain` only.
void addRunPretrainingFlags(CLI::App &app, RunPretrainingFlags &f)
{
    const std::string group = "run_pretraining.py's flags (google-research/bert)";
    // run_pretraining.py has no strategy flag; applyRunPretrainingFlags picks one.
    app.get_option("--distribution_strategy")
        ->description("one_device, mirrored or multi_worker_mirrored (default: one_device, mirrored with --num_gpus > 1, "
                      "unless a cluster is described)");
    for (const RunPretrainingOption &option : runPretrainingOptions()) {
        CLI::Option *opt = std::visit([&](auto m) { return addRowFlag(app, option.row, f.*m); }, option.member);
        // A flag given twice takes the last value, as absl's flags (and the run options) do.
        opt->group(group)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
}

/// Takes run_pretraining.py's flags into `o` (notes on `err`), then the records' shapes
/// (resolveRecordsMetaData). Returns kExitOk, or kExitInvalid after reporting.
int applyRunPretrainingFlags(const RunPretrainingFlags &f, TrainingOptions &o, std::ostream &err, Diagnostics &diag)
{
    const auto alias = [&diag](const char *flag, const std::string &given, const char *canonical, std::string &value) {
        if (given.empty())
            return;
        if (!value.empty() && value != given)
            diag.error(flag, "--" + std::string(flag) + "=" + given + " and --" + canonical + "=" + value + " name the same thing",
                       "pass one of them");
        else
            value = given;
    };
    alias("input_file", f.input_file, "train_data_path", o.train_data_path);
    alias("output_dir", f.output_dir, "model_dir", o.model_dir);
    const bool trainOff = f.do_train.has_value() && !*f.do_train;
    const bool evalOff = f.do_eval.has_value() && !*f.do_eval;
    if (trainOff && (evalOff || !f.do_eval))
        diag.error("do_train", "at least one of --do_train or --do_eval must be true (run_pretraining.py's rule)",
                   "pass --do_train=true --do_eval=true");
    else if (trainOff)
        diag.error("do_train",
                   "--do_train=false with --do_eval (evaluating a checkpoint without training) is not supported by "
                   "pretrain, which always trains",
                   "leave --do_train on: pretrain evaluates every epoch and at the last step (eval_mlm_loss in "
                   "<output_dir>/metrics.jsonl)");
    if (f.use_tpu.value_or(false))
        diag.error("use_tpu", "TPUs are not supported: pretrain runs on the CPU or on CUDA GPUs",
                   "leave out --use_tpu (and --tpu_name, --num_tpu_cores); --num_gpus=1 trains on a GPU");
    if (diag.hasErrors())
        return reportInvalidConfiguration(err, diag);
    if (evalOff)
        err << "note: --do_eval=false: pretrain evaluates every epoch and at the last step all the same\n";
    if (f.max_eval_steps)
        err << "note: --max_eval_steps is ignored: each evaluation reads the whole evaluation set\n";
    if (!f.tpu_name.empty() || !f.tpu_zone.empty() || !f.gcp_project.empty() || !f.master.empty() || f.num_tpu_cores)
        err << "note: --tpu_name, --tpu_zone, --gcp_project, --master and --num_tpu_cores are ignored (TPU only)\n";
    if (f.iterations_per_loop && !o.steps_per_loop)
        o.steps_per_loop = f.iterations_per_loop;
    // run_pretraining.py has no strategy flag: one device (or this machine's GPUs), unless a cluster is described.
    if (o.distribution_strategy.empty() && o.num_local_workers == 0 && o.worker_hosts.empty()
        && !std::getenv("TF_CONFIG") && !std::getenv("WORLD_SIZE")) {
        o.distribution_strategy = o.num_gpus > 1 ? "mirrored" : "one_device";
        err << "note: --distribution_strategy not given: " << o.distribution_strategy << "\n";
    }
    // run_pretraining.py --do_eval evaluates on --input_file (a meta file counts its own eval set).
    if (o.eval_data_path.empty() && !o.train_data_path.empty() && o.input_meta_data_path.empty()) {
        o.eval_data_path = o.train_data_path;
        err << "note: no --eval_data_path: evaluating on the training records, as run_pretraining.py --do_eval does\n";
    }
    const std::vector<std::string> notes =
        resolveRecordsMetaData(o, RecordShapeFlags{f.max_seq_length, f.max_predictions_per_seq}, diag);
    if (diag.hasErrors())
        return reportInvalidConfiguration(err, diag);
    for (const std::string &note : notes)
        err << "note: " << note << "\n";
    return kExitOk;
}

/// train's, pretrain's, predict's and export's steps before they run or write (planRun,
/// core/engine/runplan.h: the recorded run, the pretrained model, the pre-flight check, the
/// web demo's runtime), in the CLI's words: notes on stderr, the download's progress
/// (fetchPretrainedForRun), a failed pre-flight check as reportInvalidConfiguration, any other
/// error as reportCurrentException on the step's field, and with `jsonl` a "finished" event for
/// a failed check or demo runtime (the event stream ends with one whatever happened). Ctrl+C
/// stops a download (and, for export, the runtime's fetch). Returns kExitOk with `prepared`
/// set, else the exit code after reporting.
int planCommand(const TrainingOptions &options, RunPurpose purpose, bool jsonl, std::ostream &out, std::ostream &err,
                PreparedRun &prepared)
{
    struct Reported // fetchPretrainedForRun said why
    {
    };
    const bool exporting = purpose == RunPurpose::Export;
    StopToken stop;
    int fetched = kExitOk;
    PlanFrontEnd frontEnd;
    frontEnd.note = [&err](const std::string &note) { err << "note: " << note << "\n"; };
    frontEnd.fetch = [&](const TrainingOptions &o, const StopToken &) {
        // Ctrl+C stops a download: the export's guard below, else fetchPretrainedForRun's own.
        fetched = fetchPretrainedForRun(o, jsonl, out, err, exporting ? &stop : nullptr);
        if (fetched != kExitOk)
            throw Reported{};
    };
    RunPlan p;
    {
        std::optional<InterruptGuard> guard;
        if (exporting)
            guard.emplace(stop, "\nstopping the download (Ctrl+C again to quit at once)...\n");
        p = planRun(options, purpose, frontEnd, stop);
    }
    if (p.ok()) {
        prepared = std::move(p.run);
        return kExitOk;
    }
    if (p.step == PlanStep::PretrainedModel && fetched != kExitOk)
        return fetched;
    if (jsonl && (p.step == PlanStep::PreFlight || p.step == PlanStep::DemoRuntime))
        out << runEventLine(p.failure()) << "\n" << std::flush;
    if (p.step == PlanStep::PreFlight) {
        reportInvalidConfiguration(err, p.run.validation.diagnostics);
        return kExitInvalid;
    }
    try {
        std::rethrow_exception(p.error);
    } catch (...) {
        return reportCurrentException(err, p.stepField(), kExitInvalid);
    }
}

int runMode(const std::string &command, RunPurpose purpose, const std::string &description,
            const std::vector<std::string> &args, std::ostream &out, std::ostream &err, const CommandHooks &hooks = {})
{
    CommandPlan plan;
    if (const int code = planCommandRun(command, purpose, description, args, out, err, plan, hooks); !plan.ready)
        return code;
    const PreparedRun &prepared = plan.run;
    const bool tty = &out == &std::cout && ::isatty(STDOUT_FILENO);
    ConsoleObserver console(out, err, tty);
    JsonLinesObserver jsonLines(out);
    TrainingObserver &observer = plan.jsonl ? static_cast<TrainingObserver &>(jsonLines) : console;
    // Ctrl+C: in this process, the run's token; local workers (issue 6: --num_local_workers,
    // or mirrored over N GPUs), the launcher.
    StopToken stop;
    std::optional<InterruptGuard> inProcess;
    std::optional<LocalWorkersInterrupt> workers;
    if (prepared.runsAsLocalWorkers())
        workers.emplace();
    else
        inProcess.emplace(stop, "\nstopping after the current step (Ctrl+C again to quit at once)...\n");
    const PlannedRunEnd ended = runPlanned(prepared, observer, stop, localWorkersFrontEnd(command, plan.jsonl, out, err));
    if (ended.cluster) // the chief printed its own end
        return localWorkersExitCode(*ended.cluster, plan.jsonl, out, err);
    observer.runFinished(ended.end); // the caller reports the end, once
    return exitCodeFor(ended.end);
}

} // namespace

int runTrainingCommand(const std::string &command, RunPurpose purpose, const std::string &description,
                       const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                       const CommandHooks &hooks)
{
    return runMode(command, purpose, description, args, out, err, hooks);
}

int planCommandRun(const std::string &command, RunPurpose purpose, const std::string &description,
                   const std::vector<std::string> &args, std::ostream &out, std::ostream &err, CommandPlan &plan,
                   const CommandHooks &hooks)
{
    plan = CommandPlan{};
    CLI::App app(description, "bert-workbench-cli " + command);
    TrainingOptions options;
    addRunFlags(app, options);
    RunPretrainingFlags pretraining;
    if (purpose == RunPurpose::Pretrain)
        addRunPretrainingFlags(app, pretraining);
    std::string progressFormat = "text";
    app.add_option("--progress_format", progressFormat,
                   "text (progress bar or lines) or jsonl (one JSON event per line on stdout, for tools)")
        ->check(CLI::IsMember({"text", "jsonl"}))
        ->capture_default_str();
    if (hooks.flags)
        hooks.flags(app);
    int code = kExitOk;
    std::vector<std::string> given = args;
    if (purpose == RunPurpose::Pretrain) // absl reads "--do_train True" too
        for (size_t k = 0; k + 1 < given.size(); ++k)
            if ((given[k] == "--do_train" || given[k] == "--do_eval" || given[k] == "--use_tpu")
                && (given[k + 1] == "true" || given[k + 1] == "false" || given[k + 1] == "True" || given[k + 1] == "False")) {
                given[k] += "=" + given[k + 1];
                given.erase(given.begin() + std::ptrdiff_t(k + 1));
            }
    if (!parseFlags(app, given, out, err, code))
        return code;
    const bool jsonl = progressFormat == "jsonl";
    if (purpose == RunPurpose::Pretrain) {
        Diagnostics diag;
        if (const int taken = applyRunPretrainingFlags(pretraining, options, err, diag); taken != kExitOk) {
            if (jsonl) // the event stream ends with "finished" whatever happened
                out << runEventLine(failedValidation(diag)) << "\n" << std::flush;
            return taken;
        }
    }
    if (hooks.before)
        if (const int taken = hooks.before(options, jsonl, out, err); taken != kExitOk)
            return taken;
    // The core's one path, as the window's Export Model… and Train.
    if (const int planned = planCommand(options, purpose, jsonl, out, err, plan.run); planned != kExitOk)
        return planned;
    plan.ready = true;
    plan.jsonl = jsonl;
    return kExitOk;
}

int cmdTrain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    return runMode("train", RunPurpose::Train,
                   "Fine-tune and evaluate (run_classifier --mode=train_and_eval). Resumes from the latest\n"
                   "checkpoint in --model_dir. Ctrl+C stops after the current step with a checkpoint (exit 130).",
                   args, out, err);
}

int cmdPretrain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    return runMode("pretrain", RunPurpose::Pretrain,
                   "Masked-language-model pretraining (google-research/bert run_pretraining.py) on the records of\n"
                   "'prepare_pretraining' (task_type bert_pretraining), with train's flags: from random weights,\n"
                   "or continued pretraining from --init_checkpoint / --pretrained_model. Evaluates the MLM loss,\n"
                   "MLM accuracy and perplexity every epoch; resumes from the latest checkpoint in --model_dir.\n"
                   "'export' of the model_dir writes a Hugging Face BertForMaskedLM folder. run_pretraining.py's\n"
                   "flags work too (--input_file, --output_dir, --num_train_steps, ...): records of\n"
                   "create_pretraining_data.py train without an input_meta_data.json (docs/pretraining.md).",
                   args, out, err);
}

int cmdPredict(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    return runMode("predict", RunPurpose::Predict,
                   "Write <model_dir>/test_results.tsv (class probabilities per line, tab-separated; regression:\n"
                   "one value) for --eval_data_path, from --predict_checkpoint_path or the latest checkpoint.",
                   args, out, err);
}

int cmdExport(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    return runMode("export", RunPurpose::Export,
                   "Export --model_dir's best checkpoint (when the run kept one, else its latest; or\n"
                   "--predict_checkpoint_path: a ckpt-N, 'best' or 'latest') to --model_export_path, a folder\n"
                   "that stands alone for 'classify' and that Hugging Face loads as\n"
                   "BertForSequenceClassification: model.safetensors (HF names), config.json (HF),\n"
                   "bert_config.json, input_meta_data.json, labels.txt, vocab.txt, tokenizer.json,\n"
                   "tokenizer_config.json and README.md (a model card). The run's run_config.json fills the\n"
                   "flags not given. Written whole or not at all; a non-empty folder is refused unless\n"
                   "--overwrite_output_dir. The folder works as --init_checkpoint.",
                   args, out, err);
}

} // namespace wb::cli
