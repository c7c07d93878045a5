// SPDX-License-Identifier: Apache-2.0
// The embedding view (issue 25): points by true label, mistakes marked, hover/click find the
// example, the step slider lists the saved evaluations of a model_dir; a multi-label run (issue
// 45) coloured by a chosen label.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/embeddingview.h"

#include "core/formats/evalexamples.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

namespace {

EmbeddingSnapshot snapshot(int64_t step)
{
    EmbeddingSnapshot s;
    s.step = step;
    s.hidden = 2;
    s.pooled = {2, 0, -2, 0, 0, 1, 0, -1};
    s.example_index = {0, 1, 2, 3};
    s.label_ids = {1, 0, 1, 0};
    s.predictions = {1, 0, 0, 0};
    return s;
}

/// A multi-label example (issue 45's eval_examples.jsonl lines): labels billing, urgent, refund.
EvalExample multiLabelExample(int64_t index, std::vector<int64_t> truth, std::vector<int64_t> predicted, const char *text)
{
    static const std::vector<std::string> names{"billing", "urgent", "refund"};
    EvalExample e;
    e.index = index;
    e.step = 40;
    e.multi_label = true;
    e.true_label_id = e.predicted_label_id = -1;
    for (int64_t id : truth)
        e.true_labels.push_back(names[size_t(id)]);
    for (int64_t id : predicted)
        e.predicted_labels.push_back(names[size_t(id)]);
    e.true_label_ids = std::move(truth);
    e.predicted_label_ids = std::move(predicted);
    e.probabilities = {0.5, 0.5, 0.5};
    e.label_losses = {0.693, 0.693, 0.693};
    e.loss = 0.693;
    e.text = text;
    return e;
}

} // namespace

class tst_EmbeddingView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pointsByLabelWithMistakes()
    {
        EmbeddingView v;
        v.resize(600, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        const EmbeddingSnapshot s = snapshot(40);
        const Projection2D p = pcaProject2D(s.pooled, s.size(), s.hidden);
        v.showPoints(s, p, {QStringLiteral("win money"), QStringLiteral("hello bob"), QStringLiteral("free cruise"),
                            QStringLiteral("lunch?")},
                     {QStringLiteral("ham"), QStringLiteral("spam")});
        QCPGraph *ham = v.labelGraph(0), *spam = v.labelGraph(1);
        QVERIFY(ham && spam);
        QCOMPARE(ham->name(), QStringLiteral("ham"));
        QCOMPARE(spam->name(), QStringLiteral("spam"));
        QCOMPARE(ham->data()->size(), 2);
        QCOMPARE(spam->data()->size(), 2);
        QCOMPARE(v.mistakeGraph()->data()->size(), 1);
        QVERIFY(std::abs(v.mistakeGraph()->data()->at(0)->key - 0) < 1e-9);
        QVERIFY(std::abs(v.mistakeGraph()->data()->at(0)->value - 1) < 1e-9);
        QVERIFY2(ham->pen().color() != spam->pen().color(), qPrintable(ham->pen().color().name() + spam->pen().color().name()));
        QVERIFY2(v.summaryText().startsWith(QStringLiteral("Step 40: 4 eval examples, 1 mistakes (ringed)")),
                 qPrintable(v.summaryText()));
        // The point of "free cruise" (0, 1) is found at its pixel; a click sends its text to Try it.
        QCustomPlot *cp = v.customPlot();
        const QPointF at(cp->xAxis->coordToPixel(p.points[2][0]), cp->yAxis->coordToPixel(p.points[2][1]));
        QCOMPARE(v.rowAt(at), 2);
        QCOMPARE(v.rowAt(at + QPointF(40, 40)), -1);
        QSignalSpy chosen(&v, &EmbeddingView::exampleChosen);
        QTest::mouseClick(cp, Qt::LeftButton, Qt::NoModifier, at.toPoint());
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.first().first().toString(), QStringLiteral("free cruise"));
    }

    void sliderReplaysSavedSteps()
    {
        QTemporaryDir dir;
        const std::string modelDir = dir.path().toStdString();
        for (const int64_t step : {10, 20, 30}) {
            EmbeddingSnapshot s = snapshot(step);
            s.predictions = {1, 0, 1, step == 30 ? 0 : 1}; // 1 mistake at 10 and 20, 0 at 30
            writeEmbeddings(embeddingsPath(modelDir, step), s);
        }
        EmbeddingView v;
        v.setModelDir(dir.path());
        QCOMPARE(v.stepSlider()->maximum(), 2);
        QCOMPARE(v.stepSlider()->value(), 2);
        QTRY_VERIFY(v.summaryText().startsWith(QStringLiteral("Step 30: 4 eval examples, 0 mistakes")));
        v.stepSlider()->setValue(0);
        QTRY_VERIFY2(v.summaryText().startsWith(QStringLiteral("Step 10: 4 eval examples, 1 mistakes")),
                     qPrintable(v.summaryText()));
        QCOMPARE(v.labelGraph(0)->name(), QStringLiteral("label 0")); // no eval_examples.jsonl: no names
        v.setModelDir(QString()); // another project: cleared
        QVERIFY(!v.labelGraph(0));
        QCOMPARE(v.mistakeGraph()->data()->size(), 0);
    }

    /// A run with save_embeddings off: the empty view says why, and how to turn it on; a run
    /// that saves them but has not evaluated yet says "yet".
    void emptyViewSaysWhy()
    {
        QTemporaryDir dir;
        EmbeddingView v;
        v.setModelDir(dir.path(), false);
        QCOMPARE(v.summaryText(),
                 QStringLiteral("No embeddings: this run does not save them (Save embeddings is off), so that a "
                                "big eval set does not fill the model directory. "
                                "Turn it on under Hyperparameters to see the eval examples here at each evaluation."));
        QVERIFY(!v.stepSlider()->isEnabled());
        v.setModelDir(dir.path(), true);
        QCOMPARE(v.summaryText(),
                 QStringLiteral("No embeddings yet: each evaluation saves the eval examples' pooled [CLS] vectors."));
    }

    /// Issue 45: a multi-label run's points coloured by the chosen label (has / does not have
    /// it), its mistakes ringed, the label sets on hover; another label recolours them.
    void multiLabelRunColouredByAChosenLabel()
    {
        QTemporaryDir dir;
        const std::string modelDir = dir.path().toStdString();
        writeEvalExamples(evalExamplesPath(modelDir),
                          {multiLabelExample(0, {0, 1}, {0}, "invoice overdue, pay asap"), // urgent missed
                           multiLabelExample(1, {1}, {1}, "outage now"),
                           multiLabelExample(2, {}, {}, "thanks, all good"),
                           multiLabelExample(3, {2}, {1, 2}, "refund please"),              // urgent wrongly
                           multiLabelExample(4, {0}, {0}, "invoice attached"),
                           multiLabelExample(5, {1, 2}, {1, 2}, "refund today or else")});
        QVERIFY(readEvalExamples(evalExamplesPath(modelDir)).at(0).multi_label);
        EmbeddingSnapshot s;
        s.step = 40;
        s.hidden = 2;
        s.pooled = {2, 0, -2, 0, 0, 1, 0, -1, 1, 1, -1, -1};
        s.example_index = {0, 1, 2, 3, 4, 5};
        s.label_ids.assign(6, -1); // multi-label embeddings carry no single label
        s.predictions.assign(6, -1);
        writeEmbeddings(embeddingsPath(modelDir, 40), s);
        EmbeddingView v;
        v.resize(600, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setModelDir(dir.path());
        QTRY_VERIFY2(v.isMultiLabel(), qPrintable(v.summaryText()));
        QComboBox *box = v.labelChooser();
        QVERIFY(box->isVisible());
        QCOMPARE(box->count(), 3);
        QCOMPARE(box->itemText(0), QStringLiteral("Colour by: billing"));
        QCOMPARE(box->itemText(1), QStringLiteral("Colour by: urgent"));
        QCOMPARE(box->itemText(2), QStringLiteral("Colour by: refund"));
        // Label 0 first: billing is on rows 0 and 4, predicted right everywhere.
        QCOMPARE(v.colourLabel(), int64_t(0));
        QCOMPARE(v.labelGraph(1)->name(), QStringLiteral("has billing"));
        QCOMPARE(v.labelGraph(0)->name(), QStringLiteral("does not have billing"));
        QCOMPARE(v.labelGraph(1)->data()->size(), 2);
        QCOMPARE(v.labelGraph(0)->data()->size(), 4);
        QCOMPARE(v.mistakeGraph()->data()->size(), 0);
        QVERIFY2(v.summaryText().startsWith(QStringLiteral("Step 40: 6 eval examples coloured by billing: 2 have it, 0 "
                                                           "mistakes for it (ringed: predicted at 0.5 otherwise)")),
                 qPrintable(v.summaryText()));
        // The user picks urgent: rows 0, 1, 5 have it; 0 (missed) and 3 (predicted without it) are ringed.
        box->setCurrentIndex(1);
        Q_EMIT box->activated(1);
        QCOMPARE(v.colourLabel(), int64_t(1));
        QCOMPARE(v.labelGraph(1)->name(), QStringLiteral("has urgent"));
        QCOMPARE(v.labelGraph(0)->name(), QStringLiteral("does not have urgent"));
        QCOMPARE(v.labelGraph(1)->data()->size(), 3);
        QCOMPARE(v.labelGraph(0)->data()->size(), 3);
        QCOMPARE(v.mistakeGraph()->data()->size(), 2);
        QVERIFY(v.labelGraph(1)->pen().color() != v.labelGraph(0)->pen().color());
        QVERIFY2(v.summaryText().startsWith(QStringLiteral("Step 40: 6 eval examples coloured by urgent: 3 have it, 2 "
                                                           "mistakes for it")),
                 qPrintable(v.summaryText()));
        QCOMPARE(v.hoverText(0), QStringLiteral("true {billing, urgent}, predicted {billing}: a mistake for urgent\n"
                                                "invoice overdue, pay asap"));
        QCOMPARE(v.hoverText(2), QStringLiteral("true {}, predicted {}: right for urgent\nthanks, all good"));
        QCOMPARE(v.hoverText(3), QStringLiteral("true {refund}, predicted {urgent, refund}: a mistake for urgent\n"
                                                "refund please"));
        // The point of row 5 is found at its pixel, and its hover names the sets.
        QCustomPlot *cp = v.customPlot();
        const Projection2D p = pcaProject2D(s.pooled, s.size(), s.hidden);
        const QPointF at(cp->xAxis->coordToPixel(p.points[5][0]), cp->yAxis->coordToPixel(p.points[5][1]));
        QCOMPARE(v.rowAt(at), 5);
        QCOMPARE(v.hoverText(v.rowAt(at)), QStringLiteral("true {urgent, refund}, predicted {urgent, refund}: right for "
                                                          "urgent\nrefund today or else"));
        // A single-label run afterwards: the label box goes.
        const EmbeddingSnapshot single = snapshot(10);
        v.showPoints(single, pcaProject2D(single.pooled, single.size(), single.hidden), {}, {});
        QVERIFY(!v.isMultiLabel());
        QVERIFY(!box->isVisible());
    }
};

QTEST_MAIN(tst_EmbeddingView)
#include "tst_embeddingview.moc"
