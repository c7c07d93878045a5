// SPDX-License-Identifier: Apache-2.0
// The export of a pretraining run (docs/pretraining.md): a Hugging Face BertForMaskedLM folder
// that a fill-mask pipeline loads, written by the one export folder writer (writeExportFolder,
// core/export/export.h) with the masked LM's weights and architecture.
#include "core/engine/pretrainrun.h"

#include "core/config/optionwords.h"
#include "core/model/pretrainingheads.h"
#include "core/formats/bestmodel.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/export/export.h"
#include "core/util/error.h"

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
                    "pretrain first, or pass " + optionName("predict_checkpoint_path"));
    nn::BertForPreTraining model(cfg, meta.use_next_sentence_label, nn::makeGenerator(uint64_t(spec.seed)));
    loadModelCheckpoint(ckpt, {*model, model->config(), 0, model->generator()}, nullptr, false);
    ExportedModel exported;
    exported.architecture = "BertForMaskedLM";
    exported.tensors = huggingFaceTensors(model, false); // the tied decoder included; no pooler
    return writeExportFolder(exported, cfg, meta, spec, {}, ckpt,
                             spec.predict_checkpoint_path.empty() ? std::string("latest") : spec.predict_checkpoint_path,
                             obs);
}

} // namespace wb
