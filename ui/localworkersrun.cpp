// SPDX-License-Identifier: Apache-2.0
#include "ui/localworkersrun.h"

#include "core/launch/chiefstream.h"
#include "core/launch/locallauncher.h"
#include "core/train/blascheck.h"
#include "core/util/error.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace wb {

namespace {

constexpr const char *kWorkerBinary = "bert-workbench-cli";

bool isExecutableFile(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

bool wantsLocalWorkers(const TrainingOptions &spec)
{
    return planLocalWorkers(spec).num_workers > 0;
}

std::string findWorkerExecutable()
{
    const QString fromEnv = qEnvironmentVariable("BERT_WORKBENCH_CLI");
    if (!fromEnv.isEmpty())
        return isExecutableFile(fromEnv) ? QFileInfo(fromEnv).absoluteFilePath().toStdString() : std::string();
    if (QCoreApplication::instance()) {
        const QDir appDir(QCoreApplication::applicationDirPath());
        // Installed: /usr/bin/bert-workbench beside /usr/bin/bert-workbench-cli.
        // Build tree: <build>/app/gui/bert-workbench and <build>/app/cli/bert-workbench-cli.
        for (const QString &candidate :
             {appDir.filePath(QLatin1String(kWorkerBinary)), appDir.filePath(QStringLiteral("../cli/") + QLatin1String(kWorkerBinary))})
            if (isExecutableFile(candidate))
                return QFileInfo(candidate).canonicalFilePath().toStdString();
    }
    return QStandardPaths::findExecutable(QLatin1String(kWorkerBinary)).toStdString();
}

RunFinished runLocalWorkers(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop,
                            const std::string &workerExecutable)
{
    RunFinished result;
    if (workerExecutable.empty()) {
        result.status = RunStatus::Failed;
        result.field = "num_local_workers";
        result.message = std::string("cannot start local workers: the worker program ") + kWorkerBinary
                         + " was not found beside this application or on the PATH";
        result.hint = "install bert-workbench-cli (it comes with the package), set BERT_WORKBENCH_CLI to its path, "
                      "or set Local workers to 0";
        return result;
    }

    const LocalWorkerPlan plan = planLocalWorkers(spec);
    LocalLaunchOptions o =
        workerLaunchOptions(plan, workerExecutable, "train", true, threadsPerLocalWorker(plan.num_workers));
    o.stop = &stop;
    LocalLauncher launcher(o);
    observer.logMessage("Starting " + std::to_string(o.num_workers)
                        + " local workers (multi_worker_mirrored on 127.0.0.1) with " + workerExecutable
                        + "; the plot shows the chief's (worker 0) curves");

    ChiefStream chief(&observer); // the chief's events become the plot's; "finished" is kept
    LocalLaunchResult launched;
    try {
        launched = launcher.run([&](const std::string &line) { chief.feedOutput(line); },
                                [&](const std::string &line) {
                                    chief.feedError(line);
                                    observer.logMessage(line);
                                });
    } catch (const Error &e) {
        result.status = RunStatus::Failed;
        result.field = e.field().empty() ? "num_local_workers" : e.field();
        result.message = e.what();
        result.hint = e.hint();
        return result;
    } catch (const std::exception &e) {
        result.status = RunStatus::Failed;
        result.field = "num_local_workers";
        result.message = std::string("cannot start local workers: ") + e.what();
        return result;
    }
    return chief.result(launched);
}

} // namespace wb
