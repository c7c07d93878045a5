// SPDX-License-Identifier: Apache-2.0
// The typed readers of the files a run and prepare leave behind, each beside its writer
// (docs/architecture.md, "File formats"): what the writer wrote reads back exactly, and a
// file that is broken or has a key of another type is a wb::Error naming the file and key.
// Links only the torch-free wb_rundir.
#include "core/prepare/preparereport.h"
#include "core/advice/lrfindanalysis.h"
#include "core/formats/runidentity.h"
#include "core/formats/trainingsummary.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>

using namespace wb;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The wb::Error `f` throws (its field and message), or fails the test.
struct Thrown
{
    std::string field, message;
};
Thrown thrown(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return {e.field(), e.what()};
    }
    return {"(nothing thrown)", ""};
}

/// Equal, with NaN equal to NaN (non-finite numbers are written as null, read as NaN).
bool sameNumbers(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size())
        return false;
    for (size_t k = 0; k < a.size(); ++k)
        if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k]))))
            return false;
    return true;
}

void write(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

/// A report with every field set, to values that are hard to write back exactly: quotes, tabs,
/// non-ASCII text, an empty label, a count above 2^53.
PrepareReport reportWithEveryField()
{
    PrepareReport r;
    r.processor_type = "tsv";
    r.text_a_column = "sentence \"a\"";
    r.text_b_column = ""; // single sentences: written as null
    r.label_column = "label";
    r.text_columns_recognised = true;
    r.label_column_recognised = false;
    r.vocab_file = "/data/vocab ü [v2].txt";
    r.vocab_sha256 = std::string(64, 'a');
    r.do_lower_case = false;
    r.max_seq_length = 128;
    r.labels = {"naïve, positive", "", "négatif\ttab"};
    r.train_examples = 9007199254740993; // above 2^53: exact as an integer
    r.eval_examples = 3;
    r.test_examples = 0;
    r.train_label_counts = {{"naïve, positive", 5}, {"", 0}, {"négatif\ttab", 9007199254740988}};
    r.eval_label_counts = {{"naïve, positive", 1}, {"", 2}, {"négatif\ttab", 0}};
    r.truncated_examples = 4;
    r.mean_tokens = 12.345678901234567;
    r.max_tokens = 2048;
    r.max_tokens_capped = true;
    r.texts_with_bom = 1;
    r.texts_latin1 = 2;
    r.texts_with_nul = 3;
    r.empty_texts = 5;
    r.skipped_rows = 1;
    r.skipped = {{"train.tsv:7", "the label is empty"}};
    r.train_duplicates = 2;
    r.conflicting_duplicates = 1;
    r.duplicate_examples = {{"train.tsv:2", "train.tsv:9"}};
    r.train_eval_overlap = 1;
    r.overlap_examples = {{"train.tsv:3", "dev.tsv:1"}};
    r.warnings = {"dev.tsv:4: \"quoted\" \\ backslash"};
    r.label_in_text = {{"spam", "<d>", true, 10, 9, 20, 1, {"spam/1.xml:2", "spam/2.xml:2"}}};
    r.email_body_only = true;
    r.split_method = "stratified";
    return r;
}

/// The columns, tokenizer, labels, split sizes, label counts and text statistics of `b` are
/// those of `r`.
void checkColumnsCountsAndTextStatistics(const PrepareReport &b, const PrepareReport &r)
{
    QCOMPARE(b.processor_type, r.processor_type);
    QCOMPARE(b.text_a_column, r.text_a_column);
    QCOMPARE(b.text_b_column, std::string());
    QCOMPARE(b.label_column, r.label_column);
    QCOMPARE(b.text_columns_recognised, true);
    QCOMPARE(b.label_column_recognised, false);
    QCOMPARE(b.vocab_file, r.vocab_file);
    QCOMPARE(b.vocab_sha256, r.vocab_sha256);
    QCOMPARE(b.do_lower_case, false);
    QCOMPARE(b.max_seq_length, int64_t(128));
    QCOMPARE(b.labels, r.labels);
    QCOMPARE(b.regression, false);
    QCOMPARE(b.train_examples, r.train_examples);
    QCOMPARE(b.eval_examples, int64_t(3));
    QCOMPARE(b.train_label_counts, r.train_label_counts);
    QCOMPARE(b.eval_label_counts, r.eval_label_counts);
    QCOMPARE(b.truncated_examples, int64_t(4));
    QCOMPARE(b.mean_tokens, r.mean_tokens);
    QCOMPARE(b.max_tokens, int64_t(2048));
    QCOMPARE(b.max_tokens_capped, true);
    QCOMPARE(b.texts_with_bom + b.texts_latin1 * 10 + b.texts_with_nul * 100 + b.empty_texts * 1000, int64_t(5321));
}

/// The skipped rows, duplicates, train/eval overlap, warnings and labels in the text of `b` are
/// those of `r`.
void checkDataProblems(const PrepareReport &b, const PrepareReport &r)
{
    QCOMPARE(b.skipped_rows, int64_t(1));
    QCOMPARE(b.skipped.size(), size_t(1));
    QCOMPARE(b.skipped[0].where, std::string("train.tsv:7"));
    QCOMPARE(b.skipped[0].reason, std::string("the label is empty"));
    QCOMPARE(b.train_duplicates, int64_t(2));
    QCOMPARE(b.conflicting_duplicates, int64_t(1));
    QCOMPARE(b.duplicate_examples.size(), size_t(1));
    QCOMPARE(b.duplicate_examples[0].second, std::string("train.tsv:9"));
    QCOMPARE(b.train_eval_overlap, int64_t(1));
    QCOMPARE(b.overlap_examples[0].first, std::string("train.tsv:3"));
    QCOMPARE(b.overlap_examples[0].second, std::string("dev.tsv:1"));
    QCOMPARE(b.warnings, r.warnings);
    QCOMPARE(b.label_in_text.size(), size_t(1));
    QCOMPARE(b.label_in_text[0].token, std::string("<d>"));
    QCOMPARE(b.label_in_text[0].markup, true);
    QCOMPARE(b.label_in_text[0].label_texts_with, int64_t(9));
    QCOMPARE(b.label_in_text[0].other_texts_with, int64_t(1));
    QCOMPARE(b.label_in_text[0].examples, r.label_in_text[0].examples);
}

/// Beside the meta data; the tokenizer keys (unset when the report lacks them). `text` is a
/// report written with `vocabFile`, do_lower_case false and max_seq_length 128.
void checkReportReadBesideTheMetaData(const std::string &text, const std::string &vocabFile)
{
    QTemporaryDir dir;
    const std::string meta = dir.path().toStdString() + "/input_meta_data.json";
    QVERIFY(!readPrepareReport(meta));
    QVERIFY(!readPreparedTokenizer(meta).do_lower_case);
    write(prepareReportPath(meta), text);
    const auto fromFile = readPrepareReport(meta);
    QVERIFY(fromFile);
    QCOMPARE(fromFile->report_path, dir.path().toStdString() + "/prepare_report.json");
    const PreparedTokenizer t = readPreparedTokenizer(meta);
    QCOMPARE(t.vocab_file, vocabFile);
    QCOMPARE(t.do_lower_case, std::optional<bool>(false));
    QCOMPARE(t.max_seq_length, std::optional<int64_t>(128));
    write(prepareReportPath(meta), R"({"labels": ["a"]})");
    const PreparedTokenizer none = readPreparedTokenizer(meta);
    QVERIFY(none.vocab_file.empty() && !none.do_lower_case && !none.max_seq_length);
}

/// A summary with an evaluation (binary, with an MCC that was not finite), a best checkpoint
/// and an early stop.
TrainingSummary summaryWithEveryField()
{
    TrainingSummary s;
    s.total_training_steps = 16;
    s.train_loss = 0.067000000000000004;
    EvalMetrics e;
    e.step = 16;
    e.eval_loss = 0.25;
    e.eval_accuracy = 0.75;
    e.binary = true;
    e.eval_f1 = 2.0 / 3.0;
    e.eval_mcc = kNaN;
    e.num_examples = 40;
    s.last_eval = e;
    s.best_checkpoint_metric = "eval_f1";
    s.best_metric_value = 0.7;
    s.best_step = 8;
    s.best_checkpoint = "best/ckpt-8";
    s.stopped_early_at_step = 12;
    return s;
}

/// `b`, read back from the summary summaryWithEveryField() made, holds its values.
void checkSummaryReadBack(const TrainingSummary &b, const TrainingSummary &s)
{
    QCOMPARE(b.total_training_steps, int64_t(16));
    QCOMPARE(b.train_loss, s.train_loss);
    QVERIFY(b.last_eval);
    QCOMPARE(b.last_eval->step, int64_t(16));
    QCOMPARE(b.last_eval->eval_loss, 0.25);
    QCOMPARE(b.last_eval->eval_accuracy, 0.75);
    QCOMPARE(b.last_eval->binary, true);
    QCOMPARE(b.last_eval->regression, false);
    QCOMPARE(b.last_eval->eval_f1, 2.0 / 3.0);
    QVERIFY(std::isnan(b.last_eval->eval_mcc));
    QCOMPARE(b.last_eval->num_examples, int64_t(40));
    QCOMPARE(b.best_checkpoint_metric, std::string("eval_f1"));
    QCOMPARE(b.best_metric_value, std::optional<double>(0.7));
    QCOMPARE(b.best_step, int64_t(8));
    QCOMPARE(b.best_checkpoint, std::string("best/ckpt-8"));
    QCOMPARE(b.stopped_early_at_step, int64_t(12));
}

/// A plain run: no evaluation kept, no best, a train loss that was not finite.
void checkPlainRunSummaryRoundTrip()
{
    TrainingSummary plain;
    plain.total_training_steps = 3;
    plain.train_loss = kInf;
    QCOMPARE(trainingSummaryJson(plain), std::string("{\n    \"total_training_steps\": 3,\n    \"train_loss\": null\n}\n"));
    const TrainingSummary pb = parseTrainingSummary(trainingSummaryJson(plain), "f");
    QVERIFY(std::isnan(pb.train_loss));
    QVERIFY(!pb.last_eval && !pb.best_metric_value);
    QVERIFY(pb.best_checkpoint_metric.empty());
    QCOMPARE(pb.stopped_early_at_step, int64_t(0));
}

/// Regression: no eval_metrics, regression read back from eval_mse.
void checkRegressionSummaryRoundTrip()
{
    TrainingSummary reg;
    EvalMetrics re;
    re.regression = true;
    re.eval_mse = 0.5;
    re.eval_pearson = -0.25;
    re.eval_spearman = 1;
    re.step = 4;
    reg.last_eval = re;
    const TrainingSummary rb = parseTrainingSummary(trainingSummaryJson(reg), "f");
    QVERIFY(rb.last_eval && rb.last_eval->regression);
    QCOMPARE(rb.last_eval->eval_pearson, -0.25);
    QVERIFY(trainingSummaryJson(reg).find("eval_metrics") == std::string::npos);
}

} // namespace

class tst_RunDirFormats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void lrFindRoundTrip();
    void lrFindErrors();
    void prepareReportRoundTrip();
    void prepareReportErrors();
    void trainingSummaryRoundTrip();
    void trainingSummaryPerClassMetrics();
    void perClassValueNotHeldIsNull();
    void trainingSummaryErrors();
    void trainingSummarySaysWhetherBertBeatTheBagOfWords();
    void runConfigOptions();
};

void tst_RunDirFormats::lrFindRoundTrip()
{
    LrFindResult r;
    r.steps = {1, 2, 3, 4};
    r.learning_rates = {1e-300, 2.123456789012345e-5, 0.1, 1.7976931348623157e308};
    r.losses = {0.6931471805599453, kNaN, kInf, 1e-17};
    r.smoothed = {0.69, kNaN, -kInf, 3.0000000000000004};
    r.suggestion = 2.123456789012345e-5;
    r.min_loss_lr = 0.1;
    r.min_over_10 = 0.01;
    r.diverged = true;
    const std::string text = lrFindJson(r);
    const LrFindResult back = parseLrFindJson(text, "m/lr_find.json");
    QCOMPARE(back.steps, r.steps);
    QVERIFY(sameNumbers(back.learning_rates, r.learning_rates));
    // inf is not JSON: written as null, read as NaN.
    QVERIFY(sameNumbers(back.losses, {0.6931471805599453, kNaN, kNaN, 1e-17}));
    QVERIFY(sameNumbers(back.smoothed, {0.69, kNaN, kNaN, 3.0000000000000004}));
    QCOMPARE(back.suggestion, r.suggestion);
    QCOMPARE(back.min_loss_lr, r.min_loss_lr);
    QCOMPARE(back.min_over_10, r.min_over_10);
    QCOMPARE(back.diverged, true);
    QCOMPARE(back.suggestion_index, int64_t(-1)); // not in the file
    QCOMPARE(back.min_index, int64_t(-1));
    QCOMPARE(back.path, std::string("m/lr_find.json"));
    QCOMPARE(lrFindJson(back), text);

    // A file without "steps" or "smoothed" (hand-made): steps 1 … N, no smoothed curve.
    const LrFindResult bare = parseLrFindJson(R"({"learning_rates": [1e-5, 1e-4], "losses": [0.7, null]})", "f");
    QCOMPARE(bare.steps, (std::vector<int64_t>{1, 2}));
    QVERIFY(bare.smoothed.empty());
    QVERIFY(std::isnan(bare.losses[1]));
    QCOMPARE(bare.diverged, false);

    QTemporaryDir dir;
    QVERIFY(!readLrFindJson(lrFindPath(dir.path().toStdString())));
    write(lrFindPath(dir.path().toStdString()), text);
    const auto fromFile = readLrFindJson(lrFindPath(dir.path().toStdString()));
    QVERIFY(fromFile);
    QCOMPARE(fromFile->path, dir.path().toStdString() + "/lr_find.json");
    QCOMPARE(fromFile->steps, r.steps);
}

void tst_RunDirFormats::lrFindErrors()
{
    const auto error = [](const std::string &text) { return thrown([&] { parseLrFindJson(text, "m/lr_find.json"); }); };
    Thrown t = error(R"({"learning_rates": [1e-5, 1e-4], "losses": [0.7, "0.6"]})");
    QCOMPARE(t.field, std::string("m/lr_find.json: losses[1]"));
    QCOMPARE(t.message, std::string("expected a number (or null), got string \"0.6\""));
    t = error(R"({"learning_rates": [1e-5, 1e-4], "losses": [0.7]})");
    QCOMPARE(t.field, std::string("m/lr_find.json: losses"));
    QCOMPARE(t.message, std::string("has 1 entries, learning_rates 2"));
    t = error(R"({"learning_rates": [], "losses": []})");
    QCOMPARE(t.field, std::string("m/lr_find.json: learning_rates"));
    QCOMPARE(t.message, std::string("is empty: the file holds no step"));
    t = error(R"({"losses": [0.7]})");
    QCOMPARE(t.field, std::string("m/lr_find.json: learning_rates"));
    QCOMPARE(t.message, std::string("is missing"));
    t = error(R"({"learning_rates": [1e-5], "losses": [0.7], "diverged": "no"})");
    QCOMPARE(t.field, std::string("m/lr_find.json: diverged"));
    QCOMPARE(t.message, std::string("expected true or false, got string \"no\""));
    t = error(R"({"learning_rates": [1e-5], "losses": [0.7], "steps": [1.5]})");
    QCOMPARE(t.field, std::string("m/lr_find.json: steps[0]"));
    t = error(R"({"learning_rates": [1e-5], "losses": [0.7],)");
    QCOMPARE(t.field, std::string("m/lr_find.json"));
    QVERIFY2(t.message.find("line 1") != std::string::npos, t.message.c_str());
    t = error("[1, 2]");
    QCOMPARE(t.field, std::string("m/lr_find.json"));
}

void tst_RunDirFormats::prepareReportRoundTrip()
{
    PrepareReport r = reportWithEveryField();
    const std::string text = prepareReportJson(r);
    const PrepareReport b = parsePrepareReport(text, "p/prepare_report.json");
    checkColumnsCountsAndTextStatistics(b, r);
    if (QTest::currentTestFailed())
        return;
    checkDataProblems(b, r);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(b.email_body_only, true);
    QCOMPARE(b.strip_quoted_replies, false);
    QCOMPARE(b.split_method, std::string("stratified"));
    QCOMPARE(b.report_path, std::string("p/prepare_report.json"));
    QCOMPARE(prepareReportJson(b), text);
    // The window's majority-class baseline: eval counts in label id order.
    QCOMPARE(evalCountsByLabelId(b), (std::vector<int64_t>{1, 2, 0}));

    // mean_tokens that was not finite; regression has no label counts.
    r.mean_tokens = kNaN;
    r.regression = true;
    r.labels.clear();
    const PrepareReport reg = parsePrepareReport(prepareReportJson(r), "p");
    QVERIFY(std::isnan(reg.mean_tokens));
    QCOMPARE(reg.regression, true);
    QVERIFY(evalCountsByLabelId(reg).empty());

    checkReportReadBesideTheMetaData(text, r.vocab_file);
}

void tst_RunDirFormats::prepareReportErrors()
{
    const auto error = [](const std::string &text) {
        return thrown([&] { parsePrepareReport(text, "p/prepare_report.json"); });
    };
    Thrown t = error(R"({"labels": ["ham", "spam"], "eval_label_counts": {"ham": 3, "spam": "4"}})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: eval_label_counts: spam"));
    QCOMPARE(t.message, std::string("expected an integer, got string \"4\""));
    t = error(R"({"eval_label_counts": {"ham": -1}})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: eval_label_counts: ham"));
    QCOMPARE(t.message, std::string("is -1, a count of examples cannot be negative"));
    t = error(R"({"labels": "ham,spam"})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: labels"));
    QCOMPARE(t.message, std::string("expected an array, got string \"ham,spam\""));
    t = error(R"({"labels": ["ham", 2]})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: labels[1]"));
    t = error(R"({"do_lower_case": "true"})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: do_lower_case"));
    t = error(R"({"skipped": [{"where": 3}]})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: skipped[0]: where"));
    t = error(R"({"columns": {"text_a": "a", "text_recognised": 1}})");
    QCOMPARE(t.field, std::string("p/prepare_report.json: columns: text_recognised"));
    t = error("{\"labels\": [\"a\"");
    QCOMPARE(t.field, std::string("p/prepare_report.json"));

    // Through the path-taking readers: the file's real path is named.
    QTemporaryDir dir;
    const std::string meta = dir.path().toStdString() + "/input_meta_data.json";
    write(prepareReportPath(meta), R"({"max_seq_length": 12.5})");
    t = thrown([&] { readPreparedTokenizer(meta); });
    QCOMPARE(t.field, prepareReportPath(meta) + ": max_seq_length");
    t = thrown([&] { readPrepareReport(meta); });
    QCOMPARE(t.field, prepareReportPath(meta) + ": max_seq_length");
}

/// The run's end compares its last evaluation with the bag-of-words baseline that prepare
/// recorded beside the meta data (prepare_report.json) and keeps both in the summary.
void tst_RunDirFormats::trainingSummarySaysWhetherBertBeatTheBagOfWords()
{
    QTemporaryDir dir;
    const std::string meta = dir.filePath(QStringLiteral("input_meta_data.json")).toStdString();
    TrainingSummary s;
    s.total_training_steps = 4;
    s.train_loss = 0.5;
    EvalMetrics e;
    e.step = 4;
    e.eval_accuracy = 0.75;
    s.last_eval = e;
    QCOMPARE(compareWithBagOfWords(s, meta), std::string()); // no report: nothing to compare
    QVERIFY(!s.bag_of_words_accuracy && !s.beat_bag_of_words);
    QVERIFY(trainingSummaryJson(s).find("bag_of_words") == std::string::npos);

    PrepareReport report;
    report.labels = {"ham", "spam"};
    BagOfWordsBaseline b;
    b.eval_accuracy = 0.8;
    b.eval_macro_f1 = 0.7;
    report.bag_of_words = b;
    {
        std::ofstream(prepareReportPath(meta)) << prepareReportJson(report);
    }
    QCOMPARE(compareWithBagOfWords(s, meta),
             std::string("BERT did not beat the bag-of-words baseline: eval accuracy 0.750 vs 0.800 (TF-IDF + logistic "
                         "regression on the same wordpieces, prepare_report.json)"));
    QCOMPARE(s.bag_of_words_accuracy, std::optional<double>(0.8));
    QCOMPARE(s.beat_bag_of_words, std::optional<bool>(false));
    const std::string text = trainingSummaryJson(s);
    QVERIFY2(text.find("    \"bag_of_words_accuracy\": 0.8,\n    \"beat_bag_of_words\": false\n}") != std::string::npos,
             text.c_str());
    const TrainingSummary back = parseTrainingSummary(text, "m/training_summary.json");
    QCOMPARE(back.bag_of_words_accuracy, std::optional<double>(0.8));
    QCOMPARE(back.beat_bag_of_words, std::optional<bool>(false));
    QCOMPARE(trainingSummaryJson(back), text);
    QCOMPARE(bagOfWordsVerdict(0.9, 0.8), std::string("BERT beat the bag-of-words baseline: eval accuracy 0.900 vs "
                                                      "0.800 (TF-IDF + logistic regression on the same wordpieces, "
                                                      "prepare_report.json)"));
    QCOMPARE(bagOfWordsVerdict(0.8, 0.8).rfind("BERT did not beat", 0), size_t(0)); // a tie is not a win
    // The fact only: what to try is the coach's below_bag_of_words note.
    QCOMPARE(bagOfWordsVerdict(0.8, 0.9), std::string("BERT did not beat the bag-of-words baseline: eval accuracy "
                                                      "0.800 vs 0.900 (TF-IDF + logistic regression on the same "
                                                      "wordpieces, prepare_report.json)"));

    // Regression runs and baselines that could not be fitted say nothing.
    TrainingSummary reg;
    EvalMetrics re;
    re.regression = true;
    reg.last_eval = re;
    QCOMPARE(compareWithBagOfWords(reg, meta), std::string());
    report.bag_of_words->error = "every training example has the same label (id 0); a classifier needs examples of at least 2 labels";
    report.bag_of_words->eval_accuracy = kNaN;
    {
        std::ofstream(prepareReportPath(meta)) << prepareReportJson(report);
    }
    TrainingSummary t;
    t.last_eval = e;
    QCOMPARE(compareWithBagOfWords(t, meta), std::string());
    QVERIFY(!t.bag_of_words_accuracy);
    QVERIFY_THROWS_EXCEPTION(Error, parseTrainingSummary(R"({"beat_bag_of_words": "yes"})", "f"));
}

void tst_RunDirFormats::trainingSummaryRoundTrip()
{
    const TrainingSummary s = summaryWithEveryField();
    const std::string text = trainingSummaryJson(s);
    // The file as the training loop has always written it (indent 4, these keys in this order).
    QCOMPARE(QString::fromStdString(text), QStringLiteral(R"({
    "total_training_steps": 16,
    "train_loss": 0.067,
    "eval_metrics": 0.75,
    "last_eval": {
        "eval_accuracy": 0.75,
        "eval_f1": 0.6666666666666666,
        "eval_loss": 0.25,
        "eval_mcc": null,
        "num_examples": 40,
        "step": 16
    },
    "best_checkpoint_metric": "eval_f1",
    "best_metric_value": 0.7,
    "best_step": 8,
    "best_checkpoint": "best/ckpt-8",
    "stopped_early_at_step": 12
}
)"));
    const TrainingSummary b = parseTrainingSummary(text, "m/training_summary.json");
    checkSummaryReadBack(b, s);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(trainingSummaryJson(b), text);

    checkPlainRunSummaryRoundTrip();
    if (QTest::currentTestFailed())
        return;
    checkRegressionSummaryRoundTrip();
    if (QTest::currentTestFailed())
        return;

    QTemporaryDir dir;
    const std::string modelDir = dir.path().toStdString();
    QVERIFY(!readTrainingSummary(modelDir));
    writeTrainingSummary(modelDir, s);
    const auto fromFile = readTrainingSummary(modelDir);
    QVERIFY(fromFile);
    QCOMPARE(trainingSummaryJson(*fromFile), text);
}

void tst_RunDirFormats::trainingSummaryErrors()
{
    const auto error = [](const std::string &text) {
        return thrown([&] { parseTrainingSummary(text, "m/training_summary.json"); });
    };
    Thrown t = error(R"({"total_training_steps": 16, "train_loss": "0.5"})");
    QCOMPARE(t.field, std::string("m/training_summary.json: train_loss"));
    QCOMPARE(t.message, std::string("expected a number (or null), got string \"0.5\""));
    t = error(R"({"last_eval": {"step": "16"}})");
    QCOMPARE(t.field, std::string("m/training_summary.json: last_eval: step"));
    t = error(R"({"last_eval": [0.5]})");
    QCOMPARE(t.field, std::string("m/training_summary.json: last_eval"));
    t = error(R"({"stopped_early_at_step": true})");
    QCOMPARE(t.field, std::string("m/training_summary.json: stopped_early_at_step"));
    QCOMPARE(t.message, std::string("expected an integer, got boolean true"));
    t = error("");
    QCOMPARE(t.field, std::string("m/training_summary.json"));
}

void tst_RunDirFormats::runConfigOptions()
{
    RunIdentity id;
    id.json = nlohmann::ordered_json::parse(R"({"defining": {"learning_rate": 2.123456789e-5, "train_batch_size": 8,
        "num_train_epochs": 3}, "informational": {"dtype": "bf16", "input_meta_data_path": "../data/meta.json"}})");
    const RecordedRunOptions o = recordedRunOptions(id, "m/run_config.json");
    QCOMPARE(o.learning_rate, std::optional<double>(2.123456789e-5));
    QCOMPARE(o.train_batch_size, std::optional<int64_t>(8));
    QCOMPARE(o.num_train_epochs, std::optional<int64_t>(3));
    QCOMPARE(o.dtype, std::optional<std::string>("bf16"));
    QCOMPARE(o.input_meta_data_path, std::optional<std::string>("../data/meta.json"));
    id.json = nlohmann::ordered_json::parse(R"({"defining": {"train_batch_size": "8"}})");
    const Thrown t = thrown([&] { recordedRunOptions(id, "m/run_config.json"); });
    QCOMPARE(t.field, std::string("m/run_config.json: defining: train_batch_size"));
    const RecordedRunOptions none = recordedRunOptions(RunIdentity{nlohmann::ordered_json::object()}, "f");
    QVERIFY(!none.learning_rate && !none.dtype);
}

void tst_RunDirFormats::trainingSummaryPerClassMetrics()
{
    // The per-class metrics, macro-F1 and the named positive class come back as written.
    TrainingSummary s;
    s.total_training_steps = 8;
    EvalMetrics e;
    e.step = 8;
    e.binary = true;
    e.eval_accuracy = 0.75;
    e.eval_f1 = 2.0 / 3.0;
    e.eval_macro_f1 = 0.7333;
    e.class_precision = {2.0 / 3.0, 1.0};
    e.class_recall = {1.0, 0.5};
    e.class_f1 = {0.8, 2.0 / 3.0};
    e.class_support = {2, 2};
    e.label_names = {"ham", "spam"};
    s.last_eval = e;
    const std::string text = trainingSummaryJson(s);
    QVERIFY2(text.find("\"positive_label\": \"spam\"") != std::string::npos, text.c_str());
    const TrainingSummary b = parseTrainingSummary(text, "m/training_summary.json");
    QVERIFY(b.last_eval);
    QCOMPARE(b.last_eval->class_f1, e.class_f1);
    QCOMPARE(b.last_eval->class_support, e.class_support);
    QCOMPARE(b.last_eval->label_names, e.label_names);
    QCOMPARE(b.last_eval->eval_macro_f1, e.eval_macro_f1);
    QCOMPARE(b.last_eval->positive_label, int64_t(1));
    QCOMPARE(trainingSummaryJson(b), text);
    // A per-class value of another type is an error naming the file, the entry and the key.
    std::string bad = text;
    bad.replace(bad.find("\"support\": 2"), 12, "\"support\": \"two\"");
    try {
        parseTrainingSummary(bad, "m/training_summary.json");
        QFAIL("a per-class support that is a string was accepted");
    } catch (const Error &err) {
        QVERIFY2(err.field().find("per_class[0]") != std::string::npos && err.field().find("support") != std::string::npos,
                 err.field().c_str());
    }
}

// A per-class value the metrics do not hold is null (a count: left out) in training_summary.json
// and metrics.jsonl, never 0 (issue 41); the readers take it.
void tst_RunDirFormats::perClassValueNotHeldIsNull()
{
    TrainingSummary s;
    s.total_training_steps = 4;
    s.train_loss = 0.5;
    EvalMetrics e;
    e.step = 4;
    e.num_examples = 4;
    e.eval_accuracy = 0.75;
    e.class_f1 = {0.8, 0.5};
    e.class_precision = {0.9}; // the second class's precision, recall and support are not held
    e.label_names = {"ham", "spam"};
    s.last_eval = e;
    const std::string text = trainingSummaryJson(s);
    const auto j = nlohmann::json::parse(text);
    const auto &perClass = j.at("last_eval").at("per_class");
    QCOMPARE(perClass.size(), size_t(2));
    QCOMPARE(perClass[0]["precision"].get<double>(), 0.9);
    QVERIFY2(perClass[1]["precision"].is_null(), text.c_str());
    QVERIFY2(perClass[0]["recall"].is_null() && perClass[1]["recall"].is_null(), text.c_str());
    QVERIFY2(!perClass[0].contains("support") && !perClass[1].contains("support"), text.c_str());
    QCOMPARE(perClass[1]["f1"].get<double>(), 0.5);
    const TrainingSummary b = parseTrainingSummary(text, "m/training_summary.json");
    QVERIFY(b.last_eval);
    QCOMPARE(b.last_eval->class_f1, e.class_f1);
    QVERIFY(std::isnan(b.last_eval->class_precision.at(1)));
}

QTEST_GUILESS_MAIN(tst_RunDirFormats)
#include "tst_rundirformats.moc"
