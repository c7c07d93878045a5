// SPDX-License-Identifier: Apache-2.0
// training_summary.json: written by the training loop when a run completes, read back by
// resume (an early stop is a finished run) and the window's run history.
#include "core/formats/trainingsummary.h"

#include "core/config/jsonfile.h"
#include "core/config/jsonrecord.h"
#include "core/prepare/preparereport.h"
#include "core/io/metricswriter.h"
#include "core/io/runeventjson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace wb {

namespace {

const char *const kSummaryHint = "delete it: the run writes it again when it completes (a run that stopped early "
                                 "then trains on when resumed)";

} // namespace

std::string trainingSummaryPath(const std::string &modelDir)
{
    return (std::filesystem::path(modelDir) / "training_summary.json").string();
}

std::string trainingSummaryJson(const TrainingSummary &s)
{
    nlohmann::ordered_json j;
    j["total_training_steps"] = s.total_training_steps;
    j["train_loss"] = s.train_loss;
    if (s.last_eval) {
        auto ej = MetricsWriter::evalJson(*s.last_eval);
        ej.erase("kind");
        ej.erase("wall_time");
        if (!s.last_eval->regression)
            j["eval_metrics"] = s.last_eval->eval_accuracy;
        j["last_eval"] = ej;
    }
    if (!s.best_checkpoint_metric.empty()) {
        j["best_checkpoint_metric"] = s.best_checkpoint_metric;
        if (s.best_metric_value) {
            j["best_metric_value"] = *s.best_metric_value;
            j["best_step"] = s.best_step;
            j["best_checkpoint"] = s.best_checkpoint;
        }
    }
    if (s.stopped_early_at_step > 0)
        j["stopped_early_at_step"] = s.stopped_early_at_step;
    if (!s.coach_notes.empty()) {
        nlohmann::ordered_json notes = nlohmann::ordered_json::array();
        for (const CoachNote &n : s.coach_notes)
            notes.push_back(nlohmann::ordered_json(n));
        j["coach_notes"] = notes;
    }
    if (s.bag_of_words_accuracy)
        j["bag_of_words_accuracy"] = *s.bag_of_words_accuracy;
    if (s.beat_bag_of_words)
        j["beat_bag_of_words"] = *s.beat_bag_of_words;
    return j.dump(4) + "\n";
}

void writeTrainingSummary(const std::string &modelDir, const TrainingSummary &s)
{
    writeFileAtomic(trainingSummaryPath(modelDir), trainingSummaryJson(s));
}

TrainingSummary parseTrainingSummary(const std::string &text, const std::string &source)
{
    const JsonRecord j = JsonRecord::parse(text, source, kSummaryHint);
    TrainingSummary s;
    s.total_training_steps = j.integer("total_training_steps").value_or(0);
    s.train_loss = j.number("train_loss").value_or(s.train_loss);
    (void)j.number("eval_metrics"); // last_eval's eval_accuracy; checked for its type only
    if (const auto e = j.object("last_eval")) {
        // Every key of the EvalMetrics format is a number (null: not finite) or, for
        // step and num_examples, an integer; the format's reader keeps defaults silently.
        for (auto it = e->json().begin(); it != e->json().end(); ++it) {
            if (it.key() == "step" || it.key() == "num_examples" || it.key() == "positive_label_id")
                (void)e->integer(it.key().c_str());
            else if (it.key() == "regression" || it.key() == "binary")
                (void)e->boolean(it.key().c_str());
            else if (it.key() == "positive_label")
                (void)e->string(it.key().c_str());
            else if (it.key() == "per_class") {
                // [{"label", "label_id", "precision", "recall", "f1", "support"}, …]
                const nlohmann::json *rows = e->array("per_class");
                for (size_t k = 0; rows && k < rows->size(); ++k) {
                    const JsonRecord row = e->objectItem("per_class", k);
                    (void)row.string("label");
                    (void)row.integer("label_id");
                    (void)row.integer("support");
                    for (const char *metric : {"precision", "recall", "f1"})
                        (void)row.number(metric);
                }
            } else
                (void)e->number(it.key().c_str());
        }
        s.last_eval = e->json().get<EvalMetrics>();
    }
    if (const auto metric = j.string("best_checkpoint_metric"))
        s.best_checkpoint_metric = *metric;
    s.best_metric_value = j.number("best_metric_value");
    s.best_step = j.integer("best_step").value_or(-1);
    s.best_checkpoint = j.string("best_checkpoint").value_or("");
    s.stopped_early_at_step = j.integer("stopped_early_at_step").value_or(0);
    const nlohmann::json *notes = j.array("coach_notes");
    for (size_t k = 0; notes && k < notes->size(); ++k) {
        const JsonRecord row = j.objectItem("coach_notes", k);
        CoachNote n;
        n.step = row.integer("step").value_or(0);
        n.id = row.string("id").value_or("");
        n.severity = row.string("severity").value_or("");
        n.text = row.string("text").value_or("");
        s.coach_notes.push_back(std::move(n));
    }
    s.bag_of_words_accuracy = j.number("bag_of_words_accuracy");
    s.beat_bag_of_words = j.boolean("beat_bag_of_words");
    return s;
}

std::optional<TrainingSummary> readTrainingSummary(const std::string &modelDir)
{
    const std::string path = trainingSummaryPath(modelDir);
    const auto text = JsonRecord::readText(path, kSummaryHint);
    if (!text)
        return std::nullopt;
    return parseTrainingSummary(*text, path);
}

std::string bagOfWordsVerdict(double bert, double bagOfWords, const char *metric)
{
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, "%s %.3f vs %.3f", metric, bert, bagOfWords);
    if (bert > bagOfWords)
        return std::string("BERT beat the bag-of-words baseline: ") + numbers
               + " (TF-IDF + logistic regression on the same wordpieces, prepare_report.json)";
    // What to try is the coach's (its below_bag_of_words note, core/advice/coach.h), not this sentence's.
    return std::string("BERT did not beat the bag-of-words baseline: ") + numbers
           + " (TF-IDF + logistic regression on the same wordpieces, prepare_report.json)";
}

std::string compareWithBagOfWords(TrainingSummary &s, const std::string &metaDataPath)
{
    if (!s.last_eval || s.last_eval->regression || !std::isfinite(s.last_eval->eval_accuracy))
        return {};
    try {
        const auto report = readPrepareReport(metaDataPath);
        if (!report || !report->bag_of_words || !report->bag_of_words->fitted())
            return {};
        const double bagOfWords = report->bag_of_words->eval_accuracy;
        s.bag_of_words_accuracy = bagOfWords;
        const BagOfWordsBaseline &b = *report->bag_of_words;
        if (s.last_eval->multi_label && b.multi_label && std::isfinite(b.eval_micro_f1)) {
            s.beat_bag_of_words = s.last_eval->eval_micro_f1 > b.eval_micro_f1;
            return bagOfWordsVerdict(s.last_eval->eval_micro_f1, b.eval_micro_f1, "eval micro-F1");
        }
        s.beat_bag_of_words = s.last_eval->eval_accuracy > bagOfWords;
        return bagOfWordsVerdict(s.last_eval->eval_accuracy, bagOfWords);
    } catch (...) {
        return {};
    }
}

} // namespace wb
