// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace wb {

class FullTokenizer;

/// One example's model inputs, each max_seq_length long (int64 ids as in the TFRecord).
struct ExampleFeatures
{
    std::vector<int64_t> input_ids, input_mask, segment_ids;
    bool truncated = false;     ///< the texts did not fit into max_seq_length
    int64_t tokens_needed = 0;  ///< length without truncation, [CLS]/[SEP] included
    bool capped = false;        ///< a text hit the counting cap (tokens_needed is a lower bound)
    bool empty_a = false;       ///< text_a has no tokens after the tokenizer's clean-up
    bool empty_b = false;       ///< (pairs) text_b has no tokens
};

/// Builds [CLS] a [SEP] (b [SEP]) like google-research/bert run_classifier.py's
/// convert_single_example: WordPiece tokens, _truncate_seq_pair (pop from the longer text,
/// b when equal) to fit max_seq_length, segment ids 0 then 1, zero padding. Texts are
/// tokenized up to `countCap` tokens each to measure tokens_needed. Thread-safe (the
/// tokenizer is immutable).
void buildExampleFeatures(const FullTokenizer &tokenizer, std::string_view a, std::string_view b, bool pair,
                          int64_t maxSeqLength, int32_t clsId, int32_t sepId, size_t countCap, ExampleFeatures &f);

} // namespace wb
