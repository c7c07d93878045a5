// SPDX-License-Identifier: Apache-2.0
#include "core/config/inputmetadata.h"

#include "core/config/jsonfields.h"
#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"

#include <set>

namespace wb {

const char *problemTypeName(ProblemType p)
{
    switch (p) {
    case ProblemType::Regression:
        return "regression";
    case ProblemType::MultiLabel:
        return "multi_label_classification";
    case ProblemType::SingleLabel:
        break;
    }
    return "single_label_classification";
}

using detail::fieldName;

namespace {
// Largest num_labels accepted: keeps the classifier's parameter count (hidden_size ×
// num_labels) far inside int64.
constexpr int64_t kMaxNumLabels = 1000000;
} // namespace

namespace {

/// max_seq_length (when given) > 0, and the data sizes ≥ 0; `unit` is what the sizes count,
/// "examples" or "sequences", as the hints say.
void checkSizes(const nlohmann::json &j, const std::string &source, Diagnostics &diag, const InputMetaData &m,
                const std::string &unit)
{
    if (j.contains("max_seq_length") && m.max_seq_length <= 0)
        diag.error(fieldName(source, "max_seq_length"), "max_seq_length must be > 0, got " + std::to_string(m.max_seq_length),
                   "use the length the TFRecords were written with, e.g. 128");
    if (m.train_data_size && *m.train_data_size < 0)
        diag.error(fieldName(source, "train_data_size"), "train_data_size must be ≥ 0", "use the number of training " + unit);
    if (m.eval_data_size && *m.eval_data_size < 0)
        diag.error(fieldName(source, "eval_data_size"), "eval_data_size must be ≥ 0", "use the number of evaluation " + unit);
}

/// The keys of a pretraining data set (docs/pretraining.md): `m` has the common keys read.
InputMetaData pretrainingFromJson(const nlohmann::json &j, InputMetaData m, const std::string &source, Diagnostics &diag)
{
    m.num_labels = 0;
    if (!detail::readInt(j, "max_predictions_per_seq", m.max_predictions_per_seq, source, diag)
        && !j.contains("max_predictions_per_seq"))
        diag.error(fieldName(source, "max_predictions_per_seq"),
                   "the pretraining data's meta data lacks max_predictions_per_seq",
                   "add \"max_predictions_per_seq\": 20 (the length of masked_lm_positions in the records); "
                       + commandName("prepare_pretraining") + " writes it");
    else if (m.max_predictions_per_seq < 1)
        diag.error(fieldName(source, "max_predictions_per_seq"), "max_predictions_per_seq must be ≥ 1, got "
                                                                     + std::to_string(m.max_predictions_per_seq),
                   "use the length the records were written with, e.g. 20");
    else if (m.max_seq_length > 0 && m.max_predictions_per_seq > m.max_seq_length)
        diag.error(fieldName(source, "max_predictions_per_seq"),
                   "max_predictions_per_seq " + std::to_string(m.max_predictions_per_seq) + " is above max_seq_length "
                       + std::to_string(m.max_seq_length) + ": a sequence has no more positions to predict",
                   "use at most max_seq_length (google-research's default is 20 for 128)");
    detail::readBool(j, "use_next_sentence_label", m.use_next_sentence_label, source, diag);
    detail::readString(j, "masking", m.masking, source, diag);
    if (!m.masking.empty() && m.masking != "static" && m.masking != "dynamic")
        diag.error(fieldName(source, "masking"), "masking must be \"static\" or \"dynamic\", got \"" + m.masking + "\"",
                   "static: the records hold the masks; dynamic: the trainer masks each epoch");
    double prob = 0;
    if (detail::readNumber(j, "masked_lm_prob", prob, source, diag)) {
        m.masked_lm_prob = prob;
        if (!(prob > 0 && prob < 1))
            diag.error(fieldName(source, "masked_lm_prob"), "masked_lm_prob must be in (0, 1)", "0.15 is BERT's");
    }
    detail::readBool(j, "whole_word_masking", m.whole_word_masking, source, diag);
    int64_t vocab = 0;
    if (detail::readInt(j, "vocab_size", vocab, source, diag)) {
        m.vocab_size = vocab;
        if (vocab < 1)
            diag.error(fieldName(source, "vocab_size"), "vocab_size must be ≥ 1", "the number of lines of vocab.txt");
    }
    bool lower = true;
    if (j.contains("do_lower_case") && detail::readBool(j, "do_lower_case", lower, source, diag))
        m.do_lower_case = lower;
    static const std::set<std::string> known = {"processor_type", "task_type", "max_seq_length", "train_data_size",
                                                "eval_data_size", "max_predictions_per_seq", "use_next_sentence_label",
                                                "masking", "masked_lm_prob", "whole_word_masking", "vocab_size",
                                                "do_lower_case", "num_labels"};
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!known.count(it.key())) {
            m.extra[it.key()] = it.value();
            diag.warning(fieldName(source, it.key()), "unknown key '" + it.key() + "' is kept but not used",
                         "a pretraining input_meta_data.json has the keys of docs/pretraining.md");
        }
    checkSizes(j, source, diag, m, "sequences");
    return m;
}

} // namespace

namespace {

// Keys every input_meta_data.json may have, classification, regression or pretraining.
const std::set<std::string> kCommonKeys = {"processor_type", "task_type", "num_labels", "label_type",
                                           "problem_type", "max_seq_length", "train_data_size", "eval_data_size",
                                           "has_sample_weights", "has_teacher_logits", "do_lower_case"};

void readCommonKeys(const nlohmann::json &j, const std::string &source, Diagnostics &diag, InputMetaData &m)
{
    detail::readString(j, "label_type", m.label_type, source, diag);
    detail::readString(j, "problem_type", m.problem_type, source, diag);
    if (!detail::readInt(j, "max_seq_length", m.max_seq_length, source, diag) && !j.contains("max_seq_length"))
        diag.error(fieldName(source, "max_seq_length"), "the required key max_seq_length is missing",
                   "add \"max_seq_length\": 128 (the length the TFRecords were written with); the file is written by "
                       + commandName("prepare") + " or create_finetuning_data.py");
    int64_t v = 0;
    if (detail::readInt(j, "train_data_size", v, source, diag))
        m.train_data_size = v;
    if (detail::readInt(j, "eval_data_size", v, source, diag))
        m.eval_data_size = v;
    detail::readBool(j, "has_sample_weights", m.has_sample_weights, source, diag);
    detail::readBool(j, "has_teacher_logits", m.has_teacher_logits, source, diag);
    bool lower = true;
    if (detail::readBool(j, "do_lower_case", lower, source, diag))
        m.do_lower_case = lower;
}

// test_*_data_size keys are kept; any other key is kept in `extra` with a warning.
void readOtherKeys(const nlohmann::json &j, const std::string &source, Diagnostics &diag, InputMetaData &m)
{
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string &key = it.key();
        if (kCommonKeys.count(key))
            continue;
        if (key.rfind("test_", 0) == 0 && key.size() >= 14 && key.compare(key.size() - 9, 9, "data_size") == 0) {
            int64_t n = 0;
            if (detail::readInt(j, key.c_str(), n, source, diag))
                m.test_data_sizes[key] = n;
            continue;
        }
        m.extra[key] = it.value();
        diag.warning(fieldName(source, key), "unknown key '" + key + "' is kept but not used",
                     "input_meta_data.json keys are those create_finetuning_data.py writes");
    }
}

// task_type and num_labels must agree (run_classifier would silently train a regression).
// numLabels: the value of num_labels when hasNumLabels (a flag and a value rather than a
// std::optional, which GCC 12 reports as maybe-uninitialized once this is inlined).
void checkTask(const nlohmann::json &j, bool hasTask, bool hasNumLabels, int64_t numLabels, const std::string &source,
               Diagnostics &diag, InputMetaData &m)
{
    if (hasTask && m.task_type != "bert_classification" && m.task_type != "bert_regression")
        diag.error(fieldName(source, "task_type"),
                   "task_type '" + m.task_type + "' is not a sentence classification, regression or pretraining task",
                   "use bert_classification, bert_regression or bert_pretraining (other tasks such as SQuAD are not "
                   "supported)");
    const bool classification = hasTask ? m.task_type == "bert_classification" : (hasNumLabels && numLabels > 1);
    if (hasNumLabels) {
        const int64_t n = numLabels;
        if (n < 1)
            diag.error(fieldName(source, "num_labels"), "num_labels must be ≥ 1, got " + std::to_string(n),
                       "set it to the number of classes (1 means regression)");
        else if (n > kMaxNumLabels) // found by fuzz/fuzz_inputmetadata: overflowed the parameter count
            diag.error(fieldName(source, "num_labels"), "num_labels must be ≤ 1000000, got " + std::to_string(n),
                       "set it to the number of classes in the training data");
        else
            m.num_labels = n;
    }
    if (classification && !hasNumLabels && !j.contains("num_labels")) {
        diag.error(fieldName(source, "num_labels"),
                   "task_type is bert_classification but num_labels is missing (run_classifier would silently "
                   "train a regression)",
                   "add \"num_labels\": <number of classes>, e.g. 2");
    } else if (hasTask && m.task_type == "bert_classification" && hasNumLabels && numLabels == 1) {
        diag.error(fieldName(source, "num_labels"),
                   "num_labels is 1, which means regression, but task_type is bert_classification",
                   "set num_labels to the number of classes, or task_type to bert_regression");
    } else if (hasTask && m.task_type == "bert_regression" && hasNumLabels && numLabels > 1) {
        diag.error(fieldName(source, "num_labels"),
                   "task_type is bert_regression but num_labels is " + std::to_string(numLabels),
                   "remove num_labels for a regression task, or set task_type to bert_classification");
    } else if (!hasTask && !hasNumLabels) {
        diag.warning(fieldName(source, "num_labels"), "neither task_type nor num_labels is set: treated as regression",
                     "add \"task_type\" and \"num_labels\" to make the task explicit");
    }
    if (hasTask && m.task_type == "bert_regression")
        m.num_labels = 1;
}

// problem_type (Hugging Face's names) must agree with task_type and num_labels.
void checkProblemType(const std::string &source, Diagnostics &diag, const InputMetaData &m)
{
    const std::string field = fieldName(source, "problem_type");
    if (m.problem_type.empty())
        return;
    if (m.problem_type != "single_label_classification" && m.problem_type != "multi_label_classification"
        && m.problem_type != "regression") {
        diag.error(field, "problem_type '" + m.problem_type + "' is not one of Hugging Face's problem types",
                   "use \"single_label_classification\", \"multi_label_classification\" or \"regression\", "
                   "or leave problem_type out");
    } else if (m.problem_type == "regression" && !m.isRegression()) {
        diag.error(field, "problem_type is regression but num_labels is " + std::to_string(m.num_labels),
                   "set task_type to bert_regression and leave num_labels out, or change problem_type");
    } else if (m.problem_type != "regression" && m.isRegression()) {
        diag.error(field, "problem_type is " + m.problem_type + " but the task is a regression (num_labels 1)",
                   m.problem_type == "multi_label_classification"
                       ? "a multi-label task needs num_labels ≥ 2 (one output per label); with one label it is a "
                         "single-label classification of 2 classes"
                       : "set num_labels to the number of classes, or problem_type to regression");
    }
}

void checkLabelTypeAndSizes(const nlohmann::json &j, const std::string &source, Diagnostics &diag, const InputMetaData &m)
{
    if (m.label_type != "int" && m.label_type != "float")
        diag.error(fieldName(source, "label_type"), "label_type must be \"int\" or \"float\", got \"" + m.label_type + "\"",
                   "use \"float\" for real-valued regression labels, else \"int\"");
    else if (!m.isRegression() && m.label_type == "float")
        diag.error(fieldName(source, "label_type"), "label_type is float but the task is a classification",
                   "classification labels are class indices: use \"int\"");
    checkSizes(j, source, diag, m, "examples");
    checkProblemType(source, diag, m);
}

} // namespace

InputMetaData InputMetaData::fromJson(const nlohmann::json &j, const std::string &source, Diagnostics &diag)
{
    InputMetaData m;
    detail::readString(j, "processor_type", m.processor_type, source, diag);
    const bool hasTask = detail::readString(j, "task_type", m.task_type, source, diag);
    int64_t numLabels = 0;
    const bool hasNumLabels = detail::readInt(j, "num_labels", numLabels, source, diag);
    readCommonKeys(j, source, diag, m);
    if (hasTask && m.task_type == "bert_pretraining")
        return pretrainingFromJson(j, std::move(m), source, diag);
    readOtherKeys(j, source, diag, m);
    checkTask(j, hasTask, hasNumLabels, numLabels, source, diag, m);
    checkLabelTypeAndSizes(j, source, diag, m);
    return m;
}

std::optional<InputMetaData> InputMetaData::load(const std::string &path, Diagnostics &diag)
{
    return loadJsonObjectFile<InputMetaData>(path, diag);
}

nlohmann::ordered_json InputMetaData::toJson() const
{
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (isPretraining()) { // the key order of docs/pretraining.md
        j["task_type"] = task_type;
        j["max_seq_length"] = max_seq_length;
        j["max_predictions_per_seq"] = max_predictions_per_seq;
        j["train_data_size"] = train_data_size.value_or(0);
        if (eval_data_size)
            j["eval_data_size"] = *eval_data_size;
        j["use_next_sentence_label"] = use_next_sentence_label;
        j["masking"] = masking.empty() ? std::string("static") : masking;
        if (masked_lm_prob)
            j["masked_lm_prob"] = *masked_lm_prob;
        j["whole_word_masking"] = whole_word_masking;
        if (vocab_size)
            j["vocab_size"] = *vocab_size;
        if (do_lower_case)
            j["do_lower_case"] = *do_lower_case;
        if (!processor_type.empty())
            j["processor_type"] = processor_type;
        for (auto it = extra.begin(); it != extra.end(); ++it)
            j[it.key()] = it.value();
        return j;
    }
    j["processor_type"] = processor_type;
    j["train_data_size"] = train_data_size.value_or(0);
    j["max_seq_length"] = max_seq_length;
    for (const auto &[key, n] : test_data_sizes)
        j[key] = n;
    j["task_type"] = task_type;
    if (isRegression())
        j["label_type"] = label_type;
    else
        j["num_labels"] = num_labels;
    if (!problem_type.empty())
        j["problem_type"] = problem_type;
    if (has_sample_weights)
        j["has_sample_weights"] = true;
    if (has_teacher_logits)
        j["has_teacher_logits"] = true;
    if (eval_data_size)
        j["eval_data_size"] = *eval_data_size;
    if (do_lower_case)
        j["do_lower_case"] = *do_lower_case;
    for (auto it = extra.begin(); it != extra.end(); ++it)
        j[it.key()] = it.value();
    return j;
}

} // namespace wb
