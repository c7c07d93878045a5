// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <QWidget>

class QLabel;
class QProgressBar;

namespace wb {

/// The progress row under the tabs: run status ("Training on cpu", "Completed", "Failed"),
/// a step bar ("step 12 / 342") and a detail line (epoch, loss, examples/s, ETA).
/// Object names: "runStatus", "progress". GUI thread only.
class ProgressPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProgressPanel(QWidget *parent = nullptr);

    /// A run is about to start with `totalSteps` steps (≤ 0: not known yet).
    void prepare(int64_t totalSteps);
    /// Forgets the ETA's reference point (after Resume).
    void restartTiming();
    void setStatus(const QString &text);

    void runStarted(const RunStarted &info);
    void stepCompleted(const StepMetrics &m);
    void stopRequested();
    void finished(const RunFinished &r);

private:
    QProgressBar *m_progress = nullptr;
    QLabel *m_detail = nullptr;
    QLabel *m_status = nullptr;
    double m_firstWall = 0;
    int64_t m_firstStep = 0;
};

} // namespace wb
