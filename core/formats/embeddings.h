// SPDX-License-Identifier: Apache-2.0
#pragma once

// The embedding view's data (issue 25, "The embedding view"): the eval examples' pooled [CLS]
// vectors of one evaluation, saved in model_dir (one safetensors file per step), their 2-D
// PCA projection, and an export for TensorBoard's embedding projector. Torch-free (wb_rundir).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// One evaluation's vectors: `model_dir/embeddings/step-<step, 6 digits>.safetensors`
/// (docs/file-formats.md). Tensors, in this order: "pooled" F32 [N, hidden] (BERT's pooled
/// output: tanh(dense([CLS])), the classifier's input), "example_index" I64 [N] (position in
/// the eval TFRecords, as eval_examples.jsonl's "index"), "label_ids" I64 [N] (true labels),
/// "predictions" I64 [N] (predicted label ids). Metadata: "format" = "bert-workbench-embeddings",
/// "version" = "1", "step". A plain value.
struct EmbeddingSnapshot
{
    int64_t step = 0;
    int64_t hidden = 0;               ///< vector width H
    std::vector<float> pooled;        ///< N × H, row-major
    std::vector<int64_t> example_index, label_ids, predictions;

    int64_t size() const { return int64_t(example_index.size()); }
};

/// `<modelDir>/embeddings`.
std::string embeddingsDir(const std::string &modelDir);
/// `<modelDir>/embeddings/step-000100.safetensors` (at least 6 digits).
std::string embeddingsPath(const std::string &modelDir, int64_t step);
/// The steps with a file in `<modelDir>/embeddings`, ascending (nothing when there is no folder).
std::vector<int64_t> embeddingSteps(const std::string &modelDir);

/// Writes `s` atomically. Throws wb::Error naming the file when the sizes disagree (pooled
/// must hold size() × hidden values; the three id vectors one per example) or it cannot be written.
void writeEmbeddings(const std::string &path, const EmbeddingSnapshot &s);
/// Reads a file writeEmbeddings() wrote: what was written comes back exactly. Throws
/// wb::Error("<path>", …) for a file that is not safetensors, or lacks a tensor, or has one
/// of another dtype or shape.
EmbeddingSnapshot readEmbeddings(const std::string &path);

/// A 2-D principal-component projection of N points in H dimensions.
struct Projection2D
{
    std::vector<double> mean;                      ///< H: the column means subtracted first
    std::array<std::vector<double>, 2> axes;       ///< two unit vectors of H: the first two principal axes
    std::array<double, 2> variance{0, 0};          ///< variance along each axis (divided by N − 1)
    std::vector<std::array<double, 2>> points;     ///< N: (x − mean) · axis
};

/// PCA of the rows of `x` (N × H, row-major): the two eigenvectors of the covariance matrix
/// with the largest eigenvalues, found by orthogonal (subspace) iteration with a fixed start
/// (deterministic: the same input gives the same output, bit for bit, for a fixed build).
/// **Sign convention:** each axis is turned so that its coordinate of largest magnitude is
/// positive (the lowest index on ties), as scikit-learn's svd_flip fixes the sign from the
/// components. Fewer than 2 points, or H < 2, give zero axes/points beyond what exists (N = 1:
/// the point at the origin). Cost: O(N·H²) for the covariance plus O(H²) per iteration
/// (at most 500). Thread-safe.
Projection2D pcaProject2D(const std::vector<float> &x, int64_t n, int64_t h);

/// Files of TensorBoard's embedding projector (tensorboard/plugins/projector: a
/// ProjectorConfig text proto and TSV files) in `dir`: `projector_config.pbtxt` naming one
/// embedding (tensor_name "pooled_cls_step_<step>", tensor_shape N and H, tensor_path
/// "tensors.tsv", metadata_path "metadata.tsv"), `tensors.tsv` (one row per example, the H
/// values tab-separated, shortest round-trip float text) and `metadata.tsv` (a header row
/// "index\tlabel\tpredicted\tcorrect\ttext", then one row per example; tabs and line breaks
/// in the names and texts become spaces). `labelNames` names label ids (else "label N");
/// `texts` (index-aligned with the snapshot rows, may be empty) fills the text column.
/// Each file is written atomically. Throws wb::Error naming the file.
void writeProjectorExport(const std::string &dir, const EmbeddingSnapshot &s,
                          const std::vector<std::string> &labelNames, const std::vector<std::string> &texts);

/// The three files' text (what writeProjectorExport writes), for tests and the window.
struct ProjectorFiles
{
    std::string config, tensors, metadata;
};
ProjectorFiles projectorFiles(const EmbeddingSnapshot &s, const std::vector<std::string> &labelNames,
                              const std::vector<std::string> &texts);

} // namespace wb
