// SPDX-License-Identifier: Apache-2.0
#include "core/data/fulltokenizer.h"

#include "core/data/unicodetext.h"
#include "core/util/error.h"

#include <utf8proc.h>

#include <algorithm>

namespace wb {

namespace {

utf8proc_category_t category(char32_t c)
{
    return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

bool isWhitespace(char32_t c)
{
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        return true;
    if (c < 0x80)
        return false;
    // U+2028/U+2029 (Zl/Zp) survive cleaning but Python's str.split() splits on them.
    return c == 0x2028 || c == 0x2029 || category(c) == UTF8PROC_CATEGORY_ZS;
}

bool isControl(char32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r')
        return false;
    if (c < 0x80)
        return c < 0x20 || c == 0x7F;
    const auto cat = category(c);
    return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF;
}

bool isPunctuation(char32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126))
        return true;
    if (c < 0x80)
        return false;
    const auto cat = category(c);
    return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool isCjk(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
        || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF)
        || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isCased(char32_t c)
{
    const auto cat = category(c);
    if (cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT)
        return true;
    const auto i = static_cast<utf8proc_int32_t>(c);
    return utf8proc_tolower(i) != i || utf8proc_toupper(i) != i;
}

bool isCaseIgnorable(char32_t c)
{
    switch (c) {
    case 0x27: case 0x2E: case 0x3A: case 0xB7: case 0x387: case 0x5F4: case 0x2018: case 0x2019:
    case 0x2024: case 0x2027: case 0xFE13: case 0xFE52: case 0xFE55: case 0xFF07: case 0xFF0E: case 0xFF1A:
        return true;
    default:
        break;
    }
    const auto cat = category(c);
    return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_ME || cat == UTF8PROC_CATEGORY_CF
        || cat == UTF8PROC_CATEGORY_LM || cat == UTF8PROC_CATEGORY_SK;
}

// Python's final-sigma rule: Σ preceded by a cased letter and not followed by one.
bool isFinalSigma(const std::u32string &w, size_t i)
{
    size_t j = i;
    bool before = false;
    while (j > 0) {
        --j;
        if (isCaseIgnorable(w[j]))
            continue;
        before = isCased(w[j]);
        break;
    }
    if (!before)
        return false;
    for (size_t k = i + 1; k < w.size(); ++k) {
        if (isCaseIgnorable(w[k]))
            continue;
        return !isCased(w[k]);
    }
    return true;
}

// str.lower() then NFD then drop Mn (BasicTokenizer._run_strip_accents).
void lowerAndStripAccents(std::u32string &word, std::u32string &scratch)
{
    bool ascii = true;
    for (char32_t &c : word) {
        if (c < 0x80) {
            if (c >= 'A' && c <= 'Z')
                c += 32;
        } else {
            ascii = false;
        }
    }
    if (ascii)
        return;
    scratch.clear();
    for (size_t i = 0; i < word.size(); ++i) {
        const char32_t c = word[i];
        if (c < 0x80) {
            scratch.push_back(c);
        } else if (c == 0x130) {
            scratch.push_back('i');
            scratch.push_back(0x307);
        } else if (c == 0x3A3) {
            scratch.push_back(isFinalSigma(word, i) ? 0x3C2 : 0x3C3);
        } else {
            scratch.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
        }
    }
    // NFD: decompose each code point, then put combining marks in canonical order.
    word.clear();
    utf8proc_int32_t buf[32];
    for (char32_t c : scratch) {
        if (c < 0xC0) {
            word.push_back(c);
            continue;
        }
        int last = 0;
        const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 32,
                                                           UTF8PROC_DECOMPOSE, &last);
        if (n <= 0 || n > 32) {
            word.push_back(c);
            continue;
        }
        for (utf8proc_ssize_t k = 0; k < n; ++k)
            word.push_back(static_cast<char32_t>(buf[k]));
    }
    auto ccc = [](char32_t c) {
        return c < 0x300 ? 0 : utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class;
    };
    for (size_t i = 0; i < word.size();) {
        if (ccc(word[i]) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < word.size() && ccc(word[j]) != 0)
            ++j;
        std::stable_sort(word.begin() + long(i), word.begin() + long(j),
                         [&](char32_t a, char32_t b) { return ccc(a) < ccc(b); });
        i = j;
    }
    word.erase(std::remove_if(word.begin(), word.end(),
                              [](char32_t c) { return c >= 0x300 && category(c) == UTF8PROC_CATEGORY_MN; }),
               word.end());
}

} // namespace

size_t BasicTokenizer::tokenize(std::string_view text, std::vector<std::string> &out, size_t maxTokens) const
{
    const size_t start = out.size();
    std::u32string word, scratch;
    std::string piece;
    auto full = [&] { return out.size() - start >= maxTokens; };
    auto flush = [&] {
        if (word.empty())
            return;
        if (m_doLowerCase)
            lowerAndStripAccents(word, scratch);
        piece.clear();
        for (char32_t c : word) {
            if (full())
                break;
            if (isPunctuation(c)) {
                if (!piece.empty()) {
                    out.push_back(piece);
                    piece.clear();
                    if (full())
                        break;
                }
                std::string p;
                appendUtf8(p, c);
                out.push_back(std::move(p));
            } else {
                appendUtf8(piece, c);
            }
        }
        if (!piece.empty() && !full())
            out.push_back(piece);
        word.clear();
    };

    // Decode incrementally (like decodeUtf8Lenient) so a limit stops the work early.
    size_t dropped = 0;
    size_t pos = 0;
    const size_t kChunk = 4096;
    while (pos < text.size() && !full()) {
        // Cut at a UTF-8 lead byte so no sequence straddles two chunks.
        size_t end = std::min(text.size(), pos + kChunk);
        while (end < text.size() && end > pos && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
            --end;
        if (end == pos)
            end = std::min(text.size(), pos + kChunk);
        size_t d = 0;
        const std::u32string cps = decodeUtf8Lenient(text.substr(pos, end - pos), &d);
        dropped += d;
        pos = end;
        for (char32_t c : cps) {
            if (c == 0 || c == 0xFFFD || isControl(c))
                continue;
            if (isWhitespace(c)) {
                flush();
            } else if (isCjk(c)) {
                flush();
                word.push_back(c);
                flush();
            } else {
                word.push_back(c);
            }
            if (full())
                break;
        }
    }
    // A word still open at the end (or when stopping early) completes the count.
    if (!full())
        flush();
    return dropped;
}

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
    m_rootTable.assign(512, -1);
    m_edgeBegin.assign(nodes + 1, 0);
    for (size_t n = 0; n < nodes; ++n) {
        std::sort(edges[n].begin(), edges[n].end());
        m_edgeBegin[n] = uint32_t(m_edgeByte.size());
        for (const auto &[b, c] : edges[n]) {
            if (n < 2)
                m_rootTable[n * 256 + b] = c;
            m_edgeByte.push_back(b);
            m_edgeChild.push_back(c);
        }
    }
    m_edgeBegin[nodes] = uint32_t(m_edgeByte.size());
}

int32_t WordpieceTokenizer::child(int32_t node, unsigned char byte) const
{
    if (node < 2)
        return m_rootTable[size_t(node) * 256 + byte];
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

FullTokenizer::FullTokenizer(const std::string &vocabFile, bool doLowerCase, int maxInputCharsPerWord)
    : FullTokenizer(Vocab::load(vocabFile), doLowerCase, maxInputCharsPerWord)
{
}

FullTokenizer::FullTokenizer(Vocab vocab, bool doLowerCase, int maxInputCharsPerWord)
    : m_vocab(std::move(vocab)), m_basic(doLowerCase), m_wordpiece(m_vocab, "[UNK]", maxInputCharsPerWord)
{
}

std::vector<std::string> FullTokenizer::tokenize(std::string_view text, size_t maxTokens) const
{
    std::vector<std::string> words;
    m_basic.tokenize(text, words, maxTokens);
    std::vector<int32_t> ids;
    std::vector<std::string> pieces;
    for (const std::string &w : words) {
        m_wordpiece.tokenizeWord(w, ids, &pieces);
        if (pieces.size() >= maxTokens)
            break;
    }
    if (pieces.size() > maxTokens)
        pieces.resize(maxTokens);
    return pieces;
}

std::vector<int32_t> FullTokenizer::tokenizeToIds(std::string_view text, size_t maxTokens, size_t *droppedBytes) const
{
    std::vector<std::string> words;
    const size_t dropped = m_basic.tokenize(text, words, maxTokens);
    if (droppedBytes)
        *droppedBytes = dropped;
    std::vector<int32_t> ids;
    for (const std::string &w : words) {
        m_wordpiece.tokenizeWord(w, ids, nullptr);
        if (ids.size() >= maxTokens)
            break;
    }
    if (ids.size() > maxTokens)
        ids.resize(maxTokens);
    return ids;
}

} // namespace wb
