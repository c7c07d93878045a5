// SPDX-License-Identifier: Apache-2.0
// The export of a pretraining run (docs/pretraining.md): a Hugging Face BertForMaskedLM folder
// (model.safetensors, config.json, bert_config.json, input_meta_data.json, vocab.txt,
// tokenizer.json, tokenizer_config.json, special_tokens_map.json) that a fill-mask pipeline loads, written whole or not at all.
#include "core/train/pretrainrun.h"

#include "core/config/jsonfile.h"
#include "core/data/preparereport.h"
#include "core/model/initcheckpoint.h"
#include "core/model/pretrainingheads.h"
#include "core/train/bestmodel.h"
#include "core/train/checkpointio.h"
#include "core/train/checkpointstate.h"
#include "core/train/export.h"
#include "core/train/exportfolder.h"
#include "core/util/error.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

RunFinished exportPretraining(const TrainingOptions &spec, const ValidationResult &v, TrainingObserver &obs)
{
    const BertConfig cfg = *v.bert_config;
    const InputMetaData meta = *v.meta_data;
    std::string ckpt;
    if (!spec.predict_checkpoint_path.empty())
        ckpt = resolveCheckpointAlias(spec.predict_checkpoint_path, spec.model_dir);
    else
        ckpt = latestCheckpoint(spec.model_dir);
    if (ckpt.empty())
        throw Error("model_dir", "no checkpoint found in '" + spec.model_dir + "'",
                    "pretrain first, or pass --predict_checkpoint_path");
    nn::BertForPreTraining model(cfg, meta.use_next_sentence_label, nn::makeGenerator(uint64_t(spec.seed)));
    loadModelCheckpoint(ckpt, {*model, model->config(), 0, model->generator()}, nullptr, false);
    ExportStaging staging(spec.model_export_path, spec.overwrite_output_dir); // whole or not at all
    const fs::path d = staging.path();
    std::vector<std::string> written;
    const auto put = [&](const std::string &name, const std::string &text) {
        writeFileAtomic((d / name).string(), text);
        written.push_back(name);
    };
    saveSafetensors((d / "model.safetensors").string(), huggingFaceTensors(model, false));
    written.push_back("model.safetensors");
    nlohmann::ordered_json config = huggingFaceConfig(cfg, {}, false);
    config["architectures"] = {"BertForMaskedLM"};
    // What save_pretrained leaves out of a BertForMaskedLM's config (configuration_utils.py
    // to_diff_dict: no head labels; classifier_dropout stays, a BertConfig key).
    for (const char *k : {"num_labels", "problem_type", "id2label", "label2id"})
        config.erase(k);
    put("config.json", config.dump(2) + "\n");
    put("bert_config.json", cfg.toJson().dump(2) + "\n");
    put("input_meta_data.json", meta.toJson().dump(2) + "\n");
    const PreparedTokenizer prepared = readPreparedTokenizer(spec.input_meta_data_path);
    const std::string vocab = !spec.vocab_file.empty() ? spec.vocab_file : prepared.vocab_file;
    if (vocab.empty()) {
        obs.logMessage("warning: no vocab.txt in the export: pass --vocab_file (the vocabulary the corpus was prepared "
                       "with)");
    } else {
        put("vocab.txt", readVocabularyForExport(vocab));
    }
    const bool lower = !spec.do_lower_case.empty() ? spec.do_lower_case == "true"
                                                   : meta.do_lower_case.value_or(prepared.do_lower_case.value_or(true));
    // tokenizer.json, tokenizer_config.json (mask_token for the fill-mask pipeline) and
    // special_tokens_map.json, as for a classifier.
    for (const auto &[name, text] :
         huggingFaceTokenizerFiles(vocab.empty() ? std::string() : (d / "vocab.txt").string(), lower, meta.max_seq_length))
        put(name, text);
    const std::vector<std::string> files = describeExportFiles(staging.path(), written);
    staging.commit();
    std::string list;
    for (const auto &f : files)
        list += "\n" + f;
    obs.logMessage("Exported " + ckpt + " to " + spec.model_export_path + " as BertForMaskedLM:" + list);
    RunFinished r;
    r.status = RunStatus::Completed;
    r.last_checkpoint = ckpt;
    r.message = "exported to " + spec.model_export_path;
    return r;
}

} // namespace wb
