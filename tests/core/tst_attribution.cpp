// SPDX-License-Identifier: Apache-2.0
// Issue 25, token attributions: Integrated Gradients and gradient × input on a tiny BERT
// (hidden 8, 1 layer, fixed seed) against references computed here with autograd on the
// plain forward pass (input_ids → logits), the completeness check and its "m too small"
// flag, and the wordpiece → word merge.
#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/infer/attribution.h"
#include "core/infer/attributiontorch.h"
#include "core/infer/textclassifier.h"
#include "core/util/error.h"
#include "support/multilabelwordsrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

constexpr int64_t kPad = 0, kCls = 1, kSep = 2;

BertConfig tinyConfig()
{
    BertConfig c;
    c.vocab_size = 20;
    c.hidden_size = 8;
    c.num_hidden_layers = 1;
    c.num_attention_heads = 2;
    c.intermediate_size = 16;
    c.max_position_embeddings = 16;
    c.type_vocab_size = 2;
    c.initializer_range = 0.5; // large weights: a curved path, so few steps miss completeness
    return c;
}

nn::BertForSequenceClassification tinyModel()
{
    nn::BertForSequenceClassification m(tinyConfig(), 3, nn::makeGenerator(7));
    m->eval();
    return m;
}

torch::Tensor textIds() { return torch::tensor(std::vector<int64_t>{kCls, 5, 7, 5, 11, 13, kSep}, torch::kLong); }
torch::Tensor textSegments() { return torch::zeros({7}, torch::kLong); }

/// The target's logit and its gradient with respect to the word vectors `rows` [S, E], by
/// the plain forward pass: a copy of the model whose word-embedding rows 0…S−1 are `rows`,
/// fed input_ids 0…S−1 (each position reads its own row), differentiated by autograd on
/// the embedding table. Independent of forwardFromWordVectors.
std::pair<double, torch::Tensor> plainLogitAndGradient(const nn::BertForSequenceClassification &model,
                                                       const torch::Tensor &rows, int64_t target)
{
    auto copy = tinyModel();
    {
        torch::NoGradGuard g;
        auto src = model->named_parameters();
        for (auto &p : copy->named_parameters())
            p.value().copy_(src[p.key()]);
    }
    const int64_t s = rows.size(0);
    torch::Tensor table = copy->embeddings->word_embeddings->weight;
    {
        torch::NoGradGuard g;
        table.narrow(0, 0, s).copy_(rows);
    }
    const auto logits = copy->forward(torch::arange(s, torch::kLong).unsqueeze(0), torch::ones({1, s}, torch::kLong),
                                      textSegments().narrow(0, 0, s).unsqueeze(0));
    const auto y = logits[0][target];
    const auto grad = torch::autograd::grad({y}, {table})[0].narrow(0, 0, s);
    return {y.item<double>(), grad.to(torch::kDouble)};
}

double sum(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return s;
}

} // namespace

class tst_Attribution : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void wordVectorForwardIsTheForward();
    void baselineIsPadWithClsAndSep();
    void integratedGradientsEqualsHandWrittenRiemannSum();
    void batchingDoesNotChangeTheResult();
    void completenessHoldsForEnoughSteps();
    void fewStepsAreFlagged();
    void gradientTimesInputIsGradientDotEmbedding();
    void defaultTargetIsThePredictedClass();
    void errorsNameTheField();
    void completenessRule();
    void baselineThatDecidesIsSaid();
    void shortTextsAreExplained();
    void wordpiecesMergeIntoWords();
    void topWordsForAndAgainst();
    void labelChoice();
    void multiLabelExplainsOneLabelsLogOdds();
};

void tst_Attribution::wordVectorForwardIsTheForward()
{
    auto m = tinyModel();
    torch::NoGradGuard g;
    const auto ids = textIds().unsqueeze(0), seg = textSegments().unsqueeze(0), mask = torch::ones({1, 7}, torch::kLong);
    const auto a = m->forward(ids, mask, seg);
    const auto b = m->forwardFromWordVectors(m->embeddings->word_embeddings->forward(ids), mask, seg);
    QVERIFY(torch::equal(a, b)); // bit for bit: the same operations in the same order
}

void tst_Attribution::baselineIsPadWithClsAndSep()
{
    auto m = tinyModel();
    const auto base = attributionBaseline(*m, textIds(), kPad, kCls, kSep);
    const auto table = m->embeddings->word_embeddings->weight.detach();
    QCOMPARE(base.sizes().vec(), (std::vector<int64_t>{7, 8}));
    QVERIFY(torch::equal(base[0], table[kCls]));
    QVERIFY(torch::equal(base[6], table[kSep]));
    for (int64_t i = 1; i < 6; ++i)
        QVERIFY(torch::equal(base[i], table[kPad]));
}

void tst_Attribution::integratedGradientsEqualsHandWrittenRiemannSum()
{
    auto m = tinyModel();
    const int64_t steps = 8, target = 2;
    ExplainOptions o;
    o.ig_steps = steps;
    o.target_label_id = target;
    const TokenAttributions got = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);

    // The reference: one plain forward + backward per midpoint α_k = (k + ½)/m, summed here.
    const auto table = m->embeddings->word_embeddings->weight.detach();
    const auto x = table.index_select(0, textIds());
    const auto base = x.clone();
    for (int64_t i = 1; i < 6; ++i)
        base[i].copy_(table[kPad]);
    torch::Tensor mean = torch::zeros({7, 8}, torch::kDouble);
    for (int64_t k = 0; k < steps; ++k) {
        const double alpha = (double(k) + 0.5) / double(steps);
        mean += plainLogitAndGradient(m, base + float(alpha) * (x - base), target).second / double(steps);
    }
    const auto expected = ((x - base).to(torch::kDouble) * mean).sum(1);
    QCOMPARE(got.attributions.size(), size_t(7));
    QCOMPARE(got.target_label_id, target);
    for (int64_t i = 0; i < 7; ++i)
        QVERIFY2(std::abs(got.attributions[size_t(i)] - expected[i].item<double>()) < 1e-5,
                 qPrintable(QStringLiteral("token %1: %2 vs %3").arg(i).arg(got.attributions[size_t(i)]).arg(expected[i].item<double>())));
    QCOMPARE(got.attributions[0], 0.0); // [CLS] and [SEP] are the baseline's own
    QCOMPARE(got.attributions[6], 0.0);
    // The two ends of the completeness check are the plain forward's logits.
    QVERIFY(std::abs(got.completeness.logit_input - plainLogitAndGradient(m, x, target).first) < 1e-5);
    QVERIFY(std::abs(got.completeness.logit_baseline - plainLogitAndGradient(m, base, target).first) < 1e-5);
    QCOMPARE(got.completeness.attribution_sum, sum(got.attributions));
}

void tst_Attribution::batchingDoesNotChangeTheResult()
{
    auto m = tinyModel();
    ExplainOptions one, all;
    one.ig_steps = all.ig_steps = 12;
    one.interpolation_batch = 1;
    all.interpolation_batch = 5; // 5 + 5 + 2
    const auto a = computeTokenAttributions(*m, textIds(), textSegments(), one, kPad, kCls, kSep);
    const auto b = computeTokenAttributions(*m, textIds(), textSegments(), all, kPad, kCls, kSep);
    for (size_t i = 0; i < 7; ++i)
        QVERIFY(std::abs(a.attributions[i] - b.attributions[i]) < 1e-6);
}

void tst_Attribution::completenessHoldsForEnoughSteps()
{
    auto m = tinyModel();
    ExplainOptions o;
    o.ig_steps = 64;
    const auto r = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
    const Completeness &c = r.completeness;
    QVERIFY(c.applies);
    QCOMPARE(c.logit_difference, c.logit_input - c.logit_baseline);
    QCOMPARE(c.gap, std::abs(c.attribution_sum - c.logit_difference));
    QVERIFY2(std::abs(c.logit_difference) > 0.1, qPrintable(QString::number(c.logit_difference)));
    QVERIFY2(c.relative_gap < kCompletenessTolerance, qPrintable(QString::number(c.relative_gap)));
    QVERIFY(!c.steps_too_small);
    // More steps close the gap further (midpoint rule: error O(1/m²)).
    o.ig_steps = 256;
    const auto finer = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
    QVERIFY2(finer.completeness.gap < c.gap, qPrintable(QStringLiteral("%1 vs %2").arg(finer.completeness.gap).arg(c.gap)));
}

void tst_Attribution::fewStepsAreFlagged()
{
    auto m = tinyModel();
    ExplainOptions o;
    o.ig_steps = 1;
    const auto r = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
    QVERIFY2(r.completeness.relative_gap > kCompletenessTolerance, qPrintable(QString::number(r.completeness.relative_gap)));
    QVERIFY(r.completeness.steps_too_small);
    Explanation e;
    e.steps = 1;
    e.completeness = r.completeness;
    const std::string text = completenessText(e);
    QVERIFY2(text.find("m = 1 steps are too few; raise the steps (--ig_steps), e.g. to 64") != std::string::npos, text.c_str());
    QVERIFY2(text.find("(over 5 %)") != std::string::npos, text.c_str());
}

void tst_Attribution::gradientTimesInputIsGradientDotEmbedding()
{
    auto m = tinyModel();
    ExplainOptions o;
    o.method = AttributionMethod::GradientXInput;
    o.target_label_id = 1;
    const auto got = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
    const auto x = m->embeddings->word_embeddings->weight.detach().index_select(0, textIds());
    const auto [logit, grad] = plainLogitAndGradient(m, x, 1);
    const auto expected = (grad * x.to(torch::kDouble)).sum(1);
    for (int64_t i = 0; i < 7; ++i)
        QVERIFY2(std::abs(got.attributions[size_t(i)] - expected[i].item<double>()) < 1e-6,
                 qPrintable(QStringLiteral("token %1: %2 vs %3").arg(i).arg(got.attributions[size_t(i)]).arg(expected[i].item<double>())));
    QVERIFY(got.attributions[0] != 0.0); // [CLS] has an input too
    QVERIFY(!got.completeness.applies);
    QVERIFY(!got.completeness.steps_too_small);
    QVERIFY(std::abs(got.completeness.logit_input - logit) < 1e-5);
}

void tst_Attribution::defaultTargetIsThePredictedClass()
{
    auto m = tinyModel();
    ExplainOptions o;
    o.ig_steps = 2;
    const auto r = computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
    QCOMPARE(r.logits.size(), size_t(3));
    torch::NoGradGuard g;
    const auto logits = m->forward(textIds().unsqueeze(0), torch::ones({1, 7}, torch::kLong), textSegments().unsqueeze(0));
    QCOMPARE(r.target_label_id, logits.argmax(1).item<int64_t>());
    for (int64_t k = 0; k < 3; ++k)
        QVERIFY(std::abs(r.logits[size_t(k)] - logits[0][k].item<double>()) < 1e-6);
}

void tst_Attribution::errorsNameTheField()
{
    auto m = tinyModel();
    ExplainOptions o;
    o.ig_steps = 0;
    try {
        computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
        QFAIL("ig_steps 0 accepted");
    } catch (const Error &e) {
        QCOMPARE(e.field(), std::string("ig_steps"));
    }
    o.ig_steps = 4;
    o.target_label_id = 3;
    try {
        computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
        QFAIL("class 3 of 3 accepted");
    } catch (const Error &e) {
        QCOMPARE(e.field(), std::string("explain_class"));
    }
    o.target_label_id = -1;
    m->train(); // dropout would make every pass another function
    try {
        computeTokenAttributions(*m, textIds(), textSegments(), o, kPad, kCls, kSep);
        QFAIL("training mode accepted");
    } catch (const Error &e) {
        QCOMPARE(e.field(), std::string("model"));
    }
}

void tst_Attribution::completenessRule()
{
    Completeness c;
    c.applies = true;
    c.attribution_sum = 1.8;
    c.logit_input = 3.0;
    c.logit_baseline = 1.0;
    finishCompleteness(c);
    QCOMPARE(c.logit_difference, 2.0);
    QVERIFY(std::abs(c.gap - 0.2) < 1e-12);
    QVERIFY(std::abs(c.relative_gap - 0.1) < 1e-12);
    QVERIFY(c.steps_too_small);
    c.attribution_sum = 1.95; // 2.5 %
    finishCompleteness(c);
    QVERIFY(!c.steps_too_small);
    // A logit difference near 0: a tiny absolute gap is no reason to raise m.
    c.logit_input = 1.0002;
    c.attribution_sum = 0.0;
    finishCompleteness(c);
    QVERIFY(c.relative_gap > 0.9);
    QVERIFY(!c.steps_too_small);
    c.applies = false; // gradient × input: never flagged
    c.attribution_sum = 5;
    finishCompleteness(c);
    QVERIFY(!c.steps_too_small);
}

/// Defect: a confident prediction with all-zero attributions passed the completeness check.
/// When the baseline (no words) already predicts the target nearly as surely as the text,
/// the attributions explain little: the check says so, and the baseline's own score is shown.
void tst_Attribution::baselineThatDecidesIsSaid()
{
    Completeness c;
    c.applies = true;
    c.logit_input = 2.0;
    c.logit_baseline = 1.9995;
    c.attribution_sum = 0.0; // all zero, within the absolute floor of the gap
    finishCompleteness(c);
    QVERIFY(!c.steps_too_small);
    // Text: spam 0.982; baseline: spam 0.981 (logits for ham, spam).
    judgeBaseline(c, {-2.0, 2.0}, {-1.9995, 1.9995}, 1);
    QVERIFY(std::abs(c.probability_input - 1.0 / (1.0 + std::exp(-4.0))) < 1e-12);
    QVERIFY(std::abs(c.probability_baseline - 1.0 / (1.0 + std::exp(-3.999))) < 1e-12);
    QCOMPARE(c.baseline_label_id, int64_t(1));
    QVERIFY(c.baseline_decides);
    Explanation e;
    e.target_label = "spam";
    e.steps = 32;
    e.completeness = c;
    QCOMPARE(baselineScoreText(e), std::string("with no words (every wordpiece [PAD]) the model says spam 98.2 % (this "
                                               "text: 98.2 %)"));
    const std::string check = completenessText(e);
    QVERIFY2(check.find("but the attributions explain little: with no words (every wordpiece [PAD]) the model says "
                        "spam 98.2 %")
                 != std::string::npos,
             check.c_str());
    // The words moved it: the baseline says ham, or spam by far less.
    judgeBaseline(c, {-2.0, 2.0}, {1.0, -1.0}, 1);
    QCOMPARE(c.baseline_label_id, int64_t(0));
    QVERIFY(!c.baseline_decides);
    judgeBaseline(c, {-2.0, 2.0}, {-0.2, 0.2}, 1); // baseline 0.60, text 0.98
    QVERIFY(!c.baseline_decides);
    // Regression (one output): no probabilities, never said.
    Completeness r;
    judgeBaseline(r, {0.7}, {0.1}, 0);
    QVERIFY(std::isnan(r.probability_input));
    QVERIFY(!r.baseline_decides);
    e.completeness = r;
    QCOMPARE(baselineScoreText(e), std::string());
}

/// A text much shorter than the training texts gets a note in plain words, with the score of
/// an empty text; a text of ordinary length, or a model without a report, none.
void tst_Attribution::shortTextsAreExplained()
{
    Classification text, empty;
    text.tokenized.tokens = {"[CLS]", "hello", "[SEP]"};
    text.probabilities = {0.01, 0.99};
    empty.probabilities = {0.03, 0.97};
    empty.predicted_label_id = 1;
    empty.predicted_label = "spam";
    QCOMPARE(shortTextNote(text, empty, 183.4),
             std::string("This text has 1 wordpiece; the texts the model was trained on have 183 on average "
                         "(prepare_report.json). A model trained on long texts often answers short ones badly: with "
                         "no text at all it says spam 97.0 %."));
    QCOMPARE(shortTextNote(text, empty, std::nan("")), std::string());
    QCOMPARE(shortTextNote(text, empty, 12.0), std::string()); // the training texts are short too
    text.tokenized.tokens.assign(40, "word");
    QCOMPARE(shortTextNote(text, empty, 183.4), std::string()); // 40 ≥ a fifth of 183
}

void tst_Attribution::wordpiecesMergeIntoWords()
{
    const std::vector<std::string> tokens{"[CLS]", "free", "play", "##ing", "##s", "now", "[SEP]", "##x", "[SEP]"};
    const std::vector<double> a{0.0, 0.5, -0.25, 0.125, 1.0, -0.5, 0.0, 2.0, 0.0};
    const auto words = mergeWordpieces(tokens, a);
    QCOMPARE(words.size(), size_t(4));
    QCOMPARE(words[0].word, std::string("free"));
    QCOMPARE(words[1].word, std::string("playings"));
    QCOMPARE(words[1].attribution, 0.875);
    QCOMPARE(words[1].first_token, size_t(2));
    QCOMPARE(words[1].token_count, size_t(3));
    QCOMPARE(words[2].word, std::string("now"));
    QCOMPARE(words[3].word, std::string("x")); // a "##" piece after [SEP] starts a word
    QCOMPARE(words[3].attribution, 2.0);
    QVERIFY_THROWS_EXCEPTION(Error, mergeWordpieces(tokens, {1.0}));
}

void tst_Attribution::topWordsForAndAgainst()
{
    const std::vector<WordAttribution> words{{"a", 0.5, 1, 1}, {"b", -0.25, 2, 1}, {"c", 0.75, 3, 1},
                                             {"d", -1.0, 4, 1}, {"e", 0.5, 5, 1}, {"f", 0.0, 6, 1}};
    const auto pro = topWords(words, 2, true);
    QCOMPARE(pro.size(), size_t(2));
    QCOMPARE(pro[0].word, std::string("c"));
    QCOMPARE(pro[1].word, std::string("a")); // a tie keeps the text order
    const auto con = topWords(words, 5, false);
    QCOMPARE(con.size(), size_t(2));
    QCOMPARE(con[0].word, std::string("d"));
    QCOMPARE(con[1].word, std::string("b"));
}

void tst_Attribution::labelChoice()
{
    const std::vector<std::string> names{"ham", "spam"};
    QCOMPARE(resolveLabelChoice("spam", names, 2), int64_t(1));
    QCOMPARE(resolveLabelChoice("0", names, 2), int64_t(0));
    try {
        resolveLabelChoice("2", names, 2);
        QFAIL("index 2 of 2 accepted");
    } catch (const Error &e) {
        QCOMPARE(e.field(), std::string("explain_class"));
        QCOMPARE(e.hint(), std::string("pass one of: ham, spam (or its index from 0 to 1)"));
    }
    QVERIFY_THROWS_EXCEPTION(Error, resolveLabelChoice("Spam", names, 2));
    QCOMPARE(parseAttributionMethod("gradient_x_input"), std::optional(AttributionMethod::GradientXInput));
    QCOMPARE(parseAttributionMethod("ig"), std::optional<AttributionMethod>());
    QCOMPARE(attributionMethodName(AttributionMethod::IntegratedGradients), std::string("integrated_gradients"));
    // Points per pass: BERT-Tiny at 128 tokens all 32 at once; BERT-Base at 512 tokens 3.
    QCOMPARE(interpolationBatch(0, 128, 128, 2), int64_t(32));
    QCOMPARE(interpolationBatch(0, 512, 768, 12), int64_t(3)); // 2^24 / 4718592 = 3.56
    QCOMPARE(interpolationBatch(0, 4096, 4096, 48), int64_t(1));
    QCOMPARE(interpolationBatch(5, 512, 768, 12), int64_t(5));
}

/// Issue 45: a multi-label model's attributions explain one label's own logit (the log-odds of
/// its sigmoid, not a softmax over the labels): they add up to that label's logit difference
/// against the baseline, the probabilities are its sigmoid at its threshold, and another label
/// gets other attributions (each label's words raise its own probability).
void tst_Attribution::multiLabelExplainsOneLabelsLogOdds()
{
    QTemporaryDir dir;
    std::string error;
    const TrainingOptions o = wbtest::trainMultiLabelWordsRun(dir.path().toStdString() + "/run", error);
    QVERIFY2(error.empty(), error.c_str());
    const TextClassifier c(wbtest::multiLabelWordsSource(o));
    QVERIFY(c.isMultiLabel());
    const std::string text = "invoice w5 w7 urgent w12 payment asap";
    ExplainOptions options;
    options.ig_steps = 64;
    std::vector<Explanation> byLabel;
    for (int64_t label : {0, 1}) { // billing, urgent
        options.target_label_id = label;
        Classification cls;
        const Explanation e = c.explain(text, {}, options, &cls);
        QVERIFY(e.multi_label && e.completeness.multi_label);
        QCOMPARE(e.target_label_id, label);
        QCOMPARE(e.target_label, wbtest::multiLabelWordsLabels()[size_t(label)]);
        const Completeness &m = e.completeness;
        // Completeness on the label's own logit: Σ a = logit(x) − logit(x'), within the tolerance.
        QCOMPARE(m.logit_input, e.logits[size_t(label)]);
        QCOMPARE(m.logit_baseline, e.baseline_logits[size_t(label)]);
        QVERIFY2(std::abs(m.logit_difference) > 0.5, qPrintable(QString::number(m.logit_difference)));
        QVERIFY2(std::abs(sum(e.attributions) - m.logit_difference) <= kCompletenessTolerance * std::abs(m.logit_difference),
                 qPrintable(QStringLiteral("%1 vs %2").arg(sum(e.attributions)).arg(m.logit_difference)));
        QVERIFY(!m.steps_too_small);
        // The probabilities are the label's sigmoid, as classify() gives them (not a softmax).
        const double p = cls.probabilities[size_t(label)];
        QVERIFY2(std::abs(m.probability_input - 1.0 / (1.0 + std::exp(-m.logit_input))) < 1e-12, "σ(logit)");
        QVERIFY2(std::abs(m.probability_input - p) < 1e-5, qPrintable(QStringLiteral("%1 vs %2").arg(m.probability_input).arg(p)));
        QVERIFY2(std::abs(m.probability_baseline - 1.0 / (1.0 + std::exp(-m.logit_baseline))) < 1e-12, "σ(baseline logit)");
        QCOMPARE(m.threshold, c.thresholds()[size_t(label)]);
        QCOMPARE(m.baseline_label_id, int64_t(-1));
        QCOMPARE(e.target_is_predicted, p >= c.thresholds()[size_t(label)]);
        QCOMPARE(explainedQuantity(e), "P(" + e.target_label + ")");
        QVERIFY2(baselineScoreText(e).rfind("with no words (every wordpiece [PAD]) the model gives P(" + e.target_label + ") ", 0) == 0,
                 baselineScoreText(e).c_str());
        byLabel.push_back(e);
    }
    // Each label's words raise its own probability more than the other label's.
    const auto wordOf = [](const Explanation &e, const std::string &w) {
        for (const WordAttribution &a : e.words)
            if (a.word == w)
                return a.attribution;
        return std::nan("");
    };
    QVERIFY(byLabel[0].attributions != byLabel[1].attributions);
    QVERIFY2(wordOf(byLabel[0], "invoice") > wordOf(byLabel[1], "invoice"),
             qPrintable(QStringLiteral("%1 vs %2").arg(wordOf(byLabel[0], "invoice")).arg(wordOf(byLabel[1], "invoice"))));
    QVERIFY2(wordOf(byLabel[1], "urgent") > wordOf(byLabel[0], "urgent"),
             qPrintable(QStringLiteral("%1 vs %2").arg(wordOf(byLabel[1], "urgent")).arg(wordOf(byLabel[0], "urgent"))));
    QVERIFY2(wordOf(byLabel[0], "invoice") > 0, qPrintable(QString::number(wordOf(byLabel[0], "invoice"))));
    // The default target is the most probable label.
    options.target_label_id = -1;
    Classification cls;
    const Explanation top = c.explain(text, {}, options, &cls);
    const auto most = std::max_element(cls.probabilities.begin(), cls.probabilities.end()) - cls.probabilities.begin();
    QCOMPARE(top.target_label_id, int64_t(most));
}

QTEST_APPLESS_MAIN(tst_Attribution)
#include "tst_attribution.moc"
