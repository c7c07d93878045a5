// SPDX-License-Identifier: Apache-2.0
// The facts of a run that advice rests on (core/advice/runfacts.h).
#include "core/advice/runfacts.h"

#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/prepare/preparereport.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// run_config.json of `dir` as JSON; nothing when absent or unreadable. Never throws.
std::optional<nlohmann::json> runConfigJson(const fs::path &dir)
{
    try {
        std::ifstream in(dir / "run_config.json");
        if (!in)
            return std::nullopt;
        nlohmann::json j = nlohmann::json::parse(in);
        if (!j.is_object())
            return std::nullopt;
        return j;
    } catch (...) {
        return std::nullopt;
    }
}

const nlohmann::json *member(const nlohmann::json &j, const char *section, const char *key)
{
    const auto s = j.find(section);
    if (s == j.end() || !s->is_object())
        return nullptr;
    const auto k = s->find(key);
    return k == s->end() ? nullptr : &*k;
}

std::string stringMember(const nlohmann::json &j, const char *section, const char *key)
{
    const nlohmann::json *v = member(j, section, key);
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

/// `path` as recorded, against the recorded working directory when relative and not found as is.
std::string recordedPath(const nlohmann::json &j, const std::string &path)
{
    if (path.empty() || fs::path(path).is_absolute())
        return path;
    std::error_code ec;
    if (fs::exists(path, ec))
        return path;
    const std::string cwd = stringMember(j, "informational", "working_directory");
    return cwd.empty() ? path : (fs::path(cwd) / path).string();
}

/// Whether the run_config.json `j` is a `pretrain` run's: its "informational"."task_type" says
/// so, or (written before task_type was recorded) its input meta data has task_type bert_pretraining.
bool isPretrainingRun(const nlohmann::json &j)
{
    if (stringMember(j, "informational", "task_type") == "bert_pretraining")
        return true;
    try {
        std::ifstream in(recordedPath(j, stringMember(j, "informational", "input_meta_data_path")));
        if (!in)
            return false;
        const nlohmann::json meta = nlohmann::json::parse(in);
        return meta.is_object() && meta.value("task_type", std::string()) == "bert_pretraining";
    } catch (...) {
        return false;
    }
}

/// Fills majority and bag_of_words_accuracy from the prepare report beside `metaDataPath`.
void readBaselines(RunFacts &f, const std::string &metaDataPath)
{
    if (metaDataPath.empty())
        return;
    try {
        const auto report = readPrepareReport(metaDataPath);
        if (!report)
            return;
        const std::vector<int64_t> counts = evalCountsByLabelId(*report);
        int64_t total = 0, best = -1;
        int label = -1;
        for (size_t i = 0; i < counts.size(); ++i) {
            total += counts[i];
            if (counts[i] > best) {
                best = counts[i];
                label = int(i);
            }
        }
        if (total > 0)
            f.majority = std::make_pair(label, double(best) / double(total));
        f.mean_tokens = report->mean_tokens;
        f.max_seq_length = report->max_seq_length;
        if (report->bag_of_words && report->bag_of_words->fitted())
            f.bag_of_words_accuracy = report->bag_of_words->eval_accuracy;
    } catch (...) {
        // The views that show the report say what is wrong with it; the facts go without.
    }
}

} // namespace

const char *weightsStartName(WeightsStart start)
{
    switch (start) {
    case WeightsStart::HubPretrained: return "pretrained_model";
    case WeightsStart::OwnPretraining: return "own_pretraining";
    case WeightsStart::OtherCheckpoint: return "init_checkpoint";
    case WeightsStart::Random: return "random";
    case WeightsStart::Unknown: break;
    }
    return "unknown";
}

WeightsStart weightsStartFromName(const std::string &name)
{
    for (WeightsStart s : {WeightsStart::HubPretrained, WeightsStart::OwnPretraining, WeightsStart::OtherCheckpoint,
                           WeightsStart::Random})
        if (name == weightsStartName(s))
            return s;
    return WeightsStart::Unknown;
}

const char *runVerdictName(RunVerdict verdict)
{
    switch (verdict) {
    case RunVerdict::NotEvaluated: return "not evaluated";
    case RunVerdict::Learning: return "learning";
    case RunVerdict::NotLearning: return "not learning";
    case RunVerdict::Diverged: return "diverged";
    case RunVerdict::NotANumber: break;
    }
    return "NaN";
}

WeightsStart weightsStartOf(const TrainingOptions &o)
{
    if (!o.pretrained_model.empty())
        return WeightsStart::HubPretrained;
    if (o.init_checkpoint.empty())
        return WeightsStart::Random;
    std::error_code ec;
    const fs::path p(o.init_checkpoint);
    const fs::path dir = fs::is_directory(p, ec) ? p : p.parent_path();
    if (const auto j = runConfigJson(dir.empty() ? fs::path(".") : dir); j && isPretrainingRun(*j))
        return WeightsStart::OwnPretraining;
    return WeightsStart::OtherCheckpoint;
}

double defaultLearningRate(const TrainingOptions &o)
{
    if (o.learning_rate)
        return *o.learning_rate;
    if (weightsStartOf(o) == WeightsStart::OwnPretraining)
        return learningRateRange(WeightsStart::OwnPretraining)->suggest;
    return learningRate(o);
}

RunFacts runFactsFor(const TrainingOptions &o, const Schedule &sched)
{
    RunFacts f;
    f.start = weightsStartOf(o);
    f.start_name = !o.pretrained_model.empty() ? o.pretrained_model : o.init_checkpoint;
    f.learning_rate = defaultLearningRate(o);
    f.total_steps = sched.total_steps;
    f.warmup_steps = sched.warmup_steps;
    f.early_stopping_patience = o.early_stopping_patience;
    f.padding = o.padding;
    readBaselines(f, o.input_meta_data_path);
    return f;
}

RunFacts recordedRunFacts(const std::string &modelDir, const TrainingOptions *fallback)
{
    RunFacts f;
    const auto j = modelDir.empty() ? std::nullopt : runConfigJson(modelDir);
    if (!j) {
        if (!fallback) {
            f.start = WeightsStart::Unknown;
            return f;
        }
        f.start = weightsStartOf(*fallback);
        f.start_name = !fallback->pretrained_model.empty() ? fallback->pretrained_model : fallback->init_checkpoint;
        f.learning_rate = defaultLearningRate(*fallback);
        f.early_stopping_patience = fallback->early_stopping_patience;
        f.padding = fallback->padding;
        readBaselines(f, fallback->input_meta_data_path);
        return f;
    }
    const auto number = [&](const char *key) {
        const nlohmann::json *v = member(*j, "defining", key);
        return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
    };
    const std::string model = stringMember(*j, "informational", "pretrained_model");
    const std::string checkpoint = stringMember(*j, "informational", "init_checkpoint");
    const nlohmann::json *start = member(*j, "informational", "weights_start");
    if (start && start->is_string())
        f.start = weightsStartFromName(start->get<std::string>());
    else // written before the start was recorded: only a pretrained_model is sure
        f.start = model.empty() ? WeightsStart::Unknown : WeightsStart::HubPretrained;
    f.start_name = !model.empty() ? model : checkpoint;
    if (const auto lr = number("learning_rate"))
        f.learning_rate = *lr;
    else if (fallback)
        f.learning_rate = defaultLearningRate(*fallback);
    f.total_steps = int64_t(number("total_steps").value_or(0));
    f.warmup_steps = int64_t(number("warmup_steps").value_or(0));
    f.num_labels = int64_t(number("num_labels").value_or(0));
    const nlohmann::json *labelType = member(*j, "defining", "label_type");
    f.regression = labelType && labelType->is_string() && labelType->get<std::string>() == "float";
    if (const auto patience = number("early_stopping_patience"))
        f.early_stopping_patience = int64_t(*patience);
    else if (fallback)
        f.early_stopping_patience = fallback->early_stopping_patience;
    // Recorded since --padding exists; an older run padded every batch to max_seq_length.
    if (const std::string padding = stringMember(*j, "informational", "padding"); !padding.empty())
        f.padding = padding;
    std::string meta = recordedPath(*j, stringMember(*j, "informational", "input_meta_data_path"));
    if (meta.empty() && fallback)
        meta = fallback->input_meta_data_path;
    readBaselines(f, meta);
    return f;
}

std::string startWords(const RunFacts &facts)
{
    switch (facts.start) {
    case WeightsStart::HubPretrained: return "the pretrained model " + facts.start_name;
    case WeightsStart::OwnPretraining: return "your own pretraining in " + facts.start_name;
    case WeightsStart::OtherCheckpoint: return "the init checkpoint " + facts.start_name;
    case WeightsStart::Random: return "random weights";
    case WeightsStart::Unknown: break;
    }
    return "a start run_config.json does not record";
}

} // namespace wb
