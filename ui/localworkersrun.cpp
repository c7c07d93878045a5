// SPDX-License-Identifier: Apache-2.0
#include "ui/localworkersrun.h"

#include "core/distribute/locallauncher.h"
#include "core/io/runevents.h"
#include "core/train/blascheck.h"
#include "core/util/error.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace wb {

namespace {

constexpr const char *kWorkerBinary = "bert-workbench-cli";

bool isExecutableFile(const QString &path)
{
    const QFileInfo info(path);
    return info.isFile() && info.isExecutable();
}

} // namespace

bool wantsLocalWorkers(const RunSpec &spec)
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

RunFinished runLocalWorkers(const RunSpec &spec, TrainingObserver &observer, const StopToken &stop,
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

    LocalLaunchOptions o;
    o.executable = workerExecutable;
    o.args.push_back("train");
    const LocalWorkerPlan plan = planLocalWorkers(spec);
    for (const std::string &flag : toCommandLineFlags(plan.worker))
        o.args.push_back(flag);
    o.args.push_back("--progress_format=jsonl");
    o.num_workers = std::max(1, plan.num_workers);
    // Share libtorch's default thread count among the workers, unless the spec sets it.
    o.threads_per_worker = threadsPerLocalWorker(o.num_workers);
    o.stop_requested = [&stop] { return stop.stopRequested(); };

    LocalLauncher launcher(o);
    observer.logMessage("Starting " + std::to_string(o.num_workers)
                        + " local workers (multi_worker_mirrored on 127.0.0.1) with " + workerExecutable
                        + "; the plot shows the chief's (worker 0) curves");

    RunFinished chiefEnd;
    bool chiefFinished = false;
    std::string lastChiefError; // the chief's "error: …" lines (e.g. a refused start)
    const auto onChiefLine = [&](const std::string &line) {
        const RunEventKind kind = decodeRunEvent(line, observer, &chiefEnd);
        if (kind == RunEventKind::Finished)
            chiefFinished = true;
        else if (kind == RunEventKind::NotAnEvent && !line.empty())
            observer.logMessage(line);
    };
    const auto onErrorLine = [&](const std::string &line) {
        if (line.rfind("error: ", 0) == 0)
            lastChiefError = line.substr(7);
        observer.logMessage(line);
    };

    LocalLaunchResult launched;
    try {
        launched = launcher.run(onChiefLine, onErrorLine);
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

    if (chiefFinished)
        result = chiefEnd;
    if (launched.failed_rank >= 0) {
        // The chief's own failure explains itself best; another worker's failure is
        // reported by the launcher (rank, pid, exit status).
        if (!(launched.failed_rank == 0 && chiefFinished && chiefEnd.status == RunStatus::Failed)) {
            result.status = RunStatus::Failed;
            result.field = "cluster";
            result.message = launched.message;
            if (launched.failed_rank == 0 && !lastChiefError.empty())
                result.message += ": " + lastChiefError;
            result.hint = "the log lines marked [worker " + std::to_string(launched.failed_rank)
                          + "] (or the chief's lines for worker 0) show why it failed";
        }
    } else if (!chiefFinished) {
        result.status = launched.exit_code == 130 ? RunStatus::Cancelled : RunStatus::Failed;
        result.field = result.status == RunStatus::Failed ? "cluster" : "";
        result.message = launched.exit_code == 130 ? "stopped by the user"
                                                   : "the chief ended without reporting how the run ended";
    }
    return result;
}

} // namespace wb
