// SPDX-License-Identifier: Apache-2.0
#include "core/infer/attributiontorch.h"

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

namespace {

/// Takes the parameters out of the graph while it lives and gives them their flag back after:
/// only the word vectors need gradients for attributions (no weight-gradient products, less memory).
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
    FrozenParameters(const FrozenParameters &) = delete;
    FrozenParameters &operator=(const FrozenParameters &) = delete;
};

/// The text's word vectors x [S, E], the baseline's x' [S, E] and the logits F(x'), F(x) of
/// both in one pass ([2, num_labels], float64), without gradients.
struct Endpoints
{
    torch::Tensor x, baseline, logits;
};

Endpoints endpoints(nn::BertForSequenceClassificationImpl &model, const torch::Tensor &inputIds,
                    const torch::Tensor &segs, int64_t padId, int64_t clsId, int64_t sepId)
{
    torch::NoGradGuard guard;
    const int64_t seq = inputIds.size(0);
    Endpoints e;
    e.x = model.embeddings->word_embeddings->forward(inputIds.reshape({1, seq})).squeeze(0);
    e.baseline = attributionBaseline(model, inputIds.reshape({seq}), padId, clsId, sepId);
    e.logits = model.forwardFromWordVectors(torch::stack({e.baseline, e.x}), torch::ones({2, seq}, torch::kLong),
                                            segs.expand({2, seq}))
                   .to(torch::kDouble);
    return e;
}

/// The class to explain: options.target_label_id, or the text's top class where it is < 0.
/// Throws wb::Error (field explain_class) for a class the model does not have.
int64_t targetClass(const std::vector<double> &logits, int64_t requested)
{
    const int64_t numLabels = int64_t(logits.size());
    const int64_t target =
        requested >= 0 ? requested : int64_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
    if (target >= numLabels)
        throw Error("explain_class", "class " + std::to_string(target) + " does not exist: the model has "
                                         + std::to_string(numLabels) + " labels",
                    "pass a label name or an index from 0 to " + std::to_string(numLabels - 1));
    return target;
}

/// Σ_k ∂F_target/∂x at the m points (float64, [S, E]): the integrated-gradients midpoints
/// x' + α_k (x − x'), α_k = (k + ½)/m, or x itself once for plain gradients; in batches of
/// interpolationBatch points.
torch::Tensor gradientSum(nn::BertForSequenceClassificationImpl &model, const Endpoints &e, const torch::Tensor &segs,
                          const ExplainOptions &options, bool ig, int64_t m, int64_t target)
{
    const int64_t seq = e.x.size(0);
    const torch::Tensor delta = e.x - e.baseline; // [S, E]
    torch::Tensor gradSum = torch::zeros_like(e.x, torch::kDouble);
    const int64_t batch = interpolationBatch(options.interpolation_batch, seq, model.config().hidden_size,
                                             model.config().num_hidden_layers);
    for (int64_t from = 0; from < m; from += batch) {
        const int64_t n = std::min(batch, m - from);
        torch::Tensor points;
        if (ig) {
            const torch::Tensor alphas =
                (torch::arange(from, from + n, torch::kDouble) + 0.5).div_(double(m)).to(e.x.scalar_type());
            points = (e.baseline.unsqueeze(0) + alphas.view({n, 1, 1}) * delta.unsqueeze(0)).detach();
        } else {
            points = e.x.unsqueeze(0).detach().clone();
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
    return gradSum;
}

} // namespace

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
    const torch::Tensor segs = segmentIds.reshape({1, seq});
    const Endpoints e = endpoints(model, inputIds, segs, padId, clsId, sepId);
    TokenAttributions out;
    const torch::Tensor textLogits = e.logits[1].contiguous();
    out.logits.assign(textLogits.data_ptr<double>(), textLogits.data_ptr<double>() + e.logits.size(1));
    const int64_t target = targetClass(out.logits, options.target_label_id);
    out.target_label_id = target;
    const torch::Tensor baselineLogits = e.logits[0].contiguous();
    out.baseline_logits.assign(baselineLogits.data_ptr<double>(), baselineLogits.data_ptr<double>() + e.logits.size(1));

    const FrozenParameters frozen(model);
    const torch::Tensor gradSum = gradientSum(model, e, segs, options, ig, m, target);
    const torch::Tensor perToken =
        ((ig ? e.x - e.baseline : e.x).to(torch::kDouble) * gradSum.div(double(m))).sum(1).contiguous(); // [S]
    out.attributions.assign(perToken.data_ptr<double>(), perToken.data_ptr<double>() + seq);

    Completeness &c = out.completeness;
    c.applies = ig;
    c.tolerance = options.tolerance;
    for (double a : out.attributions)
        c.attribution_sum += a;
    c.logit_input = out.logits[size_t(target)];
    c.logit_baseline = e.logits[0][target].item<double>();
    finishCompleteness(c);
    judgeBaseline(c, out.logits, out.baseline_logits, target);
    return out;
}

} // namespace wb
