// SPDX-License-Identifier: Apache-2.0
// File → Distil Model… (issue 48; docs/distillation.md "In the window"): the action is enabled
// once the form's model_dir holds a finished run; the dialog runs the teacher over its texts and
// a transfer file off the GUI thread, says what the student learns from (the CLI's words), fills
// the form with the student's options (model_dir, the distillation records, the teacher's
// vocabulary, the start, the two distillation options) and the student trains as Train trains,
// with its agreement with the teacher. A missing transfer file, or one the core cannot read, is
// an error in the dialog that leaves the form as it was.
#include "ui/dialogs/distildialog.h"
#include "cli/clirun.h"
#include "support/tinyrun.h"
#include "support/windowfixtures.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/form/configurationform.h"
#include "ui/form/projectfile.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/window/mainwindow.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

/// eval_teacher_agreement of the last evaluation line of a metrics.jsonl.
double lastEvalAgreement(const std::string &metricsPath)
{
    double last = -1;
    std::ifstream in(metricsPath);
    for (std::string line; std::getline(in, line);) {
        const auto j = nlohmann::json::parse(line);
        if (j.value("kind", "") == "eval")
            last = j.value("eval_teacher_agreement", -1.0);
    }
    return last;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

QAction *distilAction(MainWindow &w)
{
    for (QAction *a : w.menuBar()->findChildren<QAction *>())
        if (a->objectName() == QStringLiteral("distilModelAction"))
            return a;
    return nullptr;
}

} // namespace

class tst_DistilDialog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_root;
    TrainingOptions m_teacher; ///< the teacher's project options

    std::string path(const std::string &name) const { return m_root + "/" + name; }

    /// Fills `d` for a random-weights student in `studentDir` learning from transfer.txt.
    void fill(DistilDialog &d, const std::string &studentDir, bool train)
    {
        d.setStudentStart(QString(), QString::fromStdString(path("student_config.json")));
        d.setTransferData(QString::fromStdString(path("transfer.txt")));
        d.findChild<QDoubleSpinBox *>(QStringLiteral("distillation_temperature"))->setValue(2.5);
        d.findChild<QDoubleSpinBox *>(QStringLiteral("distillation_alpha"))->setValue(0.7);
        d.findChild<QLineEdit *>(QStringLiteral("distilStudentDir"))->setText(QString::fromStdString(studentDir));
        d.findChild<QCheckBox *>(QStringLiteral("distilStartTraining"))->setChecked(train);
    }

private Q_SLOTS:
    void initTestCase()
    {
        wbtest::useTestSettings();
        QVERIFY(m_dir.isValid());
        m_root = m_dir.path().toStdString();
        wbtest::writeTeacherStudentProject(m_root);
        std::mt19937 rng(11);
        std::string transfer;
        for (int i = 0; i < 40; ++i)
            transfer += wbtest::twoClassText(rng, i % 2 == 0) + "\n";
        std::ofstream(path("transfer.txt")) << transfer;
        std::string out, err;
        QCOMPARE(wbtest::runCli({"prepare", "--input_data_dir=" + path("data.csv"), "--classification_task_name=csv",
                                 "--vocab_file=" + path("vocab.txt"), "--max_seq_length=16", "--eval_fraction=0.25",
                                 "--bag_of_words_baseline=false", "--output_dir=" + path("data")},
                                out, err),
                 0);
        m_teacher.distribution_strategy = "one_device";
        m_teacher.bert_config_file = path("bert_config.json");
        m_teacher.input_meta_data_path = path("data/input_meta_data.json");
        m_teacher.train_data_path = path("data/train.tf_record");
        m_teacher.eval_data_path = path("data/eval.tf_record");
        m_teacher.model_dir = path("teacher");
        m_teacher.num_train_epochs = 10;
        m_teacher.learning_rate = 3e-3;
        m_teacher.train_batch_size = 8;
        m_teacher.eval_batch_size = 8;
        m_teacher.num_threads = 1;
        m_teacher.log_steps = 0;
        QVERIFY2(wbtest::runCli({"train", "--bert_config_file=" + m_teacher.bert_config_file,
                                 "--input_meta_data_path=" + m_teacher.input_meta_data_path,
                                 "--train_data_path=" + m_teacher.train_data_path,
                                 "--eval_data_path=" + m_teacher.eval_data_path, "--model_dir=" + m_teacher.model_dir,
                                 "--num_train_epochs=10", "--learning_rate=3e-3", "--distribution_strategy=one_device",
                                 "--train_batch_size=8", "--eval_batch_size=8", "--num_threads=1", "--log_steps=0"},
                                out, err)
                     == 0,
                 err.c_str());
        ProjectFile::save(QString::fromStdString(path("teacher.bwproj")), m_teacher);
    }

    /// Without a finished run the action is off; an opened project whose model_dir holds one
    /// turns it on, and it opens the dialog on that run with the student beside it.
    void menuActionFollowsAFinishedRun()
    {
        MainWindow w;
        QAction *action = distilAction(w);
        QVERIFY(action);
        QCOMPARE(action->text().remove(QLatin1Char('&')), QStringLiteral("Distil Model…"));
        QVERIFY(!action->isEnabled());
        const QString project = QString::fromStdString(path("teacher.bwproj"));
        QSignalSpy shown(&w, &MainWindow::recordedRunShown);
        QString error;
        QVERIFY2(w.openProject(project, &error), qPrintable(error));
        QVERIFY(shown.wait(30000));
        QVERIFY(action->isEnabled());
        action->trigger();
        auto *d = w.findChild<DistilDialog *>(QStringLiteral("distilDialog"));
        QVERIFY(d && d->isVisible());
        QCOMPARE(d->teacherDir(), QString::fromStdString(m_teacher.model_dir));
        QCOMPARE(d->findChild<QLineEdit *>(QStringLiteral("distilStudentDir"))->text(),
                 QString::fromStdString(m_teacher.model_dir + "-student"));
        QVERIFY(d->findChild<QLineEdit *>(QStringLiteral("distilTeacherDir"))->isReadOnly());
        // Another model_dir in the form: no finished run there, no teacher.
        w.findChild<ConfigurationForm *>()->setPath(QStringLiteral("model_dir"), QString::fromStdString(path("elsewhere")));
        QVERIFY(!action->isEnabled());
    }

    /// Distil in the window: the teacher's outputs, the form filled with the student's options,
    /// and the student trained (its evaluation says how often it agrees with the teacher).
    void distilFillsTheFormAndTrainsTheStudent()
    {
        MainWindow w;
        const QString project = QString::fromStdString(path("teacher.bwproj"));
        QSignalSpy shown(&w, &MainWindow::recordedRunShown);
        QString error;
        QVERIFY2(w.openProject(project, &error), qPrintable(error));
        QVERIFY(shown.wait(30000));
        DistilDialog *d = w.openDistilDialog();
        const std::string student = path("teacher-student");
        fill(*d, student, true);
        QSignalSpy finished(d, &DistilDialog::distillationFinished);
        QSignalSpy trained(w.runSession()->controller(), &TrainingController::finished);
        d->findChild<QPushButton *>(QStringLiteral("runDistil"))->click();
        QVERIFY(d->isRunning());
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.front().at(0).toBool(), qPrintable(d->resultText()));
        const QString text = d->resultText();
        // docs/screenshots/distil-dialog.png: WB_DISTIL_SCREENSHOT=<png> takes it here.
        if (const QByteArray shot = qgetenv("WB_DISTIL_SCREENSHOT"); !shot.isEmpty())
            QVERIFY(d->grab().save(QString::fromLocal8Bit(shot)));
        QVERIFY2(text.contains(QStringLiteral("student's data: 45 labelled texts")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("evaluated on the teacher's 15 eval texts")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("teacher's outputs: computed in")), qPrintable(text));

        const TrainingOptions o = w.options();
        QCOMPARE(o.model_dir, student);
        QVERIFY2(QString::fromStdString(o.train_data_path).endsWith(QStringLiteral("distillation/train.tf_record")),
                 o.train_data_path.c_str());
        QCOMPARE(o.eval_data_path, student + "/distillation/eval.tf_record");
        QCOMPARE(o.input_meta_data_path, student + "/distillation/input_meta_data.json");
        QCOMPARE(o.bert_config_file, path("student_config.json"));
        QCOMPARE(o.pretrained_model, std::string());
        QCOMPARE(o.vocab_file, path("vocab.txt")); // the teacher's (prepare's), the form had none
        QCOMPARE(o.do_lower_case, std::string("true"));
        QCOMPARE(o.distillation_temperature, 2.5);
        QCOMPARE(o.distillation_alpha, 0.7);
        const auto teacherJson = nlohmann::json::parse(readAll(student + "/distillation/teacher.json"));
        QCOMPARE(teacherJson.at("counts").at("labelled").get<int64_t>(), int64_t(45));
        QCOMPARE(teacherJson.at("counts").at("eval").get<int64_t>(), int64_t(15));
        QVERIFY(teacherJson.at("counts").at("transfer").get<int64_t>() > 30);

        // The student trains as Train trains: its metrics carry the agreement with the teacher.
        QVERIFY(trained.count() == 1 || trained.wait(240000));
        const auto end = trained.front().at(0).value<RunFinished>();
        QVERIFY2(end.status == RunStatus::Completed, end.message.c_str());
        QCOMPARE(w.runSession()->controller()->lastSpec().model_dir, student);
        QCOMPARE(w.runSession()->controller()->lastSpec().distillation_alpha, 0.7);
        QVERIFY2(w.logText().contains(QStringLiteral("Distillation: student's data")), qPrintable(w.logText()));
        const std::string metrics = readAll(student + "/metrics.jsonl");
        QVERIFY2(metrics.find("eval_teacher_agreement") != std::string::npos, metrics.c_str());
        QTRY_VERIFY(!w.runSession()->isRunning());
        // The evaluation tab says it too, with the last evaluation's figure.
        const double agreement = lastEvalAgreement(student + "/metrics.jsonl");
        const QString summary = w.findChild<EvaluationView *>()->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("Agreement with the teacher: %1 % of the eval texts get the teacher's label")
                                      .arg(QLocale().toString(100.0 * agreement, 'f', 1))),
                 qPrintable(summary));
        // docs/screenshots/distil-evaluation.png: WB_DISTIL_EVAL_SCREENSHOT=<png> takes it here.
        if (const QByteArray shot = qgetenv("WB_DISTIL_EVAL_SCREENSHOT"); !shot.isEmpty()) {
            w.resize(1200, 800);
            w.show();
            w.showTab(QStringLiteral("evaluationTab"));
            QTest::qWait(200);
            QVERIFY(w.grab().save(QString::fromLocal8Bit(shot)));
        }

        // Again, without training: the teacher's outputs are reused.
        fill(*d, student, false);
        QVERIFY(d->start());
        QVERIFY(finished.wait(120000));
        QVERIFY2(d->resultText().contains(QStringLiteral("teacher's outputs: reused from")), qPrintable(d->resultText()));
        QVERIFY2(d->resultText().contains(QStringLiteral("press Train")), qPrintable(d->resultText()));
    }

    /// A transfer file that is not there is named in the dialog before anything runs; one the
    /// core cannot read ends in the dialog's error; the form keeps the teacher's options.
    void transferProblemsAreShownAndTheFormIsKept()
    {
        ConfigurationForm form;
        form.setOptions(m_teacher);
        DistilDialog d(&form);
        d.setTeacher(QString::fromStdString(m_teacher.model_dir));
        fill(d, path("student-2"), false);
        const QString missing = QString::fromStdString(path("no-such-mails.txt"));
        d.setTransferData(missing);
        QSignalSpy finished(&d, &DistilDialog::distillationFinished);
        QVERIFY(!d.start());
        QVERIFY2(d.resultText().contains(missing), qPrintable(d.resultText()));
        QVERIFY(d.resultText().startsWith(QStringLiteral("error: Transfer texts:")));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(form.options().train_data_path, m_teacher.train_data_path);
        QCOMPARE(form.options().model_dir, m_teacher.model_dir);

        // An empty folder: the core finds no text; the error is shown, nothing is kept.
        fs::create_directories(path("empty-transfer"));
        d.setTransferData(QString::fromStdString(path("empty-transfer")));
        QVERIFY(d.start());
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.back().at(0).toBool());
        QVERIFY2(d.resultText().startsWith(QStringLiteral("error: ")), qPrintable(d.resultText()));
        QVERIFY2(d.resultText().contains(QStringLiteral("transfer")), qPrintable(d.resultText()));
        QCOMPARE(form.options().train_data_path, m_teacher.train_data_path);
        QCOMPARE(form.options().model_dir, m_teacher.model_dir);
        QCOMPARE(form.options().distillation_alpha, 1.0);
        QVERIFY(!fs::exists(path("student-2/distillation")));

        // Random weights without a BERT config: named before anything runs.
        d.setTransferData(QString());
        d.setStudentStart(QString(), QString());
        QVERIFY(!d.start());
        QVERIFY2(d.resultText().contains(QStringLiteral("Student's BERT config")), qPrintable(d.resultText()));
    }
};

QTEST_MAIN(tst_DistilDialog)
#include "tst_distildialog.moc"
