// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/tokenize/tokenizercasing.h"
#include "core/events/trainingobserver.h"
#include "core/model/bertmodel.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// What a task gives the one export folder writer (writeExportFiles, writeExportFolder): its
/// weights under Hugging Face's names and its architecture. Fine-tuning: exportedClassifier();
/// pretraining: BertForMaskedLM (core/export/pretrainexport.cpp). A plain value; one thread.
struct ExportedModel
{
    /// config.json's "architectures": "BertForSequenceClassification" or "BertForMaskedLM".
    std::string architecture = "BertForSequenceClassification";
    /// model.safetensors: float32 tensors under Hugging Face's names, in writing order.
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    /// BertForSequenceClassification: the label names in id order (modelLabelNames) for
    /// labels.txt, config.json's id2label and the model card; `regression`: one output, no labels.
    std::vector<std::string> labels;
    bool regression = false;
    /// Multi-label (problem_type multi_label_classification): config.json says so and carries
    /// `thresholds`, each label's decision threshold in id order (runThresholds of the exported
    /// checkpoint, core/formats/thresholds.h), and `thresholds_source` says where they came from.
    bool multi_label = false;
    std::vector<double> thresholds;
    std::string thresholds_source;
    /// Files the task adds after the tokenizer files (fine-tuning: onnx/model.onnx and the web
    /// demo), called with the folder, the casing written and whether vocab.txt was; returns the
    /// names written ("onnx/model.onnx", …). Empty: none.
    std::function<std::vector<std::string>(const std::string &dir, bool lower, bool withVocab)> more_files;

    bool maskedLm() const { return architecture == "BertForMaskedLM"; }
};

/// A fine-tuned classifier (or regression model) as the export writes it: namedParameters,
/// modelLabelNames (none for regression), and onnx/model.onnx (spec.onnx_dtype) and the web demo
/// (spec.demo) as its more_files. Keeps a reference to `model`, `meta` and `spec`: use it while
/// they live.
ExportedModel exportedClassifier(nn::BertForSequenceClassification &model, const BertConfig &cfg,
                                 const InputMetaData &meta, const TrainingOptions &spec);

/// Writes the files of an export folder into `dir` (no model card): model.safetensors,
/// config.json, bert_config.json, input_meta_data.json, labels.txt (classification), vocab.txt,
/// the tokenizer files and the task's more_files, as listed below for a classifier. Without a
/// vocabulary (neither spec.vocab_file nor prepare_report.json's) there is no vocab.txt and no
/// tokenizer file (tokenizer.json, tokenizer_config.json, special_tokens_map.json): `warn` says
/// so. Returns the names written, in order, and sets `*lowerCase` to the casing
/// tokenizer_config.json has (or would have). Throws wb::Error naming the file.
std::vector<std::string> writeExportFiles(const std::string &dir, const ExportedModel &model, const BertConfig &cfg,
                                          const InputMetaData &meta, const TrainingOptions &spec,
                                          const std::function<void(const std::string &)> &warn,
                                          const std::vector<RecordedCasing> &trained, bool *lowerCase = nullptr);

/// The export folder of a run, written whole or not at all: an ExportStaging at
/// spec.model_export_path, writeExportFiles, README.md (modelCardMarkdown, with the facts of
/// `model`, `cfg`, `meta`, run_config.json and the checkpoint `ckpt`, `checkpointNote` as the
/// card's note on which checkpoint it is), then the rename. Logs warnings ("warning: …") and
/// "Exported <ckpt> to <folder>:" (" as BertForMaskedLM:" for a masked LM) with one line per
/// file and its size on `obs`. Returns the run's end (Completed, last_checkpoint `ckpt`).
/// Throws wb::Error naming the file or "model_export_path"; the target is then as it was.
RunFinished writeExportFolder(const ExportedModel &model, const BertConfig &cfg, const InputMetaData &meta,
                              const TrainingOptions &spec, const std::vector<RecordedCasing> &trained,
                              const std::string &ckpt, const std::string &checkpointNote, TrainingObserver &obs);

/// Writes the export folder `dir` (run_classifier's export_only), a folder that stands
/// alone for `classify` and that Hugging Face transformers loads as
/// BertForSequenceClassification (with BertTokenizer):
///   model.safetensors      float32, HF names (bert.embeddings.word_embeddings.weight, …, classifier.weight)
///   config.json            HF's config (huggingFaceConfig): every BertConfig key, model_type
///                          "bert", architectures, id2label/label2id, problem_type, torch_dtype,
///                          transformers_version (left out for a factorised embedding_size,
///                          which HF's BERT cannot express; `warn` says so)
///   bert_config.json       google-research/bert's keys
///   input_meta_data.json   the meta data
///   labels.txt             one name per line (readLabelNames: prepare's labels.txt beside the
///                          meta data, else the config's id2label, else the meta data's
///                          labels / label_list / label_names, else "label N"); none for regression
///   vocab.txt              a copy of `spec.vocab_file`, else of the vocab prepare_report.json
///                          records (left out with a warning when neither is readable)
///   tokenizer.json         Hugging Face's fast-tokenizer file for vocab.txt and the casing below
///                          (huggingFaceTokenizerJson, core/tokenize/hftokenizerjson.h); none without vocab.txt
///   tokenizer_config.json  what transformers' save_pretrained writes for BertTokenizer(Fast); none without vocab.txt
///                          (huggingFaceTokenizerConfig: the special tokens, do_lower_case,
///                          model_max_length, …) plus "max_seq_length"; do_lower_case: spec's --do_lower_case, else the first
///                          of `trained` that is set (what the checkpoint and run_config.json
///                          recorded), else the meta data's, else prepare_report.json's, else
///                          inferred from the vocab copied (with a warning), else true (warning)
///   special_tokens_map.json  {"cls_token", "mask_token", "pad_token", "sep_token", "unk_token"}
///                          (huggingFaceSpecialTokensMap); none without vocab.txt
///   onnx/model.onnx        the classifier as an ONNX graph (writeOnnxModel, core/export/onnxexport.h),
///                          spec.onnx_dtype "fp32"; none for "none"
///   demo/ort/…             with spec.demo only: onnxruntime-web's ort.wasm.min.js,
///                          ort-wasm-simd-threaded.wasm and ort-wasm-simd-threaded.mjs, copied
///                          from spec.onnxruntime_web_dir, else from the npm cache (fetched from
///                          the registry once; obtainOnnxRuntimeWeb, core/formats/onnxruntimeweb.h)
///   demo/model/, demo/ort/ort-wasm-simd-threaded.js  with spec.demo only: the labels,
///                          casing, vocab.txt and onnx/model.onnx (base64 parts) and the runtime
///                          as scripts for the page (writeDemoData, core/export/demopage.h)
///   demo/index.html        with spec.demo only: a page that runs onnx/model.onnx in the browser,
///                          opened from disk (file://) or served (demoPageHtml); needs
///                          onnx/model.onnx and vocab.txt (else wb::Error, field "demo")
/// `dir` is the staging folder of an ExportStaging (core/formats/exportfolder.h): the caller
/// renames it into place when this returns. Every file is written atomically; throws
/// wb::Error naming the file on failure. `warn` gets each warning ("warning: …"). Returns the
/// names written, in this order. writeExportFiles with exportedClassifier(); the model card
/// and the staging are writeExportFolder's.
std::vector<std::string> exportModelFiles(const std::string &dir, nn::BertForSequenceClassification &model,
                                          const BertConfig &cfg, const InputMetaData &meta,
                                          const TrainingOptions &spec,
                                          const std::function<void(const std::string &)> &warn = {},
                                          const std::vector<RecordedCasing> &trained = {});

/// The transformers release whose save_pretrained output the export's Hugging Face files
/// follow key by key (config.json's "transformers_version").
inline constexpr const char *kTransformersFormatVersion = "4.46.3";

/// The tokenizer files of an export, as (name, text) in writing order, for the vocabulary at
/// `vocabPath` with this casing and max_seq_length: tokenizer.json (huggingFaceTokenizerJson),
/// tokenizer_config.json (huggingFaceTokenizerConfig) and special_tokens_map.json
/// (huggingFaceSpecialTokensMap), core/tokenize/hftokenizerjson.h. An export without a vocabulary
/// writes none of them (their token ids would be guesses). Throws wb::Error naming the vocab file when it cannot be read or lacks [UNK], [CLS] or [SEP].
std::vector<std::pair<std::string, std::string>> huggingFaceTokenizerFiles(const std::string &vocabPath, bool lower,
                                                                           int64_t maxSeqLength);

/// Returns Hugging Face's config.json for `cfg` with these label names, key by key what
/// transformers' save_pretrained writes for BertForSequenceClassification
/// (configuration_utils.py to_diff_dict; models/bert/configuration_bert.py): architectures,
/// model_type "bert", every BertConfig key (vocab_size … layer_norm_eps, pad_token_id 0,
/// position_embedding_type "absolute", use_cache true, classifier_dropout null), num_labels,
/// problem_type ("regression" for a one-output regression head, "multi_label_classification"
/// when `multiLabel`, else "single_label_classification"), id2label/label2id (not for
/// regression), then for multi-label "thresholds" (our key, docs/multi-label.md: `thresholds`
/// in label id order; transformers keeps unknown keys as config attributes), torch_dtype
/// "float32" and transformers_version (kTransformersFormatVersion). With `architecture`
/// "BertForMaskedLM": that architecture, and none of the head's keys (num_labels, problem_type,
/// id2label, label2id), as save_pretrained leaves them out. Pure; thread-safe.
nlohmann::ordered_json huggingFaceConfig(const BertConfig &cfg, const std::vector<std::string> &labelNames,
                                         bool regression,
                                         const std::string &architecture = "BertForSequenceClassification",
                                         bool multiLabel = false, const std::vector<double> &thresholds = {});

/// Writes `model_dir/test_results.tsv` as run_classifier's predict does: one line per
/// example of tab-separated class probabilities (or the regression value), "%.9g", no header.
/// Atomic; throws wb::Error naming the file on failure. Returns its path.
std::string writePredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs);

/// The label names of a model, in id order, as the export's labels.txt has them (prepare's
/// labels.txt beside `metaDataPath`, else the config's id2label, else the meta data's
/// labels / label_list / label_names, else "label N"; readLabelNames).
std::vector<std::string> modelLabelNames(const BertConfig &cfg, const InputMetaData &meta,
                                         const std::string &metaDataPath);

/// Writes `model_dir/predictions.jsonl` beside test_results.tsv, so that a run's predictions
/// are scored without decoding TFRecords: one JSON object per example, in record order,
///   {"index": 0, "predicted_label": "spam", "probabilities": {"ham": 0.02, "spam": 0.98}, "label": "spam"}
/// ("label": the record's label_ids as a name; records always carry one, and a test set
/// prepared without labels carries the first label as placeholder, as run_classifier's).
/// Regression: {"index": 0, "prediction": 3.1, "label": 2.5}. `labels` (classification) or
/// `targets` (regression) may be empty: then "label" is left out. Non-finite numbers are
/// written as null. Atomic; throws wb::Error naming the file. Returns its path.
std::string writeLabelledPredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs,
                                     const std::vector<std::string> &labelNames, const std::vector<int64_t> &labels,
                                     const std::vector<double> &targets, bool regression);

/// predictions.jsonl of a multi-label model (docs/multi-label.md): one object per example,
///   {"index": 0, "predicted_labels": ["billing", "urgent"], "probabilities": {"billing": 0.91, …},
///    "labels": ["billing"]}
/// with the labels whose sigmoid reaches `thresholds` (labelsAtThresholds) predicted; "labels"
/// (the record's label set) only when `labelSets` has the row. Atomic; throws wb::Error naming
/// the file. Returns its path.
std::string writeMultiLabelPredictions(const std::string &modelDir, const std::vector<std::vector<float>> &outputs,
                                       const std::vector<std::string> &labelNames,
                                       const std::vector<std::vector<int64_t>> &labelSets,
                                       const std::vector<double> &thresholds);

} // namespace wb
