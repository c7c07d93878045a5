// SPDX-License-Identifier: Apache-2.0
// The Suspects tab (issue 46, docs/data-map.md "In the window"): a hand-written model_dir
// (training_dynamics.jsonl with two suspects among six training records, a six-record train
// TFRecord, a tiny vocab, input_meta_data.json, labels.txt with three labels, split.jsonl and
// prepare_report.json) listed with its texts, labels and evidence; accepting, changing and
// rejecting write corrections.jsonl (read back with readCorrections), reopening shows the
// decisions; in the window a row opens Try it and "Prepare with corrections…" fills Prepare Data;
// the empty states say why. loopWithRealRuns: issue 46's done-when with two real tiny runs on
// prepared noisy CSV data (map, suspect in Try it, accepted, prepared again, retrained, both runs
// in Compare runs).
#include "ui/evaluation/suspectstable.h"

#include "core/config/inputmetadata.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "support/spamwordsrun.h"
#include "support/windowfixtures.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/evaluation/datamapview.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/window/runsession.h"
#include "ui/form/projectfile.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QComboBox>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <filesystem>
#include <set>
#include <fstream>

using namespace wb;

namespace {

// ids 0…11 of the tiny vocabulary
const std::vector<std::string> kVocab{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "win", "money",
                                      "hello", "bob", "free", "##dom", "lunch", "?"};

void writeText(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

/// The model_dir `root`/run and its data in `root`/data: six records of mail.csv (lines 2…7),
/// labels ham (0), spam (1), phish (2). `learned` false: every prediction is ham.
TrainingOptions writeRun(const QString &root, bool learned = true)
{
    const std::string data = (root + QStringLiteral("/data")).toStdString();
    const std::string run = (root + QStringLiteral("/run")).toStdString();
    std::filesystem::create_directories(data);
    std::filesystem::create_directories(run);
    std::string vocab;
    for (const std::string &t : kVocab)
        vocab += t + "\n";
    writeText(data + "/vocab.txt", vocab);
    writeText(data + "/labels.txt", "ham\nspam\nphish\n");
    InputMetaData meta;
    meta.num_labels = 3;
    meta.max_seq_length = 8;
    writeText(data + "/input_meta_data.json", meta.toJson().dump());
    writeText(data + "/prepare_report.json", "{\"vocab_file\": \"" + data + "/vocab.txt\", \"max_seq_length\": 8}");
    // win money (spam) / hello bob (ham) / freedom (spam: a suspect) / hello lunch (ham: a
    // suspect) / bob ? (ham) / free money (spam)
    const std::vector<std::vector<int64_t>> ids{{2, 4, 5, 3}, {2, 6, 7, 3}, {2, 8, 9, 3},
                                                {2, 6, 10, 3}, {2, 7, 11, 3}, {2, 8, 5, 3}};
    const std::vector<int64_t> labels{1, 0, 1, 0, 0, 1};
    const char *names[] = {"ham", "spam", "phish"};
    TFRecordWriter w(data + "/train.tf_record");
    std::string split;
    for (size_t i = 0; i < ids.size(); ++i) {
        ClassifierRecord r;
        r.input_ids = ids[i];
        r.input_ids.resize(8, 0);
        r.input_mask.assign(8, 1);
        r.segment_ids.assign(8, 0);
        r.label_id = labels[i];
        w.write(encodeClassifierRecord(r));
        split += "{\"file\":\"mail.csv\",\"line\":" + std::to_string(i + 2) + ",\"split\":\"train\",\"index\":"
                 + std::to_string(i) + ",\"label\":\"" + names[labels[i]] + "\"}\n";
    }
    w.commit();
    writeText(data + "/split.jsonl", split);
    // Three observations each. Records 2 and 3: the model keeps naming the other label.
    const std::vector<std::vector<double>> p{{0.9, 0.95, 0.97}, {0.8, 0.9, 0.9}, {0.1, 0.15, 0.1},
                                             {0.2, 0.2, 0.2},   {0.7, 0.8, 0.8}, {0.6, 0.7, 0.8}};
    TrainingDynamics d;
    for (int64_t step = 1; step <= 3; ++step)
        for (size_t i = 0; i < ids.size(); ++i) {
            const double gold = p[i][size_t(step - 1)];
            const int64_t predicted = !learned ? 0 : gold >= 0.5 ? labels[i] : 1 - labels[i];
            d.record(step, int64_t(i), labels[i], gold, predicted);
        }
    writeTrainingDynamics(run + "/training_dynamics.jsonl", d);
    TrainingOptions o;
    o.model_dir = run;
    o.train_data_path = data + "/train.tf_record";
    o.vocab_file = data + "/vocab.txt";
    o.input_meta_data_path = data + "/input_meta_data.json";
    return o;
}

QString cell(SuspectsTable &t, int row, int column) { return t.table()->item(row, column)->text(); }

/// `root`/mail.csv: 320 texts of 3…8 spam words (spam) or ham words (ham), alternating; every
/// 16th from the 6th on (i % 16 == 5) carries the other label. Returns the CSV lines of those.
std::set<int64_t> writeNoisyCsv(const std::string &root)
{
    const std::vector<std::string> vocab = wbtest::spamWordsVocab();
    uint64_t lcg = 7;
    const auto next = [&lcg](uint64_t n) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        return size_t((lcg >> 33) % n);
    };
    std::ofstream csv(root + "/mail.csv");
    csv << "text,label\n";
    std::set<int64_t> flipped;
    for (int i = 0; i < 320; ++i) {
        const bool spam = i % 2 == 1;
        std::string text;
        const size_t words = 3 + next(6);
        for (size_t k = 0; k < words; ++k)
            text += (k ? " " : "") + vocab[spam ? 51 + next(49) : 4 + next(46)];
        const bool flip = i % 16 == 5;
        if (flip)
            flipped.insert(i + 2);
        csv << text << "," << ((spam != flip) ? "spam" : "ham") << "\n";
    }
    return flipped;
}

/// Prepares writeNoisyCsv's data under `root` (`p`: the options used; `flipped`: the CSV lines
/// whose label was flipped) and returns the options of a tiny run on it (seed 7, model_dir
/// `root`/runs/before).
TrainingOptions prepareNoisyRun(const std::string &root, std::set<int64_t> &flipped, PrepareOptions &p)
{
    flipped = writeNoisyCsv(root);
    {
        std::ofstream v(root + "/vocab.txt");
        for (const std::string &t : wbtest::spamWordsVocab())
            v << t << "\n";
    }
    p.input_data_dir = root + "/mail.csv";
    p.classification_task_name = "csv";
    p.vocab_file = root + "/vocab.txt";
    p.max_seq_length = 16;
    p.eval_fraction = 0.2;
    p.output_dir = root + "/data";
    p.bag_of_words_baseline = false;
    prepareData(p);
    wbtest::TinyRun tiny;
    tiny.batch_size = 16;
    tiny.num_train_epochs = 5;
    tiny.learning_rate = 2e-3;
    tiny.dropout_prob = 0;
    TrainingOptions o = wbtest::writeTinyRun(root + "/tiny", tiny);
    o.model_dir = root + "/runs/before";
    o.train_data_path = root + "/data/train.tf_record";
    o.eval_data_path = root + "/data/eval.tf_record";
    o.input_meta_data_path = root + "/data/input_meta_data.json";
    o.vocab_file = root + "/vocab.txt";
    o.seed = 7;
    return o;
}

/// Waits for the window's run to end (its pre-flight check, then the trainer).
bool trainInWindow(MainWindow &w)
{
    QSignalSpy ended(w.runSession(), &RunSession::preflightFinished);
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
    if (!w.train() || !ended.wait(60000))
        return false;
    return finished.count() > 0 || finished.wait(180000);
}

} // namespace

class tst_SuspectsTable : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    void rowsShown()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        const QString corrections = QString::fromStdString(o.model_dir + "/corrections.jsonl");
        // core's default rule (SuspectRule) may or may not limit the variability
        const QString rule = SuspectRule().max_variability < 0.5
                                 ? QStringLiteral("confidence below 0.5, variability below 0.2, and one other label")
                                 : QStringLiteral("confidence below 0.5 and one other label");
        QCOMPARE(t.summaryText(),
                 QStringLiteral("2 suspect(s) among 6 training examples (%1 predicted in most of the times training saw "
                                "the text), the most certain mistakes first. Decisions are saved to %2.")
                     .arg(rule, corrections));
        QCOMPARE(t.table()->rowCount(), 2);
        using C = SuspectsTable::Column;
        const std::vector<int> columns{C::Rank, C::Label, C::Suggested, C::Confidence, C::Variability, C::Evidence,
                                       C::Text, C::Record};
        const QStringList row0 = QStringLiteral("1|spam|ham|0.117|0.024|3 of 3|freedom|2").split(QLatin1Char('|'));
        const QStringList row1 = QStringLiteral("2|ham|spam|0.200|0.000|3 of 3|hello lunch|3").split(QLatin1Char('|'));
        for (size_t c = 0; c < columns.size(); ++c) {
            QCOMPARE(cell(t, 0, columns[c]), row0[int(c)]);
            QCOMPARE(cell(t, 1, columns[c]), row1[int(c)]);
        }
        QCOMPARE(t.table()->item(0, C::Evidence)->toolTip(),
                 QStringLiteral("predicted ham in 3 of 3; right 0 of 3; last p(spam) 0.100"));
        // The first row is selected; its input row, evidence and text under the table.
        QCOMPARE(t.previewText(), QStringLiteral("Record 2 (mail.csv:4), spam → suggested ham: predicted ham in 3 of 3; "
                                                 "right 0 of 3; last p(spam) 0.100.\nfreedom"));
        t.table()->selectRow(1);
        QCOMPARE(t.previewText(), QStringLiteral("Record 3 (mail.csv:5), ham → suggested spam: predicted spam in 3 of "
                                                 "3; right 0 of 3; last p(ham) 0.200.\nhello lunch"));
        QComboBox *box = t.decisionBox(1);
        QCOMPARE(box->count(), 5);
        QCOMPARE(box->itemText(0), QStringLiteral("Undecided"));
        QCOMPARE(box->itemText(1), QStringLiteral("Accept: spam"));
        QCOMPARE(box->itemText(2), QStringLiteral("Reject: keep ham"));
        QCOMPARE(box->itemText(3), QStringLiteral("Remove from training"));
        QCOMPARE(box->itemText(4), QStringLiteral("Change to: phish"));
        QVERIFY(!t.prepareButton()->isEnabled()); // nothing relabels yet
        QVERIFY(!QFileInfo::exists(corrections));
    }

    void decisionsSavedAndReopened()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        const QString corrections = QString::fromStdString(o.model_dir + "/corrections.jsonl");
        QComboBox *box = t.decisionBox(1);
        // Accept the first: exactly that line.
        QVERIFY(t.accept(0));
        std::vector<Correction> read = readCorrections(corrections.toStdString());
        QCOMPARE(read.size(), size_t(1));
        QCOMPARE(read[0].file, std::string("mail.csv"));
        QCOMPARE(read[0].line, int64_t(4));
        QCOMPARE(read[0].index, int64_t(2));
        QCOMPARE(read[0].label, std::string("spam"));
        QCOMPARE(read[0].suggested_label, std::string("ham"));
        QCOMPARE(read[0].decision, CorrectionDecision::Accepted);
        QCOMPARE(read[0].corrected_label, std::string("ham"));
        QCOMPARE(t.decisionBox(0)->currentText(), QStringLiteral("Accept: ham"));
        QVERIFY(t.prepareButton()->isEnabled());

        // Change the second to phish, then reject it: its one line follows.
        QVERIFY(!t.changeTo(1, QStringLiteral("ham"))); // its own label is no change
        QVERIFY(t.changeTo(1, QStringLiteral("phish")));
        read = readCorrections(corrections.toStdString());
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[1].line, int64_t(5));
        QCOMPARE(read[1].label, std::string("ham"));
        QCOMPARE(read[1].decision, CorrectionDecision::Changed);
        QCOMPARE(read[1].corrected_label, std::string("phish"));
        QCOMPARE(box->currentText(), QStringLiteral("Change to: phish"));
        QVERIFY(t.reject(1));
        read = readCorrections(corrections.toStdString());
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[0].decision, CorrectionDecision::Accepted);
        QCOMPARE(read[1].decision, CorrectionDecision::Rejected);
        QCOMPARE(read[1].corrected_label, std::string());
        QCOMPARE(read[1].suggested_label, std::string("spam"));

        // Reopened: the decisions as saved.
        SuspectsTable again;
        again.setRun(o);
        QTRY_VERIFY(again.isLoaded());
        QCOMPARE(again.table()->rowCount(), 2);
        QCOMPARE(again.decisionOf(0), CorrectionDecision::Accepted);
        QCOMPARE(again.decisionOf(1), CorrectionDecision::Rejected);
        QCOMPARE(again.decisionBox(0)->currentText(), QStringLiteral("Accept: ham"));
        QCOMPARE(again.decisionBox(1)->currentText(), QStringLiteral("Reject: keep ham"));
        // A change read back selects its label.
        QVERIFY(again.changeTo(1, QStringLiteral("phish")));
        SuspectsTable third;
        third.setRun(o);
        QTRY_VERIFY(third.isLoaded());
        QCOMPARE(third.decisionBox(1)->currentText(), QStringLiteral("Change to: phish"));
        // Removed, through the combo as a user picks it: written without a label, read back as such.
        QComboBox *thirdBox = third.decisionBox(1);
        thirdBox->setCurrentIndex(SuspectsTable::Remove);
        Q_EMIT thirdBox->activated(SuspectsTable::Remove);
        read = readCorrections(corrections.toStdString());
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[1].decision, CorrectionDecision::Removed);
        QCOMPARE(read[1].corrected_label, std::string());
        SuspectsTable fourth;
        fourth.setRun(o);
        QTRY_VERIFY(fourth.isLoaded());
        QCOMPARE(fourth.decisionOf(1), CorrectionDecision::Removed);
        QCOMPARE(fourth.decisionBox(1)->currentText(), QStringLiteral("Remove from training"));

        // Open in Try it: the row's text, for its label as given.
        QSignalSpy asked(&t, &SuspectsTable::explainRequested);
        t.openRow(1);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().at(0).toString(), QStringLiteral("hello lunch"));
        QCOMPARE(asked.first().at(2).toLongLong(), 0LL);
    }

    /// "Decide the undecided": every undecided row gets the decision in one write; decided rows
    /// keep theirs; the menu's actions are what the button offers.
    void undecidedDecidedAtOnce()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        QVERIFY(t.decideUndecidedButton()->isEnabled());
        const QList<QAction *> actions = t.decideUndecidedButton()->menu()->actions();
        QCOMPARE(actions.size(), 2);
        QCOMPARE(actions[0]->text(), QStringLiteral("Remove every suspect from training"));
        QCOMPARE(actions[1]->text(), QStringLiteral("Accept every suggestion"));
        QVERIFY(t.reject(0));
        actions[0]->trigger(); // only row 1 was undecided
        const std::vector<Correction> read = readCorrections(o.model_dir + "/corrections.jsonl");
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[0].decision, CorrectionDecision::Rejected);
        QCOMPARE(read[1].decision, CorrectionDecision::Removed);
        QCOMPARE(read[1].line, int64_t(5));
        QCOMPARE(t.decisionBox(1)->currentText(), QStringLiteral("Remove from training"));
        QVERIFY(!t.decideUndecidedButton()->isEnabled()); // nothing left undecided
        QVERIFY(t.prepareButton()->isEnabled());
        QCOMPARE(t.decideUndecided(CorrectionDecision::Accepted), 0);
    }

    /// Lines of rows not listed (the CLI's, a hand-written one) stay in the file, first.
    void keepsOtherLines()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        const std::string path = o.model_dir + "/corrections.jsonl";
        Correction other;
        other.file = "mail.csv";
        other.line = 2;
        other.label = "spam";
        other.decision = CorrectionDecision::Rejected;
        writeCorrections(path, {other});
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        QVERIFY(t.accept(1));
        const std::vector<Correction> read = readCorrections(path);
        QCOMPARE(read.size(), size_t(2));
        QCOMPARE(read[0].line, int64_t(2));
        QCOMPARE(read[0].decision, CorrectionDecision::Rejected);
        QCOMPARE(read[1].line, int64_t(5));
        QCOMPARE(read[1].corrected_label, std::string("spam"));
    }

    /// In the window: the Suspects tab lists the opened project's run, a row opens Try it, and
    /// "Prepare with corrections…" opens Prepare Data with the split and the corrections.
    void windowOpensTryItAndPrepare()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        const QString project = dir.filePath(QStringLiteral("p.bwproj"));
        ProjectFile::save(project, o);
        MainWindow w;
        w.resize(1024, 700);
        w.show();
        QString error;
        QVERIFY2(w.openProject(project, &error), qPrintable(error));
        w.showTab(QStringLiteral("suspectsTab"));
        auto *suspects = w.findChild<SuspectsTable *>(QStringLiteral("suspectsTab"));
        QVERIFY(suspects && suspects->isVisible());
        QTRY_COMPARE(suspects->table()->rowCount(), 2);
        QCOMPARE(cell(*suspects, 0, SuspectsTable::Text), QStringLiteral("freedom"));
        suspects->openRow(0);
        auto *tabs = w.findChild<QTabWidget *>();
        TryItPanel *tryIt = w.findChild<TryItPanel *>();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(tryIt));
        QCOMPARE(tryIt->textEdit()->toPlainText(), QStringLiteral("freedom"));
        QCOMPARE(tryIt->explainOptions().target_label_id, int64_t(1));

        QVERIFY(suspects->accept(0));
        QVERIFY(suspects->prepareButton()->isEnabled());
        suspects->prepareButton()->click();
        auto *dialog = w.findChild<PrepareDataDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        const QString data = dir.filePath(QStringLiteral("data"));
        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("correctionsFile"))->text(),
                 QString::fromStdString(o.model_dir + "/corrections.jsonl"));
        QCOMPARE(dialog->findChild<QLineEdit *>(QStringLiteral("splitFile"))->text(), data + QStringLiteral("/split.jsonl"));
        const PrepareOptions p = dialog->options();
        QCOMPARE(p.corrections_file, o.model_dir + "/corrections.jsonl");
        QCOMPARE(p.split_file, (data + QStringLiteral("/split.jsonl")).toStdString());
        QCOMPARE(p.output_dir, (data + QStringLiteral("-corrected")).toStdString());
        QCOMPARE(p.vocab_file, o.vocab_file);
        QCOMPARE(p.max_seq_length, int64_t(8));
        QVERIFY2(dialog->correctionsNote().startsWith(QStringLiteral(
                     "Filled in for the run's corrections: “Same split as” and “Corrections”, Vocabulary, "
                     "max_seq_length, the columns and the e-mail switches as the run's data was prepared, and a new "
                     "output folder.")),
                 qPrintable(dialog->correctionsNote()));
    }

    /// Issue 46's done-when in the window, with real runs: prepared noisy data, a run whose map is
    /// drawn and whose first suspect is a flipped row, opened in Try it, accepted, prepared again
    /// with the corrections and the same split, trained again, and both runs in Compare runs.
    void loopWithRealRuns()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        std::set<int64_t> flipped;
        PrepareOptions p;
        const TrainingOptions o = prepareNoisyRun(root, flipped, p);
        MainWindow w;
        w.resize(1024, 700);
        w.setOptions(o);
        w.show();
        QVERIFY(trainInWindow(w));
        // The map is drawn; the first suspect is a flipped row.
        auto *map = w.findChild<DataMapView *>(QStringLiteral("dataMapTab"));
        QTRY_VERIFY_WITH_TIMEOUT(map->summaryText().startsWith(QStringLiteral("Step ")), 30000);
        auto *suspects = w.findChild<SuspectsTable *>(QStringLiteral("suspectsTab"));
        w.showTab(QStringLiteral("suspectsTab"));
        QTRY_VERIFY_WITH_TIMEOUT(suspects->isLoaded() && suspects->table()->rowCount() > 0, 30000);
        const RunSuspect first = suspects->suspects().front();
        QVERIFY2(first.located && first.file == "mail.csv" && flipped.count(first.line),
                 qPrintable(suspects->summaryText()));
        suspects->openRow(0);
        TryItPanel *tryIt = w.findChild<TryItPanel *>();
        QCOMPARE(tryIt->textEdit()->toPlainText(), suspects->rowText(0));
        QVERIFY(suspects->accept(0));
        QVERIFY2(suspects->table()->rowCount() > 1, qPrintable(suspects->summaryText()));
        const RunSuspect second = suspects->suspects()[1]; // left out of training
        QVERIFY(suspects->remove(1));
        // Prepare with corrections: the input as prepared before (the dialog's remembered field).
        w.showTab(QStringLiteral("suspectsTab"));
        suspects->prepareButton()->click();
        auto *dialog = w.findChild<PrepareDataDialog *>();
        QVERIFY(dialog);
        dialog->findChild<QLineEdit *>(QStringLiteral("inputData"))->setText(QString::fromStdString(p.input_data_dir));
        QSignalSpy prepared(dialog, &PrepareDataDialog::prepared);
        dialog->start();
        QVERIFY(prepared.wait(60000));
        QCOMPARE(dialog->report().corrected_rows.size(), size_t(1));
        QCOMPARE(dialog->report().corrected_rows[0].where, "mail.csv:" + std::to_string(first.line));
        QCOMPARE(dialog->report().split_method, std::string("split_file"));
        QCOMPARE(dialog->report().removed_rows.size(), size_t(1));
        QCOMPARE(dialog->report().removed_rows[0].where, "mail.csv:" + std::to_string(second.line));
        const QString shown = dialog->findChild<QPlainTextEdit *>(QStringLiteral("prepareWarnings"))->toPlainText();
        QVERIFY2(shown.contains(QStringLiteral("Corrections: 1 row(s) removed (left out of the prepared data).\n  mail.csv:%1: %2 removed")
                                    .arg(second.line).arg(QString::fromStdString(second.label))),
                 qPrintable(shown));
        dialog->close();
        // Train again, same settings and seed, on the corrected data (the form holds it now).
        TrainingOptions after = w.options();
        QCOMPARE(after.train_data_path, root + "/data-corrected/train.tf_record");
        QCOMPARE(after.seed, int64_t(7));
        after.model_dir = root + "/runs/after";
        w.setOptions(after);
        QVERIFY(trainInWindow(w));
        // Compare runs lists both runs (next to each other) with their final eval accuracy, once
        // the scan at the run's end has read the new run's last evaluation.
        auto *runs = w.findChild<RunsTable *>();
        const auto finalAccuracy = [runs](int row) {
            for (int c = 0; c < runs->table()->columnCount(); ++c)
                if (runs->table()->horizontalHeaderItem(c)->text() == QLatin1String("final eval accuracy"))
                    return runs->table()->item(row, c) ? runs->table()->item(row, c)->text() : QString();
            return QString();
        };
        const auto bothShown = [&] {
            bool ok = runs->runCount() == 2;
            for (int row = 0; ok && row < 2; ++row)
                finalAccuracy(row).toDouble(&ok);
            return ok;
        };
        QTRY_VERIFY_WITH_TIMEOUT(bothShown(), 30000);
        QStringList names;
        for (const RunHistory &r : runs->runs())
            names << QFileInfo(r.sourcePath).dir().dirName();
        names.sort();
        QCOMPARE(names, (QStringList{QStringLiteral("after"), QStringLiteral("before")}));
    }

    void emptyStatesSayWhy()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        std::filesystem::remove(o.model_dir + "/training_dynamics.jsonl");
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        QCOMPARE(t.summaryText(),
                 QStringLiteral("No suspects: %1/training_dynamics.jsonl does not exist: the run has no checkpoint yet "
                                "(the file is written with each checkpoint). Training dynamics are recorded for "
                                "single-label classification runs with “Record training dynamics (Data map)” on "
                                "(under Hyperparameters), and written at each checkpoint.")
                     .arg(QString::fromStdString(o.model_dir)));
        QCOMPARE(t.table()->rowCount(), 0);
        QVERIFY(!t.prepareButton()->isEnabled());
        TrainingOptions off = o;
        off.record_training_dynamics = false;
        t.setRun(off);
        QTRY_VERIFY(t.isLoaded());
        QCOMPARE(t.summaryText(),
                 QStringLiteral("No suspects: this run does not record training dynamics (“Record training dynamics "
                                "(Data map)” is off). Turn it on under Hyperparameters and train again to list the "
                                "suspects of the next run."));

        QTemporaryDir notLearned;
        t.setRun(writeRun(notLearned.path(), false));
        QTRY_VERIFY(t.isLoaded());
        QCOMPARE(t.summaryText(),
                 QStringLiteral("No suspects among 6 training example(s). Note: the model had not learned the training "
                                "data: its last predictions were right for 50.0 % of the examples, no more than always "
                                "predicting the most frequent label (50.0 %), so no example is a suspect; train longer "
                                "or with another learning rate."));
        QCOMPARE(t.table()->rowCount(), 0);
    }
};

QTEST_MAIN(tst_SuspectsTable)
#include "tst_suspectstable.moc"
