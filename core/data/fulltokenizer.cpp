// SPDX-License-Identifier: Apache-2.0
#include "core/data/fulltokenizer.h"

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
