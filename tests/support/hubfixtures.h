// SPDX-License-Identifier: Apache-2.0
// Test helper: small made-up model repos for the Hub client's tests (tests/support/hubtestserver.h).
#pragma once

#include "support/hubtestserver.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace wbtest {

/// A valid safetensors file (8-byte little-endian header length, JSON header, data) holding
/// one F32 tensor "bert.embeddings.word_embeddings.weight" of `count` values 0, 1, 2, ...
inline std::string tinySafetensors(int64_t count)
{
    const std::string header = "{\"bert.embeddings.word_embeddings.weight\":{\"dtype\":\"F32\",\"shape\":["
                               + std::to_string(count) + "],\"data_offsets\":[0," + std::to_string(4 * count) + "]}}";
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i)
        out[size_t(i)] = char((n >> (8 * i)) & 0xff);
    out += header;
    for (int64_t i = 0; i < count; ++i) {
        const float v = float(i);
        char b[4];
        std::memcpy(b, &v, 4);
        out.append(b, 4);
    }
    return out;
}

/// A Hugging Face config.json of a tiny BERT (model_type "bert").
inline std::string tinyConfigJson(const std::string &modelType = "bert")
{
    return "{\n  \"architectures\": [\"BertForMaskedLM\"],\n  \"model_type\": \"" + modelType
           + "\",\n  \"vocab_size\": 8,\n  \"hidden_size\": 4,\n  \"num_hidden_layers\": 1,\n"
             "  \"num_attention_heads\": 1,\n  \"intermediate_size\": 8,\n  \"max_position_embeddings\": 16,\n"
             "  \"type_vocab_size\": 2\n}\n";
}

inline std::string tinyVocab()
{
    return "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\n";
}

/// A repo with config.json, vocab.txt, tokenizer_config.json (do_lower_case false) and an
/// LFS model.safetensors of `floats` values; `commit` is its 40-hex commit.
inline HubTestRepo tinyRepo(const std::string &commit, int64_t floats = 4096)
{
    HubTestRepo r;
    r.commit = commit;
    r.files["config.json"].content = tinyConfigJson();
    r.files["vocab.txt"].content = tinyVocab();
    r.files["tokenizer_config.json"].content = "{\"do_lower_case\": false, \"model_max_length\": 16}\n";
    r.files["model.safetensors"].content = tinySafetensors(floats);
    r.files["model.safetensors"].lfs = true;
    r.files["README.md"].content = "---\nlicense: apache-2.0\n---\n";
    return r;
}

} // namespace wbtest
