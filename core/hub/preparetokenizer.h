// SPDX-License-Identifier: Apache-2.0
#pragma once

// What "prepare the data for a pretrained model" means, in one place for `prepare`,
// `prepare_pretraining` and the window's Prepare Data dialog: the text is read as the model
// reads it (its vocab.txt and casing), and every record fits its position embeddings.

#include "core/config/diagnostics.h"
#include "core/hub/pretrainedmodel.h"

#include <cstdint>
#include <string>

namespace wb {

/// The tokenizer settings of a prepare command that a pretrained model decides.
struct PrepareTokenizer
{
    std::string vocab_file;      ///< WordPiece vocab.txt
    int64_t max_seq_length = 128; ///< tokens per record, [CLS] and [SEP] included
    bool do_lower_case = true;
};

/// Which of PrepareTokenizer's settings the user gave (a flag, or a field that was filled in);
/// the others are the model's to decide.
struct PrepareTokenizerGiven
{
    bool vocab_file = false, do_lower_case = false, max_seq_length = false;
};

/// Applies `model` (found as `name`: the id, catalogue name or folder the user gave) to `t`:
/// - vocab_file not given → the model's vocab.txt;
/// - do_lower_case not given → the model's casing; given and different → a warning (the run
///   must then read text the same way, which the pre-flight check compares);
/// - max_seq_length above the model's max_position_embeddings: not given → lowered to it, with
///   a note; given → wb::Error on "max_seq_length" naming both numbers and the fix.
/// Returns the notes (Severity::Info) and warnings to show. A config.json that cannot be read
/// leaves max_seq_length unchecked (the run's pre-flight check reports the config itself).
/// Reads model.config_file; thread-safe.
Diagnostics applyPretrainedTokenizer(const PretrainedModel &model, const std::string &name,
                                     const PrepareTokenizerGiven &given, PrepareTokenizer &t);

} // namespace wb
