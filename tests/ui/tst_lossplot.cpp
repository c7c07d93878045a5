// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/plot/lossplot.h"

#include <QDoubleSpinBox>
#include <QFile>
#include <qcustomplot.h>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace wb;

namespace {

StepMetrics step(int64_t s, double loss, double wall)
{
    StepMetrics m;
    m.step = s;
    m.total_steps = 1000;
    m.loss = loss;
    m.learning_rate = 1e-4 * double(s) / 1000.0;
    m.wall_time = wall;
    return m;
}

} // namespace

class tst_LossPlot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void receivesEveryPoint();
    void replotsAreCoalesced();
    void csvContainsEveryPoint();
    void smoothingSliderRecomputes();
    void smoothingBoxTakesTypedValue();
    void logScaleClampsNonPositive();
    void xAxisModesKeepPointCount();
    void comparisonOverlay();
    void longerOverlayWidensTheView();
    void overlayDrawsEvalAccuracyWithLegend();
    void bagOfWordsBaselineIsASecondDashedLine();
    void exportsImages();
    void nextSentenceAccuracyIsACurveOfItsOwn();
};

/// Pretraining with next-sentence pairs: eval_nsp_accuracy is its own curve on the accuracy
/// axis, with a legend entry only once such a point came (and none after clear()).
void tst_LossPlot::nextSentenceAccuracyIsACurveOfItsOwn()
{
    LossPlot plot;
    plot.setPretraining(true);
    EvalMetrics e;
    e.step = 10;
    e.eval_loss = 6.0;
    e.eval_accuracy = 0.05;
    plot.addEvaluation(e); // no next-sentence head
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalNextSentenceAccuracy), 0);
    auto inLegend = [&plot] {
        return plot.customPlot()->legend->hasItemWithPlottable(plot.customPlot()->graph(4));
    };
    QCOMPARE(plot.customPlot()->graph(4)->name(), QStringLiteral("eval next-sentence accuracy"));
    QVERIFY(!inLegend());
    e.next_sentence = true;
    for (int k = 1; k <= 3; ++k) {
        e.step = 10 * k;
        e.eval_nsp_accuracy = 0.5 + 0.1 * k;
        plot.addEvaluation(e);
    }
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalNextSentenceAccuracy), 3);
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalAccuracy), 4);
    QCOMPARE(plot.customPlot()->graph(4)->data()->at(2)->value, 0.8);
    QCOMPARE(plot.seriesName(LossPlot::Series::EvalNextSentenceAccuracy), QStringLiteral("eval next-sentence accuracy"));
    QVERIFY(inLegend());
    plot.clear();
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalNextSentenceAccuracy), 0);
    QVERIFY(!inLegend());
}

void tst_LossPlot::receivesEveryPoint()
{
    LossPlot plot;
    for (int i = 1; i <= 500; ++i)
        plot.addStep(step(i, 2.0 / i, 1000.0 + i));
    EvalMetrics e;
    e.step = 250;
    e.eval_loss = 0.5;
    e.eval_accuracy = 0.8;
    plot.addEvaluation(e);
    e.step = 500;
    e.regression = true; // regression: no accuracy point
    plot.addEvaluation(e);
    QCOMPARE(plot.pointCount(LossPlot::Series::TrainLoss), 500);
    QCOMPARE(plot.pointCount(LossPlot::Series::SmoothedTrainLoss), 500);
    QCOMPARE(plot.pointCount(LossPlot::Series::LearningRate), 500);
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalLoss), 2);
    QCOMPARE(plot.pointCount(LossPlot::Series::EvalAccuracy), 1);
    plot.setPlannedSchedule({0, 100, 1000}, {0, 1e-4, 0});
    QCOMPARE(plot.pointCount(LossPlot::Series::PlannedLearningRate), 3);
    plot.clear();
    QCOMPARE(plot.pointCount(LossPlot::Series::TrainLoss), 0);
    QCOMPARE(plot.pointCount(LossPlot::Series::PlannedLearningRate), 3); // schedule is kept
}

void tst_LossPlot::replotsAreCoalesced()
{
    LossPlot plot;
    plot.resize(800, 500);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QTRY_VERIFY(!plot.isReplotPending());
    const int before = plot.replotCount();
    for (int i = 1; i <= 2000; ++i)
        plot.addStep(step(i, 1.0, 1000.0 + i));
    QVERIFY(plot.isReplotPending());
    QTRY_VERIFY(!plot.isReplotPending());
    QTRY_VERIFY(plot.replotCount() > before);
    QVERIFY2(plot.replotCount() - before <= 2, qPrintable(QString::number(plot.replotCount() - before)));
}

void tst_LossPlot::csvContainsEveryPoint()
{
    LossPlot plot;
    const int n = 12345;
    for (int i = 1; i <= n; ++i)
        plot.addStep(step(i, i == 7 ? std::numeric_limits<double>::quiet_NaN() : 1.0 + 1.0 / i, 1700000000.25 + i));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("loss.csv"));
    QString error;
    QVERIFY2(plot.exportCsv(path, LossPlot::Series::TrainLoss, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), n + 1);
    QCOMPARE(lines[0], QByteArray("wall_time,step,value"));
    QCOMPARE(lines[1], QByteArray("1700000001.250000,1,2"));
    QCOMPARE(lines[7].split(',').at(2).toLower(), QByteArray("nan"));
    QCOMPARE(lines[n].split(',').at(1), QByteArray::number(n));
    QCOMPARE(lines[n].split(',').at(2).toDouble(), 1.0 + 1.0 / n);

    f.close();
    QVERIFY(plot.exportCsv(path, LossPlot::Series::LearningRate, &error));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().trimmed().split('\n').size(), n + 1);
    QVERIFY(!plot.exportCsv(dir.filePath(QStringLiteral("missing/dir/x.csv")), LossPlot::Series::TrainLoss, &error));
    QVERIFY(error.contains(QStringLiteral("missing/dir")));
}

void tst_LossPlot::smoothingSliderRecomputes()
{
    LossPlot plot;
    QSignalSpy spy(&plot, &LossPlot::smoothingChanged);
    plot.addStep(step(1, 1, 1));
    plot.addStep(step(2, 0, 2));
    plot.addStep(step(3, 1, 3));
    plot.setSmoothing(0.5);
    QCOMPARE(spy.count(), 1);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("s.csv"));
    QVERIFY(plot.exportCsv(path, LossPlot::Series::SmoothedTrainLoss));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY(std::abs(lines[2].split(',').at(2).toDouble() - 1.0 / 3.0) < 1e-9);
    QVERIFY(std::abs(lines[3].split(',').at(2).toDouble() - 5.0 / 7.0) < 1e-9);
    plot.setSmoothing(5); // clamped
    QCOMPARE(plot.smoothing(), 0.999);

    // The drawn curve is re-smoothed in place: its values, not only the export, follow the weight.
    QCPGraph *drawn = nullptr;
    for (int i = 0; i < plot.customPlot()->graphCount(); ++i)
        if (plot.customPlot()->graph(i)->name() == QStringLiteral("train loss (smoothed)"))
            drawn = plot.customPlot()->graph(i);
    QVERIFY(drawn);
    plot.setSmoothing(0.5);
    QCOMPARE(drawn->data()->size(), 3);
    QCOMPARE(drawn->data()->at(0)->value, 1.0);
    QVERIFY(std::abs(drawn->data()->at(1)->value - 1.0 / 3.0) < 1e-12);
    QVERIFY(std::abs(drawn->data()->at(2)->value - 5.0 / 7.0) < 1e-12);
    // The live smoother continues from the re-smoothed state: {1, 0, 1, 1} at 0.5 → 13/15.
    plot.addStep(step(4, 1, 4));
    QVERIFY(std::abs(drawn->data()->at(3)->value - 13.0 / 15.0) < 1e-12);
}

void tst_LossPlot::smoothingBoxTakesTypedValue()
{
    // Typing "0.95" used to apply 0 on the first keystroke and end at 0.000 (or 0.900).
    const QStringList typed{QStringLiteral("0.95"), QStringLiteral("0.75"), QStringLiteral(".5")};
    const QList<double> expected{0.95, 0.75, 0.5};
    for (int i = 0; i < typed.size(); ++i) {
        LossPlot plot;
        plot.addStep(step(1, 1, 1));
        plot.addStep(step(2, 0, 2));
        auto *box = plot.findChild<QDoubleSpinBox *>();
        QVERIFY(box);
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, typed[i]);
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(plot.smoothing(), expected[i]);
        QCOMPARE(box->value(), expected[i]);
    }
}

void tst_LossPlot::logScaleClampsNonPositive()
{
    LossPlot plot;
    plot.resize(600, 400);
    plot.addStep(step(1, 0.0, 1));
    plot.addStep(step(2, -1.0, 2));
    plot.addStep(step(3, 0.5, 3));
    plot.setLogScale(true);
    QVERIFY(plot.isLogScale());
    QCOMPARE(plot.pointCount(LossPlot::Series::TrainLoss), 3);
    QCPGraph *raw = nullptr;
    for (int i = 0; i < plot.customPlot()->graphCount(); ++i)
        if (plot.customPlot()->graph(i)->name() == QStringLiteral("train loss (raw)"))
            raw = plot.customPlot()->graph(i);
    QVERIFY(raw);
    // A log axis cannot show 0 or -1: both are drawn at the floor 1e-8, 0.5 as it is.
    QCOMPARE(raw->data()->size(), 3);
    QCOMPARE(raw->data()->at(0)->value, 1e-8);
    QCOMPARE(raw->data()->at(1)->value, 1e-8);
    QCOMPARE(raw->data()->at(2)->value, 0.5);
    plot.setLogScale(false);
    QVERIFY(!plot.isLogScale());
    QCOMPARE(raw->data()->at(1)->value, -1.0); // the linear axis shows the recorded value again
}

void tst_LossPlot::xAxisModesKeepPointCount()
{
    LossPlot plot;
    for (int i = 1; i <= 50; ++i)
        plot.addStep(step(i, 1.0 / i, 5000.0 + 2 * i));
    for (auto mode : {LossPlot::XAxis::RelativeTime, LossPlot::XAxis::WallTime, LossPlot::XAxis::Step}) {
        plot.setXAxis(mode);
        QCOMPARE(plot.xAxis(), mode);
        QCOMPARE(plot.pointCount(LossPlot::Series::TrainLoss), 50);
        QCOMPARE(plot.pointCount(LossPlot::Series::SmoothedTrainLoss), 50);
    }
}

void tst_LossPlot::comparisonOverlay()
{
    LossPlot plot;
    RunHistory run;
    run.name = QStringLiteral("other");
    run.sourcePath = QStringLiteral("/tmp/other/metrics.jsonl");
    run.trainStep = {1, 2, 3};
    run.trainWallTime = {1, 2, 3};
    run.trainLoss = {1, 0.5, 0.25};
    run.learningRate = {0, 0, 0};
    plot.addComparisonRun(run, Qt::red);
    plot.addComparisonRun(run, Qt::blue); // same path: replaced
    QCOMPARE(plot.comparisonRunCount(), 1);
    plot.removeComparisonRun(run.sourcePath);
    QCOMPARE(plot.comparisonRunCount(), 0);
}

namespace {

QCPGraph *graphNamed(const LossPlot &plot, const QString &name)
{
    for (int i = 0; i < plot.customPlot()->graphCount(); ++i)
        if (plot.customPlot()->graph(i)->name() == name)
            return plot.customPlot()->graph(i);
    return nullptr;
}

RunHistory longRun(int steps)
{
    RunHistory run;
    run.name = QStringLiteral("long");
    run.sourcePath = QStringLiteral("/tmp/long/metrics.jsonl");
    for (int i = 1; i <= steps; ++i) {
        run.trainStep.push_back(i);
        run.trainWallTime.push_back(100.0 + i);
        run.trainLoss.push_back(1.0 / i);
        run.learningRate.push_back(1e-4);
    }
    run.evalStep = {250, 500, 750, double(steps)};
    run.evalWallTime = {350, 600, 850, 100.0 + steps};
    run.evalLoss = {0.9, 0.7, 0.5, 0.45};
    run.evalAccuracy = {0.625, std::numeric_limits<double>::quiet_NaN(), 0.8125, 0.875};
    return run;
}

} // namespace

void tst_LossPlot::longerOverlayWidensTheView()
{
    // Issue 16 item 5: a compared run of 1000 steps was cut at the form's 200 planned steps (the
    // learning-rate panel's fit overrode the shared x range), and Reset view did not help.
    LossPlot plot;
    plot.resize(900, 600);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    std::vector<double> plannedStep, plannedLr;
    for (int i = 0; i <= 200; ++i) {
        plannedStep.push_back(i);
        plannedLr.push_back(1e-4 * (1.0 - i / 200.0));
    }
    plot.setPlannedSchedule(plannedStep, plannedLr);
    for (int i = 1; i <= 120; ++i)
        plot.addStep(step(i, 1.0 / i, 1000.0 + i));
    plot.addComparisonRun(longRun(1000), Qt::red);
    QTRY_VERIFY(!plot.isReplotPending());
    QCPAxis *x = plot.customPlot()->axisRect(0)->axis(QCPAxis::atBottom);
    QCPAxis *lrX = plot.customPlot()->axisRect(1)->axis(QCPAxis::atBottom);
    QVERIFY2(x->range().upper >= 1000, qPrintable(QString::number(x->range().upper)));
    QCOMPARE(lrX->range().upper, x->range().upper);
    QVERIFY(x->range().lower <= 0);
    // The learning-rate axis: "0" at zero, one exponent format for the other ticks.
    const QVector<QString> lrLabels = plot.customPlot()->axisRect(1)->axis(QCPAxis::atLeft)->tickVectorLabels();
    QVERIFY2(lrLabels.contains(QStringLiteral("0")), qPrintable(QStringList(lrLabels.begin(), lrLabels.end()).join(QLatin1Char('|'))));
    for (const QString &label : lrLabels)
        QVERIFY2(label == QStringLiteral("0") || label.contains(QLatin1Char('e')), qPrintable(label));

    // Zoomed in (as a drag or wheel would), then Reset view: every shown run fits again.
    x->setRange(10, 50);
    QTest::mousePress(plot.customPlot(), Qt::LeftButton, {}, QPoint(300, 100));
    QTest::mouseRelease(plot.customPlot(), Qt::LeftButton, {}, QPoint(300, 100));
    plot.addStep(step(121, 0.01, 1121));
    QTRY_VERIFY(!plot.isReplotPending());
    QVERIFY(x->range().upper < 1000); // not following while zoomed
    plot.resetView();
    QTRY_VERIFY(!plot.isReplotPending());
    QVERIFY2(x->range().upper >= 1000, qPrintable(QString::number(x->range().upper)));
    QVERIFY(x->range().upper <= 1000 * 1.05);

    // The form's planned steps only extend the range: a plan longer than every run widens it.
    plannedStep.push_back(3000);
    plannedLr.push_back(0);
    plot.setPlannedSchedule(plannedStep, plannedLr);
    plot.resetView();
    QTRY_VERIFY(!plot.isReplotPending());
    QVERIFY(x->range().upper >= 3000);
}

void tst_LossPlot::overlayDrawsEvalAccuracyWithLegend()
{
    LossPlot plot;
    plot.addComparisonRun(longRun(1000), Qt::red);
    QCPGraph *acc = graphNamed(plot, QStringLiteral("long: eval accuracy"));
    QCPGraph *evalLoss = graphNamed(plot, QStringLiteral("long: eval loss"));
    QCPGraph *loss = graphNamed(plot, QStringLiteral("long: train loss"));
    QVERIFY(acc && evalLoss && loss);
    // On the accuracy axis, in the run's colour; the regression-style NaN is left out.
    QCOMPARE(acc->valueAxis(), plot.customPlot()->axisRect(0)->axis(QCPAxis::atRight));
    QCOMPARE(acc->pen().color(), QColor(Qt::red));
    QCOMPARE(acc->data()->size(), 3);
    QCOMPARE(acc->data()->at(0)->key, 250.0);
    QCOMPARE(acc->data()->at(0)->value, 0.625);
    QCOMPARE(acc->data()->at(1)->key, 750.0);
    QCOMPARE(acc->data()->at(1)->value, 0.8125);
    QCOMPARE(acc->data()->at(2)->key, 1000.0);
    QCOMPARE(acc->data()->at(2)->value, 0.875);
    QCOMPARE(evalLoss->data()->size(), 4);
    QCOMPARE(evalLoss->data()->at(3)->value, 0.45);
    // One legend entry per curve of the run, in the legend under the plot.
    QCPLegend *legend = plot.customPlot()->legend;
    QVERIFY(legend->hasItemWithPlottable(acc));
    QVERIFY(legend->hasItemWithPlottable(evalLoss));
    QVERIFY(legend->hasItemWithPlottable(loss));
    QCOMPARE(plot.customPlot()->plotLayout()->element(2, 0), static_cast<QCPLayoutElement *>(legend));
    // Removing the run removes its graphs and their legend entries.
    const int items = legend->itemCount();
    plot.removeComparisonRun(QStringLiteral("/tmp/long/metrics.jsonl"));
    QVERIFY(!graphNamed(plot, QStringLiteral("long: eval accuracy")));
    QCOMPARE(legend->itemCount(), items - 3);
}

/// Beside the majority-class baseline, the bag-of-words baseline of prepare_report.json is a
/// second dashed line on the accuracy axis, named in the legend with its value.
void tst_LossPlot::bagOfWordsBaselineIsASecondDashedLine()
{
    LossPlot plot;
    plot.resize(800, 500);
    QCustomPlot *cp = plot.customPlot();
    const auto dashedLinesAt = [cp](double y) {
        QList<QCPItemStraightLine *> found;
        for (int i = 0; i < cp->itemCount(); ++i)
            if (auto *line = qobject_cast<QCPItemStraightLine *>(cp->item(i)))
                if (line->visible() && line->point1->coords().y() == y && line->point2->coords().y() == y
                    && line->pen().style() == Qt::DashLine
                    && line->point1->valueAxis() == cp->axisRect(0)->axis(QCPAxis::atRight))
                    found << line;
        return found;
    };
    QVERIFY(plot.bagOfWordsBaselineLabel().isEmpty());
    QVERIFY(dashedLinesAt(0.97).isEmpty());
    plot.setAccuracyBaseline(0.69);
    plot.setBagOfWordsBaseline(0.97);
    QCOMPARE(plot.bagOfWordsBaseline(), 0.97);
    QCOMPARE(plot.bagOfWordsBaselineLabel(), QStringLiteral("bag of words: 0.97"));
    QCOMPARE(dashedLinesAt(0.97).size(), 1);
    QCOMPARE(dashedLinesAt(0.69).size(), 1);
    QVERIFY(dashedLinesAt(0.97).front()->pen().color() != dashedLinesAt(0.69).front()->pen().color());
    QCPGraph *key = graphNamed(plot, QStringLiteral("bag of words: 0.97"));
    QVERIFY(key);
    QVERIFY(cp->legend->hasItemWithPlottable(key));
    QVERIFY(cp->legend->hasItemWithPlottable(graphNamed(plot, QStringLiteral("majority-class baseline (0.69)"))));
    QCOMPARE(key->pen().style(), Qt::DashLine);
    QCOMPARE(key->pen().color(), dashedLinesAt(0.97).front()->pen().color());
    // It draws (offscreen): the legend's text is on the canvas.
    QVERIFY(!cp->toPixmap(800, 500).isNull());
    // A new value renames it; NaN hides line and legend entry; the other baseline stays.
    plot.setBagOfWordsBaseline(0.9512);
    QCOMPARE(plot.bagOfWordsBaselineLabel(), QStringLiteral("bag of words: 0.95"));
    plot.setBagOfWordsBaseline(std::numeric_limits<double>::quiet_NaN());
    QVERIFY(plot.bagOfWordsBaselineLabel().isEmpty());
    QVERIFY(!cp->legend->hasItemWithPlottable(key));
    QVERIFY(dashedLinesAt(0.9512).isEmpty());
    QCOMPARE(dashedLinesAt(0.69).size(), 1);
}

void tst_LossPlot::exportsImages()
{
    LossPlot plot;
    plot.resize(800, 500);
    for (int i = 1; i <= 100; ++i)
        plot.addStep(step(i, 1.0 / i, i));
    QTemporaryDir dir;
    for (const char *name : {"plot.png", "plot.pdf"}) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QString error;
        QVERIFY2(plot.exportImage(path, &error), qPrintable(error));
        QVERIFY(QFileInfo(path).size() > 1000);
    }
}

QTEST_MAIN(tst_LossPlot)
#include "tst_lossplot.moc"
