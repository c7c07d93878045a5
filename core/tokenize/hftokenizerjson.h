// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/tokenize/vocab.h"

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

/// The special tokens of `vocab` as transformers' BertTokenizer(Fast) names them:
/// unk_token "[UNK]", sep_token "[SEP]", cls_token "[CLS]" (required: throws wb::Error naming
/// the vocab file without one), pad_token "[PAD]" (else the token of id 0, the id the
/// workbench pads with), mask_token "[MASK]" (left out when the vocab has none). Keys sorted,
/// values the tokens' text. This is special_tokens_map.json (transformers' save_pretrained,
/// tokenization_utils_base.py). Pure; thread-safe.
nlohmann::ordered_json huggingFaceSpecialTokensMap(const Vocab &vocab);

/// transformers' tokenizer_config.json for BertTokenizer / BertTokenizerFast, key by key what
/// save_pretrained writes (tokenization_utils_base.py; the init arguments of
/// models/bert/tokenization_bert.py), keys sorted as it sorts them:
///   added_tokens_decoder      {"<id>": {"content", "lstrip", "normalized", "rstrip",
///                             "single_word", "special"}} of the special tokens
///   clean_up_tokenization_spaces true; do_basic_tokenize true; never_split null
///   cls_token, mask_token, pad_token, sep_token, unk_token   huggingFaceSpecialTokensMap's
///   do_lower_case             `doLowerCase`; strip_accents null (follows do_lower_case, as
///                             google-research's BasicTokenizer); tokenize_chinese_chars true
///   model_max_length          `maxSeqLength` (tokens, special tokens included)
///   max_seq_length            `maxSeqLength` again: the workbench's own key (classify, the demo
///                             page read it); transformers passes unknown keys through
///   tokenizer_class           "BertTokenizer" (transformers writes the slow class's name for
///                             the fast one too, and loads tokenizer.json when it is there)
/// transformers.js reads pad_token etc. from here (tokenization_utils.js): without pad_token a
/// batch of texts of different lengths cannot be padded. Throws as huggingFaceSpecialTokensMap.
/// Pure; thread-safe.
nlohmann::ordered_json huggingFaceTokenizerConfig(const Vocab &vocab, bool doLowerCase, int64_t maxSeqLength);

} // namespace wb
