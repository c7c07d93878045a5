// SPDX-License-Identifier: Apache-2.0
// Multi-label data (issue 45, docs/multi-label.md "Data"): every reading gives the exact
// multi-hot label_ids, the meta data and labels.txt, the iterative split, the report and the errors.
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/prepare/bagofwords.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/prepare/dataprep.h"
#include "core/prepare/preparesplit.h"
#include "core/util/error.h"

#include "support/textfiles.h"

#include <QtTest>

#include <map>

using namespace wb;
using wb::test::readText;
using wb::test::writeText;

namespace {

// One word per text, so that a record's first wordpiece names its text.
const std::vector<std::string> kVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "alpha", "bravo", "charlie", "delta",
                                         "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"};

using LabelSets = std::map<std::string, std::vector<int64_t>>; // text's word → label_ids

/// The records of `path` as text word → multi-hot label_ids (decoded with the meta data's spec).
LabelSets readLabelSets(const std::string &path, int64_t numLabels, int64_t maxSeq = 16)
{
    RecordSpec spec;
    spec.max_seq_length = maxSeq;
    spec.num_labels = numLabels;
    spec.multi_label = true;
    LabelSets out;
    TFRecordReader r(path);
    std::string p;
    while (r.read(p)) {
        ClassifierRecord rec;
        decodeClassifierRecord(p, spec, rec);
        out[kVocab[size_t(rec.input_ids[1])]] = rec.label_set;
    }
    return out;
}

/// The message and the hint of prepareData(o)'s error ("" when it succeeds).
std::pair<std::string, std::string> prepareError(const PrepareOptions &o)
{
    try {
        prepareData(o);
    } catch (const Error &e) {
        return {e.what(), e.hint()};
    }
    return {};
}

} // namespace

class tst_DataPrepMultiLabel : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_vocab;
    std::string sub(const std::string &name) const { return m_dir.path().toStdString() + "/" + name; }

    PrepareOptions options(const std::string &input, const std::string &task, const std::string &out)
    {
        PrepareOptions o;
        o.input_data_dir = sub(input);
        o.classification_task_name = task;
        o.vocab_file = m_vocab;
        o.output_dir = sub(out);
        o.max_seq_length = 16;
        o.eval_fraction = 0;
        o.bag_of_words_baseline = false;
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        std::string v;
        for (const auto &t : kVocab)
            v += t + "\n";
        m_vocab = sub("vocab.txt");
        writeText(QString::fromStdString(m_vocab), v);
    }

    /// A delimited label column: labels sorted by name, a text with no label is all zeros; the
    /// meta data say multi_label_classification, labels.txt lists the names in id order.
    void delimitedColumn()
    {
        writeText(QString::fromStdString(sub("tickets.csv")), "text,labels\n"
                                                              "alpha,billing|urgent\n"
                                                              "bravo,billing\n"
                                                              "charlie, refund | urgent \n"
                                                              "delta,\n"
                                                              "echo,urgent\n");
        const PrepareReport rep = prepareData(options("tickets.csv", "csv", "delimited"));
        QCOMPARE(rep.labels, (std::vector<std::string>{"billing", "refund", "urgent"}));
        QCOMPARE(rep.problem_type, std::string("multi_label_classification"));
        const LabelSets sets = readLabelSets(rep.train_path, 3);
        QCOMPARE(sets, (LabelSets{{"alpha", {1, 0, 1}}, {"bravo", {1, 0, 0}}, {"charlie", {0, 1, 1}},
                                  {"delta", {0, 0, 0}}, {"echo", {0, 0, 1}}}));
        Diagnostics diag;
        const std::optional<InputMetaData> meta = InputMetaData::load(rep.meta_path, diag);
        QVERIFY(meta && meta->isMultiLabel());
        QCOMPARE(meta->num_labels, int64_t(3));
        QCOMPARE(meta->label_type, std::string("int"));
        QCOMPARE(readLabelNames(rep.meta_path, 3).names, (std::vector<std::string>{"billing", "refund", "urgent"}));
        QCOMPARE(readText(rep.labels_path), std::string("billing\nrefund\nurgent\n"));
        QVERIFY(rep.multi_label.has_value());
        QCOMPARE(rep.multi_label->reading,
                 std::string("the label column 'labels' split at '|' (2 rows hold several labels)"));
        QCOMPARE(rep.multi_label->no_label_texts, int64_t(1));
        QCOMPARE(rep.multi_label->label_cardinality, 1.2);
        QCOMPARE(rep.multi_label->distinct_label_sets, int64_t(5));
        QCOMPARE(rep.multi_label->cooccurrence.size(), size_t(2));
        QCOMPARE(rep.multi_label->cooccurrence[0].first, std::string("billing"));
        QCOMPARE(rep.multi_label->cooccurrence[0].second, std::string("urgent"));
        QCOMPARE(rep.multi_label->cooccurrence[0].texts, int64_t(1));
        QCOMPARE(rep.train_label_counts, (std::map<std::string, int64_t>{{"billing", 2}, {"refund", 1}, {"urgent", 3}}));
        // The report reads back as written.
        const PrepareReport back = parsePrepareReport(prepareReportJson(rep), "r.json");
        QCOMPARE(back.problem_type, rep.problem_type);
        QCOMPARE(back.multi_label->reading, rep.multi_label->reading);
        QCOMPARE(back.multi_label->cooccurrence[1].texts, int64_t(1));
        QCOMPARE(back.multi_label->no_label_texts, int64_t(1));
    }

    /// JSON lists in JSON Lines; the split.jsonl records each row's label names.
    void jsonLists()
    {
        writeText(QString::fromStdString(sub("lists.jsonl")),
                  "{\"text\": \"alpha\", \"labels\": [\"crude\", \"ship\"]}\n"
                  "{\"text\": \"bravo\", \"labels\": [\"ship\"]}\n"
                  "{\"text\": \"charlie\", \"labels\": []}\n"
                  "{\"text\": \"delta\", \"labels\": [\"grain\", \"crude\"]}\n");
        const PrepareReport rep = prepareData(options("lists.jsonl", "jsonl", "lists"));
        QCOMPARE(rep.labels, (std::vector<std::string>{"crude", "grain", "ship"}));
        QCOMPARE(readLabelSets(rep.train_path, 3), (LabelSets{{"alpha", {1, 0, 1}}, {"bravo", {0, 0, 1}},
                                                             {"charlie", {0, 0, 0}}, {"delta", {1, 1, 0}}}));
        QCOMPARE(rep.multi_label->reading, std::string("JSON lists in 'labels' (e.g. " + sub("lists.jsonl") + ":1)"));
        QVERIFY(readText(rep.split_path).find("\"line\":4,\"split\":\"train\",\"index\":")
                != std::string::npos);
        QVERIFY(readText(rep.split_path).find("\"labels\":[\"crude\",\"grain\"]") != std::string::npos);
    }

    /// One 0/1 column per label: recognised when every other column is 0/1, or named.
    void zeroOneColumns()
    {
        writeText(QString::fromStdString(sub("cols.csv")), "text,toxic,obscene,insult\n"
                                                           "alpha,1,0,1\n"
                                                           "bravo,0,0,0\n"
                                                           "charlie,0,1,0\n"
                                                           "delta,1,1,1\n");
        const PrepareReport rep = prepareData(options("cols.csv", "csv", "cols"));
        QCOMPARE(rep.labels, (std::vector<std::string>{"toxic", "obscene", "insult"}));
        QCOMPARE(readLabelSets(rep.train_path, 3), (LabelSets{{"alpha", {1, 0, 1}}, {"bravo", {0, 0, 0}},
                                                             {"charlie", {0, 1, 0}}, {"delta", {1, 1, 1}}}));
        QCOMPARE(rep.multi_label->reading,
                 std::string("one 0/1 column per label ('toxic', 'obscene', 'insult', recognised: every column but "
                             "the text holds only 0 and 1)"));
        PrepareOptions named = options("cols.csv", "csv", "cols-named");
        named.label_columns = "insult, toxic";
        const PrepareReport rep2 = prepareData(named);
        QCOMPARE(rep2.labels, (std::vector<std::string>{"insult", "toxic"}));
        QCOMPARE(readLabelSets(rep2.train_path, 2), (LabelSets{{"alpha", {1, 1}}, {"bravo", {0, 0}},
                                                              {"charlie", {0, 0}}, {"delta", {1, 1}}}));
        QCOMPARE(rep2.multi_label->reading,
                 std::string("one 0/1 column per label ('insult', 'toxic', given by --label_columns)"));
    }

    /// Folders: the same file name in several label folders is one text with those labels.
    void folders()
    {
        const std::string in = sub("folders");
        for (const auto &[file, text] : std::vector<std::pair<std::string, std::string>>{
                 {"billing/t1.txt", "alpha"}, {"urgent/t1.txt", "alpha"}, {"billing/t2.txt", "bravo"},
                 {"refund/t3.txt", "charlie"}, {"urgent/t3.txt", "charlie"}, {"urgent/t4.txt", "delta"},
                 {"refund/t4.txt", "echo"}})
            writeText(QString::fromStdString(in + "/" + file), text);
        const PrepareReport rep = prepareData(options("folders", "folders", "folders-out"));
        QCOMPARE(rep.labels, (std::vector<std::string>{"billing", "refund", "urgent"}));
        // t4.txt is in two folders with other contents: two texts, one label each.
        QCOMPARE(rep.train_examples, int64_t(5));
        QCOMPARE(readLabelSets(rep.train_path, 3),
                 (LabelSets{{"alpha", {1, 0, 1}}, {"bravo", {1, 0, 0}}, {"charlie", {0, 1, 1}}, {"delta", {0, 0, 1}},
                            {"echo", {0, 1, 0}}}));
        QCOMPARE(std::count_if(rep.warnings.begin(), rep.warnings.end(),
                               [](const std::string &w) {
                                   return w.find("1 file(s) have the name of a file in another label folder but other "
                                                 "contents") == 0;
                               }),
                 long(1));
        QCOMPARE(rep.multi_label->reading,
                 std::string("folders: 2 texts are in several label folders (the same file name and contents); each "
                             "is one text with the labels of its folders"));
        // Forced single-label: every file is its own example, as before.
        PrepareOptions single = options("folders", "folders", "folders-single");
        single.problem_type = "single_label_classification";
        const PrepareReport rep2 = prepareData(single);
        QCOMPARE(rep2.train_examples, int64_t(7));
        QVERIFY(!rep2.multi_label);
        QCOMPARE(rep2.problem_type, std::string("single_label_classification"));
    }

    /// A single-label column stays single-label (no delimiter anywhere); forcing multi-label
    /// reads one label per row.
    void singleLabelUnchangedAndForcedMulti()
    {
        writeText(QString::fromStdString(sub("single.csv")), "text,label\nalpha,pos\nbravo,neg\ncharlie,pos\n");
        const PrepareReport rep = prepareData(options("single.csv", "csv", "single"));
        QVERIFY(!rep.multi_label);
        QVERIFY(readText(rep.meta_path).find("problem_type") == std::string::npos);
        PrepareOptions forced = options("single.csv", "csv", "forced");
        forced.problem_type = "multi_label_classification";
        const PrepareReport rep2 = prepareData(forced);
        QCOMPARE(readLabelSets(rep2.train_path, 2),
                 (LabelSets{{"alpha", {0, 1}}, {"bravo", {1, 0}}, {"charlie", {0, 1}}}));
        QVERIFY(readText(rep2.meta_path).find("\"problem_type\": \"multi_label_classification\"") != std::string::npos);
    }

    /// The delimiter errors name the file, an example row and the option to pass.
    void ambiguousDelimiters()
    {
        writeText(QString::fromStdString(sub("comma.csv")), "text,labels\n"
                                                            "alpha,\"billing,urgent\"\n"
                                                            "bravo,billing\n"
                                                            "charlie,\"refund,urgent\"\n");
        const auto [message, hint] = prepareError(options("comma.csv", "csv", "comma"));
        QCOMPARE(message, "the label column 'labels' never holds the label delimiter '|', but ',' separates labels in 2 "
                          "rows (e.g. " + sub("comma.csv") + ":2 ('billing,urgent'))");
        QCOMPARE(hint, std::string("Pass --label_delimiter=, to read several labels per text; if ',' is part of the "
                                   "label names, pass --problem_type=single_label_classification."));
        PrepareOptions comma = options("comma.csv", "csv", "comma-ok");
        comma.label_delimiter = ",";
        QCOMPARE(readLabelSets(prepareData(comma).train_path, 3),
                 (LabelSets{{"alpha", {1, 0, 1}}, {"bravo", {1, 0, 0}}, {"charlie", {0, 1, 1}}}));

        writeText(QString::fromStdString(sub("mixed.csv")), "text,labels\n"
                                                            "alpha,billing|urgent\n"
                                                            "bravo,\"billing;refund\"\n"
                                                            "charlie,refund;urgent\n");
        const auto [mixed, mixedHint] = prepareError(options("mixed.csv", "csv", "mixed"));
        QCOMPARE(mixed, "the label column 'labels' mixes label delimiters: '|' in 1 rows (e.g. " + sub("mixed.csv")
                            + ":2 ('billing|urgent')) and ';' in 2 rows (e.g. " + sub("mixed.csv")
                            + ":3 ('billing;refund'))");
        QCOMPARE(mixedHint, std::string("Separate the labels of every row with one delimiter (e.g. replace ';' by '|'); "
                                        "if ';' is part of the label names, leave it."));
        // A comma inside one label name that recurs nowhere is not a delimiter.
        writeText(QString::fromStdString(sub("named.csv")), "text,labels\nalpha,\"arts, books|news\"\nbravo,news\n"
                                                            "charlie,sport\n");
        QCOMPARE(prepareData(options("named.csv", "csv", "named")).labels,
                 (std::vector<std::string>{"arts, books", "news", "sport"}));
    }

    /// A label on every text, too many labels, and a bad 0/1 value are errors naming the fix.
    void labelErrors()
    {
        writeText(QString::fromStdString(sub("constant.csv")), "text,labels\nalpha,news|sport\nbravo,news\n"
                                                               "charlie,news|arts\n");
        const auto [message, hint] = prepareError(options("constant.csv", "csv", "constant"));
        QCOMPARE(message, std::string("the label 'news' is on every one of the 3 texts: a model learns nothing from it"));
        QCOMPARE(hint, std::string("Remove it from the data, or pass --allow_constant_labels to keep it."));
        PrepareOptions allowed = options("constant.csv", "csv", "constant-ok");
        allowed.allow_constant_labels = true;
        QCOMPARE(prepareData(allowed).multi_label->always_present, std::vector<std::string>{"news"});

        PrepareOptions few = options("constant.csv", "csv", "few");
        few.allow_constant_labels = true;
        few.max_labels = 2;
        const auto [many, manyHint] = prepareError(few);
        QCOMPARE(many, std::string("3 distinct labels in the label column 'labels' ('arts', 'news', 'sport'), more "
                                   "than max_labels = 2"));
        QCOMPARE(manyHint, std::string("Check that the column holds labels, not texts (--label_column, "
                                       "--label_delimiter), or raise --max_labels."));

        PrepareOptions bad = options("badcol.csv", "csv", "badcol");
        writeText(QString::fromStdString(sub("badcol.csv")), "text,a,b,c\nalpha,1,0,x\nbravo,0,1,1\n");
        bad.label_columns = "a,b,c";
        const auto [badValue, badHint] = prepareError(bad);
        QCOMPARE(badValue, std::string("the label column 'c' holds 'x', expected 0 or 1"));
    }

    /// The iterative split (Sechidis et al. 2011) keeps a label with 2 or 3 texts on both sides,
    /// is the same for the same seed, and gives eval its share.
    void iterativeSplitKeepsRareLabels()
    {
        std::vector<std::vector<int64_t>> sets;
        for (int i = 0; i < 100; ++i) {
            std::vector<int64_t> s = {int64_t(i % 2)};   // labels 0 and 1: common
            if (i % 7 == 0)
                s.push_back(2);                          // label 2: 15 texts
            if (i == 10 || i == 40)
                s.push_back(3);                          // label 3: 2 texts
            if (i == 20 || i == 50 || i == 80)
                s.push_back(4);                          // label 4: 3 texts
            sets.push_back(s);
        }
        sets.push_back({}); // a text with no label
        const std::vector<bool> eval = prep::iterativeStratification(sets, 5, 10, 42);
        QCOMPARE(eval, prep::iterativeStratification(sets, 5, 10, 42));
        std::vector<int> inEval(5, 0), inTrain(5, 0);
        int nEval = 0;
        for (size_t i = 0; i < sets.size(); ++i) {
            nEval += eval[i] ? 1 : 0;
            for (const int64_t k : sets[i])
                ++(eval[i] ? inEval : inTrain)[size_t(k)];
        }
        QCOMPARE(nEval, 10);
        QCOMPARE(inEval, (std::vector<int>{5, 5, 1, 1, 1}));
        QCOMPARE(inTrain, (std::vector<int>{45, 45, 14, 1, 2}));
    }

    /// prepare splits multi-label data by iterative stratification and says so.
    void prepareSplitsIteratively()
    {
        std::string csv = "text,labels\n";
        const char *words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
        for (int i = 0; i < 40; ++i) {
            std::string labels = i % 2 ? "news" : "sport";
            if (i == 3 || i == 17)
                labels += "|rare";
            csv += std::string(words[i % 8]) + " " + words[(i / 8) % 8] + "," + labels + "\n";
        }
        writeText(QString::fromStdString(sub("rare.csv")), csv);
        PrepareOptions o = options("rare.csv", "csv", "rare");
        o.eval_fraction = 0.1;
        const PrepareReport rep = prepareData(o);
        QCOMPARE(rep.split_method, std::string("iterative_stratification"));
        QCOMPARE(rep.eval_examples, int64_t(4));
        QCOMPARE(rep.eval_label_counts.at("rare"), int64_t(1));
        QCOMPARE(rep.train_label_counts.at("rare"), int64_t(1));
        QVERIFY(rep.multi_label->missing_in_eval.empty());
    }

    /// The one-vs-rest baseline on synthetic keyword data: label k is on a text exactly when the
    /// keyword term 100+k is; 5 noise terms each. Label 4 is on no training text (constant).
    void baselineOnKeywords()
    {
        uint64_t state = 12345;
        auto next = [&state] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return uint32_t(state >> 33);
        };
        auto make = [&](int n, bool withRare) {
            std::vector<BagOfWordsDocument> docs;
            for (int i = 0; i < n; ++i) {
                BagOfWordsDocument d;
                d.label_set.assign(5, 0);
                for (int k = 0; k < 4; ++k)
                    if (next() % 10 < 3) {
                        d.label_set[size_t(k)] = 1;
                        d.terms.push_back(uint32_t(100 + k));
                    }
                if (withRare && i == 0) {
                    d.label_set[4] = 1;
                    d.terms.push_back(104);
                }
                for (int t = 0; t < 5; ++t)
                    d.terms.push_back(next() % 50);
                docs.push_back(d);
            }
            return docs;
        };
        const auto train = make(300, false), eval = make(100, true);
        const BagOfWordsBaseline b = fitMultiLabelBagOfWordsBaseline(train, eval, 5);
        QVERIFY2(b.fitted(), b.error.c_str());
        QVERIFY(b.multi_label);
        QCOMPARE(b.constant_labels, std::vector<int64_t>{4});
        QVERIFY2(b.eval_micro_f1 >= 0.95 && b.eval_micro_f1 <= 1.0, std::to_string(b.eval_micro_f1).c_str());
        // Label 4 (one eval text, never predicted) has F1 0: macro-F1 is at most 4/5.
        QVERIFY2(b.eval_macro_f1 >= 0.75 && b.eval_macro_f1 <= 0.8, std::to_string(b.eval_macro_f1).c_str());
        QVERIFY2(b.eval_hamming_loss <= 0.02, std::to_string(b.eval_hamming_loss).c_str());
        QVERIFY2(b.eval_accuracy >= 0.9, std::to_string(b.eval_accuracy).c_str());
        QVERIFY2(b.eval_samples_f1 >= 0.6, std::to_string(b.eval_samples_f1).c_str());
        // Recorded and read back in prepare_report.json.
        PrepareReport r;
        r.bag_of_words = b;
        const PrepareReport back = parsePrepareReport(prepareReportJson(r), "r.json");
        QVERIFY(back.bag_of_words->multi_label);
        QCOMPARE(back.bag_of_words->eval_micro_f1, b.eval_micro_f1);
        QCOMPARE(back.bag_of_words->eval_hamming_loss, b.eval_hamming_loss);
        QCOMPARE(back.bag_of_words->constant_labels, std::vector<int64_t>{4});
    }
};

QTEST_APPLESS_MAIN(tst_DataPrepMultiLabel)
#include "tst_dataprepmultilabel.moc"
