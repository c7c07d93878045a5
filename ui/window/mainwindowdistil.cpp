// SPDX-License-Identifier: Apache-2.0
// The main window and distillation (issue 48; docs/distillation.md "In the window"): File →
// Distil Model… is enabled while the form's model_dir holds a finished fine-tuning run (the
// teacher); the dialog's student goes into the form and trains as Train trains.
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/formats/runend.h"
#include "ui/dialogs/distildialog.h"
#include "ui/form/configurationform.h"
#include "ui/window/concurrentsweep.h"
#include "ui/window/runsession.h"

#include <QAction>
#include <QStatusBar>

namespace wb {

bool MainWindow::canDistil() const
{
    const bool sweeping = m_concurrentSweep && m_concurrentSweep->isRunning();
    const bool distilling = m_distilDialog && m_distilDialog->isRunning();
    return !m_finishedRunDir.isEmpty() && m_finishedRunDir == q(options().model_dir)
           && m_form->task() == FormTask::Classify && m_session->canTrain() && !sweeping && !distilling;
}

void MainWindow::noteRunEnd(const QString &modelDir, const RunEnd &end, bool pretraining)
{
    const bool finished = end.kind == RunEnd::Kind::Completed || end.kind == RunEnd::Kind::StoppedEarly;
    m_finishedRunDir = finished && !pretraining ? modelDir : QString();
    updateActions();
}

DistilDialog *MainWindow::openDistilDialog()
{
    if (!m_distilDialog) {
        m_distilDialog = new DistilDialog(m_form, this);
        connect(m_distilDialog, &DistilDialog::studentReady, this, &MainWindow::useStudent);
        connect(m_distilDialog, &DistilDialog::distillationFinished, this, [this](bool ok, const QString &text) {
            for (const QString &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
                appendLog(ok ? tr("Distillation: %1").arg(line) : line);
            updateActions();
        });
    }
    m_distilDialog->setTeacher(q(options().model_dir)); // ignored while its job runs
    m_distilDialog->show();
    m_distilDialog->raise();
    m_distilDialog->activateWindow();
    updateActions();
    return m_distilDialog;
}

void MainWindow::useStudent(const TrainingOptions &student, bool train)
{
    setOptions(student, true); // as a project's options: inputs, title, Try it
    if (train && this->train()) {
        statusBar()->showMessage(tr("Distillation: training the student in %1").arg(q(student.model_dir)), 10000);
        return;
    }
    followFormModelDir(); // the views show the student's folder
    statusBar()->showMessage(train ? tr("The student's settings are in the form; a run or check is going: press Train "
                                        "when it has ended.")
                                   : tr("The student's settings are in the form: press Train to train the student."));
}

} // namespace wb
