// SPDX-License-Identifier: Apache-2.0
// Issue 44, items 4 and 5: the Sweep view a finished sweep opens shows that sweep's runs (not
// their neighbours in Compare runs), one axis per swept option and eval accuracy, with titles
// that do not overlap; sweeps go beside run-1 as sweep-1 and their runs read sweep-1/run-001;
// a sweep with runs at once is followed live by the plot and the progress row; Group seeds
// groups runs that differ in seed only, a sweep's or not.
#include "ui/window/concurrentsweep.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"
#include "ui/window/sweepdialog.h"

#include "core/formats/sweep.h"
#include "core/formats/sweepdriver.h"
#include "core/formats/sweepnames.h"
#include "core/io/metricswriter.h"
#include "tinyrun.h"
#include "ui/form/projectfile.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/rungroup.h"
#include "ui/runs/runstable.h"
#include "ui/runs/sweepview.h"
#include "ui/runs/trainingcontroller.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

/// metrics.jsonl of a finished run: train losses at steps 2 and 4, evaluations at 2 and 4 (the
/// last with `accuracy`).
void writeMetrics(const QString &modelDir, double accuracy)
{
    QVERIFY(QDir().mkpath(modelDir));
    MetricsWriter writer((modelDir + QStringLiteral("/metrics.jsonl")).toStdString());
    for (int step : {2, 4}) {
        StepMetrics s;
        s.step = step;
        s.total_steps = 4;
        s.loss = 0.7 - 0.1 * step;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + step;
        writer.writeTrain(s);
        EvalMetrics e;
        e.step = step;
        e.eval_loss = 1.0 - accuracy + 0.05 * (4 - step);
        e.eval_accuracy = step == 4 ? accuracy : accuracy - 0.1;
        e.num_examples = 16;
        e.wall_time = 1000 + step;
        writer.writeEval(e);
    }
}

/// A sweep's accuracy: best at learning_rate 5e-4, a little spread by seed.
double accuracyOf(double lr, int64_t seed) { return 0.95 - 200 * std::abs(lr - 5e-4) + 0.01 * double(seed % 2); }

/// With WB_SCREENSHOT_DIR set (under xvfb-run), saves the whole screen as
/// <dir>/<name>-<W>x<H>.png. Otherwise nothing.
void screenGrab(const QString &name)
{
    const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QTest::qWait(600);
    QScreen *screen = QGuiApplication::primaryScreen();
    const QSize size = screen->size();
    QVERIFY(screen->grabWindow(0).save(
        QDir(dir).filePath(QStringLiteral("%1-%2x%3.png").arg(name).arg(size.width()).arg(size.height()))));
}

/// Whether no two of `rects` overlap and all lie within [0, width].
bool apartAndInside(const std::vector<QRectF> &rects, int width)
{
    for (size_t i = 0; i < rects.size(); ++i) {
        if (rects[i].left() < 0 || rects[i].right() > width)
            return false;
        for (size_t j = i + 1; j < rects.size(); ++j)
            if (rects[i].intersects(rects[j]))
                return false;
    }
    return true;
}

} // namespace

class tst_SweepWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sweepNamesSitBesideRuns();
    void sweepViewAfterASweepShowsThatSweep();
    void axisTitlesNeverOverlap();
    void twoAtOnceIsFollowedLive();
    void followedRunMovesOnWhenItEnds();
};

void tst_SweepWindow::sweepNamesSitBesideRuns()
{
    QTemporaryDir root;
    const std::string runs = root.filePath(QStringLiteral("runs")).toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(runs + "/run-1")));
    QCOMPARE(nextSweepDir(runs + "/run-1"), runs + "/sweep-1");
    QCOMPARE(nextSweepDir(runs + "/run-1/"), runs + "/sweep-1");
    // A sweep's folder exists: the next one is sweep-2; a run of that sweep proposes beside it.
    SweepFile f;
    f.spec.parameters.push_back(parseSweepParameter("seed=1,2"));
    f = SweepDriver::withPlannedRuns(f);
    writeSweepFile(runs + "/sweep-1", f);
    QCOMPARE(nextSweepDir(runs + "/run-1"), runs + "/sweep-2");
    QCOMPARE(nextSweepDir(runs + "/sweep-1/run-002"), runs + "/sweep-2");
    QCOMPARE(runDisplayName(runs + "/sweep-1/run-002"), std::string("sweep-1/run-002"));
    QCOMPARE(runDisplayName(runs + "/run-1"), std::string("run-1"));
    QCOMPARE(runDisplayName(runs + "/sweep-1/run-009"), std::string("run-009")); // not in its plan
    const auto m = sweepMembership(runs + "/sweep-1/run-001");
    QVERIFY(m);
    QCOMPARE(m->swept, (std::vector<std::string>{"seed"}));
    QCOMPARE(m->metric, std::string("eval_accuracy"));
    // An older sweep folder (any name, run-001 …) still opens: its runs are named by it.
    writeSweepFile(runs + "/lr-sweep", f);
    QCOMPARE(runDisplayName(runs + "/lr-sweep/run-001"), std::string("lr-sweep/run-001"));
}

namespace {

/// sweepViewAfterASweepShowsThatSweep's first step: run-1 … run-3 listed in Compare runs beside the
/// sweep to come (run-1 and run-2 differ in seed only, run-3 in warmup_fraction too).
void addNeighbourRuns(MainWindow &w, const QTemporaryDir &dir, const TrainingOptions &base)
{
    auto *runsTable = w.findChild<RunsTable *>();
    QVERIFY(runsTable);
    const double neighbourAcc[] = {0.7, 0.74, 0.6};
    for (int i = 1; i <= 3; ++i) {
        const QString d = dir.filePath(QStringLiteral("run-%1").arg(i));
        writeMetrics(d, neighbourAcc[i - 1]);
        TrainingOptions o = base;
        o.seed = 10 + i;
        o.warmup_fraction = i == 3 ? 0.25 : base.warmup_fraction;
        o.model_dir = d.toStdString();
        ProjectFile::save(d + QStringLiteral("/bert_workbench_project.json"), o);
        QVERIFY(runsTable->addRun(d + QStringLiteral("/metrics.jsonl"), false));
    }
}

/// Its second: a 3 × 2 grid (learning_rate × seed) run through the window's sweep dialog with a
/// stand-in training run; the progress row names the sweep's run.
void runSixRunSweep(MainWindow &w, const QTemporaryDir &dir)
{
    w.runSession()->controller()->setRunFunction([](const PreparedRun &p, TrainingObserver &obs, const StopToken &) {
        writeMetrics(QString::fromStdString(p.options.model_dir), accuracyOf(*p.options.learning_rate, p.options.seed));
        RunStarted info;
        info.total_steps = 4;
        info.device = "cpu";
        info.model_dir = p.options.model_dir;
        obs.runStarted(info);
        RunFinished r;
        r.status = RunStatus::Completed;
        r.last_step = 4;
        obs.runFinished(r);
        return r;
    });
    SweepDialog *d = w.openSweepDialog();
    // The progress row says which of the sweep's runs trains (read after the window's own slots).
    QStringList rows;
    QObject::connect(w.runSession()->controller(), &TrainingController::runStarted, &w,
            [&] { rows << w.findChild<ProgressPanel *>()->statusText(); });
    const QString folder = d->findChild<QLineEdit *>(QStringLiteral("sweepFolder"))->text();
    QCOMPARE(folder, dir.filePath(QStringLiteral("sweep-1"))); // beside model and run-1 … run-3
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_learning_rate"))->setText(QStringLiteral("1e-3,5e-4,1e-4"));
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,2"));
    QCOMPARE(d->findChild<QLabel *>(QStringLiteral("sweepPlanText"))->text(), QStringLiteral("6 run(s), one after another."));
    QSignalSpy done(w.findChild<RunQueue *>(QStringLiteral("runQueue")), &RunQueue::finished);
    d->findChild<QPushButton *>(QStringLiteral("startSweep"))->click();
    QVERIFY(done.wait(60000));
    QCOMPARE(rows.size(), 6);
    QCOMPARE(rows.value(1), QStringLiteral("Training on cpu · sweep-1: run 2 of 6"));

}

/// Its third: the sweep view opens on exactly the sweep's six runs, not its neighbours, with one
/// axis per swept option and the metric, best first.
void checkTheSweepView(MainWindow &w, bool screenshots)
{
    // The view opens on exactly the sweep's six runs, not its neighbours.
    SweepView *view = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((view = w.findChild<SweepView *>()) && view->isVisible(), 30000);
    QStringList names;
    for (const RunHistory &r : view->runs())
        names << r.name;
    names.sort();
    QCOMPARE(names, (QStringList{QStringLiteral("sweep-1/run-001"), QStringLiteral("sweep-1/run-002"),
                                 QStringLiteral("sweep-1/run-003"), QStringLiteral("sweep-1/run-004"),
                                 QStringLiteral("sweep-1/run-005"), QStringLiteral("sweep-1/run-006")}));
    QCOMPARE(view->table()->rowCount(), 6);
    QCOMPARE(view->findChild<QLabel *>(QStringLiteral("sweepTitle"))->text(),
             QStringLiteral("sweep-1: 6 run(s), grid over Learning rate × Random seed"));
    // One axis per swept option and the metric: eval accuracy; eval loss selectable, train loss not.
    QCOMPARE(view->plot()->axes(),
             (QStringList{QStringLiteral("learning_rate"), QStringLiteral("seed"), QStringLiteral("eval_accuracy")}));
    QCOMPARE(view->plot()->titles(),
             (QStringList{QStringLiteral("Learning rate"), QStringLiteral("Random seed"), QStringLiteral("Eval accuracy")}));
    QCOMPARE(view->metric(), QStringLiteral("eval_accuracy"));
    auto *metric = view->findChild<QComboBox *>(QStringLiteral("sweepMetric"));
    QStringList offered;
    for (int i = 0; i < metric->count(); ++i)
        offered << metric->itemData(i).toString();
    QCOMPARE(offered, (QStringList{QStringLiteral("eval_accuracy"), QStringLiteral("best_eval_accuracy"), QStringLiteral("eval_loss")}));
    // Best first: learning_rate 5e-4 with the odd seed.
    QCOMPARE(view->table()->horizontalHeaderItem(1)->text(), QStringLiteral("Eval accuracy"));
    QCOMPARE(view->table()->item(0, 0)->text(), QStringLiteral("sweep-1/run-003"));
    QCOMPARE(view->table()->item(0, 1)->text(), QStringLiteral("0.96"));
    QCOMPARE(view->table()->item(0, 2)->text(), QStringLiteral("0.0005"));
    QCOMPARE(view->table()->item(0, 3)->text(), QStringLiteral("1"));
    view->setMetric(QStringLiteral("eval_loss"));
    QCOMPARE(view->plot()->axes().last(), QStringLiteral("eval_loss"));
    QCOMPARE(view->table()->item(0, 0)->text(), QStringLiteral("sweep-1/run-003")); // the lowest loss
    view->setMetric(QStringLiteral("eval_accuracy"));
    for (const QSize size : {QSize(980, 620), QSize(1500, 900)}) {
        view->resize(size);
        QVERIFY(apartAndInside(view->plot()->titleRects(), view->plot()->width()));
    }
    if (screenshots) {
        const QSize avail = QGuiApplication::primaryScreen()->availableSize();
        view->resize(std::min(1100, avail.width() - 40), std::min(660, avail.height() - 40));
        view->move(w.geometry().center() - view->rect().center());
        screenGrab(QStringLiteral("sweep-view-after-sweep"));
        QVERIFY(apartAndInside(view->plot()->titleRects(), view->plot()->width()));
    }
    view->close();

}

} // namespace

void tst_SweepWindow::sweepViewAfterASweepShowsThatSweep()
{
    QTemporaryDir dir;
    TrainingOptions base = wbtest::writeTinyRun(dir);
    base.learning_rate = 3e-4;
    MainWindow w;
    w.setOptions(base);
    const bool screenshots = !qEnvironmentVariableIsEmpty("WB_SCREENSHOT_DIR");
    if (screenshots) {
        w.resize(QGuiApplication::primaryScreen()->availableSize());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
    }
    addNeighbourRuns(w, dir, base);
    if (QTest::currentTestFailed())
        return;
    runSixRunSweep(w, dir);
    if (QTest::currentTestFailed())
        return;
    checkTheSweepView(w, screenshots);
    if (QTest::currentTestFailed())
        return;
    auto *runsTable = w.findChild<RunsTable *>();
    auto *view = w.findChild<SweepView *>();

    // Compare runs' own Sweep view button with the six selected: the same sweep.
    runsTable->table()->clearSelection();
    runsTable->table()->setSelectionMode(QAbstractItemView::MultiSelection);
    for (int r = 0; r < runsTable->runCount(); ++r)
        if (runsTable->runs()[size_t(r)].name.startsWith(QLatin1String("sweep-1/")))
            runsTable->table()->selectRow(r);
    QCOMPARE(runsTable->findChild<QPushButton *>(QStringLiteral("sweepViewButton"))->isEnabled(), true);
    runsTable->findChild<QPushButton *>(QStringLiteral("sweepViewButton"))->click();
    QCOMPARE(view->runs().size(), size_t(6));
    QCOMPARE(view->plot()->axes().size(), 3);
    view->close();


    // Group seeds: the sweep's runs of one learning rate, and run-1 with run-2 (no sweep).
    runsTable->setGroupSeeds(true);
    QTableWidget *groups = runsTable->groupsTable();
    QStringList groupNames;
    for (int r = 0; r < groups->rowCount(); ++r)
        groupNames << groups->item(r, 0)->text() + QStringLiteral(" | ") + groups->item(r, 1)->text();
    groupNames.sort();
    QCOMPARE(groupNames, (QStringList{QStringLiteral("run-1, run-2 | 2"), QStringLiteral("sweep-1 learning_rate=0.0001 | 2"),
                                      QStringLiteral("sweep-1 learning_rate=0.0005 | 2"),
                                      QStringLiteral("sweep-1 learning_rate=0.001 | 2")}));
    QVERIFY(!groups->isHidden());
}

void tst_SweepWindow::axisTitlesNeverOverlap()
{
    // Seven long titles on a narrow view: two rows, elided where they must be, never overlapping.
    ParallelCoordinates pc;
    const QStringList axes{QStringLiteral("learning_rate"), QStringLiteral("train_batch_size"),
                           QStringLiteral("num_train_epochs"), QStringLiteral("warmup_fraction"),
                           QStringLiteral("weight_decay_rate"), QStringLiteral("seed"), QStringLiteral("eval_accuracy")};
    QStringList titles;
    for (const QString &a : axes)
        titles << sweepAxisTitle(a) + QStringLiteral(" (a long title)");
    std::vector<ParallelLine> lines{{QStringLiteral("a"), {1e-4, 16, 2, 0.1, 0.01, 1, 0.8}},
                                    {QStringLiteral("b"), {1e-3, 32, 3, 0.0, 0.0, 2, 0.9}}};
    pc.setData(axes, lines, titles);
    for (const int width : {500, 800, 1000, 1500}) {
        pc.resize(width, 300);
        QVERIFY2(apartAndInside(pc.titleRects(), width), qPrintable(QString::number(width)));
    }
    // Runs not known to be one sweep: the sweepable options they differ in, not the
    // architecture or what follows from other settings.
    std::vector<RunHistory> runs(2);
    runs[0].settings = {{"learning_rate", "0.001"}, {"bert_config.hidden_size", "128"}, {"total_steps", "10"}, {"seed", "1"}};
    runs[1].settings = {{"learning_rate", "0.0005"}, {"bert_config.hidden_size", "32"}, {"total_steps", "20"}, {"seed", "1"}};
    QCOMPARE(sweepAxesOf(runs), QStringList{QStringLiteral("learning_rate")});
    runs[1].settings["learning_rate"] = "0.001";
    runs[1].settings["max_seq_length"] = "64";
    runs[0].settings["max_seq_length"] = "128";
    QCOMPARE(sweepAxesOf(runs), QStringList{QStringLiteral("max_seq_length")});
    // Train loss only when no run was evaluated.
    QCOMPARE(sweepMetricsOf(runs), QStringList{QStringLiteral("train_loss")});
}

void tst_SweepWindow::twoAtOnceIsFollowedLive()
{
    // Four real tiny runs, two at a time (bert-workbench-cli sweep --max_concurrent_runs 2): the
    // plot and the progress row show a run of the sweep as it trains, not the run shown before.
    const char *cli = WB_BINARY_DIR "/app/cli/bert-workbench-cli";
    QVERIFY2(QFile::exists(QString::fromLatin1(cli)), cli);
    qputenv("BERT_WORKBENCH_CLI", cli);
    QTemporaryDir dir;
    wbtest::TinyRun tiny;
    tiny.train_size = 32;
    tiny.eval_size = 8;
    tiny.batch_size = 4;
    tiny.num_train_epochs = 1;
    const TrainingOptions base = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
    MainWindow w;
    w.setOptions(base);
    auto *progress = w.findChild<ProgressPanel *>();
    auto *bar = progress->findChild<QProgressBar *>(QStringLiteral("progress"));
    auto *plot = w.findChild<LossPlot *>();
    RunEnd older; // an older run shown before the sweep
    older.kind = RunEnd::Kind::Completed;
    older.last_step = older.total_steps = 336;
    progress->showRecordedRun(older);
    QCOMPARE(bar->value(), 336);
    SweepDialog *d = w.openSweepDialog();
    d->findChild<QLineEdit *>(QStringLiteral("sweepParam_seed"))->setText(QStringLiteral("1,2,3,4"));
    d->findChild<QSpinBox *>(QStringLiteral("sweepRunsAtOnce"))->setValue(2);
    d->findChild<QPushButton *>(QStringLiteral("startSweep"))->click();
    auto *sweep = w.findChild<ConcurrentSweep *>(QStringLiteral("concurrentSweep"));
    QVERIFY(sweep && sweep->isRunning());
    struct Seen
    {
        QString status, plotName;
        int value, maximum, points, overlays;
    };
    QList<Seen> seen;
    connect(sweep, &ConcurrentSweep::followedStep, &w, [&] {
        seen << Seen{progress->statusText(), plot->runName(), bar->value(), bar->maximum(),
                     plot->pointCount(LossPlot::Series::TrainLoss), plot->comparisonRunCount()};
    });
    QSignalSpy done(sweep, &ConcurrentSweep::finished);
    QVERIFY(done.wait(180000));
    QCOMPARE(done.first().first().toInt(), 0);
    QVERIFY(!seen.isEmpty());
    QSet<QString> shown;
    bool countedTwo = false, countedDone = false, otherOverlaid = false;
    for (const Seen &s : seen) {
        shown << s.plotName;
        QVERIFY2(s.plotName.startsWith(QLatin1String("sweep-1/run-00")), qPrintable(s.plotName));
        QVERIFY2(s.status.endsWith(QStringLiteral(" · the plot shows ") + s.plotName.mid(8)), qPrintable(s.status));
        QVERIFY2(s.status.startsWith(QLatin1String("Sweep: ")), qPrintable(s.status));
        countedTwo = countedTwo || s.status.contains(QLatin1String(" of 4 run(s) done, 2 training"));
        otherOverlaid = otherOverlaid || (s.status.contains(QLatin1String(", 2 training")) && s.overlays == 1);
        QVERIFY(s.overlays <= 1); // the one other run training, never the followed one twice
        // A finished run is counted while a later one is followed (how many have finished by the
        // followed run's steps depends on the machine's load: 1, 2 or 3).
        countedDone = countedDone || s.status.contains(QRegularExpression(QStringLiteral("^Sweep: [123] of 4 run\\(s\\) done")));
        QCOMPARE(s.maximum, 8); // 32 examples / batch 4: the followed run's steps, not 336
        QVERIFY(s.value >= 1 && s.value <= 8);
        QVERIFY(s.points >= 1);
    }
    QVERIFY(countedTwo);
    QVERIFY(otherOverlaid); // the other run training is drawn beside the followed one
    QStringList statuses; // for the message: the progress rows seen, each once
    for (const Seen &s : seen)
        if (!statuses.contains(s.status))
            statuses << s.status;
    QVERIFY2(countedDone, qPrintable(statuses.join(QLatin1Char('\n'))));
    QVERIFY2(shown.size() >= 2, qPrintable(QStringList(shown.values()).join(QLatin1Char(' ')))); // it moved on
    QVERIFY(shown.contains(QStringLiteral("sweep-1/run-001")));
    QCOMPARE(progress->statusText(), QStringLiteral("Sweep completed"));
    SweepView *view = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((view = w.findChild<SweepView *>()) && view->isVisible(), 30000);
    QCOMPARE(view->runs().size(), size_t(4));
    QCOMPARE(view->plot()->axes(), (QStringList{QStringLiteral("seed"), QStringLiteral("eval_accuracy")}));
}

void tst_SweepWindow::followedRunMovesOnWhenItEnds()
{
    ConcurrentSweep sweep;
    QStringList followed;
    QList<int64_t> steps;
    connect(&sweep, &ConcurrentSweep::followedChanged, &sweep, [&](const QString &r) { followed << r; });
    connect(&sweep, &ConcurrentSweep::followedStep, &sweep, [&](const StepMetrics &m) { steps << m.step; });
    const char *stream[] = {
        R"({"event":"sweep_started","sweep_dir":"/s","method":"grid","metric":"eval_accuracy","runs":3,"to_train":3,"max_concurrent_runs":2})",
        R"({"event":"run_started","run":"run-001","number":1,"runs":3,"values":{"seed":1},"model_dir":"/s/run-001"})",
        R"({"event":"run_started","run":"run-002","number":2,"runs":3,"values":{"seed":2},"model_dir":"/s/run-002"})",
        R"({"event":"run_progress","run":"run-002","data":{"event":"step","step":1,"total_steps":8,"epoch":0.1,"loss":0.6,"learning_rate":0.001,"examples_per_second":10,"wall_time":1}})",
        R"({"event":"run_progress","run":"run-001","data":{"event":"step","step":2,"total_steps":8,"epoch":0.2,"loss":0.5,"learning_rate":0.001,"examples_per_second":10,"wall_time":1}})",
        R"({"event":"run_ended","run":"run-001","status":"completed","exit_code":0,"metric":"eval_accuracy","value":0.75,"final_metrics":{}})",
        R"({"event":"run_progress","run":"run-002","data":{"event":"step","step":3,"total_steps":8,"epoch":0.3,"loss":0.4,"learning_rate":0.001,"examples_per_second":10,"wall_time":2}})"};
    for (const char *l : stream)
        sweep.readEventLine(QString::fromUtf8(l));
    QCOMPARE(followed, (QStringList{QStringLiteral("run-001"), QStringLiteral("run-002")}));
    QCOMPARE(steps, (QList<int64_t>{2, 3})); // run-002's step 1 came while run-001 was shown
    QCOMPARE(sweep.record(QStringLiteral("run-002"))->steps.size(), size_t(2)); // kept for the switch
    QCOMPARE(sweep.record(QStringLiteral("run-002"))->modelDir, QStringLiteral("/s/run-002"));
    QCOMPARE(sweep.runCount(), 3);
    QCOMPARE(sweep.doneCount(), 1);
}

QTEST_MAIN(tst_SweepWindow)
#include "tst_sweepwindow.moc"
