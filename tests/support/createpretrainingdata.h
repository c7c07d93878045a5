// SPDX-License-Identifier: Apache-2.0
// Test support: pretraining records as google-research/bert's create_pretraining_data.py
// writes them (write_instance_to_example_files), built with protobuf's own tf.train.Example
// rather than the product's writer, and with no input_meta_data.json (the script writes none).
#pragma once

#include "core/data/example.pb.h"
#include "core/data/tfrecordwriter.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wbtest {

/// One instance of create_instances_from_document: tokens [CLS] A [SEP] B [SEP] (ids 2, 3),
/// segment_ids 0 for [CLS] A [SEP] and 1 for B [SEP], input_mask 1 on the tokens, all three
/// zero-padded to L; masked_lm_positions (sorted), masked_lm_ids and masked_lm_weights (1.0)
/// of about 15 % of A's and B's tokens ([MASK] = 4), padded to P with 0, 0, 0.0;
/// next_sentence_labels [1] when B is random, else [0]. Token ids stay below `vocab`; the
/// features are added in the script's order.
inline std::string createPretrainingDataExample(int64_t k, int64_t L, int64_t P, int64_t vocab, std::mt19937_64 &rng)
{
    const bool randomNext = k % 2 == 1;
    const int64_t a = (L - 3) / 2 - k % 3, b = L - 3 - a - k % 2;
    std::vector<int64_t> ids = {2}, segments = {0};
    const int64_t family = 5 + (k % 3) * 20;
    for (int64_t i = 0; i < a; ++i) {
        ids.push_back(family + i % 20);
        segments.push_back(0);
    }
    ids.push_back(3);
    segments.push_back(0);
    std::uniform_int_distribution<int64_t> anyToken(5, vocab - 1);
    for (int64_t i = 0; i < b; ++i) {
        ids.push_back(randomNext ? anyToken(rng) : family + (a + i) % 20);
        segments.push_back(1);
    }
    ids.push_back(3);
    segments.push_back(1);
    std::vector<int64_t> candidates;
    for (int64_t i = 1; i < int64_t(ids.size()); ++i)
        if (ids[size_t(i)] != 3)
            candidates.push_back(i);
    std::shuffle(candidates.begin(), candidates.end(), rng);
    const int64_t n = std::min<int64_t>(P, std::max<int64_t>(1, int64_t(candidates.size()) * 15 / 100));
    std::vector<int64_t> positions(candidates.begin(), candidates.begin() + n);
    std::sort(positions.begin(), positions.end());
    std::vector<int64_t> labels;
    for (int64_t pos : positions) {
        labels.push_back(ids[size_t(pos)]);
        ids[size_t(pos)] = 4;
    }
    std::vector<int64_t> mask(ids.size(), 1);
    while (int64_t(ids.size()) < L) {
        ids.push_back(0);
        mask.push_back(0);
        segments.push_back(0);
    }
    std::vector<float> weights(positions.size(), 1.0f);
    while (int64_t(positions.size()) < P) {
        positions.push_back(0);
        labels.push_back(0);
        weights.push_back(0.0f);
    }
    tensorflow::Example ex;
    auto &features = *ex.mutable_features()->mutable_feature();
    const auto ints = [&features](const char *name, const std::vector<int64_t> &v) {
        for (int64_t x : v)
            features[name].mutable_int64_list()->add_value(x);
    };
    ints("input_ids", ids);
    ints("input_mask", mask);
    ints("segment_ids", segments);
    ints("masked_lm_positions", positions);
    ints("masked_lm_ids", labels);
    for (float w : weights)
        features["masked_lm_weights"].mutable_float_list()->add_value(w);
    ints("next_sentence_labels", {randomNext ? 1 : 0});
    return ex.SerializeAsString();
}

/// Writes `n` such records to `path` (an uncompressed TFRecord file, as the script's
/// tf.python_io.TFRecordWriter writes).
inline void writeCreatePretrainingDataRecords(const std::string &path, int64_t n, int64_t L, int64_t P, int64_t vocab,
                                              uint64_t seed)
{
    std::mt19937_64 rng(seed);
    wb::TFRecordWriter w(path);
    for (int64_t k = 0; k < n; ++k)
        w.write(createPretrainingDataExample(k, L, P, vocab, rng));
    w.commit();
}

} // namespace wbtest
