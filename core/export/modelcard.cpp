// SPDX-License-Identifier: Apache-2.0
// The export's README.md in the Hugging Face Hub's model-card format: YAML front matter
// (https://huggingface.co/docs/hub/model-cards, "model-index" as the Hub's
// modelcard.md template defines it) and Markdown sections.
#include "core/export/modelcard.h"

#include "core/config/diagnostics.h"
#include "core/prepare/preparereport.h"
#include "core/io/metricsreader.h"
#include "core/advice/coach.h"
#include "core/formats/evalexamples.h"
#include "core/advice/runfacts.h"
#include "core/formats/runidentity.h"
#include "core/formats/trainingsummary.h"
#include "core/util/numbertext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// A number as JSON writes it (the shortest text that reads back the same double).
std::string exact(double v)
{
    return std::isfinite(v) ? nlohmann::json(v).dump() : std::string("null");
}

std::string fixed(double v, int digits = 4)
{
    if (!std::isfinite(v))
        return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

/// A YAML double-quoted scalar (JSON's string syntax is YAML's).
std::string quoted(const std::string &s)
{
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Markdown table cell: pipes and line breaks would break the row.
std::string cell(std::string s)
{
    for (auto &c : s)
        if (c == '|' || c == '\n' || c == '\r')
            c = ' ';
    return s;
}

std::string labelName(const ModelCardModel &m, size_t id)
{
    return id < m.labels.size() ? m.labels[id] : "label " + std::to_string(id);
}

const nlohmann::ordered_json *member(const nlohmann::ordered_json &j, const char *a, const char *b)
{
    if (!j.is_object() || !j.contains(a) || !j[a].is_object() || !j[a].contains(b))
        return nullptr;
    return &j[a][b];
}

std::string jsonText(const nlohmann::ordered_json *v)
{
    if (!v || v->is_null())
        return "";
    return v->is_string() ? v->get<std::string>() : v->dump();
}

/// The bag-of-words baseline of prepare_report.json when the report has one (its
/// "bag_of_words_baseline" object, core/prepare/bagofwords.h; absent in older reports).
std::optional<nlohmann::json> bagOfWords(const std::string &metaDataPath)
{
    std::ifstream in(prepareReportPath(metaDataPath), std::ios::binary);
    if (!in)
        return std::nullopt;
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("bag_of_words_baseline") || !j["bag_of_words_baseline"].is_object())
        return std::nullopt;
    return j["bag_of_words_baseline"];
}

std::optional<double> numberOf(const nlohmann::json &j, std::initializer_list<const char *> keys)
{
    for (const char *k : keys)
        if (j.contains(k) && j[k].is_number())
            return j[k].get<double>();
    return std::nullopt;
}

} // namespace

std::string hubLanguageCode(const std::string &languages)
{
    if (languages == "English")
        return "en";
    if (languages == "Chinese")
        return "zh";
    if (languages.find("languages") != std::string::npos)
        return "multilingual";
    return {};
}

namespace {

/// What the run's files say, read once for all sections (a file that is missing or unreadable
/// leaves its member empty).
struct CardInputs
{
    std::string modelDir;
    std::optional<RunIdentity> run;
    nlohmann::ordered_json runJson;
    std::string metricsError;
    MetricsLog metrics;
    std::optional<EvalMetrics> eval; ///< the exported checkpoint's evaluation, else the last
    std::optional<TrainingSummary> summary;
    std::vector<EvalExample> examples;
    std::optional<PrepareReport> report;
    std::optional<nlohmann::json> bow;
    std::vector<std::vector<int64_t>> confusion; ///< rows: true label, columns: predicted
};

CardInputs readCardInputs(const ModelCardModel &m, const std::string &modelDir)
{
    CardInputs in;
    in.modelDir = modelDir;
    auto &run = in.run;
    Diagnostics ignored;
    try {
        run = readRunConfig(modelDir, ignored);
    } catch (...) {
    }
    if (run)
        in.runJson = run->json;
    in.metrics = readMetricsFile((fs::path(modelDir) / "metrics.jsonl").string(), &in.metricsError);
    // The evaluation of the exported checkpoint (a best checkpoint is often not the last one).
    for (const auto &e : in.metrics.eval)
        if (e.step == m.checkpoint_step)
            in.eval = e;
    if (!in.eval && !in.metrics.eval.empty())
        in.eval = in.metrics.eval.back();
    try {
        in.summary = readTrainingSummary(modelDir);
    } catch (...) {
    }
    if (!in.eval && in.summary && in.summary->last_eval)
        in.eval = in.summary->last_eval;
    try {
        if (fs::exists(evalExamplesPath(modelDir)))
            in.examples = readEvalExamples(evalExamplesPath(modelDir));
    } catch (...) {
    }
    try {
        if (!m.meta_data_path.empty() && !m.masked_lm) // a classifier's prepare_report.json
            in.report = readPrepareReport(m.meta_data_path);
    } catch (...) {
    }
    if (!m.meta_data_path.empty() && !m.masked_lm)
        in.bow = bagOfWords(m.meta_data_path);

    // The confusion matrix of the last evaluation: eval_examples.jsonl of that step, else metrics.jsonl's.
    if (in.eval && !m.regression && !m.masked_lm) {
        const size_t n = std::max<size_t>(m.labels.size(), in.eval->class_support.size());
        bool fromExamples = !in.examples.empty() && n > 0;
        for (const auto &e : in.examples)
            fromExamples = fromExamples && e.step == in.eval->step && e.true_label_id >= 0 && size_t(e.true_label_id) < n
                           && e.predicted_label_id >= 0 && size_t(e.predicted_label_id) < n;
        if (fromExamples) {
            in.confusion.assign(n, std::vector<int64_t>(n, 0));
            for (const auto &e : in.examples)
                ++in.confusion[size_t(e.true_label_id)][size_t(e.predicted_label_id)];
        } else {
            in.confusion = in.eval->confusion;
        }
    }
    return in;
}

/// The YAML front matter: licence, language, base_model, pipeline_tag, tags, model-index.
void writeFrontMatter(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &eval = in.eval;
    const auto &report = in.report;
    o << "---\n";
    if (!m.license.empty()) {
        o << "license: " << m.license << "\n";
    } else {
        o << "license: other\n";
        o << "license_name: unknown\n";
    }
    if (!m.language.empty())
        o << "language:\n- " << m.language << "\n";
    if (!m.base_model.empty())
        o << "base_model: " << m.base_model << "\n";
    const char *pipeline = m.masked_lm ? "fill-mask" : "text-classification";
    o << "pipeline_tag: " << pipeline << "\n";
    o << "library_name: transformers\n";
    o << "tags:\n- bert\n- " << pipeline << "\n- bert-workbench\n";
    if (eval) {
        o << "model-index:\n- name: " << quoted(m.name) << "\n  results:\n  - task:\n"
          << "      type: " << pipeline << "\n      name: " << (m.masked_lm ? "Fill-Mask" : "Text Classification") << "\n"
          << "    dataset:\n      type: " << quoted(report ? report->processor_type : std::string("custom"))
          << "\n      name: " << quoted("evaluation set (" + std::to_string(eval->num_examples) + " examples)")
          << "\n      split: validation\n    metrics:\n";
        const auto metric = [&o](const char *type, const char *name, double value) {
            o << "    - type: " << type << "\n      value: " << exact(value) << "\n      name: " << name << "\n";
        };
        if (m.masked_lm) { // the MLM loss and accuracy are the eval line's eval_loss and eval_accuracy
            metric("accuracy", "eval_mlm_accuracy", eval->eval_accuracy);
            metric("loss", "eval_mlm_loss", eval->eval_loss);
            metric("perplexity", "eval_perplexity", std::exp(eval->eval_loss));
            if (eval->next_sentence) {
                metric("accuracy", "eval_nsp_accuracy", eval->eval_nsp_accuracy);
                metric("loss", "eval_nsp_loss", eval->eval_nsp_loss);
            }
            o << "---\n\n";
            return;
        }
        if (m.regression) {
            metric("mse", "eval_mse", eval->eval_mse);
            metric("pearsonr", "eval_pearson", eval->eval_pearson);
            metric("spearmanr", "eval_spearman", eval->eval_spearman);
        } else if (eval->multi_label) {
            metric("f1", "eval_micro_f1", eval->eval_micro_f1);
            metric("f1", "eval_macro_f1", eval->eval_macro_f1);
            metric("accuracy", "eval_accuracy", eval->eval_accuracy);
        } else {
            metric("accuracy", "eval_accuracy", eval->eval_accuracy);
            if (eval->binary) {
                metric("f1", "eval_f1", eval->eval_f1);
                metric("matthews_correlation", "eval_mcc", eval->eval_mcc);
            }
            metric("f1", "eval_macro_f1", eval->eval_macro_f1);
        }
        metric("loss", "eval_loss", eval->eval_loss);
    }
    o << "---\n\n";
}

/// The title and what the model is.
void writeSummary(std::ostream &o, const ModelCardModel &m)
{
    o << "# " << m.name << "\n\n";
    if (m.masked_lm) {
        o << "A BERT masked language model (" << m.num_hidden_layers << (m.num_hidden_layers == 1 ? " layer" : " layers")
          << ", hidden size " << m.hidden_size << ", " << m.num_attention_heads << " attention heads, "
          << groupedDigits(m.parameters) << " parameters without the heads) pretrained with BERT Workbench: it predicts "
             "the tokens hidden behind [MASK], and a classifier can be fine-tuned from it";
    } else {
        o << "A BERT " << (m.regression ? "regression model" : "text classifier") << " (" << m.num_hidden_layers
          << (m.num_hidden_layers == 1 ? " layer" : " layers") << ", hidden size " << m.hidden_size << ", "
          << m.num_attention_heads << " attention heads, " << groupedDigits(m.parameters)
          << " parameters without the classifier) fine-tuned with BERT Workbench";
        if (!m.regression && !m.labels.empty()) {
            o << " to sort texts into " << m.labels.size() << " labels: ";
            for (size_t k = 0; k < m.labels.size(); ++k)
                o << (k ? ", " : "") << m.labels[k];
        } else if (m.regression) {
            o << " to predict one number per text";
        }
    }
    o << ".\n\nExported from " << (m.checkpoint.empty() ? std::string("an unnamed checkpoint") : m.checkpoint);
    if (!m.checkpoint_note.empty())
        o << " (" << m.checkpoint_note << ")";
    o << ".\n\n";
}

/// "## Labels": ids, names and counts.
void writeLabels(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &report = in.report;
    o << "## Labels\n\n";
    if (m.regression) {
        o << "One output: a number (regression, trained with the mean squared error).\n\n";
    } else {
        const bool counts = report && (!report->train_label_counts.empty() || !report->eval_label_counts.empty());
        o << "| id | label |" << (counts ? " training examples | evaluation examples |" : "") << "\n";
        o << "|---:|---|" << (counts ? "---:|---:|" : "") << "\n";
        for (size_t k = 0; k < m.labels.size(); ++k) {
            o << "| " << k << " | " << cell(m.labels[k]) << " |";
            if (counts) {
                const auto count = [&](const std::map<std::string, int64_t> &c) {
                    const auto it = c.find(m.labels[k]);
                    return it == c.end() ? int64_t(0) : it->second;
                };
                o << " " << count(report->train_label_counts) << " | " << count(report->eval_label_counts) << " |";
            }
            o << "\n";
        }
        if (!counts)
            o << "\n(No prepare_report.json beside the meta data: the label counts are unknown.)\n";
        o << "\n";
    }
}

/// "## Training": the start, text, data, hyperparameters, time.
/// A distilled run (docs/distillation.md): the teacher, what the student learned from and the
/// loss's settings, from teacher.json beside the run's input_meta_data.json and run_config.json.
void writeDistillation(std::ostream &o, const nlohmann::ordered_json &runJson)
{
    const auto *temperature = member(runJson, "defining", "distillation_temperature");
    const auto *metaPath = member(runJson, "informational", "input_meta_data_path");
    if (!temperature || !metaPath || !metaPath->is_string())
        return;
    std::filesystem::path meta = metaPath->get<std::string>();
    if (const auto *cwd = member(runJson, "informational", "working_directory"); meta.is_relative() && cwd && cwd->is_string())
        meta = std::filesystem::path(cwd->get<std::string>()) / meta; // recorded as given (core/formats/runidentity.h)
    std::ifstream in(meta.parent_path() / "teacher.json");
    const auto teacher = nlohmann::ordered_json::parse(in, nullptr, false);
    o << "- Distillation: a student trained on a teacher's soft labels (temperature " << jsonText(temperature)
      << ", soft-label share " << jsonText(member(runJson, "defining", "distillation_alpha")) << ")";
    if (teacher.is_object() && teacher.contains("counts") && teacher["counts"].is_object()) {
        const auto count = [&](const char *k) {
            const auto &c = teacher["counts"];
            return c.contains(k) && c[k].is_number_integer() ? groupedDigits(c[k].get<int64_t>()) : std::string("?");
        };
        o << ": the teacher " << jsonText(teacher.contains("teacher_weights") ? &teacher["teacher_weights"] : nullptr)
          << " labelled its " << count("labelled") << " training texts and " << count("transfer")
          << " unlabelled transfer texts; the evaluation is the teacher's own eval set";
    }
    o << "\n";
}

void writeTraining(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &run = in.run;
    const auto &runJson = in.runJson;
    const auto &metrics = in.metrics;
    const auto &eval = in.eval;
    const auto &summary = in.summary;
    const auto &report = in.report;
    o << "## Training\n\n";
    if (!m.start.empty()) {
        o << "- Start: the pretrained model " << m.start << "\n";
    } else { // the run's facts (core/advice/runfacts.h): what its run_config.json records
        const RunFacts facts = recordedRunFacts(in.modelDir);
        if (facts.start == WeightsStart::Unknown)
            o << "- Start: random weights, or an --init_checkpoint (run_config.json does not record one)\n";
        else
            o << "- Start: " << startWords(facts) << "\n";
    }
    o << "- Text: " << (m.do_lower_case ? "lower-cased, accents stripped (uncased)" : "case and accents kept (cased)")
      << ", WordPiece, at most " << m.max_seq_length << " tokens per example ([CLS] and [SEP] included; longer texts are cut)\n";
    if (m.masked_lm && m.train_examples >= 0) {
        o << "- Data: " << m.train_examples << " training";
        if (m.eval_examples >= 0)
            o << " and " << m.eval_examples << " evaluation";
        o << " sequences (input_meta_data.json)";
        if (m.max_predictions_per_seq > 0)
            o << ", at most " << m.max_predictions_per_seq << " masked tokens each";
        o << "\n";
    }
    if (report)
        o << "- Data: " << report->train_examples << " training and " << report->eval_examples
          << " evaluation examples (" << report->processor_type << ")\n";
    writeDistillation(o, runJson);
    if (run) {
        const auto d = [&](const char *k) { return jsonText(member(runJson, "defining", k)); };
        const auto i = [&](const char *k) { return jsonText(member(runJson, "informational", k)); };
        o << "- Hyperparameters: learning_rate " << d("learning_rate") << ", train_batch_size " << d("train_batch_size")
          << ", num_train_epochs " << d("num_train_epochs") << ", warmup_steps " << d("warmup_steps")
          << ", weight_decay_rate " << d("weight_decay_rate") << ", optimizer " << d("optimizer_type") << ", seed "
          << d("seed");
        if (!i("gradient_accumulation_steps").empty())
            o << ", gradient_accumulation_steps " << i("gradient_accumulation_steps");
        o << "\n";
        o << "- Number format: " << (i("dtype").empty() ? std::string("fp32") : i("dtype"))
          << " (the exported weights are float32)\n";
        o << "- Steps: " << d("total_steps") << " (" << d("steps_per_epoch") << " per epoch)\n";
        if (!i("version").empty())
            o << "- Trained with BERT Workbench " << i("version") << "\n";
    } else {
        o << "- The run's run_config.json could not be read: its hyperparameters are unknown.\n";
    }
    if (summary) {
        o << "- Final train loss: " << fixed(summary->train_loss);
        if (summary->stopped_early_at_step > 0)
            o << " (stopped early at step " << summary->stopped_early_at_step << ")";
        o << "\n";
    }
    if (metrics.train.size() >= 1) {
        const double first = metrics.train.front().wall_time;
        const double last = std::max(metrics.train.back().wall_time, eval ? eval->wall_time : 0.0);
        double rate = 0;
        for (const auto &s : metrics.train)
            rate += s.examples_per_second;
        rate /= double(metrics.train.size());
        o << "- Time: " << fixed(std::max(0.0, last - first), 1) << " s from the first logged step to the last "
          << "evaluation; " << fixed(rate, 1) << " training examples per second on average\n";
    }
    o << "- Hardware: the run does not record its machine; the speed above is the one it measured\n\n";
}

/// A multi-label evaluation (docs/multi-label.md): the metrics at 0.5 and with the tuned
/// thresholds, and per label its precision, recall, F1, support and threshold.
void writeMultiLabelEvaluation(std::ostream &o, const ModelCardModel &m, const EvalMetrics &e)
{
    o << "| eval_micro_f1 | " << fixed(e.eval_micro_f1) << " |\n| eval_macro_f1 | " << fixed(e.eval_macro_f1)
      << " |\n| eval_samples_f1 | " << fixed(e.eval_samples_f1) << " |\n| eval_hamming_loss | "
      << fixed(e.eval_hamming_loss) << " |\n| eval_accuracy (subset accuracy) | " << fixed(e.eval_accuracy)
      << " |\n| eval_loss (binary cross-entropy) | " << fixed(e.eval_loss) << " |\n\n"
      << "Multi-label: one sigmoid per label. The metrics above decide every label at 0.5. With each label's "
         "own threshold (the table below; config.json's \"thresholds\", which `classify` and the demo page "
         "apply), micro-F1 is "
      << fixed(e.eval_micro_f1_tuned) << " and macro-F1 " << fixed(e.eval_macro_f1_tuned)
      << ", measured on eval texts the thresholds were not tuned on (2-fold cross-fitting).\n\n"
      << "| label | precision | recall | f1 | support | threshold |\n|---|---:|---:|---:|---:|---:|\n";
    for (size_t k = 0; k < e.class_support.size(); ++k)
        o << "| " << cell(labelName(m, k)) << " | " << fixed(k < e.class_precision.size() ? e.class_precision[k] : NAN)
          << " | " << fixed(k < e.class_recall.size() ? e.class_recall[k] : NAN) << " | "
          << fixed(k < e.class_f1.size() ? e.class_f1[k] : NAN) << " | " << e.class_support[k] << " | "
          << fixed(k < e.thresholds.size() ? e.thresholds[k] : 0.5, 3) << " |\n";
    o << "\n";
}

/// "## Evaluation": the metrics, per-class table and confusion matrix.
void writeEvaluation(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &metricsError = in.metricsError;
    const auto &eval = in.eval;
    const auto &examples = in.examples;
    const auto &confusion = in.confusion;
    o << "## Evaluation\n\n";
    if (!eval) {
        o << "The run has no evaluation in metrics.jsonl"
          << (metricsError.empty() ? std::string() : " (" + metricsError + ")") << ".\n\n";
    } else {
        o << (eval->step == m.checkpoint_step ? "The evaluation of the exported checkpoint"
                                               : "The last evaluation of the run")
          << ", at step " << eval->step << ", on " << eval->num_examples
          << " evaluation " << (m.masked_lm ? "sequences" : "examples") << " (metrics.jsonl):\n\n| metric | value |\n|---|---:|\n";
        if (m.masked_lm) { // metrics.jsonl's eval_mlm_loss and eval_mlm_accuracy are its eval_loss and eval_accuracy
            o << "| eval_mlm_loss | " << fixed(eval->eval_loss) << " |\n| eval_mlm_accuracy | " << fixed(eval->eval_accuracy)
              << " |\n| eval_perplexity | " << fixed(std::exp(eval->eval_loss)) << " |\n";
            if (eval->next_sentence)
                o << "| eval_nsp_loss | " << fixed(eval->eval_nsp_loss) << " |\n| eval_nsp_accuracy | "
                  << fixed(eval->eval_nsp_accuracy) << " |\n";
            o << "\nThe MLM accuracy is the share of masked tokens whose most likely token is the original one; "
                 "the perplexity is exp(eval_mlm_loss).\n\n";
            return;
        }
        if (eval->multi_label) {
            writeMultiLabelEvaluation(o, m, *eval);
            return;
        }
        if (m.regression) {
            o << "| eval_mse | " << fixed(eval->eval_mse) << " |\n| eval_pearson | " << fixed(eval->eval_pearson)
              << " |\n| eval_spearman | " << fixed(eval->eval_spearman) << " |\n";
        } else {
            o << "| eval_accuracy | " << fixed(eval->eval_accuracy) << " |\n";
            if (eval->binary)
                o << "| eval_f1 (positive class " << cell(labelName(m, size_t(eval->positive_label))) << ") | "
                  << fixed(eval->eval_f1) << " |\n| eval_mcc | " << fixed(eval->eval_mcc) << " |\n";
            o << "| eval_macro_f1 | " << fixed(eval->eval_macro_f1) << " |\n";
        }
        o << "| eval_loss | " << fixed(eval->eval_loss) << " |\n\n";
        if (!m.regression && !eval->class_support.empty()) {
            o << "| label | precision | recall | f1 | support |\n|---|---:|---:|---:|---:|\n";
            for (size_t k = 0; k < eval->class_support.size(); ++k)
                o << "| " << cell(labelName(m, k)) << " | "
                  << fixed(k < eval->class_precision.size() ? eval->class_precision[k] : NAN) << " | "
                  << fixed(k < eval->class_recall.size() ? eval->class_recall[k] : NAN) << " | "
                  << fixed(k < eval->class_f1.size() ? eval->class_f1[k] : NAN) << " | " << eval->class_support[k]
                  << " |\n";
            o << "\n";
        }
        if (!confusion.empty()) {
            o << "Confusion matrix (rows: true label, columns: predicted label):\n\n| true \\ predicted |";
            for (size_t k = 0; k < confusion.size(); ++k)
                o << " " << cell(labelName(m, k)) << " |";
            o << "\n|---|";
            for (size_t k = 0; k < confusion.size(); ++k)
                o << "---:|";
            o << "\n";
            for (size_t t = 0; t < confusion.size(); ++t) {
                o << "| " << cell(labelName(m, t)) << " |";
                for (const int64_t c : confusion[t])
                    o << " " << c << " |";
                o << "\n";
            }
            o << "\n";
        } else if (!m.regression && !examples.empty()) {
            o << "(No confusion matrix: eval_examples.jsonl holds the evaluation at step " << examples.front().step
              << ", not this one.)\n\n";
        }
    }
}

/// "## Baselines": the majority class and the bag-of-words model.
void writeBaselines(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &report = in.report;
    const auto &bow = in.bow;
    if (m.masked_lm) {
        if (m.vocab_size > 1)
            o << "## Baselines\n\n- Uniform guess over the vocabulary of " << m.vocab_size << " tokens: eval_mlm_loss "
              << fixed(std::log(double(m.vocab_size))) << " (ln " << m.vocab_size << "), perplexity " << m.vocab_size
              << "\n\nA model that learnt something is well below these.\n\n";
        return;
    }
    if (!m.regression) {
        o << "## Baselines\n\n";
        if (report && report->eval_examples > 0 && !report->train_label_counts.empty()) {
            const auto top = std::max_element(report->train_label_counts.begin(), report->train_label_counts.end(),
                                              [](const auto &a, const auto &b) { return a.second < b.second; });
            const auto it = report->eval_label_counts.find(top->first);
            const int64_t hits = it == report->eval_label_counts.end() ? 0 : it->second;
            o << "- Majority class: always answering \"" << top->first << "\" (the most frequent training label) is right on "
              << hits << " of " << report->eval_examples << " evaluation examples, accuracy "
              << fixed(double(hits) / double(report->eval_examples)) << "\n";
        } else {
            o << "- Majority class: unknown (no prepare_report.json with label counts)\n";
        }
        if (bow) {
            const auto acc = numberOf(*bow, {"eval_accuracy", "accuracy"});
            const auto f1 = numberOf(*bow, {"eval_macro_f1", "macro_f1"});
            o << "- Bag of words (prepare_report.json):";
            if (acc)
                o << " accuracy " << fixed(*acc);
            if (f1)
                o << (acc ? "," : "") << " macro-F1 " << fixed(*f1);
            if (!acc && !f1)
                o << " recorded, without an accuracy";
            o << "\n";
        }
        o << "\nA model worth using beats these clearly on the same evaluation set.\n\n";
    }
}

/// "## What the coach noticed": the coach's current warnings at the end of the run (metrics.jsonl
/// "note" lines applied in order, core/advice/coach.h: a withdrawn note is gone), each once, with
/// its step; nothing when the coach had no warning left.
void writeCoachNotes(std::ostream &o, const CardInputs &in)
{
    std::vector<CoachNote> current;
    for (const CoachNote &n : in.metrics.notes)
        applyCoachNote(current, n);
    std::vector<const CoachNote *> warnings;
    for (const CoachNote &n : current)
        if (n.severity == "warning")
            warnings.push_back(&n);
    if (warnings.empty())
        return;
    o << "## What the coach noticed during training\n\n";
    for (const CoachNote *w : warnings)
        o << "- " << (w->step > 0 ? "Step " + std::to_string(w->step) + ": " : std::string("Before training: "))
          << w->text << "\n";
    o << "\n";
}

/// "## Intended use and limitations".
void writeLimitations(std::ostream &o, const ModelCardModel &m, const CardInputs &in)
{
    const auto &eval = in.eval;
    if (m.masked_lm) {
        o << "## Intended use and limitations\n\n"
          << "Use it to fill in masked tokens of texts like its pretraining corpus, or as the start of a classifier "
             "fine-tuned on your labels. It has only seen its corpus: texts of another kind, language or time are "
             "read less well. It reads at most " << m.max_seq_length << " tokens of each text. The evaluation above "
             "is an estimate from " << (eval ? std::to_string(eval->num_examples) : std::string("few"))
          << " sequences. It repeats what its corpus says, its mistakes and biases included.\n\n";
        return;
    }
    o << "## Intended use and limitations\n\n"
      << "Use it for texts like the ones it was trained on: the same kind of writing, the same language, the same "
         "labels. It has only seen its training examples, so texts of another kind, topic or time may get confident "
         "but wrong answers. It reads at most " << m.max_seq_length << " tokens of each text and ignores the rest. "
      << "The evaluation above is an estimate from " << (eval ? std::to_string(eval->num_examples) : std::string("few"))
      << " examples; a small evaluation set makes it uncertain. It learns whatever the training labels say, "
         "their mistakes and biases included. Check its answers before they decide anything that matters to a "
         "person.\n\n";
}

/// "## How to use".
/// The tokenizer files of the card's file list ("" for an export without a vocabulary).
const char *tokenizerFiles(const ModelCardModel &m)
{
    return m.tokenizer_files ? "tokenizer.json, vocab.txt, tokenizer_config.json, special_tokens_map.json, " : "";
}

void writeHowToUse(std::ostream &o, const ModelCardModel &m)
{
    if (m.masked_lm) {
        o << "## How to use\n\n"
          << "With Hugging Face transformers (Python), from this folder:\n\n```python\n"
          << "from transformers import pipeline\n\n"
          << "fill = pipeline(\"fill-mask\", model=\"path/to/" << m.name << "\")\n"
          << "print(fill(\"the cat sat on the [MASK].\"))\n```\n\n"
          << "With BERT Workbench's command line: fill in masks, or fine-tune a classifier from it:\n\n```sh\n"
          << "bert-workbench-cli fill_mask --model_export_path=path/to/" << m.name
          << " --text=\"the cat sat on the [MASK].\"\n"
          << "bert-workbench-cli train ... --init_checkpoint=path/to/" << m.name << "\n```\n\n"
          << "Files: model.safetensors (float32 weights, Hugging Face names), config.json, " << tokenizerFiles(m)
          << "bert_config.json and input_meta_data.json (google-research/bert's).\n";
        return;
    }
    o << "## How to use\n\n"
      << "With Hugging Face transformers (Python), from this folder:\n\n```python\n"
      << "from transformers import AutoTokenizer, AutoModelForSequenceClassification, pipeline\n\n"
      << "tokenizer = AutoTokenizer.from_pretrained(\"path/to/" << m.name << "\")\n"
      << "model = AutoModelForSequenceClassification.from_pretrained(\"path/to/" << m.name << "\")\n"
      << "classifier = pipeline(\"text-classification\", model=model, tokenizer=tokenizer, truncation=True)\n"
      << "print(classifier(\"a text to classify\"))\n```\n\n"
      << "With BERT Workbench's command line:\n\n```sh\n"
      << "bert-workbench-cli classify --model_export_path=path/to/" << m.name << " --text=\"a text to classify\"\n"
      << "```\n\n";
    if (m.onnx) {
        o << (m.onnx_dtype == "int8"
                  ? "onnx/model.onnx is int8 (--onnx_dtype int8): the encoder's dense weights and the word embeddings "
                    "as int8 with a scale per column or row (the dense weights in 7 bits), activations quantized "
                    "dynamically (DynamicQuantizeLinear, "
                    "MatMulInteger); model.safetensors keeps the float32 weights. "
                      + m.onnx_quantization + "\n\n"
                  : m.onnx_dtype == "fp16"
                  ? "onnx/model.onnx has float16 weights (--onnx_dtype fp16), Cast to float32 in the graph: it "
                    "computes in float32; model.safetensors keeps the float32 weights. "
                      + m.onnx_quantization + "\n\n"
                  : std::string("onnx/model.onnx is float32 (--onnx_dtype fp32).\n\n"));
        o << "With ONNX Runtime (onnx/model.onnx: inputs input_ids, attention_mask and token_type_ids, int64 "
             "[batch, sequence]; output logits, float32 [batch, "
          << (m.regression ? std::size_t(1) : m.labels.size())
          << "]), tokenizing with tokenizer.json:\n\n```python\n"
          << "import numpy as np, onnxruntime as ort\nfrom tokenizers import Tokenizer\n\n"
          << "tok = Tokenizer.from_file(\"path/to/" << m.name << "/tokenizer.json\")\n"
          << "enc = tok.encode(\"a text to classify\")\n"
          << "session = ort.InferenceSession(\"path/to/" << m.name << "/onnx/model.onnx\")\n"
          << "logits = session.run([\"logits\"], {\"input_ids\": np.array([enc.ids], dtype=np.int64),\n"
          << "                                    \"attention_mask\": np.array([enc.attention_mask], dtype=np.int64),\n"
          << "                                    \"token_type_ids\": np.array([enc.type_ids], dtype=np.int64)})[0]\n"
          << "```\n\n"
          << "With transformers.js (JavaScript, in Node or the browser), from this folder:\n\n```js\n"
          << "import { pipeline, env } from '@huggingface/transformers';\n"
          << "env.localModelPath = 'path/to/'; env.allowRemoteModels = false;\n"
          << "const classify = await pipeline('text-classification', '" << m.name << "');\n"
          << "console.log(await classify('a text to classify'));\n```\n\n";
        if (m.demo_page)
            o << "demo/index.html is a page that classifies as you type, entirely in the browser and offline: "
                 "it runs onnx/model.onnx with the onnxruntime-web files in demo/ort/. It works as it is: open "
                 "it from disk (file://), or serve this folder with any static web server (`python3 -m "
                 "http.server` in it) and open http://localhost:8000/demo/. It reads the model from the scripts "
                 "in demo/model/, so keep demo/ whole.\n\n";
    }
    o << "Files: model.safetensors (float32 weights, Hugging Face names), config.json, " << tokenizerFiles(m)
      << "bert_config.json and input_meta_data.json (google-research/bert's), labels.txt"
      << (m.onnx ? ", onnx/model.onnx" : "") << (m.demo_page ? ", demo/index.html" : "") << ".\n";
}

} // namespace

std::string modelCardMarkdown(const ModelCardModel &m, const std::string &modelDir)
{
    const CardInputs in = readCardInputs(m, modelDir);
    std::ostringstream o;
    writeFrontMatter(o, m, in);
    writeSummary(o, m);
    if (!m.masked_lm)
        writeLabels(o, m, in);
    writeTraining(o, m, in);
    writeEvaluation(o, m, in);
    writeBaselines(o, m, in);
    writeCoachNotes(o, in);
    writeLimitations(o, m, in);
    writeHowToUse(o, m);
    return o.str();
}

} // namespace wb
