// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// What the exporter knows about the model that the run's files do not say. A plain value.
struct ModelCardModel
{
    std::string name;                 ///< the export folder's name ("spam-classifier")
    std::vector<std::string> labels;  ///< label names in id order (empty: regression)
    bool regression = false;
    int64_t num_hidden_layers = 0, hidden_size = 0, num_attention_heads = 0, vocab_size = 0;
    int64_t parameters = 0;           ///< BertConfig::parameterCount (without the classifier)
    int64_t max_seq_length = 0;
    bool do_lower_case = true;
    std::string checkpoint;           ///< the checkpoint exported ("…/best/ckpt-42")
    std::string checkpoint_note;      ///< "best, step 42 (eval_accuracy 0.6875)" or "latest"
    /// The exported checkpoint's step (-1: unknown): its evaluation in metrics.jsonl is the card's.
    int64_t checkpoint_step = -1;
    /// The pretrained model the run started from (run_config.json's pretrained_model: a Hub
    /// id, catalogue name or folder); empty: random weights or an unrecorded --init_checkpoint.
    std::string start;
    std::string base_model;           ///< Hub id for the front matter's base_model; empty: none
    std::string license;              ///< Hub licence id ("apache-2.0"); empty: unknown ("other")
    std::string language;             ///< ISO 639-1 code ("en", "zh") or "multilingual"; empty: unknown
    std::string meta_data_path;       ///< input_meta_data.json (prepare_report.json is beside it)
    bool onnx = false;                ///< the export has onnx/model.onnx (the card says how to run it)
    /// onnx/model.onnx's number format (--onnx_dtype: "fp32" or "int8") and, for int8, a sentence
    /// on its size and agreement with float32 (from onnx/quantization.json; empty: none).
    std::string onnx_dtype = "fp32";
    std::string onnx_quantization;
    bool demo_page = false;           ///< the export has demo/index.html
    /// The export has vocab.txt and the tokenizer files (tokenizer.json, tokenizer_config.json,
    /// special_tokens_map.json); the card's file list names them only then.
    bool tokenizer_files = true;
    /// A BertForMaskedLM export (a pretraining run): the card is a fill-mask model's (no labels,
    /// the evaluation's MLM loss, accuracy and perplexity, no prepare_report.json).
    bool masked_lm = false;
    /// Masked LM: input_meta_data.json's train_data_size and eval_data_size (-1: unknown) and
    /// max_predictions_per_seq (0: unknown).
    int64_t train_examples = -1, eval_examples = -1, max_predictions_per_seq = 0;
};

/// Returns README.md of the export folder: a Hugging Face Hub model card (docs/file-formats.md,
/// "The model card"). YAML front matter, keys in this order: license (`other` with
/// license_name "unknown" when `m.license` is empty), language (when known), base_model (when
/// the run started from a Hub model), pipeline_tag text-classification, library_name
/// transformers, tags, model-index (the evaluation of metrics.jsonl at `m.checkpoint_step`,
/// else its last one: eval_accuracy,
/// eval_f1, eval_macro_f1, eval_mcc, eval_loss; regression eval_mse, eval_pearson,
/// eval_spearman; values as JSON writes them, shortest round trip). Then sections written from
/// `modelDir`: run_config.json, metrics.jsonl (the last "eval" line, training time from
/// wall_time), training_summary.json, eval_examples.jsonl (the confusion matrix) and
/// prepare_report.json beside the meta data (label counts, the majority baseline, and a
/// bag-of-words baseline when the report has one): labels, training, evaluation, baselines,
/// the coach's current warnings (metrics.jsonl "note" lines applied in order, a withdrawn one
/// gone; severity warning, each once), the start from run_config.json's facts, intended
/// use and limitations, how to load it (transformers; ONNX Runtime and transformers.js when
/// `m.onnx`; the demo page when `m.demo_page`; this CLI). A file that is missing or unreadable leaves
/// its part out with a line saying so; never throws for the run's files.
/// With `m.masked_lm` (a pretraining run's BertForMaskedLM export): pipeline_tag fill-mask,
/// model-index eval_mlm_accuracy, eval_mlm_loss and eval_perplexity (metrics.jsonl's eval line:
/// its eval_accuracy and eval_loss are the MLM accuracy and loss; the perplexity is exp of the
/// loss, as the run computed it), eval_nsp_accuracy and eval_nsp_loss with the next-sentence
/// head; sections: what it is, training (start, data from the meta data's sizes, steps), the
/// evaluation, the uniform guess over the vocabulary as baseline, the coach's warnings,
/// limitations, how to load it (the fill-mask pipeline, `fill_mask`, fine-tuning from it).
/// Thread-safe.
std::string modelCardMarkdown(const ModelCardModel &m, const std::string &modelDir);

/// The Hub's language code for a catalogue's `languages` ("English" → "en", "Chinese" →
/// "zh", "104 languages" → "multilingual"); "" when unknown. Pure.
std::string hubLanguageCode(const std::string &languages);

} // namespace wb
