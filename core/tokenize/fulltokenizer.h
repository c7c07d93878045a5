// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/tokenize/basictokenizer.h"
#include "core/tokenize/vocab.h"
#include "core/tokenize/wordpiecetokenizer.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// BasicTokenizer + WordpieceTokenizer over a vocab file (google-research's FullTokenizer,
/// max_input_chars_per_word 200 by default). Immutable after construction; thread-safe.
class FullTokenizer
{
public:
    /// Loads `vocabFile`; throws wb::Error when unreadable or lacking [UNK].
    FullTokenizer(const std::string &vocabFile, bool doLowerCase, int maxInputCharsPerWord = 200);
    /// Uses an in-memory vocabulary (must contain [UNK]).
    FullTokenizer(Vocab vocab, bool doLowerCase, int maxInputCharsPerWord = 200);
    FullTokenizer(const FullTokenizer &) = delete;
    FullTokenizer &operator=(const FullTokenizer &) = delete;

    /// Returns the WordPiece tokens of `text` (UTF-8), at most `maxTokens` of them. With a
    /// limit the text is tokenized only as far as needed, so long documents stay cheap;
    /// the first `maxTokens` tokens are the same as without a limit.
    std::vector<std::string> tokenize(std::string_view text,
                                      size_t maxTokens = std::numeric_limits<size_t>::max()) const;

    /// Same as tokenize() but returns vocab ids. `droppedBytes` receives the number of
    /// invalid UTF-8 bytes ignored.
    std::vector<int32_t> tokenizeToIds(std::string_view text, size_t maxTokens = std::numeric_limits<size_t>::max(),
                                       size_t *droppedBytes = nullptr) const;

    /// Returns the vocabulary.
    const Vocab &vocab() const { return m_vocab; }
    bool doLowerCase() const { return m_basic.doLowerCase(); }

private:
    Vocab m_vocab;
    BasicTokenizer m_basic;
    WordpieceTokenizer m_wordpiece;
};

} // namespace wb
