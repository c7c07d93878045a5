// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/usedmodeldir.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/optiontable.h"
#include "core/config/schedule.h"
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
        Diagnostics inputs;
        const std::optional<BertConfig> config = BertConfig::load(o.bert_config_file, inputs);
        const std::optional<InputMetaData> meta = InputMetaData::load(o.input_meta_data_path, inputs);
        std::optional<Schedule> schedule;
        if (config && meta && meta->train_data_size && meta->eval_data_size)
            schedule = Schedule::compute(*meta->train_data_size, *meta->eval_data_size, o.num_train_epochs,
                                         o.num_eval_per_epoch, o.train_batch_size, o.eval_batch_size,
                                         o.train_data_size, o.warmup_fraction, inputs);
        if (!config || !meta || !schedule) {
            u.whyNotContinue = QObject::tr("the form's BERT config or data description cannot be read, so the "
                                           "settings cannot be compared");
            return u;
        }
        TrainingOptions asRun = o;
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
