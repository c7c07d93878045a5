// SPDX-License-Identifier: Apache-2.0
#include "core/formats/runidentity.h"

#include "core/config/jsonfields.h"
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/config/optionwords.h"
#include "core/config/jsonrecord.h"
#include "core/prepare/preparereport.h"
#include "core/prepare/sha256cache.h"
#include "core/advice/runfacts.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr const char *kRunConfigFormat = "bert-workbench run_config 1";

std::string valueText(const nlohmann::ordered_json &v)
{
    return v.is_null() ? std::string("(absent)") : v.dump();
}

std::optional<bool> casingOption(const std::string &value)
{
    if (value == "true" || value == "false")
        return value == "true";
    return std::nullopt;
}

nlohmann::ordered_json tokenizerJson(const RunTokenizer &t)
{
    nlohmann::ordered_json j;
    j["do_lower_case"] = t.casing.do_lower_case ? nlohmann::ordered_json(*t.casing.do_lower_case) : nullptr;
    j["do_lower_case_source"] = t.casing.source;
    if (!t.vocab_file.empty())
        j["vocab_file"] = t.vocab_file;
    if (!t.vocab_sha256.empty())
        j["vocab_sha256"] = t.vocab_sha256;
    return j;
}

const nlohmann::ordered_json *member(const nlohmann::ordered_json &j, const char *object, const char *key)
{
    const auto o = j.find(object);
    if (o == j.end() || !o->is_object())
        return nullptr;
    const auto v = o->find(key);
    return v == o->end() || v->is_null() ? nullptr : &*v;
}

std::string casingSide(const char *side, const RunIdentity &id)
{
    const auto *lower = member(id.json, "tokenizer", "do_lower_case");
    const auto *source = member(id.json, "tokenizer", "do_lower_case_source");
    return lower->dump() + " (" + side + ": " + casingWord(lower->get<bool>())
        + (source && source->is_string() ? ", from " + source->get<std::string>() : std::string()) + ")";
}

} // namespace

RunTokenizer dataTokenizer(const TrainingOptions &o, const InputMetaData &meta)
{
    RunTokenizer t;
    PreparedTokenizer prepared;
    try {
        prepared = readPreparedTokenizer(o.input_meta_data_path);
    } catch (const Error &) {
        // the pre-flight check names an unreadable report where it reads it
    }
    t.vocab_file = !o.vocab_file.empty() ? o.vocab_file : prepared.vocab_file;
    t.vocab_sha256 = !o.vocab_file.empty() ? sha256FileHex(o.vocab_file) : prepared.vocab_sha256;
    t.casing = resolveCasing({{"--do_lower_case", casingOption(o.do_lower_case)},
                              {"input_meta_data.json", meta.do_lower_case},
                              {"prepare_report.json", prepared.do_lower_case}},
                             t.vocab_file);
    return t;
}

std::optional<bool> recordedRunCasing(const std::string &modelDir)
{
    Diagnostics diag;
    const std::optional<RunIdentity> run = readRunConfig(modelDir, diag);
    if (!run)
        return std::nullopt;
    const auto *lower = member(run->json, "tokenizer", "do_lower_case");
    return lower && lower->is_boolean() ? std::optional<bool>(lower->get<bool>()) : std::nullopt;
}

std::vector<std::string> runTokenizerDifferences(const RunIdentity &saved, const RunIdentity &current)
{
    std::vector<std::string> out;
    const auto *was = member(saved.json, "tokenizer", "do_lower_case");
    const auto *now = member(current.json, "tokenizer", "do_lower_case");
    if (was && now && was->is_boolean() && now->is_boolean() && *was != *now)
        out.push_back("do_lower_case: " + casingSide("the run", saved) + " → " + casingSide("now", current));
    const auto *shaWas = member(saved.json, "tokenizer", "vocab_sha256");
    const auto *shaNow = member(current.json, "tokenizer", "vocab_sha256");
    if (shaWas && shaNow && *shaWas != *shaNow) {
        auto side = [](const char *name, const RunIdentity &id, const nlohmann::ordered_json &sha) {
            const auto *file = member(id.json, "tokenizer", "vocab_file");
            return sha.get<std::string>().substr(0, 12) + "… (" + name + ": "
                + (file && file->is_string() ? file->get<std::string>() : std::string("a vocab.txt")) + ")";
        };
        out.push_back("vocab_sha256: " + side("the run", saved, *shaWas) + " → " + side("now", current, *shaNow));
    }
    const auto *modelWas = member(saved.json, "informational", "pretrained_model");
    const auto *modelNow = member(current.json, "informational", "pretrained_model");
    if (modelWas && modelNow && *modelWas != *modelNow)
        out.push_back("pretrained_model: " + modelWas->dump() + " (the run) → " + modelNow->dump() + " (now)");
    return out;
}

void jsonDifferences(const std::string &prefix, const nlohmann::ordered_json &a, const nlohmann::ordered_json &b,
                     std::vector<std::string> &out)
{
    for (const auto &[key, old] : a.items()) {
        const auto it = b.find(key);
        const nlohmann::ordered_json now = it == b.end() ? nlohmann::ordered_json() : *it;
        if (old.is_object() && now.is_object())
            jsonDifferences(prefix + key + ".", old, now, out);
        else if (old != now)
            out.push_back(prefix + key + ": " + valueText(old) + " → " + valueText(now));
    }
    for (const auto &[key, now] : b.items())
        if (!a.contains(key))
            out.push_back(prefix + key + ": (absent) → " + valueText(now));
}

RunIdentity RunIdentity::of(const TrainingOptions &o, const BertConfig &config, const InputMetaData &meta,
                            const Schedule &schedule)
{
    RunIdentity id;
    auto &j = id.json;
    j["format"] = kRunConfigFormat;
    const nlohmann::ordered_json cfg = config.toJson();
    auto &d = j["defining"];
    d["bert_config"] = cfg;
    d["num_labels"] = meta.num_labels;
    d["max_seq_length"] = meta.max_seq_length;
    d["label_type"] = meta.label_type;
    for (const OptionSpec &spec : optionTable()) // the table marks what defines a run
        if (spec.defines_run)
            d[spec.flag] = spec.toJson(o);
    if (meta.has_teacher_logits) { // a distillation's loss (only there: older runs keep their identity)
        d["distillation_temperature"] = o.distillation_temperature;
        d["distillation_alpha"] = o.distillation_alpha;
    }
    d["learning_rate"] = learningRate(o); // the rate used, also when it followed the start
    d["train_data_size"] = schedule.train_data_size; // the effective size, not the --train_data_size cap
    d["steps_per_epoch"] = schedule.steps_per_epoch;
    d["total_steps"] = schedule.total_steps;
    d["warmup_steps"] = schedule.warmup_steps;
    j["fingerprints"]["bert_config_sha256"] = sha256Hex(cfg.dump());
    // The data files as they were read (path and content), so that a changed file is named as
    // such rather than by what it changed downstream (train_data_size, total_steps).
    auto &files = j["data_files"];
    for (const auto &[flag, path] : {std::pair<const char *, const std::string *>{"train_data_path", &o.train_data_path},
                                     {"eval_data_path", &o.eval_data_path},
                                     {"input_meta_data_path", &o.input_meta_data_path}})
        if (!path->empty())
            files[flag] = {{"path", *path}, {"sha256", sha256FileHexCached(*path)}}; // an unchanged file is not reread
    auto &info = j["informational"];
    info["bert_config_file"] = o.bert_config_file;
    info["input_meta_data_path"] = o.input_meta_data_path;
    info["train_data_path"] = o.train_data_path;
    info["eval_data_path"] = o.eval_data_path;
    if (!o.vocab_file.empty())
        info["vocab_file"] = o.vocab_file;
    if (!o.do_lower_case.empty())
        info["do_lower_case"] = o.do_lower_case;
    if (!o.pretrained_model.empty()) // where the filled paths above came from ("Start from")
        info["pretrained_model"] = o.pretrained_model;
    // Where the weights came from, for the advice on a past run (core/advice/runfacts.h).
    info["init_checkpoint"] = o.init_checkpoint;
    info["weights_start"] = weightsStartName(weightsStartOf(o));
    info["task_type"] = meta.task_type;
    std::error_code ec;
    if (const fs::path cwd = fs::current_path(ec); !ec) // what the relative paths above are relative to
        info["working_directory"] = cwd.string();
    // Not defining: checkpoints are float32 whatever the number format, and accumulation
    // with the same train_batch_size keeps the schedule and the mathematics of each step.
    info["dtype"] = o.dtype;
    info["gradient_accumulation_steps"] = o.gradient_accumulation_steps;
    info["padding"] = o.padding; // a batch cut to its longest text: the same mathematics, other rounding
    info["version"] = WB_VERSION;
    j["tokenizer"] = tokenizerJson(dataTokenizer(o, meta));
    return id;
}

std::string runConfigPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "run_config.json").string();
}

void writeRunConfig(const std::string &modelDir, const RunIdentity &identity)
{
    writeFileAtomic(runConfigPath(modelDir), identity.json.dump(2) + "\n");
}

std::optional<RunIdentity> readRunConfig(const std::string &modelDir, Diagnostics &diag)
{
    const std::string path = runConfigPath(modelDir);
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    auto j = readJsonObjectFile(path, diag);
    if (!j)
        return std::nullopt;
    if (!j->contains("defining") || !(*j)["defining"].is_object()) {
        diag.error(path, "has no \"defining\" object", "delete run_config.json (it is written again with the next checkpoint)");
        return std::nullopt;
    }
    RunIdentity id;
    id.json = nlohmann::ordered_json::parse(j->dump());
    return id;
}

RecordedRunOptions recordedRunOptions(const RunIdentity &identity, const std::string &source)
{
    const JsonRecord j(nlohmann::json::parse(identity.json.dump()), source,
                       "delete run_config.json (it is written again with the next checkpoint)");
    RecordedRunOptions o;
    if (const auto d = j.object("defining")) {
        o.learning_rate = d->number("learning_rate");
        o.train_batch_size = d->integer("train_batch_size");
        o.num_train_epochs = d->integer("num_train_epochs");
    }
    if (const auto info = j.object("informational")) {
        o.dtype = info->string("dtype");
        o.input_meta_data_path = info->string("input_meta_data_path");
    }
    return o;
}

namespace {

/// Where a path recorded in run_config.json is now (fillFromRecordedRun's rule), or "" with
/// the places tried in `tried`.
std::string resolveRecordedPath(const std::string &recorded, const std::string &workingDir, const std::string &modelDir,
                                std::string &tried)
{
    std::error_code ec;
    const fs::path p = recorded;
    std::vector<fs::path> candidates;
    if (p.is_absolute())
        candidates.push_back(p);
    else {
        candidates.push_back(workingDir.empty() ? fs::absolute(p, ec) : fs::path(workingDir) / p);
        candidates.push_back(fs::path(modelDir) / p);
    }
    for (const auto &c : candidates) {
        if (fs::exists(c, ec))
            return fs::absolute(c, ec).lexically_normal().string();
        tried += (tried.empty() ? "" : ", ") + c.string();
    }
    return {};
}

} // namespace

namespace {

void throwFirstError(const Diagnostics &diag, const std::string &path)
{
    for (const auto &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field.empty() ? path : d.field, d.message, d.hint);
}

} // namespace

namespace {

// Loads the file at `path` with T::load (BertConfig, InputMetaData): its first error, or
// "cannot read the <what>" with `hint` when it gives nothing.
template <typename T>
T loadOrThrow(const std::string &path, const char *what, const std::string &hint)
{
    Diagnostics diag;
    auto loaded = T::load(path, diag);
    throwFirstError(diag, path);
    if (!loaded)
        throw Error(path, std::string("cannot read the ") + what, hint);
    return *loaded;
}

} // namespace

BertConfig loadRunModelConfig(const std::string &path)
{
    return loadOrThrow<BertConfig>(path, "model config", "pass " + optionName("bert_config_file"));
}

InputMetaData loadRunMetaData(const std::string &path)
{
    return loadOrThrow<InputMetaData>(path, "meta data", "pass " + optionName("input_meta_data_path"));
}

std::string resolveLearningRate(TrainingOptions &o)
{
    if (o.learning_rate)
        return {};
    if (!o.model_dir.empty()) {
        Diagnostics ignored; // an unreadable run_config.json is the model_dir check's to report
        try {
            if (const std::optional<RunIdentity> run = readRunConfig(o.model_dir, ignored))
                if (const std::optional<double> recorded =
                        recordedRunOptions(*run, runConfigPath(o.model_dir)).learning_rate) {
                    o.learning_rate = *recorded;
                    return detail::formatNumber(*recorded) + ", as the run in " + o.model_dir + " recorded it ("
                        + optionName("learning_rate") + " not given)";
                }
        } catch (const Error &) {
        }
    }
    const WeightsStart start = weightsStartOf(o);
    o.learning_rate = defaultLearningRate(o);
    const char *from = start == WeightsStart::OwnPretraining ? "after a short pretraining of your own"
                       : start == WeightsStart::Random       ? "from random weights"
                                                             : "from pretrained weights";
    return detail::formatNumber(*o.learning_rate) + ", the default " + from + " (" + optionName("learning_rate")
        + " not given)";
}

std::vector<std::string> fillFromRecordedRun(TrainingOptions &o, bool withTrainData, bool withEvalData)
{
    std::vector<std::string> notes;
    if (o.model_dir.empty())
        return notes;
    Diagnostics diag;
    const std::optional<RunIdentity> run = readRunConfig(o.model_dir, diag);
    if (!run || !run->json.contains("informational") || !run->json["informational"].is_object())
        return notes;
    const auto &info = run->json["informational"];
    const auto recorded = [&info](const char *key) {
        const auto it = info.find(key);
        return it != info.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string source = runConfigPath(o.model_dir);
    const std::string workingDir = recorded("working_directory");
    const auto fillPath = [&](std::string &value, const char *key, bool required) {
        const std::string given = recorded(key);
        if (!value.empty() || given.empty())
            return;
        std::string tried;
        const std::string found = resolveRecordedPath(given, workingDir, o.model_dir, tried);
        if (found.empty()) {
            if (required)
                throw Error(key, "the run's " + std::string(key) + " '" + given + "' (from " + source
                                     + ") no longer exists (looked at " + tried + ")",
                            "pass " + optionName(key) + " with where the file is now");
            notes.push_back(std::string("not using the run's ") + key + " '" + given + "' (from " + source
                            + "): it no longer exists (looked at " + tried + ")");
            return;
        }
        value = found;
        notes.push_back(optionName(key) + " not given: using the run's " + found + " (from " + source
                        + (found != given ? ", recorded as " + given : std::string()) + ")");
    };
    fillPath(o.bert_config_file, "bert_config_file", true);
    fillPath(o.input_meta_data_path, "input_meta_data_path", true);
    fillPath(o.vocab_file, "vocab_file", false);
    if (withTrainData)
        fillPath(o.train_data_path, "train_data_path", true);
    if (withEvalData)
        fillPath(o.eval_data_path, "eval_data_path", true);
    if (o.do_lower_case.empty()) {
        const std::string lower = recorded("do_lower_case");
        if (lower == "true" || lower == "false") {
            o.do_lower_case = lower;
            notes.push_back(optionName("do_lower_case") + " not given: using the run's " + lower + " (from " + source
                            + ")");
        }
    }
    if (o.bert_config_file.empty() && o.pretrained_model.empty() && !recorded("pretrained_model").empty()) {
        o.pretrained_model = recorded("pretrained_model");
        notes.push_back(optionName("pretrained_model") + " not given: using the run's " + o.pretrained_model + " (from "
                        + source + ")");
    }
    return notes;
}

std::vector<std::string> runDataFileDifferences(const RunIdentity &saved, const RunIdentity &current)
{
    std::vector<std::string> out;
    const auto was = saved.json.find("data_files"), now = current.json.find("data_files");
    if (was == saved.json.end() || now == current.json.end() || !was->is_object() || !now->is_object())
        return out; // written before the data files were recorded
    auto shortHash = [](const nlohmann::ordered_json &file) {
        const std::string sha = file.is_object() ? file.value("sha256", std::string()) : std::string();
        return sha.empty() ? std::string("unreadable") : sha.substr(0, 12);
    };
    auto pathOf = [](const nlohmann::ordered_json &file) {
        return file.is_object() ? file.value("path", std::string()) : std::string();
    };
    for (const auto &[flag, old] : was->items()) {
        const auto it = now->find(flag);
        if (it == now->end() || !old.is_object() || !it->is_object())
            continue;
        if (old.value("sha256", std::string()) == it->value("sha256", std::string()))
            continue; // the same bytes, wherever they are now
        const std::string before = pathOf(old), after = pathOf(*it);
        out.push_back(flag + ": " + (before == after ? after + " changed (sha256 " + shortHash(old) + " → " + shortHash(*it) + ")"
                                                     : before + " (sha256 " + shortHash(old) + ") → " + after + " (sha256 "
                                                           + shortHash(*it) + ")"));
    }
    return out;
}

std::vector<std::string> runIdentityDifferences(const RunIdentity &saved, const RunIdentity &current)
{
    std::vector<std::string> out = runDataFileDifferences(saved, current);
    std::vector<std::string> defining;
    jsonDifferences("", saved.json.value("defining", nlohmann::ordered_json::object()),
                current.json.value("defining", nlohmann::ordered_json::object()), defining);
    const bool dataChanged = !out.empty();
    for (std::string &d : defining) {
        const std::string key = d.substr(0, d.find(':'));
        // Follow from the data (and the epochs, batch size and warm-up, listed on their own):
        // a changed data file above says why.
        if (dataChanged && (key == "train_data_size" || key == "steps_per_epoch" || key == "total_steps" || key == "warmup_steps"))
            continue;
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace wb
