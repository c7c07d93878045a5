// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commandregistry.h"

#include "app/cli/commands.h"

#include <algorithm>
#include <utility>

#ifndef WB_VERSION
#define WB_VERSION "0.1.0"
#endif

namespace wb::cli {

const std::vector<CommandSpec> &commandRegistry()
{
    // The order is the usage text's. A new command is one row here (and its paragraph in
    // packaging/bert-workbench-cli.1.in, else the man page shows the summary).
    static const std::vector<CommandSpec> registry{
        {"train", "fine-tune and evaluate (run_classifier --mode=train_and_eval)", cmdTrain},
        {"pretrain", "masked-LM pretraining from random weights or a checkpoint (run_pretraining.py)", cmdPretrain},
        {"distil", "train a smaller student on a finished run's outputs (soft labels) and unlabelled text", cmdDistil},
        {"predict", "write test_results.tsv (run_classifier --mode=predict)", cmdPredict},
        {"export", "write a stand-alone model folder, Hugging Face-loadable (run_classifier --mode=export_only)",
         cmdExport},
        {"classify", "classify texts with an export folder or a checkpoint (TSV or JSON lines)", cmdClassify},
        {"fill_mask", "fill in the [MASK]s of texts with a pretraining run's masked LM (top-k tokens)", cmdFillMask},
        {"sweep", "train a grid or random sample of hyperparameters, one run after another (resumable)", cmdSweep},
        {"lr_find", "learning-rate range test: writes lr_find.json, prints a suggested learning rate", cmdLrFind},
        {"validate", "run every pre-flight check, train nothing", cmdValidate},
        {"prepare", "raw text -> TFRecords + input_meta_data.json (create_finetuning_data.py)", cmdPrepare},
        {"baseline", "the bag-of-words baseline of prepared data (TF-IDF + logistic regression)", cmdBaseline},
        {"embeddings", "2-D PCA points of an evaluation's pooled [CLS] vectors; TensorBoard projector files",
         cmdEmbeddings},
        {"suspects", "probably mislabelled training examples of a run; writes corrections for prepare", cmdSuspects},
        {"label", "label your own texts in a terminal while a model learns from every k labels", cmdLabel},
        {"label_simulate", "label to learn with a simulated annotator: accuracy against labels, by queue order",
         cmdLabelSimulate},
        {"prepare_pretraining", "unlabelled text -> pretraining TFRecords (create_pretraining_data.py)",
         cmdPreparePretraining},
        {"example", "download and prepare the example project (SpamAssassin, BERT-Tiny)", cmdExample},
        {"models", "pretrained BERTs: list the catalogue, info, download into the Hugging Face cache", cmdModels,
         {"list", "info", "download"}},
    };
    return registry;
}

const CommandSpec *findCommand(std::string_view name)
{
    for (const CommandSpec &c : commandRegistry())
        if (name == c.name)
            return &c;
    return nullptr;
}

std::string usageText()
{
    std::string text = std::string("bert-workbench-cli ") + WB_VERSION +
                       " - fine-tune BERT text classifiers\n\n"
                       "Usage: bert-workbench-cli <command> [flags]\n\n"
                       "Commands:\n";
    // Summaries start in column 12; a longer name is followed by two spaces.
    constexpr std::size_t kNameWidth = 10;
    for (const CommandSpec &c : commandRegistry()) {
        const std::string name = c.name;
        text += "  " + name;
        text += name.size() < kNameWidth ? std::string(kNameWidth - name.size(), ' ') : std::string("  ");
        text += std::string(c.summary) + "\n";
    }
    text += "\n"
            "Run 'bert-workbench-cli <command> --help' for the flags of a command.\n"
            "Exit codes: 0 success, 1 runtime failure, 2 invalid input, 130 stopped by the user.\n";
    return text;
}

std::size_t editDistance(std::string_view a, std::string_view b)
{
    // Three rows of the dynamic programme: two back (for a swap), the previous, the current.
    std::vector<std::size_t> twoBack(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            std::size_t best = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                best = std::min(best, twoBack[j - 2] + 1);
            current[j] = best;
        }
        std::swap(twoBack, previous);
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::vector<std::string> similarCommands(std::string_view name)
{
    constexpr std::size_t kMaxEdits = 2;
    std::size_t nearest = kMaxEdits + 1;
    std::vector<std::string> found;
    for (const CommandSpec &c : commandRegistry()) {
        const std::size_t d = editDistance(name, c.name);
        if (d > kMaxEdits || d > nearest)
            continue;
        if (d < nearest) {
            nearest = d;
            found.clear();
        }
        found.emplace_back(c.name);
    }
    return found;
}

std::string unknownCommandText(std::string_view name)
{
    std::string text = "error: command: unknown command '" + std::string(name) + "'\n";
    const std::vector<std::string> similar = similarCommands(name);
    if (!similar.empty()) {
        text += "  hint: did you mean ";
        for (std::size_t i = 0; i < similar.size(); ++i)
            text += (i == 0 ? "" : i + 1 == similar.size() ? " or " : ", ") + ("'" + similar[i] + "'");
        text += "?\n";
    }
    text += "  hint: use one of ";
    bool first = true;
    for (const CommandSpec &c : commandRegistry()) {
        text += (first ? "" : ", ") + std::string(c.name);
        first = false;
    }
    return text + "\n";
}

} // namespace wb::cli
