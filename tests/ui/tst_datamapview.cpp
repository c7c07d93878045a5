// SPDX-License-Identifier: Apache-2.0
// The data map (issue 46, docs/data-map.md): a hand-written model_dir (training_dynamics.jsonl,
// metrics.jsonl with an evaluation at step 2, a four-record train TFRecord, a tiny vocab,
// input_meta_data.json and labels.txt) drawn as confidence against variability, the regions
// counted, the hover text with the record's text, the slider's earlier step, a click asking Try
// it for the text; the empty states of a run without the file, with recording off, multi-label.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/datamapview.h"

#include "core/config/inputmetadata.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/io/metricswriter.h"
#include "support/windowfixtures.h"
#include "ui/form/projectfile.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/mainwindow.h"

#include <qcustomplot.h>

#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace wb;

namespace {

// ids 0…11 of the tiny vocabulary
const std::vector<std::string> kVocab{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "win", "money",
                                      "hello", "bob", "free", "##dom", "lunch", "?"};

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream(path) << text;
}

/// The model_dir `root`/run and its data in `root`/data: 4 records, labels ham (0) and spam (1).
TrainingOptions writeRun(const QString &root, const std::string &problemType = {})
{
    const std::string data = (root + QStringLiteral("/data")).toStdString();
    const std::string run = (root + QStringLiteral("/run")).toStdString();
    std::filesystem::create_directories(data);
    std::filesystem::create_directories(run);
    std::string vocab;
    for (const std::string &t : kVocab)
        vocab += t + "\n";
    writeText(data + "/vocab.txt", vocab);
    writeText(data + "/labels.txt", "ham\nspam\n");
    InputMetaData meta;
    meta.num_labels = 2;
    meta.max_seq_length = 8;
    meta.problem_type = problemType;
    writeText(data + "/input_meta_data.json", meta.toJson().dump());
    // win money / hello bob / free ##dom / lunch ? [SEP] bob (a pair)
    const std::vector<std::vector<int64_t>> ids{{2, 4, 5, 3, 0, 0, 0, 0}, {2, 6, 7, 3, 0, 0, 0, 0},
                                                {2, 8, 9, 3, 0, 0, 0, 0}, {2, 10, 11, 3, 7, 3, 0, 0}};
    TFRecordWriter w(data + "/train.tf_record");
    for (size_t i = 0; i < ids.size(); ++i) {
        ClassifierRecord r;
        r.input_ids = ids[i];
        r.input_mask.assign(8, 1);
        r.segment_ids.assign(8, 0);
        r.label_id = int64_t(i % 2 == 0 ? 1 : 0);
        w.write(encodeClassifierRecord(r));
    }
    w.commit();
    // Record 0 (spam): 0.9 at steps 1 and 3 (easy). Record 1 (ham): 0.2, 0.8 at 1, 3
    // (ambiguous; hard by step 2). Record 2 (spam): 0.1, 0.3 at 2, 4 (hard). Record 3 (ham):
    // 0.6, 0.8 at 3, 4 (easy; not seen by step 2).
    TrainingDynamics d;
    const auto rec = [&d](int64_t step, int64_t index, int64_t label, double p) {
        d.record(step, index, label, p, p >= 0.5 ? label : 1 - label);
    };
    rec(1, 0, 1, 0.9), rec(1, 1, 0, 0.2), rec(2, 2, 1, 0.1), rec(3, 0, 1, 0.9), rec(3, 1, 0, 0.8);
    rec(3, 3, 0, 0.6), rec(4, 2, 1, 0.3), rec(4, 3, 0, 0.8);
    writeTrainingDynamics(run + "/training_dynamics.jsonl", d);
    {
        MetricsWriter m(run + "/metrics.jsonl");
        for (const int64_t step : {2, 4}) {
            EvalMetrics e;
            e.step = step;
            m.writeEval(e);
        }
    }
    TrainingOptions o;
    o.model_dir = run;
    o.train_data_path = data + "/train.tf_record";
    o.vocab_file = data + "/vocab.txt";
    o.input_meta_data_path = data + "/input_meta_data.json";
    return o;
}

const QString kStep4Summary = QStringLiteral(
    "Step 4: 4 training examples: 2 easy-to-learn, 1 ambiguous, 1 hard-to-learn (ambiguous: variability ≥ 0.2; "
    "easy-to-learn: confidence ≥ 0.5 below it). Hover for the text, click to open it in Try it.");

/// The canvas pixel of (variability, confidence).
QPoint pixelOf(DataMapView &v, double variability, double confidence)
{
    return QPointF(v.customPlot()->xAxis->coordToPixel(variability), v.customPlot()->yAxis->coordToPixel(confidence))
        .toPoint();
}

} // namespace

class tst_DataMapView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    void trainingTextsAreTheRecordsDetokenized()
    {
        QTemporaryDir dir;
        const TrainingOptions o = writeRun(dir.path());
        const TrainingTextSource source = trainingTextSource(o);
        QVERIFY(source.notes.empty());
        const TrainingTexts all = readTrainingTexts(source, 10);
        QCOMPARE(all.texts.size(), size_t(4));
        QVERIFY(!all.capped);
        QCOMPARE(all.texts[0].text, std::string("win money"));
        QCOMPARE(all.texts[2].text, std::string("freedom"));
        QCOMPARE(all.texts[3].text, std::string("lunch ?"));
        QCOMPARE(all.texts[3].text_b, std::string("bob"));
        const TrainingTexts two = readTrainingTexts(source, 2);
        QCOMPARE(two.texts.size(), size_t(2));
        QVERIFY(two.capped);
        QCOMPARE(two.texts[1].text, std::string("hello bob"));
        // No vocab anywhere: the note says so.
        TrainingOptions none = o;
        none.vocab_file.clear();
        const TrainingTextSource noVocab = trainingTextSource(none);
        QCOMPARE(noVocab.notes.size(), size_t(1));
        QVERIFY2(noVocab.notes[0].find("no vocabulary is known") == 0, noVocab.notes[0].c_str());
    }

    void mapOfARun()
    {
        QTemporaryDir dir;
        DataMapView v;
        v.resize(700, 500);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setRun(writeRun(dir.path()));
        QTRY_COMPARE(v.summaryText(), kStep4Summary);
        QCPGraph *ham = v.labelGraph(0), *spam = v.labelGraph(1);
        QVERIFY(ham && spam);
        QCOMPARE(ham->name(), QStringLiteral("ham"));
        QCOMPARE(spam->name(), QStringLiteral("spam"));
        QVERIFY(ham->pen().color() != spam->pen().color());
        // ham: record 1 (0.3, 0.5) and record 3 (0.1, 0.7); spam: record 0 (0, 0.9), record 2 (0.1, 0.2).
        QCOMPARE(ham->data()->size(), 2);
        QCOMPARE(spam->data()->size(), 2);
        const auto near = [](double a, double b) { return std::abs(a - b) < 1e-9; };
        QVERIFY(near(ham->data()->at(0)->key, 0.1) && near(ham->data()->at(0)->value, 0.7));
        QVERIFY(near(ham->data()->at(1)->key, 0.3) && near(ham->data()->at(1)->value, 0.5));
        QVERIFY(near(spam->data()->at(0)->key, 0.0) && near(spam->data()->at(0)->value, 0.9));
        QVERIFY(near(spam->data()->at(1)->key, 0.1) && near(spam->data()->at(1)->value, 0.2));
        QCOMPARE(v.stepSlider()->maximum(), 1);
        QVERIFY(v.stepSlider()->isEnabled());

        // Hovering over record 1 (ambiguous) shows its text; a pair shows its second segment.
        const int one = v.pointAt(pixelOf(v, 0.3, 0.5));
        QCOMPARE(v.hoverText(one),
                 QStringLiteral("record 1, label ham: ambiguous\nconfidence 0.500, variability 0.300, correct 1 of 2 "
                                "times seen (correctness 0.50) by step 4\nhello bob"));
        QCOMPARE(v.hoverText(v.pointAt(pixelOf(v, 0.1, 0.7))),
                 QStringLiteral("record 3, label ham: easy-to-learn\nconfidence 0.700, variability 0.100, correct 2 "
                                "of 2 times seen (correctness 1.00) by step 4\nlunch ?\n[SEP] bob"));
        QCOMPARE(v.pointAt(pixelOf(v, 0.45, 0.95)), -1);

        // A click asks Try it to explain the text for its gold label.
        QSignalSpy asked(&v, &DataMapView::explainRequested);
        QTest::mouseClick(v.customPlot(), Qt::LeftButton, Qt::NoModifier, pixelOf(v, 0.1, 0.2));
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().at(0).toString(), QStringLiteral("freedom"));
        QCOMPARE(asked.first().at(1).toString(), QString());
        QCOMPARE(asked.first().at(2).toLongLong(), 1LL);

        // The slider's first step (the evaluation at step 2): record 3 not yet seen, record 1 hard.
        v.stepSlider()->setValue(0);
        QCOMPARE(v.shownStep(), int64_t(2));
        QCOMPARE(v.summaryText().left(78),
                 QStringLiteral("Step 2: 3 training examples: 1 easy-to-learn, 0 ambiguous, 2 hard-to-learn (am"));
        QCOMPARE(v.labelGraph(0), ham);
        QCOMPARE(ham->data()->size(), 1);
        QVERIFY(near(ham->data()->at(0)->key, 0.0) && near(ham->data()->at(0)->value, 0.2));
        QCOMPARE(v.hoverText(v.pointAt(pixelOf(v, 0.0, 0.2))),
                 QStringLiteral("record 1, label ham: hard-to-learn\nconfidence 0.200, variability 0.000, correct 0 "
                                "of 1 times seen (correctness 0.00) by step 2\nhello bob"));
        QCOMPARE(spam->data()->size(), 2);
        QVERIFY(near(spam->data()->at(0)->key, 0.0) && near(spam->data()->at(1)->key, 0.0));
        QVERIFY(near(std::min(spam->data()->at(0)->value, spam->data()->at(1)->value), 0.1));
        QVERIFY(near(std::max(spam->data()->at(0)->value, spam->data()->at(1)->value), 0.9));
        // Back to the last step: the points of step 4 again.
        v.stepSlider()->setValue(1);
        QCOMPARE(v.summaryText(), kStep4Summary);
        QCOMPARE(ham->data()->size(), 2);
    }

    /// In the window: an opened project's run fills the Data map tab; a point opens Try it with
    /// its text, explained for its gold label (as a Top losses row does).
    void windowOpensAPointInTryIt()
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
        w.showTab(QStringLiteral("dataMapTab"));
        auto *map = w.findChild<DataMapView *>(QStringLiteral("dataMapTab"));
        QVERIFY(map && map->isVisible());
        QTRY_COMPARE(map->summaryText(), kStep4Summary);
        map->openPoint(map->pointAt(pixelOf(*map, 0.1, 0.2)));
        auto *tabs = w.findChild<QTabWidget *>();
        TryItPanel *tryIt = w.findChild<TryItPanel *>();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(tryIt));
        QCOMPARE(tryIt->textEdit()->toPlainText(), QStringLiteral("freedom"));
        QCOMPARE(tryIt->explainOptions().target_label_id, int64_t(1));
    }

    /// The regions' boundaries, as docs/data-map.md states them.
    void regionBoundaries()
    {
        QCOMPARE(DataMapView::regionOf(0.9, 0.19), DataMapView::Region::EasyToLearn);
        QCOMPARE(DataMapView::regionOf(0.5, 0.0), DataMapView::Region::EasyToLearn);
        QCOMPARE(DataMapView::regionOf(0.49, 0.0), DataMapView::Region::HardToLearn);
        QCOMPARE(DataMapView::regionOf(0.9, 0.2), DataMapView::Region::Ambiguous);
        QCOMPARE(DataMapView::regionOf(0.1, 0.35), DataMapView::Region::Ambiguous);
    }

    void emptyStatesSayWhy()
    {
        QTemporaryDir dir;
        TrainingOptions o = writeRun(dir.path());
        std::filesystem::remove(o.model_dir + "/training_dynamics.jsonl");
        DataMapView v;
        v.setRun(o);
        QTRY_COMPARE(v.summaryText(),
                     QStringLiteral("No data map yet: training dynamics are recorded for single-label runs with "
                                    "Record training dynamics on (under Hyperparameters), and written to "
                                    "training_dynamics.jsonl at each checkpoint."));
        QVERIFY(!v.labelGraph(0));
        o.record_training_dynamics = false;
        v.setRun(o);
        QTRY_VERIFY2(v.summaryText().startsWith(QStringLiteral(
                         "No data map: this run does not record training dynamics (Record training dynamics is off). "
                         "Turn it on under Hyperparameters")),
                     qPrintable(v.summaryText()));
        QTemporaryDir multi;
        v.setRun(writeRun(multi.path(), "multi_label_classification"));
        QTRY_COMPARE(v.summaryText(),
                     QStringLiteral("No data map: this is a multi-label run. Training dynamics are recorded for "
                                    "single-label classification runs (the probability of each example's gold "
                                    "label)."));
        QVERIFY(!v.labelGraph(0));
        QVERIFY(!v.stepSlider()->isEnabled());
    }
};

QTEST_MAIN(tst_DataMapView)
#include "tst_datamapview.moc"
