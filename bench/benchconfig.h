// SPDX-License-Identifier: Apache-2.0
// The BERT configurations the training benchmarks run (bench_train, bench_stepab,
// bench_allreduce): Google's BERT-Tiny (L2 H128), BERT-Mini (L4 H256) and BERT-Base (L12 H768),
// with the uncased vocabulary and two segment types, as the example and the lessons use them;
// and the kernel sets their A/B runs name (nn::setFastKernels).
#pragma once

#include "core/config/bertconfig.h"
#include "core/kernels/fusedops.h"

#include <algorithm>
#include <string>
#include <vector>

namespace wb {

/// "tiny", "base", or anything else for "mini".
inline BertConfig benchConfig(const std::string &name)
{
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    if (name == "tiny") {
        c.num_hidden_layers = 2, c.hidden_size = 128, c.num_attention_heads = 2, c.intermediate_size = 512;
    } else if (name == "base") {
        c.num_hidden_layers = 12, c.hidden_size = 768, c.num_attention_heads = 12, c.intermediate_size = 3072;
    } else {
        c.num_hidden_layers = 4, c.hidden_size = 256, c.num_attention_heads = 4, c.intermediate_size = 1024;
    }
    return c;
}

/// The kernel sets a benchmark takes by name.
inline const std::vector<std::string> &benchKernelNames()
{
    static const std::vector<std::string> names{"dnnl",   "aten",        "linear", "attention", "nogelu",
                                                "nosoftmax", "nolayernorm", "nobias", "dwdnnl",    "dwblas", "noblocked"};
    return names;
}

/// The kernels `name` stands for: "dnnl" the product's default (nn::FastKernels{}), "aten"
/// none of them (the step before issue 28 §3), "linear" / "attention" one lever each, "no…"
/// the default less one fused pass ("noblocked": the attention over the whole batch, not in
/// blocks, nn::blockedAttention), "dwdnnl" / "dwblas" the default with the weight gradients on
/// oneDNN / the BLAS whatever automaticWeightGradientLibrary() says. False for an unknown name.
inline bool benchKernels(const std::string &name, nn::FastKernels &out)
{
    const auto &names = benchKernelNames();
    if (std::find(names.begin(), names.end(), name) == names.end())
        return false;
    const bool all = name != "aten" && name != "linear" && name != "attention";
    out = {all || name == "linear", all || name == "attention", all && name != "nogelu",
           all && name != "nosoftmax", all && name != "nolayernorm", all && name != "nobias"};
    out.blockedAttention = all && name != "noblocked";
    if (name == "dwdnnl" || name == "dwblas")
        out.weightGradients = name == "dwdnnl" ? nn::WeightGradientLibrary::OneDnn : nn::WeightGradientLibrary::Blas;
    return true;
}

} // namespace wb
