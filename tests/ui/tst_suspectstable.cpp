// SPDX-License-Identifier: Apache-2.0
// The Suspects tab (issue 46, docs/data-map.md "In the window"): a hand-written model_dir
// (training_dynamics.jsonl with two suspects among six training records, a six-record train
// TFRecord, a tiny vocab, input_meta_data.json, labels.txt with three labels, split.jsonl and
// prepare_report.json) listed with its texts, labels and evidence; accepting, changing and
// rejecting write corrections.jsonl (read back with readCorrections), reopening shows the
// decisions; in the window a row opens Try it and "Prepare with corrections…" fills Prepare Data;
// the empty states say why.
#include "ui/evaluation/suspectstable.h"

#include "core/config/inputmetadata.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "support/windowfixtures.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/form/projectfile.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/mainwindow.h"

#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
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

} // namespace

class tst_SuspectsTable : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    void rowsDecisionsAndReopening()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        SuspectsTable t;
        t.setRun(o);
        QTRY_VERIFY(t.isLoaded());
        const QString corrections = QString::fromStdString(o.model_dir + "/corrections.jsonl");
        QCOMPARE(t.summaryText(),
                 QStringLiteral("2 suspect(s) among 6 training examples (confidence below 0.5, variability below 0.2, "
                                "and one other label predicted in most of the times training saw the text), the most "
                                "certain mistakes first. Decisions are saved to %1.")
                     .arg(corrections));
        QCOMPARE(t.table()->rowCount(), 2);
        const QStringList row0 = QStringLiteral("1|2|freedom|spam|ham|0.117|0.024|predicted ham in 3 of 3; right 0 of "
                                                "3; last p(spam) 0.100").split(QLatin1Char('|'));
        const QStringList row1 = QStringLiteral("2|3|hello lunch|ham|spam|0.200|0.000|predicted spam in 3 of 3; right "
                                                "0 of 3; last p(ham) 0.200").split(QLatin1Char('|'));
        for (int c = 0; c < row0.size(); ++c) {
            QCOMPARE(cell(t, 0, c), row0[c]);
            QCOMPARE(cell(t, 1, c), row1[c]);
        }
        QComboBox *box = t.decisionBox(1);
        QCOMPARE(box->count(), 4);
        QCOMPARE(box->itemText(0), QStringLiteral("Undecided"));
        QCOMPARE(box->itemText(1), QStringLiteral("Accept: spam"));
        QCOMPARE(box->itemText(2), QStringLiteral("Reject: keep ham"));
        QCOMPARE(box->itemText(3), QStringLiteral("Change to: phish"));
        QVERIFY(!t.prepareButton()->isEnabled()); // nothing relabels yet
        QVERIFY(!QFileInfo::exists(corrections));

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

        // Open in Try it: the row's text, for its label as given.
        QSignalSpy asked(&t, &SuspectsTable::explainRequested);
        t.openRow(1);
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().at(0).toString(), QStringLiteral("hello lunch"));
        QCOMPARE(asked.first().at(2).toLongLong(), 0LL);
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
