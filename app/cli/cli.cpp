// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"

#include <ostream>

#ifndef WB_VERSION
#define WB_VERSION "0.1.0"
#endif

namespace wb::cli {

namespace {

void printUsage(std::ostream &out)
{
    out << "bert-workbench-cli " << WB_VERSION << " - fine-tune BERT text classifiers\n\n"
           "Usage: bert-workbench-cli <command> [flags]\n\n"
           "Commands:\n"
           "  train     fine-tune and evaluate (run_classifier --mode=train_and_eval)\n"
           "  pretrain  masked-LM pretraining from random weights or a checkpoint (run_pretraining.py)\n"
           "  predict   write test_results.tsv (run_classifier --mode=predict)\n"
           "  export    write a stand-alone model folder, Hugging Face-loadable (run_classifier --mode=export_only)\n"
           "  classify  classify texts with an export folder or a checkpoint (TSV or JSON lines)\n"
           "  fill_mask fill in the [MASK]s of texts with a pretraining run's masked LM (top-k tokens)\n"
           "  sweep     train a grid or random sample of hyperparameters, one run after another (resumable)\n"
           "  lr_find   learning-rate range test: writes lr_find.json, prints a suggested learning rate\n"
           "  validate  run every pre-flight check, train nothing\n"
           "  prepare   raw text -> TFRecords + input_meta_data.json (create_finetuning_data.py)\n"
           "  baseline  the bag-of-words baseline of prepared data (TF-IDF + logistic regression)\n"
           "  embeddings  2-D PCA points of an evaluation's pooled [CLS] vectors; TensorBoard projector files\n"
           "  prepare_pretraining  unlabelled text -> pretraining TFRecords (create_pretraining_data.py)\n"
           "  example   download and prepare the example project (SpamAssassin, BERT-Tiny)\n"
           "  models    pretrained BERTs: list the catalogue, info, download into the Hugging Face cache\n\n"
           "Run 'bert-workbench-cli <command> --help' for the flags of a command.\n"
           "Exit codes: 0 success, 1 runtime failure, 2 invalid input, 130 stopped by the user.\n";
}

} // namespace

namespace {

int dispatch(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    if (args.empty()) {
        printUsage(err);
        return kExitInvalid;
    }
    const std::string &command = args.front();
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        printUsage(out);
        return kExitOk;
    }
    if (command == "--version" || command == "version") {
        out << "bert-workbench-cli " << WB_VERSION << "\n";
        return kExitOk;
    }
    if (command == "validate")
        return cmdValidate(rest, out, err);
    if (command == "train")
        return cmdTrain(rest, out, err);
    if (command == "pretrain")
        return cmdPretrain(rest, out, err);
    if (command == "predict")
        return cmdPredict(rest, out, err);
    if (command == "export")
        return cmdExport(rest, out, err);
    if (command == "classify")
        return cmdClassify(rest, out, err);
    if (command == "fill_mask")
        return cmdFillMask(rest, out, err);
    if (command == "lr_find")
        return cmdLrFind(rest, out, err);
    if (command == "sweep")
        return cmdSweep(rest, out, err);
    if (command == "prepare")
        return cmdPrepare(rest, out, err);
    if (command == "baseline")
        return cmdBaseline(rest, out, err);
    if (command == "embeddings")
        return cmdEmbeddings(rest, out, err);
    if (command == "prepare_pretraining")
        return cmdPreparePretraining(rest, out, err);
    if (command == "example")
        return cmdExample(rest, out, err);
    if (command == "models")
        return cmdModels(rest, out, err);
    err << "error: command: unknown command '" << command << "'\n"
        << "  hint: use one of train, pretrain, predict, export, classify, fill_mask, lr_find, sweep, validate, prepare, baseline, embeddings, prepare_pretraining, example, models\n";
    return kExitInvalid;
}

} // namespace

int runCli(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    // The one place nothing escapes: whatever a command did not handle (std, filesystem,
    // c10 or unknown exceptions) becomes an "error:" line and exit code 1.
    try {
        return dispatch(args, out, err);
    } catch (...) {
        return reportCurrentException(err, args.empty() ? std::string("bert-workbench-cli") : args.front());
    }
}

} // namespace wb::cli
