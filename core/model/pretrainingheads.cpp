// SPDX-License-Identifier: Apache-2.0
#include "core/model/pretrainingheads.h"

#include "core/kernels/fusedops.h"
#include "core/model/initcheckpoint.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <cstring>
#include <set>

namespace wb {

namespace nn {

namespace {

std::shared_ptr<torch::nn::Module> container(torch::nn::Module &parent, const std::string &name)
{
    return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

} // namespace

BertForPreTrainingImpl::BertForPreTrainingImpl(const BertConfig &c, bool nextSentence, at::Generator generator)
    : BertBackboneImpl(c, std::move(generator), /*tiedDecoder=*/true), m_nextSentence(nextSentence)
{
    auto cls = container(*this, "cls");
    auto predictions = container(*cls, "predictions");
    auto tr = container(*predictions, "transform");
    transform = tr->register_module("dense", Linear(c.hidden_size, c.hidden_size, m_gen));
    transformLayerNorm = tr->register_module(
        "LayerNorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden_size}).eps(c.layer_norm_eps)));
    outputBias = predictions->register_parameter("bias", torch::zeros({c.vocab_size}));
    if (nextSentence)
        seqRelationship = cls->register_module("seq_relationship", Linear(c.hidden_size, 2, m_gen));
    reset_parameters();
}

torch::Tensor BertForPreTrainingImpl::mlmHead(const torch::Tensor &hidden)
{
    auto h = applyLayerNorm(transformLayerNorm, applyActivation(m_config.hidden_act, transform->forward(hidden)));
    // The tied decoder: the word-embedding table itself (run_pretraining.py's
    // matmul(input_tensor, output_weights, transpose_b=True) + output_bias).
    // The fp32 training step runs its three products on oneDNN (nn::fastLinear: the same math;
    // the table's gradient computed as (hᵀ·dlogits)ᵀ, the faster orientation for 30522 outputs).
    const torch::Tensor &table = embeddings->word_embeddings->weight;
    if (torch::GradMode::is_enabled() && fastKernels().linear && fastLinearApplies(h, table, outputBias))
        return fastLinear(h, table, outputBias);
    return torch::addmm(outputBias.to(h.scalar_type()), h, table.to(h.scalar_type()).t()).to(torch::kFloat);
}

PretrainingOutput BertForPreTrainingImpl::forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                                                  const torch::Tensor &segmentIds, const torch::Tensor &positions)
{
    auto hidden = encoder->forward(embeddings->forward(inputIds, segmentIds), inputMask, /*allTokens=*/true);
    const int64_t b = hidden.size(0), hs = hidden.size(2), p = positions.size(1);
    // gather_indexes: [B,S,H] at [B,P] → [B·P, H], before any head computation.
    auto index = positions.to(torch::kLong).unsqueeze(-1).expand({b, p, hs});
    auto gathered = torch::gather(hidden, 1, index).reshape({b * p, hs});
    PretrainingOutput out;
    out.mlm_logits = mlmHead(gathered).view({b, p, -1});
    if (m_nextSentence) {
        auto pooled = torch::tanh(pooler->forward(hidden.select(1, 0)));
        out.nsp_logits = seqRelationship->forward(pooled).to(torch::kFloat);
    }
    return out;
}

torch::Tensor BertForPreTrainingImpl::mlmLogitsAllPositions(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                                                            const torch::Tensor &segmentIds)
{
    auto hidden = encoder->forward(embeddings->forward(inputIds, segmentIds), inputMask, /*allTokens=*/true);
    const int64_t b = hidden.size(0), s = hidden.size(1);
    return mlmHead(hidden.reshape({b * s, hidden.size(2)})).view({b, s, -1});
}

void BertForPreTrainingImpl::resetHeads()
{
    torch::NoGradGuard guard;
    truncatedNormal_(transform->weight, m_config.initializer_range, m_gen);
    transform->bias.zero_();
    transformLayerNorm->weight.fill_(1.0);
    transformLayerNorm->bias.zero_();
    outputBias.zero_();
    if (m_nextSentence) {
        truncatedNormal_(seqRelationship->weight, m_config.initializer_range, m_gen);
        seqRelationship->bias.zero_();
    }
}

} // namespace nn

PretrainingLoss pretrainingLoss(const torch::Tensor &mlmLogits, const torch::Tensor &maskedLmIds,
                                const torch::Tensor &maskedLmWeights, const torch::Tensor &nspLogits,
                                const torch::Tensor &nextSentenceLabels)
{
    PretrainingLoss l;
    const auto logProbs = torch::log_softmax(mlmLogits.to(torch::kFloat), -1);
    // −log p(label) per position: the one-hot product of get_masked_lm_output as a gather.
    const auto perPosition = -logProbs.gather(-1, maskedLmIds.to(torch::kLong).unsqueeze(-1)).squeeze(-1);
    const auto w = maskedLmWeights.to(torch::kFloat);
    l.mlm_loss = (w * perPosition).sum() / (w.sum() + 1e-5);
    l.mlm_per_position = perPosition.detach();
    l.loss = l.mlm_loss;
    if (nspLogits.defined()) {
        const auto nspLog = torch::log_softmax(nspLogits.to(torch::kFloat), -1);
        const auto labels = nextSentenceLabels.to(torch::kLong).reshape({-1});
        l.nsp_loss = torch::nll_loss(nspLog, labels);
        l.nsp_per_example = -nspLog.detach().gather(-1, labels.unsqueeze(-1)).squeeze(-1);
        l.loss = l.mlm_loss + l.nsp_loss;
    }
    return l;
}

std::vector<ParameterSpec> pretrainingParameters(const BertConfig &c, bool nextSentence)
{
    std::vector<ParameterSpec> p;
    for (auto &s : expectedParameters(c, 2))
        if (s.name.rfind("classifier.", 0) != 0)
            p.push_back(std::move(s));
    const int64_t h = c.hidden_size;
    p.push_back({"cls.predictions.bias", {c.vocab_size}});
    p.push_back({"cls.predictions.transform.dense.weight", {h, h}});
    p.push_back({"cls.predictions.transform.dense.bias", {h}});
    p.push_back({"cls.predictions.transform.LayerNorm.weight", {h}});
    p.push_back({"cls.predictions.transform.LayerNorm.bias", {h}});
    if (nextSentence) {
        p.push_back({"cls.seq_relationship.weight", {2, h}});
        p.push_back({"cls.seq_relationship.bias", {2}});
    }
    return p;
}

namespace {

std::optional<HeadNameMapping> mapTfHead(std::string n)
{
    // TF1 names of run_pretraining.py, optionally under module/, model/ or bert/ and with
    // Keras' object-based suffix.
    const std::string attr = "/.ATTRIBUTES/VARIABLE_VALUE";
    if (n.size() > attr.size() && n.compare(n.size() - attr.size(), attr.size(), attr) == 0)
        n.resize(n.size() - attr.size());
    for (int depth = 0; depth < 3 && !startsWith(n, "cls/"); ++depth)
        for (const char *scope : {"module/", "model/", "bert/"})
            if (startsWith(n, scope)) {
                n = n.substr(std::strlen(scope));
                break;
            }
    static const std::pair<const char *, HeadNameMapping> table[] = {
        {"cls/predictions/transform/dense/kernel", {"cls.predictions.transform.dense.weight", true, false}},
        {"cls/predictions/transform/dense/bias", {"cls.predictions.transform.dense.bias", false, false}},
        {"cls/predictions/transform/LayerNorm/gamma", {"cls.predictions.transform.LayerNorm.weight", false, false}},
        {"cls/predictions/transform/LayerNorm/beta", {"cls.predictions.transform.LayerNorm.bias", false, false}},
        {"cls/predictions/output_bias", {"cls.predictions.bias", false, false}},
        // [2, hidden] already: run_pretraining.py multiplies with transpose_b=True.
        {"cls/seq_relationship/output_weights", {"cls.seq_relationship.weight", false, false}},
        {"cls/seq_relationship/output_bias", {"cls.seq_relationship.bias", false, false}},
    };
    for (const auto &[tf, m] : table)
        if (n == tf)
            return m;
    return std::nullopt;
}

} // namespace

std::optional<HeadNameMapping> mapPretrainingHeadName(const std::string &name)
{
    if (name.find('/') != std::string::npos)
        return mapTfHead(name);
    std::string n = name;
    for (const char *scope : {"module.", "model."})
        if (startsWith(n, scope)) {
            n = n.substr(std::strlen(scope));
            break;
        }
    if (!startsWith(n, "cls."))
        return std::nullopt;
    if (endsWith(n, "LayerNorm.gamma"))
        n = n.substr(0, n.size() - 5) + "weight";
    else if (endsWith(n, "LayerNorm.beta"))
        n = n.substr(0, n.size() - 4) + "bias";
    if (n == "cls.predictions.decoder.weight")
        return HeadNameMapping{n, false, true};
    if (n == "cls.predictions.decoder.bias") // Transformers' alias of cls.predictions.bias
        return HeadNameMapping{"cls.predictions.bias", false, false};
    static const std::set<std::string> known = {
        "cls.predictions.bias",
        "cls.predictions.transform.dense.weight",
        "cls.predictions.transform.dense.bias",
        "cls.predictions.transform.LayerNorm.weight",
        "cls.predictions.transform.LayerNorm.bias",
        "cls.seq_relationship.weight",
        "cls.seq_relationship.bias"};
    if (known.count(n))
        return HeadNameMapping{n, false, false};
    return std::nullopt;
}

namespace {

/// The head tensors of a checkpoint: model name → (file name, tensor as [out, in]).
struct HeadTensors
{
    std::map<std::string, std::pair<std::string, torch::Tensor>> heads;
    std::optional<std::pair<std::string, torch::Tensor>> decoder; // the tied decoder weight, when the file has it
};

void addHead(HeadTensors &h, const std::string &path, const std::string &fileName, const HeadNameMapping &m,
             torch::Tensor t)
{
    if (m.kernel)
        t = t.t().contiguous();
    if (m.tied_decoder) {
        h.decoder = std::make_pair(fileName, t);
        return;
    }
    const auto [it, fresh] = h.heads.emplace(m.model_name, std::make_pair(fileName, t));
    // cls.predictions.bias and its alias cls.predictions.decoder.bias are one tensor in
    // Transformers' state dicts: equal copies are fine, different ones are ambiguous.
    if (!fresh && !(it->second.second.sizes() == t.sizes() && torch::equal(it->second.second, t)))
        throw Error(path + ": " + fileName,
                    "'" + it->second.first + "' and '" + fileName + "' both map to " + m.model_name
                        + " and hold different values",
                    "remove one of the two, or save the checkpoint again from a single model");
}

} // namespace

namespace {

/// What a checkpoint file gives the pretraining model: the encoder's tensors by model name
/// ([out, in] layout) and the head tensors.
struct PretrainingTensors
{
    CheckpointMatch match;
    std::map<std::string, torch::Tensor> encoder;
    HeadTensors heads;
};

PretrainingTensors readTfPretraining(const CheckpointSource &src, const BertConfig &cfg, bool allowPartialInit)
{
    PretrainingTensors r;
    const TfBundle bundle = readTfBundle(src.path);
    r.match = matchTfCheckpointToLoad(bundle, cfg, 2, allowPartialInit);
    for (const auto &[fileName, modelName] : r.match.loaded)
        if (modelName.rfind("classifier.", 0) != 0)
            r.encoder[modelName] = readTfModelTensor(bundle, fileName);
    for (const auto &e : bundle.entries)
        if (const auto hm = mapPretrainingHeadName(e.name))
            addHead(r.heads, src.path, e.name, *hm, readTfTensor(bundle, e));
    return r;
}

/// safetensors, pytorch_model.bin (sharded or not) or a torch.save state dict.
PretrainingTensors readOtherPretraining(const CheckpointSource &src, const BertConfig &cfg, bool allowPartialInit)
{
    PretrainingTensors r;
    Diagnostics diag;
    r.match = matchCheckpoint(readWeightsTable(src), src.path, cfg, 2, diag, allowPartialInit);
    throwFirstError(diag);
    const auto tensors = loadWeights(src);
    for (const auto &[fileName, modelName] : r.match.loaded)
        if (modelName.rfind("classifier.", 0) != 0)
            r.encoder[modelName] = tensors.at(fileName);
    for (const auto &[name, t] : tensors)
        if (const auto hm = mapPretrainingHeadName(name))
            addHead(r.heads, src.path, name, *hm, t.to(torch::kFloat));
    return r;
}

/// What the encoder matcher listed: keep the classifier of a fine-tuned file out of `loaded`,
/// and the head tensors out of `unexpected`.
void tidyEncoderMatch(CheckpointMatch &m)
{
    m.loaded.erase(std::remove_if(m.loaded.begin(), m.loaded.end(),
                                  [](const auto &l) { return l.second.rfind("classifier.", 0) == 0; }),
                   m.loaded.end());
    m.unexpected.erase(std::remove_if(m.unexpected.begin(), m.unexpected.end(),
                                      [](const std::string &n) { return mapPretrainingHeadName(n).has_value(); }),
                       m.unexpected.end());
    m.classifierMissing = false;
}

/// The heads into the model: each checked against its shape, listed as loaded or missing. A
/// file without the next-sentence head, or without any head (a BertModel), gives new heads,
/// said so; a partial set of MLM heads is ambiguous, so all of them are initialised then.
void copyHeads(nn::BertForPreTraining &model, const PretrainingTensors &r, const std::string &path, CheckpointMatch &m)
{
    auto params = model->named_parameters();
    bool headsMissing = false;
    for (const auto &spec : pretrainingParameters(model->config(), model->hasNextSentenceHead())) {
        if (spec.name.rfind("cls.", 0) != 0)
            continue;
        const auto it = r.heads.heads.find(spec.name);
        if (it == r.heads.heads.end()) {
            m.missing.push_back(spec.name);
            headsMissing = true;
            continue;
        }
        const auto &[fileName, t] = it->second;
        if (t.sizes().vec() != spec.shape)
            throw Error(path + ": " + fileName,
                        "shape " + shapeString(t.sizes().vec()) + " in the checkpoint, but the model needs "
                            + shapeString(spec.shape) + " for " + spec.name,
                        spec.name == "cls.predictions.bias"
                            ? "the checkpoint was made for vocab_size " + std::to_string(t.size(0))
                                  + ": use its config and vocabulary (vocab_size " + std::to_string(t.size(0)) + ")"
                            : "change hidden_size to match the checkpoint, or use a checkpoint made for this config");
        m.loaded.emplace_back(fileName, spec.name);
    }
    torch::NoGradGuard guard;
    if (headsMissing)
        model->resetHeads();
    for (const auto &[name, entry] : r.heads.heads)
        if (params.contains(name) && (!headsMissing || entry.second.sizes() == params[name].sizes()))
            params[name].copy_(entry.second);
}

/// A decoder stored apart from the word embeddings must have their shape; if it differs from
/// them in value it is listed as unexpected (the decoder is tied here).
void checkTiedDecoder(const nn::BertForPreTraining &model, const PretrainingTensors &r, const std::string &path,
                      CheckpointMatch &m)
{
    if (!r.heads.decoder)
        return;
    const auto &[fileName, t] = *r.heads.decoder;
    const auto &table = model->embeddings->word_embeddings->weight;
    if (t.sizes() != table.sizes())
        throw Error(path + ": " + fileName,
                    "shape " + shapeString(t.sizes().vec()) + " of the decoder, but the word embeddings are "
                        + shapeString(table.sizes().vec()),
                    "use a checkpoint made for this config (vocab_size " + std::to_string(model->config().vocab_size) + ")");
    if (!torch::allclose(t, table, 0, 0))
        m.unexpected.push_back(fileName + " (differs from the word embeddings; the decoder is tied to them here)");
}

} // namespace

CheckpointMatch loadPretrainingCheckpoint(nn::BertForPreTraining &model, const std::string &path, bool allowPartialInit)
{
    const CheckpointSource src = locateCheckpoint(path);
    const PretrainingTensors r = src.format == CheckpointFormat::TensorFlow
                                     ? readTfPretraining(src, model->config(), allowPartialInit)
                                     : readOtherPretraining(src, model->config(), allowPartialInit);
    CheckpointMatch m = r.match;
    tidyEncoderMatch(m);
    {
        auto params = model->named_parameters();
        torch::NoGradGuard guard;
        for (const auto &[name, t] : r.encoder)
            params[name].copy_(t);
    }
    copyHeads(model, r, src.path, m);
    checkTiedDecoder(model, r, src.path, m);
    return m;
}

namespace {

/// HF name of an encoder tensor → its google-research TF1 name, and whether it is a kernel.
std::pair<std::string, bool> tf1NameOf(const std::string &hf)
{
    std::string n = hf;
    bool kernel = false;
    if (endsWith(n, "_embeddings.weight")) {
        n.resize(n.size() - 7);
    } else if (n.find("LayerNorm.") != std::string::npos) {
        n = endsWith(n, ".weight") ? n.substr(0, n.size() - 6) + "gamma" : n.substr(0, n.size() - 4) + "beta";
    } else if (endsWith(n, ".weight")) {
        n = n.substr(0, n.size() - 6) + "kernel";
        kernel = true;
    }
    const std::string layer = "bert.encoder.layer.";
    if (n.rfind(layer, 0) == 0)
        n = "bert.encoder.layer_" + n.substr(layer.size());
    for (char &ch : n)
        if (ch == '.')
            ch = '/';
    return {n, kernel};
}

} // namespace

std::vector<std::pair<std::string, torch::Tensor>> huggingFaceTensors(nn::BertForPreTraining &model, bool withPooler)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    auto params = model->named_parameters();
    for (const auto &spec : pretrainingParameters(model->config(), model->hasNextSentenceHead())) {
        const bool pooler = spec.name.rfind("bert.pooler.", 0) == 0;
        const bool nsp = spec.name.rfind("cls.seq_relationship.", 0) == 0;
        if ((pooler || nsp) && !withPooler)
            continue;
        out.emplace_back(spec.name, params[spec.name].detach());
        if (spec.name == "cls.predictions.bias") {
            out.emplace_back("cls.predictions.decoder.weight", model->embeddings->word_embeddings->weight.detach());
            out.emplace_back("cls.predictions.decoder.bias", params[spec.name].detach());
        }
    }
    return out;
}

std::vector<std::pair<std::string, torch::Tensor>> tensorFlowTensors(nn::BertForPreTraining &model)
{
    std::vector<std::pair<std::string, torch::Tensor>> out;
    auto params = model->named_parameters();
    static const std::map<std::string, std::string> heads = {
        {"cls.predictions.bias", "cls/predictions/output_bias"},
        {"cls.seq_relationship.weight", "cls/seq_relationship/output_weights"},
        {"cls.seq_relationship.bias", "cls/seq_relationship/output_bias"}};
    for (const auto &spec : pretrainingParameters(model->config(), model->hasNextSentenceHead())) {
        const torch::Tensor t = params[spec.name].detach();
        if (const auto h = heads.find(spec.name); h != heads.end()) {
            out.emplace_back(h->second, t);
            continue;
        }
        const auto [name, kernel] = tf1NameOf(spec.name);
        out.emplace_back(name, kernel ? t.t().contiguous() : t);
    }
    return out;
}

} // namespace wb
