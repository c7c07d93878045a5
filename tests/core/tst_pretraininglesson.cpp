// SPDX-License-Identifier: Apache-2.0
// The pretraining lesson's data (issue 24, "The lesson, in the example"): the seeded,
// stratified 200-row subset, the corpus of one document per mail, the prepared data sets.
#include "core/data/examplecodec.h"
#include "core/corpus/pretraininglesson.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"
#include "support/lessoncorpus.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> readRecords(const std::string &path)
{
    std::vector<std::string> out;
    TFRecordReader r(path);
    std::string p;
    while (r.read(p))
        out.push_back(p);
    return out;
}

std::vector<int64_t> labelsOf(int64_t zeros, int64_t ones)
{
    std::vector<int64_t> labels;
    for (int64_t i = 0; i < zeros + ones; ++i)
        labels.push_back(i % (zeros + ones) < zeros ? 0 : 1);
    return labels;
}

/// The lesson's options for the corpus writeLessonCorpus wrote under `root`: sequences of 32
/// tokens, 40 labelled training rows, written to `root`/lesson.
PretrainingLessonOptions lessonOptions(const std::string &root)
{
    PretrainingLessonOptions o;
    o.corpus_dir = root + "/mails";
    o.vocab_file = root + "/vocab.txt";
    o.bert_config_file = root + "/bert_config.json";
    o.output_dir = root + "/lesson";
    o.max_seq_length = 32;
    o.num_labelled = 40;
    return o;
}

/// The corpus: the 90 training mails, one document each; the 10 eval mails are left out
/// (pretraining never reads the text the fine-tunes are scored on). Both data sets read the
/// mails' bodies.
void checkCorpusLeavesOutTheEvalMails(const PretrainingLessonData &d)
{
    QCOMPARE(d.corpus_documents, int64_t(90));
    QCOMPARE(d.corpus_left_out, int64_t(10));
    const nlohmann::json rep = nlohmann::json::parse(std::ifstream(d.pretraining_dir + "/prepare_report.json"));
    QCOMPARE(rep.at("documents").get<int64_t>(), int64_t(90)); // one document per mail
    // The labelled data reads the bodies, as the corpus does (and the example).
    QCOMPARE(nlohmann::json::parse(std::ifstream(d.labelled_dir + "/prepare_report.json")).at("email_body_only"),
             nlohmann::json(true));
    QCOMPARE(rep.at("masking").get<std::string>(), std::string("dynamic"));
}

/// The subset: 40 of the 90 labelled training rows, as they are, each label by its share; its
/// meta data and the eval split beside it.
void checkSubsetKeepsEachLabelsShare(const PretrainingLessonData &d)
{
    const std::vector<std::string> all = readRecords(d.labelled_dir + "/train.tf_record");
    const std::vector<std::string> sub = readRecords(d.subset_dir + "/train.tf_record");
    QCOMPARE(all.size(), size_t(90));
    QCOMPARE(sub.size(), size_t(40));
    QCOMPARE(d.subset_rows.size(), size_t(40));
    for (size_t k = 0; k < sub.size(); ++k)
        QVERIFY(sub[k] == all[size_t(d.subset_rows[k])]);
    RecordSpec spec;
    spec.max_seq_length = 32;
    std::vector<int64_t> inTrain(2, 0), inSubset(2, 0);
    ClassifierRecord r;
    for (const std::string &p : all) {
        decodeClassifierRecord(p, spec, r);
        ++inTrain[size_t(r.label_id)];
    }
    for (const std::string &p : sub) {
        decodeClassifierRecord(p, spec, r);
        ++inSubset[size_t(r.label_id)];
    }
    QCOMPARE(d.subset_per_label, inSubset);
    QCOMPARE(inSubset[0] + inSubset[1], int64_t(40));
    QVERIFY(inSubset[1] > 0 && inSubset[0] > 0);
    QVERIFY2(std::abs(double(inSubset[1]) - 40.0 * double(inTrain[1]) / 90.0) < 1.0,
             (std::to_string(inSubset[1]) + " of " + std::to_string(inTrain[1])).c_str());
    const nlohmann::json meta = nlohmann::json::parse(std::ifstream(d.subset_dir + "/input_meta_data.json"));
    QCOMPARE(meta.at("train_data_size").get<int64_t>(), int64_t(40));
    QCOMPARE(meta.at("eval_data_size").get<int64_t>(), int64_t(10));
    QCOMPARE(d.eval_data_path, d.labelled_dir + "/eval.tf_record");
}

/// The pretraining, then per seed (3: 42, 43, 44) the two starts that differ only in
/// init_checkpoint: the same data, rate, batch, epochs and seed.
void checkRunsDifferOnlyInTheirStart(const PretrainingLessonOptions &o, const PretrainingLessonData &d)
{
    const std::vector<PretrainingLessonRun> runs = pretrainingLessonRuns(o, d);
    QCOMPARE(runs.size(), size_t(7));
    QVERIFY(runs[0].pretrain);
    for (size_t k = 1; k < runs.size(); ++k) {
        const PretrainingLessonRun &r = runs[k];
        const bool fromPretraining = k % 2 == 1;
        const int64_t seed = 42 + int64_t((k - 1) / 2);
        QVERIFY(!r.pretrain);
        QCOMPARE(r.name, std::string(fromPretraining ? "finetune-pretrained" : "finetune-random") + "-seed-"
                             + std::to_string(seed));
        QCOMPARE(r.options.seed, seed);
        QCOMPARE(r.options.init_checkpoint, fromPretraining ? runs[0].options.model_dir : std::string());
        QCOMPARE(r.options.model_dir, o.output_dir + "/runs/" + r.name);
        QCOMPARE(r.options.train_data_path, d.subset_dir + "/train.tf_record");
        QCOMPARE(r.options.eval_data_path, d.eval_data_path);
        QVERIFY(!r.options.learning_rate); // each start's own default (finetune_learning_rate 0)
        TrainingOptions other = runs[fromPretraining ? k + 1 : k - 1].options;
        other.init_checkpoint = r.options.init_checkpoint;
        other.model_dir = r.options.model_dir;
        QCOMPARE(toCommandLineFlags(other), toCommandLineFlags(r.options));
    }
    QCOMPARE(runs[0].options.model_dir, o.output_dir + "/runs/pretrain");
    // 6400 pretraining sequences: 4 evaluation intervals of 1600 (200 steps of 32).
    QCOMPARE(runs[0].options.num_eval_per_epoch, int64_t(4));
    QCOMPARE(runs[0].options.train_data_size.value_or(0), int64_t(1600));
    QCOMPARE(runs[0].options.train_batch_size, int64_t(32));
}

} // namespace

class tst_PretrainingLesson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void subsetIsExactSeededAndStratified()
    {
        // The example's training split: 3735 ham, 1706 spam (5441 rows).
        const std::vector<int64_t> labels = labelsOf(3735, 1706);
        const std::vector<int64_t> a = selectLabelledSubset(labels, 200, 42);
        QCOMPARE(a.size(), size_t(200));
        QCOMPARE(std::set<int64_t>(a.begin(), a.end()).size(), size_t(200)); // no row twice
        int64_t spam = 0;
        for (int64_t i : a) {
            QVERIFY(i >= 0 && i < int64_t(labels.size()));
            spam += labels[size_t(i)];
        }
        // round(200 × 1706/5441) = round(62.71) = 63 spam, 137 ham (largest remainder).
        QCOMPARE(spam, int64_t(63));
        QCOMPARE(selectLabelledSubset(labels, 200, 42), a);   // same seed, same rows, same order
        QVERIFY(selectLabelledSubset(labels, 200, 43) != a);  // another seed, other rows
    }

    void rareLabelGetsARowAndBadCountsAreErrors()
    {
        const std::vector<int64_t> labels = labelsOf(999, 1);
        const std::vector<int64_t> s = selectLabelledSubset(labels, 10, 1);
        QCOMPARE(s.size(), size_t(10));
        QVERIFY(std::find(s.begin(), s.end(), int64_t(999)) != s.end()); // the one row of label 1
        try {
            selectLabelledSubset(labels, 1001, 1);
            QFAIL("expected an error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("num_labelled"));
            QVERIFY2(std::string(e.what()).find("the training set has 1000") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, selectLabelledSubset(labels, 1, 1)); // two labels present
    }

    void corpusHasOneDocumentPerMail()
    {
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        fs::create_directories(root / "c" / "ham");
        fs::create_directories(root / "c" / "spam");
        std::ofstream(root / "c" / "ham" / "b.txt") << "Subject: hi\n\nline one\n\nline two\n";
        std::ofstream(root / "c" / "ham" / "a.txt", std::ios::binary) << std::string("caf\xE9 \0x", 7); // Latin-1, NUL
        std::ofstream(root / "c" / "ham" / ".hidden") << "not a mail";
        fs::create_directories(root / "c" / ".git");
        std::ofstream(root / "c" / ".git" / "x.txt") << "not a label folder";
        std::ofstream(root / "c" / "spam" / "s.txt") << "buy now";
        const std::string out = (root / "corpus.jsonl").string();
        QCOMPARE(writeMailCorpusJsonl((root / "c").string(), out), int64_t(3));
        std::ifstream in(out);
        std::vector<std::string> texts;
        std::string line;
        while (std::getline(in, line))
            texts.push_back(nlohmann::json::parse(line).at("text").get<std::string>());
        QCOMPARE(texts.size(), size_t(3));
        QCOMPARE(texts[0], std::string("caf\xC3\xA9 x")); // windows-1252 é as UTF-8, the NUL dropped
        QCOMPARE(texts[1], std::string("line one\n\nline two")); // the body only, as the classifier's data
        QCOMPARE(texts[2], std::string("buy now"));
        QVERIFY(!fs::exists(out + ".tmp"));
        // The mails split.jsonl names (label/name) are left out, and counted.
        int64_t leftOut = 0;
        QCOMPARE(writeMailCorpusJsonl((root / "c").string(), out, {"ham/b.txt", "spam/none.txt"}, &leftOut), int64_t(2));
        QCOMPARE(leftOut, int64_t(1));
        std::ifstream again(out);
        texts.clear();
        while (std::getline(again, line))
            texts.push_back(nlohmann::json::parse(line).at("text").get<std::string>());
        QCOMPARE(texts, (std::vector<std::string>{"caf\xC3\xA9 x", "buy now"}));
    }

    /// The lesson's comparison reads the difference against the seeds' spread, and says the
    /// runs differ only in their start.
    void verdictWeighsTheSeeds()
    {
        QCOMPARE(pretrainingLessonVerdict({0.90, 0.88, 0.86}, {0.70, 0.69, 0.71}, 2e-4, 2e-4),
                 std::string("from the pretraining: eval_accuracy 0.880 (mean of 3 seeds, 0.860 to 0.900); from random "
                             "weights: eval_accuracy 0.700 (mean of 3 seeds, 0.690 to 0.710); difference +18.0 points, "
                             "pretraining helped: more than the seed alone moves (up to 0.040). Both started at "
                             "learning_rate 2e-4 with the same labels, eval set, epochs and seeds: only the start "
                             "differs."));
        const std::string within = pretrainingLessonVerdict({0.87, 0.86, 0.90}, {0.855, 0.898, 0.87}, 2e-4, 5e-4);
        QVERIFY2(within.find("difference +0.2 points, the difference is within what the seed alone moves (up to 0.043)")
                     != std::string::npos,
                 within.c_str());
        QVERIFY2(within.find("the learning rates differ, each its start's usual one (2e-4 after the pretraining, 5e-4 "
                             "from random weights): the start and its rate differ.")
                     != std::string::npos,
                 within.c_str());
        QVERIFY2(pretrainingLessonVerdict({0.9}, {0.7}, 2e-4, 2e-4).find("one seed cannot tell") != std::string::npos,
                 "one seed");
        QCOMPARE(pretrainingLessonVerdict({}, {0.7}, 2e-4, 5e-4), std::string());
        // Random weights that answered the majority label at every seed did not learn at that
        // rate: the win is the rate's, and the sentence says so.
        const std::string constant =
            pretrainingLessonVerdict({0.831, 0.814, 0.843}, {0.688, 0.688, 0.688}, 2e-4, 2e-4, 0.688);
        QVERIFY2(constant.find("pretraining helped") != std::string::npos
                     && constant.find(" From random weights, every seed answered the majority label (0.688 of the eval "
                                      "set is that label): it did not learn at learning_rate 2e-4, so this comparison "
                                      "says more about the rate than about pretraining")
                            != std::string::npos,
                 constant.c_str());
        QVERIFY(pretrainingLessonVerdict({0.9, 0.91}, {0.88, 0.9}, 5e-4, 5e-4, 0.688).find("majority")
                == std::string::npos);
        // Both starts answering the majority label is the verdict, said once, not "within the
        // seed's spread (up to 0.000)" and not one note per start.
        const std::string neither =
            pretrainingLessonVerdict({0.441, 0.441, 0.441}, {0.441, 0.441, 0.441}, 2e-4, 2e-4, 0.441);
        QVERIFY2(neither.find("difference +0.0 points, neither start learned: every seed of both answered the majority "
                              "label (0.441 of the eval set is that label), so this comparison says nothing about "
                              "pretraining")
                     != std::string::npos,
                 neither.c_str());
        QVERIFY2(neither.find("within what the seed") == std::string::npos
                     && neither.find("From the pretraining, every seed") == std::string::npos,
                 neither.c_str());
    }

    void preparesBothDataSets()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        wbtest::writeLessonCorpus(root, 70, 30);
        const PretrainingLessonOptions o = lessonOptions(root);
        const PretrainingLessonData d = preparePretrainingLesson(o);
        checkCorpusLeavesOutTheEvalMails(d);
        if (QTest::currentTestFailed())
            return;
        checkSubsetKeepsEachLabelsShare(d);
        if (QTest::currentTestFailed())
            return;
        // The same options again give the same subset.
        QCOMPARE(preparePretrainingLesson(o).subset_rows, d.subset_rows);

        checkRunsDifferOnlyInTheirStart(o, d);
    }
};

QTEST_GUILESS_MAIN(tst_PretrainingLesson)
#include "tst_pretraininglesson.moc"
