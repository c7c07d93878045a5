// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/tokenizercasing.h"

#include "core/config/optionwords.h"
#include "core/tokenize/vocab.h"

#include <exception>

namespace wb {

namespace {

bool isSpecialToken(const std::string &t)
{
    return t.size() >= 2 && ((t.front() == '[' && t.back() == ']') || (t.front() == '<' && t.back() == '>'));
}

} // namespace

int64_t upperCasePieces(const Vocab &vocab)
{
    int64_t n = 0;
    for (int32_t id = 0; id < int32_t(vocab.size()); ++id) {
        const std::string &t = vocab.token(id);
        if (isSpecialToken(t))
            continue;
        for (const char c : t)
            if (c >= 'A' && c <= 'Z') {
                ++n;
                break;
            }
    }
    return n;
}

const char *casingWord(bool doLowerCase) { return doLowerCase ? "lower-cased" : "cased"; }

TokenizerCasing resolveCasing(const std::vector<RecordedCasing> &recorded, const std::string &vocabPath)
{
    TokenizerCasing c;
    for (const RecordedCasing &r : recorded)
        if (r.do_lower_case) {
            c.do_lower_case = r.do_lower_case;
            c.source = r.source;
            return c;
        }
    if (!vocabPath.empty()) {
        try {
            const int64_t upper = upperCasePieces(Vocab::load(vocabPath));
            c.do_lower_case = upper == 0;
            c.inferred = true;
            c.source = vocabPath + " (inferred)";
            c.warning = "no casing is recorded with the data or the model; "
                + std::string(upper ? "cased (do_lower_case=false): " + std::to_string(upper) + " piece(s) of "
                                    : "uncased (do_lower_case=true): no piece of ")
                + vocabPath + (upper ? " hold capital letters" : " holds a capital letter")
                + ". " + PassOption("do_lower_case", "true or false")
                + " if that is wrong (the data's casing: how it was prepared)";
            return c;
        } catch (const std::exception &) {
            // an unreadable vocab tells nothing; the caller names the vocab where it reads it
        }
    }
    c.source = "unknown";
    c.warning = "no casing is recorded with the data or the model, and there is no vocab.txt to "
                "infer it from; the texts are lower-cased (do_lower_case=true). "
                + PassOption("do_lower_case", "true or false");
    return c;
}

} // namespace wb
