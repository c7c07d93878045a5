// SPDX-License-Identifier: Apache-2.0
// Issue 47 (label to learn): the queue of what to label next (core/label/labelqueue.h): margin
// sampling then greedy k-centre, exact picks on small hand-made pools; the seeded random order.
#include "core/label/labelqueue.h"
#include "core/util/error.h"

#include <QtTest>

#include <algorithm>

using namespace wb;

class tst_LabelQueue : public QObject
{
    Q_OBJECT

    // A pool of 2-D embeddings with two classes: text i has probabilities (p[i], 1 - p[i]).
    static PoolScores pool(const std::vector<float> &p, const std::vector<std::pair<float, float>> &xy)
    {
        PoolScores s;
        s.n = int64_t(p.size());
        s.num_labels = 2;
        s.dim = 2;
        for (size_t i = 0; i < p.size(); ++i) {
            s.probabilities.insert(s.probabilities.end(), {p[i], 1.0f - p[i]});
            s.embeddings.insert(s.embeddings.end(), {xy[i].first, xy[i].second});
        }
        return s;
    }

    static std::string errorOf(const PoolScores &s, int64_t b, QueueOptions o = {})
    {
        try {
            pickUncertainDiverse(s, b, o);
        } catch (const Error &e) {
            return e.field() + " | " + e.what();
        }
        return "no error";
    }

private Q_SLOTS:
    void marginsAreTopOneMinusTopTwo()
    {
        PoolScores s;
        s.n = 3;
        s.num_labels = 3;
        s.dim = 1;
        s.probabilities = {0.75f, 0.25f, 0.0f, 0.25f, 0.5f, 0.25f, 0.125f, 0.125f, 0.75f};
        s.embeddings = {0, 0, 0};
        QCOMPARE(predictionMargins(s), (std::vector<double>{0.5, 0.25, 0.625}));
    }

    /// Two tight clusters of uncertain texts: a batch of two takes one text from each, the first
    /// being the lowest margin of all, the second the one farthest from it.
    void twoClustersGiveOnePickEach()
    {
        //                 0: A      1: A       2: A       3: B         4: B          5: B
        const PoolScores s = pool({0.55f, 0.5f, 0.52f, 0.53f, 0.54f, 0.56f},
                                  {{0, 0}, {0.1f, 0}, {0, 0.3f}, {10, 10}, {10.1f, 10}, {10, 10.1f}});
        // Margins 0.1, 0, 0.04, 0.06, 0.08, 0.12: text 1 first; from (0.1, 0) the squared distances
        // to B are 198.01 (3), 200 (4), 200.02 (5).
        QCOMPARE(pickUncertainDiverse(s, 2), (std::vector<int64_t>{1, 5}));
        // Then the text farthest from both: 2 (squared 0.1 from 1; 0 and 3 are 0.01 from a pick, 4 0.02).
        QCOMPARE(pickUncertainDiverse(s, 3), (std::vector<int64_t>{1, 5, 2}));
    }

    /// Texts labelled before are centres too: a candidate near them is not picked again.
    void labelledTextsAreCentres()
    {
        //                       0: A      1: A       2: A       3: B         4: B          5: B        6: C
        PoolScores s = pool({0.55f, 0.5f, 0.52f, 0.53f, 0.54f, 0.56f, 0.57f},
                            {{0, 0}, {0.1f, 0}, {0, 0.3f}, {10, 10}, {10.1f, 10}, {10, 10.1f}, {0, 10}});
        // From text 1, (0.1, 0): B's 5 is 200.02 away, C's 6 only 100.01.
        QCOMPARE(pickUncertainDiverse(s, 2), (std::vector<int64_t>{1, 5}));
        // A text at (10, 10) is labelled: B is then at most 0.02 from it, C 100 (and 100.01 from 1).
        s.labelled_embeddings = {10, 10};
        QCOMPARE(pickUncertainDiverse(s, 2), (std::vector<int64_t>{1, 6}));
        s.labelled_embeddings = {10, 10, 0};
        QCOMPARE(errorOf(s, 2),
                 std::string("pool scores: labelled_embeddings | expected a multiple of dim = 2 values, got 3"));
        s.labelled_embeddings = {10, 10, 0, std::numeric_limits<float>::quiet_NaN()};
        QCOMPARE(errorOf(s, 2), std::string("labelled text 1 | embedding component 1 is nan"));
    }

    /// Only the m = candidate_factor * b lowest margins are candidates: a sure text far away is
    /// never picked, however far.
    void onlyTheUncertainAreCandidates()
    {
        std::vector<float> p;
        std::vector<std::pair<float, float>> xy;
        for (int i = 0; i < 30; ++i) { // texts 0..29: margins 0.02·i, all at about the origin
            p.push_back(0.5f + 0.01f * float(i));
            xy.push_back({0.001f * float(i), 0});
        }
        p.push_back(0.99f); // text 30: sure of itself, far away
        xy.push_back({100, 100});
        const PoolScores s = pool(p, xy);
        // b = 2, m = 20: the candidates are 0..19; after 0, the farthest of them is 19.
        QCOMPARE(pickUncertainDiverse(s, 2), (std::vector<int64_t>{0, 19}));
        // m = 2 (factor 1): the two lowest margins, whatever the distances.
        QCOMPARE(pickUncertainDiverse(s, 2, QueueOptions{1}), (std::vector<int64_t>{0, 1}));
        // m = n: the far, sure text is the farthest candidate.
        QCOMPARE(pickUncertainDiverse(s, 2, QueueOptions{100}), (std::vector<int64_t>{0, 30}));
    }

    /// Equal margins: the lower index comes first; equal distances: the earlier candidate.
    void tiesGoToTheLowerIndex()
    {
        const PoolScores same = pool({0.5f, 0.5f, 0.5f, 0.5f}, {{1, 1}, {1, 1}, {1, 1}, {1, 1}});
        QCOMPARE(pickUncertainDiverse(same, 3), (std::vector<int64_t>{0, 1, 2}));
        // Text 2 has the lowest margin; 0, 1 and 3 are all at distance 1 from it: 3 (margin 0.1, the
        // lowest of them); then 0 and 1 are both 1 from {2, 3}: 0 (margin 0.2 < 0.4).
        const PoolScores ties = pool({0.6f, 0.7f, 0.5f, 0.55f}, {{1, 0}, {0, 1}, {0, 0}, {0, -1}});
        QCOMPARE(pickUncertainDiverse(ties, 3), (std::vector<int64_t>{2, 3, 0}));
    }

    void batchLargerThanPoolTakesAll()
    {
        const PoolScores s = pool({0.9f, 0.5f, 0.7f}, {{0, 0}, {1, 0}, {5, 0}});
        QCOMPARE(pickUncertainDiverse(s, 10), (std::vector<int64_t>{1, 2, 0}));
        QCOMPARE(pickUncertainDiverse(s, 0), std::vector<int64_t>{});
        PoolScores empty;
        empty.num_labels = 2;
        empty.dim = 4;
        QCOMPARE(pickUncertainDiverse(empty, 5), std::vector<int64_t>{});
    }

    void badInputsAreErrorsNamingTheText()
    {
        PoolScores s = pool({0.5f, 0.6f, 0.7f, 0.8f}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}});
        s.probabilities[3 * 2 + 1] = std::numeric_limits<float>::quiet_NaN();
        QCOMPARE(errorOf(s, 2), std::string("pool text 3 | the probability of label 1 is nan"));
        s = pool({0.5f, 0.6f}, {{0, 0}, {1, 0}});
        s.embeddings[1 * 2 + 0] = std::numeric_limits<float>::infinity();
        QCOMPARE(errorOf(s, 1), std::string("pool text 1 | embedding component 0 is inf"));
        s = pool({0.5f, 0.6f}, {{0, 0}, {1, 0}});
        s.embeddings.pop_back();
        QCOMPARE(errorOf(s, 1), std::string("pool scores: embeddings | expected n * dim = 4 values, got 3"));
        s = pool({0.5f, 0.6f}, {{0, 0}, {1, 0}});
        s.num_labels = 1;
        QCOMPARE(errorOf(s, 1), std::string("pool scores: num_labels | the model has 1 classes"));
        s = pool({0.5f, 0.6f}, {{0, 0}, {1, 0}});
        QCOMPARE(errorOf(s, -1), std::string("batch size | the batch size is -1"));
        QCOMPARE(errorOf(s, 1, QueueOptions{0}), std::string("candidate_factor | the candidate factor is 0"));
    }

    /// The random order is a Fisher–Yates shuffle on std::mt19937_64: fixed by the seed, on
    /// every standard library.
    void randomOrderIsFixedBySeed()
    {
        const std::vector<int64_t> a = randomOrder(10, 42);
        QCOMPARE(a, (std::vector<int64_t>{1, 7, 9, 0, 3, 8, 4, 2, 5, 6}));
        std::vector<int64_t> sorted = a;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        QCOMPARE(randomOrder(10, 42), a);
        QVERIFY(randomOrder(10, 43) != a);
        QCOMPARE(randomOrder(0, 1), std::vector<int64_t>{});
        QCOMPARE(randomOrder(1, 1), std::vector<int64_t>{0});
    }
};

QTEST_APPLESS_MAIN(tst_LabelQueue)
#include "tst_labelqueue.moc"
