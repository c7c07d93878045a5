// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/localworkersrun.h"


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

std::string workerLineForWindow(std::string line)
{
    // A worker stopped by the window (SIGINT) says what a terminal user may do next; in the
    // window Stop is the way, so that hint is left out.
    for (const std::string hint : {" (Ctrl+C again to quit at once)", "(Ctrl+C again to quit at once)"}) {
        const auto at = line.find(hint);
        if (at != std::string::npos)
            line.erase(at, hint.size());
    }
    return line;
}

LocalWorkersFrontEnd windowLocalWorkers(TrainingObserver &observer, const std::string &workerExecutable)
{
    LocalWorkersFrontEnd f;
    f.executable = workerExecutable;
    f.command = "train";
    f.jsonl = true; // the chief's events become the plot's (no chief_line: they reach the observer)
    f.error_line = [&observer](const std::string &line) { observer.logMessage(workerLineForWindow(line)); };
    f.starting = [&observer, workerExecutable](const LocalWorkerPlan &plan) -> std::optional<RunFinished> {
        if (workerExecutable.empty()) {
            RunFinished result;
            result.status = RunStatus::Failed;
            result.field = "num_local_workers";
            result.message = std::string("cannot start local workers: the worker program ") + kWorkerBinary
                             + " was not found beside this application or on the PATH";
            result.hint = "install bert-workbench-cli (it comes with the package), set BERT_WORKBENCH_CLI to its path, "
                          "or set Local workers to 0";
            return result;
        }
        observer.logMessage("Starting " + std::to_string(plan.num_workers)
                            + " local workers (multi_worker_mirrored on 127.0.0.1) with " + workerExecutable
                            + "; the plot shows the chief's (worker 0) curves");
        return std::nullopt;
    };
    return f; // forward_stop: the window's Stop reaches every worker
}

RunFinished runLocalWorkers(const PreparedRun &run, TrainingObserver &observer, const StopToken &stop,
                            const std::string &workerExecutable)
{
    return runPlanned(run, observer, stop, windowLocalWorkers(observer, workerExecutable)).end;
}

} // namespace wb
