// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/vocab.h"

#include "core/config/optionwords.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <filesystem>
#include <fstream>

namespace wb {

namespace {

int codePoints(const std::string &s)
{
    int n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80;
    return n;
}

} // namespace

Vocab Vocab::fromTokens(std::vector<std::string> tokens)
{
    Vocab v;
    v.m_tokens = std::move(tokens);
    v.m_ids.reserve(v.m_tokens.size());
    for (size_t i = 0; i < v.m_tokens.size(); ++i) {
        const std::string &t = v.m_tokens[i];
        v.m_ids[t] = int32_t(i);
        const int n = codePoints(t) - (t.rfind("##", 0) == 0 ? 2 : 0);
        v.m_maxTokenChars = std::max(v.m_maxTokenChars, n);
    }
    return v;
}

Vocab Vocab::load(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) { // an ifstream opens a folder and reads nothing
        const bool inside = std::filesystem::is_regular_file(std::filesystem::path(path) / "vocab.txt", ec);
        throw Error(path, "is a folder, not a vocab file",
                    inside ? "Pass the vocab.txt inside it (" + optionName("vocab_file") + "=" + path + "/vocab.txt)."
                           : "Pass the vocab.txt that belongs to the model (" + optionName("vocab_file") + ").");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot open the vocab file",
                    "Pass the vocab.txt that belongs to the model (" + optionName("vocab_file") + ").");
    std::vector<std::string> tokens;
    std::string line;
    while (std::getline(in, line))
        tokens.push_back(trimmed(line));
    if (tokens.empty())
        throw Error(path, "the vocab file is empty",
                    "Pass the vocab.txt that belongs to the model (" + optionName("vocab_file") + ").");
    Vocab v = fromTokens(std::move(tokens));
    v.m_path = path;
    return v;
}

int32_t Vocab::id(const std::string &token) const
{
    const int32_t i = find(token);
    if (i < 0)
        throw Error(m_path.empty() ? std::string("vocab") : m_path, "the vocab has no token '" + token + "'",
                    "A BERT vocab.txt must contain [PAD], [UNK], [CLS] and [SEP].");
    return i;
}

} // namespace wb
