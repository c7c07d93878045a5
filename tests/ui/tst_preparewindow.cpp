// SPDX-License-Identifier: Apache-2.0
// Prepare Data in the window (issue 44, items 2 and 3): the model chosen under the dialog's
// "Start from" reaches the form (its start, config, vocabulary and casing) and the run's check
// passes without the preset hint; pretraining text prepared in the dialog fills the form's
// task "Pretrain on text" and its data; the start page's Recent projects lists the example and
// the lesson and opens them as the File menu does. With WB_SCREENSHOT_DIR set, the start page
// is saved there as start-page-recent.png.
#include "ui/window/mainwindow.h"

#include "core/engine/preparedrun.h"
#include "core/weights/safetensors.h"
#include "support/hubfixtures.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/form/configurationform.h"
#include "ui/form/modelpicker.h"
#include "ui/window/startpage.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace wb;

namespace {

void writeText(const QString &path, const std::string &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

/// model.safetensors of every weight of wbtest::tinyConfigJson()'s BERT (vocab 8, hidden 4,
/// one layer, intermediate 8, 16 positions) with Hugging Face's names: small values, layer
/// norms at 1 and 0.
std::string tinyBertSafetensors()
{
    const int64_t V = 8, H = 4, I = 8, P = 16, T = 2;
    std::vector<SafetensorsEntry> entries;
    const auto add = [&entries](const std::string &name, std::vector<int64_t> shape) {
        entries.push_back({name, "F32", std::move(shape), 0, 0});
    };
    add("bert.embeddings.word_embeddings.weight", {V, H});
    add("bert.embeddings.position_embeddings.weight", {P, H});
    add("bert.embeddings.token_type_embeddings.weight", {T, H});
    add("bert.embeddings.LayerNorm.weight", {H});
    add("bert.embeddings.LayerNorm.bias", {H});
    const std::string layer = "bert.encoder.layer.0.";
    for (const char *m : {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
        add(layer + m + ".weight", {H, H});
        add(layer + m + ".bias", {H});
    }
    add(layer + "attention.output.LayerNorm.weight", {H});
    add(layer + "attention.output.LayerNorm.bias", {H});
    add(layer + "intermediate.dense.weight", {I, H});
    add(layer + "intermediate.dense.bias", {I});
    add(layer + "output.dense.weight", {H, I});
    add(layer + "output.dense.bias", {H});
    add(layer + "output.LayerNorm.weight", {H});
    add(layer + "output.LayerNorm.bias", {H});
    add("bert.pooler.dense.weight", {H, H});
    add("bert.pooler.dense.bias", {H});
    std::string bytes = buildSafetensorsHeader(entries, {{"format", "pt"}});
    int k = 0;
    for (const SafetensorsEntry &e : entries) {
        const bool norm = e.name.find("LayerNorm") != std::string::npos;
        const bool gain = norm && e.name.size() > 7 && e.name.compare(e.name.size() - 7, 7, ".weight") == 0;
        for (uint64_t b = e.begin; b < e.end; b += 4) {
            const float v = gain ? 1.0f : norm ? 0.0f : 0.02f * float(std::sin(double(++k)));
            bytes.append(reinterpret_cast<const char *>(&v), 4);
        }
    }
    return bytes;
}

/// Every problem and warning of a check, one a line.
QString diagnosticsText(const Diagnostics &diag)
{
    QStringList lines;
    for (const Diagnostic &d : diag.items())
        lines << QString::fromStdString(d.field + ": " + d.message + " " + d.hint);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class tst_PrepareWindow : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model; ///< a local model folder (config.json, vocab.txt, tokenizer_config.json cased, weights)

    template <typename T>
    static T *field(QWidget &w, const char *name)
    {
        T *found = w.findChild<T *>(QString::fromLatin1(name));
        if (!found)
            qFatal("no widget %s", name);
        return found;
    }
    static ConfigurationForm *formOf(MainWindow &w) { return w.findChild<ConfigurationForm *>(QStringLiteral("configurationForm")); }
    static QString formText(MainWindow &w, const char *flag) { return field<QLineEdit>(*formOf(w), flag)->text(); }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path() + QStringLiteral("/settings"));
        // The start page lists what is in this cache only.
        qputenv("XDG_CACHE_HOME", (m_dir.path() + QStringLiteral("/cache")).toUtf8());
        m_model = m_dir.path() + QStringLiteral("/cased-model");
        writeText(m_model + QStringLiteral("/config.json"), wbtest::tinyConfigJson()); // vocab 8, max_position_embeddings 16
        writeText(m_model + QStringLiteral("/vocab.txt"), wbtest::tinyVocab());
        writeText(m_model + QStringLiteral("/tokenizer_config.json"), "{\"do_lower_case\": false}\n");
        writeText(m_model + QStringLiteral("/model.safetensors"), tinyBertSafetensors());
    }

    /// Item 2: the form had random weights, no config and an old vocabulary; after Prepare Data
    /// with a model under "Start from" the form starts from that model, and the run's check
    /// finds its config and vocabulary (no "preset" hint).
    void startFromReachesTheForm()
    {
        const QString in = m_dir.path() + QStringLiteral("/greetings");
        writeText(in + QStringLiteral("/train.csv"), "text,label\nHello world,a\nworlds,b\nhello,a\nWorld hello,b\n");
        writeText(in + QStringLiteral("/dev.csv"), "text,label\nhello worlds,a\nWorld,b\n");
        const QString oldVocab = m_dir.path() + QStringLiteral("/old-vocab.txt");
        writeText(oldVocab, "[PAD]\n[UNK]\n[CLS]\n[SEP]\nold\n");

        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrainingOptions start;
        start.distribution_strategy = "one_device";
        start.model_dir = (m_dir.path() + QStringLiteral("/run-start-from")).toStdString();
        start.vocab_file = oldVocab.toStdString();
        start.do_lower_case = "true";
        start.num_train_epochs = 1;
        start.train_batch_size = 2;
        start.eval_batch_size = 2;
        w.setOptions(start);
        QCOMPARE(modelPickerValue(field<QComboBox>(*formOf(w), "pretrained_model")), QString());
        {
            // Before: the check asks for a config (random weights, none given).
            const PreparedRun before = prepareRun(formOf(w)->options(), RunPurpose::Train);
            QVERIFY2(diagnosticsText(before.validation.diagnostics).contains(QStringLiteral("preset")),
                     qPrintable(diagnosticsText(before.validation.diagnostics)));
        }

        PrepareDataDialog *d = w.openPrepareData();
        QVERIFY(d);
        QCOMPARE(d->pretrainedModel(), QString()); // the form's start
        field<QComboBox>(*d, "pretrainedModel")->setEditText(m_model); // typed as a user does
        QCOMPARE(d->pretrainedModel(), m_model);
        field<QLineEdit>(*d, "vocabFile")->clear();
        field<QLineEdit>(*d, "inputData")->setText(in);
        field<QComboBox>(*d, "format")->setCurrentText(QStringLiteral("csv"));
        field<QSpinBox>(*d, "maxSeqLength")->setValue(16);
        field<QLineEdit>(*d, "outputDir")->setText(m_dir.path() + QStringLiteral("/prepared-for-model"));
        QSignalSpy prepared(d, &PrepareDataDialog::prepared);
        QSignalSpy failed(d, &PrepareDataDialog::failed);
        QTest::mouseClick(field<QPushButton>(*d, "prepareButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d->lastError()));

        // The form: the model under Start from, the model's config/vocabulary/casing (empty
        // fields are the model's at Train; the form may fill them with its files), the data.
        ConfigurationForm *form = formOf(w);
        QCOMPARE(modelPickerValue(field<QComboBox>(*form, "pretrained_model")), m_model);
        QTRY_VERIFY_WITH_TIMEOUT(!field<QLabel>(*form, "startFromNote")->text().isEmpty(), 10000);
        QVERIFY2(field<QLabel>(*form, "startFromNote")->text().contains(m_model),
                 qPrintable(field<QLabel>(*form, "startFromNote")->text()));
        const TrainingOptions o = form->options();
        QCOMPARE(o.pretrained_model, m_model.toStdString());
        const auto isModels = [this](const std::string &path, const char *file) {
            return path.empty() || QFileInfo(QString::fromStdString(path)).canonicalFilePath()
                                       == QFileInfo(m_model + QLatin1Char('/') + QLatin1String(file)).canonicalFilePath();
        };
        QVERIFY2(isModels(o.vocab_file, "vocab.txt"), o.vocab_file.c_str());
        QVERIFY2(isModels(o.bert_config_file, "config.json"), o.bert_config_file.c_str());
        QVERIFY2(o.do_lower_case.empty() || o.do_lower_case == "false", o.do_lower_case.c_str());
        QCOMPARE(formText(w, "train_data_path"), m_dir.path() + QStringLiteral("/prepared-for-model/train.tf_record"));
        QCOMPARE(formText(w, "input_meta_data_path"), m_dir.path() + QStringLiteral("/prepared-for-model/input_meta_data.json"));
        QCOMPARE(form->task(), FormTask::Classify);
        const QString stage = field<QLabel>(*d, "prepareStage")->text();
        QVERIFY2(stage.contains(QStringLiteral("In the form: task “Classify text”, “Start from” %1, its config, vocabulary "
                                               "and casing, and “Training data”, “Evaluation data”, “Input meta data” the "
                                               "prepared files.")
                                    .arg(m_model)),
                 qPrintable(stage));

        // The run's check: the model's config and vocabulary, the data read as the model reads
        // text; no preset suggested, no config or vocabulary problem.
        const PreparedRun after = prepareRun(form->options(), RunPurpose::Train);
        const QString said = diagnosticsText(after.validation.diagnostics);
        QVERIFY2(!said.contains(QStringLiteral("preset")), qPrintable(said));
        for (const Diagnostic &p : after.validation.diagnostics.items())
            QVERIFY2(p.severity != Severity::Error || (p.field != "bert_config_file" && p.field != "vocab_file"
                                                       && p.field != "do_lower_case" && p.field != "pretrained_model"),
                     qPrintable(said));
        QCOMPARE(after.options.do_lower_case, std::string("false"));
        QVERIFY2(after.validation.ok(), qPrintable(said));
    }

    /// Item 3: pretraining text prepared in the window fills the form's task "Pretrain on text"
    /// and its data; the check of a pretraining run passes.
    void pretrainingTextFillsThePretrainForm()
    {
        std::string text;
        for (int d = 0; d < 30; ++d)
            text += std::string(d ? "\n" : "") + (d % 2 ? "hello world\nworlds hello\n" : "world hello hello\nworld\n");
        const QString corpus = m_dir.path() + QStringLiteral("/my-text.txt");
        writeText(corpus, text);
        const QString out = m_dir.path() + QStringLiteral("/my-pretraining-data");

        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TrainingOptions start;
        start.distribution_strategy = "one_device";
        start.model_dir = (m_dir.path() + QStringLiteral("/run-pretrain")).toStdString();
        start.train_batch_size = 4;
        start.eval_batch_size = 4;
        w.setOptions(start);
        QCOMPARE(formOf(w)->task(), FormTask::Classify);
        PrepareDataDialog *d = w.openPrepareData();
        field<QComboBox>(*d, "prepareKind")->setCurrentIndex(1);
        field<QComboBox>(*d, "pretrainedModel")->setEditText(m_model);
        field<QLineEdit>(*d, "vocabFile")->clear();
        field<QLineEdit>(*d, "inputData")->setText(corpus);
        field<QSpinBox>(*d, "maxSeqLength")->setValue(16);
        field<QDoubleSpinBox>(*d, "evalFraction")->setValue(0.3);
        field<QLineEdit>(*d, "outputDir")->setText(out);
        QSignalSpy prepared(d, &PrepareDataDialog::pretrainingPrepared);
        QSignalSpy failed(d, &PrepareDataDialog::failed);
        QTest::mouseClick(field<QPushButton>(*d, "prepareButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d->lastError()));
        QVERIFY(d->pretrainingReport().eval_sequences > 0);
        QCOMPARE(d->pretrainingReport().do_lower_case, false); // the model's casing

        ConfigurationForm *form = formOf(w);
        QCOMPARE(form->task(), FormTask::Pretrain);
        QCOMPARE(formText(w, "train_data_path"), out + QStringLiteral("/train.tf_record"));
        QCOMPARE(formText(w, "eval_data_path"), out + QStringLiteral("/eval.tf_record"));
        QCOMPARE(formText(w, "input_meta_data_path"), out + QStringLiteral("/input_meta_data.json"));
        QCOMPARE(modelPickerValue(field<QComboBox>(*form, "pretrained_model")), m_model);
        QVERIFY2(w.logText().contains(QStringLiteral("Prepared pretraining text: %1 training, %2 evaluation sequences → %3")
                                          .arg(d->pretrainingReport().train_sequences)
                                          .arg(d->pretrainingReport().eval_sequences)
                                          .arg(out + QStringLiteral("/input_meta_data.json"))),
                 qPrintable(w.logText()));
        const PreparedRun run = prepareRun(form->options(), RunPurpose::Pretrain);
        const QString said = diagnosticsText(run.validation.diagnostics);
        QVERIFY2(run.validation.ok(), qPrintable(said));
        QVERIFY2(!said.contains(QStringLiteral("preset")), qPrintable(said));

        // Opened again while the form pretrains: the dialog offers pretraining text.
        d->setKind(PrepareDataDialog::Kind::Classification);
        QCOMPARE(w.openPrepareData()->kind(), PrepareDataDialog::Kind::Pretraining);
    }

    /// Item 3: Recent projects lists the example and the lesson while their folders exist and
    /// opens them as File → Open Example and File → Why Pretraining Matters do.
    void startPageListsTheExampleAndTheLesson()
    {
        const QString cache = m_dir.path() + QStringLiteral("/cache/bert-workbench");
        {
            StartPage page;
            page.setRecentProjects({}, cache);
            QCOMPARE(page.recentProjectsList()->count(), 1);
            QCOMPARE(page.recentProjectsList()->item(0)->text(), QStringLiteral("(none yet)"));
        }
        QDir().mkpath(cache + QStringLiteral("/example-spam"));
        QDir().mkpath(cache + QStringLiteral("/pretraining-lesson"));
        const QString project = m_dir.path() + QStringLiteral("/mine.bwproj");

        StartPage page;
        page.setRecentProjects({project}, cache);
        QListWidget *list = page.recentProjectsList();
        QCOMPARE(list->count(), 3);
        QCOMPARE(list->item(0)->text(), QStringLiteral("Example: spam detection — %1/example-spam").arg(cache));
        QCOMPARE(list->item(1)->text(), QStringLiteral("Lesson: Why Pretraining Matters — %1/pretraining-lesson").arg(cache));
        QCOMPARE(list->item(2)->text(), project);
        page.resize(700, 500);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QSignalSpy example(&page, &StartPage::openExampleRequested);
        QSignalSpy lesson(&page, &StartPage::pretrainingLessonRequested);
        QSignalSpy opened(&page, &StartPage::openProjectRequested);
        const auto doubleClick = [list](int row) {
            const QPoint at = list->visualItemRect(list->item(row)).center();
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
            QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, at);
        };
        doubleClick(1);
        QCOMPARE(lesson.count(), 1);
        QCOMPARE(example.count(), 0);
        doubleClick(0);
        QCOMPARE(example.count(), 1);
        doubleClick(2);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.first().at(0).toString(), project);
        QCOMPARE(lesson.count(), 1);

        // The window's start page reads the same cache ($XDG_CACHE_HOME).
        MainWindow w;
        w.resize(1100, 760);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.isStartPageShown());
        QListWidget *windowList = field<QListWidget>(w, "recentProjectsList");
        QVERIFY(windowList->count() >= 2);
        QCOMPARE(windowList->item(0)->text(), QStringLiteral("Example: spam detection — %1/example-spam").arg(cache));
        QCOMPARE(windowList->item(1)->text(), QStringLiteral("Lesson: Why Pretraining Matters — %1/pretraining-lesson").arg(cache));
        const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("start-page-recent.png"))));
    }
};

QTEST_MAIN(tst_PrepareWindow)
#include "tst_preparewindow.moc"
