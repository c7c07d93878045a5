// SPDX-License-Identifier: Apache-2.0
// The learning-rate finder must not mislead (issue 25 §3): the valley rule (fastai's), the
// minimum / 10 kept inside the tested range, and flat, noisy, rising and short curves said
// as such instead of a suggestion — on crafted curves with exact indices. Torch-free (wb_rundir).
#include "core/advice/lrfindanalysis.h"
#include "core/advice/runfacts.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace wb;

namespace {

/// Losses f(k, log10 lr) on `n` steps from `start` to `end`.
template<class F>
LrFindResult curve(int n, double start, double end, F f)
{
    LrFindResult r;
    for (int k = 0; k < n; ++k) {
        const double lr = lrFindLearningRate(k, n, start, end);
        r.steps.push_back(k + 1);
        r.learning_rates.push_back(lr);
        r.losses.push_back(f(k, std::log10(lr)));
    }
    analyzeLrFind(r);
    return r;
}

double explode(double x) { return x > -1 ? 3.0 * (x + 1) : 0.0; }

/// The facts of a range test's run from `start` (what runFactsFor gives for its options).
RunFacts factsOf(WeightsStart start, const std::string &name = std::string())
{
    RunFacts f;
    f.start = start;
    f.start_name = name;
    return f;
}

const RunFacts kRandom = factsOf(WeightsStart::Random);

/// `rate` with two significant digits as the summary writes it ("1.8e-3").
std::string lrFindSummaryRate(double rate)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", rate);
    return rateWords(std::strtod(buf, nullptr));
}

} // namespace

class tst_LrFindAnalysis : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void valleyRule()
    {
        // lds = 1 2 1 3 4 1 5 1: the longest descent ends at index 6 (5 long), starts at 6 − 5 = 1;
        // s = 5/3: 1 + 1 + 0 = 2.
        QCOMPARE(lrFindValley({5, 4, 6, 3, 2, 7, 1, 8}, 0, 8), size_t(2));
        QCOMPARE(lrFindValley({9, 5, 4, 6, 3, 2, 7, 1, 8}, 1, 9), size_t(3)); // the same, one step in
        // A straight descent of 10: max_end 9, max_start 0, s = 3: 0 + 3 + 1 = 4.
        QCOMPARE(lrFindValley({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0, 10), size_t(4));
        QCOMPARE(lrFindValley({1, 2}, 0, 2), size_t(0));
        QCOMPARE(lrFindValley({}, 0, 0), size_t(0));
        QCOMPARE(lrFindValley({3, NAN, 2, 1}, 0, 4), size_t(1)); // NaN skipped: 3 2 1 from 0 to 3
    }

    void fallThenExplode()
    {
        // 1.5 → 0.5 around lr 1e-3, exploding after 1e-1 (100 steps, 1e-7 to 1).
        const LrFindResult r = curve(100, 1e-7, 1.0, [](int, double x) {
            return 1.0 - 0.5 * std::tanh(2.0 * (x + 3.0)) + (x > -1 ? 5.0 * (x + 1) : 0.0);
        });
        QCOMPARE(r.verdict, std::string("ok"));
        QCOMPARE(r.min_index, int64_t(86));
        QCOMPARE(r.suggestion_index, int64_t(69)); // the valley of the descent, not of the flat start
        QCOMPARE(r.suggestion, r.learning_rates[69]);
        QVERIFY(std::abs(r.suggestion - 7.5646e-3) < 1e-6);
        QCOMPARE(r.min_over_10, r.learning_rates[86] / 10);
        // Both suggestions lie below the minimum, where the loss starts to diverge.
        QVERIFY(r.suggestion < r.min_loss_lr && r.min_over_10 < r.min_loss_lr);
        QVERIFY(r.steep_index > 10 && r.steep_index < r.min_index);
        QCOMPARE(lrFindVerdictText(r, kRandom), std::string());
    }

    void noisyDescent()
    {
        // 0.69 → 0.39 around 3e-3 with ±0.02 step-to-step noise (300 steps, 1e-6 to 1).
        const LrFindResult r = curve(300, 1e-6, 1.0, [](int k, double x) {
            const double noise = (k % 2 == 0 ? 0.02 : -0.02) * (k < 3 ? 2.0 : 1.0);
            return 0.69 - 0.15 * (1 + std::tanh(2.0 * (x + 2.5))) + explode(x) + noise;
        });
        QCOMPARE(r.verdict, std::string("ok"));
        QCOMPARE(r.min_index, int64_t(250));
        QCOMPARE(r.suggestion_index, int64_t(204));
        QCOMPARE(r.min_over_10, r.learning_rates[250] / 10);
    }

    void flatCurveSaysSo()
    {
        // 0.69 ± 0.01 until it explodes: nothing stands out.
        const LrFindResult r = curve(100, 1e-6, 1.0, [](int k, double x) {
            return 0.69 + (k % 2 == 0 ? 0.01 : -0.01) + explode(x);
        });
        QCOMPARE(r.verdict, std::string("flat"));
        QCOMPARE(r.suggestion, 0.0);
        QCOMPARE(r.suggestion_index, int64_t(-1));
        QCOMPARE(r.min_over_10, 0.0); // not 1/10 of a minimum at the start (4.6e-7: absurd)
        QVERIFY(r.min_index >= 10 && r.min_index < 80); // somewhere on the flat part, before it explodes
        // The run's facts decide the advice: the usual range of its start (kLearningRateRanges), the
        // finder from a decade below it; a pretrained model is offered only to a run from random weights.
        QCOMPARE(lrFindVerdictText(r, kRandom),
                 std::string("the loss curve is flat: the smoothed loss falls by less than 5 % anywhere from 1e-6 to "
                             "1, so no learning rate stands out. The usual learning rate for a model trained from "
                             "random weights is 1e-4 to 1e-3 (try 5e-4); or run the finder for 200 steps from 1e-5 "
                             "(--lr_find_steps=200 --lr_find_start=1e-5 or the dialog's fields) or with a larger "
                             "batch, or start from a pretrained model"));
    }

    void noisyCurveSaysSo()
    {
        // Falls by 0.07 (10 %) under noise of ±0.3: the drop is below the noise of single losses.
        const LrFindResult r = curve(100, 1e-6, 1.0, [](int k, double x) {
            return 0.69 - 0.05 * (1 + std::tanh(2.0 * (x + 2.5))) + (k % 3 == 0 ? 0.3 : -0.15) + explode(x);
        });
        QCOMPARE(r.verdict, std::string("noisy"));
        QCOMPARE(r.suggestion, 0.0);
        QCOMPARE(r.min_over_10, 0.0);
        QCOMPARE(r.min_index, int64_t(83));
    }

    void risingCurveSaysSo()
    {
        const LrFindResult r = curve(50, 1e-2, 10.0, [](int k, double) { return 0.7 + 0.05 * k; });
        QCOMPARE(r.verdict, std::string("rising"));
        QCOMPARE(r.suggestion, 0.0);
        QCOMPARE(lrFindVerdictText(r, kRandom),
                 std::string("the loss is lowest in the first points of the range from 0.01 to 10 (at 0.02) and "
                             "rises after: its start is already too high; lower --lr_find_start (e.g. to 1e-4, or "
                             "the dialog's field). The usual learning rate for a model trained from random weights "
                             "is 1e-4 to 1e-3 (try 5e-4)"));
    }

    /// A curve flat from a 1e-7 (or 1e-9) start up to 3e-3, rising after: its smoothed minimum
    /// sits at the first searched step, yet it does not rise from there. It is "flat" with the
    /// run's range, never "the loss only rises … lower --lr_find_start".
    void flatStartIsNotRising_data()
    {
        QTest::addColumn<double>("start");
        QTest::newRow("from 1e-7") << 1e-7;
        QTest::newRow("from 1e-9") << 1e-9;
    }

    void flatStartIsNotRising()
    {
        QFETCH(double, start);
        // A slight upward drift (0.2 % over the flat part) keeps the minimum at the first searched step.
        const LrFindResult r = curve(100, start, 1.0, [](int k, double x) {
            return 0.69 + 0.00002 * k + (x > std::log10(3e-3) ? 2.0 * (x - std::log10(3e-3)) : 0.0);
        });
        QCOMPARE(r.min_index, int64_t(10));
        QCOMPARE(r.verdict, std::string("flat"));
        QCOMPARE(r.suggestion, 0.0);
        const std::string text = lrFindSummary(r, kRandom);
        QVERIFY2(text.find("only rises") == std::string::npos && text.find("lower --lr_find_start") == std::string::npos,
                 text.c_str());
        QCOMPARE(text, "No suggestion: the loss curve is flat: the smoothed loss falls by less than 5 % anywhere from "
                           + std::string(start == 1e-7 ? "1e-7" : "1e-9")
                           + " to 1, so no learning rate stands out. The usual learning rate for a model trained from "
                             "random weights is 1e-4 to 1e-3 (try 5e-4); or run the finder for 200 steps from 1e-5 "
                             "(--lr_find_steps=200 --lr_find_start=1e-5 or the dialog's fields) or with a larger "
                             "batch, or start from a pretrained model.");
    }

    /// A run from a pretrained model is never told to use one: its flat curve names the range
    /// for fine-tuning a pretrained model and the finder from a decade below it.
    void pretrainedFlatCurveNamesItsRange()
    {
        const LrFindResult r = curve(100, 1e-7, 1.0, [](int k, double x) {
            return 0.69 + (k % 2 == 0 ? 0.01 : -0.01) + explode(x);
        });
        QCOMPARE(r.verdict, std::string("flat"));
        const std::string text = lrFindSummary(r, factsOf(WeightsStart::HubPretrained, "BERT-Tiny"));
        QCOMPARE(text, std::string("No suggestion: the loss curve is flat: the smoothed loss falls by less than 5 % "
                                   "anywhere from 1e-7 to 1, so no learning rate stands out. The usual learning rate "
                                   "for fine-tuning a pretrained model is 2e-5 to 5e-5 (try 5e-5); or run the finder "
                                   "for 200 steps from 2e-6 (--lr_find_steps=200 --lr_find_start=2e-6 or the "
                                   "dialog's fields) or with a larger batch."));
        QVERIFY(text.find("pretrained model,") == std::string::npos);
        // A start whose usual rate this program cannot know says so, and widens the finder from 1e-6.
        QCOMPARE(lrFindVerdictText(r, factsOf(WeightsStart::OtherCheckpoint, "w.safetensors")),
                 std::string("the loss curve is flat: the smoothed loss falls by less than 5 % anywhere from 1e-7 to "
                             "1, so no learning rate stands out. This program cannot know the usual learning rate of "
                             "the init checkpoint w.safetensors; or run the finder for 200 steps from 1e-6 "
                             "(--lr_find_steps=200 --lr_find_start=1e-6 or the dialog's fields) or with a larger "
                             "batch"));
    }

    /// A curve that falls only in the first searched steps and rises after (a pretrained run
    /// whose sweep starts too high) suggests none of those first test rates.
    void minimumInTheFirstPointsIsNotSuggested()
    {
        // 100 steps from 1e-5: the loss falls over the first 13 steps, then rises steeply.
        const LrFindResult r = curve(100, 1e-5, 1.0, [](int k, double) {
            return k <= 13 ? 1.0 - 0.03 * k : 1.0 - 0.03 * 13 + 0.1 * (k - 13);
        });
        QVERIFY(r.min_index >= 10 && r.min_index < 10 + kLrFindFirstPoints);
        QCOMPARE(r.verdict, std::string("rising"));
        QCOMPARE(r.suggestion, 0.0);
        QCOMPARE(r.suggestion_index, int64_t(-1));
        QCOMPARE(r.min_over_10, 0.0);
        QCOMPARE(lrFindSummary(r, factsOf(WeightsStart::HubPretrained, "BERT-Tiny")),
                 "No suggestion: the loss is lowest in the first points of the range from 1e-5 to 1 (at "
                     + lrFindSummaryRate(r.min_loss_lr)
                     + ") and rises after: its start is already too high; lower --lr_find_start (e.g. to 1e-7, or "
                       "the dialog's field). The usual learning rate for fine-tuning a pretrained model is 2e-5 to "
                       "5e-5 (try 5e-5).");
    }

    /// The summary of a curve with a suggestion: the valley and minimum / 10 with two digits, and
    /// where the valley lies outside the run's usual range, a sentence that says so.
    void summaryPlacesTheSuggestion()
    {
        const LrFindResult r = curve(100, 1e-7, 1.0, [](int, double x) {
            return 1.0 - 0.5 * std::tanh(2.0 * (x + 3.0)) + (x > -1 ? 5.0 * (x + 1) : 0.0);
        });
        QCOMPARE(r.verdict, std::string("ok"));
        QCOMPARE(lrFindSummary(r, kRandom),
                 std::string("Suggested learning rate: 7.6e-3 (the valley of the smoothed loss); minimum / 10: "
                             + lrFindSummaryRate(r.min_over_10)
                             + ". It lies above the usual range for a model trained from random weights (1e-4 to 1e-3)."));
        QVERIFY(r.suggestion_index >= 10 + kLrFindFirstPoints);
    }

    void shortTestSaysSo()
    {
        const LrFindResult r = curve(10, 1e-5, 1e-1, [](int k, double) { return 1.0 - 0.05 * k; });
        QCOMPARE(r.verdict, std::string("short"));
        QCOMPARE(r.suggestion, 0.0);
    }

    /// Curves recorded on real data (docs/benchmarks.md, "The learning-rate finder on real data":
    /// 200 SpamAssassin mails per label, max_seq_length 64, batch 16, BERT-Tiny from random
    /// weights): the default test (100 steps from 1e-7) is flat and suggests nothing; the test its
    /// message proposes (200 steps from 1e-5, stopped when the loss diverged) has a valley whose
    /// rate trained a non-constant classifier (eval accuracy 0.89 and 0.82). The analysis of the
    /// recorded losses gives back what the product wrote then, index for index.
    void recordedRealCurves_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<double>("suggestion");
        QTest::addColumn<double>("minOver10");
        QTest::newRow("spam-ham, 100 from 1e-7") << "spam-ham-find1.json" << "flat" << 0.0 << 0.0;
        QTest::newRow("easy-hard, 100 from 1e-7") << "easy-hard-find1.json" << "flat" << 0.0 << 0.0;
        QTest::newRow("spam-ham, 200 from 1e-5") << "spam-ham-find2.json" << "ok" << 0.0018251834943190436
                                                 << 0.00030721129988617573;
        QTest::newRow("easy-hard, 200 from 1e-5") << "easy-hard-find2.json" << "ok" << 0.0030721129988617573
                                                  << 0.000690551352016233;
    }

    void recordedRealCurves()
    {
        QFETCH(QString, file);
        QFETCH(QString, verdict);
        QFETCH(double, suggestion);
        QFETCH(double, minOver10);
        const auto saved = readLrFindJson(std::string(WB_TEST_DATA_DIR) + "/lrfind/" + file.toStdString());
        QVERIFY(saved);
        LrFindResult r = *saved;
        analyzeLrFind(r);
        QCOMPARE(r.verdict, verdict.toStdString());
        QCOMPARE(r.suggestion, suggestion);
        QCOMPARE(r.min_over_10, minOver10);
        QCOMPARE(r.suggestion, saved->suggestion);
        QCOMPARE(r.steep, saved->steep);
        QCOMPARE(r.min_loss_lr, saved->min_loss_lr);
        for (size_t k = 0; k < r.smoothed.size(); ++k)
            QCOMPARE(float(r.smoothed[k]), float(saved->smoothed[k])); // as written (JSON's shortest form)
        if (verdict == QLatin1String("ok")) {
            // Both suggestions lie below the minimum, the cautious one below the valley.
            QVERIFY(r.suggestion < r.min_loss_lr);
            QVERIFY(r.min_over_10 < r.suggestion);
            QCOMPARE(r.suggestion, r.learning_rates[size_t(r.suggestion_index)]);
        } else {
            QCOMPARE(r.suggestion_index, int64_t(-1));
            QVERIFY(lrFindVerdictText(r, kRandom).find("--lr_find_start=1e-5") != std::string::npos);
        }
    }

    void verdictRoundTrips()
    {
        LrFindResult r = curve(100, 1e-6, 1.0, [](int k, double x) { return 0.69 + (k % 2 == 0 ? 0.01 : -0.01) + explode(x); });
        const LrFindResult back = parseLrFindJson(lrFindJson(r), "lr_find.json");
        QCOMPARE(back.verdict, std::string("flat"));
        QCOMPARE(back.steep, r.steep);
        QVERIFY(lrFindJson(r).find("\"suggestion_rule\": \"valley\"") != std::string::npos);
        // An older file without the keys reads as "ok".
        const LrFindResult old = parseLrFindJson(R"({"learning_rates":[1e-4],"losses":[0.7]})", "old.json");
        QCOMPARE(old.verdict, std::string("ok"));
    }

    /// A rate the curve does not give is null in lr_find.json, never 0 (issue 41: a reader took
    /// "suggestion": 0.0 for a learning rate), for each verdict that gives none and for a test
    /// with no step; the reader gives it back as none (0), as it reads the 0 of older files.
    void absentRatesAreNullNotZero_data()
    {
        QTest::addColumn<QString>("verdict");
        QTest::newRow("flat") << "flat";
        QTest::newRow("noisy") << "noisy";
        QTest::newRow("rising") << "rising";
        QTest::newRow("short") << "short";
        QTest::newRow("no step") << "short";
    }

    void absentRatesAreNullNotZero()
    {
        QFETCH(QString, verdict);
        const std::string row = QTest::currentDataTag();
        LrFindResult r;
        if (row == "flat")
            r = curve(100, 1e-6, 1.0, [](int k, double x) { return 0.69 + (k % 2 == 0 ? 0.01 : -0.01) + explode(x); });
        else if (row == "noisy")
            r = curve(100, 1e-6, 1.0, [](int k, double x) {
                return 0.69 - 0.05 * (1 + std::tanh(2.0 * (x + 2.5))) + (k % 3 == 0 ? 0.3 : -0.15) + explode(x);
            });
        else if (row == "rising")
            r = curve(50, 1e-2, 10.0, [](int k, double) { return 0.7 + 0.05 * k; });
        else if (row == "short")
            r = curve(10, 1e-5, 1e-1, [](int k, double) { return 1.0 - 0.05 * k; });
        else
            analyzeLrFind(r);
        QCOMPARE(r.verdict, verdict.toStdString());
        const std::string text = lrFindJson(r);
        const auto j = nlohmann::json::parse(text);
        QVERIFY2(j.at("suggestion").is_null(), text.c_str());
        QVERIFY2(j.at("min_over_10").is_null(), text.c_str());
        for (const auto &[key, value] : j.items()) // no rate, no flag, no count of this file is a 0
            QVERIFY2(!(value.is_number() && value.get<double>() == 0), key.c_str());
        if (row == "no step") { // nothing was measured: no minimum, no steepest descent either
            QVERIFY(j.at("min_loss_lr").is_null());
            QVERIFY(j.at("steep").is_null());
            return; // (a file of no step is refused by the reader: lrFindErrors)
        } else { // the curve has a minimum and a steepest descent, shown though not suggested
            QCOMPARE(j.at("min_loss_lr").get<double>(), r.min_loss_lr);
            QCOMPARE(j.at("steep").get<double>(), r.steep);
        }
        const LrFindResult back = parseLrFindJson(text, "lr_find.json");
        QCOMPARE(back.suggestion, 0.0);
        QCOMPARE(back.min_over_10, 0.0);
        QCOMPARE(back.min_loss_lr, r.min_loss_lr);
        QCOMPARE(back.verdict, r.verdict);
        QVERIFY(lrFindVerdictText(back, kRandom) == lrFindVerdictText(r, kRandom));
    }

    void suggestionIsANumberWhenThereIsOne()
    {
        const LrFindResult r = curve(100, 1e-6, 1.0, [](int, double x) { return 0.7 - 0.3 * std::tanh(x + 3.0) + explode(x); });
        QCOMPARE(r.verdict, std::string("ok"));
        QVERIFY(r.suggestion > 0);
        const auto j = nlohmann::json::parse(lrFindJson(r));
        QCOMPARE(j.at("suggestion").get<double>(), r.suggestion);
        // Files of earlier releases wrote 0 for none; null and 0 read alike.
        const LrFindResult zero = parseLrFindJson(
            R"({"learning_rates":[1e-4],"losses":[0.7],"suggestion":0.0,"min_over_10":null,"steep":0,"verdict":"short"})",
            "old.json");
        QCOMPARE(zero.suggestion, 0.0);
        QCOMPARE(zero.min_over_10, 0.0);
        QCOMPARE(zero.steep, 0.0);
    }
};

QTEST_GUILESS_MAIN(tst_LrFindAnalysis)
#include "tst_lrfindanalysis.moc"
