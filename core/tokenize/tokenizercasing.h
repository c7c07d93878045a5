// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a model's tokenizer lower-cases: decided once, from what was recorded where, in
// one order, for train, export, classify and Try it (docs/file-formats.md, "Casing").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

class Vocab;

/// How a model reads text: BasicTokenizer's do_lower_case (lower-case and strip accents),
/// and where that came from.
struct TokenizerCasing
{
    std::optional<bool> do_lower_case; ///< unset: unknown (nothing recorded and no vocab to look at)
    std::string source;                ///< e.g. "input_meta_data.json", "vocab.txt (inferred)"
    bool inferred = false;             ///< not recorded: read off the vocabulary
    std::string warning;               ///< non-empty when inferred or unknown: what was assumed and why
                                       ///< (a sentence for the field do_lower_case)
};

/// One place a casing may be recorded: its name (a file or a flag) and its value, if any.
struct RecordedCasing
{
    std::string source;
    std::optional<bool> do_lower_case;
};

/// Pieces of `vocab` that hold an ASCII capital letter, special tokens aside ([CLS],
/// [unused0], <S>). An uncased BERT vocabulary (google-research/bert's uncased models,
/// built from lower-cased text) has none; a cased one has thousands. Pure.
int64_t upperCasePieces(const Vocab &vocab);

/// The first of `recorded` that holds a value; else, when `vocabPath` is readable, the casing
/// its pieces imply (cased when upperCasePieces() > 0, else uncased) with a warning naming
/// the vocab; else unknown with a warning. Reads `vocabPath` only when nothing is recorded;
/// never throws (an unreadable vocab counts as none). Thread-safe.
TokenizerCasing resolveCasing(const std::vector<RecordedCasing> &recorded, const std::string &vocabPath);

/// "lower-cased" or "cased", for messages.
const char *casingWord(bool doLowerCase);

} // namespace wb
