// SPDX-License-Identifier: Apache-2.0
#include "ui/tryit/livemodelpanel.h"
#include "ui/common/errorreport.h"
#include "ui/common/qtext.h"
#include "ui/form/newwidgets.h"

#include <QDir>
#include <QLabel>
#include <QTimer>

namespace wb {

LiveModelPanel::LiveModelPanel(QWidget *parent) : QWidget(parent), m_debounce(new QTimer(this))
{
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, [this] { refreshNow(); });
}

LiveModelPanel::~LiveModelPanel()
{
    // The job owns only values and the shared cache; waiting lets a load end before exit.
    m_job.cancel();
    m_job.waitForFinished();
}

uint64_t LiveModelPanel::refreshNow()
{
    m_debounce->stop();
    m_job.cancel();
    const uint64_t generation = ++m_generation;
    m_job = startRequest(generation);
    return generation;
}

void LiveModelPanel::checkpointSaved(const QString &modelDir)
{
    // While hidden nothing more is done: showEvent() looks for the run's checkpoint again.
    if (QDir(modelDir) != QDir(q(formModelDir())))
        return;
    followFormRun();
    ++m_reloadEpoch;
    if (isVisible())
        refreshNow();
}

void LiveModelPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // Cheap when nothing changed: the job finds the same checkpoint and keeps the loaded model.
    scheduleRefresh();
}

void LiveModelPanel::scheduleRefresh()
{
    if (isVisible())
        m_debounce->start();
}

QLabel *LiveModelPanel::newModelLine(const QString &objectName, const QString &text)
{
    m_modelLine = newSelectableLabel(objectName);
    m_modelLine->setText(text);
    return m_modelLine;
}

QString LiveModelPanel::modelLine() const { return m_modelLine->text(); }

QString LiveModelPanel::modelDetail() const { return m_modelLine->toolTip(); }

void LiveModelPanel::setModelLine(const QString &text)
{
    m_modelLine->setText(text);
    m_modelLine->setToolTip(QString());
}

void LiveModelPanel::showLoadedModel(const std::string &weightsPath, const std::string &weightsLabel, int64_t maxSeqLength,
                                     const std::vector<std::string> &notes)
{
    const QString which = weightsLabel.empty() ? QString() : QStringLiteral(" — %1").arg(q(weightsLabel));
    // A checkpoint of the form's run by its run folder ("run-1/ckpt-338"); the full path is the detail.
    QString file = pathInWindowWords(weightsPath);
    const QString modelDir = q(formModelDir());
    if (!modelDir.isEmpty()) {
        const QDir run(modelDir);
        const QString relative = run.relativeFilePath(q(weightsPath));
        if (!relative.startsWith(QLatin1String("..")) && !QDir::isAbsolutePath(relative))
            file = QDir::toNativeSeparators(run.dirName() + QLatin1Char('/') + relative);
    }
    m_modelLine->setText(tr("Model: %1%2 (max_seq_length %3)").arg(file, which).arg(maxSeqLength));
    QStringList detail{QDir::toNativeSeparators(q(weightsPath))};
    for (const std::string &n : notes)
        detail << q(n);
    m_modelLine->setToolTip(detail.join(QLatin1Char('\n')));
}

void LiveModelPanel::showNoModel(const QString &message)
{
    clearResult();
    setModelLine(tr("Model: none"));
    showMessage(message, false);
}

bool LiveModelPanel::acceptOutcome(uint64_t generation)
{
    if (generation != m_generation) {
        ++m_dropped; // a newer request is on its way
        return false;
    }
    m_shownGeneration = generation;
    return true;
}

} // namespace wb
