// SPDX-License-Identifier: Apache-2.0
// Issue 44, items 6, 10 and 11 (in part): the window at 1024×700 and on first start, the
// colours of compared runs, the empty plot, the range test's buttons, the Log's end and the
// Embeddings' mistakes — each checked on the real widgets.
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "core/advice/lrfindanalysis.h"
#include "core/io/metricswriter.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"
#include "ui/dialogs/lrfinddialog.h"
#include "ui/evaluation/embeddingview.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/form/configurationform.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/runcolours.h"
#include "ui/runs/runstable.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <cmath>
#include <fstream>

using namespace wb;

namespace {

/// WCAG 2's relative luminance of an sRGB colour.
double luminance(const QColor &c)
{
    const auto channel = [](int v) {
        const double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue());
}

/// WCAG 2's contrast ratio of `c` on white (1 … 21).
double contrastOnWhite(const QColor &c) { return 1.05 / (luminance(c) + 0.05); }

/// CIELAB (D65) of an sRGB colour.
std::array<double, 3> lab(const QColor &c)
{
    const auto channel = [](int v) {
        const double s = v / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    const double r = channel(c.red()), g = channel(c.green()), b = channel(c.blue());
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, y = 0.2126 * r + 0.7152 * g + 0.0722 * b,
                 z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

/// ΔE*76: the distance of two colours in CIELAB.
double deltaE(const QColor &a, const QColor &b)
{
    const auto p = lab(a), q = lab(b);
    return std::sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
}

/// An evaluation of a 3-label run with long label names (the teacher's tickets).
void showThreeLabels(EvaluationView *eval)
{
    eval->setLabelNames({"billing and invoices question", "technical problem with the installation", "cancellation request"});
    EvalMetrics m;
    m.step = 64;
    m.eval_accuracy = 0.5;
    m.eval_loss = 1.093;
    m.eval_macro_f1 = 0.3993;
    m.num_examples = 60;
    m.binary = false;
    m.confusion = {{0, 15, 5}, {0, 19, 1}, {0, 9, 11}};
    m.class_precision = {0, 0.4419, 0.6471};
    m.class_recall = {0, 0.95, 0.55};
    m.class_f1 = {0, 0.6032, 0.5946};
    m.class_support = {20, 20, 20};
    eval->setEvaluation(m);
    eval->setBaseline(MajorityBaseline{{20, 20, 20}, 0, 0.3333});
    eval->setBagOfWordsBaseline(0.7);
    eval->setNote(QStringLiteral("Recorded evaluation from /home/learner/projects/tickets/runs/run-1/metrics.jsonl; the "
                                 "confusion matrix and the top losses come from eval_examples.jsonl."));
}

void writeRunMetrics(const QString &modelDir)
{
    QVERIFY(QDir().mkpath(modelDir));
    MetricsWriter writer((modelDir + QStringLiteral("/metrics.jsonl")).toStdString());
    for (int i = 1; i <= 3; ++i) {
        StepMetrics s;
        s.step = 10 * i;
        s.loss = 0.5 - 0.1 * i;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + s.step;
        writer.writeTrain(s);
        EvalMetrics e;
        e.step = s.step;
        e.eval_loss = 0.6 - 0.1 * i;
        e.eval_accuracy = 0.5 + 0.1 * i;
        e.num_examples = 16;
        e.wall_time = 1000 + s.step;
        writer.writeEval(e);
    }
}

} // namespace

class tst_WindowFit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    // Item 6: the confusion matrix and the per-class table of a 3-label run are shown whole
    // (every row and column), inside the window, at 1024×700 and at 1600×1000.
    void evaluationTablesOfThreeLabels_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1024x700") << QSize(1024, 700);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
    }
    void evaluationTablesOfThreeLabels()
    {
        QFETCH(QSize, size);
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *eval = w.findChild<EvaluationView *>();
        showThreeLabels(eval);
        w.showTab(QStringLiteral("evaluationTab"));
        QTest::qWait(50);
        QCOMPARE(w.size(), size); // nothing made the window larger
        QScrollArea *scroll = eval->scrollArea();
        QVERIFY(scroll->isVisible());
        // Only vertical scrolling: no text is cut at the right edge of the tab.
        QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
        QTableWidget *matrix = eval->confusionTable(), *classes = eval->classTable();
        // The matrix starts on the first screen of the tab.
        QVERIFY2(matrix->mapTo(scroll->viewport(), QPoint(0, 0)).y() < scroll->viewport()->height() / 2,
                 qPrintable(QString::number(matrix->mapTo(scroll->viewport(), QPoint(0, 0)).y())));
        for (QTableWidget *t : {matrix, classes}) {
            const QString name = t->objectName();
            QCOMPARE(t->rowCount(), 3);
            QVERIFY2(t->isVisible(), qPrintable(name));
            // Whole: every row and column lies inside the table's viewport, each row a line high.
            QVERIFY2(t->viewport()->height() >= t->verticalHeader()->length(),
                     qPrintable(QStringLiteral("%1: %2 < %3").arg(name).arg(t->viewport()->height()).arg(t->verticalHeader()->length())));
            QVERIFY2(t->viewport()->width() >= t->horizontalHeader()->length(), qPrintable(name));
            for (int r = 0; r < t->rowCount(); ++r)
                QVERIFY2(t->rowHeight(r) >= t->fontMetrics().height(), qPrintable(name));
            // Scrolled to, it lies inside the tab's viewport and the window.
            scroll->ensureWidgetVisible(t, 0, 0);
            QCoreApplication::processEvents();
            const QRect inViewport(t->mapTo(scroll->viewport(), QPoint(0, 0)), t->size());
            QVERIFY2(scroll->viewport()->rect().contains(inViewport),
                     qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 in %6x%7").arg(name).arg(inViewport.x()).arg(inViewport.y())
                                    .arg(inViewport.width()).arg(inViewport.height())
                                    .arg(scroll->viewport()->width()).arg(scroll->viewport()->height())));
            QVERIFY(w.rect().contains(QRect(t->mapTo(&w, QPoint(0, 0)), t->size())));
        }
        // A long label name breaks into lines in the column header instead of widening it.
        QCOMPARE(matrix->horizontalHeaderItem(1)->text(), QStringLiteral("predicted\ntechnical problem\nwith the\ninstallation"));
        if (size.width() >= 1600) {
            // Wide enough: side by side, both on the first screen.
            scroll->verticalScrollBar()->setValue(0);
            QCoreApplication::processEvents();
            QCOMPARE(classes->mapTo(eval, QPoint(0, 0)).y(), matrix->mapTo(eval, QPoint(0, 0)).y());
            for (QTableWidget *t : {matrix, classes})
                QVERIFY(scroll->viewport()->rect().contains(QRect(t->mapTo(scroll->viewport(), QPoint(0, 0)), t->size())));
        }
    }

    // Item 6: a new window fits the screen's available area; the status bar is on it.
    void firstStartFitsTheScreen()
    {
        MainWindow w;
        QVERIFY(w.screen());
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(w.width() <= avail.width() && w.height() <= avail.height(),
                 qPrintable(QStringLiteral("%1x%2 on %3x%4").arg(w.width()).arg(w.height()).arg(avail.width()).arg(avail.height())));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(600); // keepOnScreen after the window manager's frame
        QVERIFY2(avail.contains(w.frameGeometry()),
                 qPrintable(QStringLiteral("%1,%2 %3x%4").arg(w.frameGeometry().x()).arg(w.frameGeometry().y())
                                .arg(w.frameGeometry().width()).arg(w.frameGeometry().height())));
        QStatusBar *bar = w.statusBar();
        QVERIFY(bar->isVisible());
        QVERIFY(avail.contains(QRect(bar->mapToGlobal(QPoint(0, 0)), bar->size())));
    }

    // Item 10: one palette for compared runs: readable on white, none the run shown's, all apart.
    void comparedRunColours()
    {
        const QColor live[] = {runcolours::kTrainLoss, runcolours::kEvalLoss, runcolours::kEvalAccuracy,
                               runcolours::kLearningRate};
        for (int i = 0; i < 8; ++i) {
            const QColor c = RunsTable::runColour(i);
            const QString name = c.name();
            QVERIFY2(contrastOnWhite(c) >= 4.0, qPrintable(name + QStringLiteral(" contrast %1").arg(contrastOnWhite(c))));
            QVERIFY2(c != QColor(Qt::black), qPrintable(name));
            for (const QColor &l : live) {
                QVERIFY2(c != l, qPrintable(name));
                QVERIFY2(deltaE(c, l) >= 25, qPrintable(name + QStringLiteral(" near ") + l.name()));
            }
            for (int j = 0; j < i; ++j)
                QVERIFY2(deltaE(c, RunsTable::runColour(j)) >= 25, qPrintable(name + QStringLiteral(" near ") + RunsTable::runColour(j).name()));
        }
        // The lesson's two arms (the run shown and the other start): clearly different hues.
        QVERIFY(std::abs(runcolours::kEvalAccuracy.hslHue() - RunsTable::runColour(1).hslHue()) >= 60);
        // In Compare runs only "(current)" is bold; a compared run is drawn in its row's colour,
        // none of the run shown's.
        QTemporaryDir root;
        for (const char *run : {"a", "b", "live"})
            writeRunMetrics(root.filePath(QLatin1String(run)));
        LossPlot plot;
        RunsTable runs;
        QObject::connect(&runs, &RunsTable::overlayAdded, &plot, &LossPlot::addComparisonRun);
        runs.setLiveMetricsPath(root.filePath(QStringLiteral("live/metrics.jsonl")));
        QVERIFY(runs.addRun(root.filePath(QStringLiteral("live/metrics.jsonl")), false));
        QVERIFY(runs.addRun(root.filePath(QStringLiteral("a/metrics.jsonl")), true));
        QVERIFY(runs.addRun(root.filePath(QStringLiteral("b/metrics.jsonl")), true));
        QCOMPARE(runs.table()->item(0, 0)->text(), QStringLiteral("live (current)"));
        QVERIFY(runs.table()->item(0, 0)->font().bold());
        for (int row = 1; row < 3; ++row) {
            QVERIFY2(!runs.table()->item(row, 0)->font().bold(), qPrintable(runs.table()->item(row, 0)->text()));
            QCOMPARE(runs.table()->item(row, 0)->foreground().color(), RunsTable::runColour(row));
        }
        QCOMPARE(plot.comparisonRunCount(), 2);
        int overlays = 0;
        for (int i = 0; i < plot.customPlot()->graphCount(); ++i) {
            QCPGraph *g = plot.customPlot()->graph(i);
            if (!g->name().startsWith(QLatin1String("a:")) && !g->name().startsWith(QLatin1String("b:")))
                continue;
            ++overlays;
            for (const QColor &l : live)
                QVERIFY2(g->pen().color() != l, qPrintable(g->name()));
        }
        QVERIFY(overlays >= 6); // train loss, eval loss, eval accuracy of each
    }

    // Item 11: a cleared plot with only the planned schedule shows the empty loss axis, not
    // the last run's.
    void emptyPlotResetsItsAxes()
    {
        LossPlot p;
        p.resize(800, 500);
        p.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p));
        for (int step = 1; step <= 400; ++step) {
            StepMetrics s;
            s.step = step;
            s.loss = 5.0 / step + 2.0;
            s.learning_rate = 1e-3;
            s.wall_time = 1000 + step;
            p.addStep(s);
        }
        QCPAxis *loss = p.customPlot()->axisRect(0)->axis(QCPAxis::atLeft);
        QTRY_VERIFY(loss->range().upper > 6);
        p.clear();
        p.setPlannedSchedule({0, 10, 20}, {0, 1e-3, 0});
        QTRY_COMPARE(loss->range().upper, 1.0);
        QCOMPARE(loss->range().lower, 0.0);
    }

    // Item 11: the range test's buttons show a rate only when there is one.
    void lrFinderButtonsWithoutANumber()
    {
        QTemporaryDir dir;
        ConfigurationForm form;
        form.setOptions(wbtest::writeTinyRun(dir));
        {
            LrFindDialog d(&form);
            auto *use = d.findChild<QPushButton *>(QStringLiteral("useSuggestion"));
            auto *min = d.findChild<QPushButton *>(QStringLiteral("useMinOver10"));
            QVERIFY(!use->isEnabled() && !min->isEnabled());
            QCOMPARE(use->text(), QStringLiteral("Use this"));
            QCOMPARE(min->text(), QStringLiteral("Use minimum / 10"));
        }
        // A saved flat curve (no suggestion): still no "Use this: 0".
        const QString saved = dir.filePath(QStringLiteral("model/lr_find.json"));
        QVERIFY(QDir().mkpath(QFileInfo(saved).absolutePath()));
        LrFindResult flat;
        for (int k = 0; k < 40; ++k) {
            flat.steps.push_back(k + 1);
            flat.learning_rates.push_back(lrFindLearningRate(k, 40, 1e-6, 1.0));
            flat.losses.push_back(0.69);
        }
        analyzeLrFind(flat);
        QCOMPARE(flat.suggestion, 0.0);
        std::ofstream(saved.toStdString()) << lrFindJson(flat);
        LrFindDialog d(&form);
        d.begin();
        QVERIFY(d.result().has_value());
        auto *use = d.findChild<QPushButton *>(QStringLiteral("useSuggestion"));
        QVERIFY(!use->isEnabled());
        QCOMPARE(use->text(), QStringLiteral("Use this"));
        // A curve with a suggestion: its rate on the enabled button.
        LrFindResult falling;
        for (int k = 0; k < 40; ++k) {
            falling.steps.push_back(k + 1);
            falling.learning_rates.push_back(lrFindLearningRate(k, 40, 1e-6, 1.0));
            falling.losses.push_back(1.0 - 0.5 * std::tanh((k - 20) / 4.0) + (k > 30 ? k - 30 : 0));
        }
        analyzeLrFind(falling);
        QVERIFY(falling.suggestion > 0);
        std::ofstream(saved.toStdString()) << lrFindJson(falling);
        LrFindDialog again(&form);
        again.begin();
        auto *useAgain = again.findChild<QPushButton *>(QStringLiteral("useSuggestion"));
        QVERIFY(useAgain->isEnabled());
        QCOMPARE(useAgain->text(), QStringLiteral("Use this: %1").arg(LrFindDialog::rateText(falling.suggestion)));
    }

    // Item 11: the Log follows its end as lines arrive, also while its tab is hidden, unless
    // the user scrolled up.
    void logFollowsItsEnd()
    {
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *log = w.findChild<QPlainTextEdit *>(QStringLiteral("logTab"));
        w.showTab(QStringLiteral("plotTab"));
        for (int i = 0; i < 300; ++i)
            Q_EMIT w.runSession()->logLine(QStringLiteral("line %1 while the Log is hidden").arg(i));
        w.showTab(QStringLiteral("logTab"));
        QCoreApplication::processEvents();
        QScrollBar *bar = log->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        QCOMPARE(bar->value(), bar->maximum());
        for (int i = 0; i < 50; ++i)
            Q_EMIT w.runSession()->logLine(QStringLiteral("line %1 while it is shown").arg(i));
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), bar->maximum());
        // Scrolled up to read: it stays there.
        bar->setValue(10);
        Q_EMIT w.runSession()->logLine(QStringLiteral("one more"));
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), 10);
    }

    // Item 11: a mistake's ring leaves its point's colour (the true label) visible, and
    // hovering names the true and the predicted label.
    void embeddingMistakesKeepTheirColour()
    {
        EmbeddingView v;
        v.resize(600, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        EmbeddingSnapshot s;
        s.step = 40;
        s.hidden = 2;
        s.pooled = {2, 0, -2, 0, 0, 1, 0, -1};
        s.example_index = {0, 1, 2, 3};
        s.label_ids = {1, 0, 1, 0};
        s.predictions = {1, 0, 0, 0}; // row 2 (spam) predicted ham
        const Projection2D p = pcaProject2D(s.pooled, s.size(), s.hidden);
        v.showPoints(s, p, {QStringLiteral("win money"), QStringLiteral("hello bob"), QStringLiteral("free cruise"),
                            QStringLiteral("lunch?")},
                     {QStringLiteral("ham"), QStringLiteral("spam")});
        QCustomPlot *cp = v.customPlot();
        cp->replot(QCustomPlot::rpImmediateRefresh);
        const QImage image = cp->toPixmap().toImage();
        const QPoint at(int(std::lround(cp->xAxis->coordToPixel(p.points[2][0]))),
                        int(std::lround(cp->yAxis->coordToPixel(p.points[2][1]))));
        const QColor spam = v.labelGraph(1)->pen().color();
        const QColor centre = image.pixelColor(at);
        QVERIFY2(deltaE(centre, spam) < 10, qPrintable(centre.name() + QStringLiteral(" is not ") + spam.name()));
        QCOMPARE(v.mistakeGraph()->scatterStyle().brush().style(), Qt::NoBrush);
        QCOMPARE(v.hoverText(2), QStringLiteral("true spam, predicted ham (a mistake)\nfree cruise"));
        QCOMPARE(v.hoverText(1), QStringLiteral("true ham, predicted ham (right)\nhello bob"));
        QCOMPARE(v.hoverText(-1), QString());
    }
};

QTEST_MAIN(tst_WindowFit)
#include "tst_windowfit.moc"
