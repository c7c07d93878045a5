// SPDX-License-Identifier: Apache-2.0
// Issue 27, "Runs": Compare runs (a run opened twice keeps its hyperparameters, the current run
// is named and never overlaid on itself, the list is there after reopening a project, a
// qualitative palette, strategy / start / best columns, differences only), the run queue,
// and seed groups (mean curves with a min–max band, the spread of the final metrics).
#include "ui/window/concurrentsweep.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"
#include "ui/window/sweepdialog.h"

#include "core/formats/sweep.h"
#include "core/formats/sweepdriver.h"

#include "core/io/metricswriter.h"
#include "tinyrun.h"
#include "ui/form/projectfile.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/rungroup.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/runs/runcolours.h"
#include "ui/runs/sweepview.h"
#include "ui/runs/trainingcontroller.h"

#include <QDialog>
#include <QDir>
#include <QFile>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScreen>
#include <QTabWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>

using namespace wb;

namespace {
/// The window's wiring of the runs table's overlays to the plot (MainWindow does the same).
void wireOverlays(RunsTable &runs, LossPlot &plot)
{
    QObject::connect(&runs, &RunsTable::overlayAdded, &plot, &LossPlot::addComparisonRun);
    QObject::connect(&runs, &RunsTable::overlayRemoved, &plot, &LossPlot::removeComparisonRun);
}
} // namespace

namespace {

/// metrics.jsonl with train steps 10, 20, 30 (loss 0.5, 0.4, 0.3) and evaluations at 10, 20,
/// 30 with the given accuracies.
void writeRunMetrics(const QString &modelDir, double acc10, double acc20, double acc30)
{
    QVERIFY(QDir().mkpath(modelDir));
    MetricsWriter writer((modelDir + QStringLiteral("/metrics.jsonl")).toStdString());
    const double acc[] = {acc10, acc20, acc30};
    for (int i = 0; i < 3; ++i) {
        StepMetrics s;
        s.step = 10 * (i + 1);
        s.loss = 0.5 - 0.1 * i;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + s.step;
        writer.writeTrain(s);
        EvalMetrics e;
        e.step = s.step;
        e.eval_loss = 0.6 - 0.1 * i;
        e.eval_accuracy = acc[i];
        e.num_examples = 16;
        e.wall_time = 1000 + s.step;
        writer.writeEval(e);
    }
}

QString cell(const RunsTable &runs, int row, const char *header)
{
    for (int c = 0; c < runs.table()->columnCount(); ++c)
        if (runs.table()->horizontalHeaderItem(c)->text() == QLatin1String(header))
            return runs.table()->item(row, c) ? runs.table()->item(row, c)->text() : QStringLiteral("(no item)");
    return QStringLiteral("(no column %1)").arg(QLatin1String(header));
}

/// With WB_SCREENSHOT_DIR set (docs/screenshots, run under xvfb-run), saves `w` as
/// <dir>/<name>.png at 1600×1000 after it has drawn: the views the docs show. Otherwise nothing.
/// With WB_SCREENSHOT_DIR set (under xvfb-run), saves the whole screen — the window and its
/// open dialog — as <dir>/<name>-<W>x<H>.png. Otherwise nothing.
void screenGrab(const QString &name)
{
    const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QTest::qWait(500);
    QScreen *screen = QGuiApplication::primaryScreen();
    const QSize size = screen->size();
    QVERIFY(screen->grabWindow(0).save(
        QDir(dir).filePath(QStringLiteral("%1-%2x%3.png").arg(name).arg(size.width()).arg(size.height()))));
}

void screenshot(QWidget *w, const QString &name)
{
    const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    w->resize(1600, 1000);
    w->show();
    QTest::qWait(300);
    QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

} // namespace

class tst_CompareRuns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tensorBoardLogsOfAListedRunKeepItsHyperparameters();
    void currentRunIsNamedAndNeverOverlaidOnItself();
    void qualitativePalette();
    void strategyStartAndBestColumns();
    void differencesOnly();
    void reopenedProjectListsItsRuns();
    void groupCurveOnUnequalSteps();
    void spreadOfFinalMetrics();
    void seedGroupsByName();
    void runQueueTrainsOneAfterAnother();
    void seedGroupIsDrawnAsMeanWithBand();
    void repeatWithSeeds();
    void sweepViewSortsAndBrushes();
    void sweepDialogRunsThePlanThroughTheQueue();
    void sweepDialogTrainsTwoRunsAtOnce();
    void groupSeedsGroupsASweepOverSeed();
    void concurrentSweepFollowsItsEvents();
};

void tst_CompareRuns::tensorBoardLogsOfAListedRunKeepItsHyperparameters()
{
    QTemporaryDir root;
    const QString run = root.filePath(QStringLiteral("run"));
    writeRunMetrics(run, 0.5, 0.75, 0.7);
    TrainingOptions o;
    o.learning_rate = 0.0005;
    o.train_batch_size = 16;
    ProjectFile::save(run + QStringLiteral("/bert_workbench_project.json"), o);
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    QVERIFY(runs.addRun(run + QStringLiteral("/metrics.jsonl"), false));
    QCOMPARE(cell(runs, 0, "learning_rate"), QStringLiteral("0.0005"));
    // Its TensorBoard logs (File → Open TensorBoard Logs): the same run, without any recorded
    // option, and more points (as TensorBoard logs of every step).
    RunHistory tb;
    tb.name = QStringLiteral("run");
    tb.sourcePath = QDir(run).absolutePath();
    for (int step = 1; step <= 30; ++step) {
        tb.trainStep.push_back(step);
        tb.trainWallTime.push_back(1000 + step);
        tb.trainLoss.push_back(0.5);
        tb.learningRate.push_back(1e-3);
    }
    runs.addHistory(tb, true);
    QCOMPARE(runs.runCount(), 1);
    QCOMPARE(cell(runs, 0, "learning_rate"), QStringLiteral("0.0005"));  // kept, not "–"
    QCOMPARE(cell(runs, 0, "train_batch_size"), QStringLiteral("16"));
    QCOMPARE(cell(runs, 0, "steps"), QStringLiteral("30"));               // the richer curves
    QCOMPARE(cell(runs, 0, "best eval accuracy"), QStringLiteral("–"));    // TensorBoard had none
    QCOMPARE(plot.comparisonRunCount(), 1);
    // And the other way round: the metrics.jsonl again after the logs keeps one row.
    QVERIFY(runs.addRun(run + QStringLiteral("/metrics.jsonl"), false));
    QCOMPARE(runs.runCount(), 1);
    QCOMPARE(cell(runs, 0, "learning_rate"), QStringLiteral("0.0005"));
    QCOMPARE(cell(runs, 0, "steps"), QStringLiteral("30"));

    // mergeRunHistory itself.
    RunHistory a = RunHistory::load(run + QStringLiteral("/metrics.jsonl"));
    const RunHistory merged = mergeRunHistory(a, tb);
    QCOMPARE(merged.sourcePath, a.sourcePath);
    QCOMPARE(merged.trainStep.size(), size_t(30));
    QCOMPARE(*merged.recorded.learning_rate, 0.0005);
    QCOMPARE(merged.settings.at("train_batch_size"), std::string("16"));
}

void tst_CompareRuns::currentRunIsNamedAndNeverOverlaidOnItself()
{
    QTemporaryDir root;
    const QString run = root.filePath(QStringLiteral("model"));
    const QString other = root.filePath(QStringLiteral("other"));
    writeRunMetrics(run, 0.5, 0.6, 0.7);
    writeRunMetrics(other, 0.5, 0.6, 0.8);
    LossPlot plot;
    plot.setRunName(QStringLiteral("model"));
    QCOMPARE(plot.seriesName(LossPlot::Series::SmoothedTrainLoss), QStringLiteral("model: train loss (smoothed)"));
    QCOMPARE(plot.seriesName(LossPlot::Series::EvalAccuracy), QStringLiteral("model: eval accuracy"));
    plot.setPretraining(true);
    QCOMPARE(plot.seriesName(LossPlot::Series::EvalLoss), QStringLiteral("model: eval MLM loss"));
    plot.setPretraining(false);
    plot.setRunName(QString());
    QCOMPARE(plot.seriesName(LossPlot::Series::EvalLoss), QStringLiteral("eval loss"));

    RunsTable runs;
    wireOverlays(runs, plot);
    runs.setLiveMetricsPath(run + QStringLiteral("/metrics.jsonl"));
    QVERIFY(runs.addRun(run + QStringLiteral("/metrics.jsonl"), true)); // e.g. its TensorBoard logs, overlaid
    QVERIFY(runs.addRun(other + QStringLiteral("/metrics.jsonl"), true));
    QCOMPARE(runs.runCount(), 2);
    QCOMPARE(runs.table()->item(0, 0)->text(), QStringLiteral("model (current)"));
    QVERIFY(!(runs.table()->item(0, 0)->flags() & Qt::ItemIsUserCheckable));
    QCOMPARE(runs.table()->item(1, 0)->text(), QStringLiteral("other"));
    QCOMPARE(runs.table()->item(1, 0)->checkState(), Qt::Checked);
    QCOMPARE(plot.comparisonRunCount(), 1); // only "other"
    // Checking the current run's row by hand does nothing either.
    runs.table()->item(0, 0)->setCheckState(Qt::Checked);
    QCOMPARE(plot.comparisonRunCount(), 1);
    // Another run becomes the current one: its overlay goes, the old one can be checked again.
    runs.setLiveMetricsPath(other + QStringLiteral("/metrics.jsonl"));
    QCOMPARE(plot.comparisonRunCount(), 0);
    QCOMPARE(runs.table()->item(0, 0)->text(), QStringLiteral("model"));
    QVERIFY(runs.table()->item(0, 0)->flags() & Qt::ItemIsUserCheckable);
    QCOMPARE(runs.table()->item(1, 0)->text(), QStringLiteral("other (current)"));
}

void tst_CompareRuns::qualitativePalette()
{
    // The compared runs' eight colours (ui/runs/runcolours.h; their contrast and distance are
    // tested in ui.windowfit), each once before any repeats.
    QColor expected[8];
    for (int i = 0; i < 8; ++i)
        expected[i] = QColor(runcolours::kCompared[i]);
    for (int i = 0; i < 8; ++i)
        QCOMPARE(RunsTable::runColour(i), expected[i]);
    QCOMPARE(RunsTable::runColour(8), expected[0]);
    QTemporaryDir root;
    writeRunMetrics(root.filePath(QStringLiteral("a")), 0.5, 0.6, 0.7);
    writeRunMetrics(root.filePath(QStringLiteral("b")), 0.5, 0.6, 0.7);
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("a/metrics.jsonl")), false));
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("b/metrics.jsonl")), false));
    QCOMPARE(runs.table()->item(0, 0)->foreground().color(), expected[0]);
    QCOMPARE(runs.table()->item(1, 0)->foreground().color(), expected[1]);
}

void tst_CompareRuns::strategyStartAndBestColumns()
{
    QTemporaryDir root;
    const QString pretrained = root.filePath(QStringLiteral("pretrained")), scratch = root.filePath(QStringLiteral("scratch"));
    writeRunMetrics(pretrained, 0.5, 0.75, 0.7);
    writeRunMetrics(scratch, 0.5, 0.6, 0.625);
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.pretrained_model = "google/bert_uncased_L-2_H-128_A-2";
    ProjectFile::save(pretrained + QStringLiteral("/bert_workbench_project.json"), o);
    o.pretrained_model.clear();
    o.distribution_strategy = "multi_worker_mirrored";
    ProjectFile::save(scratch + QStringLiteral("/bert_workbench_project.json"), o);
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    QVERIFY(runs.addRun(pretrained + QStringLiteral("/metrics.jsonl"), false));
    QVERIFY(runs.addRun(scratch + QStringLiteral("/metrics.jsonl"), false));
    QCOMPARE(cell(runs, 0, "strategy"), QStringLiteral("one_device"));
    QCOMPARE(cell(runs, 0, "start"), QStringLiteral("google/bert_uncased_L-2_H-128_A-2"));
    QCOMPARE(cell(runs, 0, "best eval accuracy"), QStringLiteral("0.75 @ 20"));
    QCOMPARE(cell(runs, 0, "final eval accuracy"), QStringLiteral("0.7"));
    QCOMPARE(cell(runs, 1, "strategy"), QStringLiteral("multi_worker_mirrored"));
    QCOMPARE(cell(runs, 1, "start"), QStringLiteral("scratch"));
    QCOMPARE(cell(runs, 1, "best eval accuracy"), QStringLiteral("0.625 @ 30"));
    // An init checkpoint: its file name.
    RunHistory h;
    h.settings["init_checkpoint"] = "/models/bert/model.safetensors";
    QCOMPARE(runStartText(h), QStringLiteral("model.safetensors"));
    QCOMPARE(runStartText(RunHistory{}), QStringLiteral("–"));
}

void tst_CompareRuns::differencesOnly()
{
    RunHistory a, b, c;
    a.name = QStringLiteral("a");
    b.name = QStringLiteral("b");
    c.name = QStringLiteral("c");
    a.settings = {{"learning_rate", "5e-05"}, {"seed", "1"}, {"train_batch_size", "32"}, {"model_dir", "/x/a"}};
    b.settings = {{"learning_rate", "0.0001"}, {"seed", "1"}, {"train_batch_size", "32"}, {"model_dir", "/x/b"}};
    c.settings = {{"learning_rate", "5e-05"}, {"seed", "2"}, {"train_batch_size", "32"}, {"dtype", "bf16"}};
    auto d = differingSettings({a, b});
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].key, std::string("learning_rate"));
    QCOMPARE(d[0].values, (std::vector<std::string>{"5e-05", "0.0001"}));
    d = differingSettings({a, b, c});
    QCOMPARE(d.size(), size_t(3));
    QCOMPARE(d[0].key, std::string("dtype"));
    QCOMPARE(d[0].values, (std::vector<std::string>{"–", "–", "bf16"}));
    QCOMPARE(d[1].key, std::string("learning_rate"));
    QCOMPARE(d[2].key, std::string("seed"));
    QCOMPARE(d[2].values, (std::vector<std::string>{"1", "1", "2"}));
    QVERIFY(differingSettings({a}).empty());

    // In the table: two runs of the window (their project files), selected.
    QTemporaryDir root;
    writeRunMetrics(root.filePath(QStringLiteral("r1")), 0.5, 0.6, 0.7);
    writeRunMetrics(root.filePath(QStringLiteral("r2")), 0.5, 0.6, 0.7);
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.learning_rate = 1e-4;
    o.seed = 1;
    o.model_dir = root.filePath(QStringLiteral("r1")).toStdString();
    ProjectFile::save(root.filePath(QStringLiteral("r1/bert_workbench_project.json")), o);
    o.seed = 2;
    o.warmup_fraction = 0.2;
    o.model_dir = root.filePath(QStringLiteral("r2")).toStdString();
    ProjectFile::save(root.filePath(QStringLiteral("r2/bert_workbench_project.json")), o);
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("r1/metrics.jsonl")), false));
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("r2/metrics.jsonl")), false));
    QVERIFY(!runs.showDifferences()); // nothing selected
    runs.table()->selectRow(0);
    runs.table()->selectionModel()->select(runs.table()->model()->index(1, 0),
                                           QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QDialog *dialog = runs.showDifferences();
    QVERIFY(dialog);
    auto *table = dialog->findChild<QTableWidget *>(QStringLiteral("differencesTable"));
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->verticalHeaderItem(0)->text(), QStringLiteral("seed"));
    QCOMPARE(table->verticalHeaderItem(1)->text(), QStringLiteral("warmup_fraction"));
    QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("r2"));
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("1"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("2"));
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("0.2"));
    QCOMPARE(dialog->findChild<QLabel *>(QStringLiteral("differencesNote"))->text(),
             QStringLiteral("2 setting(s) differ; every other setting is the same in these runs."));
}

void tst_CompareRuns::reopenedProjectListsItsRuns()
{
    // A project whose model_dir has a sibling run: both are listed once the project is open,
    // without pressing Find runs; the project's own run is the current one.
    QTemporaryDir root;
    const QString model = root.filePath(QStringLiteral("model")), sibling = root.filePath(QStringLiteral("model-2"));
    writeRunMetrics(model, 0.5, 0.6, 0.7);
    writeRunMetrics(sibling, 0.5, 0.6, 0.8);
    TrainingOptions o;
    o.model_dir = model.toStdString();
    const QString project = root.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    w.show();
    RunsTable *runs = w.findChild<RunsTable *>();
    QSignalSpy scanned(runs, &RunsTable::scanned), dropped(runs, &RunsTable::scanDropped);
    QSignalSpy shown(&w, &MainWindow::recordedRunShown), notShown(&w, &MainWindow::recordedRunDropped);
    QString error;
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count() + notShown.count(), 1, 30000);
    QCOMPARE(shown.count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(scanned.count() + dropped.count(), 1, 30000);
    QCOMPARE(scanned.count(), 1);
    QCOMPARE(runs->runCount(), 2);
    QStringList names; // sorted by path: ".../model-2/metrics.jsonl" before ".../model/metrics.jsonl"
    for (int row = 0; row < runs->runCount(); ++row)
        names << runs->table()->item(row, 0)->text();
    QCOMPARE(names, (QStringList{QStringLiteral("model-2"), QStringLiteral("model (current)")}));
    QCOMPARE(w.findChild<LossPlot *>()->comparisonRunCount(), 0);
    QCOMPARE(w.findChild<LossPlot *>()->seriesName(LossPlot::Series::SmoothedTrainLoss),
             QStringLiteral("model: train loss (smoothed)"));
}

void tst_CompareRuns::groupCurveOnUnequalSteps()
{
    // A: 0, 10, 20; B: 0, 5, 15, 20; C: 0, 10 (ended early).
    const std::vector<CurveSeries> runs = {{{0, 10, 20}, {1.0, 0.8, 0.6}},
                                           {{0, 5, 15, 20}, {1.2, 1.0, 0.7, 0.4}},
                                           {{0, 10}, {0.9, 0.5}}};
    const GroupCurve g = groupCurve(runs);
    QCOMPARE(g.step, (std::vector<double>{0, 5, 10, 15, 20}));
    QCOMPARE(g.count, (std::vector<int>{3, 3, 3, 2, 2}));
    // Step 5: A 0.9 (between 1.0 and 0.8), B 1.0, C 0.7 (between 0.9 and 0.5).
    // Step 10: A 0.8, B 0.85 (between 1.0 at 5 and 0.7 at 15), C 0.5. Step 15: A 0.7, B 0.7.
    const double mean[] = {3.1 / 3, 2.6 / 3, 2.15 / 3, 0.7, 0.5};
    const double lo[] = {0.9, 0.7, 0.5, 0.7, 0.4};
    const double hi[] = {1.2, 1.0, 0.85, 0.7, 0.6};
    for (int i = 0; i < 5; ++i) {
        QVERIFY2(std::abs(g.mean[size_t(i)] - mean[i]) < 1e-12, qPrintable(QString::number(g.mean[size_t(i)], 'g', 17)));
        QVERIFY2(std::abs(g.min[size_t(i)] - lo[i]) < 1e-12, qPrintable(QString::number(g.min[size_t(i)], 'g', 17)));
        QVERIFY2(std::abs(g.max[size_t(i)] - hi[i]) < 1e-12, qPrintable(QString::number(g.max[size_t(i)], 'g', 17)));
    }
    // Gaps (NaN) are not points; a run of NaN only adds nothing.
    const GroupCurve gaps = groupCurve({{{0, 10, 20}, {1.0, std::nan(""), 0.6}}, {{5}, {std::nan("")}}});
    QCOMPARE(gaps.step, (std::vector<double>{0, 20}));
    QCOMPARE(gaps.mean, (std::vector<double>{1.0, 0.6}));
    QVERIFY(groupCurve({}).step.empty());
}

void tst_CompareRuns::spreadOfFinalMetrics()
{
    const Spread s = spreadOf({0.9, 0.95, std::nan(""), 0.925});
    QCOMPARE(s.n, 3);
    QVERIFY(std::abs(s.mean - 0.925) < 1e-12);
    QCOMPARE(s.min, 0.9);
    QCOMPARE(s.max, 0.95);
    QVERIFY(std::abs(s.stddev - 0.025) < 1e-12); // sqrt((0.025² + 0.025² + 0) / 2)
    QCOMPARE(spreadText(s), QStringLiteral("0.925 ± 0.025 (0.9–0.95, n = 3)"));
    QCOMPARE(spreadText(spreadOf({0.5})), QStringLiteral("0.5 (n = 1)"));
    QCOMPARE(spreadText(spreadOf({})), QStringLiteral("–"));
    QVERIFY(std::isnan(spreadOf({0.5}).stddev));
}

void tst_CompareRuns::seedGroupsByName()
{
    QCOMPARE(seedGroupName(QStringLiteral("model-seed-43")), QStringLiteral("model"));
    QCOMPARE(seedGroupName(QStringLiteral("my-run-seed-1")), QStringLiteral("my-run"));
    QCOMPARE(seedGroupName(QStringLiteral("model-seed-")), QString());
    QCOMPARE(seedGroupName(QStringLiteral("model")), QString());
    std::vector<RunHistory> runs(5);
    const char *names[] = {"base-seed-1", "other", "base-seed-2", "x-seed-3", "base-seed-3"};
    for (int i = 0; i < 5; ++i)
        runs[size_t(i)].name = QLatin1String(names[i]);
    const auto groups = seedGroups(runs);
    QCOMPARE(groups.size(), size_t(1)); // x has one run: no group
    QCOMPARE(groups[0].name, QStringLiteral("base"));
    QCOMPARE(groups[0].rows, (std::vector<int>{0, 2, 4}));
}

void tst_CompareRuns::runQueueTrainsOneAfterAnother()
{
    QTemporaryDir dir;
    const TrainingOptions base = wbtest::writeTinyRun(dir);
    MainWindow w;
    struct Seen
    {
        std::mutex mutex;
        std::vector<std::string> modelDirs;
        std::vector<int64_t> seeds;
    };
    auto seen = std::make_shared<Seen>();
    w.runSession()->controller()->setRunFunction([seen](const PreparedRun &p, TrainingObserver &obs, const StopToken &) {
        {
            std::lock_guard<std::mutex> lock(seen->mutex);
            seen->modelDirs.push_back(p.options.model_dir);
            seen->seeds.push_back(p.options.seed);
        }
        RunFinished r;
        r.status = RunStatus::Completed;
        r.last_step = 16;
        obs.runFinished(r);
        return r;
    });
    std::vector<QueuedRun> list;
    for (int64_t seed : {7, 8}) {
        QueuedRun q;
        q.options = base;
        q.options.seed = seed;
        q.options.model_dir = base.model_dir + "-seed-" + std::to_string(seed);
        q.label = QStringLiteral("seed %1").arg(seed);
        list.push_back(q);
    }
    RunQueue queue(w.runSession());
    QVERIFY(queue.setRuns(list));
    QSignalSpy started(&queue, &RunQueue::runStarted), ended(&queue, &RunQueue::runEnded), done(&queue, &RunQueue::finished);
    QVERIFY(queue.start());
    QVERIFY(queue.isActive());
    QVERIFY(!queue.setRuns({})); // not while it runs
    QVERIFY(done.wait(60000));
    QCOMPARE(started.count(), 2);
    QCOMPARE(ended.count(), 2);
    QCOMPARE(queue.completedCount(), 2);
    QVERIFY(!queue.isActive());
    QCOMPARE(seen->modelDirs, (std::vector<std::string>{base.model_dir + "-seed-7", base.model_dir + "-seed-8"}));
    QCOMPARE(seen->seeds, (std::vector<int64_t>{7, 8}));

    // A run that fails its check stops the queue there; the rest is kept.
    std::vector<QueuedRun> bad = list;
    bad[0].options.learning_rate = -1.0;
    QVERIFY(queue.setRuns(bad));
    QSignalSpy stopped(&queue, &RunQueue::stopped);
    QVERIFY(queue.start());
    QVERIFY(stopped.wait(60000));
    QCOMPARE(stopped.front().at(0).toInt(), 0);
    QCOMPARE(stopped.front().at(1).toString(), QStringLiteral("seed 7 did not pass its check"));
    QCOMPARE(queue.currentIndex(), 0);
    QCOMPARE(queue.completedCount(), 0);
}

void tst_CompareRuns::seedGroupIsDrawnAsMeanWithBand()
{
    QTemporaryDir root;
    writeRunMetrics(root.filePath(QStringLiteral("m-seed-1")), 0.5, 0.6, 0.9);
    writeRunMetrics(root.filePath(QStringLiteral("m-seed-2")), 0.5, 0.6, 0.95);
    writeRunMetrics(root.filePath(QStringLiteral("m-seed-3")), 0.5, 0.6, 0.925);
    writeRunMetrics(root.filePath(QStringLiteral("other")), 0.5, 0.6, 0.7);
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    for (const char *name : {"m-seed-1", "m-seed-2", "m-seed-3", "other"})
        QVERIFY(runs.addRun(root.filePath(QLatin1String(name) + QStringLiteral("/metrics.jsonl")), true));
    QCOMPARE(plot.comparisonRunCount(), 4);
    QCOMPARE(runs.groupsTable()->rowCount(), 1);
    QCOMPARE(runs.groupsTable()->item(0, 0)->text(), QStringLiteral("m"));
    QCOMPARE(runs.groupsTable()->item(0, 1)->text(), QStringLiteral("3"));
    QCOMPARE(runs.groupsTable()->item(0, 2)->text(), QStringLiteral("0.925 ± 0.025 (0.9–0.95, n = 3)"));
    QCOMPARE(runs.groupsTable()->item(0, 3)->text(), QStringLiteral("0.4 ± 0 (0.4–0.4, n = 3)"));
    runs.setGroupSeeds(true);
    QCOMPARE(plot.comparisonRunCount(), 2); // the group's mean and "other"
    if (!qEnvironmentVariableIsEmpty("WB_SCREENSHOT_DIR")) {
        // For the docs: three seeds of one setting (noisy, logged at different steps) and a
        // run of another setting.
        QWidget page;
        auto *layout = new QVBoxLayout(&page);
        auto *shotPlot = new LossPlot(&page);
        auto *shotRuns = new RunsTable(&page);
        wireOverlays(*shotRuns, *shotPlot);
        layout->addWidget(shotPlot, 3);
        layout->addWidget(shotRuns, 2);
        const auto synthetic = [](const QString &name, double scale, double noise, int every, double acc) {
            RunHistory h;
            h.name = name;
            h.sourcePath = QStringLiteral("/runs/") + name;
            for (int step = every; step <= 340; step += every) {
                h.trainStep.push_back(step);
                h.trainWallTime.push_back(step);
                h.trainLoss.push_back(0.7 * std::exp(-step / (90.0 * scale)) + 0.05 + noise * std::sin(step * 0.37 + scale * 9));
                h.learningRate.push_back(1e-3);
            }
            for (int step = 85; step <= 340; step += 85) {
                h.evalStep.push_back(step);
                h.evalWallTime.push_back(step);
                h.evalLoss.push_back(0.6 * std::exp(-step / (120.0 * scale)) + 0.12);
                h.evalAccuracy.push_back(acc - 0.25 * std::exp(-step / (100.0 * scale)));
            }
            return h;
        };
        shotRuns->addHistory(synthetic(QStringLiteral("spam-seed-42"), 1.0, 0.05, 10, 0.95), true);
        shotRuns->addHistory(synthetic(QStringLiteral("spam-seed-43"), 1.3, 0.06, 5, 0.92), true);
        shotRuns->addHistory(synthetic(QStringLiteral("spam-seed-44"), 0.8, 0.04, 10, 0.94), true);
        shotRuns->addHistory(synthetic(QStringLiteral("spam-lr-1e-3"), 2.5, 0.05, 10, 0.85), true);
        shotRuns->setGroupSeeds(true);
        screenshot(&page, QStringLiteral("compare-seed-group"));
    }
    runs.setGroupSeeds(false);
    QCOMPARE(plot.comparisonRunCount(), 4);

    const auto groups = seedGroups(runs.runs());
    QCOMPARE(groups.size(), size_t(1));
    const RunHistory mean = groupHistory(groups[0], runs.runs());
    QCOMPARE(mean.name, QStringLiteral("m (mean of 3)"));
    QCOMPARE(mean.trainStep, (std::vector<double>{10, 20, 30}));
    QCOMPARE(mean.trainLossLow.size(), size_t(3));
    QVERIFY(std::abs(mean.trainLoss[1] - 0.4) < 1e-12);
    QVERIFY(std::abs(mean.evalAccuracy[2] - 0.925) < 1e-12);
}

void tst_CompareRuns::repeatWithSeeds()
{
    // Repeat with Seeds is a sweep over seed: model_dir-seeds/run-001, … with sweep.json.
    QCOMPARE(seedSweepDir("/runs/model/"), std::string("/runs/model-seeds"));
    TrainingOptions o;
    o.seed = 42;
    o.model_dir = "/runs/model";
    const SweepFile three = seedSweep(o, 3);
    QCOMPARE(three.runs.size(), size_t(3));
    QCOMPARE(three.spec.parameters.size(), size_t(1));
    QCOMPARE(three.spec.parameters[0].name, std::string("seed"));
    QCOMPARE(three.runs[2].run.name, std::string("run-003"));
    QCOMPARE(three.runs[2].run.values, (std::vector<std::pair<std::string, double>>{{"seed", 44.0}}));
    for (const std::string &flag : three.base_flags)
        QVERIFY2(flag.rfind("--seed", 0) != 0 && flag.rfind("--model_dir", 0) != 0, flag.c_str());
    const SweepDriver planned("/runs/model-seeds", three);
    const QueuedRun third = sweepQueuedRun(o, RunPurpose::Train, planned, 2, true);
    QCOMPARE(third.options.seed, int64_t(44));
    QCOMPARE(third.options.model_dir, std::string("/runs/model-seeds/run-003"));
    QCOMPARE(third.label, QStringLiteral("seed 44"));

    QTemporaryDir dir;
    TrainingOptions base = wbtest::writeTinyRun(dir);
    base.seed = 5;
    MainWindow w;
    w.setOptions(base);
    auto seen = std::make_shared<std::vector<std::string>>();
    auto mutex = std::make_shared<std::mutex>();
    w.runSession()->controller()->setRunFunction([seen, mutex](const PreparedRun &p, TrainingObserver &obs, const StopToken &) {
        {
            std::lock_guard<std::mutex> lock(*mutex);
            seen->push_back(p.options.model_dir + " " + std::to_string(p.options.seed));
        }
        RunFinished r;
        r.status = RunStatus::Completed;
        obs.runFinished(r);
        return r;
    });
    RunQueue *queue = w.repeatWithSeeds(3);
    QVERIFY(queue);
    QCOMPARE(queue->objectName(), QStringLiteral("runQueue"));
    QSignalSpy done(queue, &RunQueue::finished);
    QVERIFY(done.wait(60000));
    const std::string sweepDir = base.model_dir + "-seeds";
    QCOMPARE(*seen, (std::vector<std::string>{sweepDir + "/run-001 5", sweepDir + "/run-002 6", sweepDir + "/run-003 7"}));
    QVERIFY(w.findChild<RunsTable *>()->groupSeeds());
    QVERIFY2(w.logText().contains(QStringLiteral("All 3 run(s) completed; Compare runs groups them.")), qPrintable(w.logText()));
    // sweep.json as any sweep keeps it; its runs are one seed group (Group seeds reads it).
    const auto file = readSweepFile(sweepDir);
    QVERIFY(file);
    QCOMPARE(file->runs.size(), size_t(3));
    for (const SweepRunRecord &r : file->runs)
        QCOMPARE(r.status, SweepRunStatus::Completed);
    const std::string group = QFileInfo(QString::fromStdString(sweepDir)).fileName().toStdString();
    QCOMPARE(sweepSeedGroup(sweepDir + "/run-002"), group);
    // The same settings with another number of seeds: refused, the folder left as it is.
    QVERIFY(!w.repeatWithSeeds(2));
    QVERIFY2(w.logText().contains(QStringLiteral("Repeat with Seeds did not start: ") + QString::fromStdString(sweepDir)
                                  + QStringLiteral("/sweep.json: holds another Repeat with Seeds (other settings or seeds)")),
             qPrintable(w.logText()));
    QCOMPARE(readSweepFile(sweepDir)->runs.size(), size_t(3));
}

void tst_CompareRuns::sweepViewSortsAndBrushes()
{
    // Three runs of a sweep: learning_rate 1e-4, 5e-4, 1e-3 with final accuracy 0.8, 0.9, 0.7.
    QTemporaryDir root;
    const double lr[] = {1e-4, 5e-4, 1e-3}, acc[] = {0.8, 0.9, 0.7};
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    for (int i = 0; i < 3; ++i) {
        const QString dir = root.filePath(QStringLiteral("run-00%1").arg(i + 1));
        writeRunMetrics(dir, 0.5, 0.6, acc[i]);
        TrainingOptions o;
        o.learning_rate = lr[i];
        o.model_dir = dir.toStdString();
        ProjectFile::save(dir + QStringLiteral("/bert_workbench_project.json"), o);
        QVERIFY(runs.addRun(dir + QStringLiteral("/metrics.jsonl"), false));
    }
    SweepView *view = runs.showSweepView();
    QVERIFY(view);
    QCOMPARE(view->plot()->axes(), (QStringList{QStringLiteral("learning_rate"), QStringLiteral("eval_accuracy")}));
    const auto column = [view](int c) {
        QStringList out;
        for (int r = 0; r < view->table()->rowCount(); ++r)
            if (!view->table()->isRowHidden(r))
                out << view->table()->item(r, c)->text();
        return out;
    };
    QCOMPARE(column(0), (QStringList{QStringLiteral("run-002"), QStringLiteral("run-001"), QStringLiteral("run-003")}));
    QCOMPARE(column(1), (QStringList{QStringLiteral("0.9"), QStringLiteral("0.8"), QStringLiteral("0.7")}));
    QCOMPARE(column(2), (QStringList{QStringLiteral("0.0005"), QStringLiteral("0.0001"), QStringLiteral("0.001")}));
    // Brushing learning_rate to [2e-4, 2e-3] leaves run-002 and run-003.
    view->plot()->setBrush(0, std::make_pair(2e-4, 2e-3));
    QCOMPARE(view->plot()->visibleLines(), (std::vector<int>{1, 2}));
    QCOMPARE(column(0), (QStringList{QStringLiteral("run-002"), QStringLiteral("run-003")}));
    view->plot()->setBrush(1, std::make_pair(0.85, 1.0)); // and the metric
    QCOMPARE(column(0), (QStringList{QStringLiteral("run-002")}));
    view->plot()->setBrush(0, std::nullopt);
    view->plot()->setBrush(1, std::nullopt);
    QCOMPARE(column(0).size(), 3);
    // By eval_loss: lowest first (all equal here: list order).
    view->setMetric(QStringLiteral("eval_loss"));
    QCOMPARE(view->table()->horizontalHeaderItem(1)->text(), QStringLiteral("Eval loss"));
    QCOMPARE(column(0), (QStringList{QStringLiteral("run-001"), QStringLiteral("run-002"), QStringLiteral("run-003")}));
}

void tst_CompareRuns::sweepDialogRunsThePlanThroughTheQueue()
{
    QTemporaryDir dir;
    const TrainingOptions base = wbtest::writeTinyRun(dir);
    MainWindow w;
    w.setOptions(base);
    auto seen = std::make_shared<std::vector<std::string>>();
    auto mutex = std::make_shared<std::mutex>();
    w.runSession()->controller()->setRunFunction([seen, mutex](const PreparedRun &p, TrainingObserver &obs, const StopToken &) {
        {
            std::lock_guard<std::mutex> lock(*mutex);
            seen->push_back(QFileInfo(QString::fromStdString(p.options.model_dir)).fileName().toStdString() + " lr="
                            + QString::number(*p.options.learning_rate).toStdString() + " seed=" + std::to_string(p.options.seed));
        }
        std::filesystem::create_directories(p.options.model_dir);
        std::ofstream(p.options.model_dir + "/training_summary.json") << R"({"total_training_steps": 16, "train_loss": 0.25})";
        RunFinished r;
        r.status = RunStatus::Completed;
        obs.runFinished(r);
        return r;
    });
    SweepDialog *d = w.openSweepDialog();
    QVERIFY(d);
    const QString folder = dir.filePath(QStringLiteral("sweep"));
    d->findChild<QLineEdit *>(QStringLiteral("sweepFolder"))->setText(folder);
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_learning_rate"))->setText(QStringLiteral("1e-3,5e-4"));
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,2"));
    auto *planText = d->findChild<QLabel *>(QStringLiteral("sweepPlanText"));
    QCOMPARE(planText->text(), QStringLiteral("4 run(s), one after another."));
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,x"));
    QVERIFY2(planText->text().startsWith(QStringLiteral("\u201cSweep \u2192 values of an option\u201d: \"seed=1,x\": \"x\" is not a number\n")),
             qPrintable(planText->text()));
    QVERIFY2(planText->text().contains(QStringLiteral("write the values as numbers, e.g. learning_rate=1e-5,5e-5")),
             qPrintable(planText->text()));
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,2"));
    QSignalSpy done(w.findChild<RunQueue *>(QStringLiteral("runQueue")), &RunQueue::finished);
    d->findChild<QPushButton *>(QStringLiteral("startSweep"))->click();
    QVERIFY(done.wait(60000));
    QCOMPARE(*seen, (std::vector<std::string>{"run-001 lr=0.001 seed=1", "run-002 lr=0.001 seed=2",
                                              "run-003 lr=0.0005 seed=1", "run-004 lr=0.0005 seed=2"}));
    const auto file = readSweepFile(folder.toStdString());
    QVERIFY(file);
    QCOMPARE(file->runs.size(), size_t(4));
    for (const SweepRunRecord &r : file->runs) {
        QCOMPARE(r.status, SweepRunStatus::Completed);
        QCOMPARE(r.final_metrics.at("train_loss"), 0.25);
    }
    // The same plan again: nothing left to train (the CLI would skip them too).
    w.openSweepDialog();
    QCOMPARE(planText->text(), QStringLiteral("4 of 4 run(s) already completed in this folder; 0 to go."));
}

void tst_CompareRuns::sweepDialogTrainsTwoRunsAtOnce()
{
    // "Runs at once" 2: bert-workbench-cli sweep --max_concurrent_runs 2 trains both runs at the
    // same time, each a real tiny run in its own process.
    const char *cli = WB_BINARY_DIR "/app/cli/bert-workbench-cli";
    QVERIFY2(QFile::exists(QString::fromLatin1(cli)), cli);
    qputenv("BERT_WORKBENCH_CLI", cli);
    QTemporaryDir dir;
    wbtest::TinyRun tiny;
    tiny.train_size = 16;
    tiny.eval_size = 8;
    const bool screenshots = !qEnvironmentVariableIsEmpty("WB_SCREENSHOT_DIR");
    tiny.num_train_epochs = screenshots ? 60 : 1; // the screenshot is taken while both train
    tiny.batch_size = screenshots ? 1 : tiny.batch_size;
    const TrainingOptions base = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
    MainWindow w;
    w.setOptions(base);
    if (screenshots) {
        w.resize(QGuiApplication::primaryScreen()->availableSize());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
    }
    SweepDialog *d = w.openSweepDialog();
    const QString folder = dir.filePath(QStringLiteral("sweep"));
    d->findChild<QLineEdit *>(QStringLiteral("sweepFolder"))->setText(folder);
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,2"));
    d->findChild<QSpinBox *>(QStringLiteral("sweepRunsAtOnce"))->setValue(2);
    QCOMPARE(d->findChild<QLabel *>(QStringLiteral("sweepPlanText"))->text(),
             QStringLiteral("2 run(s), up to 2 at once, each in its own process."));
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_learning_rate"))->setText(screenshots ? QStringLiteral("1e-3") : QString());
    screenGrab(QStringLiteral("sweep-dialog"));
    QStringList statusWithTwo;
    connect(w.statusBar(), &QStatusBar::messageChanged, &w, [&statusWithTwo](const QString &m) {
        if (m.contains(QStringLiteral("(2 at once)")))
            statusWithTwo << m;
    });
    d->findChild<QPushButton *>(QStringLiteral("startSweep"))->click();
    auto *sweep = w.findChild<ConcurrentSweep *>(QStringLiteral("concurrentSweep"));
    QVERIFY(sweep);
    QVERIFY(sweep->isRunning());
    QVERIFY(w.findChild<QAction *>(QStringLiteral("stopAction"))->isEnabled()); // Stop stops the sweep
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QSignalSpy done(sweep, &ConcurrentSweep::finished);
    if (screenshots) {
        QTRY_VERIFY_WITH_TIMEOUT(!statusWithTwo.isEmpty() && w.logText().contains(QStringLiteral("[run-001] step"))
                                     && w.logText().contains(QStringLiteral("[run-002] step")),
                                 60000);
        auto *tabs = w.findChild<QTabWidget *>();
        tabs->setCurrentWidget(w.findChild<QWidget *>(QStringLiteral("logTab")));
        screenGrab(QStringLiteral("sweep-two-at-once"));
    }
    QVERIFY(done.wait(screenshots ? 600000 : 120000));
    QCOMPARE(done.first().first().toInt(), 0);
    QCOMPARE(sweep->mostAtOnce(), 2); // both trained at the same time
    QCOMPARE(statusWithTwo.value(0), QStringLiteral("Sweep: training run-001, run-002 (2 at once)"));
    QVERIFY2(w.logText().contains(QStringLiteral("[run-002] ")), qPrintable(w.logText()));
    const auto file = readSweepFile(folder.toStdString());
    QVERIFY(file);
    for (const SweepRunRecord &r : file->runs) {
        QCOMPARE(r.status, SweepRunStatus::Completed);
        QVERIFY(QFile::exists(folder + QStringLiteral("/") + QString::fromStdString(r.run.name)
                              + QStringLiteral("/training_summary.json")));
    }
    QVERIFY(w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QCOMPARE(w.findChild<ProgressPanel *>()->statusText(), QStringLiteral("Sweep completed"));
}

void tst_CompareRuns::groupSeedsGroupsASweepOverSeed()
{
    // A sweep over learning_rate × seed (run-001 1e-3/1, run-002 1e-3/2, run-003 5e-4/1,
    // run-004 5e-4/2), Repeat with Seeds' sweep (model-seeds: seed alone) and a sweep that does
    // not vary seed (lr-only): Group seeds groups the runs that differ in seed only.
    QTemporaryDir root;
    const auto plan = [&root](const char *folder, const std::vector<std::string> &params) {
        SweepFile f;
        for (const std::string &p : params)
            f.spec.parameters.push_back(parseSweepParameter(p));
        f = SweepDriver::withPlannedRuns(f);
        SweepDriver d(root.filePath(QLatin1String(folder)).toStdString(), f);
        d.save();
        std::vector<QString> runs;
        for (size_t i = 0; i < f.runs.size(); ++i)
            runs.push_back(QString::fromStdString(d.runDir(i)));
        return runs;
    };
    std::vector<QString> dirs;
    for (const QString &d : plan("sweep", {"learning_rate=1e-3,5e-4", "seed=1,2"}))
        dirs.push_back(d);
    for (const QString &d : plan("model-seeds", {"seed=7,8,9"}))
        dirs.push_back(d);
    for (const QString &d : plan("lr-only", {"learning_rate=1e-3,5e-4"}))
        dirs.push_back(d);
    const double acc[] = {0.8, 0.9, 0.6, 0.7, 0.9, 0.95, 0.925, 0.5, 0.55};
    LossPlot plot;
    RunsTable runs;
    wireOverlays(runs, plot);
    for (size_t i = 0; i < dirs.size(); ++i) {
        writeRunMetrics(dirs[i], 0.5, 0.6, acc[i]);
        QVERIFY(runs.addRun(dirs[i] + QStringLiteral("/metrics.jsonl"), true));
    }
    QCOMPARE(runs.runs()[1].seedGroup, QStringLiteral("sweep learning_rate=0.001"));
    QCOMPARE(runs.runs()[7].seedGroup, QString());
    const auto groups = seedGroups(runs.runs());
    QCOMPARE(groups.size(), size_t(3));
    QCOMPARE(groups[0].name, QStringLiteral("sweep learning_rate=0.001"));
    QCOMPARE(groups[0].rows, (std::vector<int>{0, 1}));
    QCOMPARE(groups[1].name, QStringLiteral("sweep learning_rate=0.0005"));
    QCOMPARE(groups[1].rows, (std::vector<int>{2, 3}));
    QCOMPARE(groups[2].name, QStringLiteral("model-seeds"));
    QCOMPARE(groups[2].rows, (std::vector<int>{4, 5, 6}));
    QCOMPARE(runs.groupsTable()->rowCount(), 3);
    QCOMPARE(runs.groupsTable()->item(2, 0)->text(), QStringLiteral("model-seeds"));
    QCOMPARE(runs.groupsTable()->item(2, 2)->text(), QStringLiteral("0.925 ± 0.025 (0.9–0.95, n = 3)"));
    QCOMPARE(plot.comparisonRunCount(), 9);
    runs.setGroupSeeds(true);
    QCOMPARE(plot.comparisonRunCount(), 5); // three means and the two lr-only runs
}

void tst_CompareRuns::concurrentSweepFollowsItsEvents()
{
    // A sweep's event stream (bert-workbench-cli sweep --progress_format=jsonl), fed as the child
    // process would: the runs training follow run_started/run_ended only, never prose.
    ConcurrentSweep sweep;
    QList<QStringList> training;
    QStringList lines;
    connect(&sweep, &ConcurrentSweep::trainingChanged, &sweep, [&training](const QStringList &runs) { training << runs; });
    connect(&sweep, &ConcurrentSweep::line, &sweep, [&lines](const QString &l) { lines << l; });
    const char *stream[] = {
        R"({"event":"sweep_started","sweep_dir":"/s","method":"grid","metric":"eval_accuracy","runs":3,"to_train":2,"max_concurrent_runs":2})",
        R"({"event":"run_skipped","run":"run-001"})",
        R"({"event":"run_started","run":"run-002","number":2,"runs":3,"values":{"learning_rate":0.001,"seed":2},"model_dir":"/s/run-002"})",
        R"({"event":"run_started","run":"run-003","number":3,"runs":3,"values":{"learning_rate":0.001,"seed":3},"model_dir":"/s/run-003"})",
        R"({"event":"run_progress","run":"run-002","data":{"event":"step","step":3,"total_steps":8,"epoch":0.4,"loss":0.5,"learning_rate":0.001,"examples_per_second":10,"wall_time":1}})",
        R"({"event":"run_progress","run":"run-003","data":{"event":"checkpoint","step":4,"path":"/s/run-003/ckpt-4"}})",
        R"({"event":"run_log","run":"run-003","line":"note: a warning"})",
        "run-004 (4/4): seed=4", // prose (an older CLI's text): passed on, never read as a start
        R"({"event":"run_ended","run":"run-002","status":"completed","exit_code":0,"metric":"eval_accuracy","value":0.75,"final_metrics":{"eval_accuracy":0.75}})",
        R"({"event":"run_ended","run":"run-003","status":"failed","exit_code":1,"metric":"eval_accuracy","value":null,"final_metrics":{}})",
        R"({"event":"sweep_finished","status":"failed","exit_code":1,"runs":3,"completed":2,"stopped":0,"failed":1,"best_run":"run-002"})"};
    for (const char *l : stream)
        sweep.readEventLine(QString::fromUtf8(l));
    QCOMPARE(training, (QList<QStringList>{{QStringLiteral("run-002")},
                                           {QStringLiteral("run-002"), QStringLiteral("run-003")},
                                           {QStringLiteral("run-003")},
                                           {}}));
    QCOMPARE(sweep.mostAtOnce(), 2);
    QCOMPARE(sweep.training(), QStringList());
    QCOMPARE(sweep.finishedStatus(), QStringLiteral("failed"));
    QCOMPARE(lines, (QStringList{QStringLiteral("sweep /s: 3 run(s), grid; 2 to train, up to 2 at once"),
                                 QStringLiteral("run-001: completed, skipped"),
                                 QStringLiteral("run-002 (2/3): learning_rate=0.001 seed=2"),
                                 QStringLiteral("run-003 (3/3): learning_rate=0.001 seed=3"),
                                 QStringLiteral("[run-002] step 3/8  loss 0.5"),
                                 QStringLiteral("[run-003] Saved checkpoint /s/run-003/ckpt-4"),
                                 QStringLiteral("[run-003] note: a warning"),
                                 QStringLiteral("run-004 (4/4): seed=4"),
                                 QStringLiteral("run-002: completed"),
                                 QStringLiteral("run-003: failed (exit 1)"),
                                 QStringLiteral("sweep failed: 2 completed, 0 stopped, 1 failed; best run-002")}));
}

QTEST_MAIN(tst_CompareRuns)
#include "tst_compareruns.moc"
