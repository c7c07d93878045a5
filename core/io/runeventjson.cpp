// SPDX-License-Identifier: Apache-2.0
#include "core/io/runeventjson.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

constexpr size_t kMaxConfusionClasses = 1000000;          // num_labels' limit (input_meta_data.json)
constexpr int64_t kMaxConfusionCount = int64_t(1) << 40;  // examples per cell; sums stay far inside int64

/// Clears a confusion matrix that is not square or holds implausible counts: the window sums
/// its rows and columns (fuzz/fuzz_progressjsonl found int64 overflow with counts near 2^63
/// in the chief's stream, fuzz/fuzz_metricsjsonl the same in metrics.jsonl).
void dropImplausibleConfusion(EvalMetrics &m)
{
    const size_t n = m.confusion.size();
    bool plausible = n <= kMaxConfusionClasses;
    for (const auto &r : m.confusion) {
        plausible = plausible && r.size() == n;
        for (int64_t v : r)
            plausible = plausible && v >= 0 && v <= kMaxConfusionCount;
    }
    if (!plausible)
        m.confusion.clear();
}

template <typename J>
J number(double v)
{
    return std::isfinite(v) ? J(v) : J(nullptr);
}

void read(const nlohmann::json &j, const char *key, double &out)
{
    const auto it = j.find(key);
    if (it == j.end())
        return;
    if (it->is_null())
        out = std::numeric_limits<double>::quiet_NaN();
    else if (it->is_number())
        out = it->get<double>();
}

void read(const nlohmann::json &j, const char *key, int64_t &out)
{
    const auto it = j.find(key);
    if (it != j.end() && it->is_number_integer())
        out = it->get<int64_t>();
}

void read(const nlohmann::json &j, const char *key, std::string &out)
{
    const auto it = j.find(key);
    if (it != j.end() && it->is_string())
        out = it->get<std::string>();
}

void read(const nlohmann::json &j, const char *key, bool &out)
{
    const auto it = j.find(key);
    if (it != j.end() && it->is_boolean())
        out = it->get<bool>();
}

/// Writes one field: a double as a number, or null when it is not finite; anything else as is.
template <typename J, typename T>
void put(J &j, const char *key, const T &value)
{
    j[key] = value;
}

template <typename J>
void put(J &j, const char *key, double value)
{
    j[key] = number<J>(value);
}

// The plain events as tables of their fields, in the order of their JSON objects: each table
// serves both directions (V is the event, const or not; f is called with each key and field).

template <typename V, typename F>
void runStartedFields(V &v, F &&f)
{
    f("total_steps", v.total_steps);
    f("steps_per_epoch", v.steps_per_epoch);
    f("warmup_steps", v.warmup_steps);
    f("eval_steps", v.eval_steps);
    f("start_step", v.start_step);
    f("num_labels", v.num_labels);
    f("parameter_count", v.parameter_count);
    f("model_dir", v.model_dir);
    f("device", v.device);
    f("wall_time", v.wall_time);
}

template <typename V, typename F>
void stepMetricsFields(V &v, F &&f)
{
    f("step", v.step);
    f("total_steps", v.total_steps);
    f("epoch", v.epoch);
    f("loss", v.loss);
    f("learning_rate", v.learning_rate);
    f("examples_per_second", v.examples_per_second);
    f("wall_time", v.wall_time);
}

template <typename V, typename F>
void checkpointSavedFields(V &v, F &&f)
{
    f("step", v.step);
    f("path", v.path);
}

template <typename V, typename F>
void coachNoteFields(V &v, F &&f)
{
    f("step", v.step);
    f("id", v.id);
    f("severity", v.severity);
    f("text", v.text);
}

/// RunFinished's fields after its status (which is written by name); stopped_early_at_step,
/// best_step and best_checkpoint follow only when set, so they stand outside the table.
template <typename V, typename F>
void runFinishedFields(V &v, F &&f)
{
    f("last_step", v.last_step);
    f("final_train_loss", v.final_train_loss);
    f("message", v.message);
    f("field", v.field);
    f("hint", v.hint);
    f("last_checkpoint", v.last_checkpoint);
}

/// Returns a writer of one field into `j` (an object by then), for the tables above.
template <typename J>
auto writerInto(J &j)
{
    j = J::object();
    return [&j](const char *key, const auto &value) { put(j, key, value); };
}

/// Returns a reader of one field from `j` (a missing key or a value of another type keeps the field).
auto readerFrom(const nlohmann::json &j)
{
    return [&j](const char *key, auto &value) { read(j, key, value); };
}

} // namespace

RunStatus runStatusFromName(const std::string &name)
{
    for (RunStatus s : {RunStatus::Completed, RunStatus::Cancelled}) // runStatusName's own words
        if (name == runStatusName(s))
            return s;
    return RunStatus::Failed;
}

std::string dumpLine(const nlohmann::ordered_json &j)
{
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string dumpLine(const nlohmann::json &j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void to_json(nlohmann::ordered_json &j, const RunStarted &v) { runStartedFields(v, writerInto(j)); }
void from_json(const nlohmann::json &j, RunStarted &v) { runStartedFields(v, readerFrom(j)); }

void to_json(nlohmann::ordered_json &j, const StepMetrics &v) { stepMetricsFields(v, writerInto(j)); }
void from_json(const nlohmann::json &j, StepMetrics &v) { stepMetricsFields(v, readerFrom(j)); }

namespace {

/// The multi-label block of an evaluation (docs/file-formats.md, metrics.jsonl).
void multiLabelToJson(const EvalMetrics &v, nlohmann::json &j)
{
    using J = nlohmann::json;
    j["multi_label"] = true;
    j["eval_micro_f1"] = number<J>(v.eval_micro_f1);
    j["eval_samples_f1"] = number<J>(v.eval_samples_f1);
    j["eval_hamming_loss"] = number<J>(v.eval_hamming_loss);
    j["eval_micro_f1_tuned"] = number<J>(v.eval_micro_f1_tuned);
    j["eval_macro_f1_tuned"] = number<J>(v.eval_macro_f1_tuned);
    J thresholds = J::array();
    for (double t : v.thresholds)
        thresholds.push_back(number<J>(t));
    j["thresholds"] = thresholds;
    J confusion = J::array();
    for (const auto &c : v.label_confusion)
        confusion.push_back(J{{"tn", c[0]}, {"fp", c[1]}, {"fn", c[2]}, {"tp", c[3]}});
    j["label_confusion"] = confusion;
}

void multiLabelFromJson(const nlohmann::json &j, EvalMetrics &v)
{
    read(j, "eval_micro_f1", v.eval_micro_f1);
    read(j, "eval_samples_f1", v.eval_samples_f1);
    read(j, "eval_hamming_loss", v.eval_hamming_loss);
    read(j, "eval_micro_f1_tuned", v.eval_micro_f1_tuned);
    read(j, "eval_macro_f1_tuned", v.eval_macro_f1_tuned);
    v.thresholds.clear();
    if (const auto it = j.find("thresholds"); it != j.end() && it->is_array() && it->size() <= kMaxConfusionClasses)
        for (const auto &t : *it)
            v.thresholds.push_back(t.is_number() ? t.get<double>() : 0.5);
    v.label_confusion.clear();
    if (const auto it = j.find("label_confusion"); it != j.end() && it->is_array() && it->size() <= kMaxConfusionClasses)
        for (const auto &c : *it) {
            std::array<int64_t, 4> counts{0, 0, 0, 0};
            const char *keys[] = {"tn", "fp", "fn", "tp"};
            for (size_t k = 0; k < 4 && c.is_object(); ++k)
                read(c, keys[k], counts[k]);
            v.label_confusion.push_back(counts);
        }
}

} // namespace

void to_json(nlohmann::json &j, const EvalMetrics &v)
{
    using J = nlohmann::json;
    j = J::object();
    j["step"] = v.step;
    j["wall_time"] = number<J>(v.wall_time);
    j["eval_loss"] = number<J>(v.eval_loss);
    j["num_examples"] = v.num_examples;
    j["regression"] = v.regression;
    j["binary"] = v.binary;
    if (v.train_examples_mapped > 0) {
        j["train_examples_mapped"] = v.train_examples_mapped;
        j["train_hard_to_learn"] = v.train_hard_to_learn;
    }
    if (v.distilled)
        j["eval_teacher_agreement"] = number<J>(v.eval_teacher_agreement);
    if (v.next_sentence) {
        j["eval_nsp_loss"] = number<J>(v.eval_nsp_loss);
        j["eval_nsp_accuracy"] = number<J>(v.eval_nsp_accuracy);
    }
    if (v.regression) {
        j["eval_mse"] = number<J>(v.eval_mse);
        j["eval_pearson"] = number<J>(v.eval_pearson);
        j["eval_spearman"] = number<J>(v.eval_spearman);
    } else {
        j["eval_accuracy"] = number<J>(v.eval_accuracy);
        if (v.multi_label)
            multiLabelToJson(v, j);
        if (v.binary) {
            j["eval_f1"] = number<J>(v.eval_f1); // the F1 of positive_label (label id 1)
            j["eval_mcc"] = number<J>(v.eval_mcc);
        }
        if (!v.multi_label)
            j["confusion"] = v.confusion;
        if (!v.class_f1.empty()) {
            j["eval_macro_f1"] = number<J>(v.eval_macro_f1);
            J perClass = J::array();
            for (size_t k = 0; k < v.class_f1.size(); ++k) {
                J c = J::object();
                if (k < v.label_names.size())
                    c["label"] = v.label_names[k];
                c["label_id"] = int64_t(k);
                // A value the metrics do not hold is null (a count: absent), not 0 (docs/file-formats.md).
                const double none = std::numeric_limits<double>::quiet_NaN();
                c["precision"] = number<J>(k < v.class_precision.size() ? v.class_precision[k] : none);
                c["recall"] = number<J>(k < v.class_recall.size() ? v.class_recall[k] : none);
                c["f1"] = number<J>(v.class_f1[k]);
                if (k < v.class_support.size())
                    c["support"] = v.class_support[k];
                perClass.push_back(c);
            }
            j["per_class"] = perClass;
            if (v.binary) { // eval_f1's class
                j["positive_label_id"] = v.positive_label;
                if (v.positive_label >= 0 && size_t(v.positive_label) < v.label_names.size())
                    j["positive_label"] = v.label_names[size_t(v.positive_label)];
            }
        }
    }
}

void from_json(const nlohmann::json &j, EvalMetrics &v)
{
    read(j, "step", v.step);
    read(j, "wall_time", v.wall_time);
    read(j, "eval_loss", v.eval_loss);
    read(j, "num_examples", v.num_examples);
    read(j, "train_examples_mapped", v.train_examples_mapped);
    read(j, "train_hard_to_learn", v.train_hard_to_learn);
    v.distilled = j.contains("eval_teacher_agreement");
    read(j, "eval_teacher_agreement", v.eval_teacher_agreement);
    v.regression = j.contains("eval_mse");
    read(j, "regression", v.regression);
    v.binary = j.contains("eval_f1");
    read(j, "binary", v.binary);
    v.multi_label = j.contains("eval_micro_f1");
    read(j, "multi_label", v.multi_label);
    read(j, "eval_accuracy", v.eval_accuracy);
    read(j, "eval_f1", v.eval_f1);
    read(j, "eval_mcc", v.eval_mcc);
    read(j, "eval_mse", v.eval_mse);
    read(j, "eval_pearson", v.eval_pearson);
    read(j, "eval_spearman", v.eval_spearman);
    read(j, "eval_macro_f1", v.eval_macro_f1);
    v.next_sentence = j.contains("eval_nsp_accuracy");
    read(j, "eval_nsp_loss", v.eval_nsp_loss);
    read(j, "eval_nsp_accuracy", v.eval_nsp_accuracy);
    read(j, "positive_label_id", v.positive_label);
    if (const auto it = j.find("per_class"); it != j.end() && it->is_array() && it->size() <= kMaxConfusionClasses) {
        std::vector<std::string> names;
        for (const auto &c : *it) {
            if (!c.is_object())
                continue;
            double p = 0, r = 0, f = 0;
            int64_t support = 0;
            std::string name;
            read(c, "precision", p);
            read(c, "recall", r);
            read(c, "f1", f);
            read(c, "support", support);
            read(c, "label", name);
            v.class_precision.push_back(p);
            v.class_recall.push_back(r);
            v.class_f1.push_back(f);
            v.class_support.push_back(support);
            names.push_back(name);
        }
        if (std::none_of(names.begin(), names.end(), [](const std::string &n) { return n.empty(); }))
            v.label_names = std::move(names);
    }
    if (v.multi_label)
        multiLabelFromJson(j, v);
    if (const auto it = j.find("confusion"); it != j.end() && it->is_array()) {
        v.confusion.clear();
        for (const auto &row : *it) {
            std::vector<int64_t> r;
            if (row.is_array())
                for (const auto &x : row)
                    r.push_back(x.is_number_integer() ? x.get<int64_t>() : 0);
            v.confusion.push_back(std::move(r));
        }
        dropImplausibleConfusion(v);
    }
}

void to_json(nlohmann::ordered_json &j, const CheckpointSaved &v) { checkpointSavedFields(v, writerInto(j)); }
void from_json(const nlohmann::json &j, CheckpointSaved &v) { checkpointSavedFields(v, readerFrom(j)); }

void to_json(nlohmann::ordered_json &j, const CoachNote &v) { coachNoteFields(v, writerInto(j)); }
void from_json(const nlohmann::json &j, CoachNote &v) { coachNoteFields(v, readerFrom(j)); }

void to_json(nlohmann::ordered_json &j, const RunFinished &v)
{
    const auto write = writerInto(j);
    write("status", runStatusName(v.status));
    runFinishedFields(v, write);
    if (v.stopped_early_at_step > 0)
        write("stopped_early_at_step", v.stopped_early_at_step);
    if (v.best_step >= 0) {
        write("best_step", v.best_step);
        write("best_checkpoint", v.best_checkpoint);
    }
}

void from_json(const nlohmann::json &j, RunFinished &v)
{
    std::string status;
    read(j, "status", status);
    v.status = runStatusFromName(status);
    runFinishedFields(v, readerFrom(j));
    read(j, "stopped_early_at_step", v.stopped_early_at_step);
    read(j, "best_step", v.best_step);
    read(j, "best_checkpoint", v.best_checkpoint);
}

} // namespace wb
