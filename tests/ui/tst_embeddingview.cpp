// SPDX-License-Identifier: Apache-2.0
// The embedding view (issue 25): points by true label, mistakes marked, hover/click find the
// example, the step slider lists the saved evaluations of a model_dir.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/embeddingview.h"

#include "core/formats/evalexamples.h"

#include <qcustomplot.h>

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
};

QTEST_MAIN(tst_EmbeddingView)
#include "tst_embeddingview.moc"
