// SPDX-License-Identifier: Apache-2.0
// "Start from" in the window (issue 44, items 1 and 9), offscreen against a local stand-in for the
// Hub (tests/support/hubtestserver.h, loopback only): choosing a model makes its config,
// vocabulary and casing the form's, visibly, even in a project whose config is another width, and
// the run then plans; random weights keep those files; a loaded project whose config is not the
// model's says so, and choosing the model again fixes it; a download shows a progress bar (bytes
// and the file) and Cancel stops it, leaving no half file in the cache; the list marks the models
// in the Hugging Face cache with their size on disk (the core's cachedModelFiles, as `models
// list`); the question about a model_dir that holds a run says something true when BERT config
// is empty.
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/engine/preparedrun.h"
#include "core/engine/runplan.h"
#include "core/hub/catalogue.h"
#include "core/hub/modelcache.h"
#include "support/hubfixtures.h"
#include "support/hubtestserver.h"
#include "support/windowfixtures.h"
#include "ui/form/configurationform.h"
#include "ui/form/modeldownloadpanel.h"
#include "ui/form/modelpicker.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace wb;

namespace {

const std::string kTiny = "test-org/tiny-bert-uncased"; // 8 wide, vocabulary 40
const std::string kSlow = "test-org/slow-bert";
const std::string kSlowAtTrain = "test-org/slow-bert-at-train";
const std::string kCatalogueTiny = "google/bert_uncased_L-2_H-128_A-2"; // served by the stand-in too

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string fixture(const std::string &name) { return std::string(WB_TEST_DATA_DIR) + "/pretrained/tiny-bert-zip/" + name; }

std::string vocab40()
{
    std::string v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (int i = 5; i < 40; ++i)
        v += "w" + std::to_string(i) + "\n";
    return v;
}

QString text(const std::string &s) { return QString::fromStdString(s); }

/// With WB_SCREENSHOT_DIR set, saves `w` as <dir>/<name>.png (to look at what the test drove).
void screenshot(QWidget *w, const char *name)
{
    const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        w->grab().save(QDir(dir).filePath(QLatin1String(name) + QStringLiteral(".png")));
}

} // namespace

class tst_StartFrom : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<wbtest::HubTestServer> m_hub;

    std::string path(const std::string &name) const { return m_dir.filePath(text(name)).toStdString(); }
    QString snapshot(const std::string &repo, char commit) const
    {
        QString folder = QStringLiteral("models--") + text(repo).replace(QLatin1Char('/'), QStringLiteral("--"));
        return m_dir.filePath(QStringLiteral("hf_home/hub/%1/snapshots/%2").arg(folder, QString(40, QLatin1Char(commit))));
    }

    /// A project with a config of its own, 32 wide (vocabulary 100), and data whose ids fit
    /// the pretrained model's vocabulary of 40 too.
    TrainingOptions project() const
    {
        TrainingOptions o;
        o.distribution_strategy = "one_device";
        o.bert_config_file = path("bert_config.json");
        o.input_meta_data_path = path("input_meta_data.json");
        o.train_data_path = path("train.tf_record");
        o.eval_data_path = path("eval.tf_record");
        o.model_dir = path("run");
        o.train_batch_size = 8;
        o.eval_batch_size = 8;
        o.num_train_epochs = 1;
        o.learning_rate = 1e-3;
        o.log_steps = 0;
        return o;
    }

    QComboBox *picker(QWidget &form) { return form.findChild<QComboBox *>(QStringLiteral("pretrained_model")); }
    QLineEdit *field(QWidget &form, const char *flag) { return form.findChild<QLineEdit *>(QLatin1String(flag)); }
    QString note(QWidget &form) { return form.findChild<QLabel *>(QStringLiteral("startFromNote"))->text(); }

    /// Types `value` into Start from and presses Enter, as a user does.
    void typeStartFrom(QWidget &form, const std::string &value)
    {
        QComboBox *combo = picker(form);
        combo->setFocus(Qt::OtherFocusReason);
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), text(value));
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    }

private Q_SLOTS:
    void initTestCase()
    {
        wbtest::useTestSettings();
        QVERIFY(m_dir.isValid());
        m_hub = std::make_unique<wbtest::HubTestServer>();
        wbtest::HubTestRepo tiny;
        tiny.commit = std::string(40, 'a');
        tiny.files["config.json"].content = readAll(fixture("config.json"));
        tiny.files["vocab.txt"].content = vocab40();
        tiny.files["pytorch_model.bin"].content = readAll(fixture("pytorch_model.bin"));
        tiny.files["pytorch_model.bin"].lfs = true;
        QVERIFY(!tiny.files["pytorch_model.bin"].content.empty());
        m_hub->addRepo(kTiny, tiny);
        m_hub->addRepo(kCatalogueTiny, tiny);
        wbtest::HubTestRepo slow = wbtest::tinyRepo(std::string(40, 'b'), 256 * 1024); // 1 MiB of weights
        slow.files["model.safetensors"].slow_ms = 20; // 256 pauses of 20 ms: about 5 s
        m_hub->addRepo(kSlow, slow);
        m_hub->addRepo(kSlowAtTrain, slow);
        qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_hub->endpoint()));
        qputenv("HF_HOME", QByteArray::fromStdString(path("hf_home")));
        qunsetenv("HF_HUB_CACHE");
        qunsetenv("HUGGINGFACE_HUB_CACHE");
        qunsetenv("HF_HUB_OFFLINE");
        qunsetenv("HF_TOKEN");

        std::ofstream(path("bert_config.json"))
            << R"({"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
                  "intermediate_size": 64, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
                  "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64, "type_vocab_size": 2,
                  "initializer_range": 0.02})";
        std::ofstream(path("input_meta_data.json"))
            << R"({"processor_type": "FOLDERS", "task_type": "bert_classification", "num_labels": 2,
                  "train_data_size": 32, "eval_data_size": 8, "max_seq_length": 16})";
        for (const auto &[file, n] : {std::pair{std::string("train.tf_record"), 32}, std::pair{std::string("eval.tf_record"), 8}}) {
            TFRecordWriter w(path(file));
            for (int i = 0; i < n; ++i) {
                ClassifierRecord r;
                r.label_id = i % 2;
                r.input_ids.assign(16, 0);
                r.input_mask.assign(16, 0);
                r.segment_ids.assign(16, 0);
                r.input_ids[0] = 2;
                for (int k = 1; k < 9; ++k)
                    r.input_ids[size_t(k)] = (r.label_id ? 22 : 5) + (i + k) % 17;
                r.input_ids[9] = 3;
                for (int k = 0; k < 10; ++k)
                    r.input_mask[size_t(k)] = 1;
                w.write(encodeClassifierRecord(r));
            }
            w.commit();
        }
    }

    void cleanupTestCase()
    {
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HF_HOME");
    }

    /// Issue 44 item 1: a project with a config 32 wide; choosing a model 8 wide in Start from
    /// makes the model's config, vocabulary and casing the form's, and the run plans.
    void choosingAModelOfAnotherWidthFillsTheForm()
    {
        TrainingOptions o = project();
        // What Train did before: the project's config with the model's weights.
        TrainingOptions mixed = o;
        mixed.pretrained_model = kTiny;
        const RunPlan before = planRun(mixed, RunPurpose::Train, PlanFrontEnd{}, StopToken{});
        QVERIFY(!before.ok());
        QVERIFY2(before.failure().message.find("another architecture than the model config") != std::string::npos,
                 before.failure().message.c_str());

        ConfigurationForm form;
        form.setOptions(o);
        form.show();
        QCOMPARE(field(form, "bert_config_file")->text(), text(o.bert_config_file));
        QSignalSpy filled(&form, &ConfigurationForm::startModelFilled);
        QSignalSpy edited(&form, &ConfigurationForm::edited);
        typeStartFrom(form, kTiny);
        QVERIFY(edited.count() > 0);
        if (filled.isEmpty()) { // emptied at once: Train would fill them from the model
            QCOMPARE(field(form, "bert_config_file")->text(), QString());
            QCOMPARE(field(form, "vocab_file")->text(), QString());
            QVERIFY2(note(form).startsWith(QStringLiteral("Getting the files of test-org/tiny-bert-uncased…")),
                     qPrintable(note(form)));
        }
        QVERIFY(filled.count() == 1 || filled.wait(30000));
        const QString snap = snapshot(kTiny, 'a');
        QCOMPARE(field(form, "bert_config_file")->text(), snap + QStringLiteral("/config.json"));
        QCOMPARE(field(form, "vocab_file")->text(), snap + QStringLiteral("/vocab.txt"));
        const TrainingOptions shown = form.options();
        QCOMPARE(shown.pretrained_model, kTiny);
        QCOMPARE(shown.do_lower_case, std::string("true")); // 'uncased' in the id
        QCOMPARE(shown.init_checkpoint, std::string());     // the model's weights
        QVERIFY2(note(form).contains(QStringLiteral("From test-org/tiny-bert-uncased: BERT config, Vocabulary and "
                                                     "casing (uncased). Train starts from its weights.")),
                 qPrintable(note(form)));
        QVERIFY(form.startModelDownload()->isHidden());

        const RunPlan plan = planRun(shown, RunPurpose::Train, PlanFrontEnd{}, StopToken{});
        QVERIFY2(plan.ok(), plan.failure().message.c_str());
        QCOMPARE(text(plan.run.options.bert_config_file), snap + QStringLiteral("/config.json"));
        QCOMPARE(text(plan.run.options.init_checkpoint), snap); // the snapshot folder: its weights

        // Back to random weights from the list: the model's files stay (its shape, from scratch).
        QComboBox *combo = picker(form);
        combo->showPopup();
        combo->view()->setCurrentIndex(combo->model()->index(0, 0));
        QTest::keyClick(combo->view(), Qt::Key_Return);
        QCOMPARE(form.options().pretrained_model, std::string());
        QCOMPARE(field(form, "bert_config_file")->text(), snap + QStringLiteral("/config.json"));
        QCOMPARE(note(form), QStringLiteral("Random weights: the model config and the vocabulary are the files below."));
        const RunPlan scratch = planRun(form.options(), RunPurpose::Train, PlanFrontEnd{}, StopToken{});
        QVERIFY2(scratch.ok(), scratch.failure().message.c_str());
    }

    /// A loaded project whose config is not the model's says so under the picker; choosing the
    /// model again (Enter) puts the model's files in.
    void aLoadedConfigThatIsNotTheModelsIsNamed()
    {
        TrainingOptions o = project();
        o.pretrained_model = kTiny; // in the cache since the test above
        ConfigurationForm form;
        form.setOptions(o);
        form.show();
        QTRY_VERIFY2(note(form).contains(QStringLiteral("Yours, not the model's: BERT config; choose the model again in "
                                                        "Start from to use its files.")),
                     qPrintable(note(form)));
        QCOMPARE(form.options().bert_config_file, o.bert_config_file); // a loaded value is never rewritten
        QSignalSpy filled(&form, &ConfigurationForm::startModelFilled);
        QComboBox *combo = picker(form);
        combo->setFocus(Qt::OtherFocusReason);
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QVERIFY(filled.count() == 1 || filled.wait(30000));
        QCOMPARE(field(form, "bert_config_file")->text(), snapshot(kTiny, 'a') + QStringLiteral("/config.json"));
        QVERIFY2(!note(form).contains(QStringLiteral("Yours")), qPrintable(note(form)));
        QVERIFY2(!note(form).contains(QStringLiteral("Downloaded")), qPrintable(note(form))); // from the cache
    }

    /// Issue 44 item 9: a download shows a progress bar with the bytes and a line with the file;
    /// Cancel stops it, and the cache holds no half file (only blobs/<etag>.incomplete, resumed
    /// next time).
    void downloadShowsProgressAndCancelStopsIt()
    {
        ConfigurationForm form;
        form.setOptions(project());
        form.show();
        ModelDownloadPanel *panel = form.startModelDownload();
        QVERIFY(panel->isHidden());
        typeStartFrom(form, kSlow);
        QVERIFY(!panel->isHidden());
        auto *bar = panel->findChild<QProgressBar *>(QStringLiteral("downloadProgress"));
        auto *line = panel->findChild<QLabel *>(QStringLiteral("downloadText"));
        auto *cancel = panel->findChild<QPushButton *>(QStringLiteral("cancelDownload"));
        QVERIFY(bar && line && cancel);
        QTRY_VERIFY_WITH_TIMEOUT(bar->value() > 0, 20000);
        QVERIFY2(bar->text().contains(QStringLiteral(" of ")) && bar->text().endsWith(QStringLiteral(" MB")), qPrintable(bar->text()));
        QVERIFY2(line->text().startsWith(QStringLiteral("Downloading test-org/slow-bert: model.safetensors, file 4 of 4")),
                 qPrintable(line->text()));
        QCOMPARE(field(form, "bert_config_file")->text(), QString());
        form.resize(760, form.sizeHint().height());
        screenshot(&form, "startfrom-download");
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(panel->isHidden(), 10000);
        QVERIFY2(note(form).startsWith(QStringLiteral("Download of test-org/slow-bert cancelled. The part downloaded so far "
                                                      "stays in the Hugging Face cache and is resumed next time.")),
                 qPrintable(note(form)));
        QCOMPARE(field(form, "bert_config_file")->text(), QString());
        QCOMPARE(form.options().pretrained_model, kSlow);
        // No half file: the snapshot lacks the weights, the model is not "in the cache", the cut
        // part waits as .incomplete.
        const QString snap = snapshot(kSlow, 'b');
        QVERIFY(QFileInfo::exists(snap + QStringLiteral("/config.json")));
        QVERIFY(!QFileInfo::exists(snap + QStringLiteral("/model.safetensors")));
        QVERIFY(!cachedModelFiles(kSlow, HubSettings::fromEnvironment()));
        const QStringList parts = QDir(snap + QStringLiteral("/../../blobs")).entryList({QStringLiteral("*.incomplete")});
        QCOMPARE(parts.size(), 1);

        // At full speed, chosen again: resumed, and the form filled.
        wbtest::HubTestFile fast = wbtest::tinyRepo(std::string(40, 'b'), 256 * 1024).files["model.safetensors"];
        m_hub->setFile(kSlow, "model.safetensors", fast);
        QSignalSpy filled(&form, &ConfigurationForm::startModelFilled);
        typeStartFrom(form, kSlow);
        QVERIFY(filled.count() == 1 || filled.wait(30000));
        QCOMPARE(field(form, "bert_config_file")->text(), snap + QStringLiteral("/config.json"));
        QCOMPARE(form.options().do_lower_case, std::string("false")); // its tokenizer_config.json
        QVERIFY2(note(form).contains(QStringLiteral("casing (cased)")), qPrintable(note(form)));
        QVERIFY2(note(form).startsWith(QStringLiteral("Downloaded ")), qPrintable(note(form))); // the rest of it
        QVERIFY(QFileInfo::exists(snap + QStringLiteral("/model.safetensors")));
    }

    /// The list marks the models in the Hugging Face cache with their size on disk: the core's
    /// answer, the one `bert-workbench-cli models list` prints.
    void theListMarksCachedModelsWithTheirSize()
    {
        ConfigurationForm form;
        form.show();
        QComboBox *combo = picker(form);
        const int tiny = combo->findData(text(kCatalogueTiny));
        const int mini = combo->findData(QStringLiteral("google/bert_uncased_L-4_H-256_A-4"));
        QVERIFY(tiny > 0 && mini > 0);
        QTRY_VERIFY(!isModelPickerCacheScanning(combo));
        QCOMPARE(combo->itemText(tiny), QStringLiteral("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2)"));
        // BERT-Tiny into the cache (the stand-in serves the 8-wide model under its id).
        QSignalSpy filled(&form, &ConfigurationForm::startModelFilled);
        combo->showPopup();
        combo->view()->setCurrentIndex(combo->model()->index(tiny, 0));
        QTest::keyClick(combo->view(), Qt::Key_Return);
        QCOMPARE(form.options().pretrained_model, kCatalogueTiny);
        QVERIFY(filled.count() == 1 || filled.wait(30000));
        const std::optional<CachedModelFiles> cached = cachedModelFiles(kCatalogueTiny, HubSettings::fromEnvironment());
        QVERIFY(cached);
        QVERIFY(cached->bytes_on_disk > 0);
        QCOMPARE(cached->bytes_on_disk, int64_t(readAll(fixture("config.json")).size() + vocab40().size()
                                                + readAll(fixture("pytorch_model.bin")).size()));
        const QString mark = QStringLiteral("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2) — in the cache, %1")
                                 .arg(text(formatBytes(cached->bytes_on_disk)));
        QTRY_COMPARE(combo->itemText(tiny), mark);
        QCOMPARE(combo->currentText(), mark); // the choice shows it too, and stays the choice
        QCOMPARE(form.options().pretrained_model, kCatalogueTiny);
        QVERIFY2(combo->itemData(tiny, Qt::ToolTipRole).toString().contains(QStringLiteral("In the Hugging Face cache: ")),
                 qPrintable(combo->itemData(tiny, Qt::ToolTipRole).toString()));
        QCOMPARE(combo->itemText(mini), QStringLiteral("BERT-Mini (google/bert_uncased_L-4_H-256_A-4)"));
        form.resize(760, form.sizeHint().height());
        screenshot(&form, "startfrom-cached");
        combo->showPopup();
        QTRY_VERIFY(!isModelPickerCacheScanning(combo));
        screenshot(combo->view()->window(), "startfrom-list");
        combo->hidePopup();
        QVERIFY2(combo->itemData(mini, Qt::ToolTipRole).toString().contains(QStringLiteral("Not downloaded yet")),
                 qPrintable(combo->itemData(mini, Qt::ToolTipRole).toString()));
        // The same answer for the list of the catalogue as a whole (models list).
        const auto all = cachedCatalogueModels(HubSettings::fromEnvironment());
        QCOMPARE(all.size(), pretrainedCatalogue().size());
        QVERIFY(all[size_t(tiny - 1)] && all[size_t(tiny - 1)]->bytes_on_disk == cached->bytes_on_disk);
        QVERIFY(!all[size_t(mini - 1)]);
    }

    /// Train with a Start from model that is not on disk yet (a project opened with it): the
    /// check downloads it first, shown under Start from with the same bar and Cancel.
    void trainsDownloadShowsUnderStartFrom()
    {
        TrainingOptions o = project();
        o.pretrained_model = kSlowAtTrain;
        o.bert_config_file.clear();
        MainWindow w;
        wbtest::RecordingRun rec;
        wbtest::installRecorder(w, rec);
        w.setOptions(o);
        w.show();
        auto *panel = w.findChild<ModelDownloadPanel *>(QStringLiteral("modelDownload"));
        QVERIFY(panel);
        QVERIFY(panel->isHidden());
        QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
        QVERIFY(w.train());
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isHidden() && panel->progressBar()->value() > 0, 20000);
        QVERIFY2(panel->progressBar()->text().contains(QStringLiteral(" of ")), qPrintable(panel->progressBar()->text()));
        QVERIFY2(panel->textLabel()->text().startsWith(QStringLiteral("Downloading test-org/slow-bert-at-train: ")),
                 qPrintable(panel->textLabel()->text()));
        QVERIFY(panel->cancelButton()->isEnabled());
        QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
        QVERIFY(checked.count() == 1 || checked.wait(20000));
        QCOMPARE(checked.first().at(0).toBool(), false);
        QVERIFY(panel->isHidden());
        QCOMPARE(rec.calls->load(), 0);
        QVERIFY(!QFileInfo::exists(snapshot(kSlowAtTrain, 'b') + QStringLiteral("/model.safetensors")));
        if (QDialog *d = w.runSession()->validationDialog())
            d->close();
    }

    /// The question about a model_dir that holds a run, with BERT config empty: compared with
    /// Start from's model when it is in the cache; else it says what is empty and what to do.
    void usedModelDirWithAnEmptyConfig()
    {
        TrainingOptions o = project();
        o.pretrained_model = kTiny;
        o.bert_config_file.clear();
        o.model_dir = path("used-run");
        TrainingOptions asRun = o;
        const auto model = findCachedPretrainedModel(kTiny, HubSettings::fromEnvironment());
        QVERIFY(model);
        applyPretrainedModel(asRun, *model);
        wbtest::writeUsedModelDir(asRun, 2);

        MainWindow w;
        wbtest::RecordingRun rec;
        wbtest::installRecorder(w, rec);
        w.setOptions(o);
        w.show();
        QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
        QVERIFY(w.train());
        QVERIFY(asked.wait(30000));
        QDialog *d = w.runSession()->usedModelDirDialog();
        const QString said = d->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->text();
        QVERIFY2(said.contains(QStringLiteral("holds a run at step 2 of 4")), qPrintable(said));
        QVERIFY2(!said.contains(QStringLiteral("cannot be read")), qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("Continue it from its latest checkpoint")), qPrintable(said));
        QVERIFY(d->findChild<QPushButton *>(QStringLiteral("continueRun"))->isEnabled());
        d->reject();

        // Random weights and no config: what is empty, and how to continue.
        o.pretrained_model.clear();
        w.setOptions(o);
        QVERIFY(w.train());
        QVERIFY(asked.wait(30000));
        const QString empty = d->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->text();
        QVERIFY2(empty.contains(QStringLiteral("It cannot be continued: BERT config is empty and Start from is random "
                                               "weights, so the run's model cannot be compared with the form's. Choose "
                                               "the run's model in Start from, or its config file in BERT config, to "
                                               "continue it.")),
                 qPrintable(empty));
        QVERIFY2(!empty.contains(QStringLiteral("cannot be read")), qPrintable(empty));
        d->reject();
    }

    /// Issue 44 item 1: at 1024×700 a long Start from choice (BERT-Tiny with its cache mark, in
    /// the cache since the test above) is elided in the box, and the form is no wider for it.
    void aLongChoiceElidesInANarrowWindow()
    {
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *form = w.findChild<ConfigurationForm *>();
        QComboBox *combo = picker(*form);
        QTRY_VERIFY(!isModelPickerCacheScanning(combo));
        QCoreApplication::processEvents();
        const int formWidth = form->width();
        const int tiny = combo->findData(text(kCatalogueTiny));
        const QString mark = combo->itemText(tiny);
        QVERIFY2(mark.startsWith(QStringLiteral("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2) — in the cache, ")), qPrintable(mark));
        TrainingOptions o = project();
        o.pretrained_model = kCatalogueTiny;
        w.setOptions(o);
        w.findChild<QWidget *>(QStringLiteral("model_dir"))->setFocus(Qt::OtherFocusReason); // not the picker
        QTRY_COMPARE(combo->currentText(), mark);
        QCoreApplication::processEvents();
        QCOMPARE(w.width(), 1024);
        QCOMPARE(form->width(), formWidth);
        QVERIFY2(combo->width() < combo->fontMetrics().horizontalAdvance(mark),
                 qPrintable(QStringLiteral("box %1 px, text %2 px").arg(combo->width()).arg(combo->fontMetrics().horizontalAdvance(mark))));
        const QString shown = modelPickerShownText(combo);
        QVERIFY2(shown.endsWith(QChar(0x2026)) && shown.size() < mark.size(), qPrintable(shown));
        QVERIFY2(mark.startsWith(shown.chopped(1)), qPrintable(shown));
        QCOMPARE(modelPickerValue(combo), text(kCatalogueTiny)); // the value is the whole choice
        combo->lineEdit()->setFocus(Qt::OtherFocusReason); // edited: the whole text
        QTRY_VERIFY(combo->lineEdit()->hasFocus());
        QCOMPARE(modelPickerShownText(combo), mark);
        screenshot(&w, "startfrom-1024x700");
    }
};

QTEST_MAIN(tst_StartFrom)
#include "tst_startfrom.moc"
