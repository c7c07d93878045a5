// SPDX-License-Identifier: Apache-2.0
// Test support: the run of the random-state tests (issue 21 section 2; docs/architecture.md
// "Random state") and the bit-for-bit comparison of two runs' checkpoints. Shared by
// tests/core/tst_runrandomness.cpp (the Trainer beside other libtorch jobs) and
// tests/ui/tst_windowrandomness.cpp (the same in the window). Needs libtorch.
#pragma once

#include "support/tinyrun.h"

#include <torch/torch.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <string>

namespace wbtest {

/// writeTinyRun(root, tiny) with dropout 0.1 (the masks are what these tests are about),
/// steps_per_loop 1 (every step's loss reaches the observer) and `seed`, plus root/vocab.txt
/// ([PAD] [UNK] [CLS] [SEP] w4 … w99: the config's 100 ids) as vocab_file, so that Try it and
/// the range test tokenise with it.
inline wb::TrainingOptions writeDropoutRun(const std::string &root, TinyRun tiny, uint64_t seed)
{
    tiny.dropout_prob = 0.1;
    wb::TrainingOptions o = writeTinyRun(root, tiny);
    o.steps_per_loop = 1;
    o.seed = seed;
    o.vocab_file = root + "/vocab.txt";
    std::ofstream vocab(o.vocab_file);
    vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n";
    for (int k = 4; k < 100; ++k)
        vocab << "w" << k << "\n";
    return o;
}

/// The model tensors of a checkpoint written by the Trainer (its "model" dict), by name.
inline std::map<std::string, torch::Tensor> checkpointWeights(const std::string &path)
{
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    c10::IValue model;
    archive.read("model", model);
    std::map<std::string, torch::Tensor> out;
    for (const auto &kv : model.toGenericDict())
        out[kv.key().toStringRef()] = kv.value().toTensor();
    return out;
}

/// Empty when both checkpoints hold the same tensors bit for bit; else the first difference
/// ("N vs M tensors", "<name> missing", "<name> differs by <max abs difference>").
inline std::string weightsDiffer(const std::string &a, const std::string &b)
{
    const auto wa = checkpointWeights(a), wo = checkpointWeights(b);
    if (wa.size() != wo.size())
        return std::to_string(wa.size()) + " vs " + std::to_string(wo.size()) + " tensors";
    for (const auto &[name, t] : wa) {
        const auto it = wo.find(name);
        if (it == wo.end())
            return name + " missing";
        if (!torch::equal(t, it->second))
            return name + " differs by " + std::to_string((t - it->second).abs().max().item<double>());
    }
    return {};
}

} // namespace wbtest
