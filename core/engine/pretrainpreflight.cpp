// SPDX-License-Identifier: Apache-2.0
#include "core/engine/pretrainpreflight.h"

#include "core/data/classifierdataset.h"
#include "core/prepare/preparereport.h"
#include "core/data/pretrainingdataset.h"
#include "core/tokenize/vocab.h"
#include "core/data/tfrecordreader.h"
#include "core/model/initcheckpoint.h"
#include "core/engine/preparedrun.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

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
                   "neither " + optionName("vocab_file") + " nor the prepare_report.json beside " + o.input_meta_data_path
                       + " names one",
                   // The window's field is a path: filled in, not ticked.
                   (optionWording() == OptionWording::Window ? "fill in " + optionName("vocab_file")
                                                             : passOption("vocab_file"))
                       + " (the vocab.txt the corpus was prepared with)");
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

namespace {

namespace fs = std::filesystem;

/// run_pretraining.py's default --max_predictions_per_seq, for records without masks.
constexpr int64_t kDefaultMaxPredictions = 20;

/// An error on `flag` when it is set and differs from `actual`, which `where` describes.
void checkShapeFlag(const char *flag, const std::optional<int64_t> &given, int64_t actual, const std::string &where,
                    const std::string &rewrite, Diagnostics &diag)
{
    if (!given || *given == actual)
        return;
    diag.error(flag,
               optionSetting(flag, std::to_string(*given)) + ", but " + where + " " + flag + " " + std::to_string(actual),
               passOption(flag, std::to_string(actual)) + " (or leave the flag out), or " + rewrite + " "
                   + optionSetting(flag, std::to_string(*given)));
}

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
}

/// Reads the shapes of the records `pattern` names into `shapes`; a failure becomes an error
/// on `flag` in `diag` (returns false).
bool readRecordShapes(const std::string &pattern, const char *flag, MaskedLmRecordShapes &shapes, Diagnostics &diag)
{
    try {
        shapes = readMaskedLmRecordShapes(pattern);
        return true;
    } catch (...) {
        const ErrorText t = describeCurrentException(flag);
        diag.error(t.field, t.message, t.hint);
        return false;
    }
}

} // namespace

namespace {

/// The meta data that the records' own shapes give (pretraining without --input_meta_data_path).
InputMetaData metaDataOfRecords(const MaskedLmRecordShapes &train, const MaskedLmRecordShapes &eval,
                                const RecordShapeFlags &flags)
{
    InputMetaData meta;
    meta.task_type = "bert_pretraining";
    meta.num_labels = 0;
    meta.max_seq_length = train.max_seq_length;
    meta.max_predictions_per_seq = train.has_masks ? train.max_predictions_per_seq
                                                   : flags.max_predictions_per_seq.value_or(
                                                       std::min(kDefaultMaxPredictions, train.max_seq_length));
    meta.train_data_size = train.records;
    meta.eval_data_size = eval.records;
    meta.use_next_sentence_label = train.next_sentence;
    meta.masking = train.has_masks ? "static" : "dynamic";
    return meta;
}

/// Writes `meta` as model_dir's records meta data (atomically, only when it changed); returns its
/// path, or "" after adding the error to `diag`.
std::string writeRecordsMetaData(const std::string &modelDir, const InputMetaData &meta, Diagnostics &diag)
{
    const std::string path = (fs::path(modelDir) / kRecordsMetaDataName).string();
    const std::string text = meta.toJson().dump(2) + "\n";
    try {
        std::error_code ec;
        fs::create_directories(modelDir, ec);
        if (ec)
            throw Error("model_dir", "cannot create '" + modelDir + "': " + ec.message(),
                        "choose a " + optionName("model_dir")
                            + (optionWording() == OptionWording::CommandLine ? " (--output_dir)" : "")
                            + " you can write to");
        if (readText(path) != text)
            writeFileAtomic(path, text);
    } catch (...) {
        const ErrorText t = describeCurrentException("model_dir");
        diag.error(t.field, t.message, t.hint);
        return {};
    }
    return path;
}

} // namespace

std::vector<std::string> resolveRecordsMetaData(TrainingOptions &o, const RecordShapeFlags &flags, Diagnostics &diag)
{
    std::vector<std::string> notes;
    if (!o.input_meta_data_path.empty()) {
        Diagnostics scratch; // validateRun reports the file's own problems
        const std::optional<InputMetaData> meta = InputMetaData::load(o.input_meta_data_path, scratch);
        if (meta && meta->isPretraining()) {
            const std::string where = o.input_meta_data_path + " says";
            const std::string rewrite = "prepare the records again with";
            checkShapeFlag("max_seq_length", flags.max_seq_length, meta->max_seq_length, where, rewrite, diag);
            checkShapeFlag("max_predictions_per_seq", flags.max_predictions_per_seq, meta->max_predictions_per_seq,
                           where, rewrite, diag);
        }
        return notes;
    }
    if (o.train_data_path.empty() || o.model_dir.empty())
        return notes;
    const int errorsBefore = diag.errorCount();
    const std::string rewrite = "write the records again (create_pretraining_data.py or prepare_pretraining) with";
    MaskedLmRecordShapes train, eval;
    if (!readRecordShapes(o.train_data_path, "train_data_path", train, diag))
        return notes;
    const std::string trainWhere = "the records of " + train.files.front() + " have";
    checkShapeFlag("max_seq_length", flags.max_seq_length, train.max_seq_length, trainWhere, rewrite, diag);
    if (train.has_masks)
        checkShapeFlag("max_predictions_per_seq", flags.max_predictions_per_seq, train.max_predictions_per_seq,
                       trainWhere, rewrite, diag);
    eval = train;
    if (!o.eval_data_path.empty() && o.eval_data_path != o.train_data_path) {
        if (!readRecordShapes(o.eval_data_path, "eval_data_path", eval, diag))
            return notes;
        const auto shape = [](const MaskedLmRecordShapes &s) {
            return "max_seq_length " + std::to_string(s.max_seq_length) + " and "
                + (s.has_masks ? "max_predictions_per_seq " + std::to_string(s.max_predictions_per_seq)
                               : std::string("no masks"));
        };
        if (eval.max_seq_length != train.max_seq_length || eval.has_masks != train.has_masks
            || eval.max_predictions_per_seq != train.max_predictions_per_seq)
            diag.error("eval_data_path",
                       "the evaluation records (" + eval.first_record + ") have " + shape(eval)
                           + ", the training records (" + train.first_record + ") " + shape(train),
                       "evaluate on records written with the training records' settings");
    }
    if (diag.errorCount() != errorsBefore)
        return notes;

    const InputMetaData meta = metaDataOfRecords(train, eval, flags);
    const std::string path = writeRecordsMetaData(o.model_dir, meta, diag);
    if (path.empty())
        return notes;
    o.input_meta_data_path = path;
    notes.push_back("no " + optionName("input_meta_data_path") + ": read the shapes from the records ("
                    + std::to_string(train.records)
                    + " training records in " + std::to_string(train.files.size()) + " file(s), "
                    + std::to_string(eval.records) + " evaluation records; max_seq_length "
                    + std::to_string(meta.max_seq_length) + ", max_predictions_per_seq "
                    + std::to_string(meta.max_predictions_per_seq) + ", " + meta.masking + " masking"
                    + (meta.use_next_sentence_label ? ", next-sentence labels" : "") + ") and wrote them to " + path);
    return notes;
}

std::string dynamicMaskingVocab(const TrainingOptions &o)
{
    if (!o.vocab_file.empty())
        return o.vocab_file;
    return readPreparedTokenizer(o.input_meta_data_path).vocab_file;
}

void checkPretrainingPurpose(const TrainingOptions &o, RunPurpose purpose, ValidationResult &r)
{
    if (purpose == RunPurpose::Train || purpose == RunPurpose::LrFind)
        for (const auto &[flag, given] : {std::pair<const char *, bool>{"num_train_steps", bool(o.num_train_steps)},
                                          {"num_warmup_steps", bool(o.num_warmup_steps)}})
            if (given)
                r.diagnostics.error(flag,
                                    optionName(flag) + " is pretrain's flag (run_pretraining.py's); "
                                        + runPurposeName(purpose) + " counts " + optionName("num_train_epochs") + " and "
                                        + optionName("warmup_fraction"),
                                    "leave " + optionName(flag) + " out, or pretrain with " + commandName("pretrain"));
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
                       "pretrain on it with " + commandName("pretrain")
                           + " (same flags), then fine-tune on labelled data prepared with 'prepare' and "
                           + optionSetting("init_checkpoint", "<the pretraining model_dir's ckpt-N>"));
    } else if (purpose == RunPurpose::Pretrain) {
        diag.error(metaField,
                   "pretrain needs masked-LM pretraining data (task_type bert_pretraining), the meta data says '"
                       + meta.task_type + "'",
                   "prepare plain text with " + commandName("prepare_pretraining")
                       + ", or fine-tune this data with 'train'");
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
                   "add text to the corpus (or raise dupe_factor), or lower " + optionName("train_batch_size"));
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
