// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/stoptoken.h"

#include <iosfwd>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}

namespace wb {
struct BagOfWordsBaseline;
struct FlagRow;
}

namespace wb::cli {

/// Exit codes of bert-workbench-cli (docs/troubleshooting.md).
enum ExitCode : int {
    kExitOk = 0,        ///< success
    kExitRuntime = 1,   ///< runtime failure
    kExitInvalid = 2,   ///< invalid configuration or input
    kExitStopped = 130, ///< stopped by the user (checkpoint written)
};

/// When standard error is not a terminal, progress lines (train's steps, models' downloads) are
/// printed at most this often, in seconds.
inline constexpr double kPlainProgressInterval = 5.0;

/// Each command parses its own flags from `args` (without the program and command names),
/// writes results to `out` and diagnostics to `err`, and returns an exit code. In-process
/// testable; never calls exit().
int cmdValidate(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdTrain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Masked-LM pretraining (issue 24, docs/pretraining.md): train's flags on pretraining data.
int cmdPretrain(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdPredict(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdExport(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdPrepare(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// The bag-of-words baseline of prepared data (TF-IDF + logistic regression; issue 25): prints
/// it and records it in prepare_report.json.
int cmdBaseline(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// The embedding view's CLI (issue 25): 2-D PCA points of a saved evaluation's pooled [CLS]
/// vectors, and TensorBoard projector files.
int cmdEmbeddings(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// A run's suspects (issue 46, docs/data-map.md): probably mislabelled training examples from its
/// training_dynamics.jsonl, printed, and written as corrections.jsonl lines for prepare.
int cmdSuspects(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Label to learn in a terminal (issue 47, docs/label-to-learn.md): a session's texts one by one,
/// each label saved at once, a model retrained every k labels. cmdLabelWithInput reads the
/// answers from `in` (cmdLabel: standard input).
int cmdLabel(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdLabelWithInput(const std::vector<std::string> &args, std::istream &in, std::ostream &out, std::ostream &err);
/// Label to learn with a simulated annotator (issue 47, docs/label-to-learn.md): the labelling loop
/// with gold labels hidden in a file, for several seeds; prints and writes the curve.
int cmdLabelSimulate(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
int cmdDistil(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Unlabelled text → pretraining TFRecords (google-research/bert create_pretraining_data.py; docs/pretraining.md).
int cmdPreparePretraining(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Classifies texts with an export folder or a checkpoint (issue 14's Try it, on the command line).
int cmdClassify(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Fills in the [MASK]s of texts with a pretraining run's masked LM (issue 24's fill-in-the-blank
/// Try it, on the command line): a TSV or JSON lines of the top-k tokens and probabilities.
int cmdFillMask(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// The learning-rate range test: writes <model_dir>/lr_find.json and prints the suggestion.
int cmdLrFind(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// A sweep (issue 27): the runs of a grid or random sample of hyperparameters, one after another,
/// each a model_dir under --sweep_dir; sweep.json holds the plan and status, and the same
/// command resumes (docs/file-formats.md, "Sweep folder").
int cmdSweep(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);
/// Obtains and prepares the example project (SpamAssassin + BERT-Tiny) and prints its paths.
int cmdExample(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// Pretrained models (issue 22): `models list|info|download` — the catalogue, one model's facts
/// and cache state, and a download into the Hugging Face cache (docs/pretrained-models.md).
int cmdModels(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// Before a run's pre-flight check: makes options.pretrained_model available (the cache, a
/// folder, or a download with its progress on `err`, or "download" JSON events on `out` when
/// `jsonl`). Returns kExitOk (also when no pretrained model is set), else reports the error on
/// `err` and returns its exit code (2 for a model that cannot be had, 1 network or disk, 130
/// stopped). `stop`: the caller's token, under the caller's InterruptGuard; none: Ctrl+C
/// stops the download (a guard of its own).
int fetchPretrainedForRun(const TrainingOptions &options, bool jsonl, std::ostream &out, std::ostream &err,
                          const StopToken *stop = nullptr);

/// The tokenizer settings of a prepare command: bound to --vocab_file, --max_seq_length and
/// --do_lower_case, and filled from --pretrained_model by chooseTokenizer().
struct PreparedText
{
    std::string &vocab_file;
    int64_t &max_seq_length;
    bool &do_lower_case;
};

/// The tokenizer flags prepare and prepare_pretraining share: --pretrained_model, and which of
/// the settings it fills were given on the command line.
struct TokenizerFlags
{
    std::string pretrainedModel;
    CLI::Option *vocab = nullptr, *lowerCase = nullptr, *maxSeq = nullptr;
};

/// Binds --vocab_file, --pretrained_model, --do_lower_case and --max_seq_length (in this order,
/// the rows of `table`) to `text` and `flags`.
void addTokenizerFlags(CLI::App &app, const std::vector<FlagRow> &table, TokenizerFlags &flags, PreparedText text);

/// The vocabulary and casing of prepare and prepare_pretraining. With --pretrained_model:
/// downloads it when missing (fetchPretrainedForRun), then fills the vocab, the casing and (to
/// fit its position embeddings) max_seq_length that were not given; a given max_seq_length
/// above the model's max_position_embeddings is an error, a given casing other than the
/// model's a warning. Without one, --vocab_file must be given. Returns kExitOk, else the exit
/// code after printing the error to `err` (cmd_prepare.cpp).
int chooseTokenizer(const TokenizerFlags &flags, PreparedText text, std::ostream &out, std::ostream &err);

/// The progress of prepare and prepare_pretraining on `err`: a bar on a terminal (stderr),
/// else one line per stage ("reading...", "shuffling..."). The callable keeps state; one per run.
std::function<void(double fraction, const std::string &stage)> prepareProgressPrinter(std::ostream &err);
/// One line about a bag-of-words baseline, as prepare and baseline print it
/// ("bag-of-words baseline (…): eval_accuracy = 0.9700, eval_macro_f1 = …", or "… none (why)").
std::string bagOfWordsLine(const BagOfWordsBaseline &baseline);

/// Dispatches `bert-workbench-cli <command> [flags]`; handles --help and --version. Messages name
/// options in the command line's words (core/config/optionwords.h) while it runs, whichever
/// wording the process had before (restored afterwards).
int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace wb::cli
