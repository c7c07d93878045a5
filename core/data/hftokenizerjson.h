// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/data/vocab.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace wb {

/// Hugging Face's fast-tokenizer file (`tokenizer.json`, the `tokenizers` library's
/// serialisation, format "1.0") for the tokenizer this workbench reads text with
/// (FullTokenizer, google-research/bert tokenization.py), so that transformers'
/// BertTokenizerFast, tokenizers and transformers.js give the same input_ids:
///   normalizer      BertNormalizer: clean_text, handle_chinese_chars, lowercase and
///                   strip_accents both `doLowerCase` (BasicTokenizer lower-cases and strips
///                   accents together)
///   pre_tokenizer   BertPreTokenizer (whitespace and punctuation splits)
///   model           WordPiece: `vocab` (token → line index), unk_token [UNK],
///                   continuing_subword_prefix "##", max_input_chars_per_word
///                   `maxInputCharsPerWord` (ours: 200, google-research/bert's; HF's default is 100)
///   post_processor  TemplateProcessing "[CLS] $A [SEP]" and "[CLS] $A [SEP] $B:1 [SEP]:1"
///                   with the vocab's ids of [CLS] and [SEP]
///   truncation      max_length `maxSeqLength` (special tokens included), LongestFirst, as
///                   google-research's _truncate_seq_pair; padding null
///   added_tokens    [PAD], [UNK], [CLS], [SEP], [MASK] (those the vocab has), special, not normalized
///   decoder         WordPiece ("##", cleanup)
/// Throws wb::Error naming the vocab file when it lacks [UNK], [CLS] or [SEP]. Pure; thread-safe.
nlohmann::ordered_json huggingFaceTokenizerJson(const Vocab &vocab, bool doLowerCase, int64_t maxSeqLength,
                                                int maxInputCharsPerWord = 200);

} // namespace wb
