// SPDX-License-Identifier: Apache-2.0
#include "ui/runhistory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <limits>

namespace wb {

namespace {

double number(const nlohmann::json &o, const char *key)
{
    auto it = o.find(key);
    if (it == o.end() || !it->is_number())
        return std::numeric_limits<double>::quiet_NaN();
    return it->get<double>();
}

void readSummary(const QString &path, std::map<std::string, std::string> &out)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return;
    const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    if (!j.is_object())
        return;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const auto &v = it.value();
        if (v.is_string())
            out[it.key()] = v.get<std::string>();
        else if (v.is_number() || v.is_boolean())
            out[it.key()] = v.dump();
        else if (v.is_object()) // one level of nesting, e.g. {"options": {...}}
            for (auto jt = v.begin(); jt != v.end(); ++jt)
                if (jt.value().is_primitive())
                    out[jt.key()] = jt.value().is_string() ? jt.value().get<std::string>() : jt.value().dump();
    }
}

} // namespace

RunHistory RunHistory::load(const QString &path, QString *error)
{
    RunHistory h;
    h.metricsPath = path;
    const QFileInfo info(path);
    h.name = info.absoluteDir().dirName();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: cannot open: %2").arg(path, f.errorString());
        return h;
    }
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (int i = 0; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        if (line.isEmpty())
            continue;
        const auto j = nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (!j.is_object()) {
            const bool last = i >= lines.size() - 2;
            if (!last && error)
                *error = QStringLiteral("%1: line %2: not a JSON object").arg(path).arg(i + 1);
            if (!last)
                return h;
            continue;
        }
        const std::string kind = j.value("kind", std::string());
        if (kind == "train") {
            h.trainStep.push_back(number(j, "step"));
            h.trainWallTime.push_back(number(j, "wall_time"));
            h.trainLoss.push_back(number(j, "loss"));
            h.learningRate.push_back(number(j, "learning_rate"));
        } else if (kind == "eval") {
            h.evalStep.push_back(number(j, "step"));
            h.evalWallTime.push_back(number(j, "wall_time"));
            h.evalLoss.push_back(number(j, "eval_loss"));
            h.evalAccuracy.push_back(number(j, "eval_accuracy"));
        }
    }
    readSummary(info.absoluteDir().filePath(QStringLiteral("training_summary.json")), h.summary);
    readSummary(info.absoluteDir().filePath(QStringLiteral("bert_workbench_project.json")), h.summary);
    return h;
}

QStringList RunHistory::findRuns(const QString &modelDir)
{
    QStringList out;
    if (modelDir.isEmpty())
        return out;
    const QDir dir(modelDir);
    const QString own = dir.filePath(QStringLiteral("metrics.jsonl"));
    auto addFrom = [&](const QDir &d) {
        const auto subdirs = d.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QFileInfo &sub : subdirs) {
            const QString m = QDir(sub.absoluteFilePath()).filePath(QStringLiteral("metrics.jsonl"));
            if (QFileInfo::exists(m))
                out << QFileInfo(m).absoluteFilePath();
        }
    };
    if (QFileInfo::exists(own))
        out << QFileInfo(own).absoluteFilePath();
    if (dir.exists()) {
        addFrom(dir);
        QDir parent(dir.absolutePath());
        if (parent.cdUp() && parent.absolutePath() != dir.absolutePath() && !parent.isRoot())
            addFrom(parent);
    }
    out.removeDuplicates();
    out.sort();
    return out;
}

} // namespace wb
