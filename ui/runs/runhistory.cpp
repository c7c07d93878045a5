// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/runhistory.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "core/config/labelnames.h"
#include "core/config/optiontable.h"
#include "core/io/eventreader.h"
#include "core/io/metricsreader.h"
#include "core/formats/sweepdriver.h"
#include "core/formats/sweepnames.h"
#include "core/util/error.h"
#include "core/util/errortext.h"
#include "ui/form/projectfile.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace wb {

namespace {

/// Adds `j` to `out` flat: objects' members as "prefix.key", text without quotes.
void flattenSettings(const std::string &prefix, const nlohmann::ordered_json &j, std::map<std::string, std::string> &out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flattenSettings(prefix.empty() ? it.key() : prefix + "." + it.key(), it.value(), out);
        return;
    }
    if (prefix.empty())
        return;
    out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
}

/// Fills the recorded options and the summary of `h` from the files in `dir` (one reader
/// each: core/formats/runidentity.h, core/formats/trainingsummary.h, ui/form/projectfile.h).
void readRunFiles(const QDir &dir, RunHistory &h)
{
    const std::string modelDir = dir.absolutePath().toStdString();
    const auto warn = [&h](const std::string &fallbackField) {
        h.warnings << QString::fromStdString(describeCurrentException(fallbackField).line());
    };
    RecordedRunOptions recorded;
    std::map<std::string, std::string> runConfigSettings;
    try {
        Diagnostics diag;
        if (const auto id = readRunConfig(modelDir, diag)) {
            recorded = recordedRunOptions(*id, runConfigPath(modelDir));
            for (const char *part : {"defining", "informational"})
                if (const auto it = id->json.find(part); it != id->json.end())
                    flattenSettings("", *it, runConfigSettings);
            runConfigSettings.erase("working_directory");
            runConfigSettings.erase("version");
        }
        for (const Diagnostic &d : diag.items())
            h.warnings << QString::fromStdString(d.field + ": " + d.message);
    } catch (...) {
        warn(runConfigPath(modelDir));
    }
    const QString projectPath = dir.filePath(QStringLiteral("bert_workbench_project.json"));
    std::optional<TrainingOptions> project;
    if (QFileInfo::exists(projectPath)) {
        Diagnostics diag;
        TrainingOptions o = ProjectFile::load(projectPath, diag);
        if (diag.hasErrors())
            h.warnings << QString::fromStdString(diag.format(false)).trimmed();
        else
            project = std::move(o);
    }
    if (project) {
        for (const OptionSpec &spec : optionTable()) {
            const nlohmann::json v = spec.toJson(*project);
            if (!v.is_null())
                h.settings[spec.flag] = v.is_string() ? v.get<std::string>() : v.dump();
        }
        if (!recorded.learning_rate)
            recorded.learning_rate = project->learning_rate;
        if (!recorded.train_batch_size)
            recorded.train_batch_size = project->train_batch_size;
        if (!recorded.num_train_epochs)
            recorded.num_train_epochs = project->num_train_epochs;
        if (!recorded.dtype)
            recorded.dtype = project->dtype;
        if (!recorded.input_meta_data_path)
            recorded.input_meta_data_path = project->input_meta_data_path;
    }
    for (auto &[key, value] : runConfigSettings)
        h.settings[key] = value;
    h.recorded = std::move(recorded);
    try {
        h.trainingSummary = readTrainingSummary(modelDir);
    } catch (...) {
        warn(trainingSummaryPath(modelDir));
    }
}

} // namespace

RunHistory RunHistory::load(const QString &path, QString *error)
{
    RunHistory h;
    h.sourcePath = path;
    const QFileInfo info(path);
    h.name = QString::fromStdString(runDisplayName(info.absolutePath().toStdString())); // "run-1", "sweep-1/run-002"
    std::string readError;
    const MetricsLog log = readMetricsFile(path.toStdString(), &readError); // core/io: the writer's twin
    if (!readError.empty() && error)
        *error = QString::fromStdString(readError);
    for (const StepMetrics &m : log.train) {
        h.trainStep.push_back(double(m.step));
        h.trainWallTime.push_back(m.wall_time);
        h.trainLoss.push_back(m.loss);
        h.learningRate.push_back(m.learning_rate);
    }
    for (const EvalMetrics &m : log.eval) {
        h.evalStep.push_back(double(m.step));
        h.evalWallTime.push_back(m.wall_time);
        h.evalLoss.push_back(m.eval_loss);
        h.evalAccuracy.push_back(m.regression ? std::numeric_limits<double>::quiet_NaN() : m.eval_accuracy);
    }
    if (!readError.empty())
        return h; // as far as the file could be read; no summary
    readRunFiles(info.absoluteDir(), h);
    h.seedGroup = QString::fromStdString(sweepSeedGroup(info.absolutePath().toStdString()));
    if (const auto &meta = h.recorded.input_meta_data_path; meta && !meta->empty()) {
        const QFileInfo metaInfo(info.absoluteDir(), QString::fromStdString(*meta));
        if (auto names = readLabelsFile(QDir(metaInfo.absolutePath()).filePath(QStringLiteral("labels.txt")).toStdString()))
            h.labelNames = std::move(*names);
    }
    return h;
}

int recordedFactCount(const RunHistory &run)
{
    const RecordedRunOptions &r = run.recorded;
    return int(bool(r.learning_rate)) + int(bool(r.train_batch_size)) + int(bool(r.num_train_epochs)) + int(bool(r.dtype))
        + int(bool(r.input_meta_data_path)) + int(run.settings.size()) + int(run.trainingSummary.has_value())
        + int(!run.labelNames.empty());
}

RunHistory mergeRunHistory(const RunHistory &existing, const RunHistory &incoming)
{
    const bool incomingRicher = recordedFactCount(incoming) >= recordedFactCount(existing);
    const auto points = [](const RunHistory &h) { return h.trainStep.size() + h.evalStep.size(); };
    RunHistory out = points(incoming) >= points(existing) ? incoming : existing; // the curves
    const RunHistory &richer = incomingRicher ? incoming : existing;
    out.name = richer.name;
    out.sourcePath = richer.sourcePath;
    const auto pick = [](auto &to, const auto &a, const auto &b) { to = a ? a : b; };
    pick(out.recorded.learning_rate, incoming.recorded.learning_rate, existing.recorded.learning_rate);
    pick(out.recorded.train_batch_size, incoming.recorded.train_batch_size, existing.recorded.train_batch_size);
    pick(out.recorded.num_train_epochs, incoming.recorded.num_train_epochs, existing.recorded.num_train_epochs);
    pick(out.recorded.dtype, incoming.recorded.dtype, existing.recorded.dtype);
    pick(out.recorded.input_meta_data_path, incoming.recorded.input_meta_data_path, existing.recorded.input_meta_data_path);
    pick(out.trainingSummary, incoming.trainingSummary, existing.trainingSummary);
    out.labelNames = incoming.labelNames.empty() ? existing.labelNames : incoming.labelNames;
    out.settings = existing.settings;
    for (const auto &[key, value] : incoming.settings)
        out.settings[key] = value;
    out.warnings = incoming.warnings;
    out.seedGroup = incoming.seedGroup.isEmpty() ? existing.seedGroup : incoming.seedGroup;
    return out;
}

QString runStartText(const RunHistory &run)
{
    const auto setting = [&run](const char *key) {
        const auto it = run.settings.find(key);
        return it == run.settings.end() ? std::string() : it->second;
    };
    if (run.settings.empty())
        return QStringLiteral("–");
    if (const std::string model = setting("pretrained_model"); !model.empty())
        return QString::fromStdString(model);
    if (const std::string init = setting("init_checkpoint"); !init.empty())
        return QFileInfo(QString::fromStdString(init)).fileName();
    return QStringLiteral("scratch");
}

std::vector<SettingDifference> differingSettings(const std::vector<RunHistory> &runs)
{
    std::vector<SettingDifference> out;
    if (runs.size() < 2)
        return out;
    std::map<std::string, bool> keys;
    for (const RunHistory &r : runs)
        for (const auto &kv : r.settings)
            keys[kv.first] = true;
    for (const auto &kv : keys) {
        const std::string &key = kv.first;
        if (key == "model_dir" || key == "metrics_file")
            continue; // each run's own folder
        SettingDifference d{key, {}};
        for (const RunHistory &r : runs) {
            const auto it = r.settings.find(key);
            d.values.push_back(it == r.settings.end() ? std::string("–") : it->second);
        }
        if (std::adjacent_find(d.values.begin(), d.values.end(), std::not_equal_to<>()) != d.values.end())
            out.push_back(std::move(d));
    }
    return out;
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

namespace {

enum class Role { Train, Eval, Other };

Role roleOf(const std::string &dirName)
{
    if (dirName == "train")
        return Role::Train;
    if (dirName == "validation" || dirName == "eval" || dirName == "evaluation")
        return Role::Eval;
    return Role::Other;
}

/// Appends `points` to (steps, wall times, values), in file order.
void merge(std::vector<double> &steps, std::vector<double> &walls, std::vector<double> *values,
           const std::vector<ScalarPoint> &points)
{
    for (const ScalarPoint &p : points) {
        steps.push_back(double(p.step));
        walls.push_back(p.wall_time);
        values->push_back(p.value);
    }
}

/// Puts `values` (one per step of `steps`) onto `targetSteps`, NaN where a step has none.
std::vector<double> alignTo(const std::vector<double> &targetSteps, const std::vector<ScalarPoint> &points)
{
    std::unordered_map<int64_t, double> byStep;
    for (const ScalarPoint &p : points)
        byStep[p.step] = p.value; // the last value of a step wins, as in TensorBoard
    std::vector<double> out(targetSteps.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t i = 0; i < targetSteps.size(); ++i)
        if (const auto it = byStep.find(int64_t(targetSteps[i])); it != byStep.end())
            out[i] = it->second;
    return out;
}

const std::vector<ScalarPoint> *findTag(const ScalarRun &run, std::initializer_list<const char *> tags)
{
    for (const char *t : tags)
        if (auto it = run.series.find(t); it != run.series.end() && !it->second.empty())
            return &it->second;
    return nullptr;
}

/// The run a TensorBoard event-file directory belongs to: train/validation/eval directories
/// belong to their parent folder (or the folder above `summaries/`); any other is its own.
QDir runFolderOf(const ScalarRun &sr, Role *role)
{
    const QDir dir(QString::fromStdString(sr.dir));
    *role = roleOf(dir.dirName().toStdString());
    QDir groupDir = dir;
    if (*role != Role::Other) {
        groupDir.cdUp();
        if (groupDir.dirName() == QLatin1String("summaries")) {
            QDir above = groupDir;
            if (above.cdUp())
                groupDir = above;
        }
    }
    return groupDir;
}

/// Adds the training scalars of `sr` (loss; learning rate aligned to its steps) to `h`.
void addTrainScalars(RunHistory &h, const ScalarRun &sr)
{
    if (const auto *loss = findTag(sr, {"loss", "train_loss", "batch_loss", "epoch_loss"})) {
        merge(h.trainStep, h.trainWallTime, &h.trainLoss, *loss);
        const auto *lr = findTag(sr, {"learning_rate", "lr", "epoch_learning_rate"});
        if (lr)
            h.learningRate = alignTo(h.trainStep, *lr);
        else
            h.learningRate.assign(h.trainStep.size(), std::nan(""));
    }
}

/// Adds the evaluation scalars of `sr` (eval loss and accuracy, aligned to one step list) to
/// `h`; in an eval directory the plain tags count (loss, accuracy), elsewhere eval_ ones.
void addEvalScalars(RunHistory &h, const ScalarRun &sr, bool eval)
{
    const auto *evalLoss = eval ? findTag(sr, {"eval_loss", "loss", "epoch_loss"}) : findTag(sr, {"eval_loss"});
    const auto *evalAcc = eval ? findTag(sr, {"eval_accuracy", "accuracy", "epoch_accuracy"})
                               : findTag(sr, {"eval_accuracy"});
    if (evalLoss || evalAcc) {
        const auto &base = evalLoss ? *evalLoss : *evalAcc;
        std::vector<double> steps, walls, ignored;
        merge(steps, walls, &ignored, base);
        h.evalStep.insert(h.evalStep.end(), steps.begin(), steps.end());
        h.evalWallTime.insert(h.evalWallTime.end(), walls.begin(), walls.end());
        const auto append = [&steps](std::vector<double> &to, const std::vector<ScalarPoint> *points) {
            if (!points) {
                to.insert(to.end(), steps.size(), std::nan(""));
                return;
            }
            const std::vector<double> aligned = alignTo(steps, *points);
            to.insert(to.end(), aligned.begin(), aligned.end());
        };
        append(h.evalLoss, evalLoss);
        append(h.evalAccuracy, evalAcc);
    }
}

} // namespace

std::vector<RunHistory> RunHistory::fromTensorBoard(const QString &logdir, QString *error, QStringList *warnings)
{
    std::vector<ScalarRun> runs;
    try {
        runs = EventReader::readRuns(logdir.toStdString());
    } catch (const Error &e) {
        if (error) {
            *error = QString::fromStdString((e.field().empty() ? logdir.toStdString() : e.field()) + ": " + e.what());
            if (!e.hint().empty())
                *error += QStringLiteral("\n%1").arg(QString::fromStdString(e.hint()));
        }
        return {};
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return {};
    }
    // Group: train/validation directories belong to the run of their parent folder.
    std::map<QString, RunHistory> grouped;
    std::vector<QString> order;
    for (const ScalarRun &sr : runs) {
        if (warnings)
            for (const std::string &w : sr.warnings)
                *warnings << QString::fromStdString(w);
        Role role = Role::Other;
        const QDir groupDir = runFolderOf(sr, &role);
        const QString key = groupDir.absolutePath();
        if (!grouped.count(key)) {
            order.push_back(key);
            RunHistory h;
            h.name = groupDir.dirName();
            h.sourcePath = key;
            grouped[key] = h;
        }
        RunHistory &h = grouped[key];
        const bool eval = role == Role::Eval;
        if (!eval)
            addTrainScalars(h, sr);
        addEvalScalars(h, sr, eval);
    }
    std::vector<RunHistory> out;
    for (const QString &key : order)
        if (!grouped[key].isEmpty())
            out.push_back(grouped[key]);
    if (out.empty() && error)
        *error = QStringLiteral("%1: the event files hold no loss or accuracy scalars").arg(logdir);
    return out;
}

} // namespace wb
