// SPDX-License-Identifier: Apache-2.0
// The window's task "Pretrain on text" (issue 24): the form's task switch (fields shown and
// hidden, the project file, Copy as Command Line), a pretraining run started with Train (MLM
// curves, perplexity in the legend, the validation dialog for classification data), and Try
// it as fill-in-the-blank with the run's checkpoint. With WB_SCREENSHOT_DIR set, the window
// is saved there as pretrain-curves.png and fill-in-the-blank.png.
// qcustomplot.h uses Qt's keywords (signals, foreach).
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include <qcustomplot.h>

#include "ui/window/mainwindow.h"

#include "core/data/pretrainingdataset.h"
#include "core/data/tfrecordwriter.h"
#include "core/infer/fillmask.h"
#include "support/pretrainingrecords.h"
#include "tinyrun.h"
#include "ui/form/configurationform.h"
#include "ui/form/projectfile.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/tryit/fillmaskpanel.h"
#include "ui/window/runsession.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace wb;

class tst_PretrainWindow : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_cls;     ///< a classification run of the same model (its config)
    TrainingOptions m_pretrain; ///< the pretraining run's options
    QString path(const QString &name) const { return m_dir.filePath(name); }

    static ConfigurationForm *formOf(MainWindow &w) { return w.findChild<ConfigurationForm *>(QStringLiteral("configurationForm")); }
    static QTabWidget *tabsOf(MainWindow &w) { return w.findChild<QTabWidget *>(); }
    static bool tabShown(MainWindow &w, const QString &name)
    {
        QTabWidget *tabs = tabsOf(w);
        return tabs->isTabVisible(tabs->indexOf(w.findChild<QWidget *>(name)));
    }
    static void chooseTask(MainWindow &w, int index) { formOf(w)->findChild<QComboBox *>(QStringLiteral("task"))->setCurrentIndex(index); }

    static void screenshot(QWidget &w, const QString &name)
    {
        const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(w.grab().save(QDir(dir).filePath(name)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        wbtest::TinyRun p; // BERT L=2, H=32, vocab 100, max_seq_length 16
        p.dropout_prob = 0.0;
        m_cls = wbtest::writeTinyRun(path(QStringLiteral("cls")).toStdString(), p);
        const std::string meta = path(QStringLiteral("pretraining_meta.json")).toStdString();
        std::ofstream(meta) << "{\"task_type\": \"bert_pretraining\", \"max_seq_length\": 16, \"max_predictions_per_seq\": 5, "
                               "\"train_data_size\": 64, \"eval_data_size\": 16, \"use_next_sentence_label\": false, "
                               "\"masking\": \"static\", \"masked_lm_prob\": 0.15, \"whole_word_masking\": false, "
                               "\"vocab_size\": 100, \"do_lower_case\": true}";
        wbtest::writeMaskedLmRecords(path(QStringLiteral("train.tf_record")).toStdString(), 64, 16, 5, 100, 1);
        wbtest::writeMaskedLmRecords(path(QStringLiteral("eval.tf_record")).toStdString(), 16, 16, 5, 100, 2);
        const std::string vocab = path(QStringLiteral("vocab.txt")).toStdString();
        {
            std::ofstream v(vocab);
            for (int k = 0; k < 100; ++k)
                v << (k == 0 ? "[PAD]" : k == 1 ? "[UNK]" : k == 2 ? "[CLS]" : k == 3 ? "[SEP]" : k == 4 ? "[MASK]" : "w" + std::to_string(k)) << "\n";
        }
        m_pretrain = m_cls;
        m_pretrain.input_meta_data_path = meta;
        m_pretrain.train_data_path = path(QStringLiteral("train.tf_record")).toStdString();
        m_pretrain.eval_data_path = path(QStringLiteral("eval.tf_record")).toStdString();
        m_pretrain.vocab_file = vocab;
        m_pretrain.model_dir = path(QStringLiteral("pt")).toStdString();
        m_pretrain.train_batch_size = 8;
        m_pretrain.eval_batch_size = 8;
        m_pretrain.num_train_epochs = 20;
        m_pretrain.learning_rate = 3e-3;
        m_pretrain.num_threads = 1;
    }

    void taskSwitchShowsThePretrainingFields()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ConfigurationForm *form = formOf(w);
        auto *task = form->findChild<QComboBox *>(QStringLiteral("task"));
        QCOMPARE(task->count(), 2);
        QCOMPARE(task->itemText(0), QStringLiteral("Classify text"));
        QCOMPARE(task->itemText(1), QStringLiteral("Pretrain on text"));
        QCOMPARE(form->task(), FormTask::Classify);
        QWidget *localWorkers = form->findChild<QWidget *>(QStringLiteral("num_local_workers"));
        auto *best = form->findChild<QComboBox *>(QStringLiteral("best_checkpoint_metric"));
        auto *bestItems = qobject_cast<QStandardItemModel *>(best->model());
        const int f1 = best->findData(QStringLiteral("eval_f1")), mcc = best->findData(QStringLiteral("eval_mcc"));
        const int loss = best->findData(QStringLiteral("eval_loss"));
        QVERIFY(localWorkers->isVisibleTo(form));
        QVERIFY(bestItems->item(f1)->isEnabled() && bestItems->item(mcc)->isEnabled());
        QVERIFY(tabShown(w, QStringLiteral("tryItTab")) && tabShown(w, QStringLiteral("evaluationTab")));
        QVERIFY(!tabShown(w, QStringLiteral("fillMaskTab")));
        QVERIFY(!w.isWindowModified());

        QSignalSpy changed(form, &ConfigurationForm::taskChanged);
        chooseTask(w, 1); // as the user picks it
        QCOMPARE(changed.count(), 1);
        QCOMPARE(form->task(), FormTask::Pretrain);
        QVERIFY(w.isWindowModified());
        QVERIFY(!localWorkers->isVisibleTo(form));
        QVERIFY(!bestItems->item(f1)->isEnabled() && !bestItems->item(mcc)->isEnabled());
        QVERIFY(bestItems->item(loss)->isEnabled());
        QVERIFY(form->findChild<QLabel *>(QStringLiteral("taskNote"))->text().startsWith(QStringLiteral("Masked-language-model pretraining")));
        QVERIFY(!tabShown(w, QStringLiteral("tryItTab")) && !tabShown(w, QStringLiteral("evaluationTab")));
        QVERIFY(tabShown(w, QStringLiteral("fillMaskTab")));
        QVERIFY(w.findChild<LossPlot *>()->isPretraining());
        QCOMPARE(w.findChild<LossPlot *>()->customPlot()->yAxis->label(), QStringLiteral("MLM loss"));

        form->setTask(FormTask::Classify); // as a project does: no edit
        QCOMPARE(changed.count(), 2);
        QVERIFY(localWorkers->isVisibleTo(form));
        QVERIFY(bestItems->item(f1)->isEnabled());
        QVERIFY(tabShown(w, QStringLiteral("tryItTab")) && !tabShown(w, QStringLiteral("fillMaskTab")));
        QVERIFY(!w.findChild<LossPlot *>()->isPretraining());
        QCOMPARE(w.findChild<LossPlot *>()->customPlot()->yAxis->label(), QStringLiteral("loss"));
    }

    void commandLineAndProjectFileKeepTheTask()
    {
        MainWindow w;
        TrainingOptions o;
        o.distribution_strategy = "one_device";
        o.model_dir = "/runs/pt";
        o.learning_rate = 1e-4;
        w.setOptions(o);
        QCOMPARE(w.commandLine(), QStringLiteral("bert-workbench-cli train --distribution_strategy=one_device --model_dir=/runs/pt --learning_rate=1e-04"));
        chooseTask(w, 1);
        QCOMPARE(w.commandLine(), QStringLiteral("bert-workbench-cli pretrain --distribution_strategy=one_device --model_dir=/runs/pt --learning_rate=1e-04"));

        const QString project = path(QStringLiteral("pretrain.bwproj"));
        QString error;
        QVERIFY2(w.saveProject(project, &error), qPrintable(error));
        QFile file(project);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto j = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(j.at("task").get<std::string>(), std::string("pretrain"));
        w.newProject();
        QCOMPARE(formOf(w)->task(), FormTask::Classify);
        QVERIFY2(w.openProject(project, &error), qPrintable(error));
        QCOMPARE(formOf(w)->task(), FormTask::Pretrain);
        QCOMPARE(w.options().learning_rate, 1e-4);
        QVERIFY(tabShown(w, QStringLiteral("fillMaskTab")));

        // A file without "task" (older ones) classifies; another value is an error naming it.
        Diagnostics diag;
        QCOMPARE(ProjectFile::taskFromJson(nlohmann::json::parse(R"({"format":"bert-workbench-project","version":1,"options":{}})"), diag),
                 FormTask::Classify);
        QVERIFY(!diag.hasErrors());
        QCOMPARE(ProjectFile::taskFromJson(nlohmann::json::parse(R"({"task":"summarise","options":{}})"), diag), FormTask::Classify);
        QCOMPARE(diag.errorCount(), 1);
        QCOMPARE(diag.items().front().field, std::string("task"));
        QCOMPARE(diag.items().front().message, std::string("is \"summarise\"; expected \"classify\" or \"pretrain\""));
        QCOMPARE(ProjectFile::toJson(o).at("task").get<std::string>(), std::string("classify"));
    }

    void classificationDataIsAValidationError()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrainingOptions o = m_cls;
        o.model_dir = path(QStringLiteral("pt-wrong")).toStdString();
        w.setOptions(o);
        chooseTask(w, 1);
        QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
        w.findChild<QAction *>(QStringLiteral("trainAction"))->trigger();
        QVERIFY(checked.wait(60000));
        QCOMPARE(checked.first().at(0).toBool(), false);
        QMessageBox *box = w.runSession()->validationDialog();
        QVERIFY(box && box->isVisible());
        QVERIFY2(box->text().contains(QStringLiteral("pretrain needs masked-LM pretraining data (task_type bert_pretraining)")),
                 qPrintable(box->text()));
        box->close();
    }

    void pretrainingRunDrawsMlmCurvesAndFillsInTheBlank()
    {
        MainWindow w;
        w.resize(1500, 920);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setOptions(m_pretrain);
        chooseTask(w, 1);
        QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
        QSignalSpy evaluations(w.runSession()->controller(), &TrainingController::evaluationCompleted);
        QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
        w.findChild<QAction *>(QStringLiteral("trainAction"))->trigger();
        QVERIFY(checked.wait(60000));
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(w.logText()));
        QCOMPARE(w.runSession()->controller()->lastPurpose(), RunPurpose::Pretrain);
        QVERIFY(finished.wait(120000));
        const RunFinished end = finished.first().at(0).value<RunFinished>();
        QCOMPARE(end.status, RunStatus::Completed);
        QCOMPARE(end.last_step, int64_t(160)); // 20 epochs of 64 / 8
        QVERIFY(w.logText().contains(QStringLiteral("Starting pretraining")));

        // The curves: one eval point per epoch, the train MLM loss, the perplexity of the last
        // evaluation in the legend, exp(eval_mlm_loss) as metrics.jsonl has it.
        auto *plot = w.findChild<LossPlot *>();
        QCOMPARE(evaluations.count(), 20);
        QCOMPARE(plot->pointCount(LossPlot::Series::EvalLoss), 20);
        QCOMPARE(plot->pointCount(LossPlot::Series::EvalAccuracy), 20);
        QVERIFY(plot->pointCount(LossPlot::Series::TrainLoss) >= 20);
        std::ifstream metrics(m_pretrain.model_dir + "/metrics.jsonl");
        std::string line;
        nlohmann::json lastEval;
        while (std::getline(metrics, line))
            if (auto j = nlohmann::json::parse(line); j.value("kind", "") == "eval")
                lastEval = j;
        const EvalMetrics last = evaluations.last().at(0).value<EvalMetrics>();
        QCOMPARE(last.eval_loss, lastEval.at("eval_mlm_loss").get<double>());
        QCOMPARE(last.eval_accuracy, lastEval.at("eval_mlm_accuracy").get<double>());
        QStringList names;
        for (int g = 0; g < plot->customPlot()->graphCount(); ++g)
            names << plot->customPlot()->graph(g)->name();
        // The live run is named in the legend by its model_dir (issue 27).
        const QString run = QDir(QString::fromStdString(m_pretrain.model_dir)).dirName() + QStringLiteral(": ");
        const QString perplexity = run + QStringLiteral("eval MLM loss (perplexity %1)")
                                             .arg(lastEval.at("eval_perplexity").get<double>(), 0, 'g', 4);
        QVERIFY2(names.contains(perplexity), qPrintable(names.join(QLatin1Char('|')) + QStringLiteral(" / ") + perplexity));
        QVERIFY(names.contains(run + QStringLiteral("train MLM loss (smoothed)")));
        QVERIFY(names.contains(run + QStringLiteral("eval MLM accuracy (masked words)")));
        // The run's project file records its task.
        Diagnostics diag;
        FormTask recorded = FormTask::Classify;
        ProjectFile::load(QString::fromStdString(m_pretrain.model_dir + "/bert_workbench_project.json"), diag, &recorded);
        QCOMPARE(recorded, FormTask::Pretrain);
        w.showTab(QStringLiteral("plotTab"));
        QTest::qWait(100);
        screenshot(w, QStringLiteral("pretrain-curves.png"));

        // Try it is fill-in-the-blank with the run's latest checkpoint.
        w.showTab(QStringLiteral("fillMaskTab"));
        auto *panel = w.findChild<FillMaskPanel *>();
        QVERIFY(panel->isVisible());
        QSignalSpy shown(panel, &FillMaskPanel::outcomeShown);
        const QString text = QStringLiteral("w6 w7 w8 w9 w10 [MASK] w12 w13 w14 w15 w16 w17 w18 w19");
        panel->setText(text);
        const uint64_t generation = panel->refreshNow();
        QTRY_VERIFY_WITH_TIMEOUT(panel->shownGeneration() == generation, 30000);
        QVERIFY2(panel->modelLine().contains(QStringLiteral("ckpt-160")), qPrintable(panel->modelLine() + panel->messageText()));
        const FillMaskResult &r = panel->shownResult();
        QCOMPARE(r.masks.size(), size_t(1));
        QCOMPARE(r.masks[0].top.size(), size_t(FillMaskPanel::kTopK));
        FillMaskSource s;
        s.model_dir = m_pretrain.model_dir;
        const FillMaskResult expected = FillMaskPredictor(s).predict(text.toStdString(), 10);
        double sum = 0;
        for (size_t k = 0; k < 10; ++k) {
            QCOMPARE(r.masks[0].top[k].token, expected.masks[0].top[k].token);
            QCOMPARE(r.masks[0].top[k].probability, expected.masks[0].top[k].probability);
            sum += r.masks[0].top[k].probability;
        }
        QVERIFY(sum <= 1.0 + 1e-12);
        auto *bar = panel->findChild<QProgressBar *>(QStringLiteral("fillMaskBar1_1"));
        QVERIFY(bar);
        QCOMPARE(bar->format(), QStringLiteral("%1 %").arg(expected.masks[0].top[0].probability * 100.0, 0, 'f', 1));
        QTest::qWait(100);
        screenshot(w, QStringLiteral("fill-in-the-blank.png"));

        // A text without [MASK] is said inline.
        panel->setText(QStringLiteral("w6 w7 w8"));
        const uint64_t again = panel->refreshNow();
        QTRY_VERIFY_WITH_TIMEOUT(panel->shownGeneration() == again, 30000);
        QVERIFY2(panel->messageText().contains(QStringLiteral("the text has no [MASK]")), qPrintable(panel->messageText()));
        QVERIFY(panel->shownResult().masks.empty());
    }
};

QTEST_MAIN(tst_PretrainWindow)
#include "tst_pretrainwindow.moc"
