// SPDX-License-Identifier: Apache-2.0
#include "core/weights/parameternames.h"

#include "core/util/asciitext.h"
#include <cstring>

namespace wb {

std::vector<ParameterSpec> expectedParameters(const BertConfig &c, int64_t numLabels)
{
    const int64_t h = c.hidden_size, e = c.embeddingWidth(), i = c.intermediate_size;
    std::vector<ParameterSpec> p;
    const std::string emb = "bert.embeddings.";
    p.push_back({emb + "word_embeddings.weight", {c.vocab_size, e}});
    p.push_back({emb + "position_embeddings.weight", {c.max_position_embeddings, e}});
    p.push_back({emb + "token_type_embeddings.weight", {c.type_vocab_size, e}});
    p.push_back({emb + "LayerNorm.weight", {e}});
    p.push_back({emb + "LayerNorm.bias", {e}});
    if (e != h) {
        p.push_back({emb + "embedding_projection.weight", {h, e}});
        p.push_back({emb + "embedding_projection.bias", {h}});
    }
    for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
        const std::string b = "bert.encoder.layer." + std::to_string(l) + ".";
        for (const char *qkv : {"query", "key", "value"}) {
            p.push_back({b + "attention.self." + qkv + ".weight", {h, h}});
            p.push_back({b + "attention.self." + qkv + ".bias", {h}});
        }
        p.push_back({b + "attention.output.dense.weight", {h, h}});
        p.push_back({b + "attention.output.dense.bias", {h}});
        p.push_back({b + "attention.output.LayerNorm.weight", {h}});
        p.push_back({b + "attention.output.LayerNorm.bias", {h}});
        p.push_back({b + "intermediate.dense.weight", {i, h}});
        p.push_back({b + "intermediate.dense.bias", {i}});
        p.push_back({b + "output.dense.weight", {h, i}});
        p.push_back({b + "output.dense.bias", {h}});
        p.push_back({b + "output.LayerNorm.weight", {h}});
        p.push_back({b + "output.LayerNorm.bias", {h}});
    }
    p.push_back({"bert.pooler.dense.weight", {h, h}});
    p.push_back({"bert.pooler.dense.bias", {h}});
    p.push_back({"classifier.weight", {numLabels, h}});
    p.push_back({"classifier.bias", {numLabels}});
    return p;
}

std::string canonicalParameterName(const std::string &name)
{
    std::string n = name;
    // A model saved under a scope: "module." (torch.nn.DataParallel / DistributedDataParallel
    // state dicts) or "model." (a wrapper module holding the BERT as `model`).
    for (const char *scope : {"module.", "model."})
        if (n.rfind(scope, 0) == 0 && n.size() > std::strlen(scope)) {
            n = n.substr(std::strlen(scope));
            break;
        }
    if (endsWith(n, "LayerNorm.gamma"))
        n = n.substr(0, n.size() - 5) + "weight";
    else if (endsWith(n, "LayerNorm.beta"))
        n = n.substr(0, n.size() - 4) + "bias";
    const bool known = n.rfind("embeddings.", 0) == 0 || n.rfind("encoder.", 0) == 0 || n.rfind("pooler.", 0) == 0;
    if (known)
        n = "bert." + n;
    return n;
}

bool isWeightDecayed(const std::string &name)
{
    return name.find("LayerNorm") == std::string::npos && name.find("layer_norm") == std::string::npos
        && name.find("bias") == std::string::npos;
}

std::string shapeString(const std::vector<int64_t> &shape)
{
    std::string s = "[";
    for (size_t k = 0; k < shape.size(); ++k)
        s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

} // namespace wb
