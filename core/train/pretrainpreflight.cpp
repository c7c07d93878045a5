// SPDX-License-Identifier: Apache-2.0
#include "core/train/pretrainpreflight.h"

#include "core/data/classifierdataset.h"
#include "core/data/preparereport.h"
#include "core/data/pretrainingdataset.h"
#include "core/data/vocab.h"
#include "core/data/tfrecordreader.h"
#include "core/model/initcheckpoint.h"
#include "core/train/preparedrun.h"
#include "core/train/runidentity.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

namespace wb {

namespace {

/// Decodes the first record of every file of `pattern` (the flag `flag`).
void checkFirstRecords(const std::string &flag, const std::string &pattern, const MaskedLmSpec &spec, Diagnostics &diag)
{
    if (pattern.empty())
        return;
    try {
        for (const std::string &file : expandFilePattern(pattern)) {
            TFRecordReader reader(file);
            std::string payload;
            if (!reader.read(payload)) {
                diag.error(flag + ": " + file, "the file holds no record",
                           "prepare the corpus again (an empty corpus gives no sequences)");
                continue;
            }
            MaskedLmRecord r;
            try {
                decodeMaskedLmRecord(payload, spec, r);
            } catch (const Error &e) {
                diag.error(reader.location(), e.what(), e.hint());
            }
        }
    } catch (...) {
        const ErrorText t = describeCurrentException(flag);
        diag.error(t.field, t.message, t.hint);
    }
}

} // namespace

namespace {

/// Dynamic masking needs the vocabulary the records were made with: found, readable, with
/// [MASK], and as large as the model's.
void checkDynamicMaskingVocab(const TrainingOptions &o, const BertConfig &cfg, Diagnostics &diag)
{
    std::string vocab;
    try {
        vocab = dynamicMaskingVocab(o);
    } catch (const Error &e) {
        diag.error(e.field(), e.what(), e.hint());
        return;
    }
    if (vocab.empty()) {
        diag.error("vocab_file",
                   "the records are for dynamic masking (new masks each epoch), which needs their vocabulary, and "
                   "neither --vocab_file nor the prepare_report.json beside " + o.input_meta_data_path + " names one",
                   "pass --vocab_file (the vocab.txt the corpus was prepared with)");
        return;
    }
    try {
        const Vocab v = Vocab::load(vocab);
        (void)v.id("[MASK]");
        if (v.size() != cfg.vocab_size)
            diag.error("vocab_file",
                       vocab + " has " + std::to_string(v.size()) + " tokens, the model's vocab_size is "
                           + std::to_string(cfg.vocab_size),
                       "pass the vocab.txt the corpus was prepared with");
    } catch (const Error &e) {
        diag.error(e.field().empty() ? vocab : e.field(), e.what(), e.hint());
    }
}

} // namespace

std::string dynamicMaskingVocab(const TrainingOptions &o)
{
    if (!o.vocab_file.empty())
        return o.vocab_file;
    return readPreparedTokenizer(o.input_meta_data_path).vocab_file;
}

void checkPretrainingPurpose(const TrainingOptions &o, RunPurpose purpose, ValidationResult &r)
{
    if (!r.meta_data)
        return;
    Diagnostics &diag = r.diagnostics;
    const InputMetaData &meta = *r.meta_data;
    const std::string metaField = o.input_meta_data_path + ": task_type";
    if (meta.isPretraining()) {
        if (purpose == RunPurpose::Train || purpose == RunPurpose::LrFind || purpose == RunPurpose::Predict)
            diag.error(metaField,
                       "the data is masked-LM pretraining data (task_type bert_pretraining, no labels); "
                           + std::string(runPurposeName(purpose)) + " needs labelled classification data",
                       "pretrain on it with 'bert-workbench-cli pretrain' (same flags), then fine-tune on labelled data "
                       "prepared with 'prepare' and --init_checkpoint=<the pretraining model_dir's ckpt-N>");
    } else if (purpose == RunPurpose::Pretrain) {
        diag.error(metaField,
                   "pretrain needs masked-LM pretraining data (task_type bert_pretraining), the meta data says '"
                       + meta.task_type + "'",
                   "prepare plain text with 'bert-workbench-cli prepare_pretraining', or fine-tune this data with 'train'");
    }
    if (purpose != RunPurpose::Pretrain || !meta.isPretraining() || !r.bert_config)
        return;
    const BertConfig &cfg = *r.bert_config;
    if (meta.vocab_size && *meta.vocab_size != cfg.vocab_size)
        diag.error(o.input_meta_data_path + ": vocab_size",
                   "the data was made with a vocabulary of " + std::to_string(*meta.vocab_size) + " tokens, the model's "
                       "config has vocab_size " + std::to_string(cfg.vocab_size),
                   "prepare the corpus with the model's vocab.txt, or set vocab_size " + std::to_string(*meta.vocab_size)
                       + " in the config (training from scratch)");
    if (cfg.embeddingWidth() != cfg.hidden_size)
        diag.error(o.bert_config_file + ": embedding_size",
                   "pretraining ties the decoder to the word embeddings, which needs embedding_size == hidden_size",
                   "remove embedding_size from the config");
    if (meta.masking == "dynamic")
        checkDynamicMaskingVocab(o, cfg, diag);
    if (meta.train_data_size && o.train_batch_size > 0 && *meta.train_data_size < o.train_batch_size)
        diag.error(o.input_meta_data_path + ": train_data_size",
                   "the corpus gives " + std::to_string(*meta.train_data_size) + " training sequences, fewer than one batch of "
                       + std::to_string(o.train_batch_size),
                   "add text to the corpus (or raise dupe_factor), or lower --train_batch_size");
    if (meta.max_predictions_per_seq > 0 && meta.max_predictions_per_seq <= meta.max_seq_length) {
        MaskedLmSpec spec;
        spec.max_seq_length = meta.max_seq_length;
        spec.max_predictions_per_seq = meta.max_predictions_per_seq;
        spec.vocab_size = cfg.vocab_size;
        spec.type_vocab_size = cfg.type_vocab_size;
        spec.masks_required = meta.masking != "dynamic";
        checkFirstRecords("train_data_path", o.train_data_path, spec, diag);
        checkFirstRecords("eval_data_path", o.eval_data_path, spec, diag);
    }
    if (!o.init_checkpoint.empty() && !isTrainingCheckpointPath(o.init_checkpoint)) {
        // The encoder by the fine-tuning loader's rules; its classifier notes do not apply.
        InputMetaData asClassifier = meta;
        asClassifier.num_labels = 2;
        Diagnostics found;
        checkInitCheckpoint(o, cfg, asClassifier, found);
        for (const Diagnostic &d : found.items())
            if (d.message.find("classifier") == std::string::npos)
                diag.add(d);
    }
}

} // namespace wb
