// SPDX-License-Identifier: Apache-2.0
// Issue 46: the suspects (core/advice/suspects.h): the hard-to-learn examples whose predictions
// consistently name another label, their evidence and their rank. Torch-free. The expected
// confidences and variabilities were computed once with Python's math module (mean, and the
// population standard deviation sqrt(sum((p - mean)^2) / m)).
#include "core/advice/suspects.h"

#include <QtTest>

#include <cmath>
#include <stdexcept>

using namespace wb;

namespace {

bool near(double a, double b) { return std::abs(a - b) < 1e-12; }

// The rows below, and twelve easy ones (records 20–31, labels 0 and 1) so that the model learned
// the data: last predictions right for 13 of 20, the most frequent label (1) 10 of 20.
std::vector<SuspectInput> withEasyRows(std::vector<SuspectInput> rows)
{
    for (int64_t i = 20; i < 32; ++i)
        rows.push_back({i, i % 2, {0.8, 0.9, 0.95}, {i % 2, i % 2, i % 2}});
    return rows;
}

std::vector<SuspectInput> rows()
{
    return withEasyRows({
        {0, 0, {0.5, 0.2, 0.1}, {0, 1, 1}},     // suspect: 1 in 2 of 3
        {1, 1, {0.4, 0.1, 0.05}, {0, 0, 0}},    // suspect: 0 in 3 of 3
        {2, 0, {0.9, 0.95, 0.99}, {0, 0, 0}},   // easy
        {3, 1, {0.9, 0.1, 0.4}, {1, 0, 0}},     // suspect though ambiguous: variability 0.33
        {4, 0, {0.3, 0.3, 0.3, 0.3}, {1, 2, 1, 2}}, // hard, but no label in a majority
        {5, 2, {0.1, 0.1}, {0, 0}},             // suspect, the most certain
        {6, 0, {}, {}},                         // never seen
        {7, 1, {0.45}, {0}},                    // suspect on one observation
        {8, 1, {0.1, 0.1}, {0, 0}},             // ties with 5 on confidence: after it by index
    });
}

} // namespace

class tst_Suspects : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mostPredictedLabelBreaksTiesByTheLatest()
    {
        QCOMPARE(mostPredictedLabel({1, 2, 1, 2}), std::make_pair(int64_t(2), int64_t(2)));
        QCOMPARE(mostPredictedLabel({2, 1, 2, 1}), std::make_pair(int64_t(1), int64_t(2)));
        QCOMPARE(mostPredictedLabel({2, 1, 1, 2, 1}), std::make_pair(int64_t(1), int64_t(3)));
        QCOMPARE(mostPredictedLabel({}), std::make_pair(int64_t(-1), int64_t(0)));
    }

    void suspectsAreRankedWithTheirEvidence()
    {
        const std::vector<Suspect> s = findSuspects(rows());
        QCOMPARE(s.size(), size_t(6));
        const int64_t order[] = {5, 8, 1, 0, 7, 3};
        for (size_t i = 0; i < s.size(); ++i)
            QCOMPARE(s[i].index, order[i]);

        const Suspect &five = s[0];
        QCOMPARE(five.label_id, int64_t(2));
        QCOMPARE(five.suggested_label_id, int64_t(0));
        QVERIFY(near(five.confidence, 0.1));
        QCOMPARE(five.variability, 0.0);
        QCOMPARE(five.correctness, 0.0);
        QCOMPARE(five.suggestion_count, int64_t(2));
        QCOMPARE(five.observations, int64_t(2));
        QCOMPARE(five.last_gold_probability, 0.1);

        const Suspect &one = s[2];
        QCOMPARE(one.label_id, int64_t(1));
        QCOMPARE(one.suggested_label_id, int64_t(0));
        QVERIFY2(near(one.confidence, 0.18333333333333335), std::to_string(one.confidence).c_str());
        QVERIFY2(near(one.variability, 0.15456030825826175), std::to_string(one.variability).c_str());
        QCOMPARE(one.correctness, 0.0);
        QCOMPARE(one.suggestion_count, int64_t(3));
        QCOMPARE(one.observations, int64_t(3));
        QCOMPARE(one.last_gold_probability, 0.05);

        const Suspect &zero = s[3];
        QCOMPARE(zero.suggested_label_id, int64_t(1));
        QVERIFY(near(zero.confidence, 0.26666666666666666));
        QVERIFY(near(zero.variability, 0.16996731711975951));
        QVERIFY(near(zero.correctness, 1.0 / 3.0));
        QCOMPARE(zero.suggestion_count, int64_t(2));
        QCOMPARE(zero.observations, int64_t(3));
        QCOMPARE(zero.last_gold_probability, 0.1);

        const Suspect &seven = s[4];
        QCOMPARE(seven.suggested_label_id, int64_t(0));
        QCOMPARE(seven.confidence, 0.45);
        QCOMPARE(seven.suggestion_count, int64_t(1));
        QCOMPARE(seven.observations, int64_t(1));

        const Suspect &three = s[5];
        QVERIFY(near(three.confidence, 0.4666666666666666));
        QVERIFY(near(three.variability, 0.3299831645537222));
        QCOMPARE(three.suggested_label_id, int64_t(0));
        QCOMPARE(three.suggestion_count, int64_t(2));
    }

    void theRuleIsItsThresholds()
    {
        // The paper's hard-to-learn region (variability < 0.2) leaves out the ambiguous example 3.
        SuspectRule region;
        region.max_variability = 0.2;
        std::vector<Suspect> s = findSuspects(rows(), region);
        QCOMPARE(s.size(), size_t(5));
        const int64_t order[] = {5, 8, 1, 0, 7};
        for (size_t i = 0; i < s.size(); ++i)
            QCOMPARE(s[i].index, order[i]);
        // A stricter confidence keeps only those below 0.15; half the observations is no majority.
        SuspectRule strict;
        strict.max_confidence = 0.15;
        strict.min_suggestion_share = 0.99;
        s = findSuspects(rows(), strict);
        QCOMPARE(s.size(), size_t(2));
        QCOMPARE(s[0].index, int64_t(5));
        QCOMPARE(s[1].index, int64_t(8));
    }

    void aModelThatDidNotLearnHasNoSuspects()
    {
        const LearnedCheck learned = learnedCheck(rows());
        QVERIFY(learned.learned);
        QCOMPARE(learned.examples, int64_t(20));
        QCOMPARE(learned.last_accuracy, 13.0 / 20.0);
        QCOMPARE(learned.majority_share, 10.0 / 20.0);
        // A constant classifier: "ham" (0) for everything, each spam example a perfect suspect.
        std::vector<SuspectInput> constant;
        for (int64_t i = 0; i < 10; ++i)
            constant.push_back({i, i < 6 ? 0 : 1, {0.49, 0.5, 0.49}, {0, 0, 0}});
        const LearnedCheck c = learnedCheck(constant);
        QVERIFY(!c.learned);
        QCOMPARE(c.last_accuracy, 0.6);
        QCOMPARE(c.majority_share, 0.6);
        QVERIFY(findSuspects(constant).empty());
        SuspectRule anyway;
        anyway.require_learned = false;
        QCOMPARE(findSuspects(constant, anyway).size(), size_t(4));
    }

    void topKAndBadRows()
    {
        const std::vector<Suspect> all = findSuspects(rows());
        const std::vector<Suspect> two = topSuspects(all, 2);
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(two[0].index, int64_t(5));
        QCOMPARE(two[1].index, int64_t(8));
        QCOMPARE(topSuspects(all, 0).size(), size_t(6));
        QCOMPARE(topSuspects(all, 100).size(), size_t(6));
        QVERIFY(findSuspects({}).empty());
        try {
            findSuspects({{12, 0, {0.1, 0.2}, {1}}});
            QFAIL("arrays of different lengths were accepted");
        } catch (const std::invalid_argument &e) {
            QCOMPARE(std::string(e.what()), std::string("training example 12: 2 probabilities but 1 predictions"));
        }
    }
};

QTEST_APPLESS_MAIN(tst_Suspects)
#include "tst_suspects.moc"
