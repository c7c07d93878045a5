// SPDX-License-Identifier: Apache-2.0
// One plan for every front-end (docs/architecture.md, "Starting a run: one entry point"): the
// CLI's `train` (planCommandRun) and the window's Train plan the same run from the same options
// (planRun: the same purpose, options after filling, local workers); a stop during the
// pretrained model's download ends the plan as stopped, not failed; an export is planned by the
// same steps (mode export_only, one device when no strategy is given, then the pre-flight check).
#include "app/cli/commandplan.h"
#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/engine/runplan.h"
#include "support/hubtestserver.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <optional>
#include <sstream>

using namespace wb;

namespace {

/// The flags of `o` without --worker_hosts (each plan binds a free port of its own for the
/// chief).
std::vector<std::string> flagsWithoutPorts(const TrainingOptions &o)
{
    std::vector<std::string> flags;
    for (const std::string &f : toCommandLineFlags(o))
        if (f.rfind("--worker_hosts", 0) != 0)
            flags.push_back(f);
    return flags;
}

} // namespace

class tst_PlanRun : public QObject
{
    Q_OBJECT

    /// What the window's Train planned for `o` (the run it would start), through the form.
    std::optional<PreparedRun> windowPlan(const TrainingOptions &o)
    {
        MainWindow w;
        wbtest::installRecorder(w, wbtest::RecordingRun{});
        std::optional<PreparedRun> planned;
        connect(w.runSession(), &RunSession::runStarting, &w, [&planned](const PreparedRun &p) { planned = p; });
        w.setOptions(o);
        QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
        if (!w.train() || !checked.wait(60000) || !checked.first().at(0).toBool())
            return std::nullopt;
        return planned;
    }

    /// What `train` planned for the window's options `o`.
    std::optional<PreparedRun> cliPlan(const TrainingOptions &o, std::string &err)
    {
        std::ostringstream out, errs;
        cli::CommandPlan plan;
        const int code = cli::planCommandRun("train", RunPurpose::Train, "", toCommandLineFlags(o), out, errs, plan);
        err = errs.str();
        if (code != 0 || !plan.ready)
            return std::nullopt;
        return plan.run;
    }

    void compareWindowAndCli(const TrainingOptions &given, int workers)
    {
        std::optional<TrainingOptions> form;
        {
            MainWindow w;
            w.setOptions(given);
            form = w.options(); // the options the window's Train starts from
        }
        const std::optional<PreparedRun> window = windowPlan(*form);
        QVERIFY(window);
        std::string err;
        const std::optional<PreparedRun> cli = cliPlan(*form, err);
        QVERIFY2(cli, err.c_str());
        QCOMPARE(int(window->purpose), int(RunPurpose::Train));
        QCOMPARE(int(cli->purpose), int(RunPurpose::Train));
        QCOMPARE(window->options.mode, std::string("train_and_eval"));
        QCOMPARE(flagsWithoutPorts(cli->options), flagsWithoutPorts(window->options));
        QCOMPARE(window->local_workers.num_workers, workers);
        QCOMPARE(cli->local_workers.num_workers, workers);
        QCOMPARE(flagsWithoutPorts(cli->local_workers.worker), flagsWithoutPorts(window->local_workers.worker));
        QCOMPARE(bool(cli->validation.schedule), true);
        QCOMPARE(window->validation.schedule->total_steps, cli->validation.schedule->total_steps);
    }

private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    void cliAndWindowPlanTheSameRun()
    {
        QTemporaryDir dir;
        compareWindowAndCli(wbtest::writeTinyRun(dir), 0);
    }

    void cliAndWindowPlanTheSameLocalWorkers()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.distribution_strategy = "multi_worker_mirrored";
        o.num_local_workers = 2;
        compareWindowAndCli(o, 2);
    }

    /// A stop while the pretrained model downloads ends the plan as stopped (Cancelled), at the
    /// download, with nothing prepared.
    void stopDuringTheFetchEndsThePlanStopped()
    {
        QTemporaryDir dir;
        wbtest::HubTestServer hub;
        wbtest::HubTestRepo repo;
        repo.commit = std::string(40, 'b');
        repo.files["config.json"].content = R"({"model_type": "bert", "vocab_size": 40})";
        repo.files["vocab.txt"].content = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
        wbtest::HubTestFile &weights = repo.files["model.safetensors"];
        weights.content = std::string(256 * 1024, 'x');
        weights.lfs = true;
        weights.slow_ms = 20; // 64 pauses: the stop comes long before the end
        hub.addRepo("test-org/slow-bert", repo);
        qputenv("HF_ENDPOINT", QByteArray::fromStdString(hub.endpoint()));
        qputenv("HF_HOME", QByteArray::fromStdString(dir.filePath(QStringLiteral("hf_home")).toStdString()));
        qunsetenv("HF_HUB_OFFLINE");

        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.pretrained_model = "test-org/slow-bert";
        o.bert_config_file.clear();
        o.init_checkpoint.clear();
        StopToken stop;
        std::atomic<int> reports{0};
        PlanFrontEnd frontEnd;
        frontEnd.progress = [&](const DownloadProgress &p) {
            if (p.bytes_done > 0 && reports.fetch_add(1) == 0)
                stop.requestStop();
        };
        const RunPlan plan = planRun(o, RunPurpose::Train, frontEnd, stop);
        QVERIFY(reports.load() > 0);
        QVERIFY(!plan.ok());
        QCOMPARE(int(plan.step), int(PlanStep::PretrainedModel));
        QVERIFY(plan.stopped());
        QCOMPARE(int(plan.failure().status), int(RunStatus::Cancelled));
        const QString said = QString::fromStdString(plan.failure().message);
        QVERIFY2(said.startsWith(QStringLiteral("stopped by the user; the part downloaded so far is kept in ")
                                 + dir.filePath(QStringLiteral("hf_home/hub/models--test-org--slow-bert/blobs/"))),
                 qPrintable(said));
        QVERIFY2(said.endsWith(QStringLiteral(".incomplete and resumed next time")), qPrintable(said));
        QCOMPARE(plan.failure().field, std::string("pretrained_model"));
        QCOMPARE(plan.run.options.pretrained_model, std::string("test-org/slow-bert"));
        QVERIFY(!plan.run.pretrained);
        QVERIFY(!plan.run.validation.schedule);
        // Not stopped, the same plan fails at the same step for another reason, and says so.
        o.pretrained_model = "test-org/missing-bert";
        const RunPlan missing = planRun(o, RunPurpose::Train, PlanFrontEnd{}, StopToken{});
        QCOMPARE(int(missing.step), int(PlanStep::PretrainedModel));
        QVERIFY(!missing.stopped());
        QCOMPARE(int(missing.failure().status), int(RunStatus::Failed));
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HF_HOME");
    }
    void exportPlansThroughTheSameSteps()
    {
        QTemporaryDir dir;
        TrainingOptions o = wbtest::writeTinyRun(dir);
        o.distribution_strategy.clear();
        o.mode.clear();
        o.model_export_path = dir.filePath(QStringLiteral("export")).toStdString();
        std::vector<std::string> notes;
        PlanFrontEnd frontEnd;
        frontEnd.note = [&notes](const std::string &n) { notes.push_back(n); };
        const RunPlan plan = planRun(o, RunPurpose::Export, frontEnd, StopToken{});
        QVERIFY2(plan.ok(), plan.failure().message.c_str());
        QCOMPARE(int(plan.run.purpose), int(RunPurpose::Export));
        QCOMPARE(plan.run.options.mode, std::string("export_only"));
        QCOMPARE(plan.run.options.distribution_strategy, std::string("one_device"));
        QVERIFY(std::find(notes.begin(), notes.end(),
                          optionName("distribution_strategy") + " not given: one_device (export runs in this process)")
                != notes.end());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(o.model_export_path))); // nothing written yet

        // --demo with a runtime folder that is not there: the pre-flight check names it, before
        // anything is written (the runtime's fetch, DemoRuntime, comes after it).
        o.demo = true;
        o.onnxruntime_web_dir = dir.filePath(QStringLiteral("no-runtime")).toStdString();
        const RunPlan demo = planRun(o, RunPurpose::Export, PlanFrontEnd{}, StopToken{});
        QVERIFY(!demo.ok());
        QVERIFY(!demo.stopped());
        QCOMPARE(int(demo.step), int(PlanStep::PreFlight));
        QCOMPARE(int(demo.failure().status), int(RunStatus::Failed));
        QVERIFY2(demo.failure().message.find("no-runtime") != std::string::npos
                     || demo.failure().field.find("no-runtime") != std::string::npos,
                 (demo.failure().field + ": " + demo.failure().message).c_str());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(o.model_export_path)));
    }
};

QTEST_MAIN(tst_PlanRun)
#include "tst_planrun.moc"
