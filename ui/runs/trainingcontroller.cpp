// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/trainingcontroller.h"

#include "core/launch/runplanned.h"
#include "ui/runs/localworkersrun.h"

namespace wb {

namespace {

/// In this process, or "Local workers: N": N processes of bert-workbench-cli, as the plan says.
RunFinished runPrepared(const PreparedRun &run, TrainingObserver &observer, const StopToken &stop)
{
    return runPlanned(run, observer, stop,
                      windowLocalWorkers(observer, run.runsAsLocalWorkers() ? findWorkerExecutable() : std::string()))
        .end;
}

} // namespace

TrainingController::TrainingController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<wb::TrainingOptions>();
    qRegisterMetaType<wb::PreparedRun>();
    qRegisterMetaType<wb::RunStarted>();
    qRegisterMetaType<wb::StepMetrics>();
    qRegisterMetaType<wb::EvalMetrics>();
    qRegisterMetaType<wb::CheckpointSaved>();
    qRegisterMetaType<wb::RunFinished>();
    qRegisterMetaType<wb::CoachNote>();
    m_thread.setObjectName(QStringLiteral("training"));
    createWorker(runPrepared);
    m_thread.start();
}

TrainingController::~TrainingController()
{
    m_stop.requestStop();
    m_thread.quit();
    m_thread.wait();
}

void TrainingController::createWorker(RunFunction run)
{
    m_worker = new TrainingWorker(m_stop, std::move(run));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &TrainingController::runRequested, m_worker, &TrainingWorker::run);
    connect(m_worker, &TrainingWorker::started, this, &TrainingController::runStarted);
    connect(m_worker, &TrainingWorker::stepReported, this, &TrainingController::stepCompleted);
    connect(m_worker, &TrainingWorker::evaluationReported, this, &TrainingController::evaluationCompleted);
    connect(m_worker, &TrainingWorker::checkpointReported, this, &TrainingController::checkpointSaved);
    connect(m_worker, &TrainingWorker::logLine, this, &TrainingController::logMessage);
    connect(m_worker, &TrainingWorker::coachNoteReported, this, &TrainingController::coachNote);
    connect(m_worker, &TrainingWorker::finished, this, &TrainingController::handleFinished);
}

void TrainingController::setRunFunction(RunFunction run)
{
    Q_ASSERT(!m_running);
    if (m_running)
        return;
    // The old worker is idle: replace it on the same thread.
    m_worker->disconnect(this);
    disconnect(this, nullptr, m_worker, nullptr);
    m_worker->deleteLater();
    createWorker(std::move(run));
}

bool TrainingController::start(const PreparedRun &run)
{
    if (m_running)
        return false;
    m_stop.reset();
    m_lastRun = run;
    m_running = true;
    Q_EMIT runningChanged(true);
    Q_EMIT runRequested(run);
    return true;
}

bool TrainingController::resume()
{
    if (m_running)
        return false;
    return start(m_lastRun);
}

void TrainingController::requestStop()
{
    if (m_running)
        m_stop.requestStop();
}

void TrainingController::handleFinished(const RunFinished &r)
{
    m_lastStatus = r.status;
    m_running = false;
    Q_EMIT finished(r);
    Q_EMIT runningChanged(false);
}

} // namespace wb
