// SPDX-License-Identifier: Apache-2.0
#include "core/train/attributiontorch.h"

#include "core/util/error.h"

#include <algorithm>

namespace wb {

torch::Tensor attributionBaseline(nn::BertForSequenceClassificationImpl &model, const torch::Tensor &inputIds,
                                  int64_t padId, int64_t clsId, int64_t sepId)
{
    torch::NoGradGuard guard;
    const torch::Tensor keep = inputIds.eq(clsId).logical_or(inputIds.eq(sepId));
    const torch::Tensor ids = torch::where(keep, inputIds, torch::full_like(inputIds, padId));
    return model.embeddings->word_embeddings->forward(ids);
}

TokenAttributions computeTokenAttributions(nn::BertForSequenceClassificationImpl &model, const torch::Tensor &inputIds,
                                           const torch::Tensor &segmentIds, const ExplainOptions &options,
                                           int64_t padId, int64_t clsId, int64_t sepId)
{
    if (model.is_training())
        throw Error("model", "token attributions need the model in eval mode (dropout would change every pass)",
                    "call model->eval() first");
    torch::AutoGradMode gradients(true); // also under a caller's NoGradGuard
    const bool ig = options.method == AttributionMethod::IntegratedGradients;
    const int64_t m = ig ? options.ig_steps : 1;
    if (m < 1)
        throw Error("ig_steps", "ig_steps is " + std::to_string(m) + "; it must be at least 1",
                    "the default is " + std::to_string(kDefaultIgSteps));
    const int64_t seq = inputIds.size(0);
    const torch::Tensor ids = inputIds.reshape({1, seq});
    const torch::Tensor segs = segmentIds.reshape({1, seq});
    torch::Tensor x, baseline, endLogits;
    {
        torch::NoGradGuard guard;
        x = model.embeddings->word_embeddings->forward(ids).squeeze(0); // [S, E]
        baseline = attributionBaseline(model, inputIds.reshape({seq}), padId, clsId, sepId);
        // F(x') and F(x) in one pass: [2, num_labels].
        endLogits = model.forwardFromWordVectors(torch::stack({baseline, x}), torch::ones({2, seq}, torch::kLong),
                                                 segs.expand({2, seq}))
                        .to(torch::kDouble);
    }
    TokenAttributions out;
    const int64_t numLabels = endLogits.size(1);
    const torch::Tensor textLogits = endLogits[1].contiguous();
    out.logits.assign(textLogits.data_ptr<double>(), textLogits.data_ptr<double>() + numLabels);
    int64_t target = options.target_label_id;
    if (target < 0)
        target = int64_t(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
    if (target >= numLabels)
        throw Error("explain_class", "class " + std::to_string(target) + " does not exist: the model has "
                                         + std::to_string(numLabels) + " labels",
                    "pass a label name or an index from 0 to " + std::to_string(numLabels - 1));
    out.target_label_id = target;

    // Only the word vectors need gradients: the parameters leave the graph for these passes
    // (no weight-gradient products, less memory), and get their flag back afterwards.
    struct FrozenParameters
    {
        std::vector<torch::Tensor> frozen;
        explicit FrozenParameters(torch::nn::Module &m)
        {
            for (auto &p : m.parameters())
                if (p.requires_grad()) {
                    p.set_requires_grad(false);
                    frozen.push_back(p);
                }
        }
        ~FrozenParameters()
        {
            for (auto &p : frozen)
                p.set_requires_grad(true);
        }
    } frozen(model);
    const torch::Tensor delta = x - baseline; // [S, E]
    torch::Tensor gradSum = torch::zeros_like(x, torch::kDouble);
    const int64_t batch = interpolationBatch(options.interpolation_batch, seq, model.config().hidden_size,
                                             model.config().num_hidden_layers);
    for (int64_t from = 0; from < m; from += batch) {
        const int64_t n = std::min(batch, m - from);
        torch::Tensor points;
        if (ig) {
            // Midpoints α_k = (k + ½)/m of the path x' + α (x − x').
            const torch::Tensor alphas = (torch::arange(from, from + n, torch::kDouble) + 0.5).div_(double(m)).to(x.scalar_type());
            points = (baseline.unsqueeze(0) + alphas.view({n, 1, 1}) * delta.unsqueeze(0)).detach();
        } else {
            points = x.unsqueeze(0).detach().clone();
        }
        points.set_requires_grad(true);
        const torch::Tensor logits = model.forwardFromWordVectors(points, torch::ones({n, seq}, torch::kLong),
                                                                  segs.expand({n, seq}));
        // Each point's logit depends on its own row only: the gradient of the sum is the
        // per-point gradient.
        const torch::Tensor objective = logits.select(1, target).sum();
        const torch::Tensor grad = torch::autograd::grad({objective}, {points})[0];
        gradSum += grad.to(torch::kDouble).sum(0);
    }
    const torch::Tensor perToken =
        ((ig ? delta : x).to(torch::kDouble) * gradSum.div(double(m))).sum(1).contiguous(); // [S]
    out.attributions.assign(perToken.data_ptr<double>(), perToken.data_ptr<double>() + seq);

    Completeness &c = out.completeness;
    c.applies = ig;
    c.tolerance = options.tolerance;
    for (double a : out.attributions)
        c.attribution_sum += a;
    c.logit_input = out.logits[size_t(target)];
    c.logit_baseline = endLogits[0][target].item<double>();
    finishCompleteness(c);
    return out;
}

} // namespace wb
