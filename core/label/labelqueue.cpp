// SPDX-License-Identifier: Apache-2.0
// What to label next (core/label/labelqueue.h): margin sampling, then greedy k-centre.
#include "core/label/labelqueue.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

namespace wb {

namespace {

void checkShapes(const PoolScores &s)
{
    if (s.n < 0)
        throw Error("pool scores: n", "the pool size is " + std::to_string(s.n), "Pass the number of pool texts (>= 0)");
    if (s.num_labels < 2)
        throw Error("pool scores: num_labels", "the model has " + std::to_string(s.num_labels) + " classes",
                    "Create at least two labels before the queue ranks texts by uncertainty");
    if (s.dim < 1)
        throw Error("pool scores: dim", "the embedding size is " + std::to_string(s.dim),
                    "Pass each text's embedding (e.g. the [CLS] vector)");
    if (int64_t(s.probabilities.size()) != s.n * s.num_labels)
        throw Error("pool scores: probabilities",
                    "expected n * num_labels = " + std::to_string(s.n * s.num_labels) + " values, got "
                        + std::to_string(s.probabilities.size()),
                    "Pass one row of class probabilities per pool text");
    if (int64_t(s.embeddings.size()) != s.n * s.dim)
        throw Error("pool scores: embeddings",
                    "expected n * dim = " + std::to_string(s.n * s.dim) + " values, got "
                        + std::to_string(s.embeddings.size()),
                    "Pass one embedding per pool text");
    if (s.labelled_embeddings.size() % size_t(s.dim) != 0)
        throw Error("pool scores: labelled_embeddings",
                    "expected a multiple of dim = " + std::to_string(s.dim) + " values, got "
                        + std::to_string(s.labelled_embeddings.size()),
                    "Pass one embedding per labelled text");
}

double squaredDistance(const float *a, const float *b, int64_t dim)
{
    double d = 0.0;
    for (int64_t k = 0; k < dim; ++k) {
        const double x = double(a[k]) - double(b[k]);
        d += x * x;
    }
    return d;
}

// Every value of `values` ([rows, dim]) is finite; else an error naming "<what> <row>".
void checkFinite(const std::vector<float> &values, int64_t dim, const char *what)
{
    for (size_t v = 0; v < values.size(); ++v)
        if (!std::isfinite(values[v]))
            throw Error(std::string(what) + " " + std::to_string(int64_t(v) / dim),
                        "embedding component " + std::to_string(int64_t(v) % dim) + " is " + std::to_string(values[v]),
                        "Score the pool again; a model whose outputs are not finite needs a lower learning rate");
}

// Each candidate's squared distance to the nearest labelled text (infinity without any).
std::vector<double> distanceToLabelled(const PoolScores &s, const std::vector<int64_t> &candidates)
{
    std::vector<double> nearest(candidates.size(), std::numeric_limits<double>::infinity());
    const size_t l = s.labelled_embeddings.size() / size_t(s.dim);
    for (size_t j = 0; j < candidates.size(); ++j)
        for (size_t c = 0; c < l; ++c)
            nearest[j] = std::min(nearest[j], squaredDistance(s.embeddings.data() + candidates[j] * s.dim,
                                                              s.labelled_embeddings.data() + c * size_t(s.dim), s.dim));
    return nearest;
}

} // namespace

std::vector<double> predictionMargins(const PoolScores &s)
{
    checkShapes(s);
    std::vector<double> margins(size_t(s.n));
    for (int64_t i = 0; i < s.n; ++i) {
        const float *p = s.probabilities.data() + i * s.num_labels;
        double top1 = -std::numeric_limits<double>::infinity(), top2 = top1;
        for (int64_t c = 0; c < s.num_labels; ++c) {
            if (!std::isfinite(p[c]))
                throw Error("pool text " + std::to_string(i),
                            "the probability of label " + std::to_string(c) + " is " + std::to_string(p[c]),
                            "Score the pool again; a model whose outputs are not finite needs a lower learning rate");
            const double v = p[c];
            if (v > top1) {
                top2 = top1;
                top1 = v;
            } else if (v > top2) {
                top2 = v;
            }
        }
        margins[size_t(i)] = top1 - top2;
    }
    return margins;
}

std::vector<int64_t> pickUncertainDiverse(const PoolScores &s, int64_t b, const QueueOptions &options)
{
    if (b < 0)
        throw Error("batch size", "the batch size is " + std::to_string(b), "Ask for 0 or more texts");
    if (options.candidate_factor < 1)
        throw Error("candidate_factor", "the candidate factor is " + std::to_string(options.candidate_factor),
                    "Use 1 or more (10 by default)");
    const std::vector<double> margins = predictionMargins(s); // checks the shapes and probabilities
    b = std::min(b, s.n);
    if (b == 0)
        return {};
    std::vector<int64_t> order(size_t(s.n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&margins](int64_t x, int64_t y) { return margins[size_t(x)] < margins[size_t(y)]; });
    const int64_t m = b > s.n / options.candidate_factor ? s.n : b * options.candidate_factor;
    checkFinite(s.embeddings, s.dim, "pool text");
    checkFinite(s.labelled_embeddings, s.dim, "labelled text");
    order.resize(size_t(m)); // the candidates, lowest margin first

    std::vector<int64_t> picks = {order[0]};
    std::vector<double> nearest = distanceToLabelled(s, order);
    std::vector<bool> taken(size_t(m), false);
    taken[0] = true;
    size_t last = 0;
    while (int64_t(picks.size()) < b) {
        const float *centre = s.embeddings.data() + order[last] * s.dim;
        size_t best = 0;
        double bestDistance = -1.0;
        for (size_t j = 0; j < size_t(m); ++j) {
            if (taken[j])
                continue;
            nearest[j] = std::min(nearest[j], squaredDistance(s.embeddings.data() + order[j] * s.dim, centre, s.dim));
            if (nearest[j] > bestDistance) { // strictly farther: ties keep the earlier candidate
                bestDistance = nearest[j];
                best = j;
            }
        }
        taken[best] = true;
        last = best;
        picks.push_back(order[best]);
    }
    return picks;
}

std::vector<int64_t> randomOrder(int64_t n, uint64_t seed)
{
    if (n < 0)
        throw Error("random order", "the pool size is " + std::to_string(n), "Pass the number of pool texts (>= 0)");
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    for (int64_t i = n - 1; i >= 1; --i) {
        const int64_t j = int64_t(rng() % uint64_t(i + 1));
        std::swap(order[size_t(i)], order[size_t(j)]);
    }
    return order;
}

} // namespace wb
