// SPDX-License-Identifier: Apache-2.0
// Issue 25, "Which words decided" in Try it: the chips' colours for a known attribution
// vector (rendered offscreen), the lists and the completeness line, the attributions of a
// trained tiny model equal TextClassifier::explain's, the class picker, a new checkpoint
// recomputes them, and a Top losses row opens its text explained.
// With WB_EXPLAIN_SCREENSHOT=<png> the trained-model test saves the panel (docs/images/).
#include "support/multilabelwordsrun.h"
#include "support/spamwordsrun.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/toplossesview.h"
#include "ui/tryit/attributionchips.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/mainwindow.h"

#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

constexpr int kWaitMs = 60000;

QList<QLabel *> chipsOf(const TryItPanel &p) { return p.findChildren<QLabel *>(QStringLiteral("tokenChip")); }

/// The colour drawn inside a chip's left padding (its background), from the rendered widget.
QColor renderedBackground(QLabel *chip)
{
    const QImage image = chip->grab().toImage();
    return image.pixelColor(2 * image.width() / chip->width(), image.height() / 2);
}

} // namespace

#define WAIT_SHOWN(p) \
    QTRY_VERIFY_WITH_TIMEOUT((p).generation() > 0 && (p).shownGeneration() == (p).generation() && !(p).isBusy(), kWaitMs)

class tst_TryItExplain : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void colourScale();
    void chipsShadedForKnownAttributions();
    void tooFewStepsAreSaid();
    void trainedModelExplained();
    void classPickedAndCheckpointRecomputes();
    void multiLabelPicksTheLabelExplained();
    void topLossesRowOpensTryIt();
    void exampleScreenshot();

private:
    QTemporaryDir m_dir;
    TrainingOptions m_opts;
    std::unique_ptr<TextClassifier> m_ref;
};

void tst_TryItExplain::initTestCase()
{
    QVERIFY(m_dir.isValid());
    std::string error;
    m_opts = wbtest::trainSpamWordsRun(m_dir.path().toStdString() + "/run", error);
    QVERIFY2(error.empty(), error.c_str());
    m_ref = std::make_unique<TextClassifier>(wbtest::spamWordsSource(m_opts));
}

void tst_TryItExplain::colourScale()
{
    QCOMPARE(attributionColour(0.0, 2.0), QColor(255, 255, 255));
    QCOMPARE(attributionColour(2.0, 2.0), QColor(0x21, 0x66, 0xac));   // full "for"
    QCOMPARE(attributionColour(-2.0, 2.0), QColor(0xb2, 0x18, 0x2b));  // full "against"
    QCOMPARE(attributionColour(1.0, 2.0), QColor(144, 179, 214));      // 255 + ½·(33−255) = 144, 178.5 → 179, 213.5 → 214
    QCOMPARE(attributionColour(-0.5, 2.0), QColor(236, 197, 202));     // 255 + ¼·(178−255) = 235.75 → 236, …
    QCOMPARE(attributionColour(5.0, 2.0), QColor(0x21, 0x66, 0xac));   // clamped
    QCOMPARE(attributionColour(1.0, 0.0), QColor(255, 255, 255));      // no scale: white
    QCOMPARE(attributionColour(std::nan(""), 1.0), QColor(255, 255, 255));
    QCOMPARE(attributionTextColour(2.0, 2.0), QColor(Qt::white));
    QCOMPARE(attributionTextColour(1.0, 2.0), QColor(0x10, 0x10, 0x10));
}

void tst_TryItExplain::chipsShadedForKnownAttributions()
{
    TryItPanel p;
    p.resize(900, 600);
    p.show();
    TokenizedText t;
    t.tokens = {"[CLS]", "free", "now", "##ish", "call", "[SEP]"};
    t.input_ids = {2, 51, 60, 1, 61, 3};
    t.segment_ids.assign(6, 0);
    t.unknown = {false, false, false, true, false, false};
    Explanation e;
    e.tokens = t.tokens;
    e.attributions = {0.0, 2.0, -1.0, 0.5, 0.25, 0.0};
    e.words = mergeWordpieces(e.tokens, e.attributions);
    e.target_label = "spam";
    e.target_label_id = 1;
    e.steps = 32;
    e.completeness.applies = true;
    e.completeness.attribution_sum = 1.75;
    e.completeness.logit_input = 2.0;
    e.completeness.logit_baseline = 0.25;
    finishCompleteness(e.completeness);
    p.showExplanation(t, e);
    const auto chips = chipsOf(p);
    QCOMPARE(chips.size(), 6);
    const std::vector<QColor> expected{QColor(255, 255, 255), QColor(0x21, 0x66, 0xac), QColor(217, 140, 149),
                                       QColor(200, 217, 234), QColor(227, 236, 245), QColor(255, 255, 255)};
    // −1 of max 2: 255 + ½·(178−255) = 216.5 → 217, 139.5 → 140, 149; 0.5: ¼ of the way to blue; 0.25: ⅛.
    QCOMPARE(attributionColour(-1.0, 2.0), expected[2]);
    QCOMPARE(attributionColour(0.5, 2.0), expected[3]);
    QCOMPARE(attributionColour(0.25, 2.0), expected[4]);
    for (int k = 0; k < 6; ++k) {
        QCOMPARE(chips[k]->property("attribution").toDouble(), e.attributions[size_t(k)]);
        QVERIFY2(chips[k]->styleSheet().contains(QStringLiteral("background:%1").arg(expected[size_t(k)].name())),
                 qPrintable(chips[k]->styleSheet()));
        QCOMPARE(renderedBackground(chips[k]), expected[size_t(k)]);
    }
    QVERIFY(chips[3]->styleSheet().contains(QStringLiteral("#d04a20"))); // [UNK] keeps its red border
    QVERIFY(chips[1]->styleSheet().contains(QStringLiteral("color:#ffffff"))); // white text on the darkest chip
    const auto *legend = p.findChild<AttributionLegend *>();
    QVERIFY(legend && legend->isVisible());
    QCOMPARE(legend->maxAbs(), 2.0);
    const QString lines = p.explanationText();
    QVERIFY2(lines.contains(QStringLiteral("For “spam” (the predicted class): free (+2), call (+0.25)")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("Against it: nowish (-0.5)")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("Completeness: Σ attributions 1.75, logit difference 1.75")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("(within 5 %)")), qPrintable(lines));
}

void tst_TryItExplain::tooFewStepsAreSaid()
{
    TryItPanel p;
    TokenizedText t;
    t.tokens = {"[CLS]", "free", "[SEP]"};
    t.input_ids = {2, 51, 3};
    t.segment_ids.assign(3, 0);
    t.unknown.assign(3, false);
    Explanation e;
    e.tokens = t.tokens;
    e.attributions = {0.0, 1.0, 0.0};
    e.words = mergeWordpieces(e.tokens, e.attributions);
    e.target_label = "ham";
    e.target_is_predicted = false;
    e.steps = 2;
    e.completeness.applies = true;
    e.completeness.attribution_sum = 1.0;
    e.completeness.logit_input = 1.5;
    finishCompleteness(e.completeness);
    p.showExplanation(t, e);
    const QString lines = p.explanationText();
    QVERIFY2(lines.contains(QStringLiteral("For “ham”: free (+1)")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("Against it: none")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("m is too small: Σ attributions 1, logit difference 1.5")), qPrintable(lines));
    QVERIFY2(lines.contains(QStringLiteral("= 33.3 % (over 5 %): m = 2 steps are too few; raise the steps (\u201cWhich words decided \u2192 m\u201d), e.g. to 64")),
             qPrintable(lines));
}

void tst_TryItExplain::trainedModelExplained()
{
    TryItPanel p;
    p.resize(1000, 720);
    p.setFormSource(wbtest::spamWordsSource(m_opts));
    p.show();
    p.setExplainEnabled(true);
    const QString text = QStringLiteral("Congratulations, you won a free prize: call now to claim your cash, see you at lunch");
    p.setTexts(text);
    WAIT_SHOWN(p);
    QVERIFY(p.shownExplanation().has_value());
    const Explanation &shown = *p.shownExplanation();
    const Explanation ref = m_ref->explain(text.toStdString(), {}, ExplainOptions{});
    QCOMPARE(shown.tokens, ref.tokens);
    QCOMPARE(shown.target_label, std::string("spam"));
    QCOMPARE(shown.steps, int64_t(32));
    const auto chips = chipsOf(p);
    QCOMPARE(size_t(chips.size()), ref.tokens.size());
    double maxAbs = 0;
    for (double a : ref.attributions)
        maxAbs = std::max(maxAbs, std::abs(a));
    for (size_t k = 0; k < ref.attributions.size(); ++k) {
        QVERIFY(std::abs(shown.attributions[k] - ref.attributions[k]) < 1e-6);
        QCOMPARE(chips[int(k)]->property("attribution").toDouble(), shown.attributions[k]);
        QCOMPARE(renderedBackground(chips[int(k)]), attributionColour(shown.attributions[k], maxAbs));
    }
    QVERIFY(!shown.completeness.steps_too_small);
    QVERIFY2(p.explanationText().contains(QStringLiteral("(within 5 %)")), qPrintable(p.explanationText()));
    const QString png = qEnvironmentVariable("WB_EXPLAIN_SCREENSHOT");
    if (!png.isEmpty()) {
        QTest::qWait(200); // the new chips and bars are shown by queued events
        QVERIFY(p.grab().save(png));
    }
}

void tst_TryItExplain::classPickedAndCheckpointRecomputes()
{
    TryItPanel p;
    p.setFormSource(wbtest::spamWordsSource(m_opts));
    p.show();
    p.setExplainEnabled(true);
    p.setTexts(QStringLiteral("free cash, see you at lunch"));
    WAIT_SHOWN(p);
    auto *box = p.findChild<QComboBox *>(QStringLiteral("tryItExplainClass"));
    QCOMPARE(box->count(), 3); // the predicted class, ham, spam
    QCOMPARE(box->itemText(1), QStringLiteral("ham"));
    p.setExplainOptions(AttributionMethod::IntegratedGradients, 16, 0);
    QTRY_VERIFY_WITH_TIMEOUT(p.shownExplanation() && p.shownExplanation()->target_label == "ham"
                                 && p.shownExplanation()->steps == 16 && !p.isBusy(),
                             kWaitMs);
    QCOMPARE(box->currentText(), QStringLiteral("ham"));
    ExplainOptions o;
    o.ig_steps = 16;
    o.target_label_id = 0;
    const Explanation ref = m_ref->explain("free cash, see you at lunch", {}, o);
    for (size_t k = 0; k < ref.attributions.size(); ++k)
        QVERIFY(std::abs(p.shownExplanation()->attributions[k] - ref.attributions[k]) < 1e-6);
    // A new checkpoint of the form's run: the explanation is computed again.
    const uint64_t before = p.generation();
    p.checkpointSaved(QString::fromStdString(m_opts.model_dir));
    QVERIFY(p.generation() > before);
    WAIT_SHOWN(p);
    QVERIFY(p.shownExplanation().has_value());
    QCOMPARE(p.shownExplanation()->target_label, std::string("ham"));
    // Off: plain chips again.
    p.setExplainEnabled(false);
    QVERIFY(!p.shownExplanation().has_value());
}

/// Issue 45: a multi-label model's class box lists every label (the predicted set first, marked),
/// the lines say which label's probability the words raised, and picking another label
/// shades the chips by that label's attributions.
void tst_TryItExplain::multiLabelPicksTheLabelExplained()
{
    QTemporaryDir dir;
    std::string error;
    const TrainingOptions o = wbtest::trainMultiLabelWordsRun(dir.path().toStdString() + "/run", error);
    QVERIFY2(error.empty(), error.c_str());
    const TextClassifier ref(wbtest::multiLabelWordsSource(o));
    const QString text = QStringLiteral("invoice w5 urgent asap w7 payment");
    const Classification c = ref.classify(text.toStdString());
    TryItPanel p;
    p.setFormSource(wbtest::multiLabelWordsSource(o));
    p.show();
    p.setExplainEnabled(true);
    p.setTexts(text);
    WAIT_SHOWN(p);
    auto *box = p.findChild<QComboBox *>(QStringLiteral("tryItExplainClass"));
    QCOMPARE(box->count(), 4);
    QCOMPARE(box->itemText(0), QStringLiteral("the most probable label"));
    QStringList expected; // the predicted set first, marked, then the others, each in id order
    for (const bool first : {true, false})
        for (int64_t k = 0; k < 3; ++k)
            if ((std::find(c.predicted_label_ids.begin(), c.predicted_label_ids.end(), k) != c.predicted_label_ids.end()) == first)
                expected << (first ? QStringLiteral("%1 (predicted)") : QStringLiteral("%1"))
                                .arg(QString::fromStdString(wbtest::multiLabelWordsLabels()[size_t(k)]));
    QStringList shown;
    for (int k = 1; k < box->count(); ++k)
        shown << box->itemText(k);
    QCOMPARE(shown, expected);
    for (const char *name : {"billing", "urgent", "refund"})
        QVERIFY2(shown.join(QLatin1Char(' ')).contains(QLatin1String(name)), name);
    // The default: the most probable label, named in the heading.
    const int64_t top = std::max_element(c.probabilities.begin(), c.probabilities.end()) - c.probabilities.begin();
    const QString topName = QString::fromStdString(ref.labelName(top));
    QVERIFY(p.shownExplanation() && p.shownExplanation()->multi_label);
    QCOMPARE(p.shownExplanation()->target_label_id, top);
    QVERIFY2(p.explanationText().startsWith(QStringLiteral("Words that raised P(%1)").arg(topName)), qPrintable(p.explanationText()));
    QVERIFY2(p.explanationText().contains(QStringLiteral("Words that lowered it: ")), qPrintable(p.explanationText()));
    QVERIFY2(p.explanationText().contains(QStringLiteral("the model gives P(%1) ").arg(topName)), qPrintable(p.explanationText()));
    std::vector<double> before;
    for (QLabel *chip : chipsOf(p))
        before.push_back(chip->property("attribution").toDouble());
    // Another label, as the user picks it: its heading, its attributions on the chips.
    const int64_t other = (top + 1) % 3;
    const QString otherName = QString::fromStdString(ref.labelName(other));
    const int index = box->findData(qlonglong(other));
    QVERIFY(index > 0);
    box->setCurrentIndex(index);
    Q_EMIT box->activated(index);
    QTRY_VERIFY_WITH_TIMEOUT(p.shownExplanation() && p.shownExplanation()->target_label_id == other && !p.isBusy(), kWaitMs);
    QVERIFY2(p.explanationText().startsWith(QStringLiteral("Words that raised P(%1)").arg(otherName)), qPrintable(p.explanationText()));
    std::vector<double> after;
    for (QLabel *chip : chipsOf(p))
        after.push_back(chip->property("attribution").toDouble());
    QCOMPARE(after.size(), before.size());
    QVERIFY(after != before);
    ExplainOptions eo;
    eo.target_label_id = other;
    const Explanation e = ref.explain(text.toStdString(), {}, eo);
    for (size_t k = 0; k < e.attributions.size(); ++k)
        QVERIFY(std::abs(after[k] - e.attributions[k]) < 1e-6);
    QCOMPARE(chipsOf(p)[1]->toolTip().contains(QStringLiteral("to the log-odds of P(%1)").arg(otherName)), true);
}

void tst_TryItExplain::topLossesRowOpensTryIt()
{
    TopLossesView v;
    EvalExample e;
    e.index = 3;
    e.step = 96;
    e.true_label_id = 0;
    e.predicted_label_id = 1;
    e.true_label = "ham";
    e.predicted_label = "spam";
    e.probabilities = {0.1, 0.9};
    e.loss = -std::log(0.1);
    e.text = "free lunch tomorrow";
    v.setExamples({e});
    QSignalSpy spy(&v, &TopLossesView::explainRequested);
    v.explainRow(0);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("free lunch tomorrow"));
    QCOMPARE(spy.at(0).at(2).toLongLong(), 1LL); // the class it predicted
    v.explainRow(5); // no such row: nothing
    QCOMPARE(spy.count(), 1);

    // In the window: the row opens Try it with the explanation for that class.
    MainWindow w;
    w.resize(1400, 880);
    w.setOptions(m_opts);
    w.show();
    auto *eval = w.findChild<EvaluationView *>();
    eval->topLosses()->setExamples({e});
    eval->topLosses()->explainRow(0);
    auto *tabs = w.findChild<QTabWidget *>();
    TryItPanel *p = w.findChild<TryItPanel *>();
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(p));
    QVERIFY(p->explainEnabled());
    QCOMPARE(p->textEdit()->toPlainText(), QStringLiteral("free lunch tomorrow"));
    QCOMPARE(p->explainOptions().target_label_id, int64_t(1));
    WAIT_SHOWN(*p);
    QVERIFY(p->shownExplanation().has_value());
    QCOMPARE(p->shownExplanation()->target_label, std::string("spam"));
}

/// With WB_EXPLAIN_EXAMPLE_DIR=<model_dir of a spam example run> and WB_EXPLAIN_SCREENSHOT_EXAMPLE=<png>:
/// the docs' screenshot of a real mail explained (docs/tutorial.md, "Which words decided").
void tst_TryItExplain::exampleScreenshot()
{
    const QString dir = qEnvironmentVariable("WB_EXPLAIN_EXAMPLE_DIR");
    const QString png = qEnvironmentVariable("WB_EXPLAIN_SCREENSHOT_EXAMPLE");
    if (dir.isEmpty() || png.isEmpty())
        QSKIP("set WB_EXPLAIN_EXAMPLE_DIR and WB_EXPLAIN_SCREENSHOT_EXAMPLE to take the docs' screenshot");
    QFile mail(qEnvironmentVariable("WB_EXPLAIN_EXAMPLE_TEXT"));
    QVERIFY(mail.open(QIODevice::ReadOnly));
    TryItPanel p;
    p.resize(1100, 860);
    ClassifierSource s;
    s.model_dir = dir.toStdString();
    p.setFormSource(s);
    p.show();
    p.setExplainEnabled(true);
    p.setTexts(QString::fromUtf8(mail.readAll()));
    WAIT_SHOWN(p);
    QVERIFY2(p.shownExplanation().has_value(), qPrintable(p.messageText() + p.explanationText()));
    QTest::qWait(200);
    QVERIFY(p.grab().save(png));
}

QTEST_MAIN(tst_TryItExplain)
#include "tst_tryitexplain.moc"
