// SPDX-License-Identifier: Apache-2.0
// The main window's question before unsaved project changes are thrown away (Save / Discard /
// Cancel, issue 16 item 3). The question about a model directory that already holds a run is
// RunSession's (runsession.cpp).
#include "ui/window/mainwindow.h"


#include "ui/form/configurationform.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

namespace wb {

QString MainWindow::fileDialogFolder() const
{
    if (!m_projectPath.isEmpty() && QFileInfo(m_projectPath).absoluteDir().exists())
        return QFileInfo(m_projectPath).absolutePath();
    return m_form->startFolder();
}

bool MainWindow::saveProjectInteractively()
{
    QString path = m_projectPath;
    if (path.isEmpty()) {
        path = QFileDialog::getSaveFileName(this, tr("Save project"), QDir(fileDialogFolder()).filePath(QStringLiteral("project.bwproj")),
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
