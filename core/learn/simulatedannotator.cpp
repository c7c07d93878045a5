// SPDX-License-Identifier: Apache-2.0
// The simulated annotator: the labelling loop with gold labels standing in for the user.
#include "core/learn/simulatedannotator.h"

#include "core/events/stoptoken.h"
#include "core/label/labelstore.h"
#include "core/util/error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>

namespace wb {

namespace fs = std::filesystem;

namespace {

void checkSimulation(const SimulationSettings &s, const std::vector<GoldText> &pool, const std::vector<GoldText> &eval)
{
    const auto &strategies = labelQueueStrategies();
    if (std::find(strategies.begin(), strategies.end(), s.strategy) == strategies.end())
        throw Error("strategy", "unknown order '" + s.strategy + "'", "use uncertain_diverse or random");
    if (s.batch_size < 1 || s.max_labels < 1)
        throw Error(s.batch_size < 1 ? "batch_size" : "max_labels", "must be at least 1", "use e.g. 10 and 200");
    if (s.measure_every < 0 || s.measure_every % s.batch_size != 0)
        throw Error("measure_every", "must be a multiple of batch_size (" + std::to_string(s.batch_size) + ")",
                    "use e.g. " + std::to_string(s.batch_size * 5));
    const std::set<std::string> names(s.cycle.label_names.begin(), s.cycle.label_names.end());
    for (const auto *set : {&pool, &eval})
        for (size_t i = 0; i < set->size(); ++i)
            if (!names.count((*set)[i].label))
                throw Error(std::string(set == &pool ? "pool" : "eval") + " text " + std::to_string(i + 1),
                            "its label '" + (*set)[i].label + "' is not one of the labels given",
                            "list every label of the data");
    if (eval.empty())
        throw Error("eval", "the simulation needs a labelled eval set to measure the models on",
                    "pass the eval texts with their labels");
}

std::string labelsDirName(int64_t labels)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "labels-%05lld", static_cast<long long>(labels));
    return buf;
}

} // namespace

std::vector<CurvePoint> simulateAnnotator(const SimulationSettings &s, const std::vector<GoldText> &pool,
                                          const std::vector<GoldText> &eval, const StopToken &stop,
                                          const std::function<void(const CurvePoint &)> &onPoint)
{
    checkSimulation(s, pool, eval);
    fs::create_directories(s.work_dir);
    const std::string labelsPath = labelSessionLabelsPath(s.work_dir);
    std::error_code ec;
    fs::remove(labelsPath, ec);
    fs::remove(labelSessionCurvePath(s.work_dir), ec);
    LabelStore store = LabelStore::open(labelsPath);

    std::vector<std::string> texts;
    for (const GoldText &g : pool)
        texts.push_back(g.text);
    LabelCycleSettings cycleSettings = s.cycle;
    cycleSettings.rescore_pool = s.strategy != "random";
    LabelCycle cycle(cycleSettings, s.strategy == "random" ? std::vector<std::string>{} : texts);
    std::vector<CycleText> evalTexts;
    for (const GoldText &g : eval)
        evalTexts.push_back({g.text, g.label});

    LabelSessionSettings plan;
    plan.strategy = s.strategy;
    plan.seed = s.cycle.seed;
    plan.held_out_every = 0; // the gold eval set measures; no pool text is held out
    const size_t n = pool.size();
    std::vector<bool> labelled(n, false), heldOut(n, false);
    std::vector<CycleText> train;
    CycleResult last;
    bool haveScores = false;
    std::vector<CurvePoint> curve;
    const int64_t every = s.measure_every > 0 ? s.measure_every : s.batch_size;
    while (int64_t(train.size()) < s.max_labels && train.size() < n) {
        if (stop.stopRequested())
            throw Error("label cycle", "cancelled", "");
        const int64_t want = std::min<int64_t>(s.batch_size, s.max_labels - int64_t(train.size()));
        const PoolScores none;
        const bool useScores = haveScores && s.strategy != "random";
        for (const int64_t i : planNextTexts(plan, useScores ? last.scores : none, labelled, heldOut,
                                             int64_t(train.size()), want)) {
            const GoldText &g = pool[size_t(i)];
            const std::string suggested =
                last.predicted.empty() ? "" : s.cycle.label_names[size_t(last.predicted[size_t(i)])];
            store.append({g.text, g.label, "pool", i + 1, labelTimeNow(), suggested, 0});
            labelled[size_t(i)] = true;
            train.push_back({g.text, g.label});
        }
        const int64_t count = int64_t(train.size());
        const bool measure = count % every == 0 || count >= s.max_labels;
        std::set<std::string> seen;
        for (const CycleText &t : train)
            seen.insert(t.label);
        if ((!measure && s.strategy == "random") || seen.size() < 2)
            continue;
        const auto t0 = std::chrono::steady_clock::now();
        last = cycle.run((fs::path(labelSessionCyclesDir(s.work_dir)) / labelsDirName(count)).string(), train,
                         evalTexts, stop);
        haveScores = true;
        if (!measure)
            continue;
        CurvePoint p;
        p.labels = p.train_labels = count;
        p.eval_examples = int64_t(eval.size());
        p.eval_source = "gold";
        p.accuracy = last.eval_accuracy;
        p.bag_of_words_accuracy = last.bag_of_words_accuracy;
        p.strategy = s.strategy;
        p.seed = s.cycle.seed;
        p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        p.seconds_train = last.seconds_train;
        p.seconds_score = last.seconds_score;
        p.model_dir = last.model_dir;
        appendCurvePoint(labelSessionCurvePath(s.work_dir), p);
        curve.push_back(p);
        if (onPoint)
            onPoint(p);
    }
    return curve;
}

} // namespace wb
