// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/wordpiecetokenizer.h"

#include <algorithm>

namespace wb {

WordpieceTokenizer::WordpieceTokenizer(const Vocab &vocab, std::string unkToken, int maxInputCharsPerWord)
    : m_vocab(vocab), m_unkToken(std::move(unkToken)), m_unkId(vocab.id(m_unkToken)), m_maxChars(maxInputCharsPerWord)
{
    m_tokenIds = {-1, -1};
    m_children.reserve(size_t(vocab.size()) * 4);
    for (int32_t id = 0; id < int32_t(vocab.size()); ++id) {
        const std::string &t = vocab.token(id);
        if (vocab.find(t) != id)
            continue; // a repeated token maps to its last line
        if (t.size() > 2 && t.compare(0, 2, "##") == 0)
            insert(1, std::string_view(t).substr(2), id);
        if (!t.empty())
            insert(0, t, id);
    }
    // Freeze into a compact form: direct tables for the roots, sorted edge lists elsewhere.
    const size_t nodes = m_tokenIds.size();
    std::vector<std::vector<std::pair<unsigned char, int32_t>>> edges(nodes);
    for (const auto &[key, c] : m_children)
        edges[size_t(key >> 8)].emplace_back(static_cast<unsigned char>(key & 0xFF), c);
    m_children.clear();
    // The roots and the nodes with many children get a direct table (a byte is one load there);
    // the rest keep their short sorted edge lists.
    constexpr size_t kDenseEdges = 6;
    m_denseOf.assign(nodes, -1);
    m_edgeBegin.assign(nodes + 1, 0);
    for (size_t n = 0; n < nodes; ++n) {
        std::sort(edges[n].begin(), edges[n].end());
        m_edgeBegin[n] = uint32_t(m_edgeByte.size());
        if (n < 2 || edges[n].size() >= kDenseEdges) {
            m_denseOf[n] = int32_t(m_denseTable.size());
            m_denseTable.resize(m_denseTable.size() + 256, -1);
        }
        for (const auto &[b, c] : edges[n]) {
            if (m_denseOf[n] >= 0)
                m_denseTable[size_t(m_denseOf[n]) + b] = c;
            m_edgeByte.push_back(b);
            m_edgeChild.push_back(c);
        }
    }
    m_edgeBegin[nodes] = uint32_t(m_edgeByte.size());
}

int32_t WordpieceTokenizer::child(int32_t node, unsigned char byte) const
{
    if (const int32_t dense = m_denseOf[size_t(node)]; dense >= 0)
        return m_denseTable[size_t(dense) + byte];
    for (uint32_t e = m_edgeBegin[size_t(node)], end = m_edgeBegin[size_t(node) + 1]; e < end; ++e) {
        if (m_edgeByte[e] == byte)
            return m_edgeChild[e];
        if (m_edgeByte[e] > byte)
            break;
    }
    return -1;
}

void WordpieceTokenizer::insert(int32_t root, std::string_view piece, int32_t id)
{
    int32_t node = root;
    for (unsigned char c : piece) {
        const uint64_t key = uint64_t(node) << 8 | c;
        auto it = m_children.find(key);
        if (it == m_children.end()) {
            m_tokenIds.push_back(-1);
            it = m_children.emplace(key, int32_t(m_tokenIds.size() - 1)).first;
        }
        node = it->second;
    }
    m_tokenIds[size_t(node)] = id;
}

void WordpieceTokenizer::tokenizeWord(std::string_view word, std::vector<int32_t> &ids,
                                      std::vector<std::string> *pieces) const
{
    size_t nChars = 0;
    for (unsigned char c : word)
        nChars += (c & 0xC0) != 0x80;
    if (nChars > size_t(m_maxChars)) {
        ids.push_back(m_unkId);
        if (pieces)
            pieces->push_back(m_unkToken);
        return;
    }
    const size_t firstId = ids.size();
    const size_t firstPiece = pieces ? pieces->size() : 0;
    size_t start = 0;
    while (start < word.size()) {
        // Longest vocab piece starting at `start`: walk the trie, remember the last match.
        int32_t node = start == 0 ? 0 : 1;
        int32_t found = -1;
        size_t end = start;
        for (size_t i = start; i < word.size(); ++i) {
            node = child(node, static_cast<unsigned char>(word[i]));
            if (node < 0)
                break;
            if (m_tokenIds[size_t(node)] >= 0) {
                found = m_tokenIds[size_t(node)];
                end = i + 1;
            }
        }
        if (found < 0) {
            ids.resize(firstId);
            ids.push_back(m_unkId);
            if (pieces) {
                pieces->resize(firstPiece);
                pieces->push_back(m_unkToken);
            }
            return;
        }
        ids.push_back(found);
        if (pieces)
            pieces->push_back((start > 0 ? "##" : "") + std::string(word.substr(start, end - start)));
        start = end;
    }
}

} // namespace wb
