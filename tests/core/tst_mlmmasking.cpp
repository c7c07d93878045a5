// SPDX-License-Identifier: Apache-2.0
// applyMlmMasking (core/data/mlmmasking.h): google-research/bert's create_masked_lm_predictions.
#include "core/data/mlmmasking.h"
#include "core/util/error.h"

#include <QtTest>

#include <set>

using namespace wb;

namespace {

constexpr int32_t kPad = 0, kCls = 2, kSep = 3, kMask = 4;
constexpr int32_t kFirstWord = 5;

// 30000 tokens: the specials, then "w<i>" words, every third one also as a "##" piece.
Vocab bigVocab()
{
    std::vector<std::string> t = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (int i = 0; t.size() < 30000; ++i)
        t.push_back(i % 3 == 2 ? "##p" + std::to_string(i) : "w" + std::to_string(i));
    return Vocab::fromTokens(t);
}

bool isPiece(const Vocab &v, int64_t id)
{
    return v.token(int32_t(id)).rfind("##", 0) == 0;
}

// [CLS] n random tokens [SEP] padding up to L (optionally a second [SEP] in the middle).
void makeSequence(std::mt19937_64 &g, const Vocab &v, int64_t L, int64_t n, bool pair, std::vector<int64_t> &ids,
                  std::vector<int64_t> &mask)
{
    ids.assign(size_t(L), kPad);
    mask.assign(size_t(L), 0);
    ids[0] = kCls;
    for (int64_t i = 1; i <= n; ++i)
        ids[size_t(i)] = kFirstWord + int64_t(g() % uint64_t(v.size() - kFirstWord));
    ids[size_t(n + 1)] = kSep;
    if (pair && n > 4)
        ids[size_t(n / 2)] = kSep;
    for (int64_t i = 0; i <= n + 1; ++i)
        mask[size_t(i)] = 1;
}

} // namespace

class tst_MlmMasking : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// 15 % of the real tokens ± 0.5, 80/10/10 ± 1 %, never [CLS]/[SEP]/padding, sorted positions.
    void statisticsOnALargeSample()
    {
        const Vocab v = bigVocab();
        MlmMaskingOptions o; // 0.15, P = 20
        std::mt19937_64 rng(7), g(11);
        int64_t candidates = 0, masked = 0, toMask = 0, kept = 0, random = 0;
        std::vector<int64_t> ids, mask;
        for (int s = 0; s < 20000; ++s) {
            const int64_t L = 128, n = 40 + int64_t(g() % 87); // 40..126 real tokens
            makeSequence(g, v, L, n, s % 2 == 1, ids, mask);
            const MlmMasked m = applyMlmMasking(ids, mask, v, o, rng);
            QCOMPARE(m.input_ids.size(), size_t(L));
            QCOMPARE(m.masked_lm_positions.size(), size_t(20));
            QCOMPARE(m.masked_lm_ids.size(), size_t(20));
            QCOMPARE(m.masked_lm_weights.size(), size_t(20));
            int64_t cand = 0;
            for (int64_t i = 0; i < L; ++i)
                cand += mask[size_t(i)] && ids[size_t(i)] != kCls && ids[size_t(i)] != kSep ? 1 : 0;
            candidates += cand;
            int64_t count = 0, last = -1;
            std::set<int64_t> positions;
            for (size_t k = 0; k < 20; ++k) {
                if (m.masked_lm_weights[k] == 0.0f) {
                    QCOMPARE(m.masked_lm_positions[k], int64_t(0));
                    QCOMPARE(m.masked_lm_ids[k], int64_t(0));
                    continue;
                }
                QCOMPARE(m.masked_lm_weights[k], 1.0f);
                QCOMPARE(size_t(count), k); // predictions first, then padding
                const int64_t p = m.masked_lm_positions[k];
                QVERIFY(p > last); // sorted, no repeats
                last = p;
                QCOMPARE(mask[size_t(p)], int64_t(1));
                QVERIFY(ids[size_t(p)] != kCls && ids[size_t(p)] != kSep);
                QCOMPARE(m.masked_lm_ids[k], ids[size_t(p)]);
                positions.insert(p);
                ++count;
                const int64_t now = m.input_ids[size_t(p)];
                if (now == kMask)
                    ++toMask;
                else if (now == ids[size_t(p)])
                    ++kept;
                else
                    ++random;
            }
            QCOMPARE(count, mlmNumToPredict(cand, o));
            for (int64_t i = 0; i < L; ++i)
                if (!positions.count(i))
                    QCOMPARE(m.input_ids[size_t(i)], ids[size_t(i)]); // only the predicted positions change
            masked += count;
        }
        const double share = double(masked) / double(candidates);
        QVERIFY2(std::abs(share - 0.15) <= 0.005, qPrintable(QString::number(share)));
        const double pm = double(toMask) / double(masked), pk = double(kept) / double(masked),
                     pr = double(random) / double(masked);
        QVERIFY2(std::abs(pm - 0.8) <= 0.01, qPrintable(QString::number(pm)));
        QVERIFY2(std::abs(pk - 0.1) <= 0.01, qPrintable(QString::number(pk)));
        QVERIFY2(std::abs(pr - 0.1) <= 0.01, qPrintable(QString::number(pr)));
    }

    /// With whole-word masking every piece of a chosen word is masked, and the word's pieces
    /// are predicted together; without it, pieces are chosen one by one.
    void wholeWordMasksEveryPiece()
    {
        const Vocab v = bigVocab();
        MlmMaskingOptions o;
        o.whole_word_masking = true;
        std::mt19937_64 rng(3), g(5);
        std::vector<int64_t> ids, mask;
        int64_t multiPieceWordsMasked = 0;
        for (int s = 0; s < 3000; ++s) {
            makeSequence(g, v, 128, 100, false, ids, mask);
            const MlmMasked m = applyMlmMasking(ids, mask, v, o, rng);
            std::set<int64_t> chosen;
            for (size_t k = 0; k < m.masked_lm_weights.size(); ++k)
                if (m.masked_lm_weights[k] == 1.0f)
                    chosen.insert(m.masked_lm_positions[k]);
            QVERIFY(!chosen.empty());
            for (const int64_t p : chosen) {
                int64_t first = p, last = p; // the word around p
                while (first > 1 && isPiece(v, ids[size_t(first)]))
                    --first;
                while (last + 1 < 128 && mask[size_t(last + 1)] && isPiece(v, ids[size_t(last + 1)]))
                    ++last;
                for (int64_t q = first; q <= last; ++q)
                    QVERIFY2(chosen.count(q), qPrintable(QStringLiteral("position %1 of the word %2..%3 not masked")
                                                             .arg(q).arg(first).arg(last)));
                multiPieceWordsMasked += last > first ? 1 : 0;
            }
        }
        QVERIFY(multiPieceWordsMasked > 1000); // the sample has many words of several pieces
    }

    void sameRngStateGivesSameMasks()
    {
        const Vocab v = bigVocab();
        MlmMaskingOptions o;
        std::mt19937_64 g(1);
        std::vector<int64_t> ids, mask;
        makeSequence(g, v, 128, 120, false, ids, mask);
        std::mt19937_64 a(99), b(99), c(100);
        const MlmMasked ma = applyMlmMasking(ids, mask, v, o, a);
        const MlmMasked mb = applyMlmMasking(ids, mask, v, o, b);
        const MlmMasked mc = applyMlmMasking(ids, mask, v, o, c);
        QCOMPARE(ma.input_ids, mb.input_ids);
        QCOMPARE(ma.masked_lm_positions, mb.masked_lm_positions);
        QVERIFY(ma.masked_lm_positions != mc.masked_lm_positions);
        QCOMPARE(a(), b()); // the same number of draws
    }

    void numToPredictRoundsHalfToEven()
    {
        MlmMaskingOptions o;
        QCOMPARE(mlmNumToPredict(126, o), int64_t(19)); // 18.9
        QCOMPARE(mlmNumToPredict(3, o), int64_t(1));    // max(1, round(0.45))
        QCOMPARE(mlmNumToPredict(0, o), int64_t(0));
        o.masked_lm_prob = 0.25;
        QCOMPARE(mlmNumToPredict(10, o), int64_t(2)); // 2.5 → 2 (Python 3 round)
        QCOMPARE(mlmNumToPredict(30, o), int64_t(8)); // 7.5 → 8
        o.max_predictions_per_seq = 5;
        QCOMPARE(mlmNumToPredict(100, o), int64_t(5));
    }

    void onlySpecialTokensGetNoPrediction()
    {
        const Vocab v = bigVocab();
        std::mt19937_64 rng(1);
        const MlmMasked m = applyMlmMasking({kCls, kSep, kPad, kPad}, {1, 1, 0, 0}, v, {}, rng);
        QCOMPARE(m.input_ids, (std::vector<int64_t>{kCls, kSep, kPad, kPad}));
        QCOMPARE(m.masked_lm_weights, std::vector<float>(20, 0.0f));
    }

    void vocabularyWithoutMaskIsAnError()
    {
        const Vocab v = Vocab::fromTokens({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"});
        std::mt19937_64 rng(1);
        try {
            applyMlmMasking({2, 4, 3}, {1, 1, 1}, v, {}, rng);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY(std::string(e.what()).find("no [MASK]") != std::string::npos);
            QVERIFY(!e.hint().empty());
        }
        QVERIFY_THROWS_EXCEPTION(Error, applyMlmMasking({2, 4}, {1, 1, 1}, bigVocab(), {}, rng));
        QVERIFY_THROWS_EXCEPTION(Error, applyMlmMasking({2, 40000, 3}, {1, 1, 1}, bigVocab(), {}, rng));
    }
};

QTEST_APPLESS_MAIN(tst_MlmMasking)
#include "tst_mlmmasking.moc"
