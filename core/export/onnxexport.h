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
/// follow Hugging Face's state_dict keys. `dtype` is the value of --onnx_dtype: "fp32";
/// "int8" (onnxInt8ModelBytes with the default OnnxInt8Scope); or "fp16": every weight a
/// float16 initialiser (same name and shape, IEEE half, round to nearest) followed by a Cast to
/// float32, so the graph computes in float32. Another is refused (wb::Error naming "onnx_dtype").
/// Throws wb::Error naming "onnx/model.onnx" when the checker rejects the graph or the
/// model exceeds protobuf's 2 GiB limit. Thread rules: reads the model's parameters; any thread
/// that owns the model.
std::string onnxModelBytes(nn::BertForSequenceClassificationImpl &model, const std::string &dtype = "fp32");

/// Symmetric int8 quantization of `t` (any float tensor) with one scale per slice along
/// `reduceDim`'s complement: for each slice (the elements sharing every index but reduceDim's)
///   s = max|t| / levels (float32; 1 when the slice is all zeros),  q = clamp(round(t / s), −levels, levels)
/// with round half to even (torch::round), zero point 0, so t ≈ q·s. `values`: int8, t's shape;
/// `scales`: float32, t's shape with reduceDim of size 1. E.g. a dense weight stored [in, out]
/// with reduceDim 0: one scale per output column ([1, out]); an embedding table [V, E] with
/// reduceDim 1: one per row ([V, 1]). Pure; thread-safe.
struct Int8Tensor
{
    torch::Tensor values; ///< int8, the shape of the input
    torch::Tensor scales; ///< float32, the input's shape with reduceDim of size 1
};
/// `levels`: the largest |q|, 127 or kMatMulIntegerWeightLevels.
Int8Tensor quantizeInt8(const torch::Tensor &t, int64_t reduceDim, int levels = 127);

/// The largest |q| of the weights MatMulInteger multiplies (7 bits, ±63; ONNX Runtime's
/// quantize_dynamic calls it reduce_range). ONNX Runtime's uint8 × int8 kernels on x86 CPUs
/// without VNNI (AVX2, AVX-512 before VNNI) add two products in 16 bits and saturate there:
/// 255·127·2 = 64,770 does not fit, 255·63·2 = 32,130 does. With ±127 an export on an AVX2 EPYC
/// (Zen 3) gave probabilities up to 0.2 away from the float32 model's, and exact agreement on
/// AVX-512 VNNI (docs/file-formats.md, "onnx/model.onnx, int8"). The word embeddings, which are
/// dequantized by a Mul and never reach MatMulInteger, keep ±127.
constexpr int kMatMulIntegerWeightLevels = 63;

/// What `--onnx_dtype int8` quantizes (docs/file-formats.md "onnx/model.onnx, int8"). Every
/// encoder Linear (query, key, value, attention output, intermediate, output dense, and the
/// embedding projection) always; the rest as chosen here. The defaults are the export's.
struct OnnxInt8Scope
{
    /// The word embedding table as int8 rows with a scale per row (Gather, Cast, Mul): the table
    /// is most of a small BERT's file (BERT-Tiny: 90 % of its parameters).
    bool word_embeddings = true;
    /// The pooler and classifier dense layers too (they run on one position; default fp32).
    bool head = false;
};

/// The int8 graph (weights quantized with quantizeInt8, dynamic uint8 quantization of the
/// activations in the graph): each quantized Linear y = x·Wᵀ + b is
///   (x_q, x_s, x_zp) = DynamicQuantizeLinear(x)                    uint8, per tensor
///   y = Cast<float>(MatMulInteger(x_q, W_q, x_zp)) · (x_s · W_s) + b
/// with W_q int8 [in, out] ("<name>.weight_quantized") and W_s float32 [out]
/// ("<name>.weight_scale"), zero point 0; the word embeddings (scope.word_embeddings) as
/// Gather of int8 rows ("bert.embeddings.word_embeddings.weight_quantized" [V, E]) times
/// Gather of their scales ("…weight_scale" [V, 1]). Everything else as onnxModelBytes' fp32
/// graph. Only operators of the default domain (opset kOnnxOpset). Throws as onnxModelBytes.
std::string onnxInt8ModelBytes(nn::BertForSequenceClassificationImpl &model, const OnnxInt8Scope &scope = {});

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
/// [in, out]: transposed back), raw or float_data; or, in an int8 export, "<name>_quantized"
/// (int8, that shape, raw or int32_data) and "<name>_scale" (float32, one per column [out] or
/// per row [rows, 1]), read back as q·s (the weights classify then runs, in float32); a float16
/// initialiser (--onnx_dtype fp16) is read where a float32 one is expected. Throws wb::Error naming the file (and the
/// initialiser) otherwise: not an ONNX file, another producer, a missing or misshapen
/// initialiser (e.g. a config.json of another model). Thread rules: writes the model's
/// parameters; the thread that owns the model.
void loadOnnxWeights(const std::string &path, nn::BertForSequenceClassificationImpl &model);

} // namespace wb
