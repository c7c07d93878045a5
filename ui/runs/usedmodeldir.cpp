// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/usedmodeldir.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/optiontable.h"
#include "core/config/schedule.h"
#include "core/engine/preparedrun.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/runidentity.h"
#include "ui/common/errorreport.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace wb {

namespace {


// "learning_rate" → "Learning rate" (the form's label), else the name itself.
QString formName(const std::string &name)
{
    if (name == "train_data_size") // run_config's is the examples the schedule used, not the form's cap
        return QObject::tr("Training examples used");
    const OptionSpec *spec = findOption(name);
    if (spec && spec->group != FormGroup::None && *spec->label)
        return QString::fromUtf8(spec->label);
    return q(name);
}

QString fieldLabel(const char *flag)
{
    const OptionSpec *spec = findOption(flag);
    return spec ? QString::fromUtf8(spec->label) : QString::fromLatin1(flag);
}

/// Why the run's settings cannot be compared when the form names no model config or meta data
/// (after Start from's model filled what it could: `modelCached`), in the form's words; "" when
/// both are named.
QString missingInputText(const TrainingOptions &o, bool modelCached)
{
    if (o.bert_config_file.empty()) {
        if (!o.pretrained_model.empty() && !modelCached)
            return QObject::tr("%1 is empty and Start from's %2 is not in the Hugging Face cache yet, so the run's "
                               "model cannot be compared with the form's. Choose %2 again in Start from (it is "
                               "downloaded and fills %1) to continue it")
                .arg(fieldLabel("bert_config_file"), q(o.pretrained_model));
        return QObject::tr("%1 is empty and Start from is random weights, so the run's model cannot be compared "
                           "with the form's. Choose the run's model in Start from, or its config file in %1, to continue "
                           "it")
            .arg(fieldLabel("bert_config_file"));
    }
    if (o.input_meta_data_path.empty())
        return QObject::tr("%1 is empty, so the run's data cannot be compared with the form's. Choose the data's "
                           "input_meta_data.json in %1 (Prepare Data fills it) to continue it")
            .arg(fieldLabel("input_meta_data_path"));
    return {};
}

QString jsonText(const nlohmann::ordered_json &v)
{
    if (v.is_string())
        return q(v.get<std::string>());
    if (v.is_number_float())
        return QString::number(v.get<double>(), 'g', 6);
    return q(v.dump());
}

} // namespace

UsedModelDir inspectModelDir(const TrainingOptions &o)
{
    UsedModelDir u;
    u.modelDir = q(o.model_dir);
    if (o.model_dir.empty() || o.mode != "train_and_eval")
        return u;
    try {
        const std::string latest = latestCheckpoint(o.model_dir);
        if (latest.empty())
            return u;
        u.used = true;
        u.latestCheckpoint = q(latest);
        u.step = checkpointStep(latest);
        Diagnostics diag;
        const std::optional<RunIdentity> saved = readRunConfig(o.model_dir, diag);
        if (!saved || !saved->json.contains("defining")) {
            u.whyNotContinue = QObject::tr("the folder has no readable run_config.json, so its settings are unknown");
            return u;
        }
        const auto &defining = saved->json["defining"];
        u.totalSteps = defining.value("total_steps", int64_t(-1));
        for (const char *key : {"learning_rate", "num_train_epochs", "num_eval_per_epoch", "train_batch_size",
                                "warmup_fraction", "seed", "max_seq_length", "num_labels"})
            if (defining.contains(key))
                u.settings << QStringLiteral("%1: %2").arg(formName(key), jsonText(defining[key]));
        // The files the run would use: an empty BERT config is Start from's model's, as Train
        // fills it (applyPretrainedModel) when the model is in the Hugging Face cache.
        TrainingOptions asRun = o;
        std::optional<PretrainedModel> model;
        if (o.bert_config_file.empty() && !o.pretrained_model.empty()) {
            try {
                model = findCachedPretrainedModel(o.pretrained_model, HubSettings::fromEnvironment());
            } catch (...) {
                // a damaged or unreadable copy: as if not there (Train downloads it again)
            }
            if (model)
                applyPretrainedModel(asRun, *model);
        }
        if (const QString missing = missingInputText(asRun, model.has_value()); !missing.isEmpty()) {
            u.whyNotContinue = missing;
            return u;
        }
        Diagnostics inputs;
        const std::optional<BertConfig> config = BertConfig::load(asRun.bert_config_file, inputs);
        const std::optional<InputMetaData> meta = InputMetaData::load(asRun.input_meta_data_path, inputs);
        std::optional<Schedule> schedule;
        if (config && meta && meta->train_data_size && meta->eval_data_size)
            schedule = Schedule::compute(*meta->train_data_size, *meta->eval_data_size, o.num_train_epochs,
                                         o.num_eval_per_epoch, o.train_batch_size, o.eval_batch_size,
                                         o.train_data_size, o.warmup_fraction, inputs);
        if (!config || !meta || !schedule) {
            const Diagnostic *first = nullptr;
            for (const Diagnostic &d : inputs.items())
                if (d.severity == Severity::Error) {
                    first = &d;
                    break;
                }
            u.whyNotContinue = first ? QObject::tr("%1: %2, so the run's settings cannot be compared with the form's")
                                           .arg(q(first->field), q(first->message))
                                     : QObject::tr("the data description (%1) gives no training and evaluation sizes, "
                                                   "so the run's settings cannot be compared with the form's")
                                           .arg(q(asRun.input_meta_data_path));
            return u;
        }
        resolveLearningRate(asRun); // an empty learning rate goes on at the run's own
        for (const std::string &d : runIdentityDifferences(*saved, RunIdentity::of(asRun, *config, *meta, *schedule))) {
            const auto colon = d.find(':');
            u.differences << (colon == std::string::npos ? q(d) : formName(d.substr(0, colon)) + q(d.substr(colon)));
        }
        if (!u.differences.isEmpty())
            u.whyNotContinue = QObject::tr("the form's settings differ from the run's");
        else if (u.isComplete())
            u.whyNotContinue = QObject::tr("the run is complete (step %1 of %2)").arg(u.step).arg(u.totalSteps);
    } catch (...) {
        u.whyNotContinue = currentErrorReport().message;
    }
    return u;
}

QString proposeNewModelDir(const QString &modelDir)
{
    QString base = QDir::cleanPath(modelDir);
    int n = 2;
    static const QRegularExpression suffix(QStringLiteral("^(.*)-(\\d+)$"));
    const QRegularExpressionMatch m = suffix.match(base);
    if (m.hasMatch()) {
        base = m.captured(1);
        n = m.captured(2).toInt() + 1;
    }
    QString candidate;
    do {
        candidate = QStringLiteral("%1-%2").arg(base).arg(n++);
    } while (QFileInfo::exists(candidate));
    return candidate;
}

qint64 checkpointDiskUse(const QString &modelDir, int *count)
{
    qint64 bytes = 0;
    int n = 0;
    if (!modelDir.isEmpty()) {
        const QFileInfoList files = QDir(modelDir).entryInfoList({QStringLiteral("ckpt-*")}, QDir::Files);
        for (const QFileInfo &f : files) {
            if (checkpointStep(f.fileName().toStdString()) < 0)
                continue; // ckpt-N.tmp of an interrupted save
            bytes += f.size();
            ++n;
        }
    }
    if (count)
        *count = n;
    return bytes;
}

} // namespace wb
