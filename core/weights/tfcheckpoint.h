// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// TensorFlow dtype numbers (tensorflow/core/framework/types.proto) that a BERT checkpoint holds.
namespace tfdtype {
constexpr int kFloat = 1;     ///< DT_FLOAT, 4 bytes
constexpr int kDouble = 2;    ///< DT_DOUBLE, 8 bytes
constexpr int kInt32 = 3;     ///< DT_INT32, 4 bytes
constexpr int kString = 7;    ///< DT_STRING, variable length (never a weight)
constexpr int kInt64 = 9;     ///< DT_INT64, 8 bytes (e.g. global_step)
constexpr int kBFloat16 = 14; ///< DT_BFLOAT16, 2 bytes
constexpr int kHalf = 19;     ///< DT_HALF, 2 bytes
} // namespace tfdtype

/// Returns "DT_FLOAT", "DT_HALF", … or "dtype N" for numbers this reader does not name.
std::string tfDtypeName(int dtype);

/// Returns the byte size of one element of `dtype`, or 0 when it has no fixed size
/// (DT_STRING) or is not supported here.
size_t tfDtypeSize(int dtype);

/// Returns true for DT_FLOAT, DT_DOUBLE, DT_HALF and DT_BFLOAT16 (loadable as weights).
bool isTfFloatDtype(int dtype);

/// One tensor of a TensorFlow tensor bundle: a decoded BundleEntryProto
/// (tensorflow/core/protobuf/tensor_bundle.proto).
struct TfBundleEntry
{
    std::string name;           ///< the variable name, e.g. "bert/embeddings/word_embeddings"
    int dtype = 0;              ///< tfdtype number
    std::vector<int64_t> shape; ///< TensorFlow layout (Dense kernels are [in, out]); [] is a scalar
    int32_t shard_id = 0;       ///< which `<prefix>.data-NNNNN-of-MMMMM` holds the bytes
    int64_t offset = 0;         ///< byte offset of the tensor in its shard
    int64_t size = 0;           ///< byte size (numel × dtype size for numeric dtypes)
    uint32_t masked_crc32c = 0; ///< masked CRC32C of the bytes (see maskCrc in core/util/crc32c.h)
    bool sliced = false;        ///< a partitioned variable saved as slices (not loadable here)
};

/// A parsed `.index` file of a TensorFlow checkpoint (TF1 `tf.train.Saver` or TF2
/// `tf.train.Checkpoint`; both write the tensor-bundle format). A plain value.
struct TfBundle
{
    std::string prefix;            ///< the checkpoint prefix, e.g. ".../bert_model.ckpt"
    int32_t num_shards = 1;        ///< BundleHeaderProto.num_shards
    int32_t producer = 0;          ///< BundleHeaderProto.version.producer
    std::vector<TfBundleEntry> entries; ///< every tensor, in key (byte) order; no header entry

    /// Returns the entry named `name`, or nullptr.
    const TfBundleEntry *find(const std::string &name) const;
    /// Returns the path of data shard `shard`: `<prefix>.data-00000-of-00001` (TF's
    /// DataFilename: "%s.data-%05d-of-%05d").
    std::string shardPath(int32_t shard) const;
};

/// Reads every key/value pair of a table in LevelDB's table format (the format of TF's
/// tensorflow/core/lib/io/table and of leveldb/doc/table_format.md), given its whole
/// bytes: the 48-byte footer (metaindex and index BlockHandles as varints, padding,
/// magic 0xdb4775248b80fb57), the index block, then each data block. Every block's
/// trailer is checked: compression type 0 (uncompressed; anything else is rejected, as TF
/// bundles are never compressed) and the masked CRC32C over contents + type. Entries are
/// decoded with their prefix compression; restart points are checked (in bounds,
/// ascending, each at an entry with no shared prefix) and keys must be strictly
/// ascending. Throws wb::Error with `path` and the block offset in the field.
/// Thread-safe.
std::vector<std::pair<std::string, std::string>> readLevelDbTable(const std::string &bytes, const std::string &path);

/// Reads `<prefix>.index`: the BundleHeaderProto under the empty key (little-endian only,
/// num_shards ≥ 1) and one BundleEntryProto per tensor (dtype, shape, shard_id in range,
/// size consistent with shape × dtype). Does not open the data shards. Throws wb::Error
/// naming the file and the tensor. Thread-safe.
TfBundle readTfBundle(const std::string &prefix);

/// Returns a problem per data shard of `bundle` that is missing or shorter than the last
/// byte an entry needs ("<shard path>" → message); empty when all are present.
std::vector<std::pair<std::string, std::string>> checkTfBundleShards(const TfBundle &bundle);

/// Reads the bytes of `entry` from its data shard and verifies their CRC32C against the
/// index. Throws wb::Error naming the shard (missing, too short) or the tensor (CRC
/// mismatch). Thread-safe (opens the shard itself).
std::string readTfTensorBytes(const TfBundle &bundle, const TfBundleEntry &entry);

/// What the `model_checkpoint_path: "…"` line of a folder's `checkpoint` file (TensorFlow's
/// CheckpointState text, also written by this program's training runs) names.
struct CheckpointStateTarget
{
    std::string state_file; ///< `<folder>/checkpoint`
    std::string recorded;   ///< the path as the file records it
    /// Where it is: relative paths resolve against the folder. An absolute path that does not
    /// exist here (a checkpoint copied from another machine) is replaced by the file of that
    /// base name beside `checkpoint` when that exists (see `note`); otherwise it stays as recorded.
    std::string path;
    /// Non-empty when `path` was taken beside the `checkpoint` file instead of the recorded
    /// absolute path: "<state_file> names /other/machine/model.ckpt-1000, which does not exist
    /// here; using <folder>/model.ckpt-1000 beside it".
    std::string note;
};

/// Reads `<dir>/checkpoint`; nothing when `dir` is not a folder or has no such file. A
/// target counts as present when `<path>.index` (TensorFlow) or `<path>` itself (a
/// training run's ckpt-N) exists. Throws wb::Error naming the file when it has no
/// model_checkpoint_path line. Thread-safe.
std::optional<CheckpointStateTarget> readCheckpointStateTarget(const std::string &dir);

/// Returns the checkpoint prefix that `input` denotes, or nothing when it denotes no
/// TensorFlow checkpoint: a prefix with `<input>.index` beside it, the `.index` path
/// itself, a data shard path (`<prefix>.data-00000-of-00001`), or a folder with a
/// `checkpoint` file whose target (readCheckpointStateTarget) has a `.index` file. Nothing
/// either when the target is a plain file (a training run's ckpt-N: not TensorFlow). Throws
/// wb::Error when a `checkpoint` file names a prefix of which neither `.index` nor the file
/// itself exists.
std::optional<std::string> resolveTfCheckpointPrefix(const std::string &input);

/// How one checkpoint variable maps onto a model parameter (Hugging Face name).
struct TfNameMapping
{
    std::string model_name;      ///< e.g. "bert.encoder.layer.0.attention.self.query.weight"
    bool kernel = false;         ///< a Dense kernel: collapse to [in, out], then transpose to [out, in]
    int in_dims = 1;             ///< kernel: leading dims forming "in" (2 for TF2's attention output [heads, size, hidden])
    bool flatten = false;        ///< TF2 per-head bias [heads, size]: flattened to [hidden]
    /// The scope the name was found under: "module/" (run_classifier_with_tfhub.py),
    /// "model/", "encoder/", "bert/" (TF1 names under a scope of that name), the TF2 path
    /// before `_transformer_layers` etc. ("encoder/", "model/encoder/"); "" for none.
    std::string scope;
};

/// What a checkpoint variable is when it is not a model parameter.
enum class TfVariableKind
{
    Parameter,    ///< maps onto a model parameter (see mapTfVariableName)
    OptimizerSlot,///< adam_m / adam_v (TF1) or .OPTIMIZER_SLOT / optimizer/ (TF2): skipped
    Bookkeeping,  ///< global_step, save_counter, _CHECKPOINTABLE_OBJECT_GRAPH, loss scale: skipped
    Other         ///< anything else (e.g. the pre-training heads cls/…): unused
};

/// Classifies `name` (see TfVariableKind). Torch-free; thread-safe.
TfVariableKind classifyTfVariable(const std::string &name);

/// Maps a TensorFlow variable name to the model's parameter name, or nothing:
/// google-research/bert (TF1, modeling.py + run_classifier.py): `bert/embeddings/*`,
/// `bert/encoder/layer_N/...` (kernel → weight transposed, LayerNorm gamma/beta →
/// weight/bias), `bert/pooler/dense/*`, `output_weights` [num_labels, hidden] and
/// `output_bias` of a fine-tuned classifier. tensorflow/models (TF2 object-based,
/// official/nlp/modeling/networks/bert_encoder.py, variables ending in
/// `/.ATTRIBUTES/VARIABLE_VALUE`): `_embedding_layer`, `_position_embedding_layer`,
/// `_type_embedding_layer`, `_embedding_norm_layer`, `_embedding_projection`,
/// `_transformer_layers/N/{_attention_layer/{_query,_key,_value,_output}_dense,
/// _attention_layer_norm, _intermediate_dense, _output_dense, _output_layer_norm}`,
/// `_pooler_layer`. TF1 names are also read under the scopes `module/`, `model/`,
/// `encoder/` and `bert/` (e.g. `module/bert/encoder/layer_0/…`, as TF-Hub's
/// run_classifier_with_tfhub.py saves them; nested scopes too) and with Keras' suffix
/// `/.ATTRIBUTES/VARIABLE_VALUE`; after removing those, a TF1 name must start with `bert/`
/// (or be `output_weights`/`output_bias`). TF2 names are read under any scope. The scope
/// removed is returned in TfNameMapping::scope. Torch-free; thread-safe.
std::optional<TfNameMapping> mapTfVariableName(const std::string &name);

/// Returns the shape the model sees for a checkpoint tensor of `shape` under `mapping`
/// (collapsed and transposed for kernels, flattened for TF2 per-head biases).
std::vector<int64_t> modelShapeOf(const TfNameMapping &mapping, const std::vector<int64_t> &shape);

} // namespace wb
