// SPDX-License-Identifier: Apache-2.0
// Test support: the fixtures the init-checkpoint tests share (tst_initcheckpoint,
// tst_tfcheckpoint): the tiny BERT they build, a model's tensors under Hugging Face names,
// and the texts of errors as the tests compare them.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/model/bertmodel.h"
#include "core/util/error.h"

#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace wbtest {

/// BERT of 2 layers, hidden 32, 2 heads, intermediate 64, vocab 100, 64 positions, 2 token types.
inline wb::BertConfig tinyConfig()
{
    wb::BertConfig c;
    c.vocab_size = 100;
    c.hidden_size = 32;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 64;
    c.max_position_embeddings = 64;
    c.type_vocab_size = 2;
    return c;
}

/// Every parameter of `model` as (Hugging Face name, tensor), in registration order;
/// `keep` (when set) chooses which.
inline std::vector<std::pair<std::string, torch::Tensor>>
modelTensors(wb::nn::BertForSequenceClassification &model, const std::function<bool(const std::string &)> &keep = {})
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (auto &p : model->named_parameters())
        if (!keep || keep(p.key()))
            out.emplace_back(p.key(), p.value());
    return out;
}

/// The diagnostics of `diag` of `severity`, one a line: "field | message | hint".
inline std::string findingsOf(const wb::Diagnostics &diag, wb::Severity severity = wb::Severity::Error)
{
    std::string s;
    for (const auto &d : diag.items())
        if (d.severity == severity)
            s += d.field + " | " + d.message + " | " + d.hint + "\n";
    return s;
}

/// The errors of `diag`, one a line.
inline std::string errorsOf(const wb::Diagnostics &diag)
{
    return findingsOf(diag, wb::Severity::Error);
}

/// "field | message | hint" of the wb::Error that `f` throws, or "no error".
inline std::string expectError(const std::function<void()> &f)
{
    try {
        f();
    } catch (const wb::Error &e) {
        return e.field() + " | " + e.what() + " | " + e.hint();
    }
    return "no error";
}

/// True when every parameter of `a` equals b's of the same name (the head too when `withHead`).
inline bool equalModels(wb::nn::BertForSequenceClassification &a, wb::nn::BertForSequenceClassification &b,
                        bool withHead, std::string *firstDifferent = nullptr)
{
    auto pb = b->named_parameters();
    for (auto &p : a->named_parameters()) {
        if (!withHead && p.key().rfind("classifier.", 0) == 0)
            continue;
        if (!torch::equal(p.value(), pb[p.key()])) {
            if (firstDifferent)
                *firstDifferent = p.key();
            return false;
        }
    }
    return true;
}

} // namespace wbtest
