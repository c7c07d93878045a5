// SPDX-License-Identifier: Apache-2.0
#include "ui/common/backgroundjob.h"

#include <QCoreApplication>
#include <QThread>

#include <algorithm>
#include <mutex>
#include <vector>

namespace wb {

namespace {

struct JobRegistry
{
    std::mutex mutex;
    std::vector<std::weak_ptr<StopToken>> tokens; ///< jobs started and not yet seen ended
};

JobRegistry &jobRegistry()
{
    // Never destroyed: jobs register from any thread, up to and during exit.
    static auto *registry = new JobRegistry;
    return *registry;
}

} // namespace

QThreadPool *backgroundJobPool()
{
    // Enough threads that the window's kinds of long work (pre-flight, range test, Try it,
    // downloads, example preparation, scans of model_dir and sibling runs) never queue
    // behind each other; idle threads end after Qt's default expiry.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // lives until exit: jobs may outlive every window
        p->setObjectName(QStringLiteral("backgroundJobs"));
        p->setMaxThreadCount(std::max(16, QThread::idealThreadCount() * 2));
        // The pool's threads would otherwise still run while exit destroys static objects.
        qAddPostRoutine(finishBackgroundJobs);
        return p;
    }();
    return pool;
}

void finishBackgroundJobs()
{
    {
        JobRegistry &registry = jobRegistry();
        const std::lock_guard lock(registry.mutex);
        for (const std::weak_ptr<StopToken> &weak : registry.tokens)
            if (const std::shared_ptr<StopToken> token = weak.lock())
                token->requestStop();
        registry.tokens.clear();
    }
    backgroundJobPool()->waitForDone();
}

namespace detail {

void registerBackgroundJob(const std::shared_ptr<StopToken> &cancel)
{
    JobRegistry &registry = jobRegistry();
    const std::lock_guard lock(registry.mutex);
    // Drop the tokens of jobs that have ended, so the list stays as long as the jobs running.
    registry.tokens.erase(std::remove_if(registry.tokens.begin(), registry.tokens.end(),
                                         [](const std::weak_ptr<StopToken> &weak) { return weak.expired(); }),
                          registry.tokens.end());
    registry.tokens.push_back(cancel);
}

} // namespace detail

} // namespace wb
