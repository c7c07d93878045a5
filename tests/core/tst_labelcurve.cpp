// SPDX-License-Identifier: Apache-2.0
// Issue 47 (label to learn): the curve's drawn points and the rule that says when more labels
// stopped helping (core/label/labelcurve.h).
#include "core/label/labelcurve.h"

#include <QtTest>

#include <cmath>

using namespace wb;

class tst_LabelCurve : public QObject
{
    Q_OBJECT

    static CurvePoint point(int64_t labels, double accuracy, const std::string &strategy = "uncertain_diverse",
                            const std::string &source = "held_out")
    {
        CurvePoint p;
        p.labels = labels;
        p.accuracy = accuracy;
        p.strategy = strategy;
        p.eval_source = source;
        return p;
    }

private Q_SLOTS:
    void measuredCurveSortsFiltersAndKeepsTheLastAtACount()
    {
        const std::vector<CurvePoint> curve{point(20, 0.7), point(10, 0.6), point(30, std::nan("")),
                                            point(20, 0.75), point(15, 0.5, "random"), point(40, 0.9, "", "none"),
                                            point(25, 0.8, "")};
        const std::vector<CurvePoint> m = measuredCurve(curve, "uncertain_diverse");
        QCOMPARE(m.size(), size_t(3));
        QCOMPARE(m[0].labels, int64_t(10));
        QCOMPARE(m[1].labels, int64_t(20));
        QCOMPARE(m[1].accuracy, 0.75); // the later line at 20 labels
        QCOMPARE(m[2].labels, int64_t(25)); // no strategy: any
        const std::vector<CurvePoint> random = measuredCurve(curve, "random");
        QCOMPARE(random.size(), size_t(2));
        QCOMPARE(random[0].labels, int64_t(15));
        QCOMPARE(measuredCurve(curve).size(), size_t(4));
    }

    void plateauNeedsThreeClosePointsAtSixtyLabels()
    {
        const std::vector<CurvePoint> flat{point(30, 0.6), point(40, 0.81), point(50, 0.82), point(60, 0.815)};
        const Plateau p = labelsStoppedHelping(flat);
        QVERIFY(p.reached);
        QCOMPARE(p.from_labels, int64_t(40));
        QCOMPARE(p.to_labels, int64_t(60));
        QCOMPARE(p.lowest, 0.81);
        QCOMPARE(p.highest, 0.82);
        QCOMPARE(QString::fromStdString(plateauNote(p, 3)),
                 QStringLiteral("The last 20 labels did not raise accuracy: between 81 % and 82 % from 40 to 60 "
                                "labels (3 models). More labels of the same kind may not help: label the texts the "
                                "model gets wrong, or make a project from these labels and train it longer."));
        // Below 60 labels, still rising, or too few points: no note.
        QVERIFY(!labelsStoppedHelping({point(30, 0.81), point(40, 0.82), point(50, 0.815)}).reached);
        QVERIFY(!labelsStoppedHelping({point(40, 0.79), point(50, 0.82), point(60, 0.815)}).reached);
        QVERIFY(!labelsStoppedHelping({point(50, 0.82), point(60, 0.82)}).reached);
        QCOMPARE(plateauNote(labelsStoppedHelping({point(50, 0.82)}), 3), std::string());
        const Plateau same = labelsStoppedHelping({point(60, 0.9), point(70, 0.9), point(80, 0.9)});
        QCOMPARE(QString::fromStdString(plateauNote(same, 3)).left(62),
                 QStringLiteral("The last 20 labels did not raise accuracy: 90 % from 60 to 80 "));
    }

    void ruleIsAdjustable()
    {
        PlateauRule rule;
        rule.points = 2;
        rule.within = 0.05;
        rule.min_labels = 20;
        QVERIFY(labelsStoppedHelping({point(10, 0.5), point(20, 0.7), point(30, 0.74)}, rule).reached);
        QVERIFY(!labelsStoppedHelping({point(10, 0.5), point(20, 0.7), point(30, 0.76)}, rule).reached);
    }
};

QTEST_GUILESS_MAIN(tst_LabelCurve)
#include "tst_labelcurve.moc"
