// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fill-in-the-blank with a masked language model (docs/pretraining.md, "Fill in the blank"):
// the window's Try it for a pretraining run and `bert-workbench-cli fill_mask`. Torch-free
// header: the window includes it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Where a FillMaskPredictor takes its masked LM from: an export folder of a pretraining run
/// (Hugging Face BertForMaskedLM: model.safetensors, bert_config.json or config.json,
/// input_meta_data.json, vocab.txt, tokenizer_config.json), or a pretraining model_dir's
/// checkpoint with the files of the run (run_config.json fills those not given).
struct FillMaskSource
{
    std::string model_export_path;    ///< export folder; when set, the fields below are defaults only
    std::string model_dir;            ///< pretraining run: its best checkpoint when kept, else its latest …
    std::string checkpoint_path;      ///< … or this one (a ckpt-N, "best", "latest")
    std::string bert_config_file;     ///< with model_dir (default: the run's)
    std::string input_meta_data_path; ///< with model_dir (default: the run's; max_seq_length)
    std::string vocab_file;           ///< default: the run's --vocab_file, else prepare_report.json's
    /// Default: the run's casing (checkpoint, run_config.json, tokenizer_config.json), else the
    /// meta data's, else prepare_report.json's, else inferred from the vocab (resolveCasing).
    std::optional<bool> do_lower_case;
};

/// One candidate token for a [MASK].
struct MaskCandidate
{
    std::string token;        ///< the WordPiece token (e.g. "monday", "##day")
    int64_t token_id = 0;     ///< its id in the vocabulary
    double probability = 0;   ///< softmax over the whole vocabulary at that position, in [0, 1]
};

/// The candidates for one [MASK] of the text.
struct MaskFill
{
    int64_t position = 0;     ///< index in FillMaskResult::tokens ([CLS] is 0)
    std::vector<MaskCandidate> top; ///< the top-k, most probable first (ties: lower id first)
};

/// What the model says about one text.
struct FillMaskResult
{
    std::vector<std::string> tokens;   ///< [CLS] … [SEP] as the model saw them ([MASK] kept)
    std::vector<int64_t> input_ids;    ///< same length
    bool truncated = false;            ///< the text was cut at max_seq_length (after its last [MASK])
    std::vector<MaskFill> masks;       ///< one per [MASK], in text order
};

/// A masked LM (nn::BertForPreTraining's encoder and MLM head) with its tokenizer, for
/// filling in the [MASK]s of a text: the probabilities are softmax(mlm logits) at each
/// [MASK] position over the whole vocabulary, as Hugging Face's fill-mask pipeline computes
/// them (BertForMaskedLM, no next-sentence head). The literal "[MASK]" in the text (any
/// case) is the blank; the text around it is tokenized by the run's BasicTokenizer and
/// WordPiece with its casing, [CLS] … [SEP], at most max_seq_length tokens (the meta data's).
/// Facade over a pimpl: includes no Torch header; CPU inference.
///
/// Thread rules: construct and use from one thread at a time (a worker thread in the window);
/// distinct objects are independent. Draws no random numbers (a throwaway generator of its own).
class FillMaskPredictor
{
public:
    /// Loads the model, config, meta data and vocabulary. Throws wb::Error naming the file or
    /// flag: no checkpoint in model_dir, a fine-tuning run's checkpoint or meta data (not
    /// bert_pretraining), a vocab of another size than vocab_size or without [MASK], weights
    /// that lack the MLM head.
    explicit FillMaskPredictor(const FillMaskSource &source);
    ~FillMaskPredictor();
    FillMaskPredictor(const FillMaskPredictor &) = delete;
    FillMaskPredictor &operator=(const FillMaskPredictor &) = delete;

    /// Fills every [MASK] of `text` with its `topK` most probable tokens (topK ≥ 1, at most
    /// vocab_size). Throws wb::Error("text", …) when the text has no [MASK] or every [MASK]
    /// falls beyond max_seq_length, and wb::Error("top_k", …) for topK < 1.
    FillMaskResult predict(const std::string &text, int64_t topK = 10) const;
    /// The softmax over the vocabulary at every [MASK] of `text`: [masks][vocab_size]
    /// (the numbers predict() ranks). Same errors as predict().
    std::vector<std::vector<double>> maskProbabilities(const std::string &text) const;

    int64_t maxSeqLength() const;
    int64_t vocabSize() const;
    /// The checkpoint or weights file the model came from.
    const std::string &weightsPath() const;
    /// "best, step 42 (eval_loss 3.1)" / "latest, step 60" for a run's own choice; "" else.
    const std::string &weightsLabel() const;
    bool doLowerCase() const;
    const std::string &casingSource() const;
    /// Warnings met while loading (a casing inferred from the vocab, the best checkpoint taken).
    const std::vector<std::string> &warnings() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

/// Whether `text` holds a "[MASK]" (any case), the blank FillMaskPredictor fills. Pure.
bool hasMaskToken(const std::string &text);

} // namespace wb
