// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli example --lesson=pretraining` end to end on a tiny corpus (issue 24):
// the data is prepared, the three runs run in order, the table names both fine-tunes.
#include "clirun.h"
#include "support/lessoncorpus.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

class tst_CliLesson : public QObject
{
    Q_OBJECT

    static int evalLines(const std::string &metrics)
    {
        std::ifstream in(metrics);
        std::string line;
        int n = 0;
        while (std::getline(in, line))
            n += nlohmann::json::parse(line).value("kind", "") == "eval" ? 1 : 0;
        return n;
    }

private Q_SLOTS:
    void tinyLessonRunsEndToEnd()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        wbtest::writeLessonCorpus(root, 60, 40);
        const std::string lesson = root + "/lesson";
        std::string out, err;
        const int code = wbtest::runCli({"example", "--lesson=pretraining", "--output_dir=" + lesson,
                                         "--corpus_dir=" + root + "/mails", "--vocab_file=" + root + "/vocab.txt",
                                         "--bert_config_file=" + root + "/bert_config.json", "--max_seq_length=32",
                                         "--num_labelled=40", "--pretrain_sequences=0", "--pretrain_batch_size=8", "--finetune_epochs=2",
                                         "--finetune_batch_size=8", "--num_seeds=2"},
                                        out, err);
        QVERIFY2(code == 0, err.c_str());
        // The 10 eval mails are not in the pretraining corpus.
        QVERIFY2(out.find("corpus=" + lesson + "/corpus.jsonl (90 documents)\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("labelled_subset=" + lesson + "/labels-40 (40 rows: label 0 24, label 1 16)\n")
                     != std::string::npos,
                 out.c_str());
        // The commands, in order, before the runs.
        const size_t pre = out.find("# pretrain\nbert-workbench-cli pretrain ");
        const size_t ftp = out.find("# finetune-pretrained-seed-42\nbert-workbench-cli train ");
        const size_t ftr = out.find("# finetune-random-seed-42\nbert-workbench-cli train ");
        const size_t ftp2 = out.find("# finetune-pretrained-seed-43\nbert-workbench-cli train ");
        const size_t ftr2 = out.find("# finetune-random-seed-43\nbert-workbench-cli train ");
        QVERIFY2(pre != std::string::npos && ftp > pre && ftr > ftp && ftp2 > ftr && ftr2 > ftp2
                     && ftr2 != std::string::npos,
                 out.c_str());
        QVERIFY(out.find("--init_checkpoint=" + lesson + "/runs/pretrain ", ftp) < ftr);
        QVERIFY(out.find("--seed=43", ftp2) < ftr2);
        // Each run is a normal model_dir with its evaluations: pretrain 4 per epoch, 2 epochs of the fine-tunes.
        QCOMPARE(evalLines(lesson + "/runs/pretrain/metrics.jsonl"), 4);
        for (const char *name : {"finetune-pretrained-seed-42", "finetune-random-seed-42", "finetune-pretrained-seed-43",
                                 "finetune-random-seed-43"})
            QCOMPARE(evalLines(lesson + "/runs/" + name + "/metrics.jsonl"), 2);
        // The fine-tune from pretrained weights loads every encoder tensor of the pretraining run.
        QVERIFY2(out.find("Init checkpoint " + lesson + "/runs/pretrain: loaded 23 tensors, 0 missing, 0 unexpected; "
                          "skipped 5 pretraining-head tensors")
                     != std::string::npos,
                 out.c_str());
        QVERIFY2(out.find("run\teval_accuracy\teval_loss\npretrain\t") != std::string::npos, out.c_str());
        QVERIFY(out.find("\nfinetune-pretrained-seed-42\t") != std::string::npos);
        QVERIFY(out.find("\nfinetune-random-seed-43\t") != std::string::npos);
        // The last line compares the two starts over their seeds, and says only the start differs.
        QVERIFY2(out.find("\nfrom the pretraining: eval_accuracy ") != std::string::npos
                     && out.find("(mean of 2 seeds, ") != std::string::npos
                     && out.find("Both started at learning_rate 5e-4 with the same labels, eval set, epochs and "
                                 "seeds: only the start differs.")
                            != std::string::npos,
                 out.c_str());
    }

    void printOnlyRunsNothingAndOwnCorpusNeedsItsFiles()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        wbtest::writeLessonCorpus(root, 30, 20);
        std::string out, err;
        QCOMPARE(wbtest::runCli({"example", "--lesson=pretraining", "--output_dir=" + root + "/l", "--print_only",
                                 "--corpus_dir=" + root + "/mails", "--vocab_file=" + root + "/vocab.txt",
                                 "--bert_config_file=" + root + "/bert_config.json", "--max_seq_length=32",
                                 "--num_labelled=20"},
                                out, err),
                 0);
        QVERIFY(out.find("# finetune-random-seed-44\nbert-workbench-cli train ") != std::string::npos);
        QVERIFY(!fs::exists(root + "/l/runs"));
        QCOMPARE(wbtest::runCli({"example", "--lesson=pretraining", "--output_dir=" + root + "/l",
                                 "--corpus_dir=" + root + "/mails"},
                                out, err),
                 1);
        QVERIFY2(err.find("error: vocab_file: a lesson on your own --corpus_dir needs --vocab_file and --bert_config_file")
                     != std::string::npos,
                 err.c_str());
        QCOMPARE(wbtest::runCli({"example", "--lesson=pretraining"}, out, err), 1);
        QVERIFY2(err.find("error: output_dir: --lesson=pretraining needs a folder") != std::string::npos, err.c_str());
    }
};

QTEST_GUILESS_MAIN(tst_CliLesson)
#include "tst_clilesson.moc"
