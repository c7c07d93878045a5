// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/stoptoken.h"
#include "ui/common/errorreport.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace wb {

/// What a background job's work function sees: its cancel flag and a progress reporter.
/// Lives on the job's thread; the cancel flag may be read from any thread.
class JobControl
{
public:
    JobControl(std::shared_ptr<StopToken> cancel, std::function<void(int, const QString &)> report)
        : m_cancel(std::move(cancel)), m_report(std::move(report))
    {
    }
    /// Whether cancel() was called on the job's handle.
    bool isCancelled() const { return m_cancel->stopRequested(); }
    /// The stop token for core functions (StopToken is the one way to cancel, core/events).
    const StopToken *stopToken() const { return m_cancel.get(); }
    /// Reports progress in 0…kJobProgressMax with a short text; delivered to the job's
    /// `progress` callback on the context's thread (coalesced by Qt).
    void setProgress(int value, const QString &text) const { m_report(value, text); }

private:
    std::shared_ptr<StopToken> m_cancel;
    std::function<void(int, const QString &)> m_report;
};

/// Upper end of JobControl::setProgress values.
constexpr int kJobProgressMax = 1000;

/// The end of a background job: its value, or the error it threw, and whether it was cancelled.
template<typename T>
struct JobOutcome
{
    std::optional<T> value;  ///< set when the work returned normally
    ErrorReport error;       ///< set when it threw (currentErrorReport())
    bool cancelled = false;  ///< cancel() was called before the work ended
    bool ok() const { return value.has_value(); }
};

/// A started background job. Copyable; cancel() and waitForFinished() may be called from
/// any thread; destroying the handle neither cancels nor waits.
class JobHandle
{
public:
    JobHandle() = default;
    JobHandle(std::shared_ptr<StopToken> cancel, QFuture<void> future)
        : m_cancel(std::move(cancel)), m_future(std::move(future))
    {
    }
    /// Asks the work to stop (it polls JobControl::isCancelled()).
    void cancel()
    {
        if (m_cancel)
            m_cancel->requestStop();
    }
    bool isRunning() const { return m_cancel && !m_future.isFinished(); }
    /// Blocks until the work function has returned (destructors: after cancel()).
    void waitForFinished() { m_future.waitForFinished(); }

private:
    std::shared_ptr<StopToken> m_cancel;
    QFuture<void> m_future;
};

/// The pool every background job runs on: its own, not Qt's global pool (whose thread count
/// is the number of cores, two here), with room for every kind of job at once, so that a
/// long job (a range test, a download, Try it loading a model) never makes a short one (the
/// pre-flight check, a model_dir scan) wait behind it. Created on first use; thread-safe.
QThreadPool *backgroundJobPool();

/// Asks every background job that is still running to stop (JobControl::isCancelled()) and
/// waits until the pool is idle. Called by itself when the QCoreApplication is destroyed (a
/// post routine added with the pool), so that no job is left reading static objects — the
/// model catalogue, Qt's globals — while exit destroys them. A job that never polls its
/// cancel flag is waited for to its end. Call from the GUI thread; starting jobs during or
/// after the call is the caller's race.
void finishBackgroundJobs();

namespace detail {
/// Enters `cancel` in the list finishBackgroundJobs() stops (kept as a weak reference, so a
/// finished job's token is dropped with it). Thread-safe.
void registerBackgroundJob(const std::shared_ptr<StopToken> &cancel);
} // namespace detail

/// Runs `work(const JobControl &) -> T` on backgroundJobPool() (QtConcurrent::run
/// with a QPromise) and calls `done(JobOutcome<T>)` on `context`'s thread when it has ended;
/// `progress(value, text)`, when given, receives JobControl::setProgress reports there too.
/// Context-guarded: when `context` is destroyed first, neither callback runs (the work
/// itself still runs to its end, so it must capture only what it owns — values or
/// shared_ptrs — and never `context`). Exceptions thrown by `work` are caught and reported
/// in JobOutcome::error; exceptions from `done` are the caller's. Call from `context`'s thread.
template<typename T, typename Work, typename Done>
JobHandle runBackgroundJob(QObject *context, Work work, Done done,
                           std::function<void(int, const QString &)> progress = {})
{
    auto cancel = std::make_shared<StopToken>();
    detail::registerBackgroundJob(cancel);
    auto *watcher = new QFutureWatcher<JobOutcome<T>>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context, [watcher, done = std::move(done)]() mutable {
        QFuture<JobOutcome<T>> future = watcher->future();
        JobOutcome<T> outcome;
        if (future.resultCount() > 0)
            outcome = future.result();
        else
            outcome.error.message = QStringLiteral("the background job ended without a result");
        watcher->deleteLater();
        done(std::move(outcome));
    });
    if (progress) {
        QObject::connect(watcher, &QFutureWatcherBase::progressValueChanged, context,
                         [watcher, progress](int value) { progress(value, watcher->progressText()); });
        QObject::connect(watcher, &QFutureWatcherBase::progressTextChanged, context,
                         [watcher, progress](const QString &text) { progress(watcher->progressValue(), text); });
    }
    QFuture<JobOutcome<T>> future = QtConcurrent::run(backgroundJobPool(), [cancel, work = std::move(work)](QPromise<JobOutcome<T>> &promise) {
        promise.setProgressRange(0, kJobProgressMax);
        const JobControl control(cancel, [&promise](int value, const QString &text) {
            promise.setProgressValueAndText(value, text);
        });
        JobOutcome<T> outcome;
        try {
            outcome.value = work(control);
        } catch (...) {
            outcome.error = currentErrorReport();
        }
        outcome.cancelled = cancel->stopRequested();
        promise.addResult(std::move(outcome));
    });
    watcher->setFuture(future);
    return JobHandle(cancel, QFuture<void>(future));
}

} // namespace wb
