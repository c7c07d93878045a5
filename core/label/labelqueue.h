// SPDX-License-Identifier: Apache-2.0
#pragma once

// The queue of "Label to learn" (issue 47; docs/label-to-learn.md, "What to label next"): which
// unlabelled pool texts the user labels next, from the model's class probabilities and embeddings
// of them, by uncertainty with diversity; or in a seeded random order (the ghost curve's order,
// and the user's choice).
//
// The rule (pickUncertainDiverse):
// 1. Uncertainty, margin sampling (T. Scheffer, C. Decomain, S. Wrobel, "Active Hidden Markov
//    Models for Information Extraction", IDA 2001): a text's margin is its top-1 minus its top-2
//    class probability; the lower, the less sure the model. The m = min(n, candidate_factor * b)
//    texts of lowest margin are the candidates (ties: the lower pool index first).
// 2. Diversity, greedy k-centre (O. Sener, S. Savarese, "Active Learning for Convolutional Neural
//    Networks: A Core-Set Approach", ICLR 2018, the greedy 2-approximation): the first pick is the
//    candidate of lowest margin; each next pick is the candidate farthest (Euclidean distance of the
//    embeddings) from every pick so far (ties: the candidate earlier in step 1's order, i.e. of
//    lower margin, then lower index). Ten near-duplicates of one uncertain text thus yield one pick,
//    not ten: a batch of b spans the uncertain region instead of one corner of it. Embeddings of
//    the texts labelled so far, when given, count as picks made before (the core-set's labelled
//    centres), except that the first pick is still the lowest margin.
// Margins of the candidates only decide who is a candidate and the first pick; the distances are
// computed in double precision, in a fixed order, so the picks are the same on every machine.
//
// Torch-free, no Qt, no I/O. Thread rules: pure functions; thread-safe.

#include <cstdint>
#include <vector>

namespace wb {

/// The model's view of the unlabelled pool texts, row i being pool text i. A plain value.
struct PoolScores
{
    int64_t n = 0;          ///< pool texts
    int64_t num_labels = 0; ///< classes (>= 2)
    int64_t dim = 0;        ///< embedding size (>= 1; e.g. the [CLS] vector's hidden size)
    /// float32 [n, num_labels], row-major: each text's class probabilities (softmax; each row
    /// sums to about 1, which is not checked).
    std::vector<float> probabilities;
    /// float32 [n, dim], row-major: each text's embedding (any units; distances are Euclidean).
    std::vector<float> embeddings;
    /// float32 [l, dim], row-major, optional (l >= 0): the embeddings of the texts labelled so far.
    /// They are centres from the start, as the labelled set is in the core-set rule: after the
    /// first pick, a candidate's distance is to the nearest pick or labelled text, so a batch also
    /// keeps away from what is labelled already.
    std::vector<float> labelled_embeddings;
};

/// How pickUncertainDiverse() chooses.
struct QueueOptions
{
    /// m = min(n, candidate_factor * b) lowest-margin texts are the candidates (>= 1; 10 by default:
    /// wide enough for b diverse picks, narrow enough that each is still uncertain).
    int64_t candidate_factor = 10;
};

/// The margin of each text: its largest probability minus its second largest, as double [n].
/// Throws wb::Error (field "pool text <i>") for a NaN or infinite probability, naming the text's
/// index and the label's; and wb::Error for shapes that do not match (see pickUncertainDiverse).
std::vector<double> predictionMargins(const PoolScores &scores);

/// The b texts to label next, as pool indices in pick order (0 <= index < n, no repeats;
/// min(b, n) of them; none for an empty pool or b = 0), by the rule above.
/// Throws wb::Error naming what is wrong: b < 0; num_labels < 2; dim < 1; a vector whose size is not
/// n * num_labels or n * dim (labelled_embeddings: a multiple of dim); candidate_factor < 1; a NaN
/// or infinite probability or embedding value ("pool text <i>", or "labelled text <i>": the index
/// of the text, and of the label or embedding component). Cost: m * (b + l) * dim operations.
std::vector<int64_t> pickUncertainDiverse(const PoolScores &scores, int64_t b, const QueueOptions &options = {});

/// The texts 0..n-1 in a random order fixed by `seed`: a Fisher–Yates shuffle driven by
/// std::mt19937_64(seed) (whose output the C++ standard fixes), position i (from n-1 down to 1)
/// swapped with j = rng() % (i + 1). Unlike std::shuffle, whose algorithm the standard leaves
/// open, the order is the same with every standard library. The modulo's bias is below 2^-40 for
/// n < 2^24. Throws wb::Error when n < 0.
std::vector<int64_t> randomOrder(int64_t n, uint64_t seed);

} // namespace wb
