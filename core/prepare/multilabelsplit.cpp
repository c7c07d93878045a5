// SPDX-License-Identifier: Apache-2.0
// Multi-label data after the split: iterative stratification (Sechidis, Tsoumakas & Vlahavas
// 2011, "On the stratification of multi-label data", Algorithm 1) and what the report says about
// the label sets (docs/multi-label.md, "The report").
#include "core/prepare/preparemultilabel.h"
#include "core/prepare/preparesplit.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace wb::prep {

namespace {

constexpr int kTrain = 0, kEval = 1;

// The state of Algorithm 1 for two subsets: how many texts, and of each label, each side still wants.
struct Stratifier
{
    const std::vector<std::vector<int64_t>> &sets;
    std::mt19937_64 rng;
    double want[2] = {0, 0};
    std::vector<double> wantLabel[2];
    std::vector<int> side; // -1: not yet placed

    int choose(size_t label)
    {
        const double a = wantLabel[kTrain][label], b = wantLabel[kEval][label];
        if (a != b)
            return a > b ? kTrain : kEval;
        if (want[kTrain] != want[kEval])
            return want[kTrain] > want[kEval] ? kTrain : kEval;
        return int(rng() % 2);
    }

    void place(size_t i, int s)
    {
        side[i] = s;
        want[s] -= 1;
        for (const int64_t k : sets[i])
            wantLabel[s][size_t(k)] -= 1;
    }
};

// Moves one text of each label with 2+ texts that is missing on a side over from the other
// side, when none of that text's labels loses its last text there.
void repairMissing(const std::vector<std::vector<int64_t>> &sets, size_t numLabels, std::vector<int> &side)
{
    for (int to : {kEval, kTrain}) {
        const int from = 1 - to;
        std::vector<int64_t> on[2] = {std::vector<int64_t>(numLabels, 0), std::vector<int64_t>(numLabels, 0)};
        for (size_t i = 0; i < sets.size(); ++i)
            for (const int64_t k : sets[i])
                ++on[side[i]][size_t(k)];
        for (size_t l = 0; l < numLabels; ++l) {
            if (on[to][l] > 0 || on[from][l] < 2)
                continue;
            for (size_t i = 0; i < sets.size(); ++i) {
                if (side[i] != from || std::find(sets[i].begin(), sets[i].end(), int64_t(l)) == sets[i].end())
                    continue;
                if (std::any_of(sets[i].begin(), sets[i].end(), [&](int64_t k) { return on[from][size_t(k)] < 2; }))
                    continue;
                side[i] = to;
                for (const int64_t k : sets[i]) {
                    --on[from][size_t(k)];
                    ++on[to][size_t(k)];
                }
                break;
            }
        }
    }
}

} // namespace

std::vector<bool> iterativeStratification(const std::vector<std::vector<int64_t>> &labelSets, size_t numLabels,
                                          size_t nEval, uint64_t seed)
{
    const size_t n = labelSets.size();
    std::vector<bool> eval(n, false);
    if (n == 0 || nEval == 0)
        return eval;
    Stratifier st{labelSets, std::mt19937_64(seed), {double(n - std::min(n, nEval)), double(std::min(n, nEval))},
                  {std::vector<double>(numLabels, 0.0), std::vector<double>(numLabels, 0.0)}, std::vector<int>(n, -1)};
    std::vector<std::vector<size_t>> textsOf(numLabels);
    for (size_t i = 0; i < n; ++i)
        for (const int64_t k : labelSets[i])
            textsOf[size_t(k)].push_back(i);
    std::vector<size_t> left(numLabels, 0);
    for (size_t l = 0; l < numLabels; ++l) {
        const size_t count = textsOf[l].size();
        left[l] = count;
        double e = double(count) * st.want[kEval] / double(n);
        if (count >= 2)
            e = std::clamp(e, 1.0, double(count - 1));
        st.wantLabel[kEval][l] = e;
        st.wantLabel[kTrain][l] = double(count) - e;
    }
    for (;;) {
        size_t label = numLabels;
        for (size_t l = 0; l < numLabels; ++l)
            if (left[l] > 0 && (label == numLabels || left[l] < left[label]))
                label = l;
        if (label == numLabels)
            break;
        for (const size_t i : textsOf[label]) {
            if (st.side[i] >= 0)
                continue;
            st.place(i, st.choose(label));
            for (const int64_t k : labelSets[i])
                --left[size_t(k)];
        }
    }
    for (size_t i = 0; i < n; ++i)
        if (st.side[i] < 0)
            st.place(i, st.want[kTrain] != st.want[kEval] ? (st.want[kTrain] > st.want[kEval] ? kTrain : kEval)
                                                         : int(st.rng() % 2));
    repairMissing(labelSets, numLabels, st.side);
    for (size_t i = 0; i < n; ++i)
        eval[i] = st.side[i] == kEval;
    return eval;
}

namespace {

// Label counts and cardinality of one side; returns the texts with no label.
int64_t countSide(const SourceSplits &src, const std::vector<Job *> &jobs, std::map<std::string, int64_t> &counts,
                  double &cardinality)
{
    int64_t labels = 0, none = 0;
    for (const Job *j : jobs) {
        labels += int64_t(j->ex->label_ids.size());
        none += j->ex->label_ids.empty() ? 1 : 0;
        for (const int64_t id : j->ex->label_ids)
            ++counts[src.labels[size_t(id)]];
    }
    cardinality = jobs.empty() ? 0.0 : double(labels) / double(jobs.size());
    return none;
}

// The most frequent label pairs over train and eval, and the distinct label sets.
void countPairs(const SourceSplits &src, const Sorted &d, MultiLabelReport &m)
{
    std::map<std::pair<int64_t, int64_t>, int64_t> pairs;
    std::set<std::vector<int64_t>> sets;
    for (const std::vector<Job *> *side : {&d.train, &d.eval})
        for (const Job *j : *side) {
            const std::vector<int64_t> &ids = j->ex->label_ids;
            sets.insert(ids);
            for (size_t a = 0; a < ids.size(); ++a)
                for (size_t b = a + 1; b < ids.size(); ++b)
                    ++pairs[{ids[a], ids[b]}];
        }
    m.distinct_label_sets = int64_t(sets.size());
    std::vector<std::pair<std::pair<int64_t, int64_t>, int64_t>> sorted(pairs.begin(), pairs.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &x, const auto &y) { return x.second > y.second; });
    for (size_t k = 0; k < sorted.size() && k < kReportedPairs; ++k)
        m.cooccurrence.push_back({src.labels[size_t(sorted[k].first.first)], src.labels[size_t(sorted[k].first.second)],
                                  sorted[k].second});
}

} // namespace

void reportMultiLabel(const SourceSplits &src, const Sorted &d, PrepareReport &rep)
{
    MultiLabelReport m;
    m.reading = src.label_reading;
    m.delimiter = src.label_delimiter;
    rep.train_label_counts.clear();
    rep.eval_label_counts.clear();
    m.train_no_label_texts = countSide(src, d.train, rep.train_label_counts, m.train_label_cardinality);
    m.eval_no_label_texts = countSide(src, d.eval, rep.eval_label_counts, m.eval_label_cardinality);
    m.no_label_texts = m.train_no_label_texts + m.eval_no_label_texts;
    const size_t texts = d.train.size() + d.eval.size();
    m.label_cardinality = texts == 0 ? 0.0
                                     : (m.train_label_cardinality * double(d.train.size())
                                        + m.eval_label_cardinality * double(d.eval.size()))
                                           / double(texts);
    countPairs(src, d, m);
    for (const std::string &l : src.labels) {
        const auto t = rep.train_label_counts.find(l), e = rep.eval_label_counts.find(l);
        const int64_t nt = t == rep.train_label_counts.end() ? 0 : t->second;
        const int64_t ne = e == rep.eval_label_counts.end() ? 0 : e->second;
        if (nt + ne == 0)
            m.never_present.push_back(l);
        if (texts > 0 && size_t(nt + ne) == texts)
            m.always_present.push_back(l);
        if (!d.eval.empty() && nt + ne >= 2 && ne == 0)
            m.missing_in_eval.push_back(l);
    }
    if (m.no_label_texts > 0)
        rep.warnings.push_back(std::to_string(m.no_label_texts) + " text(s) have no label (" + std::to_string(m.train_no_label_texts)
                               + " train, " + std::to_string(m.eval_no_label_texts)
                               + " eval); they are kept with all label_ids 0 and teach the model when no label applies");
    rep.multi_label = std::move(m);
}

} // namespace wb::prep
