// SPDX-License-Identifier: Apache-2.0
// Issue 45: the Evaluation tab of a multi-label run: the label chooser, the chosen label's
// precision–recall curve with the 0.5 and tuned-threshold marks and its average precision, and
// the per-label confusion table at 0.5 and at each label's tuned threshold — from a hand-written
// run folder (a metrics.jsonl eval line with its multi_label block and eval_examples.jsonl),
// read as the window reads a run, and at 1024×700 in the window.
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "core/formats/evalexamples.h"
#include "core/io/metricsreader.h"
#include "support/windowfixtures.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/multilabelview.h"
#include "ui/evaluation/toplossesview.h"
#include "ui/window/mainwindow.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

namespace {

/// Three labels over six eval texts at step 40. Label 0 (billing): probabilities 0.91, 0.62,
/// 0.62, 0.40, 0.30, 0.08, carried by texts 0, 1 and 3; its F1-best threshold is 0.35 (the
/// middle of 0.30 and 0.40). Label 1 (urgent): texts 1 and 5, threshold 0.25. Label 2 (refund):
/// no text carries it (threshold 0.5).
const char *kEvalLine =
    R"({"kind": "eval", "step": 40, "wall_time": 1000, "eval_loss": 0.41, "num_examples": 6, "regression": false,)"
    R"( "binary": false, "eval_accuracy": 0.3333, "eval_macro_f1": 0.4444, "multi_label": true, "eval_micro_f1": 0.5,)"
    R"( "eval_samples_f1": 0.5, "eval_hamming_loss": 0.2778, "eval_micro_f1_tuned": 0.6, "eval_macro_f1_tuned": 0.55,)"
    R"( "thresholds": [0.35, 0.25, 0.5], "label_confusion": [{"tn": 2, "fp": 1, "fn": 1, "tp": 2},)"
    R"( {"tn": 3, "fp": 1, "fn": 1, "tp": 1}, {"tn": 5, "fp": 1, "fn": 0, "tp": 0}]})"
    "\n";

const char *kExamples[] = {
    R"({"index": 0, "step": 40, "multi_label": true, "true_labels": ["billing"], "true_label_ids": [0], "predicted_labels": ["billing"], "predicted_label_ids": [0], "probabilities": [0.91, 0.09, 0.4], "label_losses": [0.094, 0.094, 0.511], "loss": 0.233, "text": "invoice twice"})",
    R"({"index": 1, "step": 40, "multi_label": true, "true_labels": ["billing", "urgent"], "true_label_ids": [0, 1], "predicted_labels": ["billing", "urgent"], "predicted_label_ids": [0, 1], "probabilities": [0.62, 0.7, 0.1], "label_losses": [0.478, 0.357, 0.105], "loss": 0.313, "text": "charged now please fix"})",
    R"({"index": 2, "step": 40, "multi_label": true, "true_labels": [], "true_label_ids": [], "predicted_labels": ["billing"], "predicted_label_ids": [0], "probabilities": [0.62, 0.2, 0.2], "label_losses": [0.968, 0.223, 0.223], "loss": 0.471, "text": "thanks"})",
    R"({"index": 3, "step": 40, "multi_label": true, "true_labels": ["billing"], "true_label_ids": [0], "predicted_labels": ["urgent"], "predicted_label_ids": [1], "probabilities": [0.4, 0.55, 0.3], "label_losses": [0.916, 0.799, 0.357], "loss": 0.69, "text": "card declined"})",
    R"({"index": 4, "step": 40, "multi_label": true, "true_labels": [], "true_label_ids": [], "predicted_labels": ["refund"], "predicted_label_ids": [2], "probabilities": [0.3, 0.1, 0.6], "label_losses": [0.357, 0.105, 0.916], "loss": 0.459, "text": "hello"})",
    R"({"index": 5, "step": 40, "multi_label": true, "true_labels": ["urgent"], "true_label_ids": [1], "predicted_labels": [], "predicted_label_ids": [], "probabilities": [0.08, 0.3, 0.2], "label_losses": [0.083, 1.204, 0.223], "loss": 0.503, "text": "server down"})",
};

/// Writes the run folder: metrics.jsonl (the eval line) and eval_examples.jsonl.
bool writeRun(const QTemporaryDir &dir)
{
    QFile metrics(dir.filePath(QStringLiteral("metrics.jsonl")));
    QFile examples(dir.filePath(QStringLiteral("eval_examples.jsonl")));
    if (!metrics.open(QIODevice::WriteOnly) || !examples.open(QIODevice::WriteOnly))
        return false;
    metrics.write(kEvalLine);
    for (const char *line : kExamples)
        examples.write(QByteArray(line) + '\n');
    return true;
}

/// The evaluation of the run folder, shown and its examples loaded as the window does.
bool showRun(EvaluationView *view, const QTemporaryDir &dir)
{
    std::string error;
    const MetricsLog log = readMetricsFile(dir.filePath(QStringLiteral("metrics.jsonl")).toStdString(), &error);
    if (!error.empty() || log.eval.size() != 1 || !log.eval.front().multi_label)
        return false;
    view->setLabelNames({"billing", "urgent", "refund"});
    view->setEvaluation(log.eval.front());
    QSignalSpy loaded(view->topLosses(), &TopLossesView::examplesLoaded);
    view->loadExamples(dir.path());
    return loaded.wait(30000); // a background job: a loaded machine may take seconds
}

QStringList rowTexts(const QTableWidget *t, int row)
{
    QStringList out;
    for (int c = 0; c < t->columnCount(); ++c)
        out << t->item(row, c)->text();
    return out;
}

QStringList strings(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *s : list)
        out << QString::fromUtf8(s);
    return out;
}

QString curveText(const QCPCurve *c)
{
    QStringList out;
    for (auto it = c->data()->constBegin(); it != c->data()->constEnd(); ++it)
        out << QStringLiteral("(%1, %2)").arg(it->key, 0, 'g', 6).arg(it->value, 0, 'g', 6);
    return out.join(QLatin1Char(' '));
}

} // namespace

class tst_MultiLabelView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }
    void curveMarksAndTableOfARunFolder();
    void fitsTheWindowAt1024x700();
    void tunedThresholdsNotBetterAreSaidToBeUnused();
};

void tst_MultiLabelView::curveMarksAndTableOfARunFolder()
{
    QTemporaryDir dir;
    QVERIFY(writeRun(dir));
    EvaluationView view;
    QVERIFY(showRun(&view, dir));
    MultiLabelView *ml = view.multiLabelView();
    QVERIFY(!ml->isHidden());
    QVERIFY(view.confusionTable()->isHidden()); // the single-label matrix is not shown, nor its heading
    QVERIFY(view.confusionTable()->parentWidget()->isHidden());

    // The chooser names the labels.
    QComboBox *chooser = ml->labelChooser();
    QCOMPARE(chooser->count(), 3);
    QCOMPARE(chooser->itemText(0), QStringLiteral("billing"));
    QCOMPARE(chooser->itemText(1), QStringLiteral("urgent"));
    QCOMPARE(chooser->itemText(2), QStringLiteral("refund"));
    QCOMPARE(ml->currentLabel(), 0);

    // billing's curve: scikit-learn 1.2.1's precision_recall_curve([1,1,0,1,0,0],
    // [0.91,0.62,0.62,0.40,0.30,0.08]) gives precision [0.5, 0.6, 0.75, 0.6667, 1, 1], recall
    // [1, 1, 1, 0.6667, 0.3333, 0], and average_precision_score 0.8055555555555556.
    QCOMPARE(curveText(ml->pointsCurve()),
             QStringLiteral("(1, 0.5) (1, 0.6) (1, 0.75) (0.666667, 0.666667) (0.333333, 1) (0, 1)"));
    // Drawn as steps (matplotlib's steps-post in that order): each precision held to the next recall.
    QCOMPARE(curveText(ml->stepCurve()),
             QStringLiteral("(1, 0.5) (1, 0.5) (1, 0.6) (1, 0.6) (1, 0.75) (0.666667, 0.75) (0.666667, 0.666667) "
                            "(0.333333, 0.666667) (0.333333, 1) (0, 1) (0, 1)"));
    QCOMPARE(ml->titleText(), QStringLiteral("<b>billing</b>: average precision 0.8056"));
    QVERIFY2(ml->noteText().endsWith(QStringLiteral(" classify, Try it and the export use the tuned thresholds (cross-fitted "
                                                    "macro-F1 0.550 against 0.444 at 0.5).")),
             qPrintable(ml->noteText()));
    // The marks: at 0.5 texts 0, 1, 2 are predicted (tp 2, fp 1, fn 1); at 0.35 text 3 too.
    QCOMPARE(curveText(ml->markerCurve()), QStringLiteral("(0.666667, 0.666667) (1, 0.75)"));
    QCOMPARE(ml->markerText(0)->text(), QStringLiteral("threshold 0.5"));
    QCOMPARE(ml->markerText(1)->text(), QStringLiteral("tuned threshold 0.35"));
    QCOMPARE(ml->markerText(0)->position->coords(), QPointF(2.0 / 3.0, 2.0 / 3.0));
    QCOMPARE(ml->markerText(1)->position->coords(), QPointF(1.0, 0.75));
    QVERIFY(ml->markerText(0)->visible() && ml->markerText(1)->visible());

    // The table: support, TP FP FN TN precision recall F1 at 0.5, the tuned threshold, the same seven there.
    QTableWidget *t = ml->labelTable();
    QCOMPARE(t->rowCount(), 3);
    QCOMPARE(t->columnCount(), 16);
    QCOMPARE(t->verticalHeaderItem(0)->text(), QStringLiteral("billing"));
    QCOMPARE(t->horizontalHeaderItem(8)->text(), QStringLiteral("tuned\nthreshold"));
    QCOMPARE(t->horizontalHeaderItem(12)->toolTip(),
             QStringLiteral("true negatives: texts without the label that did not get it, at the label's tuned threshold"));
    QCOMPARE(rowTexts(t, 0), strings({"3", "2", "1", "1", "2", "0.667", "0.667", "0.667", "0.35", "3", "1", "0", "2",
                                      "0.750", "1.000", "0.857"}));
    QCOMPARE(rowTexts(t, 1), strings({"2", "1", "1", "1", "3", "0.500", "0.500", "0.500", "0.25", "2", "1", "0", "3",
                                      "0.667", "1.000", "0.800"}));
    QCOMPARE(rowTexts(t, 2), strings({"0", "0", "1", "0", "5", "0.000", "0.000", "0.000", "0.5", "0", "1", "0", "5",
                                      "0.000", "0.000", "0.000"}));

    // urgent, chosen by a click on its row: scikit-learn's average_precision_score 0.8333333333333333;
    // its tuned threshold 0.25 reaches recall 1 at precision 2/3.
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(t->model()->index(1, 3)).center());
    QCOMPARE(ml->currentLabel(), 1);
    QCOMPARE(ml->titleText(), QStringLiteral("<b>urgent</b>: average precision 0.8333"));
    QCOMPARE(curveText(ml->markerCurve()), QStringLiteral("(0.5, 0.5) (1, 0.666667)"));
    QCOMPARE(ml->markerText(1)->text(), QStringLiteral("tuned threshold 0.25"));

    // refund: no text carries it, so no curve.
    chooser->setCurrentIndex(2);
    QCOMPARE(ml->titleText(), QStringLiteral("<b>refund</b>: no precision–recall curve"));
    QVERIFY(ml->pointsCurve()->data()->isEmpty());
    QVERIFY2(ml->noteText().startsWith(QStringLiteral("No eval text carries refund")), qPrintable(ml->noteText()));

    // A single-label evaluation hides the view.
    EvalMetrics single;
    single.step = 50;
    single.confusion = {{1, 0}, {0, 1}};
    view.setEvaluation(single);
    QVERIFY(ml->isHidden());
    QVERIFY(!view.confusionTable()->parentWidget()->isHidden());
}

void tst_MultiLabelView::fitsTheWindowAt1024x700()
{
    QTemporaryDir dir;
    QVERIFY(writeRun(dir));
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *eval = w.findChild<EvaluationView *>();
    QVERIFY(showRun(eval, dir));
    w.showTab(QStringLiteral("evaluationTab"));
    QTest::qWait(50);
    QCOMPARE(w.size(), QSize(1024, 700));
    QScrollArea *scroll = eval->scrollArea();
    QTableWidget *t = eval->multiLabelView()->labelTable();
    QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0); // only vertical scrolling
    QVERIFY(t->isVisible());
    QVERIFY2(t->viewport()->height() >= t->verticalHeader()->length(),
             qPrintable(QStringLiteral("%1 < %2").arg(t->viewport()->height()).arg(t->verticalHeader()->length())));
    QVERIFY2(t->viewport()->width() >= t->horizontalHeader()->length(),
             qPrintable(QStringLiteral("%1 < %2").arg(t->viewport()->width()).arg(t->horizontalHeader()->length())));
    for (int r = 0; r < t->rowCount(); ++r)
        QVERIFY(t->rowHeight(r) >= t->fontMetrics().height());
    scroll->ensureWidgetVisible(t, 0, 0);
    QCoreApplication::processEvents();
    QVERIFY(scroll->viewport()->rect().contains(QRect(t->mapTo(scroll->viewport(), QPoint(0, 0)), t->size())));
    // Long label names: the names break into lines; a table wider than the tab scrolls inside
    // itself, the tab only downwards, and every row stays visible.
    eval->setLabelNames({"billing and invoices question", "technical problem with the installation urgent",
                         "cancellation request and refund of the annual subscription"});
    QCoreApplication::processEvents();
    QCOMPARE(t->verticalHeaderItem(1)->text(), QStringLiteral("technical problem\nwith the\ninstallation\nurgent"));
    QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    QVERIFY(t->width() <= scroll->viewport()->width());
    QVERIFY2(t->viewport()->height() >= t->verticalHeader()->length(),
             qPrintable(QStringLiteral("%1 < %2").arg(t->viewport()->height()).arg(t->verticalHeader()->length())));
    // A narrower tab (the form beside it takes more room): still no sideways scrolling.
    w.resize(800, 700);
    QTRY_VERIFY2(scroll->horizontalScrollBar()->maximum() == 0, // once the layouts have settled
             qPrintable(QStringLiteral("%1 wide tab scrolls %2 sideways; table %3, plot %4, view min %5")
                            .arg(scroll->viewport()->width()).arg(scroll->horizontalScrollBar()->maximum())
                            .arg(t->width()).arg(eval->multiLabelView()->plot()->width())
                            .arg(eval->multiLabelView()->minimumSizeHint().width())));
    QCustomPlot *plot = eval->multiLabelView()->plot();
    QVERIFY(plot->isVisible());
    QVERIFY(plot->height() >= 300);
}

// runThresholds' rule in words: tuned thresholds whose cross-fitted macro-F1 is not above 0.5's
// are not what classify, Try it and the export use.
void tst_MultiLabelView::tunedThresholdsNotBetterAreSaidToBeUnused()
{
    QTemporaryDir dir;
    QVERIFY(writeRun(dir));
    EvaluationView view;
    QVERIFY(showRun(&view, dir));
    MultiLabelView *ml = view.multiLabelView();
    const MetricsLog log = readMetricsFile(dir.filePath(QStringLiteral("metrics.jsonl")).toStdString());
    QCOMPARE(log.eval.size(), size_t(1));
    EvalMetrics worse = log.eval.front();
    worse.eval_macro_f1_tuned = 0.40; // below 0.4444 at 0.5
    ml->setEvaluation(worse);
    QVERIFY2(ml->noteText().endsWith(QStringLiteral(" The tuned thresholds did no better on texts they were not tuned on, "
                                                    "so classify, Try it and the export keep 0.5 for every label.")),
             qPrintable(ml->noteText()));
    QCOMPARE(ml->titleText(), QStringLiteral("<b>billing</b>: average precision 0.8056")); // the curve stays
}

QTEST_MAIN(tst_MultiLabelView)
#include "tst_multilabelview.moc"
