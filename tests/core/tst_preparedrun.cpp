// SPDX-License-Identifier: Apache-2.0
// The one entry point of every run (core/engine/preparedrun.h): each purpose checks what it
// needs, once, and every front-end gets the same answer.
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/engine/preparedrun.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/runidentity.h"
#include "support/tinyrun.h"

#include <QDir>

#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

class tst_PreparedRun : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_valid;

    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }
    static QStringList errorFields(const PreparedRun &r)
    {
        QStringList out;
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error)
                out << QString::fromStdString(d.field);
        return out;
    }
    static QString firstError(const PreparedRun &r, const std::string &field)
    {
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error && d.field == field)
                return QString::fromStdString(d.message);
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_valid = wbtest::writeTinyRun(m_dir.path().toStdString()); // config, meta data and records
    }

    // The purpose sets the mode; Validate keeps the one given.
    void purposeSetsMode()
    {
        TrainingOptions o = m_valid;
        o.mode = "predict";
        QCOMPARE(prepareRun(o, RunPurpose::Train).options.mode, std::string("train_and_eval"));
        QCOMPARE(prepareRun(o, RunPurpose::LrFind).options.mode, std::string("train_and_eval"));
        QCOMPARE(prepareRun(o, RunPurpose::Export).options.mode, std::string("export_only"));
        QCOMPARE(prepareRun(o, RunPurpose::Validate).options.mode, std::string("predict"));
        QCOMPARE(int(runPurposeForMode("export_only")), int(RunPurpose::Export));
        QCOMPARE(int(runPurposeForMode("predict")), int(RunPurpose::Predict));
        QCOMPARE(int(runPurposeForMode("train_and_eval")), int(RunPurpose::Train));
        QCOMPARE(QString::fromLatin1(runPurposeName(RunPurpose::LrFind)), QStringLiteral("lr_find"));
    }

    // lr_find needs neither evaluation data nor a learning rate (it exists to find one);
    // train needs both. The same options, two purposes, two answers.
    void lrFindScopeIsNotTrainScope()
    {
        TrainingOptions o = m_valid;
        o.eval_data_path.clear();
        o.learning_rate = 0;
        const PreparedRun train = prepareRun(o, RunPurpose::Train);
        QVERIFY(!train.ok());
        QVERIFY(errorFields(train).contains(QStringLiteral("eval_data_path")));
        QVERIFY(errorFields(train).contains(QStringLiteral("learning_rate")));
        const PreparedRun lrFind = prepareRun(o, RunPurpose::LrFind);
        QVERIFY2(lrFind.ok(), qPrintable(errorFields(lrFind).join(QStringLiteral(", "))));
        QVERIFY(lrFind.validation.schedule.has_value());
    }

    // The range test's own options are checked before anything runs (exit 2, not 1).
    void lrFindRangeIsChecked()
    {
        TrainingOptions o = m_valid;
        o.lr_find_steps = 1;
        o.lr_find_start = 1e-3;
        o.lr_find_end = 1e-4;
        const PreparedRun r = prepareRun(o, RunPurpose::LrFind);
        QVERIFY(!r.ok());
        QCOMPARE(firstError(r, "lr_find_steps"), QStringLiteral("the range test needs at least 2 steps, got 1"));
        QCOMPARE(firstError(r, "lr_find_end"), QStringLiteral("lr_find_end must be a learning rate above lr_find_start (0.001)"));
        // validate checks every option of every command; train ignores the range test's own
        QVERIFY(errorFields(prepareRun(o, RunPurpose::Validate)).contains(QStringLiteral("lr_find_steps")));
        QVERIFY(!errorFields(prepareRun(o, RunPurpose::Train)).contains(QStringLiteral("lr_find_steps")));
        QVERIFY(!errorFields(prepareRun(o, RunPurpose::Train)).contains(QStringLiteral("lr_find_end")));
    }

    // lr_find leaves a run in model_dir alone: a different run there is no reason to refuse.
    void lrFindIgnoresTheRunInModelDir()
    {
        TrainingOptions o = m_valid;
        o.model_dir = path("used");
        const PreparedRun first = prepareRun(o, RunPurpose::Train);
        QVERIFY(first.ok());
        QVERIFY(QDir().mkpath(QString::fromStdString(o.model_dir)));
        writeRunConfig(o.model_dir, RunIdentity::of(o, *first.validation.bert_config, *first.validation.meta_data,
                                                    *first.validation.schedule));
        writeFileAtomic(o.model_dir + "/ckpt-1", "not read: run_config.json describes the run");
        CheckpointState state;
        state.model_checkpoint_path = "ckpt-1";
        state.all_model_checkpoint_paths = {"ckpt-1"};
        state.write(o.model_dir);
        TrainingOptions other = o;
        other.learning_rate = 2e-3; // a defining option differs from the recorded run
        QVERIFY(!prepareRun(other, RunPurpose::Train).ok());
        QVERIFY(prepareRun(other, RunPurpose::LrFind).ok());
    }

    // One range check for every front-end, from the option table.
    void rangesComeFromTheTable()
    {
        TrainingOptions o = m_valid;
        o.num_eval_per_epoch = 5000; // the table: 1..1000
        o.weight_decay_rate = 1.5;   // 0..1
        const PreparedRun r = prepareRun(o, RunPurpose::Validate);
        QCOMPARE(firstError(r, "num_eval_per_epoch"), QStringLiteral("num_eval_per_epoch is 5000; it must be between 1 and 1000"));
        QVERIFY(firstError(r, "weight_decay_rate").startsWith(QStringLiteral("weight_decay_rate is 1.5; it must be between 0 and 1")));
        // a specific check speaks first and the range check does not repeat it
        o = m_valid;
        o.train_batch_size = 0;
        int count = 0;
        const PreparedRun zero = prepareRun(o, RunPurpose::Train);
        for (const auto &d : zero.validation.diagnostics.items())
            count += d.severity == Severity::Error && d.field == "train_batch_size";
        QVERIFY2(count == 1, zero.validation.diagnostics.format().c_str());
    }

    // Local workers are planned once, for training only.
    void localWorkersArePlanned()
    {
        TrainingOptions o = m_valid;
        o.distribution_strategy = "multi_worker_mirrored";
        o.num_local_workers = 2;
        o.model_dir = path("workers");
        const PreparedRun r = prepareRun(o, RunPurpose::Train);
        QVERIFY2(r.ok(), qPrintable(errorFields(r).join(QStringLiteral(", "))));
        QVERIFY(r.runsAsLocalWorkers());
        QCOMPARE(r.local_workers.num_workers, 2);
        QCOMPARE(r.local_workers.worker.num_local_workers, 0);
        QVERIFY(!prepareRun(o, RunPurpose::Predict).runsAsLocalWorkers());
    }

    // "Validation failed → RunFinished" is built one way.
    void failedValidationNamesTheFirstError()
    {
        const PreparedRun r = prepareRun(TrainingOptions{}, RunPurpose::Train);
        QVERIFY(!r.ok());
        const RunFinished f = failedValidation(r.validation.diagnostics);
        QCOMPARE(int(f.status), int(RunStatus::Failed));
        QCOMPARE(f.field, std::string("distribution_strategy"));
        QVERIFY(QString::fromStdString(f.message).startsWith(QStringLiteral("Distribution strategy has not been specified.")));
        const int more = r.validation.diagnostics.errorCount() - 1;
        QVERIFY(more > 0);
        const QStringList lines = QString::fromStdString(f.message).split(QLatin1Char('\n'));
        QVERIFY(lines.first().endsWith(QStringLiteral(" (and %1 more problem(s))").arg(more)));
        QCOMPARE(lines.size(), 1 + more); // every other problem on a line of its own
        QVERIFY(lines.contains(QStringLiteral("bert_config_file: no model config was given")));
    }
};

QTEST_GUILESS_MAIN(tst_PreparedRun)
#include "tst_preparedrun.moc"
