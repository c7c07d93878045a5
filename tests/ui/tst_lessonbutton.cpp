// SPDX-License-Identifier: Apache-2.0
// The pretraining lesson from the start page (issue 24): one click prepares the lesson's data
// and starts its first run, the masked-LM pretraining, in the window's run session.
#include "core/corpus/pretraininglesson.h"
#include "core/engine/preparedrun.h"
#include "support/lessoncorpus.h"
#include "tinyrun.h"
#include "ui/form/projectfile.h"
#include "ui/form/configurationform.h"
#include "ui/runs/runstable.h"
#include "ui/plot/lossplot.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"

#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace wb;
namespace fs = std::filesystem;

class tst_LessonButton : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        const std::string vocab = std::string(WB_SHARED_DATA_DIR) + "/vocab/bert-base-uncased-vocab.txt";
        if (!fs::exists(vocab))
            QSKIP("needs the bert-base-uncased vocab of the shared test data (the example's vocab)");
        // An example cache that needs no download: the real vocab and a small corpus of mails.
        const fs::path cache = fs::path(m_dir.path().toStdString()) / "bert-workbench";
        fs::create_directories(cache / "vocab");
        fs::copy_file(vocab, cache / "vocab" / "bert-base-uncased-vocab.txt");
        const std::string stage = m_dir.path().toStdString() + "/stage";
        wbtest::writeLessonCorpus(stage, 400, 300);
        fs::rename(stage + "/mails", cache / "spamassassin");
        std::ofstream(cache / "spamassassin" / ".complete") << "700\n";
        qputenv("XDG_CACHE_HOME", m_dir.path().toUtf8());
    }

    void startPageButtonStartsThePretraining()
    {
        MainWindow w;
        w.show();
        auto *button = w.findChild<QPushButton *>(QStringLiteral("startPretrainingLesson"));
        QVERIFY(button);
        QSignalSpy starting(w.runSession(), &RunSession::runStarting);
        button->click();
        QTRY_VERIFY_WITH_TIMEOUT(starting.count() == 1, 120000);
        const PreparedRun run = starting.at(0).at(0).value<PreparedRun>();
        QVERIFY(run.purpose == RunPurpose::Pretrain);
        const std::string lesson = m_dir.path().toStdString() + "/bert-workbench/pretraining-lesson";
        QCOMPARE(run.options.model_dir, lesson + "/runs/pretrain");
        QCOMPARE(run.options.train_data_path, lesson + "/pretraining-data/train.tf_record");
        QCOMPARE(w.findChild<ConfigurationForm *>()->task(), FormTask::Pretrain);
        // The lesson's data: 700 mails, one document each, and the 200-row subset.
        std::ifstream meta(lesson + "/labels-200/input_meta_data.json");
        const std::string text((std::istreambuf_iterator<char>(meta)), {});
        QVERIFY2(text.find("\"train_data_size\": 200") != std::string::npos, text.c_str());
        QSignalSpy finished(w.runSession(), &RunSession::runFinished);
        w.runSession()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    }

    /// Issue 44 item 3 (the class walk's lesson step): with a project open the start page is
    /// gone, and File → Why Pretraining Matters starts the lesson's pretraining in the window,
    /// shown in the form, the progress row and the Log.
    void menuStartsTheLessonWithAProjectOpen()
    {
        QTemporaryDir dir;
        const TrainingOptions tiny = wbtest::writeTinyRun(dir);
        const QString project = dir.filePath(QStringLiteral("own.bwproj"));
        ProjectFile::save(project, tiny);
        MainWindow w;
        w.show();
        QString error;
        QVERIFY2(w.openProject(project, &error), qPrintable(error));
        auto *tabs = w.findChild<QTabWidget *>();
        for (int i = 0; i < tabs->count(); ++i)
            QVERIFY(tabs->widget(i)->objectName() != QLatin1String("startTab")); // the start page is gone
        auto *menuEntry = w.findChild<QAction *>(QStringLiteral("pretrainingLessonAction"));
        QVERIFY(menuEntry && menuEntry->isEnabled());
        const std::string lesson = m_dir.path().toStdString() + "/bert-workbench/pretraining-lesson";
        fs::remove_all(lesson + "/runs"); // the start page's run above: no question about continuing it
        // What the example leaves on the plot: its bag-of-words line and its offline note.
        auto *plot = w.findChild<LossPlot *>();
        plot->setBagOfWordsBaseline(0.99);
        plot->setNotice(QStringLiteral("The example trains BERT-Tiny from random weights: …"));
        QSignalSpy starting(w.runSession(), &RunSession::runStarting);
        menuEntry->trigger(); // the project is saved: no question first
        QTRY_VERIFY_WITH_TIMEOUT(starting.count() == 1, 120000);
        const PreparedRun run = starting.at(0).at(0).value<PreparedRun>();
        QVERIFY(run.purpose == RunPurpose::Pretrain);
        QCOMPARE(run.options.model_dir, lesson + "/runs/pretrain");
        auto *form = w.findChild<ConfigurationForm *>();
        QCOMPARE(form->task(), FormTask::Pretrain);
        // A masked LM has no bag-of-words yardstick, and the lesson's random start is on purpose.
        QCOMPARE(plot->bagOfWordsBaselineLabel(), QString());
        QCOMPARE(plot->notice(), QString());
        QCOMPARE(form->options().model_dir, lesson + "/runs/pretrain"); // the lesson's run, not the project's
        QVERIFY2(w.logText().contains(QStringLiteral("Lesson, run 1 of 7: pretrain")), qPrintable(w.logText()));
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QLabel *>(QStringLiteral("runStatus"))->text().startsWith(QStringLiteral("Training on ")),
                                 60000);
        QSignalSpy finished(w.runSession(), &RunSession::runFinished);
        w.runSession()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
        QVERIFY2(w.logText().contains(QStringLiteral("Lesson stopped at run 1: ")), qPrintable(w.logText()));
    }

    void lessonRunsItsThreeRunsInOrder()
    {
        // The lesson's runs on a tiny corpus and model, through the window's run session.
        const std::string root = m_dir.path().toStdString() + "/tiny";
        wbtest::writeLessonCorpus(root, 60, 40);
        PretrainingLessonOptions o;
        o.corpus_dir = root + "/mails";
        o.vocab_file = root + "/vocab.txt";
        o.bert_config_file = root + "/bert_config.json";
        o.output_dir = root + "/lesson";
        o.max_seq_length = 32;
        o.num_labelled = 40;
        o.pretrain_sequences = 0;
        o.pretrain_batch_size = 8;
        o.finetune_epochs = 2;
        o.finetune_batch_size = 8;
        o.num_seeds = 1; // one seed per start: three runs
        const std::vector<PretrainingLessonRun> runs = pretrainingLessonRuns(o, preparePretrainingLesson(o));
        MainWindow w;
        w.show();
        auto *form = w.findChild<ConfigurationForm *>();
        RunQueue lesson(w.runSession());
        std::vector<QueuedRun> queued;
        for (const PretrainingLessonRun &r : runs) {
            QueuedRun run;
            run.options = r.options;
            run.purpose = r.pretrain ? RunPurpose::Pretrain : RunPurpose::Train;
            run.label = QString::fromStdString(r.name);
            run.show = [form, r] {
                form->setTask(r.pretrain ? FormTask::Pretrain : FormTask::Classify);
                form->setOptions(r.options);
            };
            queued.push_back(std::move(run));
        }
        QStringList shownTasks; // the form's task when each run starts: the run was shown there
        connect(&lesson, &RunQueue::runStarting, &lesson, [&](int) {
            shownTasks << (form->task() == FormTask::Pretrain ? QStringLiteral("pretrain") : QStringLiteral("classify"));
        });
        QSignalSpy starting(w.runSession(), &RunSession::runStarting);
        QSignalSpy done(&lesson, &RunQueue::finished);
        QSignalSpy stopped(&lesson, &RunQueue::stopped);
        QVERIFY(lesson.setRuns(std::move(queued)));
        QVERIFY(lesson.start());
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1 || stopped.count() == 1, 120000);
        QCOMPARE(stopped.count(), 0);
        QCOMPARE(lesson.currentIndex(), 3);
        QCOMPARE(shownTasks, (QStringList{QStringLiteral("pretrain"), QStringLiteral("classify"), QStringLiteral("classify")}));
        QCOMPARE(starting.count(), 3);
        const char *names[] = {"pretrain", "finetune-pretrained-seed-42", "finetune-random-seed-42"};
        for (int k = 0; k < 3; ++k) {
            const PreparedRun r = starting.at(k).at(0).value<PreparedRun>();
            QCOMPARE(r.options.model_dir, o.output_dir + "/runs/" + names[k]);
            QVERIFY((r.purpose == RunPurpose::Pretrain) == (k == 0));
            QVERIFY(fs::exists(o.output_dir + "/runs/" + names[k] + "/training_summary.json"));
        }
        QCOMPARE(starting.at(1).at(0).value<PreparedRun>().options.init_checkpoint, o.output_dir + "/runs/pretrain");
        // Compare runs lists the runs beside the last one: the pretraining and both fine-tunes.
        auto *table = w.findChild<RunsTable *>();
        QVERIFY(table);
        QTRY_VERIFY_WITH_TIMEOUT(table->runCount() >= 3, 30000);
    }
};

QTEST_MAIN(tst_LessonButton)
#include "tst_lessonbutton.moc"
