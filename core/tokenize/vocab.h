// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace wb {

/// A WordPiece vocabulary (`vocab.txt`, google-research/bert tokenization.py load_vocab): one token per line, stripped of
/// surrounding whitespace, id = line index from 0; a repeated token maps to its last line.
/// Immutable after loading; safe to share between threads.
class Vocab
{
public:
    /// Reads `path`. Throws wb::Error naming the file when it cannot be read or is empty.
    static Vocab load(const std::string &path);
    /// Builds a vocabulary from tokens in id order (tests, tools).
    static Vocab fromTokens(std::vector<std::string> tokens);

    /// Returns the id of `token`, or -1 when absent.
    int32_t find(const std::string &token) const
    {
        const auto it = m_ids.find(token);
        return it == m_ids.end() ? -1 : it->second;
    }
    /// Returns the id of `token`; throws wb::Error naming the vocab file when absent
    /// (e.g. a vocab without [CLS]).
    int32_t id(const std::string &token) const;
    /// Returns the token on line `id`.
    const std::string &token(int32_t id) const { return m_tokens.at(size_t(id)); }
    /// Returns the number of lines (= the model's vocab_size).
    int64_t size() const { return int64_t(m_tokens.size()); }
    /// Returns the longest token length in code points, ignoring a "##" prefix.
    int maxTokenChars() const { return m_maxTokenChars; }
    /// Returns the file the vocab was read from (empty for fromTokens()).
    const std::string &path() const { return m_path; }

private:
    std::vector<std::string> m_tokens;
    std::unordered_map<std::string, int32_t> m_ids;
    int m_maxTokenChars = 0;
    std::string m_path;
};

} // namespace wb
