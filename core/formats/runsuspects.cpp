// SPDX-License-Identifier: Apache-2.0
#include "core/formats/runsuspects.h"

#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/formats/runidentity.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace wb {

namespace fs = std::filesystem;

std::vector<SuspectInput> suspectInputs(const std::vector<TrainingDynamicsRow> &rows)
{
    std::vector<SuspectInput> inputs;
    inputs.reserve(rows.size());
    for (const TrainingDynamicsRow &r : rows)
        inputs.push_back({r.index, r.label_id, r.gold_probabilities, r.predicted_label_ids});
    return inputs;
}

std::string trainingDynamicsPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "training_dynamics.jsonl").string();
}

namespace {

// The run's input_meta_data.json as its run_config.json records it ("" when unknown; `notes` says
// why). Only the meta data is wanted: the other paths fillFromRecordedRun fills are given
// placeholders so that a moved config or vocabulary does not matter here.
std::string recordedMetaPath(const std::string &modelDir, std::vector<std::string> &notes)
{
    TrainingOptions o;
    o.model_dir = modelDir;
    o.bert_config_file = o.vocab_file = "(not read)";
    try {
        fillFromRecordedRun(o);
    } catch (const Error &e) {
        notes.push_back(std::string(e.what()));
        return {};
    }
    if (o.input_meta_data_path.empty())
        notes.push_back("the run's run_config.json names no input_meta_data.json");
    return o.input_meta_data_path;
}

// Whether run_config.json records record_training_dynamics as false.
bool recordedWithoutDynamics(const std::string &modelDir)
{
    Diagnostics ignored;
    const std::optional<RunIdentity> run = readRunConfig(modelDir, ignored);
    if (!run)
        return false;
    for (const char *part : {"defining", "informational"}) {
        const auto p = run->json.find(part);
        if (p == run->json.end() || !p->is_object())
            continue;
        const auto v = p->find("record_training_dynamics");
        if (v != p->end() && v->is_boolean() && !v->get<bool>())
            return true;
    }
    return false;
}

// Why the run in `modelDir` has no training_dynamics.jsonl: thrown as wb::Error naming the file.
[[noreturn]] void throwNoDynamics(const std::string &modelDir, const std::string &metaPath)
{
    const std::string path = trainingDynamicsPath(modelDir);
    if (!fs::is_directory(modelDir))
        throw Error("model_dir", "'" + modelDir + "' is not a folder", "Pass the run's model_dir.");
    if (!metaPath.empty()) {
        try {
            const InputMetaData meta = loadRunMetaData(metaPath);
            if (meta.problem_type == "multi_label_classification")
                throw Error(path, "does not exist: a multi-label run records no training dynamics (" + metaPath
                                      + " is multi-label)",
                            "Suspects are found for single-label classification runs only.");
            if (meta.task_type == "bert_regression" || meta.num_labels == 1)
                throw Error(path, "does not exist: a regression run records no training dynamics (" + metaPath + ")",
                            "Suspects are found for single-label classification runs only.");
        } catch (const Error &e) {
            if (e.field() == path)
                throw;
        }
    }
    if (recordedWithoutDynamics(modelDir))
        throw Error(path, "does not exist: the run was trained with record_training_dynamics=false",
                    "Train again with " + optionName("record_training_dynamics") + "=true.");
    if (!fs::exists(fs::path(modelDir) / "checkpoint"))
        throw Error(path, "does not exist: the run has no checkpoint yet (the file is written with each checkpoint)",
                    "Train the run (bert-workbench-cli train --model_dir=" + modelDir + ") and try again.");
    throw Error(path,
                "does not exist: the run recorded no training dynamics (trained with record_training_dynamics=false, "
                "by a version without them, or it is a multi-label or regression run)",
                "Train a single-label classification run with " + optionName("record_training_dynamics") + "=true.");
}

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * share);
    return buf;
}

// Ties each suspect to its input row through split.jsonl's train rows.
void locate(RunSuspects &r)
{
    std::map<int64_t, const SplitRow *> byIndex;
    const std::vector<SplitRow> rows = readSplitRows(r.split_path);
    for (const SplitRow &row : rows)
        if (row.split == "train" && row.index >= 0)
            byIndex[row.index] = &row;
    for (RunSuspect &s : r.suspects) {
        const auto it = byIndex.find(s.evidence.index);
        if (it == byIndex.end())
            continue;
        s.file = it->second->file;
        s.line = it->second->line;
        s.located = true;
    }
}

} // namespace

RunSuspects loadRunSuspects(const std::string &modelDir, const SuspectRule &rule, const std::string &metaDataPath)
{
    RunSuspects r;
    r.dynamics_path = trainingDynamicsPath(modelDir);
    r.meta_path = metaDataPath.empty() ? recordedMetaPath(modelDir, r.notes) : metaDataPath;
    if (!fs::exists(r.dynamics_path))
        throwNoDynamics(modelDir, r.meta_path);
    const std::vector<TrainingDynamicsRow> rows = readTrainingDynamics(r.dynamics_path);
    r.examples = int64_t(rows.size());
    int64_t numLabels = 0;
    for (const TrainingDynamicsRow &row : rows) {
        numLabels = std::max(numLabels, row.label_id + 1);
        for (const int64_t p : row.predicted_label_ids)
            numLabels = std::max(numLabels, p + 1);
    }
    if (!r.meta_path.empty()) {
        try {
            numLabels = std::max(numLabels, loadRunMetaData(r.meta_path).num_labels);
        } catch (const Error &e) {
            r.notes.push_back(std::string(e.what()));
        }
    }
    const LabelNames names = readLabelNames(r.meta_path, numLabels);
    r.labels = names.names;
    if (names.source.empty())
        r.notes.push_back("no labels.txt beside the meta data: labels are named by their ids");
    const auto name = [&r](int64_t id) {
        return id >= 0 && size_t(id) < r.labels.size() ? r.labels[size_t(id)] : "label " + std::to_string(id);
    };
    const std::vector<SuspectInput> inputs = suspectInputs(rows);
    if (const LearnedCheck c = learnedCheck(inputs); rule.require_learned && c.examples > 0 && !c.learned)
        r.notes.push_back("the model had not learned the training data: its last predictions were right for "
                          + percent(c.last_accuracy) + " of the examples, no more than always predicting the most "
                          "frequent label (" + percent(c.majority_share) + "), so no example is a suspect; train "
                          "longer or with another learning rate");
    for (const Suspect &s : findSuspects(inputs, rule))
        r.suspects.push_back({s, name(s.label_id), name(s.suggested_label_id), {}, 0, false});
    const fs::path split = r.meta_path.empty() ? fs::path() : fs::path(r.meta_path).parent_path() / "split.jsonl";
    if (!split.empty() && fs::exists(split)) {
        r.split_path = split.string();
        locate(r);
    } else {
        r.notes.push_back("no split.jsonl beside " + (r.meta_path.empty() ? std::string("the meta data") : r.meta_path)
                          + ": the data was not prepared by this program, so the suspects are listed by record index "
                            "only and corrections cannot be applied");
    }
    return r;
}

Correction correctionOf(const RunSuspect &s, CorrectionDecision decision, const std::string &corrected,
                        const std::string &time)
{
    Correction c;
    c.file = s.file;
    c.line = s.line;
    c.index = s.evidence.index;
    c.label = s.label;
    c.suggested_label = s.suggested_label;
    c.decision = decision;
    if (decision == CorrectionDecision::Accepted || decision == CorrectionDecision::Changed)
        c.corrected_label = corrected;
    c.time = time;
    return c;
}

std::vector<Correction> suspectCorrections(const std::vector<RunSuspect> &suspects, CorrectionDecision decision,
                                           const std::string &time)
{
    if (decision == CorrectionDecision::Changed)
        decision = CorrectionDecision::Accepted;
    std::vector<Correction> out;
    for (const RunSuspect &s : suspects)
        if (s.located)
            out.push_back(correctionOf(s, decision, s.suggested_label, time));
    return out;
}

} // namespace wb
