// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h> (through bertmodel.h). Never include from ui/ or app/.
#pragma once

#include "core/model/bertmodel.h"

#include <string>

namespace wb {

/// The ONNX opset the export's graph is written for (ai.onnx 17: LayerNormalization).
constexpr int64_t kOnnxOpset = 17;

/// The classifier `model` (eval mode: no dropout) as a serialised ONNX ModelProto (IR version
/// 8, opset kOnnxOpset), built with the ONNX library's protobuf definitions (libonnx-dev) and
/// checked by onnx::checker::check_model before it is returned:
///   inputs   input_ids, attention_mask, token_type_ids   int64 [batch, sequence] (dynamic axes)
///   output   logits                                      float32 [batch, num_labels]
/// The graph is BertForSequenceClassificationImpl::forward's eval-mode math op by op
/// (core/model/bertmodel.cpp): word + token type + position embeddings (positions
/// 0..sequence-1), LayerNormalization (layer_norm_eps), the optional embedding projection;
/// per block Q/K/V MatMul+Add, scores QKᵀ/√d + (1 − attention_mask)·(−10000), Softmax,
/// context, output dense, residual LayerNormalization, the activation (gelu: exact,
/// 0.5·x·(1 + erf(x/√2)); gelu_new: the tanh form; relu; tanh; silu), output dense, residual
/// LayerNormalization; the last block for the [CLS] position only (its query and residual,
/// as the model's firstTokenOnly); pooler dense + Tanh on [CLS]; classifier dense. Weights
/// are float32 initialisers (dense weights stored transposed, [in, out], for MatMul); names
/// follow Hugging Face's state_dict keys. dtype "fp32" only (the value of --onnx_dtype).
/// Throws wb::Error naming "onnx/model.onnx" when the checker rejects the graph or the
/// model exceeds protobuf's 2 GiB limit. Thread rules: reads the model's parameters; any thread
/// that owns the model.
std::string onnxModelBytes(nn::BertForSequenceClassificationImpl &model, const std::string &dtype = "fp32");

/// Writes onnxModelBytes(model, dtype) to `path` atomically (creating its folder). Throws
/// wb::Error naming the file.
void writeOnnxModel(const std::string &path, nn::BertForSequenceClassificationImpl &model,
                    const std::string &dtype = "fp32");

/// Reads the weights of an onnx/model.onnx that onnxModelBytes wrote back into `model` (built
/// from the export's config.json: the same architecture), so that `classify` and Try it run an
/// export folder that holds the ONNX file instead of model.safetensors. The file must be ours:
/// producer_name "bert-workbench" with a producer_version, inputs input_ids, attention_mask,
/// token_type_ids and output logits, and, for every parameter of `model` (Hugging Face names),
/// a float32 initialiser of that name with its shape (a dense weight [out, in] stored as
/// [in, out]: transposed back), raw or float_data. Throws wb::Error naming the file (and the
/// initialiser) otherwise: not an ONNX file, another producer, a missing or misshapen
/// initialiser (e.g. a config.json of another model). Thread rules: writes the model's
/// parameters; the thread that owns the model.
void loadOnnxWeights(const std::string &path, nn::BertForSequenceClassificationImpl &model);

} // namespace wb
