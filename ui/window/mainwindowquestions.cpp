// SPDX-License-Identifier: Apache-2.0
// The main window's questions before something is overwritten or thrown away: a model
// directory that already holds a run (Continue / Start a new run / Cancel, issue 16 item 1)
// and unsaved project changes (Save / Discard / Cancel, item 3).
#include "ui/window/mainwindow.h"

#include "ui/form/configurationform.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/usedmodeldir.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QVBoxLayout>

namespace wb {

void MainWindow::askAboutUsedModelDir(const UsedModelDir &u)
{
    if (!m_usedDirDialog) {
        m_usedDirDialog = new QDialog(this);
        m_usedDirDialog->setObjectName(QStringLiteral("usedModelDirDialog"));
        m_usedDirDialog->setWindowTitle(tr("This folder holds a run"));
        m_usedDirDialog->setWindowModality(Qt::WindowModal);
        auto *text = new QLabel(m_usedDirDialog);
        text->setObjectName(QStringLiteral("usedModelDirText"));
        text->setTextFormat(Qt::PlainText);
        text->setWordWrap(true);
        text->setMinimumWidth(460);
        auto *newDir = new QLineEdit(m_usedDirDialog);
        newDir->setObjectName(QStringLiteral("newModelDir"));
        newDir->setToolTip(tr("The folder for the new run; the run in the current folder stays as it is"));
        auto *buttons = new QDialogButtonBox(m_usedDirDialog);
        QPushButton *continueButton = buttons->addButton(tr("&Continue it"), QDialogButtonBox::AcceptRole);
        continueButton->setObjectName(QStringLiteral("continueRun"));
        QPushButton *newButton = buttons->addButton(tr("Start a &new run"), QDialogButtonBox::AcceptRole);
        newButton->setObjectName(QStringLiteral("startNewRun"));
        QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
        cancel->setObjectName(QStringLiteral("cancelRun"));
        auto *layout = new QVBoxLayout(m_usedDirDialog);
        layout->addWidget(text);
        auto *row = new QFormLayout;
        row->addRow(tr("New run in:"), newDir);
        layout->addLayout(row);
        layout->addWidget(buttons);
        connect(buttons, &QDialogButtonBox::rejected, m_usedDirDialog, &QDialog::reject);
        connect(continueButton, &QPushButton::clicked, this, [this] {
            m_usedDirDialog->accept();
            startPreflight(options(), false);
        });
        connect(newButton, &QPushButton::clicked, this, [this, newDir] {
            const QString dir = newDir->text().trimmed();
            if (dir.isEmpty())
                return;
            m_usedDirDialog->accept();
            m_form->setPath(QStringLiteral("model_dir"), dir);
            appendLog(tr("New run in %1").arg(dir));
            startPreflight(options(), true); // that folder may hold a run too
        });
        connect(m_usedDirDialog, &QDialog::rejected, this, [this] {
            m_progress->setStatus(tr("Idle"));
            statusBar()->showMessage(tr("Training not started."), 4000);
            Q_EMIT preflightFinished(false);
        });
    }
    QStringList lines;
    lines << (u.totalSteps > 0 ? tr("“%1” holds a run at step %2 of %3.").arg(u.modelDir).arg(u.step).arg(u.totalSteps)
                               : tr("“%1” holds a run at step %2.").arg(u.modelDir).arg(u.step));
    if (!u.settings.isEmpty())
        lines << tr("Its settings: %1.").arg(u.settings.join(QStringLiteral("; ")));
    if (!u.differences.isEmpty())
        lines << tr("The form differs (run → form):") << u.differences;
    lines << (u.canContinue() ? tr("Continue it from its latest checkpoint, or start a new run in a new folder.")
                              : tr("It cannot be continued: %1. Start a new run in a new folder.").arg(u.whyNotContinue));
    m_usedDirDialog->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->setText(lines.join(QLatin1Char('\n')));
    m_usedDirDialog->findChild<QLineEdit *>(QStringLiteral("newModelDir"))->setText(proposeNewModelDir(u.modelDir));
    auto *continueButton = m_usedDirDialog->findChild<QPushButton *>(QStringLiteral("continueRun"));
    continueButton->setEnabled(u.canContinue());
    (u.canContinue() ? continueButton : m_usedDirDialog->findChild<QPushButton *>(QStringLiteral("startNewRun")))->setDefault(true);
    m_usedDirDialog->open();
}

bool MainWindow::saveProjectInteractively()
{
    QString path = m_projectPath;
    if (path.isEmpty()) {
        path = QFileDialog::getSaveFileName(this, tr("Save project"), QStringLiteral("project.bwproj"),
                                            tr("BERT Workbench project (*.bwproj)"));
        if (path.isEmpty())
            return false;
    }
    QString error;
    if (saveProject(path, &error))
        return true;
    reportError(tr("Cannot save project"), {error, QString()});
    return false;
}

void MainWindow::askToSaveThen(std::function<void()> action)
{
    if (!isWindowModified()) {
        action();
        return;
    }
    if (!m_saveChangesBox) {
        m_saveChangesBox = new QMessageBox(QMessageBox::Warning, tr("Unsaved changes"), QString(),
                                           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
        m_saveChangesBox->setObjectName(QStringLiteral("saveChangesDialog"));
        m_saveChangesBox->setDefaultButton(QMessageBox::Save);
        m_saveChangesBox->setInformativeText(tr("Your changes are lost if you don't save them."));
        m_saveChangesBox->setWindowModality(Qt::WindowModal);
        connect(m_saveChangesBox, &QMessageBox::finished, this, [this](int result) {
            std::function<void()> next = std::move(m_afterSaveQuestion);
            m_afterSaveQuestion = nullptr;
            if (result == QMessageBox::Save) {
                if (!saveProjectInteractively())
                    return;
            } else if (result != QMessageBox::Discard) {
                return;
            }
            if (next)
                next();
        });
    }
    m_afterSaveQuestion = std::move(action);
    const QString name = m_projectPath.isEmpty() ? tr("Untitled") : QFileInfo(m_projectPath).fileName();
    m_saveChangesBox->setText(tr("Save the changes to “%1”?").arg(name));
    m_saveChangesBox->open();
}

} // namespace wb
