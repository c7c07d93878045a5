// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/data/vocab.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace wb {

/// BERT's BasicTokenizer (google-research/bert tokenization.py; formats.md §5, seed-spec §16):
/// drop U+0000, U+FFFD and control characters (Cc, Cf except \t \n \r), map whitespace
/// (space, \t, \n, \r, Zs) to spaces, space out CJK ideographs, split on whitespace; when
/// do_lower_case, Python str.lower() (incl. İ → i̇ and final sigma) then NFD and removal of
/// Mn marks; finally split off every punctuation character (ASCII 33–47, 58–64, 91–96,
/// 123–126 or category P*). Input bytes are UTF-8, invalid sequences ignored.
/// Immutable; thread-safe.
class BasicTokenizer
{
public:
    explicit BasicTokenizer(bool doLowerCase = true) : m_doLowerCase(doLowerCase) {}

    /// Appends the basic tokens of `text` (UTF-8) to `out`, stopping once `out` has grown
    /// by `maxTokens` tokens. Returns the number of invalid UTF-8 bytes that were dropped.
    size_t tokenize(std::string_view text, std::vector<std::string> &out,
                    size_t maxTokens = std::numeric_limits<size_t>::max()) const;

    bool doLowerCase() const { return m_doLowerCase; }

private:
    bool m_doLowerCase;
};

/// Greedy longest-match-first WordPiece (seed-spec §16): a word longer than
/// `maxInputCharsPerWord` code points, or one with a position where no vocab piece matches,
/// becomes a single [UNK]; continuation pieces are looked up with "##". Thread-safe.
class WordpieceTokenizer
{
public:
    /// `vocab` must outlive the tokenizer.
    WordpieceTokenizer(const Vocab &vocab, std::string unkToken = "[UNK]", int maxInputCharsPerWord = 200);

    /// Appends the pieces of one basic token: ids to `ids` and, when given, the piece strings
    /// to `pieces`.
    void tokenizeWord(std::string_view word, std::vector<int32_t> &ids, std::vector<std::string> *pieces) const;

private:
    int32_t child(int32_t node, unsigned char byte) const;
    void insert(int32_t root, std::string_view piece, int32_t id);

    const Vocab &m_vocab;
    std::string m_unkToken;
    int32_t m_unkId;
    int m_maxChars;
    // Byte trie of the vocab: node 0 = word-initial pieces, node 1 = "##" continuations.
    std::unordered_map<uint64_t, int32_t> m_children; // (node << 8 | byte) -> child node (while building)
    std::vector<int32_t> m_tokenIds;                   // node -> vocab id, or -1
    std::vector<int32_t> m_rootTable;                  // 2 × 256 direct children of the two roots
    std::vector<uint32_t> m_edgeBegin;                 // node -> first edge (CSR), size nodes + 1
    std::vector<unsigned char> m_edgeByte;             // edge -> byte, sorted per node
    std::vector<int32_t> m_edgeChild;                  // edge -> child node
};

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
