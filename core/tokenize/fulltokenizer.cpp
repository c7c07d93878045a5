// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/fulltokenizer.h"

namespace wb {

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
    std::vector<int32_t> ids;
    std::vector<std::string> pieces;
    m_basic.scan(text, maxTokens, [&](std::string_view w) {
        if (pieces.size() < maxTokens)
            m_wordpiece.tokenizeWord(w, ids, &pieces);
    });
    if (pieces.size() > maxTokens)
        pieces.resize(maxTokens);
    return pieces;
}

// The words are WordPiece-split as the basic tokenizer finds them (views, no copies); words
// after the limit are scanned but not split, so droppedBytes counts as far as before.
std::vector<int32_t> FullTokenizer::tokenizeToIds(std::string_view text, size_t maxTokens, size_t *droppedBytes) const
{
    std::vector<int32_t> ids;
    const size_t dropped = m_basic.scan(text, maxTokens, [&](std::string_view w) {
        if (ids.size() < maxTokens)
            m_wordpiece.tokenizeWord(w, ids, nullptr);
    });
    if (droppedBytes)
        *droppedBytes = dropped;
    if (ids.size() > maxTokens)
        ids.resize(maxTokens);
    return ids;
}

} // namespace wb
