// SPDX-License-Identifier: Apache-2.0
// The export's onnx/model.onnx (docs/file-formats.md "Export folder"). Operators and their
// attributes as the ONNX operator specification defines them for opset 17
// (https://github.com/onnx/onnx/blob/main/docs/Operators.md).
#include "core/export/onnxexport.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/util/error.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <filesystem>
#include <functional>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr const char *kFile = "onnx/model.onnx";
constexpr double kMaskedLogit = -10000.0; // the model's additive mask (core/model/bertmodel.cpp)

/// Appends nodes and initialisers to one GraphProto; every value gets a fresh name.
class GraphBuilder
{
public:
    explicit GraphBuilder(onnx::GraphProto &g) : m_g(g) {}

    /// A float32 initialiser from a CPU tensor (contiguous copy), `name` as given.
    std::string weight(const std::string &name, const torch::Tensor &t)
    {
        if (m_halfWeights) { // float16 initialiser, Cast to float32 in the graph (folded at load)
            const torch::Tensor h = t.detach().to(torch::kCPU, torch::kHalf).contiguous();
            onnx::TensorProto *p = initializer(name, onnx::TensorProto::FLOAT16);
            for (int64_t d : h.sizes())
                p->add_dims(d);
            p->set_raw_data(std::string(static_cast<const char *>(h.data_ptr()), size_t(h.numel()) * 2));
            return opWith("Cast", {name}, [](onnx::NodeProto *n) { attr(n, "to", int64_t(onnx::TensorProto::FLOAT)); },
                          "weight_float");
        }
        const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
        onnx::TensorProto *p = initializer(name, onnx::TensorProto::FLOAT);
        for (int64_t d : c.sizes())
            p->add_dims(d);
        p->set_raw_data(std::string(static_cast<const char *>(c.data_ptr()), size_t(c.numel()) * sizeof(float)));
        return name;
    }
    /// A dense layer's weight [out, in] stored as [in, out] for MatMul.
    std::string transposed(const std::string &name, const torch::Tensor &w) { return weight(name, w.t()); }
    /// An int8 initialiser (raw bytes) from an int8 CPU tensor, `name` as given.
    std::string int8Weight(const std::string &name, const torch::Tensor &t)
    {
        const torch::Tensor c = t.contiguous();
        onnx::TensorProto *p = initializer(name, onnx::TensorProto::INT8);
        for (int64_t d : c.sizes())
            p->add_dims(d);
        p->set_raw_data(std::string(static_cast<const char *>(c.data_ptr()), size_t(c.numel())));
        return name;
    }

    std::string floatScalar(float v)
    {
        onnx::TensorProto *p = initializer(fresh("const"), onnx::TensorProto::FLOAT);
        p->add_float_data(v);
        return p->name();
    }
    std::string ints(const std::vector<int64_t> &v)
    {
        onnx::TensorProto *p = initializer(fresh("const"), onnx::TensorProto::INT64);
        p->add_dims(int64_t(v.size()));
        for (int64_t x : v)
            p->add_int64_data(x);
        return p->name();
    }
    std::string intScalar(int64_t v)
    {
        onnx::TensorProto *p = initializer(fresh("const"), onnx::TensorProto::INT64);
        p->add_int64_data(v);
        return p->name();
    }

    onnx::NodeProto *node(const std::string &op, const std::vector<std::string> &inputs, const std::string &output)
    {
        onnx::NodeProto *n = m_g.add_node();
        n->set_op_type(op);
        n->set_name(output + "/" + op);
        for (const auto &i : inputs)
            n->add_input(i);
        n->add_output(output);
        return n;
    }
    std::string op(const std::string &op, const std::vector<std::string> &inputs, const std::string &hint = "t")
    {
        const std::string out = fresh(hint);
        node(op, inputs, out);
        return out;
    }
    static void attr(onnx::NodeProto *n, const std::string &name, int64_t v)
    {
        auto *a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    static void attr(onnx::NodeProto *n, const std::string &name, float v)
    {
        auto *a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
    }
    static void attr(onnx::NodeProto *n, const std::string &name, const std::vector<int64_t> &v)
    {
        auto *a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t x : v)
            a->add_ints(x);
    }
    std::string opWith(const std::string &type, const std::vector<std::string> &inputs,
                       const std::function<void(onnx::NodeProto *)> &attrs, const std::string &hint = "t")
    {
        const std::string out = fresh(hint);
        attrs(node(type, inputs, out));
        return out;
    }

    /// x·Wᵀ + b for a Linear (weight [out, in]) named `prefix` (.weight, .bias); int8 (quantizedDense)
    /// while setQuantizeDense(true).
    std::string dense(const std::string &x, const std::string &prefix, const nn::Linear &l)
    {
        if (m_quantizeDense)
            return quantizedDense(x, prefix, l);
        const std::string w = transposed(prefix + ".weight", l->weight);
        const std::string b = weight(prefix + ".bias", l->bias);
        return op("Add", {op("MatMul", {x, w}, "matmul"), b}, "dense");
    }
    std::string layerNorm(const std::string &x, const std::string &prefix, const torch::nn::LayerNorm &ln, double eps)
    {
        const std::string g = weight(prefix + ".weight", ln->weight);
        const std::string b = weight(prefix + ".bias", ln->bias);
        return opWith("LayerNormalization", {x, g, b},
                      [eps](onnx::NodeProto *n) {
                          attr(n, "axis", int64_t(-1));
                          attr(n, "epsilon", float(eps));
                      },
                      "layernorm");
    }

    std::string fresh(const std::string &hint) { return "/" + hint + "_" + std::to_string(m_next++); }

    void setQuantizeDense(bool on) { m_quantizeDense = on; }
    /// --onnx_dtype fp16: every weight() a float16 initialiser followed by a Cast to float32.
    void setHalfWeights(bool on) { m_halfWeights = on; }

    /// x·Wᵀ + b with W as int8 columns (quantizeInt8) and x quantized in the graph, once per value
    /// (query, key and value share their input's): Cast(MatMulInteger(x_q, W_q, x_zp))·(x_s·W_s) + b.
    std::string quantizedDense(const std::string &x, const std::string &prefix, const nn::Linear &l)
    {
        // [in, out], a scale per column, 7 bits (kMatMulIntegerWeightLevels)
        const Int8Tensor q = quantizeInt8(l->weight.detach().t(), 0, kMatMulIntegerWeightLevels);
        const std::string w = int8Weight(prefix + ".weight_quantized", q.values);
        const std::string ws = weight(prefix + ".weight_scale", q.scales.reshape({-1}));
        const std::string bias = weight(prefix + ".bias", l->bias);
        auto it = m_quantized.find(x);
        if (it == m_quantized.end()) {
            const std::array<std::string, 3> out{fresh("x_quantized"), fresh("x_scale"), fresh("x_zero_point")};
            onnx::NodeProto *n = m_g.add_node();
            n->set_op_type("DynamicQuantizeLinear");
            n->set_name(out[0] + "/DynamicQuantizeLinear");
            n->add_input(x);
            for (const auto &o : out)
                n->add_output(o);
            it = m_quantized.emplace(x, out).first;
        }
        const auto &[xq, xs, xzp] = it->second;
        const std::string product = op("MatMulInteger", {xq, w, xzp}, "matmul_integer"); // int32
        const std::string asFloat = opWith("Cast", {product},
                                           [](onnx::NodeProto *n) { attr(n, "to", int64_t(onnx::TensorProto::FLOAT)); },
                                           "matmul_float");
        return op("Add", {op("Mul", {asFloat, op("Mul", {xs, ws}, "scales")}, "matmul"), bias}, "dense");
    }

private:
    /// A new initialiser of the graph named `name`, of element type `type` (no dims, no data yet).
    onnx::TensorProto *initializer(const std::string &name, onnx::TensorProto::DataType type)
    {
        onnx::TensorProto *p = m_g.add_initializer();
        p->set_name(name);
        p->set_data_type(type);
        return p;
    }

    onnx::GraphProto &m_g;
    int64_t m_next = 0;
    bool m_quantizeDense = false;
    bool m_halfWeights = false;
    std::map<std::string, std::array<std::string, 3>> m_quantized; // x → DynamicQuantizeLinear's outputs
};

void addInput(onnx::GraphProto &g, const std::string &name, int elemType, const std::vector<std::string> &dims)
{
    onnx::ValueInfoProto *v = g.add_input();
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elemType);
    for (const auto &d : dims)
        t->mutable_shape()->add_dim()->set_dim_param(d);
}

std::string activation(GraphBuilder &b, const std::string &name, const std::string &x)
{
    // 0.5·x·(1 + erf(x/√2)), torch::gelu's exact form; x/√2 as Div, the form ONNX Runtime fuses into Gelu.
    if (name == "gelu") {
        const std::string e = b.op("Erf", {b.op("Div", {x, b.floatScalar(float(std::sqrt(2.0)))})});
        return b.op("Mul", {b.op("Mul", {x, b.op("Add", {e, b.floatScalar(1.0f)})}), b.floatScalar(0.5f)}, "gelu");
    }
    if (name == "gelu_new" || name == "gelu_fast" || name == "gelu_pytorch_tanh") {
        // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), torch::gelu(x, "tanh")
        const std::string cube = b.op("Mul", {b.op("Mul", {x, x}), x});
        const std::string inner = b.op(
            "Mul", {b.op("Add", {x, b.op("Mul", {cube, b.floatScalar(0.044715f)})}),
                    b.floatScalar(float(std::sqrt(2.0 / M_PI)))});
        return b.op("Mul", {b.op("Mul", {x, b.op("Add", {b.op("Tanh", {inner}), b.floatScalar(1.0f)})}),
                            b.floatScalar(0.5f)},
                    "gelu");
    }
    if (name == "relu")
        return b.op("Relu", {x});
    if (name == "tanh")
        return b.op("Tanh", {x});
    if (name == "silu" || name == "swish")
        return b.op("Mul", {x, b.op("Sigmoid", {x})}, "silu");
    throw Error(kFile, "the activation '" + name + "' has no ONNX form here", "use gelu, gelu_new, relu, tanh or silu");
}

/// [B,S,H] → [B,A,S,D] (perm 0,2,1,3) or, for keys, [B,A,D,S] (perm 0,2,3,1).
std::string heads(GraphBuilder &b, const std::string &x, int64_t a, int64_t d, bool keys)
{
    const std::string r = b.op("Reshape", {x, b.ints({0, 0, a, d})}, "heads");
    return b.opWith("Transpose", {r},
                    [keys](onnx::NodeProto *n) {
                        GraphBuilder::attr(n, "perm", keys ? std::vector<int64_t>{0, 2, 3, 1}
                                                           : std::vector<int64_t>{0, 2, 1, 3});
                    },
                    keys ? "keys_t" : "heads_t");
}

/// Sets the model's header (IR version, producer, opset 17) and declares the graph's inputs
/// input_ids, attention_mask, token_type_ids [batch, sequence] and its output logits [batch, numLabels].
void declareModel(onnx::ModelProto &m, int64_t numLabels)
{
    m.set_ir_version(8);
    m.set_producer_name("bert-workbench");
    m.set_producer_version(WB_VERSION);
    m.set_model_version(1);
    m.set_doc_string("BertForSequenceClassification (eval mode): logits from input_ids, attention_mask, token_type_ids");
    auto *opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(kOnnxOpset);
    onnx::GraphProto &g = *m.mutable_graph();
    g.set_name("bert_for_sequence_classification");
    for (const char *in : {"input_ids", "attention_mask", "token_type_ids"})
        addInput(g, in, onnx::TensorProto::INT64, {"batch", "sequence"});
    onnx::ValueInfoProto *v = g.add_output();
    v->set_name("logits");
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("batch");
    t->mutable_shape()->add_dim()->set_dim_value(numLabels);
}

/// The embeddings: word + token type + position (the first `sequence` rows), LayerNorm, then the
/// projection to hidden_size where the model has one. Returns the value [B,S,H].
std::string embeddingsGraph(GraphBuilder &b, nn::BertForSequenceClassificationImpl &model, bool int8Words)
{
    auto &e = *model.embeddings;
    const std::string table = "bert.embeddings.word_embeddings.weight";
    std::string words;
    if (int8Words) { // int8 rows times their scales: Cast(Gather(q, ids))·Gather(s, ids)
        const Int8Tensor q = quantizeInt8(e.word_embeddings->weight.detach(), 1); // scales [V, 1]
        const std::string rows = b.op("Gather", {b.int8Weight(table + "_quantized", q.values), "input_ids"}, "words_q");
        const std::string scales = b.op("Gather", {b.weight(table + "_scale", q.scales), "input_ids"}, "words_s");
        words = b.op("Mul",
                     {b.opWith("Cast", {rows},
                               [](onnx::NodeProto *n) {
                                   GraphBuilder::attr(n, "to", int64_t(onnx::TensorProto::FLOAT));
                               },
                               "words_f"),
                      scales},
                     "words");
    } else {
        words = b.op("Gather", {b.weight(table, e.word_embeddings->weight), "input_ids"}, "words");
    }
    const std::string types = b.op(
        "Gather", {b.weight("bert.embeddings.token_type_embeddings.weight", e.token_type_embeddings->weight),
                   "token_type_ids"},
        "token_types");
    const std::string seqLen = b.opWith("Shape", {"input_ids"},
                                        [](onnx::NodeProto *n) {
                                            GraphBuilder::attr(n, "start", int64_t(1));
                                            GraphBuilder::attr(n, "end", int64_t(2));
                                        },
                                        "sequence_length"); // [1]
    const std::string positions =
        b.op("Slice", {b.weight("bert.embeddings.position_embeddings.weight", e.position_embeddings->weight),
                       b.ints({0}), seqLen, b.ints({0})},
             "positions"); // [S, E]
    std::string hidden = b.op("Add", {b.op("Add", {words, types}), positions}, "embeddings");
    hidden = b.layerNorm(hidden, "bert.embeddings.LayerNorm", e.LayerNorm, model.config().layer_norm_eps);
    if (!e.embedding_projection.is_empty())
        hidden = b.dense(hidden, "bert.embeddings.embedding_projection", e.embedding_projection);
    return hidden;
}

/// The additive mask [B,1,1,S]: (1 − attention_mask)·(−10000).
std::string maskBiasGraph(GraphBuilder &b)
{
    const std::string maskF = b.opWith("Cast", {"attention_mask"},
                                       [](onnx::NodeProto *n) {
                                           GraphBuilder::attr(n, "to", int64_t(onnx::TensorProto::FLOAT));
                                       },
                                       "mask_float");
    return b.op(
        "Unsqueeze",
        {b.op("Mul", {b.op("Sub", {b.floatScalar(1.0f), maskF}), b.floatScalar(float(kMaskedLogit))}), b.ints({1, 2})},
        "mask_bias");
}

/// One encoder layer (weights named `p`…) over `hidden`: self-attention with `maskBias` and the
/// scores' `scale`, its residual LayerNorm, then the feed-forward block and its LayerNorm. With
/// `firstTokenOnly` the queries are the [CLS] position only and the result is [B,1,H].
std::string encoderLayerGraph(GraphBuilder &b, const BertConfig &c, const nn::BertLayerImpl &L, const std::string &p,
                              const std::string &hidden, const std::string &maskBias, const std::string &scale,
                              bool firstTokenOnly)
{
    const int64_t heads_ = c.num_attention_heads, d = c.hidden_size / c.num_attention_heads;
    const std::string qIn =
        firstTokenOnly ? b.op("Slice", {hidden, b.ints({0}), b.ints({1}), b.ints({1})}, "cls") : hidden;
    const std::string q = heads(b, b.dense(qIn, p + "attention.self.query", L.query), heads_, d, false);
    const std::string k = heads(b, b.dense(hidden, p + "attention.self.key", L.key), heads_, d, true);
    const std::string v = heads(b, b.dense(hidden, p + "attention.self.value", L.value), heads_, d, false);
    const std::string scores = b.op("Add", {b.op("Mul", {b.op("MatMul", {q, k}), scale}), maskBias}, "scores");
    const std::string probs = b.opWith("Softmax", {scores},
                                       [](onnx::NodeProto *n) { GraphBuilder::attr(n, "axis", int64_t(-1)); },
                                       "probs");
    const std::string ctx = b.op(
        "Reshape",
        {b.opWith("Transpose", {b.op("MatMul", {probs, v})},
                  [](onnx::NodeProto *n) { GraphBuilder::attr(n, "perm", std::vector<int64_t>{0, 2, 1, 3}); }),
         b.ints({0, 0, c.hidden_size})},
        "context");
    const std::string attn =
        b.layerNorm(b.op("Add", {b.dense(ctx, p + "attention.output.dense", L.attentionOutput), qIn}),
                    p + "attention.output.LayerNorm", L.attentionLayerNorm, c.layer_norm_eps);
    const std::string inter = activation(b, c.hidden_act, b.dense(attn, p + "intermediate.dense", L.intermediate));
    return b.layerNorm(b.op("Add", {b.dense(inter, p + "output.dense", L.output), attn}), p + "output.LayerNorm",
                       L.outputLayerNorm, c.layer_norm_eps);
}

/// The pooler (dense + tanh on [CLS] of `hidden`) and the classifier, whose result is the
/// graph's output "logits".
void classifierGraph(GraphBuilder &b, nn::BertForSequenceClassificationImpl &model, const std::string &hidden)
{
    const std::string cls = b.opWith("Gather", {hidden, b.intScalar(0)},
                                     [](onnx::NodeProto *n) { GraphBuilder::attr(n, "axis", int64_t(1)); },
                                     "cls_hidden"); // [B,H]
    const std::string pooled = b.op("Tanh", {b.dense(cls, "bert.pooler.dense", model.pooler)}, "pooled");
    const std::string logits = b.dense(pooled, "classifier", model.classifier);
    b.node("Identity", {logits}, "logits");
}

/// The bytes of `m` once ONNX's checker accepts it. Throws wb::Error when the checker rejects it,
/// when it is over protobuf's 2 GB limit or when it cannot be serialised.
std::string checkedModelBytes(const onnx::ModelProto &m)
{
    try {
        onnx::checker::check_model(m);
    } catch (const std::exception &ex) {
        throw Error(kFile, std::string("the ONNX checker rejects the graph: ") + ex.what(),
                    "this is a bug in the ONNX export; please report it with the model's bert_config.json");
    }
    if (m.ByteSizeLong() > size_t(2000) * 1000 * 1000)
        throw Error(kFile, "the model is larger than ONNX's 2 GB single-file limit (protobuf)",
                    "export with " + optionName("onnx_dtype") + " none and convert model.safetensors with another tool");
    std::string bytes;
    if (!m.SerializeToString(&bytes))
        throw Error(kFile, "cannot serialise the ONNX model", "this is a bug in the ONNX export; please report it");
    return bytes;
}

std::string graphBytes(nn::BertForSequenceClassificationImpl &model, const OnnxInt8Scope *int8, bool halfWeights);

} // namespace

Int8Tensor quantizeInt8(const torch::Tensor &t, int64_t reduceDim, int levels)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor f = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
    const torch::Tensor amax = f.abs().amax({reduceDim}, /*keepdim=*/true);
    const torch::Tensor scales = torch::where(amax > 0, amax / float(levels), torch::ones_like(amax)).contiguous();
    const torch::Tensor q = torch::round(f / scales).clamp(-levels, levels).to(torch::kChar).contiguous();
    return {q, scales};
}

std::string onnxModelBytes(nn::BertForSequenceClassificationImpl &model, const std::string &dtype)
{
    if (dtype == "int8")
        return onnxInt8ModelBytes(model);
    if (dtype != "fp32" && dtype != "fp16")
        throw Error("onnx_dtype", "unsupported ONNX number format '" + dtype + "'",
                    "use " + optionName("onnx_dtype") + " fp32 or int8 (or fp16), or none to leave the ONNX file out");
    return graphBytes(model, nullptr, dtype == "fp16");
}

std::string onnxInt8ModelBytes(nn::BertForSequenceClassificationImpl &model, const OnnxInt8Scope &scope)
{
    return graphBytes(model, &scope, false);
}

namespace {

/// The graph of `model`: fp32, int8 as `int8` says (null: not int8), or float16 weights.
std::string graphBytes(nn::BertForSequenceClassificationImpl &model, const OnnxInt8Scope *int8, bool halfWeights)
{
    torch::NoGradGuard noGrad;
    const BertConfig &c = model.config();
    const int64_t d = c.hidden_size / c.num_attention_heads;

    onnx::ModelProto m;
    declareModel(m, model.numLabels());
    GraphBuilder b(*m.mutable_graph());

    b.setHalfWeights(halfWeights);
    b.setQuantizeDense(int8 != nullptr);
    std::string hidden = embeddingsGraph(b, model, int8 && int8->word_embeddings);
    const std::string maskBias = maskBiasGraph(b);
    const std::string scale = b.floatScalar(float(1.0 / std::sqrt(double(d))));
    const auto &layers = model.encoder->layers;
    for (size_t l = 0; l < layers.size(); ++l) {
        const bool firstTokenOnly = l + 1 == layers.size(); // the pooler reads [CLS] only
        hidden = encoderLayerGraph(b, c, *layers[l], "bert.encoder.layer." + std::to_string(l) + ".", hidden, maskBias,
                                   scale, firstTokenOnly);
    }
    b.setQuantizeDense(int8 && int8->head);
    classifierGraph(b, model, hidden);
    return checkedModelBytes(m);
}

} // namespace

namespace {

/// The parameters the graph reads through MatMul: Linear weights, stored [in, out].
bool storedTransposed(const std::string &name, const torch::Tensor &t)
{
    const std::string suffix = "_embeddings.weight"; // the embedding tables are Gathered as they are
    const bool table = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    return t.dim() == 2 && !table;
}

std::string shapeText(const std::vector<int64_t> &dims)
{
    std::string s = "[";
    for (size_t k = 0; k < dims.size(); ++k)
        s += (k ? ", " : "") + std::to_string(dims[k]);
    return s + "]";
}

} // namespace

namespace {

const char *const kWhole = "pass the export folder whole (its config.json and onnx/model.onnx belong together)";

/// Initialiser `t` as a float tensor of shape `want`; its type must be int8 (`int8`) or float32,
/// raw or in the typed field. Throws wb::Error naming `where` otherwise.
torch::Tensor readInitializer(const onnx::TensorProto &t, const std::string &where, const std::vector<int64_t> &want,
                              bool int8)
{
    const bool half = !int8 && t.data_type() == onnx::TensorProto::FLOAT16; // --onnx_dtype fp16
    const int type = int8 ? onnx::TensorProto::INT8 : half ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT;
    const std::string typeName = int8 ? "int8" : "float32";
    const std::vector<int64_t> got(t.dims().begin(), t.dims().end());
    if (got != want || t.data_type() != type)
        throw Error(where,
                    "is " + shapeText(got) + (t.data_type() == type ? "" : " (not " + typeName + ")")
                        + ", the model config.json describes needs " + typeName + " " + shapeText(want),
                    kWhole);
    size_t n = 1;
    for (int64_t d : want)
        n *= size_t(d);
    const size_t width = int8 ? 1 : half ? 2 : sizeof(float);
    torch::Tensor values = torch::empty(want, int8 ? torch::kChar : half ? torch::kHalf : torch::kFloat);
    const size_t held = t.has_raw_data() ? t.raw_data().size() / width
                                         : size_t(int8 || half ? t.int32_data_size() : t.float_data_size());
    if (held != n || (t.has_raw_data() && t.raw_data().size() != n * width))
        throw Error(where, "holds " + std::to_string(held) + " values, not " + std::to_string(n),
                    "export the run again (the file is damaged)");
    if (t.has_raw_data())
        std::memcpy(values.data_ptr(), t.raw_data().data(), n * width);
    else if (int8)
        std::transform(t.int32_data().begin(), t.int32_data().end(), values.data_ptr<int8_t>(),
                       [](int32_t v) { return int8_t(v); });
    else if (half) // float16 bit patterns in int32_data
        std::transform(t.int32_data().begin(), t.int32_data().end(), static_cast<uint16_t *>(values.data_ptr()),
                       [](int32_t v) { return uint16_t(v); });
    else
        std::copy(t.float_data().begin(), t.float_data().end(), values.data_ptr<float>());
    return values.to(torch::kFloat);
}

/// An int8 export's weight q·s from "<name>_quantized" (int8 [rows, cols]) and "<name>_scale"
/// (float32 [cols] or [rows, 1]); `where` names the weight.
torch::Tensor dequantized(const onnx::TensorProto &q, const onnx::TensorProto &s, const std::string &where,
                          const std::vector<int64_t> &want)
{
    const torch::Tensor values = readInitializer(q, where + "_quantized", want, true);
    const std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
    const bool perColumn = want.size() == 2 && dims == std::vector<int64_t>{want[1]};
    const bool perRow = want.size() == 2 && dims == std::vector<int64_t>{want[0], 1};
    if (!perColumn && !perRow)
        throw Error(where + "_scale",
                    "is " + shapeText(dims) + ", not a scale per column " + shapeText({want.size() == 2 ? want[1] : 0})
                        + " or per row " + shapeText({want[0], 1}) + " of its int8 weight " + shapeText(want),
                    kWhole);
    return values * readInitializer(s, where + "_scale", dims, false);
}

} // namespace

void loadOnnxWeights(const std::string &path, nn::BertForSequenceClassificationImpl &model)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot read the ONNX model", "check the export folder's onnx/model.onnx");
    onnx::ModelProto m;
    if (!m.ParseFromIstream(&in))
        throw Error(path, "not an ONNX model (the protobuf does not parse)",
                    "pass an export folder written by bert-workbench-cli export");
    const std::string notOurs = "classify runs the ONNX graphs bert-workbench-cli export writes; export the run again, "
                                "or pass a folder with model.safetensors";
    if (m.producer_name() != "bert-workbench" || m.producer_version().empty())
        throw Error(path, "written by '" + m.producer_name() + "' " + m.producer_version()
                              + ", not by bert-workbench's export: its weights cannot be read by name",
                    notOurs);
    const onnx::GraphProto &g = m.graph();
    std::vector<std::string> inputs, outputs;
    for (const auto &v : g.input())
        inputs.push_back(v.name());
    for (const auto &v : g.output())
        outputs.push_back(v.name());
    if (inputs != std::vector<std::string>{"input_ids", "attention_mask", "token_type_ids"}
        || outputs != std::vector<std::string>{"logits"})
        throw Error(path, "the graph's inputs and outputs are not input_ids, attention_mask, token_type_ids → logits",
                    notOurs);
    std::map<std::string, const onnx::TensorProto *> byName;
    for (const auto &t : g.initializer())
        byName[t.name()] = &t;
    torch::NoGradGuard noGrad;
    for (auto &p : model.named_parameters()) {
        const std::string &name = p.key();
        torch::Tensor param = p.value();
        const std::string where = path + ": initializer " + name;
        const bool transposed = storedTransposed(name, param);
        std::vector<int64_t> want(param.sizes().begin(), param.sizes().end());
        if (transposed)
            std::swap(want[0], want[1]);
        const auto it = byName.find(name), q = byName.find(name + "_quantized"), s = byName.find(name + "_scale");
        torch::Tensor values;
        if (it != byName.end())
            values = readInitializer(*it->second, where, want, false);
        else if (q != byName.end() && s != byName.end()) // --onnx_dtype int8
            values = dequantized(*q->second, *s->second, where, want);
        else
            throw Error(where, "missing: the graph lacks a weight of the model config.json describes", kWhole);
        param.copy_(transposed ? values.t() : values);
    }
}

void writeOnnxModel(const std::string &path, nn::BertForSequenceClassificationImpl &model, const std::string &dtype)
{
    const std::string bytes = onnxModelBytes(model, dtype);
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec)
        throw Error(path, "cannot create the folder for the ONNX model: " + ec.message(),
                    "check that the export folder is writable");
    writeFileAtomic(path, bytes);
}

} // namespace wb
