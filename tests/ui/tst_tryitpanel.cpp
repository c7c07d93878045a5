// SPDX-License-Identifier: Apache-2.0
// Issue 14, Try it: the panel shows TextClassifier's tokenization and probabilities for the
// typed text, computed off the GUI thread, newest request first, from a tiny trained run.
// With WB_TRYIT_SCREENSHOT=<png> the window test also saves docs/screenshots/try-it.png.
#include "core/formats/checkpointstate.h"
#include "core/infer/textclassifier.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"
#include "ui/form/projectfile.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/tryit/tryitpanel.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScrollArea>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

/// Loading the model and classifying runs on a pool thread; generous for a busy machine.
constexpr int kWaitMs = 60000;

/// 100 tokens that fit writeTinyRun's records: label 0 (ham) uses ids 1…49, label 1 (spam)
/// ids 51…99, so the tiny model learns real-looking words.
std::vector<std::string> vocabTokens()
{
    const char *ham = "meeting lunch tomorrow thanks see you later home dinner mum dad back ok sure love family "
                      "weekend class homework game tonight pick up coffee morning office project report sorry late "
                      "bus train walk dog cat garden movie book friend birthday party cake talk soon night sleep";
    const char *spam = "free win winner prize cash claim urgent offer click now call txt reply stop award guaranteed "
                       "bonus credit loan won selected congratulations mobile ringtone voucher discount deal limited "
                       "exclusive entry draw code text subscribe service rate apply customer account bank lottery "
                       "million pounds dollars instant quote cheap sale bargain";
    std::vector<std::string> t{"[PAD]", "[UNK]", "[CLS]", "[SEP]"};
    std::istringstream h(ham), s(spam);
    for (std::string w; h >> w;)
        t.push_back(w);
    t.push_back("the");
    for (std::string w; s >> w;)
        t.push_back(w);
    return t;
}

/// Where the panel's parts are (in the panel's coordinates): the text field, the wordpiece
/// area, the answer bars; widgets without an object name are left out. Issue 27: "Try it
/// jumps a line when typing starts".
QString layoutPositions(const TryItPanel &p)
{
    QStringList out;
    const auto place = [&p, &out](const QWidget *w, const QString &name) {
        const QPoint at = w->mapTo(&p, QPoint(0, 0));
        out << QStringLiteral("%1 %2,%3 %4x%5").arg(name).arg(at.x()).arg(at.y()).arg(w->width()).arg(w->height());
    };
    place(p.textEdit(), QStringLiteral("text"));
    for (const QScrollArea *scroll : p.findChildren<QScrollArea *>())
        place(scroll, QStringLiteral("scroll"));
    if (const auto bars = p.findChildren<QProgressBar *>(QStringLiteral("labelBar")); !bars.isEmpty())
        place(bars.first(), QStringLiteral("firstBar"));
    return out.join(QStringLiteral("; "));
}

QStringList chipTokens(const TryItPanel &p)
{
    QStringList out;
    for (const QLabel *chip : p.findChildren<QLabel *>(QStringLiteral("tokenChip")))
        out << chip->property("token").toString();
    return out;
}

} // namespace

/// Waits until the latest request's outcome is shown (fails the test function otherwise).
#define WAIT_SHOWN(p) \
    QTRY_VERIFY_WITH_TIMEOUT((p).generation() > 0 && (p).shownGeneration() == (p).generation() && !(p).isBusy(), kWaitMs)

class tst_TryItPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void probabilitiesEqualClassify();
    void chipsShowSpecialAndUnknownTokens();
    void longTextShowsTheCut();
    void pairShowsBothSegments();
    void newerRequestWins();
    void noCheckpointThenCheckpointSaved();
    void loadErrorInFormWords();
    void exportFolderChosen();
    void windowTab();
    void windowFollowsOpenedProject();
    void chosenFileThatIsNoCheckpoint();
    void windowFollowsCheckpointsWhileTraining();
    void chosenModelLastsUntilTheProjectChanges();
    void chosenModelOfOtherLabelsIsSaidSo();
    void keptBestModelIsShownFirst();
    void textFieldStaysWhenTypingStarts();
    void explainBoxesShowWholeNames();

private:
    ClassifierSource source() const;

    QTemporaryDir m_dir;
    std::string m_root;
    TrainingOptions m_opts;
    std::unique_ptr<TextClassifier> m_ref;
};

void tst_TryItPanel::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = m_dir.path().toStdString() + "/run";
    wbtest::TinyRun tiny;
    tiny.train_size = 256;
    tiny.eval_size = 32;
    tiny.batch_size = 16;
    tiny.num_train_epochs = 6; // 96 steps: the tiny model learns which words are spam
    tiny.learning_rate = 2e-3;
    tiny.dropout_prob = 0;
    m_opts = wbtest::writeTinyRun(m_root, tiny);
    m_opts.vocab_file = m_root + "/vocab.txt";
    {
        std::ofstream v(m_opts.vocab_file);
        const auto tokens = vocabTokens();
        QCOMPARE(tokens.size(), size_t(100));
        for (const auto &t : tokens)
            v << t << "\n";
    }
    std::ofstream(m_root + "/labels.txt") << "ham\nspam\n";
    // writeTinyRun's records start at position 0; texts start with [CLS] (id 2, a "ham" id
    // there). Rewrite them as prepare frames texts: [CLS] 1…14 words of the label [SEP].
    uint64_t lcg = 42;
    const auto next = [&lcg](int64_t n) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        return int64_t((lcg >> 33) % uint64_t(n));
    };
    for (const auto &[path, n] : {std::pair{m_opts.train_data_path, tiny.train_size},
                                  std::pair{m_opts.eval_data_path, tiny.eval_size}}) {
        TFRecordWriter w(path);
        for (int64_t i = 0; i < n; ++i) {
            ClassifierRecord r;
            r.input_ids.assign(size_t(tiny.max_seq_length), 0);
            r.input_mask.assign(size_t(tiny.max_seq_length), 0);
            r.segment_ids.assign(size_t(tiny.max_seq_length), 0);
            r.label_id = i % 2;
            const int64_t words = 1 + next(tiny.max_seq_length - 2);
            r.input_ids[0] = 2;
            for (int64_t k = 1; k <= words; ++k)
                r.input_ids[size_t(k)] = r.label_id == 0 ? 4 + next(46) : 51 + next(49);
            r.input_ids[size_t(words + 1)] = 3;
            for (int64_t k = 0; k <= words + 1; ++k)
                r.input_mask[size_t(k)] = 1;
            w.write(encodeClassifierRecord(r));
        }
        w.commit();
    }
    wbtest::RecordingObserver obs;
    StopToken stop;
    Trainer trainer;
    const RunFinished r = trainer.run(m_opts, obs, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QCOMPARE(r.last_step, int64_t(96));
    QCOMPARE(obs.evals.back().eval_accuracy, 1.0);
    m_ref = std::make_unique<TextClassifier>(source());
    QCOMPARE(m_ref->labelNames(), (std::vector<std::string>{"ham", "spam"}));
}

ClassifierSource tst_TryItPanel::source() const
{
    ClassifierSource s;
    s.model_dir = m_opts.model_dir;
    s.bert_config_file = m_opts.bert_config_file;
    s.input_meta_data_path = m_opts.input_meta_data_path;
    s.vocab_file = m_opts.vocab_file;
    return s;
}

void tst_TryItPanel::probabilitiesEqualClassify()
{
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    QSignalSpy shown(&p, &TryItPanel::outcomeShown);
    const QString text = QStringLiteral("Free prize: claim your cash now");
    QTest::keyClicks(p.textEdit(), text);
    WAIT_SHOWN(p);
    QCOMPARE(p.textEdit()->toPlainText(), text);

    const Classification c = m_ref->classify(text.toStdString());
    const std::vector<double> shownP = p.shownProbabilities();
    QCOMPARE(p.shownLabels(), (QStringList{QStringLiteral("ham"), QStringLiteral("spam")}));
    QCOMPARE(shownP.size(), size_t(2));
    double sum = 0;
    for (size_t k = 0; k < 2; ++k) {
        QVERIFY2(std::abs(shownP[k] - c.probabilities[k]) < 1e-6, qPrintable(QString::number(shownP[k])));
        sum += shownP[k];
    }
    QVERIFY(std::abs(sum - 1.0) < 1e-6);
    QCOMPARE(c.predicted_label, std::string("spam")); // the tiny model learned the spam words
    const auto bars = p.findChildren<QProgressBar *>(QStringLiteral("labelBar"));
    QCOMPARE(bars.size(), 2);
    for (int k = 0; k < 2; ++k) {
        QCOMPARE(bars[k]->value(), int(std::lround(c.probabilities[size_t(k)] * 1000)));
        QVERIFY2(bars[k]->format().trimmed().startsWith(p.shownLabels()[k] + QLatin1Char(' ')), qPrintable(bars[k]->format()));
        QCOMPARE(bars[k]->format().trimmed(), QStringLiteral("%1 %2 %").arg(p.shownLabels()[k]).arg(shownP[size_t(k)] * 100, 0, 'f', 1));
    }
    QVERIFY(bars[1]->styleSheet().contains(QStringLiteral("font-weight:bold")));
    QVERIFY(!bars[0]->styleSheet().contains(QStringLiteral("font-weight:bold")));
    QVERIFY2(p.modelLine().contains(QStringLiteral("ckpt-96")), qPrintable(p.modelLine()));
    // Typing ran one request after the debounce, not one per keystroke.
    QCOMPARE(shown.count(), 1);
    QCOMPARE(p.droppedResults(), 0);
}

void tst_TryItPanel::chipsShowSpecialAndUnknownTokens()
{
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    p.setTexts(QStringLiteral("Lunch tomorrow zebra"));
    WAIT_SHOWN(p);
    const TokenizedText expected = m_ref->tokenize("Lunch tomorrow zebra");
    QCOMPARE(expected.tokens, (std::vector<std::string>{"[CLS]", "lunch", "tomorrow", "[UNK]", "[SEP]"}));
    const auto chips = p.findChildren<QLabel *>(QStringLiteral("tokenChip"));
    QCOMPARE(chips.size(), 5);
    QCOMPARE(chipTokens(p), (QStringList{QStringLiteral("[CLS]"), QStringLiteral("lunch"), QStringLiteral("tomorrow"),
                                         QStringLiteral("[UNK]"), QStringLiteral("[SEP]")}));
    for (int k = 0; k < chips.size(); ++k)
        QCOMPARE(chips[k]->property("inputId").toLongLong(), qlonglong(expected.input_ids[size_t(k)]));
    QCOMPARE(chips.front()->property("inputId").toLongLong(), qlonglong(2)); // [CLS]
    QCOMPARE(chips.back()->property("inputId").toLongLong(), qlonglong(3));  // [SEP]
    QVERIFY(chips[3]->property("unknown").toBool());
    QCOMPARE(chips[3]->property("inputId").toLongLong(), qlonglong(1));
    QVERIFY(chips[3]->toolTip().contains(QStringLiteral("not in the vocabulary")));
    QVERIFY(chips[3]->styleSheet() != chips[1]->styleSheet());
    QVERIFY(!chips[1]->property("unknown").toBool());
    QVERIFY(p.cutText().isEmpty());
    // The ids are shown on the chip itself.
    QVERIFY(chips[1]->text().contains(QString::number(expected.input_ids[1])));
}

void tst_TryItPanel::longTextShowsTheCut()
{
    TryItPanel p;
    p.setFormSource(source());
    p.resize(500, 400);
    p.show();
    QStringList words;
    for (int k = 0; k < 30; ++k)
        words << QStringLiteral("coffee");
    p.setTexts(words.join(QLatin1Char(' ')));
    WAIT_SHOWN(p);
    const TokenizedText t = m_ref->tokenize(words.join(QLatin1Char(' ')).toStdString());
    QVERIFY(t.truncated);
    QCOMPARE(t.tokens_needed, int64_t(32));
    QCOMPARE(p.cutText(), QStringLiteral("✂ cut here: 16 of 32 wordpieces kept"));
    QCOMPARE(chipTokens(p).size(), 16); // max_seq_length
    QCOMPARE(chipTokens(p).back(), QStringLiteral("[SEP]"));
    // The chips wrap: at 500 px not all 16 fit on one row.
    const auto chips = p.findChildren<QLabel *>(QStringLiteral("tokenChip"));
    QTRY_VERIFY(chips.back()->geometry().top() > chips.front()->geometry().top());
    const auto *cut = p.findChild<QLabel *>(QStringLiteral("cutLine"));
    QVERIFY(cut->geometry().left() > chips.back()->geometry().left() || cut->geometry().top() > chips.back()->geometry().top());
}

void tst_TryItPanel::pairShowsBothSegments()
{
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    p.setTexts(QStringLiteral("lunch tomorrow"), QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    QCOMPARE(chipTokens(p), (QStringList{QStringLiteral("[CLS]"), QStringLiteral("lunch"), QStringLiteral("tomorrow"),
                                         QStringLiteral("[SEP]"), QStringLiteral("free"), QStringLiteral("cash"),
                                         QStringLiteral("[SEP]")}));
    QCOMPARE(p.shownTokens().segment_ids, (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1}));
    const auto chips = p.findChildren<QLabel *>(QStringLiteral("tokenChip"));
    QVERIFY(chips[4]->styleSheet() != chips[1]->styleSheet()); // the second segment in its own colour
    QVERIFY(chips[4]->toolTip().contains(QStringLiteral("segment 1")));
    const Classification c = m_ref->classify("lunch tomorrow", "free cash");
    QCOMPARE(p.shownProbabilities().size(), size_t(2));
    for (size_t k = 0; k < 2; ++k)
        QVERIFY(std::abs(p.shownProbabilities()[k] - c.probabilities[k]) < 1e-6);
    // The pair differs from the first text alone (the second segment reaches the model).
    QVERIFY(std::abs(c.probabilities[1] - m_ref->classify("lunch tomorrow").probabilities[1]) > 1e-6);
}

void tst_TryItPanel::newerRequestWins()
{
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    const int droppedBefore = p.droppedResults();
    QSignalSpy shown(&p, &TryItPanel::outcomeShown);
    p.setTexts(QStringLiteral("win a prize now"));
    const uint64_t older = p.refreshNow();
    p.setTexts(QStringLiteral("see you at dinner"));
    const uint64_t newer = p.refreshNow();
    QVERIFY(newer > older);
    // The older job's callback runs only after both were started (same event loop): dropped.
    QTRY_COMPARE_WITH_TIMEOUT(p.droppedResults(), droppedBefore + 1, kWaitMs);
    WAIT_SHOWN(p);
    QCOMPARE(p.shownGeneration(), newer);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.front().front().value<quint64>(), quint64(newer));
    QCOMPARE(chipTokens(p), (QStringList{QStringLiteral("[CLS]"), QStringLiteral("see"), QStringLiteral("you"),
                                         QStringLiteral("[UNK]"), QStringLiteral("dinner"), QStringLiteral("[SEP]")}));
    const Classification c = m_ref->classify("see you at dinner");
    QVERIFY(std::abs(p.shownProbabilities().at(0) - c.probabilities[0]) < 1e-6);
}

void tst_TryItPanel::noCheckpointThenCheckpointSaved()
{
    QTemporaryDir dir;
    const std::string modelDir = dir.path().toStdString() + "/fresh";
    fs::create_directories(modelDir);
    ClassifierSource s = source();
    s.model_dir = modelDir;
    TryItPanel p;
    p.setFormSource(s);
    p.show();
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    QCOMPARE(p.messageText(), QStringLiteral("No checkpoint yet in %1: train first, or choose a checkpoint or export folder.")
                                  .arg(QDir::toNativeSeparators(QString::fromStdString(modelDir))));
    QVERIFY(p.shownProbabilities().empty());
    QVERIFY(chipTokens(p).isEmpty());
    QVERIFY(QApplication::activeModalWidget() == nullptr);

    // Training saves a checkpoint there (here: the trained run's, copied): the panel reloads.
    fs::copy(m_opts.model_dir, modelDir, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    const uint64_t before = p.generation();
    p.checkpointSaved(QString::fromStdString(modelDir));
    QVERIFY(p.generation() > before);
    WAIT_SHOWN(p);
    QVERIFY2(p.modelLine().contains(QStringLiteral("ckpt-96")), qPrintable(p.modelLine()));
    const Classification c = m_ref->classify("free cash");
    QCOMPARE(p.shownProbabilities().size(), size_t(2));
    QVERIFY(std::abs(p.shownProbabilities()[1] - c.probabilities[1]) < 1e-6);
    // Another run's checkpoint does not concern this panel.
    const uint64_t now = p.generation();
    p.checkpointSaved(QString::fromStdString(m_opts.model_dir));
    QCOMPARE(p.generation(), now);
}

void tst_TryItPanel::loadErrorInFormWords()
{
    // Without “BERT config” the run's own (run_config.json) is used, and the panel says so
    // in form words.
    {
        ClassifierSource s = source();
        s.bert_config_file.clear();
        TryItPanel p;
        p.setFormSource(s);
        p.show();
        p.setTexts(QStringLiteral("free cash"));
        WAIT_SHOWN(p);
        QCOMPARE(p.shownProbabilities().size(), size_t(2));
        // Issue 44 item 8: where the run's files came from is the model line's detail, not lines
        // of paths above the text field.
        QCOMPARE(p.messageText(), QString());
        const QString m = p.modelDetail();
        QVERIFY2(m.contains(QStringLiteral("“BERT config” not given: using the run's ")), qPrintable(m));
        QVERIFY2(!m.contains(QStringLiteral("--")), qPrintable(m));
        QVERIFY2(p.modelLine().startsWith(QStringLiteral("Model: %1/ckpt-96 — latest, step 96")
                                              .arg(QDir(QString::fromStdString(m_opts.model_dir)).dirName())),
                 qPrintable(p.modelLine()));
        QVERIFY2(m.startsWith(QDir::toNativeSeparators(QString::fromStdString(m_opts.model_dir + "/ckpt-96"))), qPrintable(m));
    }
    // A copy of the run without run_config.json: “BERT config” is needed.
    const std::string copy = m_dir.path().toStdString() + "/copy-without-run-config";
    fs::copy(m_opts.model_dir, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    fs::remove(copy + "/run_config.json");
    ClassifierSource s = source();
    s.model_dir = copy;
    s.bert_config_file.clear();
    TryItPanel p;
    p.setFormSource(s);
    p.show();
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    const QString m = p.messageText();
    QVERIFY2(m.contains(QStringLiteral("“BERT config”")), qPrintable(m));
    QVERIFY2(!m.contains(QStringLiteral("--")), qPrintable(m));
    QVERIFY2(!m.contains(QStringLiteral("bert_config_file")), qPrintable(m));
    QVERIFY(p.shownProbabilities().empty());
    QVERIFY(QApplication::activeModalWidget() == nullptr);
}

void tst_TryItPanel::exportFolderChosen()
{
    // A chosen checkpoint file is used instead of the latest.
    TryItPanel p;
    ClassifierSource s = source();
    p.setFormSource(s);
    p.show();
    const QString ckpt = QString::fromStdString(m_opts.model_dir + "/ckpt-80");
    QVERIFY(QFileInfo::exists(ckpt));
    p.setChosenModel(ckpt);
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    QVERIFY2(p.modelLine().contains(QStringLiteral("ckpt-80")), qPrintable(p.modelLine()));
    ClassifierSource at8 = s;
    at8.checkpoint_path = ckpt.toStdString();
    const Classification c = TextClassifier(at8).classify("free cash");
    QVERIFY(std::abs(p.shownProbabilities().at(0) - c.probabilities[0]) < 1e-6);
    // A folder with model.safetensors is an export that stands alone.
    QTemporaryDir exportDir;
    fs::create_directories(exportDir.path().toStdString() + "/e");
    p.setChosenModel(exportDir.path() + QStringLiteral("/e"));
    QVERIFY(p.effectiveSource().model_export_path.empty()); // no model.safetensors yet: a checkpoint folder
    std::ofstream(exportDir.path().toStdString() + "/e/model.safetensors") << "x";
    QCOMPARE(p.effectiveSource().model_export_path, exportDir.path().toStdString() + "/e");
    QVERIFY(p.effectiveSource().bert_config_file.empty());
}

void tst_TryItPanel::windowTab()
{
    MainWindow w;
    w.resize(1400, 880);
    w.setOptions(m_opts);
    w.show();
    w.showTab(QStringLiteral("tryItTab"));
    TryItPanel *p = w.findChild<TryItPanel *>();
    QVERIFY(p && p->isVisible());
    QCOMPARE(p->formSource().model_dir, m_opts.model_dir);
    QCOMPARE(p->formSource().vocab_file, m_opts.vocab_file);
    p->setTexts(QStringLiteral("Congratulations! You won a free mobile voucher: reply now to claim your prize, "
                               "the offer is limited"));
    WAIT_SHOWN(*p);
    QCOMPARE(p->shownProbabilities().size(), size_t(2));
    QVERIFY(!p->cutText().isEmpty());
    QVERIFY(QApplication::activeModalWidget() == nullptr);
    const QString png = qEnvironmentVariable("WB_TRYIT_SCREENSHOT");
    if (!png.isEmpty())
        QVERIFY(w.grab().save(png));
}

void tst_TryItPanel::windowFollowsOpenedProject()
{
    // Open Project / New Project fill the form by code (no edited()): a shown Try it tab
    // must switch to the new form's model, not keep answering with the previous one.
    MainWindow w;
    w.resize(1400, 880);
    w.setOptions(m_opts);
    w.show();
    w.showTab(QStringLiteral("tryItTab"));
    TryItPanel *p = w.findChild<TryItPanel *>();
    p->setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(*p);
    QVERIFY2(p->modelLine().contains(QStringLiteral("ckpt-96")), qPrintable(p->modelLine()));
    QCOMPARE(p->shownProbabilities().size(), size_t(2));

    QTemporaryDir dir;
    const std::string other = dir.path().toStdString() + "/other-run";
    fs::create_directories(other);
    TrainingOptions o = m_opts;
    o.model_dir = other;
    const uint64_t before = p->generation();
    w.setOptions(o); // as openProject() does
    QCOMPARE(p->formSource().model_dir, other);
    QTRY_VERIFY_WITH_TIMEOUT(p->generation() > before, kWaitMs);
    WAIT_SHOWN(*p);
    QCOMPARE(p->messageText(), QStringLiteral("No checkpoint yet in %1: train first, or choose a checkpoint or export folder.")
                                   .arg(QDir::toNativeSeparators(QString::fromStdString(other))));
    QCOMPARE(p->modelLine(), QStringLiteral("Model: none"));
    QVERIFY(p->shownProbabilities().empty());

    const uint64_t beforeNew = p->generation();
    w.newProject();
    QVERIFY(p->formSource().model_dir.empty());
    QTRY_VERIFY_WITH_TIMEOUT(p->generation() > beforeNew, kWaitMs);
    WAIT_SHOWN(*p);
    QCOMPARE(p->messageText(), QStringLiteral("Set “Model directory” in the form, or choose a checkpoint or export folder."));
    // Issue 44 item 11: nothing of the previous project's is left: no text, no class choice.
    QCOMPARE(p->textEdit()->toPlainText(), QString());
    QCOMPARE(p->secondTextEdit()->toPlainText(), QString());
    auto *classBox = p->findChild<QComboBox *>(QStringLiteral("tryItExplainClass"));
    QCOMPARE(classBox->count(), 1);
    QCOMPARE(classBox->currentText(), QStringLiteral("the predicted class"));
    QVERIFY(p->shownLabels().isEmpty());
    // Open Project too: typed under one project, gone in the next one.
    p->setTexts(QStringLiteral("typed in the new project"));
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, m_opts);
    QString error;
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QCOMPARE(p->textEdit()->toPlainText(), QString());
}

void tst_TryItPanel::explainBoxesShowWholeNames()
{
    // Issue 44 item 11: the method and class boxes show their whole choice, in a narrow tab too
    // (the row wraps instead of cutting the names).
    TryItPanel p;
    p.resize(480, 640);
    p.setFormSource(source());
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    WAIT_SHOWN(p);
    auto *classBox = p.findChild<QComboBox *>(QStringLiteral("tryItExplainClass"));
    auto *method = p.findChild<QComboBox *>(QStringLiteral("tryItExplainMethod"));
    QCOMPARE(classBox->count(), 3); // the predicted class, ham, spam
    QApplication::processEvents();
    for (QComboBox *box : {classBox, method}) {
        for (int k = 0; k < box->count(); ++k) {
            box->setCurrentIndex(k);
            QApplication::processEvents();
            const int needed = box->fontMetrics().horizontalAdvance(box->itemText(k));
            QVERIFY2(box->width() > needed + 8, qPrintable(QStringLiteral("%1: %2 px for “%3” (%4 px)")
                                                              .arg(box->objectName()).arg(box->width())
                                                              .arg(box->itemText(k)).arg(needed)));
        }
        QVERIFY(box->isVisible());
        QVERIFY(box->geometry().right() <= box->parentWidget()->width());
    }
}

void tst_TryItPanel::chosenFileThatIsNoCheckpoint()
{
    // Choose… → Checkpoint file… on a file that is not one (labels.txt, next to the run):
    // the advice must not be to delete the user's file.
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    const QString notCkpt = QString::fromStdString(m_root + "/labels.txt");
    QVERIFY(QFileInfo::exists(notCkpt));
    p.setChosenModel(notCkpt);
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    const QString m = p.messageText();
    QVERIFY2(m.startsWith(QStringLiteral("Cannot load the model: ")), qPrintable(m));
    QVERIFY2(m.contains(QStringLiteral("labels.txt")), qPrintable(m));
    QVERIFY2(!m.contains(QStringLiteral("delete"), Qt::CaseInsensitive), qPrintable(m));
    QVERIFY2(m.contains(QStringLiteral("ckpt-<step>")), qPrintable(m));
    QVERIFY2(!m.contains(QStringLiteral("model_dir")) && !m.contains(QStringLiteral("--")), qPrintable(m));
    QVERIFY(QFileInfo::exists(notCkpt));
}

void tst_TryItPanel::windowFollowsCheckpointsWhileTraining()
{
    // A run that saves its checkpoint only when the test says so (the trained run's ckpt-96).
    QTemporaryDir dir;
    TrainingOptions o = m_opts;
    o.model_dir = dir.path().toStdString() + "/live";
    std::promise<void> go;
    bool released = false;
    const auto release = [&] {
        if (!released)
            go.set_value();
        released = true;
    };
    struct ReleaseAtExit
    {
        std::function<void()> f;
        ~ReleaseAtExit() { f(); }
    };
    MainWindow w;
    const ReleaseAtExit atExit{release}; // a failing check must not leave the run waiting
    w.runSession()->controller()->setRunFunction([saved = go.get_future().share(), trained = m_opts.model_dir](const PreparedRun &prepared_, TrainingObserver &obs, const StopToken &) {
        const TrainingOptions &opts = prepared_.options;
        saved.wait();
        fs::create_directories(opts.model_dir);
        fs::copy_file(trained + "/ckpt-96", opts.model_dir + "/ckpt-96");
        CheckpointState state;
        state.model_checkpoint_path = "ckpt-96";
        state.all_model_checkpoint_paths = {"ckpt-96"};
        state.write(opts.model_dir);
        CheckpointSaved c;
        c.step = 96;
        c.path = opts.model_dir + "/ckpt-96";
        obs.checkpointSaved(c);
        RunFinished r;
        r.last_step = 96;
        obs.runFinished(r);
        return r;
    });
    w.setOptions(o);
    w.show();
    QSignalSpy ended(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(w.train());
    QVERIFY(ended.wait(kWaitMs));
    QVERIFY(ended.front().front().toBool());
    QVERIFY(w.runSession()->controller()->isRunning());
    w.showTab(QStringLiteral("tryItTab"));
    TryItPanel *p = w.findChild<TryItPanel *>();
    p->setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(*p);
    QVERIFY2(p->messageText().startsWith(QStringLiteral("No checkpoint yet in ")), qPrintable(p->messageText()));
    QVERIFY(p->shownProbabilities().empty());

    const uint64_t before = p->generation();
    release();
    QTRY_VERIFY_WITH_TIMEOUT(p->generation() > before, kWaitMs); // the checkpoint event, nothing else
    WAIT_SHOWN(*p);
    QVERIFY2(p->modelLine().contains(QStringLiteral("live")) && p->modelLine().contains(QStringLiteral("ckpt-96")),
             qPrintable(p->modelLine()));
    const Classification c = m_ref->classify("free cash");
    QCOMPARE(p->shownProbabilities().size(), size_t(2));
    for (size_t k = 0; k < 2; ++k)
        QVERIFY(std::abs(p->shownProbabilities()[k] - c.probabilities[k]) < 1e-6);
    QVERIFY(QApplication::activeModalWidget() == nullptr);
}

void tst_TryItPanel::chosenModelLastsUntilTheProjectChanges()
{
    TryItPanel p;
    const ClassifierSource s = source();
    p.setFormSource(s);
    const QString ckpt = QString::fromStdString(m_opts.model_dir + "/ckpt-80");
    p.setChosenModel(ckpt);
    p.setFormSource(s); // the same project again (a tab switch): the choice stays
    QCOMPARE(p.chosenModel(), ckpt);
    ClassifierSource other = s; // File → Open Project: another model directory
    other.model_dir = m_dir.path().toStdString() + "/other-project/model";
    p.setFormSource(other);
    QVERIFY(p.chosenModel().isEmpty());
    QCOMPARE(p.effectiveSource().model_dir, other.model_dir);
    QVERIFY(p.effectiveSource().checkpoint_path.empty());
    // A run of the form's model saves a checkpoint: the panel follows it, not the chosen one.
    p.setFormSource(s);
    p.setChosenModel(ckpt);
    p.checkpointSaved(QString::fromStdString(m_opts.model_dir));
    QVERIFY(p.chosenModel().isEmpty());
    // Another run's checkpoint leaves the choice alone.
    p.setChosenModel(ckpt);
    p.checkpointSaved(QString::fromStdString(other.model_dir));
    QCOMPARE(p.chosenModel(), ckpt);
}

void tst_TryItPanel::chosenModelOfOtherLabelsIsSaidSo()
{
    // The ham/spam model exported, chosen in a weather/food/sports project.
    TrainingOptions e = m_opts;
    e.mode = "export_only";
    e.model_export_path = m_dir.path().toStdString() + "/hamspam-export";
    wbtest::RecordingObserver obs;
    StopToken stop;
    const RunFinished r = Trainer().run(e, obs, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    const std::string project = m_dir.path().toStdString() + "/weather";
    fs::create_directories(project);
    std::ofstream(project + "/input_meta_data.json")
        << "{\"task_type\": \"bert_classification\", \"num_labels\": 3, \"max_seq_length\": 16, "
           "\"train_data_size\": 3, \"eval_data_size\": 3}";
    std::ofstream(project + "/labels.txt") << "weather\nfood\nsports\n";
    ClassifierSource s = source();
    s.model_dir = project + "/model";
    s.input_meta_data_path = project + "/input_meta_data.json";
    TryItPanel p;
    p.setFormSource(s);
    p.show();
    p.setChosenModel(QString::fromStdString(e.model_export_path));
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    QCOMPARE(p.shownLabels(), (QStringList{QStringLiteral("ham"), QStringLiteral("spam")}));
    QVERIFY2(p.messageText().contains(
                 QStringLiteral("the chosen model's labels (ham, spam) are not this project's (weather, food, sports)")),
             qPrintable(p.messageText()));
    // Another project: back to the form's model (which has no checkpoint yet).
    ClassifierSource next = s;
    next.model_dir = project + "/model-2";
    p.setFormSource(next);
    p.refreshNow();
    WAIT_SHOWN(p);
    QVERIFY(p.chosenModel().isEmpty());
    QCOMPARE(p.modelLine(), QStringLiteral("Model: none"));
}

void tst_TryItPanel::keptBestModelIsShownFirst()
{
    // A best model kept at step 80 (as Keep best model by leaves it); the latest is step 96.
    const std::string best = m_opts.model_dir + "/best";
    fs::create_directories(best);
    fs::copy_file(m_opts.model_dir + "/ckpt-80", best + "/ckpt-80", fs::copy_options::overwrite_existing);
    std::ofstream(best + "/best.json") << "{\"metric\": \"eval_accuracy\", \"value\": 0.9375, \"step\": 80, "
                                          "\"checkpoint\": \"best/ckpt-80\", \"evaluations_since_best\": 1, "
                                          "\"last_evaluated_step\": 96}\n";
    TryItPanel p;
    p.setFormSource(source());
    p.show();
    p.setTexts(QStringLiteral("free cash"));
    WAIT_SHOWN(p);
    QVERIFY2(p.modelLine().contains(QStringLiteral("/best/ckpt-80 — best, step 80 (eval_accuracy 0.9375)")),
             qPrintable(p.modelLine()));
    QVERIFY2(p.modelDetail().startsWith(QString::fromStdString(best + "/ckpt-80")), qPrintable(p.modelDetail()));
    ClassifierSource at80 = source();
    at80.checkpoint_path = m_opts.model_dir + "/ckpt-80";
    QVERIFY(std::abs(p.shownProbabilities().at(0) - TextClassifier(at80).classify("free cash").probabilities[0]) < 1e-6);
    fs::remove_all(best);
}

void tst_TryItPanel::textFieldStaysWhenTypingStarts()
{
    // Issue 27: "Try it jumps a line when typing starts". The model is loaded and nothing is
    // typed yet; the first key, and the answer that follows, move nothing.
    TryItPanel p;
    p.resize(900, 640);
    p.setFormSource(source());
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    WAIT_SHOWN(p);
    QCOMPARE(p.shownLabels(), (QStringList{QStringLiteral("ham"), QStringLiteral("spam")}));
    QApplication::processEvents();
    const QString before = layoutPositions(p);
    p.textEdit()->setFocus();
    QTest::keyClick(p.textEdit(), Qt::Key_F);
    QApplication::processEvents();
    QCOMPARE(layoutPositions(p), before); // at the first key
    QTest::keyClicks(p.textEdit(), QStringLiteral("ree prize"));
    QTRY_VERIFY_WITH_TIMEOUT(!chipTokens(p).isEmpty(), kWaitMs); // the answer arrived
    WAIT_SHOWN(p);
    QApplication::processEvents();
    QCOMPARE(layoutPositions(p), before); // and with the answer
}

QTEST_MAIN(tst_TryItPanel)
#include "tst_tryitpanel.moc"
