// SPDX-License-Identifier: Apache-2.0
// Issue 45: Top losses of a multi-label run (docs/multi-label.md, "Top losses per label"), from
// a hand-written eval_examples.jsonl of three labels and five texts (binary cross-entropies of
// the written probabilities): "All labels" lists the rows by the mean loss, one label by its
// own loss with its probability and whether the label is true and predicted at 0.5; the label
// sets are joined by ", "; a double-click asks Try it to explain the row.
#include "core/formats/evalexamples.h"
#include "support/windowfixtures.h"
#include "ui/evaluation/toplossesview.h"

#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

namespace {

/// Texts 0…4; mean losses 0.5108, 0.4594, 0.2798, 0.4355, 0.3406; billing's losses 0.1054,
/// 0.9163, 0.1054, 1.2040, 0.6931 (texts 0 and 2 tie).
const char *kExamples =
    R"({"index":0,"step":40,"multi_label":true,"true_labels":["billing","refund"],"true_label_ids":[0,2],"predicted_labels":["billing"],"predicted_label_ids":[0],"probabilities":[0.9,0.2,0.3],"label_losses":[0.105361,0.223144,1.203973],"loss":0.510826,"text":"refund my double charge"})" "\n"
    R"({"index":1,"step":40,"multi_label":true,"true_labels":["urgent"],"true_label_ids":[1],"predicted_labels":["billing","urgent"],"predicted_label_ids":[0,1],"probabilities":[0.6,0.7,0.1],"label_losses":[0.916291,0.356675,0.105361],"loss":0.459442,"text":"server down since noon"})" "\n"
    R"({"index":2,"step":40,"multi_label":true,"true_labels":[],"true_label_ids":[],"predicted_labels":[],"predicted_label_ids":[],"probabilities":[0.1,0.4,0.2],"label_losses":[0.105361,0.510826,0.223144],"loss":0.279777,"text":"thanks for the help"})" "\n"
    R"({"index":3,"step":40,"multi_label":true,"true_labels":["billing","urgent"],"true_label_ids":[0,1],"predicted_labels":["urgent"],"predicted_label_ids":[1],"probabilities":[0.3,0.95,0.05],"label_losses":[1.203973,0.051293,0.051293],"loss":0.43552,"text":"invoice overdue, pay today"})" "\n"
    R"({"index":4,"step":40,"multi_label":true,"true_labels":["refund"],"true_label_ids":[2],"predicted_labels":["billing","refund"],"predicted_label_ids":[0,2],"probabilities":[0.5,0.1,0.8],"label_losses":[0.693147,0.105361,0.223144],"loss":0.340551,"text":"please refund the fee"})" "\n";

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

QStringList headers(const QTableWidget *t)
{
    QStringList out;
    for (int c = 0; c < t->columnCount(); ++c)
        out << t->horizontalHeaderItem(c)->text();
    return out;
}

QStringList items(const QComboBox *box)
{
    QStringList out;
    for (int i = 0; i < box->count(); ++i)
        out << box->itemText(i);
    return out;
}

} // namespace

class tst_TopLossesMultiLabel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { wbtest::useTestSettings(); }

    void allLabelsThenOneLabel()
    {
        QTemporaryDir modelDir;
        QFile f(QString::fromStdString(evalExamplesPath(modelDir.path().toStdString())));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kExamples);
        f.close();

        TopLossesView v;
        v.resize(1200, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QSignalSpy loaded(&v, &TopLossesView::examplesLoaded);
        v.load(modelDir.path());
        QTRY_COMPARE(loaded.count(), 1);
        QVERIFY(v.isMultiLabel());
        QComboBox *chooser = v.labelChooser();
        QVERIFY(chooser->isVisible());
        QCOMPARE(items(chooser), strings({"All labels", "billing", "urgent", "refund"}));
        QCOMPARE(chooser->currentText(), QStringLiteral("All labels"));

        // All labels: by the mean binary cross-entropy.
        QTableWidget *t = v.table();
        QCOMPARE(headers(t), strings({"#", "true labels", "predicted (p ≥ 0.5)", "loss", "text"}));
        QCOMPARE(column(t, 0), strings({"0", "1", "3", "4", "2"}));
        QCOMPARE(column(t, 1), strings({"billing, refund", "urgent", "billing, urgent", "refund", "(none)"}));
        QCOMPARE(column(t, 2), strings({"billing", "billing, urgent", "urgent", "billing, refund", "(none)"}));
        QCOMPARE(column(t, 3), strings({"0.5108", "0.4594", "0.4355", "0.3406", "0.2798"}));
        QCOMPARE(column(t, 4), strings({"refund my double charge", "server down since noon", "invoice overdue, pay today",
                                        "please refund the fee", "thanks for the help"}));
        QCOMPARE(v.statusText(), QStringLiteral("5 eval examples from the evaluation at step 40, 4 of them with a "
                                                "predicted label set (at 0.5) other than the true one."));
        QCOMPARE(v.mostConfusedText(), QStringLiteral("billing: 1 missed, 2 extra\nrefund: 1 missed, 0 extra"));
        // A double-click asks for the row's worst label under "All labels" (text 0: refund, 1.2040).
        QSignalSpy explain(&v, &TopLossesView::explainRequested);
        v.explainRow(0);
        QCOMPARE(explain.count(), 1);
        QCOMPARE(explain.at(0).at(0).toString(), QStringLiteral("refund my double charge"));
        QCOMPARE(explain.at(0).at(2).toLongLong(), qlonglong(2));

        // One label, chosen as the user does: billing's own loss, its probability, true and predicted.
        Q_EMIT chooser->activated(1);
        QCOMPARE(v.labelChoice(), int64_t(0));
        QCOMPARE(headers(t), strings({"#", "true labels", "predicted (p ≥ 0.5)", "p(billing)", "billing true",
                                      "billing predicted", "loss of billing", "text"}));
        QCOMPARE(column(t, 0), strings({"3", "1", "4", "0", "2"})); // the tie (0.1054) keeps file order
        QCOMPARE(column(t, 1), strings({"billing, urgent", "urgent", "refund", "billing, refund", "(none)"}));
        QCOMPARE(column(t, 2), strings({"urgent", "billing, urgent", "billing, refund", "billing", "(none)"}));
        QCOMPARE(column(t, 3), strings({"0.3000", "0.6000", "0.5000", "0.9000", "0.1000"}));
        QCOMPARE(column(t, 4), strings({"yes", "no", "no", "yes", "no"}));
        QCOMPARE(column(t, 5), strings({"no", "yes", "yes", "yes", "no"}));
        QCOMPARE(column(t, 6), strings({"1.2040", "0.9163", "0.6931", "0.1054", "0.1054"}));
        QCOMPARE(column(t, 7).front(), QStringLiteral("invoice overdue, pay today"));
        // The label's mistakes are marked: missed (row 0) and extra (rows 1, 2), not right ones.
        QCOMPARE(t->item(0, 2)->foreground().color(), QColor(190, 30, 30));
        QCOMPARE(t->item(1, 2)->foreground().color(), QColor(190, 30, 30));
        QVERIFY(t->item(3, 2)->foreground().color() != QColor(190, 30, 30));
        Q_EMIT t->cellDoubleClicked(0, 7); // as a double-click on the row's text
        QCOMPARE(explain.count(), 2);
        QCOMPARE(explain.at(1).at(0).toString(), QStringLiteral("invoice overdue, pay today"));
        QCOMPARE(explain.at(1).at(2).toLongLong(), qlonglong(0));

        // Names from labels.txt rename the chooser and the columns; the choice stays.
        v.setLabelNames({"Billing", "Urgent", "Refund"});
        QCOMPARE(items(chooser), strings({"All labels", "Billing", "Urgent", "Refund"}));
        QCOMPARE(chooser->currentText(), QStringLiteral("Billing"));
        QCOMPARE(t->horizontalHeaderItem(3)->text(), QStringLiteral("p(Billing)"));
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("Billing, Urgent"));

        // Back to all labels; a single-label file hides the chooser.
        v.setLabelChoice(-1);
        QCOMPARE(column(t, 0), strings({"0", "1", "3", "4", "2"}));
        EvalExample single;
        single.true_label_id = 1;
        single.predicted_label_id = 0;
        single.probabilities = {0.7, 0.3};
        single.loss = 1.2040;
        v.setExamples({single});
        QVERIFY(!v.isMultiLabel());
        QVERIFY(!chooser->isVisible());
        QCOMPARE(headers(t), strings({"#", "true label", "predicted", "p(predicted)", "p(true)", "loss", "text"}));
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("Urgent"));
    }
};

QTEST_MAIN(tst_TopLossesMultiLabel)
#include "tst_toplossesmultilabel.moc"
