// SPDX-License-Identifier: Apache-2.0
// Issue 44 item 7: a run that stops early and keeps its best checkpoint says so once, the same
// way in every view (core/formats/runend.h, runEndPhrase): the progress row, the status bar, the
// Evaluation tab's title and Top losses' line, at the end of the run in the window and again
// after the project is opened in a new window (the words then come from training_summary.json
// and best/best.json).
#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/formats/runend.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/toplossesview.h"
#include "ui/form/projectfile.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/runs/trainingworker.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

namespace {

/// What every view of the run should say, worked out from the run's own report and files.
struct Expected
{
    QString status, detail, statusBar, headline, topLosses;
};

/// The texts the views of `w` show now.
Expected shown(MainWindow &w)
{
    auto *eval = w.findChild<EvaluationView *>();
    return {w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(),
            w.findChild<QLabel *>(QStringLiteral("progressDetail"))->text(),
            w.statusBar()->currentMessage(),
            eval->headlineText(),
            eval->topLosses()->statusText()};
}

void compareTexts(const Expected &got, const Expected &want, const char *when)
{
    qInfo("%s: status \"%s\"; detail \"%s\"; status bar \"%s\"; Evaluation \"%s\"; Top losses \"%s\"", when,
          qPrintable(got.status), qPrintable(got.detail), qPrintable(got.statusBar), qPrintable(got.headline),
          qPrintable(got.topLosses));
    QCOMPARE(got.status, want.status);
    QCOMPARE(got.detail, want.detail);
    QCOMPARE(got.statusBar, want.statusBar);
    QCOMPARE(got.headline, want.headline);
    QCOMPARE(got.topLosses, want.topLosses);
}

} // namespace

class tst_RunEndWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }
    void earlyStoppedRunSaysOneEndEverywhere();
};

void tst_RunEndWindow::earlyStoppedRunSaysOneEndEverywhere()
{
    QTemporaryDir dir;
    wbtest::TinyRun tiny;
    tiny.num_train_epochs = 12; // 96 steps of 8 per epoch; the learnable records plateau long before
    TrainingOptions o = wbtest::writeTinyRun(dir.path().toStdString(), tiny);
    o.best_checkpoint_metric = "eval_accuracy";
    o.early_stopping_patience = 2;
    o.keep_checkpoint_max = 1;
    const QString project = dir.filePath(QStringLiteral("early.bwproj"));
    ProjectFile::save(project, o);

    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QString error;
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    QSignalSpy finished(w.runSession(), &RunSession::runFinished);
    QSignalSpy evaluations(w.runSession()->controller(), &TrainingController::evaluationCompleted);
    QVERIFY(w.train());
    QVERIFY(checked.wait(60000));
    QVERIFY(finished.count() > 0 || finished.wait(120000));
    const auto r = finished.first().at(0).value<RunFinished>();
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QVERIFY2(r.stopped_early_at_step > 0 && r.stopped_early_at_step < 96, r.message.c_str());
    QVERIFY(r.best_step > 0 && r.best_step < r.stopped_early_at_step);
    auto *eval = w.findChild<EvaluationView *>();
    QTRY_VERIFY_WITH_TIMEOUT(!eval->topLosses()->examples().empty()
                                 && eval->topLosses()->examples().front().step == r.best_step, 30000);

    // The run's end in the words of core/formats/runend.h, and the best evaluation's numbers.
    const QString phrase = QStringLiteral("stopped early at step %1, best at step %2").arg(r.stopped_early_at_step).arg(r.best_step);
    QCOMPARE(QString::fromStdString(runEndPhrase(recordedRunEnd(o.model_dir, r.last_step, 96))), phrase);
    EvalMetrics best;
    for (const QList<QVariant> &args : std::as_const(evaluations))
        if (const auto m = args.at(0).value<EvalMetrics>(); m.step == r.best_step)
            best = m;
    QCOMPARE(best.step, r.best_step);
    const std::vector<EvalExample> kept = readEvalExamples(bestEvalExamplesPath(o.model_dir));
    QCOMPARE(int64_t(kept.size()), int64_t(16));
    int64_t wrong = 0;
    for (const EvalExample &e : kept)
        wrong += e.correct() ? 0 : 1;
    Expected want;
    want.status = QStringLiteral("Stopped early at step %1, best at step %2").arg(r.stopped_early_at_step).arg(r.best_step);
    want.detail = QStringLiteral("best model kept at step %1: Evaluation, Try it and export use it").arg(r.best_step);
    want.statusBar = want.status;
    want.headline = QStringLiteral("Evaluation at step %1 (%2) on 16 examples: loss %3")
                        .arg(r.best_step).arg(phrase).arg(best.eval_loss, 0, 'f', 4);
    want.topLosses = QStringLiteral("16 eval examples from the evaluation at step %1, of the best checkpoint (%2), which "
                                    "the model directory keeps (Try it and export use it), %3 of them wrong.")
                         .arg(r.best_step).arg(phrase).arg(wrong);
    compareTexts(shown(w), want, "at the end");
    if (QTest::currentTestFailed())
        return;

    // Opened again in a new window: the same words, from the run's files.
    MainWindow again;
    again.resize(1024, 700);
    again.show();
    QSignalSpy recorded(&again, &MainWindow::recordedRunShown);
    QSignalSpy loaded(again.findChild<EvaluationView *>()->topLosses(), &TopLossesView::examplesLoaded);
    QVERIFY2(again.openProject(project, &error), qPrintable(error));
    QVERIFY(recorded.count() > 0 || recorded.wait(30000));
    QTRY_VERIFY_WITH_TIMEOUT(!again.findChild<EvaluationView *>()->topLosses()->examples().empty(), 30000);
    compareTexts(shown(again), want, "opened again");
}

QTEST_MAIN(tst_RunEndWindow)
#include "tst_runendwindow.moc"
