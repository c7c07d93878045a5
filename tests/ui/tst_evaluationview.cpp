// SPDX-License-Identifier: Apache-2.0
// Issue 14 items 1 and 3: the Evaluation tab names the labels (labels.txt beside the meta
// data, else "label N") and lists the evaluation's top losses and most-confused pairs from
// model_dir/eval_examples.jsonl, filtered by a click on a confusion-matrix cell.
#include "core/config/labelnames.h"
#include "core/advice/coach.h"
#include "core/formats/evalexamples.h"
#include "core/formats/bestmodel.h"
#include "core/formats/runend.h"
#include "ui/form/configurationform.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/plot/lossplot.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/evaluation/toplossesview.h"
#include "ui/runs/trainingcontroller.h"

#include "tinyrun.h"

#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace wb;

namespace {

EvalExample example(int64_t index, int64_t trueId, int64_t predictedId, double p0, const std::string &text)
{
    EvalExample e;
    e.index = index;
    e.step = 40;
    e.true_label_id = trueId;
    e.predicted_label_id = predictedId;
    e.true_label = trueId == 0 ? "ham" : "spam";
    e.predicted_label = predictedId == 0 ? "ham" : "spam";
    e.probabilities = {p0, 1.0 - p0};
    e.loss = -std::log(e.probabilities[size_t(trueId)]);
    e.text = text;
    return e;
}

/// Six examples of the evaluation at step 40; losses 2.3026, 0.2231, 1.2040, 0.9163, 0.0513, 0.9163.
std::vector<EvalExample> crafted()
{
    return {example(0, 1, 0, 0.9, "win a free cruise now"),
            example(1, 0, 0, 0.8, "lunch at noon?"),
            example(2, 1, 0, 0.7, "cheap meds"),
            example(3, 0, 1, 0.4, "your invoice is attached"),
            example(4, 1, 1, 0.05, "claim your prize"),
            example(5, 1, 0, 0.6, std::string(5000, 'x'))};
}

QStringList strings(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *s : list)
        out << QString::fromUtf8(s);
    return out;
}

QStringList column(const QTableWidget *t, int c)
{
    QStringList out;
    for (int r = 0; r < t->rowCount(); ++r)
        out << t->item(r, c)->text();
    return out;
}

void clickCell(QTableWidget *t, int row, int col)
{
    const QRect rect = t->visualRect(t->model()->index(row, col));
    QVERIFY(rect.isValid());
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, rect.center());
}

/// Meta data with two labels and (optionally) a labels.txt beside it.
QString writeMeta(const QTemporaryDir &dir, const QByteArray &labels)
{
    const QString meta = dir.filePath(QStringLiteral("input_meta_data.json"));
    QFile f(meta);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(R"({"task_type": "bert_classification", "num_labels": 2, "max_seq_length": 16,
               "train_data_size": 64, "eval_data_size": 16})");
    f.close();
    if (!labels.isEmpty()) {
        QFile l(dir.filePath(QStringLiteral("labels.txt")));
        if (!l.open(QIODevice::WriteOnly))
            return {};
        l.write(labels);
    }
    return meta;
}

EvalMetrics metrics(int64_t step, std::vector<std::vector<int64_t>> confusion)
{
    EvalMetrics m;
    m.step = step;
    m.num_examples = 6;
    m.eval_loss = 0.9423;
    m.eval_accuracy = 0.3333;
    m.binary = true;
    m.confusion = std::move(confusion);
    return m;
}

} // namespace

class tst_EvaluationView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void labelNamesFromLabelsTxt();
    void bestEvaluationShownFirstWithMacroF1();
    void fallbackLabelNames();
    void saysWhetherBertBeatTheBagOfWords();
    void multiLabelSummaryNamesItsMetrics();
    void topLossesOrderFilterAndMostConfused();
    void matrixFromExamplesOfARecordedEvaluation();
    void missingAndMalformedFiles();
    void windowNamesLabelsAndLoadsExamplesAfterAnEvaluation();
    void compareRunsListsLabelNames();
    void compareRunsReadsRunConfigOfCliRuns();
    void windowShowsTopLossesOfARealRun();
    void topLossesOfTheKeptBestCheckpoint();
};

void tst_EvaluationView::bestEvaluationShownFirstWithMacroF1()
{
    // A run that kept its best model at step 20 (best/best.json) and ended at step 40.
    QTemporaryDir dir;
    const std::string modelDir = dir.path().toStdString();
    std::filesystem::create_directories(modelDir + "/best");
    std::ofstream(modelDir + "/best/ckpt-20") << "x";
    std::ofstream(modelDir + "/best/best.json") << "{\"metric\": \"eval_accuracy\", \"value\": 0.6667, \"step\": 20, "
                                                  "\"checkpoint\": \"best/ckpt-20\", \"evaluations_since_best\": 1, "
                                                  "\"last_evaluated_step\": 40}\n";
    const std::vector<EvalMetrics> evals{metrics(20, {{3, 0}, {1, 2}}), metrics(40, {{1, 2}, {2, 1}})};
    QString which;
    const EvalMetrics shown = EvaluationView::evaluationToShow(evals, modelDir, &which);
    QCOMPARE(shown.step, int64_t(20));
    QCOMPARE(which, QStringLiteral("best, step 20 (eval_accuracy 0.6667)"));
    EvaluationView v;
    v.setLabelNames({"ham", "spam"});
    for (const auto &m : evals) // as a run reports them; at its end the best is shown again
        v.setEvaluation(m);
    QVERIFY(v.summaryText().contains(QStringLiteral("Evaluation at step 40 on")));
    v.showRunBest(modelDir);
    QVERIFY2(v.summaryText().contains(QStringLiteral("Evaluation at step 20 (best, step 20 (eval_accuracy 0.6667)) on")),
             qPrintable(v.summaryText()));
    // Macro-F1 from the per-class table: ham p 3/4 r 1 f1 6/7, spam p 1 r 2/3 f1 4/5 → 0.8286.
    QVERIFY2(v.summaryText().contains(QStringLiteral("MCC 0.0000, macro-F1 0.8286")), qPrintable(v.summaryText()));
    // Without a best model: the last evaluation.
    std::filesystem::remove_all(modelDir + "/best");
    QCOMPARE(EvaluationView::evaluationToShow(evals, modelDir, &which).step, int64_t(40));
    QVERIFY(which.isEmpty());
}

void tst_EvaluationView::labelNamesFromLabelsTxt()
{
    QTemporaryDir dir;
    const QString meta = writeMeta(dir, "ham\nspam\n");
    QVERIFY(!meta.isEmpty());
    const LabelNames names = readLabelNames(meta.toStdString(), 2);
    QCOMPARE(names.names, (std::vector<std::string>{"ham", "spam"}));

    EvaluationView v;
    v.setEvaluation(metrics(40, {{50, 3}, {7, 40}}));
    v.setBaseline(MajorityBaseline{{53, 47}, 0, 0.53});
    v.setLabelNames(names.names);
    QTableWidget *cm = v.confusionTable();
    QCOMPARE(cm->verticalHeaderItem(0)->text(), QStringLiteral("true ham"));
    QCOMPARE(cm->verticalHeaderItem(1)->text(), QStringLiteral("true spam"));
    QCOMPARE(cm->horizontalHeaderItem(0)->text(), QStringLiteral("predicted ham"));
    QCOMPARE(cm->horizontalHeaderItem(1)->text(), QStringLiteral("predicted spam"));
    QCOMPARE(cm->item(1, 0)->text(), QStringLiteral("7"));
    QCOMPARE(v.classTable()->verticalHeaderItem(0)->text(), QStringLiteral("ham"));
    QCOMPARE(v.classTable()->verticalHeaderItem(1)->text(), QStringLiteral("spam"));
    QVERIFY2(v.summaryText().contains(QStringLiteral("accuracy 0.3333, F1 0.0000 (positive class: spam), MCC 0.0000")),
             qPrintable(v.summaryText()));
    QVERIFY2(v.summaryText().contains(QStringLiteral("always predicting ham; eval data ham: 53, spam: 47")),
             qPrintable(v.summaryText()));
    // The learning check names the label too.
    EvalMetrics oneClass = metrics(40, {{60, 0}, {40, 0}});
    oneClass.eval_accuracy = 0.6;
    oneClass.label_names = names.names; // the loop's evaluations carry the names the coach uses
    RunFacts facts;
    facts.start = WeightsStart::HubPretrained;
    facts.start_name = "BERT-Tiny";
    facts.learning_rate = 5e-5;
    facts.num_labels = 2;
    Coach coach(facts);
    coach.evaluation(oneClass);
    const QStringList w = learningVerdictTexts(coach.current());
    QCOMPARE(w.size(), 2); // a binary constant classifier, then the rate advice of its start
    QVERIFY2(w[0].endsWith(QStringLiteral("the share of the majority label ham: the model answers ham for everything")),
             qPrintable(w[0]));
    QVERIFY2(w[1].startsWith(QStringLiteral("The run starts from the pretrained model BERT-Tiny: learning_rate 5e-5 is "
                                            "within the usual range for fine-tuning a pretrained model (2e-5 to 5e-5)")),
             qPrintable(w[1]));
    // Three labels, one predicted: the label is named in the coach's one_class note.
    EvalMetrics three = metrics(40, {{60, 0, 0}, {20, 0, 0}, {20, 0, 0}});
    three.binary = false;
    three.eval_accuracy = 0.6;
    three.label_names = {"ham", "spam", "phish"};
    facts.num_labels = 3;
    Coach threeCoach(facts);
    threeCoach.evaluation(three);
    QCOMPARE(learningVerdictTexts(threeCoach.current()).value(0),
             QStringLiteral("The model predicts ham for every evaluation example: it has not learned to tell the "
                            "labels apart."));
}

/// The bag-of-words baseline of prepare_report.json: read from the report, shown under the
/// summary, and the verdict says whether the evaluation shown beat it.
void tst_EvaluationView::saysWhetherBertBeatTheBagOfWords()
{
    QTemporaryDir dir;
    const QString meta = dir.filePath(QStringLiteral("input_meta_data.json"));
    QFile report(dir.filePath(QStringLiteral("prepare_report.json")));
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write(R"({"labels": ["ham", "spam"], "bag_of_words_baseline": {"eval_accuracy": 0.97, "eval_macro_f1": 0.96}})");
    report.close();
    QCOMPARE(bagOfWordsAccuracyFromPrepareReport(meta), std::optional<double>(0.97));

    EvaluationView v;
    v.setBagOfWordsBaseline(0.97);
    QVERIFY2(v.summaryText().contains(QStringLiteral("Bag-of-words baseline 0.970 (TF-IDF + logistic regression on the "
                                                     "same wordpieces, prepare_report.json): a fine-tuned BERT should "
                                                     "beat it.")),
             qPrintable(v.summaryText()));
    QVERIFY(v.bagOfWordsVerdictText().isEmpty());
    EvalMetrics m = metrics(40, {{50, 3}, {7, 40}});
    m.eval_accuracy = 0.952;
    v.setEvaluation(m);
    QCOMPARE(v.bagOfWordsVerdictText().left(84),
             QStringLiteral("BERT did not beat the bag-of-words baseline: eval accuracy 0.952 vs 0.970 (TF-IDF + "));
    QVERIFY2(v.summaryText().contains(v.bagOfWordsVerdictText()), qPrintable(v.summaryText()));
    // What to try is the coach's note, shown under the sentence; withdrawn, it goes.
    const CoachNote advice{"below_bag_of_words", 40, "info", "Train longer."};
    v.setCoachNotes({advice});
    QVERIFY2(v.summaryText().contains(v.bagOfWordsVerdictText() + QStringLiteral(". Train longer.")),
             qPrintable(v.summaryText()));
    v.setCoachNotes({});
    QVERIFY(!v.summaryText().contains(QStringLiteral("Train longer.")));
    m.eval_accuracy = 0.985;
    v.setEvaluation(m);
    QCOMPARE(v.bagOfWordsVerdictText(),
             QStringLiteral("BERT beat the bag-of-words baseline: eval accuracy 0.985 vs 0.970 (TF-IDF + logistic "
                            "regression on the same wordpieces, prepare_report.json)"));
    v.clear(); // keeps the baseline
    QCOMPARE(v.bagOfWordsBaseline(), std::optional<double>(0.97));

    // A report whose baseline could not be fitted gives its reason; a bad one names the key.
    QVERIFY(report.open(QIODevice::WriteOnly | QIODevice::Truncate));
    report.write(R"x({"bag_of_words_baseline": {"eval_accuracy": null, "eval_macro_f1": null, "error": "every training example has the same label (id 0)"}})x");
    report.close();
    QString why, error;
    QVERIFY(!bagOfWordsAccuracyFromPrepareReport(meta, &error, &why));
    QCOMPARE(why, QStringLiteral("every training example has the same label (id 0)"));
    QVERIFY(error.isEmpty());
    QVERIFY(report.open(QIODevice::WriteOnly | QIODevice::Truncate));
    report.write(R"({"bag_of_words_baseline": {"eval_accuracy": "high"}})");
    report.close();
    QVERIFY(!bagOfWordsAccuracyFromPrepareReport(meta, &error));
    QVERIFY2(error.contains(QStringLiteral("bag_of_words_baseline: eval_accuracy")), qPrintable(error));
}

void tst_EvaluationView::multiLabelSummaryNamesItsMetrics()
{
    EvaluationView v;
    v.setBagOfWordsBaseline(0.52); // a subset accuracy: no yardstick for a multi-label run, not shown
    EvalMetrics m;
    m.step = 60;
    m.num_examples = 96;
    m.eval_loss = 0.25;
    m.multi_label = true;
    m.eval_micro_f1 = 0.81;
    m.eval_macro_f1 = 0.77;
    m.eval_samples_f1 = 0.6;
    m.eval_hamming_loss = 0.15;
    m.eval_accuracy = 0.55;
    m.eval_micro_f1_tuned = 0.79;
    m.eval_macro_f1_tuned = 0.83;
    v.setEvaluation(m);
    QCOMPARE(v.summaryText(),
             QStringLiteral("Evaluation at step 60 on 96 examples: loss 0.2500, micro-F1 0.8100, macro-F1 0.7700, "
                            "samples-F1 0.6000, Hamming loss 0.1500, subset accuracy 0.5500 (every label decided at "
                            "0.5)\nWith each label's own threshold: micro-F1 0.7900, macro-F1 0.8300 (measured on eval "
                            "texts the thresholds were not tuned on)"));
    QVERIFY(v.bagOfWordsVerdictText().isEmpty());
}

void tst_EvaluationView::fallbackLabelNames()
{
    QTemporaryDir dir;
    const QString meta = writeMeta(dir, "only-one-name\n"); // a labels.txt of another length is not used
    const LabelNames names = readLabelNames(meta.toStdString(), 2);
    EvaluationView v;
    v.setLabelNames(names.names);
    v.setEvaluation(metrics(40, {{5, 1}, {2, 4}}));
    QCOMPARE(v.confusionTable()->verticalHeaderItem(0)->text(), QStringLiteral("true label 0"));
    QCOMPARE(v.confusionTable()->horizontalHeaderItem(1)->text(), QStringLiteral("predicted label 1"));
    QCOMPARE(v.classTable()->verticalHeaderItem(1)->text(), QStringLiteral("label 1"));
    v.setLabelNames({});
    QCOMPARE(v.labelName(0), QStringLiteral("label 0"));
    // Sized to its content: the 2×2 matrix does not take the view's width.
    v.resize(1200, 900);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QVERIFY2(v.confusionTable()->width() < 600, qPrintable(QString::number(v.confusionTable()->width())));
}

void tst_EvaluationView::topLossesOrderFilterAndMostConfused()
{
    QTemporaryDir modelDir;
    writeEvalExamples(evalExamplesPath(modelDir.path().toStdString()), crafted());

    EvaluationView v;
    v.setLabelNames({"ham", "spam"});
    v.setEvaluation(metrics(40, {{1, 1}, {3, 1}}));
    v.resize(1200, 900);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    TopLossesView *top = v.topLosses();
    QSignalSpy loaded(top, &TopLossesView::examplesLoaded);
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 1);

    QTableWidget *t = top->table();
    QCOMPARE(t->rowCount(), 6);
    // Highest loss first; the tie (0.9163) keeps file order.
    QCOMPARE(column(t, 0), strings({"0", "2", "3", "5", "1", "4"}));
    QCOMPARE(column(t, 5), strings({"2.3026", "1.2040", "0.9163", "0.9163", "0.2231", "0.0513"}));
    QCOMPARE(column(t, 1), strings({"spam", "spam", "ham", "spam", "ham", "spam"}));
    QCOMPARE(column(t, 2), strings({"ham", "ham", "spam", "ham", "ham", "spam"}));
    QCOMPARE(t->item(0, 3)->text(), QStringLiteral("0.9000")); // p(predicted)
    QCOMPARE(t->item(0, 4)->text(), QStringLiteral("0.1000")); // p(true)
    QCOMPARE(t->item(0, 6)->text(), QStringLiteral("win a free cruise now"));
    // A long text: the row holds it, the tooltip is cut with a note.
    QVERIFY(t->item(3, 6)->toolTip().contains(QStringLiteral("(2000 more characters)")));
    QCOMPARE(top->statusText(), QStringLiteral("6 eval examples from the evaluation at step 40, 4 of them wrong."));
    QCOMPARE(top->mostConfusedText(), QStringLiteral("spam → ham: 3\nham → spam: 1"));
    QVERIFY(top->filterText().isEmpty());

    // A click on (true spam, predicted ham) leaves exactly its examples.
    clickCell(v.confusionTable(), 1, 0);
    QVERIFY(top->hasFilter());
    QCOMPARE(column(t, 0), strings({"0", "2", "5"}));
    QCOMPARE(top->filterText(), QStringLiteral("true spam, predicted ham: 3 examples"));
    auto *filterLine = top->findChild<QLabel *>(QStringLiteral("topLossesFilter"));
    QVERIFY(filterLine->isVisible());
    QCOMPARE(filterLine->text(), QStringLiteral("true spam, predicted ham: 3 examples"));
    // A click on the same cell clears it.
    clickCell(v.confusionTable(), 1, 0);
    QVERIFY(!top->hasFilter());
    QCOMPARE(t->rowCount(), 6);
    QVERIFY(!filterLine->isVisible());
    // Another cell, then "Show all".
    clickCell(v.confusionTable(), 0, 0);
    QCOMPARE(column(t, 0), strings({"1"}));
    QCOMPARE(top->filterText(), QStringLiteral("true ham, predicted ham: 1 example"));
    auto *showAll = top->findChild<QPushButton *>(QStringLiteral("topLossesShowAll"));
    QVERIFY(showAll->isVisible());
    showAll->click();
    QVERIFY(!top->hasFilter());
    QCOMPARE(column(t, 0), strings({"0", "2", "3", "5", "1", "4"}));
    QVERIFY(v.confusionTable()->selectedItems().isEmpty());

    // Names change with the meta data: the list follows.
    v.setLabelNames({"legit", "junk"});
    QCOMPARE(top->mostConfusedText(), QStringLiteral("junk → legit: 3\nlegit → junk: 1"));
    QCOMPARE(t->item(0, 1)->text(), QStringLiteral("junk"));
}

void tst_EvaluationView::matrixFromExamplesOfARecordedEvaluation()
{
    QTemporaryDir modelDir;
    writeEvalExamples(evalExamplesPath(modelDir.path().toStdString()), crafted());
    EvaluationView v;
    v.setEvaluation(metrics(40, {})); // metrics.jsonl's eval line: no confusion matrix
    QCOMPARE(v.confusionTable()->rowCount(), 0);
    QSignalSpy loaded(v.topLosses(), &TopLossesView::examplesLoaded);
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(v.confusionTable()->rowCount(), 2);
    QCOMPARE(v.confusionTable()->item(0, 0)->text(), QStringLiteral("1"));
    QCOMPARE(v.confusionTable()->item(0, 1)->text(), QStringLiteral("1"));
    QCOMPARE(v.confusionTable()->item(1, 0)->text(), QStringLiteral("3"));
    QCOMPARE(v.confusionTable()->item(1, 1)->text(), QStringLiteral("1"));
    QCOMPARE(v.classTable()->item(1, 3)->text(), QStringLiteral("4")); // support of label 1
    // Without labels.txt the names written by the trainer are used in the list.
    QCOMPARE(v.topLosses()->table()->item(0, 1)->text(), QStringLiteral("spam"));

    // Examples of another evaluation do not make a matrix.
    EvaluationView other;
    other.setEvaluation(metrics(80, {}));
    QSignalSpy loaded2(other.topLosses(), &TopLossesView::examplesLoaded);
    other.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded2.count(), 1);
    QCOMPARE(other.confusionTable()->rowCount(), 0);
    QCOMPARE(other.topLosses()->table()->rowCount(), 6);
}

void tst_EvaluationView::missingAndMalformedFiles()
{
    QTemporaryDir modelDir;
    EvaluationView v;
    QSignalSpy loaded(v.topLosses(), &TopLossesView::examplesLoaded);
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(v.topLosses()->statusText(), QStringLiteral("No per-example results yet: they are written at each evaluation."));
    QCOMPARE(v.topLosses()->table()->rowCount(), 0);
    QVERIFY(v.topLosses()->mostConfusedText().isEmpty());

    writeEvalExamples(evalExamplesPath(modelDir.path().toStdString()), crafted());
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 2);
    QCOMPARE(v.topLosses()->table()->rowCount(), 6);

    {
        std::ofstream out(evalExamplesPath(modelDir.path().toStdString()), std::ios::app);
        out << "{\"index\": 6, \"true_label_id\": 1}\n";
    }
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 3);
    const QString status = v.topLosses()->statusText();
    QVERIFY2(status.contains(QStringLiteral("eval_examples.jsonl:7")) && status.contains(QStringLiteral("predicted_label_id")),
             qPrintable(status));
    QCOMPARE(v.topLosses()->table()->rowCount(), 0);
    QVERIFY(v.findChildren<QMessageBox *>().isEmpty());
    QVERIFY(QApplication::activeModalWidget() == nullptr);

    // An empty file: said so, not the previous examples' line.
    writeEvalExamples(evalExamplesPath(modelDir.path().toStdString()), {});
    v.loadExamples(modelDir.path());
    QTRY_COMPARE(loaded.count(), 4);
    QCOMPARE(v.topLosses()->statusText(), QStringLiteral("eval_examples.jsonl holds no examples: evaluate again to rewrite it."));

    // clear() (a new run) drops a read still under way and the shown examples.
    v.loadExamples(modelDir.path());
    v.clear();
    QCOMPARE(v.topLosses()->statusText(), QStringLiteral("No per-example results yet: they are written at each evaluation."));
}

void tst_EvaluationView::windowNamesLabelsAndLoadsExamplesAfterAnEvaluation()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    MainWindow win;
    win.setOptions(o);
    QCOMPARE(win.findChild<EvaluationView *>()->labelName(1), QStringLiteral("label 1"));
    // labels.txt beside the meta data: read when the meta-data path is set again.
    {
        QFile l(QFileInfo(QString::fromStdString(o.input_meta_data_path)).dir().filePath(QStringLiteral("labels.txt")));
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write("ham\nspam\n");
    }
    win.setOptions(o);
    QCOMPARE(win.findChild<EvaluationView *>()->labelNames(), (std::vector<std::string>{"ham", "spam"}));
    // Typing another meta-data path in the form: names of that data (none here), then back.
    QTemporaryDir other;
    const QString otherMeta = writeMeta(other, {});
    win.findChild<ConfigurationForm *>()->setPath(QStringLiteral("input_meta_data_path"), otherMeta);
    QCOMPARE(win.findChild<EvaluationView *>()->labelName(1), QStringLiteral("label 1"));
    win.findChild<ConfigurationForm *>()->setPath(QStringLiteral("input_meta_data_path"), QString::fromStdString(o.input_meta_data_path));
    QCOMPARE(win.findChild<EvaluationView *>()->labelName(1), QStringLiteral("spam"));

    const std::string examplesPath = evalExamplesPath(o.model_dir);
    win.runSession()->controller()->setRunFunction([examplesPath](const PreparedRun &, TrainingObserver &obs, const StopToken &) {
        obs.evaluationCompleted(metrics(40, {{1, 1}, {3, 1}}));
        writeEvalExamples(examplesPath, crafted()); // as the trainer: after the report, before the checkpoint
        CheckpointSaved c;
        c.step = 40;
        obs.checkpointSaved(c);
        RunFinished r;
        r.last_step = 40;
        obs.runFinished(r);
        return r;
    });
    win.show();
    QSignalSpy ended(win.runSession(), &RunSession::preflightFinished);
    QVERIFY(win.train());
    QVERIFY(ended.wait(60000));
    TopLossesView *top = win.findChild<EvaluationView *>()->topLosses();
    QTRY_COMPARE(top->table()->rowCount(), 6);
    QCOMPARE(column(top->table(), 0), strings({"0", "2", "3", "5", "1", "4"}));
    QCOMPARE(top->mostConfusedText(), QStringLiteral("spam → ham: 3\nham → spam: 1"));
    QCOMPARE(win.findChild<EvaluationView *>()->confusionTable()->verticalHeaderItem(1)->text(), QStringLiteral("true spam"));
}

void tst_EvaluationView::compareRunsListsLabelNames()
{
    // root/data/{input_meta_data.json, labels.txt}; root/run/{metrics.jsonl, bert_workbench_project.json}
    QTemporaryDir root;
    QVERIFY(QDir(root.path()).mkpath(QStringLiteral("data")) && QDir(root.path()).mkpath(QStringLiteral("run")));
    {
        QFile l(root.filePath(QStringLiteral("data/labels.txt")));
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write("ham\nspam\n");
        QFile m(root.filePath(QStringLiteral("run/metrics.jsonl")));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(R"({"kind":"train","step":10,"loss":0.25,"learning_rate":0.0005,"examples_per_second":1,"wall_time":2000})"
                "\n");
        QFile p(root.filePath(QStringLiteral("run/bert_workbench_project.json")));
        QVERIFY(p.open(QIODevice::WriteOnly));
        p.write(R"({"format": "bert-workbench-project", "version": 1,
                    "options": {"input_meta_data_path": "../data/input_meta_data.json"}})");
    }
    const RunHistory h = RunHistory::load(root.filePath(QStringLiteral("run/metrics.jsonl")));
    QCOMPARE(h.labelNames, (std::vector<std::string>{"ham", "spam"}));
    RunsTable runs;
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("run/metrics.jsonl")), false));
    int labelsColumn = -1;
    for (int c = 0; c < runs.table()->columnCount(); ++c)
        if (runs.table()->horizontalHeaderItem(c)->text() == QLatin1String("labels"))
            labelsColumn = c;
    QVERIFY(labelsColumn >= 0);
    QCOMPARE(runs.table()->item(0, labelsColumn)->text(), QStringLiteral("ham, spam"));
    // A run without a project file (started from the command line): unknown.
    QFile::remove(root.filePath(QStringLiteral("run/bert_workbench_project.json")));
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("run/metrics.jsonl")), false));
    QCOMPARE(runs.table()->rowCount(), 1);
    QCOMPARE(runs.table()->item(0, labelsColumn)->text(), QStringLiteral("–"));
}

void tst_EvaluationView::compareRunsReadsRunConfigOfCliRuns()
{
    // A run trained with bert-workbench-cli has no bert_workbench_project.json, but its
    // run_config.json names the hyperparameters, the number format and the meta data.
    QTemporaryDir root;
    QVERIFY(QDir(root.path()).mkpath(QStringLiteral("data")) && QDir(root.path()).mkpath(QStringLiteral("cli-run")));
    {
        QFile l(root.filePath(QStringLiteral("data/labels.txt")));
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write("ham\nspam\n");
        QFile m(root.filePath(QStringLiteral("cli-run/metrics.jsonl")));
        QVERIFY(m.open(QIODevice::WriteOnly));
        m.write(R"({"kind":"train","step":340,"loss":0.12,"learning_rate":0.0,"examples_per_second":1,"wall_time":2000})"
                "\n");
        QFile c(root.filePath(QStringLiteral("cli-run/run_config.json")));
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(R"({"format": "bert-workbench run_config 1",
                    "defining": {"bert_config": {"hidden_size": 128}, "num_labels": 2, "train_batch_size": 32,
                                 "num_train_epochs": 2, "learning_rate": 0.0005},
                    "informational": {"input_meta_data_path": ")"
                + root.filePath(QStringLiteral("data/input_meta_data.json")).toUtf8() + R"(", "dtype": "bf16"}})");
    }
    RunsTable runs;
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("cli-run/metrics.jsonl")), false));
    const auto cell = [&runs](const char *header) {
        for (int c = 0; c < runs.table()->columnCount(); ++c)
            if (runs.table()->horizontalHeaderItem(c)->text() == QLatin1String(header))
                return runs.table()->item(0, c)->text();
        return QStringLiteral("(no column %1)").arg(QLatin1String(header));
    };
    QCOMPARE(cell("learning_rate"), QStringLiteral("0.0005"));
    QCOMPARE(cell("train_batch_size"), QStringLiteral("32"));
    QCOMPARE(cell("num_train_epochs"), QStringLiteral("2"));
    QCOMPARE(cell("labels"), QStringLiteral("ham, spam"));
    QCOMPARE(cell("dtype"), QStringLiteral("bf16"));
    QCOMPARE(cell("steps"), QStringLiteral("340"));

    // Each value from one file: run_config.json (the run's own record) before the window's
    // bert_workbench_project.json, which only fills in what run_config.json lacks.
    TrainingOptions project;
    project.learning_rate = 0.001;
    project.train_batch_size = 8;
    project.dtype = "fp32";
    ProjectFile::save(root.filePath(QStringLiteral("cli-run/bert_workbench_project.json")), project);
    {
        QFile s(root.filePath(QStringLiteral("cli-run/training_summary.json")));
        QVERIFY(s.open(QIODevice::WriteOnly));
        s.write(R"({"total_training_steps": 340, "train_loss": "low"})");
    }
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("cli-run/metrics.jsonl")), false));
    QCOMPARE(runs.table()->rowCount(), 1);
    QCOMPARE(cell("learning_rate"), QStringLiteral("0.0005"));
    QCOMPARE(cell("train_batch_size"), QStringLiteral("32"));
    QCOMPARE(cell("dtype"), QStringLiteral("bf16"));
    // A summary that cannot be read: the last logged loss, and the row says why.
    QCOMPARE(cell("final train loss"), QStringLiteral("0.12"));
    QCOMPARE(runs.table()->item(0, 0)->toolTip(),
             root.filePath(QStringLiteral("cli-run/training_summary.json: train_loss: expected a number (or null), got "
                                          "string \"low\"")));
    QVERIFY(QFile::remove(root.filePath(QStringLiteral("cli-run/run_config.json"))));
    QVERIFY(QFile::remove(root.filePath(QStringLiteral("cli-run/training_summary.json"))));
    QVERIFY(runs.addRun(root.filePath(QStringLiteral("cli-run/metrics.jsonl")), false));
    QCOMPARE(cell("learning_rate"), QStringLiteral("0.001"));
    QCOMPARE(cell("train_batch_size"), QStringLiteral("8"));
    QCOMPARE(cell("dtype"), QStringLiteral("fp32"));
    QVERIFY(runs.table()->item(0, 0)->toolTip().isEmpty());
}

void tst_EvaluationView::windowShowsTopLossesOfARealRun()
{
    // The real trainer (tiny BERT, 64 train / 16 eval records, 16 steps): the list after the
    // run is the file the trainer wrote at its last evaluation, highest loss first.
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    MainWindow win;
    win.setOptions(o);
    win.show();
    QSignalSpy ended(win.runSession(), &RunSession::preflightFinished);
    QSignalSpy finished(win.runSession()->controller(), &TrainingController::finished);
    QVERIFY(win.train());
    QVERIFY(ended.wait(60000));
    QVERIFY(finished.count() > 0 || finished.wait(120000));
    TopLossesView *top = win.findChild<EvaluationView *>()->topLosses();
    QTRY_COMPARE(top->table()->rowCount(), 16);
    const std::vector<EvalExample> written = readEvalExamples(evalExamplesPath(o.model_dir));
    QCOMPARE(written.size(), size_t(16));
    // The list of an earlier evaluation also has 16 rows; the last evaluation's file is read
    // by a background job that may still be running.
    QTRY_VERIFY_WITH_TIMEOUT(!top->examples().empty() && top->examples().front().step == written.front().step, 60000);
    double highest = 0;
    for (const EvalExample &e : written)
        highest = std::max(highest, e.loss);
    QCOMPARE(top->table()->item(0, 5)->text(), QString::number(highest, 'f', 4));
    double previous = top->table()->item(0, 5)->text().toDouble();
    for (int r = 1; r < top->table()->rowCount(); ++r) {
        const double loss = top->table()->item(r, 5)->text().toDouble();
        QVERIFY2(loss <= previous, qPrintable(QStringLiteral("row %1").arg(r)));
        previous = loss;
    }
    QVERIFY2(top->statusText().startsWith(QStringLiteral("16 eval examples from the evaluation at step %1")
                                              .arg(written.front().step)),
             qPrintable(top->statusText()));
}

void tst_EvaluationView::topLossesOfTheKeptBestCheckpoint()
{
    // Issue 44 item 7: a run that stopped early at step 24 keeps its best checkpoint of step 6;
    // Top losses shows that evaluation and says so, and the run's end reads the same everywhere.
    QTemporaryDir modelDir;
    const std::string dir = modelDir.path().toStdString();
    std::vector<EvalExample> latest = crafted(), best = crafted();
    for (EvalExample &e : latest)
        e.step = 24;
    for (EvalExample &e : best)
        e.step = 6;
    writeEvalExamples(evalExamplesPath(dir), latest);
    std::filesystem::create_directories(dir + "/best");
    std::ofstream(dir + "/best/ckpt-6") << "x";
    BestCheckpointRecord rec;
    rec.metric = "eval_accuracy";
    rec.value = 0.9;
    rec.step = 6;
    rec.checkpoint = "best/ckpt-6";
    rec.last_evaluated_step = 24;
    writeBestRecord(dir, rec);
    TopLossesView v;
    QSignalSpy loaded(&v, &TopLossesView::examplesLoaded);
    v.load(modelDir.path());
    QTRY_COMPARE(loaded.count(), 1);
    QVERIFY2(v.statusText().contains(QStringLiteral("from the evaluation at step 24,")), qPrintable(v.statusText()));
    writeEvalExamples(bestEvalExamplesPath(dir), best); // what the training loop copies beside the kept checkpoint
    v.load(modelDir.path());
    QTRY_COMPARE(loaded.count(), 2);
    QVERIFY2(v.statusText().startsWith(QStringLiteral("6 eval examples from the evaluation at step 6, of the best "
                                                      "checkpoint, which the model directory keeps")),
             qPrintable(v.statusText()));
    TrainingSummary summary;
    summary.total_training_steps = 96;
    summary.stopped_early_at_step = 24;
    summary.best_step = 6;
    writeTrainingSummary(dir, summary);
    RunFinished r;
    r.status = RunStatus::Completed;
    r.last_step = 24;
    r.stopped_early_at_step = 24;
    r.best_step = 6;
    r.best_checkpoint = dir + "/best/ckpt-6";
    QCOMPARE(runEndPhrase(runEndOf(r, 96)), std::string("stopped early at step 24, best at step 6"));
    QCOMPARE(runEndPhrase(recordedRunEnd(dir, 24, 96)), runEndPhrase(runEndOf(r, 96))); // after reopening
}

QTEST_MAIN(tst_EvaluationView)
#include "tst_evaluationview.moc"
