// SPDX-License-Identifier: Apache-2.0
// The Prepare Data dialog end to end (offscreen): its fields filled as a user would, a run on a
// small CSV folder with a bad row under "Skip bad rows", and the report it shows.
#include "ui/dialogs/preparedatadialog.h"

#include "support/hubfixtures.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

void writeText(const QString &path, const std::string &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

QStringList tableRows(const QTableWidget *t)
{
    QStringList rows;
    for (int r = 0; r < t->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < t->columnCount(); ++c)
            cells << (t->item(r, c) ? t->item(r, c)->text() : QStringLiteral("<none>"));
        rows << cells.join(QLatin1Char('|'));
    }
    return rows;
}

// With WB_SCREENSHOT_DIR set (docs screenshots, run under Xvfb), saves the dialog as
// <dir>/<name>-<screen width>.png.
void maybeScreenshot(QWidget &w, const QString &name)
{
    const QString dir = qEnvironmentVariable("WB_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QCoreApplication::processEvents();
    const QSize screen = w.screen() ? w.screen()->availableSize() : QSize();
    w.grab().save(QStringLiteral("%1/%2-%3.png").arg(dir, name).arg(screen.width()));
}

} // namespace

class tst_PrepareDataDialog : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    template <typename T>
    T *field(PrepareDataDialog &d, const char *name)
    {
        T *w = d.findChild<T *>(QString::fromLatin1(name));
        if (!w)
            qFatal("no field %s in the dialog", name);
        return w;
    }

private Q_SLOTS:
    void initTestCase()
    {
        // The dialog remembers its values in QSettings: keep them in the test's folder.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path() + QStringLiteral("/settings"));
    }

    /// Issue 27: without "Skip bad rows" every bad row is named on its own line with its fix;
    /// a missing vocabulary is said in the form's words.
    void badRowsAreListedWithTheirFix()
    {
        const QString csv = m_dir.path() + QStringLiteral("/bad-rows.csv");
        writeText(m_dir.path() + QStringLiteral("/vocab-b.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\n");
        writeText(csv, "text,label\ngood,a\nnoisy room, thin walls,a\ngood,\ngood,b\nloud, small,b\n");
        PrepareDataDialog d;
        PrepareOptions o;
        o.input_data_dir = csv.toStdString();
        o.classification_task_name = "csv";
        o.output_dir = (m_dir.path() + QStringLiteral("/out-bad")).toStdString();
        d.setOptions(o); // no vocabulary first
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(d.lastError(), QStringLiteral("“Vocabulary”: no vocabulary was chosen: choose the model's WordPiece vocab.txt.\n"
                                               "Set “Vocabulary” to vocab.txt (the vocab of the model you will fine-tune)."));
        o.vocab_file = (m_dir.path() + QStringLiteral("/vocab-b.txt")).toStdString();
        d.setOptions(o);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 60000);
        QCOMPARE(field<QLabel>(d, "prepareStage")->text(),
                 QStringLiteral("<span style='color:#b00000'>3 bad rows; each is listed below with its fix.</span>"));
        const QString listed = field<QPlainTextEdit>(d, "prepareWarnings")->toPlainText();
        const QStringList lines = listed.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() >= 4, qPrintable(listed));
        QVERIFY2(lines[0].startsWith(csv + QStringLiteral(":3: ")), qPrintable(listed));
        QCOMPARE(lines[1], QStringLiteral("2 more bad rows:"));
        QVERIFY2(lines[2].startsWith(csv + QStringLiteral(":4: the label is empty")), qPrintable(listed));
        QVERIFY2(lines[3].startsWith(csv + QStringLiteral(":6: ")), qPrintable(listed));
        QVERIFY2(listed.contains(QStringLiteral("Put the text in double quotes when it contains commas")), qPrintable(listed));
        QVERIFY2(listed.contains(QStringLiteral("tick “Skip bad rows”")), qPrintable(listed));
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        maybeScreenshot(d, QStringLiteral("prepare-data-bad-rows"));
    }

    /// Issue 27: the values of the last start come back in a new dialog; the vocabulary is
    /// pre-filled (and says so) only when empty; the dialog says what it filled in the form.
    void remembersValuesAndSaysWhatItFilled()
    {
        const QString vocab = m_dir.path() + QStringLiteral("/vocab-r.txt");
        writeText(vocab, "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\n");
        {
            PrepareDataDialog d;
            PrepareOptions o;
            o.input_data_dir = (m_dir.path() + QStringLiteral("/missing-folder")).toStdString();
            o.vocab_file = vocab.toStdString();
            o.output_dir = (m_dir.path() + QStringLiteral("/out-r")).toStdString();
            o.max_seq_length = 64;
            o.eval_fraction = 0.2;
            o.email_body_only = true;
            o.stratify_split = false;
            d.setOptions(o);
            QSignalSpy failed(&d, &PrepareDataDialog::failed);
            d.start();
            QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        }
        PrepareDataDialog d;
        QCOMPARE(d.options().max_seq_length, int64_t(128)); // a dialog alone starts from the defaults
        d.restoreSettings();
        const PrepareOptions back = d.options();
        QCOMPARE(back.input_data_dir, (m_dir.path() + QStringLiteral("/missing-folder")).toStdString());
        QCOMPARE(back.vocab_file, vocab.toStdString());
        QCOMPARE(back.max_seq_length, int64_t(64));
        QCOMPARE(back.eval_fraction, 0.2);
        QCOMPARE(back.email_body_only, true);
        QCOMPARE(back.stratify_split, false);
        QVERIFY(field<QCheckBox>(d, "emailBodyOnly")->isChecked());

        // Pre-filled only when empty.
        const QString other = m_dir.path() + QStringLiteral("/vocab-other.txt");
        writeText(other, "[PAD]\n");
        QVERIFY(!d.prefillVocabulary(other, QStringLiteral("the example")));
        QCOMPARE(field<QLineEdit>(d, "vocabFile")->text(), vocab);
        field<QLineEdit>(d, "vocabFile")->clear();
        QVERIFY(!d.prefillVocabulary(m_dir.path() + QStringLiteral("/no-such-vocab.txt"), QStringLiteral("the example")));
        QVERIFY(d.prefillVocabulary(other, QStringLiteral("the example")));
        QCOMPARE(field<QLineEdit>(d, "vocabFile")->text(), other);
        QCOMPARE(field<QLabel>(d, "vocabularyNote")->text(), QStringLiteral("Filled in from the example."));

        // The kind is remembered too.
        d.setKind(PrepareDataDialog::Kind::Pretraining);
        field<QLineEdit>(d, "pretrainingTextColumn")->setText(QStringLiteral("body"));
        field<QLineEdit>(d, "inputData")->setText(m_dir.path() + QStringLiteral("/missing-corpus.txt"));
        QSignalSpy failedAgain(&d, &PrepareDataDialog::failed);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(failedAgain.count(), 1, 60000);
        {
            PrepareDataDialog again;
            QCOMPARE(again.kind(), PrepareDataDialog::Kind::Classification);
            again.restoreSettings();
            QCOMPARE(again.kind(), PrepareDataDialog::Kind::Pretraining);
            QCOMPARE(again.pretrainingOptions().text_column, std::string("body"));
            QSettings().setValue(QStringLiteral("prepareData/kind"), QStringLiteral("classification"));
        }

        field<QLabel>(d, "prepareStage")->setText(QStringLiteral("Wrote 5 training examples."));
        d.noteFilledForm({QStringLiteral("train_data_path"), QStringLiteral("eval_data_path")});
        QCOMPARE(field<QLabel>(d, "prepareStage")->text(),
                 QStringLiteral("Wrote 5 training examples. Filled in the form's train_data_path, eval_data_path with "
                                "the prepared files."));
    }

    /// Train file with an empty label (skipped), a dev file: exact counts and the row named.
    void preparesAndShowsReport()
    {
        QVERIFY(m_dir.isValid());
        const QString in = m_dir.path() + QStringLiteral("/reviews");
        writeText(m_dir.path() + QStringLiteral("/vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nbad\nmovie\nroom\n");
        writeText(in + QStringLiteral("/train.csv"), "Sentence,Label\ngood movie,pos\nbad movie,neg\n"
                                                     "\"bad, bad room\",\ngood room,pos\ngood,pos\nbad,neg\n");
        writeText(in + QStringLiteral("/dev.csv"), "Sentence,Label\ngood good,pos\nbad room,neg\nroom,neg\n");

        PrepareDataDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        // A .csv file typed while the format is the default folders switches it to csv.
        QCOMPARE(field<QComboBox>(d, "format")->currentText(), QStringLiteral("folders"));
        field<QLineEdit>(d, "inputData")->setText(in + QStringLiteral("/train.csv"));
        QCOMPARE(field<QComboBox>(d, "format")->currentText(), QStringLiteral("csv"));
        QVERIFY(d.findChild<QToolButton *>(QStringLiteral("inputDataFile")));
        QVERIFY(d.findChild<QToolButton *>(QStringLiteral("inputDataFolder")));
        field<QLineEdit>(d, "inputData")->setText(in); // the folder with train.csv and dev.csv
        field<QLineEdit>(d, "vocabFile")->setText(m_dir.path() + QStringLiteral("/vocab.txt"));
        field<QLineEdit>(d, "outputDir")->setText(m_dir.path() + QStringLiteral("/out"));
        field<QSpinBox>(d, "maxSeqLength")->setValue(16);
        QCOMPARE(field<QLineEdit>(d, "textAColumn")->text(), QString()); // recognised from the header
        field<QCheckBox>(d, "skipBadRows")->setChecked(true);
        const PrepareOptions o = d.options();
        QCOMPARE(o.classification_task_name, std::string("csv"));
        QVERIFY(o.skip_bad_rows);
        QCOMPARE(o.max_seq_length, int64_t(16));

        QSignalSpy prepared(&d, &PrepareDataDialog::prepared);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        QTest::mouseClick(field<QPushButton>(d, "prepareButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d.lastError()));
        QVERIFY(!d.isRunning());
        QVERIFY(field<QPushButton>(d, "prepareButton")->isEnabled());

        const auto *table = field<QTableWidget>(d, "labelCounts");
        QVERIFY(table->isVisible());
        QCOMPARE(tableRows(table), (QStringList{QStringLiteral("neg|2|2"), QStringLiteral("pos|3|1")}));

        const QString warnings = field<QPlainTextEdit>(d, "prepareWarnings")->toPlainText();
        const QString row = in + QStringLiteral("/train.csv:4");
        QVERIFY2(warnings.contains(QStringLiteral("skipped %1: the label is empty").arg(row)), qPrintable(warnings));
        QVERIFY2(warnings.contains(QStringLiteral("Text column: Sentence (recognised from the header)")), qPrintable(warnings));
        QVERIFY2(warnings.contains(QStringLiteral("Label column: Label (recognised from the header)")), qPrintable(warnings));
        // The bag-of-words baseline of the same split: "good" tells pos, "bad" neg; "room"
        // alone (neg in dev) was seen only in "good room" (pos) and is missed.
        QVERIFY2(warnings.contains(QStringLiteral("Bag-of-words baseline (TF-IDF + logistic regression on the same "
                                                  "wordpieces): eval accuracy 0.667, macro-F1 0.667. Its "
                                                  "regularisation (C = 10) was chosen by 5-fold cross-validation on "
                                                  "the train split. A fine-tuned BERT should beat it; the plot shows "
                                                  "it as a dashed line.")),
                 qPrintable(warnings));
        QCOMPARE(field<QLabel>(d, "prepareStage")->text(),
                 QStringLiteral("Wrote 5 training and 3 evaluation examples (2 labels) in %1 s. Read the 1 warning(s) "
                                "below before training.")
                     .arg(d.report().seconds, 0, 'f', 1));
        QCOMPARE(d.report().skipped_rows, int64_t(1));
        QVERIFY(QFile::exists(m_dir.path() + QStringLiteral("/out/input_meta_data.json")));
        maybeScreenshot(d, QStringLiteral("prepare-data-report"));
    }

    /// Issue 45: the multi-label fields reach the options, and the report says how the labels
    /// were read, the labels per text, the texts with no label and the labels most often together.
    void multiLabelFieldsAndReport()
    {
        const QString in = m_dir.path() + QStringLiteral("/tickets.csv");
        writeText(m_dir.path() + QStringLiteral("/vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nbad\nmovie\nroom\n");
        writeText(in, "text,labels\ngood movie,billing;urgent\nbad movie,billing\nroom,\ngood room,refund;urgent\n"
                      "bad room,urgent\n");
        PrepareDataDialog d;
        field<QLineEdit>(d, "inputData")->setText(in);
        field<QLineEdit>(d, "vocabFile")->setText(m_dir.path() + QStringLiteral("/vocab.txt"));
        field<QLineEdit>(d, "outputDir")->setText(m_dir.path() + QStringLiteral("/multi-out"));
        field<QSpinBox>(d, "maxSeqLength")->setValue(16);
        field<QDoubleSpinBox>(d, "evalFraction")->setValue(0.2);
        QCOMPARE(field<QComboBox>(d, "labelsPerText")->currentText(), QStringLiteral("Decided from the data"));
        QCOMPARE(field<QLineEdit>(d, "labelDelimiter")->text(), QStringLiteral("|"));
        field<QLineEdit>(d, "labelDelimiter")->setText(QStringLiteral(";"));
        PrepareOptions o = d.options();
        QCOMPARE(o.label_delimiter, std::string(";"));
        QCOMPARE(o.problem_type, std::string());
        field<QComboBox>(d, "labelsPerText")->setCurrentIndex(2);
        QCOMPARE(d.options().problem_type, std::string("multi_label_classification"));
        field<QComboBox>(d, "labelsPerText")->setCurrentIndex(0);

        QSignalSpy prepared(&d, &PrepareDataDialog::prepared);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        QTest::mouseClick(field<QPushButton>(d, "prepareButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d.lastError()));
        QCOMPARE(d.report().problem_type, std::string("multi_label_classification"));
        const QString text = field<QPlainTextEdit>(d, "prepareWarnings")->toPlainText();
        for (const QString &line :
             {QStringLiteral("Several labels per text (multi-label): read from the label column 'labels' split at ';' "
                             "(2 rows hold several labels)."),
              QStringLiteral("Labels per text: 1.20 on average (train 1.33, eval 1.00); 1 text(s) with no label; 5 "
                             "distinct label sets."),
              QStringLiteral("The eval set was split off by iterative stratification (Sechidis et al. 2011): every "
                             "label with two or more texts is on both sides.")})
            QVERIFY2(text.contains(line), qPrintable(text));
        QCOMPARE(tableRows(field<QTableWidget>(d, "labelCounts")),
                 (QStringList{QStringLiteral("billing|1|1"), QStringLiteral("refund|1|0"), QStringLiteral("urgent|2|1")}));
    }

    /// A failure speaks in the dialog's field names, not in command-line flags: the core reports
    /// the column problem as a FieldProblem and the dialog words its fix.
    void failureNamesTheFields()
    {
        const QString in = m_dir.path() + QStringLiteral("/bad.csv");
        writeText(m_dir.path() + QStringLiteral("/vocab2.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\n");
        writeText(in, "id,body,stars\n1,good,5\n");
        PrepareDataDialog d;
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.classification_task_name = "csv";
        o.vocab_file = (m_dir.path() + QStringLiteral("/vocab2.txt")).toStdString();
        o.output_dir = (m_dir.path() + QStringLiteral("/out2")).toStdString();
        d.setOptions(o);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(d.lastError(),
                 in + QStringLiteral(":1: no text column was recognised in the header (columns: 'id', 'body', "
                                     "'stars')\nType the column's name into “Text column” (and into “Second text column” "
                                     "for sentence pairs). Recognised from the header when left empty: sentence, text, review, "
                                     "text_a, sentence1 + sentence2, question + sentence, premise + hypothesis, "
                                     "question1 + question2, text_a + text_b."));
        QVERIFY(!QFile::exists(m_dir.path() + QStringLiteral("/out2/input_meta_data.json")));
    }
    /// Cancel while the job runs: the dialog reports "cancelled", is ready again, and the
    /// output folder holds no TFRecord and no meta data (nothing half-written).
    void cancelWritesNothing()
    {
        const QString in = m_dir.path() + QStringLiteral("/many.csv");
        writeText(m_dir.path() + QStringLiteral("/vocab3.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nbad\n");
        std::string rows = "sentence,label\n";
        for (int i = 0; i < 20000; ++i)
            rows += i % 2 ? "good good good bad,pos\n" : "bad bad good,neg\n";
        writeText(in, rows);
        const QString out = m_dir.path() + QStringLiteral("/out3");
        PrepareDataDialog d;
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.classification_task_name = "csv";
        o.vocab_file = (m_dir.path() + QStringLiteral("/vocab3.txt")).toStdString();
        o.output_dir = out.toStdString();
        d.setOptions(o);
        QSignalSpy prepared(&d, &PrepareDataDialog::prepared);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        d.start();
        QVERIFY(d.isRunning());
        d.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(prepared.count(), 0);
        QVERIFY2(d.lastError().contains(QStringLiteral("cancelled")), qPrintable(d.lastError()));
        QVERIFY2(d.lastError().contains(QStringLiteral("Nothing was written.")), qPrintable(d.lastError()));
        QVERIFY(!d.isRunning());
        QVERIFY(field<QPushButton>(d, "prepareButton")->isEnabled());
        QVERIFY(!QFile::exists(out + QStringLiteral("/train.tf_record")));
        QVERIFY(!QFile::exists(out + QStringLiteral("/input_meta_data.json")));
    }

    /// Issue 22: "Start from" as in the form. A chosen model (here a local model folder, cased)
    /// gives the vocabulary and the casing, as `prepare --pretrained_model` does, and bounds
    /// max_seq_length by its max_position_embeddings; a vocabulary typed is kept.
    void chosenModelGivesVocabularyAndCasing()
    {
        const QString model = m_dir.path() + QStringLiteral("/cased-model");
        writeText(model + QStringLiteral("/config.json"), wbtest::tinyConfigJson()); // max_position_embeddings 16
        writeText(model + QStringLiteral("/vocab.txt"), wbtest::tinyVocab());
        writeText(model + QStringLiteral("/tokenizer_config.json"), "{\"do_lower_case\": false}\n");
        writeText(model + QStringLiteral("/model.safetensors"), wbtest::tinySafetensors(32));
        const QString in = m_dir.path() + QStringLiteral("/greetings");
        writeText(in + QStringLiteral("/train.csv"), "text,label\nHello world,a\nworlds,b\nhello,a\nWorld hello,b\n");
        writeText(in + QStringLiteral("/dev.csv"), "text,label\nhello worlds,a\nWorld,b\n");

        PrepareDataDialog d;
        QCOMPARE(field<QComboBox>(d, "pretrainedModel")->itemText(0), QStringLiteral("random weights"));
        QCOMPARE(field<QLabel>(d, "pretrainedModelNote")->text(), QStringLiteral("Random weights: the vocabulary below, lower-cased."));
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.classification_task_name = "csv";
        o.output_dir = (m_dir.path() + QStringLiteral("/out-model")).toStdString();
        o.max_seq_length = 16;
        d.setOptions(o); // no vocabulary
        d.setPretrainedModel(model);
        QCOMPARE(d.pretrainedModel(), model);
        QCOMPARE(field<QLabel>(d, "pretrainedModelNote")->text(), QStringLiteral("Vocabulary and casing from %1.").arg(model));
        QSignalSpy prepared(&d, &PrepareDataDialog::prepared);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        d.start();
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d.lastError()));
        QCOMPARE(QFileInfo(QString::fromStdString(d.report().vocab_file)).canonicalFilePath(),
                 QFileInfo(model + QStringLiteral("/vocab.txt")).canonicalFilePath());
        QCOMPARE(d.report().do_lower_case, false); // the model's tokenizer_config.json
        QCOMPARE(d.report().train_examples, int64_t(4));

        // Longer records than the model's position embeddings: refused, in the dialog's words.
        o.max_seq_length = 32;
        o.output_dir = (m_dir.path() + QStringLiteral("/out-model-long")).toStdString();
        d.setOptions(o);
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QCOMPARE(d.lastError(), QStringLiteral("“max_seq_length”: 32 tokens is more than %1 was trained for "
                                               "(max_position_embeddings 16)\nSet “max_seq_length” to 16 or less.").arg(model));
        QVERIFY(!QFile::exists(m_dir.path() + QStringLiteral("/out-model-long/input_meta_data.json")));

        // A vocabulary of the user's own is kept; the casing still follows the model.
        const QString own = m_dir.path() + QStringLiteral("/own-vocab.txt");
        writeText(own, wbtest::tinyVocab());
        o.max_seq_length = 16;
        o.vocab_file = own.toStdString();
        o.output_dir = (m_dir.path() + QStringLiteral("/out-own-vocab")).toStdString();
        d.setOptions(o);
        QCOMPARE(field<QLabel>(d, "pretrainedModelNote")->text(),
                 QStringLiteral("Casing from %1; the vocabulary below (as given).").arg(model));
        d.start();
        QTRY_COMPARE_WITH_TIMEOUT(prepared.count(), 2, 60000);
        QCOMPARE(QFileInfo(QString::fromStdString(d.report().vocab_file)).canonicalFilePath(), QFileInfo(own).canonicalFilePath());
        QCOMPARE(d.report().do_lower_case, false);
    }

    /// Issue 44: pretraining text from a plain text file (a sentence per line, a blank line
    /// between documents), a folder of text files and a CSV column, each through the core of
    /// `prepare_pretraining`: records and meta data written, the report shown, the
    /// classification fields hidden.
    void pretrainingTextFromAFileAFolderAndAColumn_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("column");
        QTest::addColumn<QString>("readAs");
        QTest::addColumn<int>("documents");
        std::string text, csv = "id,body\n";
        const QString folder = m_dir.path() + QStringLiteral("/corpus-folder");
        for (int d = 0; d < 24; ++d) {
            const std::string doc = d % 2 ? "hello world\nworlds hello hello\n" : "world hello\nhello\nworld worlds\n";
            text += (d ? "\n" : "") + doc;
            csv += std::to_string(d) + ",\"" + doc.substr(0, doc.size() - 1) + "\"\n";
            writeText(folder + QStringLiteral("/doc-%1.txt").arg(d), doc);
        }
        writeText(m_dir.path() + QStringLiteral("/corpus.txt"), text);
        writeText(m_dir.path() + QStringLiteral("/corpus.csv"), csv);
        QTest::newRow("file") << m_dir.path() + QStringLiteral("/corpus.txt") << QString() << QStringLiteral("read as text") << 24;
        QTest::newRow("folder") << folder << QString() << QStringLiteral("24 file(s)") << 24;
        QTest::newRow("column") << m_dir.path() + QStringLiteral("/corpus.csv") << QStringLiteral("body")
                                << QStringLiteral("read as csv, text from the column “body” (as given)") << 24;
    }

    void pretrainingTextFromAFileAFolderAndAColumn()
    {
        QFETCH(QString, input);
        QFETCH(QString, column);
        QFETCH(QString, readAs);
        QFETCH(int, documents);
        const QString vocab = m_dir.path() + QStringLiteral("/vocab-mlm.txt");
        writeText(vocab, wbtest::tinyVocab()); // [PAD] [UNK] [CLS] [SEP] [MASK] hello world ##s
        const QString out = m_dir.path() + QStringLiteral("/pretraining-") + QString::fromLatin1(QTest::currentDataTag());

        PrepareDataDialog d;
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        QVERIFY(field<QLineEdit>(d, "textAColumn")->isVisible());
        QVERIFY(!field<QComboBox>(d, "pretrainingFormat")->isVisible());
        field<QComboBox>(d, "prepareKind")->setCurrentIndex(1); // as the user picks it
        QCOMPARE(field<QComboBox>(d, "prepareKind")->currentText(), QStringLiteral("Pretraining text, no labels"));
        QCOMPARE(d.kind(), PrepareDataDialog::Kind::Pretraining);
        QVERIFY(!field<QLineEdit>(d, "textAColumn")->isVisible());
        QVERIFY(!field<QLineEdit>(d, "labelColumn")->isVisible());
        QVERIFY(!field<QComboBox>(d, "format")->isVisible());
        QVERIFY(!field<QCheckBox>(d, "stratifySplit")->isVisible());
        QVERIFY(field<QComboBox>(d, "pretrainingFormat")->isVisible());
        QVERIFY(field<QLineEdit>(d, "pretrainingTextColumn")->isVisible());
        QVERIFY(field<QCheckBox>(d, "pretrainingEmailBodyOnly")->isVisible());
        QCOMPARE(d.windowTitle(), QStringLiteral("Prepare data — pretraining text"));

        field<QLineEdit>(d, "inputData")->setText(input);
        field<QLineEdit>(d, "pretrainingTextColumn")->setText(column);
        field<QLineEdit>(d, "vocabFile")->setText(vocab);
        field<QSpinBox>(d, "maxSeqLength")->setValue(16);
        field<QDoubleSpinBox>(d, "evalFraction")->setValue(0.3);
        field<QLineEdit>(d, "outputDir")->setText(out);
        QSignalSpy prepared(&d, &PrepareDataDialog::pretrainingPrepared);
        QSignalSpy classified(&d, &PrepareDataDialog::prepared);
        QSignalSpy failed(&d, &PrepareDataDialog::failed);
        QTest::mouseClick(field<QPushButton>(d, "prepareButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(prepared.count() + failed.count() == 1, 60000);
        QVERIFY2(failed.isEmpty(), qPrintable(d.lastError()));
        QCOMPARE(classified.count(), 0);

        const PretrainingDataReport &r = d.pretrainingReport();
        QCOMPARE(r.documents, int64_t(documents));
        QVERIFY(r.train_sequences > 0);
        QCOMPARE(r.max_seq_length, int64_t(16));
        QCOMPARE(r.unk_tokens, int64_t(0));
        QCOMPARE(r.train_files.size(), size_t(1));
        QVERIFY(QFile::exists(QString::fromStdString(r.train_files.front())));
        QVERIFY(QFile::exists(out + QStringLiteral("/input_meta_data.json")));
        QVERIFY(QFile::exists(out + QStringLiteral("/prepare_report.json")));
        // max_predictions_per_seq as the command gives a sequence of 16 without the flag.
        QCOMPARE(r.max_predictions_per_seq, maxUsefulPredictionsPerSeq(16, 0.15));

        QCOMPARE(field<QLabel>(d, "prepareStage")->text().left(60),
                 QStringLiteral("Wrote %1 training and %2 evaluation sequences from %3 documents in")
                     .arg(r.train_sequences)
                     .arg(r.eval_sequences)
                     .arg(documents)
                     .left(60));
        QVERIFY(!field<QTableWidget>(d, "labelCounts")->isVisible());
        const auto *report = field<QPlainTextEdit>(d, "prepareWarnings");
        QVERIFY(report->isVisible());
        const QString shown = report->toPlainText();
        QVERIFY2(shown.contains(readAs), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Documents: %1 (").arg(documents)), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Sequences of up to 16 tokens: %1 training, %2 evaluation; packed, no "
                                               "next-sentence pairs.")
                                    .arg(r.train_sequences)
                                    .arg(r.eval_sequences)),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Masking: dynamic")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Training data: %1").arg(QString::fromStdString(r.train_files.front()))),
                 qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Vocabulary: %1 (8 tokens), lower-cased.").arg(vocab)), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Full report: %1/prepare_report.json").arg(out)), qPrintable(shown));
        if (QByteArray(QTest::currentDataTag()) == "file") {
            d.resize(900, d.sizeHint().height());
            maybeScreenshot(d, QStringLiteral("prepare-data-pretraining"));
        }
    }

    /// Closing the dialog while it prepares stops the job before the dialog is gone: no
    /// callback reaches a destroyed dialog, and no file is written afterwards.
    void destroyWhileRunningStopsTheJob()
    {
        const QString in = m_dir.path() + QStringLiteral("/many.csv"); // written by the test above
        QVERIFY(QFile::exists(in));
        const QString out = m_dir.path() + QStringLiteral("/out4");
        auto *d = new PrepareDataDialog;
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.classification_task_name = "csv";
        o.vocab_file = (m_dir.path() + QStringLiteral("/vocab3.txt")).toStdString();
        o.output_dir = out.toStdString();
        d->setOptions(o);
        d->start();
        QVERIFY(d->isRunning());
        delete d; // cancels and waits
        QTest::qWait(50); // any queued callback would run now
        QVERIFY(!QFile::exists(out + QStringLiteral("/input_meta_data.json")));
    }
};

QTEST_MAIN(tst_PrepareDataDialog)
#include "tst_preparedatadialog.moc"
