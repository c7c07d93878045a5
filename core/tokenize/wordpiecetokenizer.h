// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/tokenize/vocab.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace wb {

/// Greedy longest-match-first WordPiece (google-research/bert tokenization.py WordpieceTokenizer): a word longer than
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
    std::vector<int32_t> m_denseTable;                 // 256 direct children per dense node (the roots, wide nodes)
    std::vector<int32_t> m_denseOf;                    // node -> its table's first entry, or -1 (edge list)
    std::vector<uint32_t> m_edgeBegin;                 // node -> first edge (CSR), size nodes + 1
    std::vector<unsigned char> m_edgeByte;             // edge -> byte, sorted per node
    std::vector<int32_t> m_edgeChild;                  // edge -> child node
};

} // namespace wb
