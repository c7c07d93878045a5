// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

// Masked-language-model pretraining (issue 24): the pretraining heads on the encoder of
// bertmodel.h, their loss, and the names they load from and save to
// (docs/pretraining.md).

#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/weights/parameternames.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

struct CheckpointMatch;

namespace nn {

/// What the pretraining model computes for one batch.
struct PretrainingOutput
{
    torch::Tensor mlm_logits; ///< float32 [B, P, vocab_size]: the logits at masked_lm_positions only
    torch::Tensor nsp_logits; ///< float32 [B, 2] (0 = B follows A, 1 = random), undefined without the head
};

/// BERT encoder + pooler + the pretraining heads of google-research/bert run_pretraining.py
/// (get_masked_lm_output, get_next_sentence_output) with the module names of Hugging Face
/// BertForPreTraining (huggingface/transformers models/bert/modeling_bert.py):
///   bert.embeddings.*, bert.encoder.layer.N.*, bert.pooler.dense.*  (as BertForSequenceClassification)
///   cls.predictions.transform.dense.{weight,bias}      H → H, then hidden_act
///   cls.predictions.transform.LayerNorm.{weight,bias}  eps = the config's layer_norm_eps
///   cls.predictions.bias                                [vocab_size], the output bias
///   cls.seq_relationship.{weight,bias}                  [2, H], [2] (only with the next-sentence head)
/// The decoder is tied: logits = transform(h) · word_embeddingsᵀ + cls.predictions.bias, with
/// bert.embeddings.word_embeddings.weight itself (no parameter of its own; its gradient is
/// the embedding's). Needs embedding_size == hidden_size (BERT's; throws wb::Error naming
/// embedding_size otherwise).
///
/// Random state: initialisation (truncated normal(initializer_range) weights, zero biases,
/// LayerNorm 1/0, as BertForSequenceClassification) and every dropout mask come from
/// `generator` only, the run's stream (docs/architecture.md "Random state"). Throws wb::Error
/// when it is undefined.
///
/// Example:
///   BertForPreTraining m(config, /*nextSentence=*/false, nn::makeGenerator(seed));
///   auto out = m(input_ids, input_mask, segment_ids, masked_lm_positions); // out.mlm_logits [B,P,V]
class BertForPreTrainingImpl : public BertBackboneImpl
{
public:
    BertForPreTrainingImpl(const BertConfig &config, bool nextSentence, at::Generator generator);

    /// input_ids, input_mask, segment_ids int64 [B,S]; masked_lm_positions int64 [B,P] in
    /// [0, S). The sequence output is gathered at the positions before the transform, so the
    /// transform and the [.., vocab_size] product run on B·P rows, never on B·S
    /// (run_pretraining.py gather_indexes). Float32 logits also under autocast.
    PretrainingOutput forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                              const torch::Tensor &segmentIds, const torch::Tensor &maskedLmPositions);
    /// The MLM logits at every position, float32 [B, S, vocab_size] (fill-in-the-blank on a
    /// whole text, tests). The same numbers as forward() at the positions it gathers.
    torch::Tensor mlmLogitsAllPositions(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                                        const torch::Tensor &segmentIds);
    /// The heads on given hidden states: [N, H] → [N, vocab_size] (float32).
    torch::Tensor mlmHead(const torch::Tensor &hidden);

    /// Re-initialises only the heads cls.* (new heads on a pretrained encoder); reset_parameters()
    /// re-initialises every parameter (see the class comment).
    void resetHeads();

    bool hasNextSentenceHead() const { return m_nextSentence; }

    Linear transform{nullptr};                    ///< cls.predictions.transform.dense
    torch::nn::LayerNorm transformLayerNorm{nullptr}; ///< cls.predictions.transform.LayerNorm
    torch::Tensor outputBias;                     ///< cls.predictions.bias [vocab_size]
    Linear seqRelationship{nullptr};              ///< cls.seq_relationship (next-sentence head), or empty

private:
    bool m_nextSentence;
};
TORCH_MODULE(BertForPreTraining);

} // namespace nn

/// The pretraining loss of one batch, float32 scalars.
struct PretrainingLoss
{
    torch::Tensor loss;     ///< mlm_loss (+ nsp_loss with the next-sentence head): what is minimised
    torch::Tensor mlm_loss; ///< Σ w·CE / (Σ w + 1e-5) over the masked positions
    torch::Tensor nsp_loss; ///< mean CE of the next-sentence logits; undefined without the head
    torch::Tensor mlm_per_position; ///< −log p(masked_lm_ids) [B,P], detached (for the metrics)
    torch::Tensor nsp_per_example;  ///< next-sentence CE [B], detached; undefined without the head
};

/// google-research/bert run_pretraining.py's losses: get_masked_lm_output's
/// Σ(masked_lm_weights · −log softmax(logits)[masked_lm_ids]) / (Σ masked_lm_weights + 1e-5)
/// and get_next_sentence_output's mean cross-entropy against next_sentence_labels, summed.
/// mlmLogits float [B,P,V]; maskedLmIds int64 [B,P]; maskedLmWeights float [B,P];
/// nspLogits float [B,2] or undefined; nextSentenceLabels int64 [B] (ignored without logits).
PretrainingLoss pretrainingLoss(const torch::Tensor &mlmLogits, const torch::Tensor &maskedLmIds,
                                const torch::Tensor &maskedLmWeights, const torch::Tensor &nspLogits,
                                const torch::Tensor &nextSentenceLabels);

/// Every trainable tensor of BertForPreTraining for `config`, in registration order, with
/// Hugging Face names (the encoder's as expectedParameters() without classifier.*, then the
/// heads). Torch-free logic.
std::vector<ParameterSpec> pretrainingParameters(const BertConfig &config, bool nextSentence);

/// How a checkpoint tensor of the pretraining heads maps onto the model.
struct HeadNameMapping
{
    std::string model_name;   ///< e.g. "cls.predictions.transform.dense.weight"
    bool kernel = false;      ///< a TF Dense kernel [in, out]: transposed to [out, in]
    bool tied_decoder = false;///< the decoder weight (tied to the word embeddings): compared, not loaded
};

/// Maps a pretraining-head name to the model's: google-research TF1 names
/// (`cls/predictions/transform/dense/kernel|bias`, `cls/predictions/transform/LayerNorm/gamma|beta`,
/// `cls/predictions/output_bias`, `cls/seq_relationship/output_weights` [2, H] (already
/// [out, in]) and `output_bias`, also under module/, model/ or bert/ scopes) and Hugging Face
/// names (`cls.predictions.transform.dense.weight|bias`, `….LayerNorm.weight|bias|gamma|beta`,
/// `cls.predictions.bias`, `cls.predictions.decoder.bias` (HF's alias of cls.predictions.bias),
/// `cls.predictions.decoder.weight` (tied), `cls.seq_relationship.weight|bias`, also under
/// `module.`/`model.`). Nothing for other names. Torch-free; thread-safe.
std::optional<HeadNameMapping> mapPretrainingHeadName(const std::string &name);

/// Loads `path` (anything locateCheckpoint accepts: a Hugging Face folder or file of
/// BertModel / BertForMaskedLM / BertForPreTraining, a google-research TF1 checkpoint, also a
/// fine-tuned classifier's, whose classifier is ignored) into `model`: the encoder by the
/// fine-tuning loader's rules (matchCheckpoint / matchTfCheckpoint: every encoder tensor or
/// an error unless `allowPartialInit`), the heads by mapPretrainingHeadName. Heads the file
/// lacks are initialised anew (listed in `missing`, said in the summary). A shape that
/// differs (another vocab_size: word embeddings or cls.predictions.bias) throws wb::Error
/// naming the tensor, both shapes and vocab_size. A decoder weight that differs from the
/// word embeddings is a warning in the summary (the decoder is tied here). The summary's
/// classifierMissing is false.
CheckpointMatch loadPretrainingCheckpoint(nn::BertForPreTraining &model, const std::string &path,
                                          bool allowPartialInit = false);

/// The model's tensors with Hugging Face BertForMaskedLM / BertForPreTraining names, for an
/// export's model.safetensors: the encoder (without the pooler unless `withPooler`), the
/// transform, `cls.predictions.bias`, `cls.predictions.decoder.weight` (a copy of the word
/// embeddings, which Transformers ties again on load) and `cls.predictions.decoder.bias`,
/// plus cls.seq_relationship.* when `withPooler` and the model has the head.
std::vector<std::pair<std::string, torch::Tensor>> huggingFaceTensors(nn::BertForPreTraining &model, bool withPooler);

/// The model's tensors with google-research TF1 names (bert/embeddings/word_embeddings,
/// bert/encoder/layer_N/attention/self/query/kernel [in, out], …/LayerNorm/gamma, cls/…):
/// what a TF1 checkpoint of run_pretraining.py holds, kernels transposed back to [in, out].
std::vector<std::pair<std::string, torch::Tensor>> tensorFlowTensors(nn::BertForPreTraining &model);

} // namespace wb
