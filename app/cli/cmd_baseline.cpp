// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli baseline`: the bag-of-words baseline of prepared data (TF-IDF of the
// wordpieces in the records + liblinear logistic regression; core/prepare/bagofwords.h), printed
// and recorded in prepare_report.json — what prepare does after writing the records.
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"
#include "core/prepare/bagofwords.h"
#include "core/prepare/preparereport.h"
#include "core/util/error.h"

#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace wb::cli {

namespace {

std::string fixed(double v, int digits)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

} // namespace

std::string bagOfWordsLine(const BagOfWordsBaseline &b)
{
    if (!b.fitted())
        return "bag-of-words baseline: none (" + b.error + ")";
    std::ostringstream s;
    if (b.multi_label) {
        s << "bag-of-words baseline (TF-IDF of the wordpieces + one-vs-rest logistic regression, C=" << b.C
          << (b.C_chosen_by.empty() || b.C_chosen_by == "given" ? std::string() : " by " + b.C_chosen_by)
          << ", threshold " << b.threshold << "): eval micro-F1 = " << fixed(b.eval_micro_f1, 4) << ", macro-F1 = "
          << fixed(b.eval_macro_f1, 4) << ", samples-F1 = " << fixed(b.eval_samples_f1, 4) << ", Hamming loss = "
          << fixed(b.eval_hamming_loss, 4) << ", subset accuracy = " << fixed(b.eval_accuracy, 4) << " (train "
          << b.train_examples << ", eval " << b.eval_examples << " texts, " << b.num_features << " features)";
        if (!b.constant_labels.empty())
            s << "; " << b.constant_labels.size() << " label(s) constant in train, predicted as such";
        return s.str();
    }
    s << "bag-of-words baseline (TF-IDF of the wordpieces + logistic regression, C=" << b.C
      << (b.C_chosen_by.empty() || b.C_chosen_by == "given" ? std::string() : " by " + b.C_chosen_by)
      << "): eval_accuracy = " << fixed(b.eval_accuracy, 4) << ", eval_macro_f1 = " << fixed(b.eval_macro_f1, 4)
      << " (train " << b.train_examples << ", eval " << b.eval_examples << " examples, " << b.num_features
      << " features)";
    if (b.constant_label >= 0)
        s << "; it predicts label id " << b.constant_label
          << " for every eval example: a constant classifier, no better than the majority label";
    return s.str();
}

int cmdBaseline(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("The bag-of-words baseline of prepared data: TF-IDF of the wordpieces the model sees\n"
                 "(sublinear tf, idf of the train split, L2-normalised rows) and liblinear's\n"
                 "L2-regularised logistic regression (one-vs-rest), fitted on the train records and\n"
                 "scored on the eval records. Prints eval_accuracy and eval_macro_f1 and records them in\n"
                 "prepare_report.json (bag_of_words_baseline) beside the meta data. prepare does the\n"
                 "same after writing the records.",
                 "bert-workbench-cli baseline");
    std::string dataDir;
    PreparedDataPaths paths;
    BagOfWordsOptions options;
    bool writeReport = true;
    app.add_option("--data_dir", dataDir,
                   "the folder prepare wrote (train.tf_record, eval.tf_record, input_meta_data.json)");
    app.add_option("--train_data_path", paths.train_data_path, "training TFRecord (default <data_dir>/train.tf_record)");
    app.add_option("--eval_data_path", paths.eval_data_path, "evaluation TFRecord (default <data_dir>/eval.tf_record)");
    addRowFlag(app, trainingFlagRow("input_meta_data_path"), paths.input_meta_data_path,
               "<data_dir>/input_meta_data.json");
    app.add_option("--C", options.C,
                   "inverse regularisation strength of the logistic regression; 0: chosen by 5-fold "
                   "cross-validation on the train split from 0.01, 0.1, 1, 10, 100 and 1000")
        ->capture_default_str();
    app.add_option("--write_report", writeReport, "record the result in prepare_report.json beside the meta data")
        ->capture_default_str();
    int code = kExitOk;
    if (!parseFlags(app, args, out, err, code))
        return code;
    if (!(options.C >= 0))
        return reportError(err, ErrorText{"C", "C is " + std::to_string(options.C)
                                                   + "; it must be above 0, or 0 for a C chosen by cross-validation",
                                          "the default is 0"},
                           kExitInvalid);
    auto orDefault = [&dataDir](std::string &path, const char *name) {
        if (path.empty() && !dataDir.empty())
            path = (std::filesystem::path(dataDir) / name).string();
    };
    orDefault(paths.train_data_path, "train.tf_record");
    orDefault(paths.eval_data_path, "eval.tf_record");
    orDefault(paths.input_meta_data_path, "input_meta_data.json");
    BagOfWordsBaseline b;
    try {
        b = bagOfWordsBaselineOfPreparedData(paths, options);
    } catch (...) {
        return reportCommandException(err, "baseline");
    }
    out << bagOfWordsLine(b) << "\n";
    if (b.fitted())
        out << "  " << fixed(b.seconds, 2) << " s\n";
    if (writeReport) {
        try {
            const std::string report = recordBagOfWordsBaseline(paths.input_meta_data_path, b);
            if (report.empty())
                err << "note: no prepare_report.json beside " << paths.input_meta_data_path << "; nothing recorded\n";
            else
                out << "  recorded in " << report << "\n";
        } catch (...) {
            return reportCurrentException(err, "prepare_report.json", kExitRuntime);
        }
    }
    if (!b.fitted())
        return reportError(err, ErrorText{"bag_of_words_baseline", b.error, "the baseline needs a classification task "
                                                                            "with at least 2 labels in train and an eval set"},
                           kExitInvalid);
    return kExitOk;
}

} // namespace wb::cli
