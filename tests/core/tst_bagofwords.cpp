// SPDX-License-Identifier: Apache-2.0
// The bag-of-words baseline (issue 25, "A baseline to beat"): TF-IDF against hand-computed
// values, the terms of a record, liblinear on separable data, bad input, the report key and
// the real spam data through prepare.
#include "core/prepare/bagofwords.h"
#include "core/prepare/dataprep.h"
#include "core/data/examplecodec.h"
#include "core/prepare/preparereport.h"
#include "core/util/error.h"

#include "support/textfiles.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

using namespace wb;
using wb::test::writeText;
using wb::test::readText;

namespace {

BagOfWordsDocument doc(std::vector<uint32_t> terms, int64_t label = 0)
{
    return {std::move(terms), label};
}

void compareRow(const SparseRow &got, const SparseRow &want)
{
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].first, want[i].first);
        QVERIFY2(std::abs(got[i].second - want[i].second) < 1e-15,
                 qPrintable(QStringLiteral("column %1: %2 vs %3").arg(got[i].first).arg(got[i].second, 0, 'g', 17)
                                .arg(want[i].second, 0, 'g', 17)));
    }
}

} // namespace

class tst_BagOfWords : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString sub(const QString &name) const { return m_dir.path() + QLatin1Char('/') + name; }

private Q_SLOTS:
    /// Three documents {1 1 2}, {2 3}, {3}; by hand (n = 3):
    ///   idf(1) = ln(4/2) + 1 = 1.6931471805599454, idf(2) = idf(3) = ln(4/3) + 1 = 1.2876820724517808
    ///   d0: tf(1) = 1 + ln 2, tf(2) = 1 → (1.6931471805599454², 1.2876820724517808) / norm
    ///       = (0.9122016295971542, 0.4097416099937816)
    ///   d1: (idf, idf) / norm = (1/√2, 1/√2);  d2: (1)
    void tfidfOfAToyCorpusIsTheHandComputedMatrix()
    {
        TfidfVectorizer v;
        v.fit({doc({1, 1, 2}), doc({3, 2}), doc({3})});
        QCOMPARE(v.terms(), (std::vector<uint32_t>{1, 2, 3}));
        QCOMPARE(v.numColumns(), 3);
        QVERIFY(std::abs(v.idf()[0] - 1.6931471805599454) < 1e-15);
        QVERIFY(std::abs(v.idf()[1] - 1.2876820724517808) < 1e-15);
        QVERIFY(std::abs(v.idf()[2] - 1.2876820724517808) < 1e-15);
        compareRow(v.transform(doc({1, 1, 2})), {{0, 0.9122016295971542}, {1, 0.4097416099937816}});
        compareRow(v.transform(doc({2, 3})), {{1, 0.7071067811865475}, {2, 0.7071067811865475}});
        compareRow(v.transform(doc({3})), {{2, 1.0}});
        // A term the training documents lack is no column; a row of only such terms stays empty.
        compareRow(v.transform(doc({9, 1})), {{0, 1.0}});
        QVERIFY(v.transform(doc({9, 9})).empty());
        QVERIFY(v.transform(doc({})).empty());
    }

    /// [CLS] a a [SEP] b [SEP] [PAD]: the structural tokens and padding are not terms; a
    /// wordpiece of text_b is 2·id + 1.
    void termsAreTheWordpiecesTheModelSees()
    {
        ClassifierRecord r;
        r.input_ids = {101, 5, 6, 102, 7, 102, 0, 0};
        r.input_mask = {1, 1, 1, 1, 1, 1, 0, 0};
        r.segment_ids = {0, 0, 0, 0, 1, 1, 0, 0};
        QCOMPARE(bagOfWordsTerms(r), (std::vector<uint32_t>{10, 12, 15}));
        r.input_ids = {101, 5, 5, 102, 0, 0, 0, 0};
        r.input_mask = {1, 1, 1, 1, 0, 0, 0, 0};
        r.segment_ids = {0, 0, 0, 0, 0, 0, 0, 0};
        QCOMPARE(bagOfWordsTerms(r), (std::vector<uint32_t>{10, 10}));
    }

    /// Each label has a word of its own (plus shared noise): a linear model separates them.
    void separableDataScoresOne()
    {
        for (const int64_t labels : {int64_t(2), int64_t(3)}) {
            std::vector<BagOfWordsDocument> train, eval;
            for (int i = 0; i < 60; ++i) {
                const int64_t y = i % labels;
                const uint32_t own = uint32_t(100 + 2 * y), noise = uint32_t(200 + 2 * (i % 7));
                (i < 45 ? train : eval).push_back(doc({own, noise, noise, uint32_t(300)}, y));
            }
            const BagOfWordsBaseline b = fitBagOfWordsBaseline(train, eval, labels);
            QVERIFY2(b.fitted(), b.error.c_str());
            QCOMPARE(b.eval_accuracy, 1.0);
            QCOMPARE(b.eval_macro_f1, 1.0);
            QCOMPARE(b.train_examples, int64_t(45));
            QCOMPARE(b.eval_examples, int64_t(15));
            QCOMPARE(b.num_features, int64_t(labels + 7 + 1));
            // Deterministic: the same input gives the same numbers.
            const BagOfWordsBaseline again = fitBagOfWordsBaseline(train, eval, labels);
            QCOMPARE(again.eval_accuracy, b.eval_accuracy);
        }
    }

    /// The words point the wrong way in eval: accuracy 0, and macro-F1 0 (no class right).
    void accuracyAndMacroF1CountTheEvalSet()
    {
        std::vector<BagOfWordsDocument> train, eval;
        for (int i = 0; i < 20; ++i)
            train.push_back(doc({uint32_t(10 + 2 * (i % 2))}, i % 2));
        eval = {doc({10}, 1), doc({12}, 0), doc({10}, 0), doc({12}, 1)};
        const BagOfWordsBaseline b = fitBagOfWordsBaseline(train, eval, 2);
        QVERIFY2(b.fitted(), b.error.c_str());
        QCOMPARE(b.eval_accuracy, 0.5);
        // Each class: tp 1, fp 1, fn 1 → F1 = 2/(2+1+1) = 0.5.
        QCOMPARE(b.eval_macro_f1, 0.5);
    }

    void badInputGetsAMessageInsteadOfANumber()
    {
        const std::vector<BagOfWordsDocument> oneLabel = {doc({1}, 1), doc({2}, 1)};
        BagOfWordsBaseline b = fitBagOfWordsBaseline(oneLabel, {doc({1}, 0)}, 2);
        QVERIFY(!b.fitted());
        QCOMPARE(b.error, std::string("every training example has the same label (id 1); a classifier needs "
                                      "examples of at least 2 labels"));
        QVERIFY(std::isnan(b.eval_accuracy));
        QVERIFY(std::isnan(b.eval_macro_f1));
        b = fitBagOfWordsBaseline({doc({1}, 0), doc({2}, 1)}, {}, 2);
        QCOMPARE(b.error, std::string("there is no eval set to score it on (set eval_fraction above 0, or add a dev file)"));
        b = fitBagOfWordsBaseline({doc({1}, 0)}, {doc({1}, 0)}, 1);
        QCOMPARE(b.error, std::string("the task has 1 label(s); a classifier needs at least 2"));
        QVERIFY_THROWS_EXCEPTION(Error, fitBagOfWordsBaseline({doc({1}, 0), doc({2}, 5)}, {doc({1}, 0)}, 2));
    }

    void reportKeyRoundTrips()
    {
        PrepareReport r;
        r.labels = {"ham", "spam"};
        BagOfWordsBaseline b;
        b.eval_accuracy = 0.96875;
        b.eval_macro_f1 = 0.9375;
        b.train_examples = 179;
        b.eval_examples = 20;
        b.num_features = 4321;
        r.bag_of_words = b;
        const std::string text = prepareReportJson(r);
        QVERIFY2(text.find("\"bag_of_words_baseline\": {\n    \"eval_accuracy\": 0.96875,\n    \"eval_macro_f1\": 0.9375,\n"
                           "    \"train_examples\": 179,\n    \"eval_examples\": 20,\n    \"num_features\": 4321,\n"
                           "    \"features\": \"wordpieces\",")
                     != std::string::npos,
                 text.c_str());
        PrepareReport back = parsePrepareReport(text, "prepare_report.json");
        QVERIFY(back.bag_of_words);
        QCOMPARE(back.bag_of_words->eval_accuracy, 0.96875);
        QCOMPARE(back.bag_of_words->eval_macro_f1, 0.9375);
        QCOMPARE(back.bag_of_words->train_examples, int64_t(179));
        QCOMPARE(back.bag_of_words->eval_examples, int64_t(20));
        QCOMPARE(back.bag_of_words->num_features, int64_t(4321));
        QCOMPARE(back.bag_of_words->C, 1.0);
        QVERIFY(back.bag_of_words->fitted());

        b = BagOfWordsBaseline{};
        b.error = "every training example has the same label (id 0); a classifier needs examples of at least 2 labels";
        r.bag_of_words = b;
        const std::string failed = prepareReportJson(r);
        QVERIFY(failed.find("\"eval_accuracy\": null") != std::string::npos);
        back = parsePrepareReport(failed, "prepare_report.json");
        QCOMPARE(back.bag_of_words->error, b.error);
        QVERIFY(std::isnan(back.bag_of_words->eval_accuracy));

        r.bag_of_words.reset();
        QVERIFY(prepareReportJson(r).find("bag_of_words_baseline") == std::string::npos);
        QVERIFY(!parsePrepareReport(prepareReportJson(r), "prepare_report.json").bag_of_words);
        // A number where no error explains its absence, or outside [0, 1], names the key.
        try {
            parsePrepareReport(R"({"bag_of_words_baseline": {"eval_accuracy": 1.5, "eval_macro_f1": 0.5}})", "r.json");
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("r.json: bag_of_words_baseline: eval_accuracy"));
        }
        QVERIFY_THROWS_EXCEPTION(Error, parsePrepareReport(R"({"bag_of_words_baseline": {"eval_macro_f1": 0.5}})", "r.json"));
    }

    /// prepare on data of one label (of two): the report says why there is no baseline.
    void prepareWithOneLabelRecordsTheReason()
    {
        const std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world"};
        std::string v;
        for (const auto &t : vocab)
            v += t + "\n";
        writeText(sub(QStringLiteral("vocab.txt")), v);
        std::string rows = "sentence\tlabel\n";
        for (int i = 0; i < 10; ++i)
            rows += std::string(i % 2 ? "hello" : "world") + "\tpos\n";
        writeText(sub(QStringLiteral("one/train.tsv")), rows);
        PrepareOptions o;
        o.input_data_dir = sub(QStringLiteral("one/train.tsv")).toStdString();
        o.classification_task_name = "tsv";
        o.label_list = "neg,pos"; // a label set of two, of which the data has one
        o.vocab_file = sub(QStringLiteral("vocab.txt")).toStdString();
        o.output_dir = sub(QStringLiteral("one-out")).toStdString();
        const PrepareReport r = prepareData(o);
        QVERIFY(r.bag_of_words);
        QCOMPARE(r.bag_of_words->error, std::string("every training example has the same label (id 1); a classifier "
                                                    "needs examples of at least 2 labels"));
        const auto back = readPrepareReport(r.meta_path);
        QVERIFY(back && back->bag_of_words);
        QCOMPARE(back->bag_of_words->error, r.bag_of_words->error);
        // Asked not to: no key.
        o.bag_of_words_baseline = false;
        o.output_dir = sub(QStringLiteral("one-out-none")).toStdString();
        QVERIFY(!prepareData(o).bag_of_words);
    }

    /// The real spam mails (spamassassin-mini: 100 ham + 99 spam, 20 eval): the bag of words
    /// of the first 128 wordpieces (mostly headers) tells spam well. The same numbers come
    /// from the written records (what `bert-workbench-cli baseline` reads).
    void spamassassinMini()
    {
        const QString mini = QStringLiteral(WB_SHARED_DATA_DIR "/spamassassin-mini");
        const std::string vocab = WB_SHARED_DATA_DIR "/vocab/bert-base-uncased-vocab.txt";
        if (!QDir(mini).exists() || !QFile::exists(QString::fromStdString(vocab)))
            QSKIP("shared data not available");
        PrepareOptions o;
        o.input_data_dir = mini.toStdString();
        o.vocab_file = vocab;
        o.output_dir = sub(QStringLiteral("mini")).toStdString();
        // The random split these numbers were measured on (before the stratified default); 20
        // eval mails make the accuracy of one split a coarse number.
        o.stratify_split = false;
        const PrepareReport r = prepareData(o);
        QVERIFY(r.bag_of_words);
        QVERIFY2(r.bag_of_words->fitted(), r.bag_of_words->error.c_str());
        QCOMPARE(r.bag_of_words->train_examples, int64_t(179));
        QCOMPARE(r.bag_of_words->eval_examples, int64_t(20));
        qInfo("spamassassin-mini: bag of words eval_accuracy %.4f, eval_macro_f1 %.4f, %lld features, C %g (cv "
              "accuracy %.4f)",
              r.bag_of_words->eval_accuracy, r.bag_of_words->eval_macro_f1, (long long)r.bag_of_words->num_features,
              r.bag_of_words->C, r.bag_of_words->cv_accuracy);
        // C is chosen on the training split alone (5-fold cross-validation over the grid); the
        // 20 eval mails make the eval numbers coarse (one mail is 5 points).
        QCOMPARE(r.bag_of_words->C_chosen_by, std::string("5-fold cross-validation on the train split"));
        QVERIFY(std::find(std::begin(kBagOfWordsCGrid), std::end(kBagOfWordsCGrid), r.bag_of_words->C)
                != std::end(kBagOfWordsCGrid));
        QVERIFY2(r.bag_of_words->cv_accuracy >= 0.8 && r.bag_of_words->cv_accuracy <= 1.0,
                 qPrintable(QString::number(r.bag_of_words->cv_accuracy)));
        QCOMPARE(r.bag_of_words->constant_label, int64_t(-1));
        QVERIFY2(r.bag_of_words->eval_accuracy >= 0.8 && r.bag_of_words->eval_accuracy <= 1.0,
                 qPrintable(QString::number(r.bag_of_words->eval_accuracy)));
        QVERIFY(r.bag_of_words->eval_macro_f1 >= 0.8);
        QVERIFY(readText(r.report_path).find("\"bag_of_words_baseline\"") != std::string::npos);

        RecordSpec spec;
        spec.max_seq_length = 128;
        spec.num_labels = 2;
        const BagOfWordsBaseline fromRecords = fitBagOfWordsBaseline(readBagOfWordsDocuments(r.train_path, spec),
                                                                     readBagOfWordsDocuments(r.eval_path, spec), 2);
        QCOMPARE(fromRecords.eval_accuracy, r.bag_of_words->eval_accuracy);
        QCOMPARE(fromRecords.eval_macro_f1, r.bag_of_words->eval_macro_f1);
        QCOMPARE(fromRecords.num_features, r.bag_of_words->num_features);
    }
};

QTEST_APPLESS_MAIN(tst_BagOfWords)
#include "tst_bagofwords.moc"
