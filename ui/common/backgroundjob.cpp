// SPDX-License-Identifier: Apache-2.0
#include "ui/common/backgroundjob.h"

#include <QThread>

#include <algorithm>

namespace wb {

QThreadPool *backgroundJobPool()
{
    // Enough threads that the window's kinds of long work (pre-flight, range test, Try it,
    // downloads, example preparation, scans of model_dir and sibling runs) never queue
    // behind each other; idle threads end after Qt's default expiry.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // lives until exit: jobs may outlive every window
        p->setObjectName(QStringLiteral("backgroundJobs"));
        p->setMaxThreadCount(std::max(16, QThread::idealThreadCount() * 2));
        return p;
    }();
    return pool;
}

} // namespace wb
