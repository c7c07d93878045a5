// SPDX-License-Identifier: Apache-2.0
// Fuzzes vocab.txt: Vocab::load (lines, whitespace stripping, repeated tokens, any bytes),
// then a FullTokenizer over it tokenizing a fixed mixed-script sentence, as prepare does.
#include "core/tokenize/fulltokenizer.h"
#include "core/tokenize/vocab.h"
#include "core/util/error.h"
#include "fuzz/fuzzinput.h"

#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wb::fuzz::MemoryFile file;
    try {
        wb::Vocab vocab = wb::Vocab::load(file.write(data, size));
        if (vocab.size() < 1)
            std::abort();
        for (int32_t i = 0; i < vocab.size(); ++i)
            if (vocab.find(vocab.token(i)) < i)
                std::abort(); // a repeated token maps to its last line
        const wb::FullTokenizer tokenizer(std::move(vocab), true, 20);
        const auto tokens = tokenizer.tokenize("Hello, unaffable Wörld! 東京 naïve ##x [CLS] a\tb", 64);
        if (tokens.size() > 64)
            std::abort();
    } catch (const wb::Error &e) {
        if (std::string(e.what()).empty() || e.field().empty())
            std::abort();
    }
    return 0;
}
