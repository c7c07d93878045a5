// SPDX-License-Identifier: Apache-2.0
// One cycle of label to learn: prepare the labels, train, rescore the pool (labelcycle.h).
#include "core/learn/labelcycle.h"

#include "core/config/trainingoptions.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/infer/textclassifier.h"
#include "core/label/labelstore.h"
#include "core/launch/trainer.h"
#include "core/prepare/dataprep.h"
#include "core/prepare/preparefeatures.h"
#include "core/prepare/preparereport.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/util/error.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

namespace wb {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The run's last evaluation, and its steps for the progress callback.
class CycleObserver : public TrainingObserver
{
public:
    CycleObserver(const CycleProgress &progress, int64_t totalSteps) : m_progress(progress), m_total(totalSteps) {}
    void stepCompleted(const StepMetrics &m) override
    {
        if (m_progress && m_total > 0)
            m_progress("training", std::min(1.0, double(m.step) / double(m_total)));
    }
    void evaluationCompleted(const EvalMetrics &m) override { accuracy = m.eval_accuracy; }
    double accuracy = std::nan("");

private:
    const CycleProgress &m_progress;
    int64_t m_total;
};

void writeTexts(const fs::path &path, const std::vector<CycleText> &texts)
{
    std::vector<PoolLabel> rows;
    rows.reserve(texts.size());
    for (const CycleText &t : texts)
        rows.push_back({t.text, t.label, "", 0, "2000-01-01T00:00:00Z", "", 0});
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << labelsCsv(rows);
    if (!out.flush())
        throw Error(path.string(), "cannot be written", "check the folder is writable and the disk has room");
}

std::string joined(const std::vector<std::string> &names)
{
    std::string s;
    for (const std::string &n : names)
        s += (s.empty() ? "" : ",") + n;
    return s;
}

} // namespace

struct LabelCycle::Private
{
    LabelCycleSettings settings;
    std::vector<std::vector<int64_t>> ids, segments; ///< each pool text's features without padding

    void checkLabels(const std::vector<CycleText> &train) const;
    PrepareReport prepare(const fs::path &dir, const std::vector<CycleText> &train,
                          const std::vector<CycleText> &eval, const StopToken &stop) const;
    TrainingOptions trainOptions(const fs::path &dir, int64_t trainTexts) const;
    void score(const std::string &modelDir, CycleResult &r, const CycleProgress &progress) const;
};

LabelCycle::LabelCycle(const LabelCycleSettings &settings, std::vector<std::string> pool)
    : d(std::make_unique<Private>())
{
    d->settings = settings;
    const LabelCycleSettings &s = settings;
    if (s.bert_config_file.empty() || !fs::is_regular_file(s.bert_config_file))
        throw Error("bert_config_file", "no model config at '" + s.bert_config_file + "'",
                    "pick the bert_config.json of the model to label with");
    if (s.vocab_file.empty() || !fs::is_regular_file(s.vocab_file))
        throw Error("vocab_file", "no vocabulary at '" + s.vocab_file + "'", "pick the model's vocab.txt");
    if (s.label_names.size() < 2)
        throw Error("label_names", "a model needs at least two labels, " + std::to_string(s.label_names.size()) + " given",
                    "create the labels first");
    for (const std::string &name : s.label_names) // the labels file's rule, so prepare reads them as given
        (void)labelCsvRecord({"x", name, "", 0, "2000-01-01T00:00:00Z", "", 0});
    if (s.max_seq_length < 2 || s.train_batch_size < 1 || s.score_batch_size < 1 || s.min_epochs < 1
        || !(s.learning_rate > 0))
        throw Error("label cycle", "max_seq_length >= 2, batch sizes >= 1, min_epochs >= 1 and a positive "
                                   "learning_rate are needed",
                    "fix the session's settings");
    const FullTokenizer tokenizer(s.vocab_file, s.do_lower_case);
    const int32_t cls = tokenizer.vocab().id("[CLS]"), sep = tokenizer.vocab().id("[SEP]");
    d->ids.reserve(pool.size());
    d->segments.reserve(pool.size());
    ExampleFeatures f;
    for (const std::string &text : pool) {
        buildExampleFeatures(tokenizer, text, {}, false, s.max_seq_length, cls, sep, size_t(s.max_seq_length), f);
        size_t len = 0;
        while (len < f.input_mask.size() && f.input_mask[len] != 0)
            ++len;
        d->ids.emplace_back(f.input_ids.begin(), f.input_ids.begin() + long(len));
        d->segments.emplace_back(f.segment_ids.begin(), f.segment_ids.begin() + long(len));
    }
}

LabelCycle::~LabelCycle() = default;

int64_t LabelCycle::poolSize() const { return int64_t(d->ids.size()); }

void LabelCycle::Private::checkLabels(const std::vector<CycleText> &train) const
{
    std::set<std::string> seen;
    for (const CycleText &t : train) {
        if (std::find(settings.label_names.begin(), settings.label_names.end(), t.label) == settings.label_names.end())
            throw Error("labels", "the label '" + t.label + "' is not one of the session's labels (" +
                                      joined(settings.label_names) + ")",
                        "relabel the text, or add the label to the session");
        seen.insert(t.label);
    }
    if (seen.size() < 2)
        throw Error("labels", "a model needs texts of at least two labels; the labels so far are " +
                                  (seen.empty() ? std::string("none") : "all '" + *seen.begin() + "'"),
                    "label a text of another label");
}

PrepareReport LabelCycle::Private::prepare(const fs::path &dir, const std::vector<CycleText> &train,
                                           const std::vector<CycleText> &eval, const StopToken &stop) const
{
    fs::create_directories(dir / "data");
    writeTexts(dir / "data" / "train.csv", train);
    // Without eval texts the run evaluates on its training texts (the curve gets no point then).
    writeTexts(dir / "data" / "dev.csv", eval.empty() ? train : eval);
    PrepareOptions p;
    p.input_data_dir = (dir / "data").string();
    p.classification_task_name = "csv";
    p.vocab_file = settings.vocab_file;
    p.do_lower_case = settings.do_lower_case;
    p.max_seq_length = settings.max_seq_length;
    p.label_list = joined(settings.label_names);
    p.seed = uint64_t(settings.seed);
    p.output_dir = (dir / "prepared").string();
    p.num_threads = 1;
    p.bag_of_words_baseline = !eval.empty();
    p.problem_type = "single_label_classification";
    return prepareData(p, {}, &stop);
}

TrainingOptions LabelCycle::Private::trainOptions(const fs::path &dir, int64_t trainTexts) const
{
    const LabelCycleSettings &s = settings;
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.bert_config_file = s.bert_config_file;
    o.input_meta_data_path = (dir / "prepared" / "input_meta_data.json").string();
    o.train_data_path = (dir / "prepared" / "train.tf_record").string();
    o.eval_data_path = (dir / "prepared" / "eval.tf_record").string();
    o.init_checkpoint = s.init_checkpoint;
    o.vocab_file = s.vocab_file;
    o.do_lower_case = s.do_lower_case ? "true" : "false";
    o.model_dir = (dir / "run").string();
    // A batch no larger than the labels (the engine needs at least one step per epoch).
    o.train_batch_size = std::max<int64_t>(1, std::min(s.train_batch_size, trainTexts));
    o.eval_batch_size = 64;
    o.learning_rate = s.learning_rate;
    const int64_t epochsForSteps = (s.min_steps * o.train_batch_size + trainTexts - 1) / std::max<int64_t>(trainTexts, 1);
    o.num_train_epochs = std::max(s.min_epochs, epochsForSteps);
    o.num_eval_per_epoch = 1;
    o.seed = s.seed;
    o.num_threads = s.num_threads;
    o.keep_checkpoint_max = 1;
    o.log_steps = 0;
    o.save_embeddings = false;
    o.record_training_dynamics = false;
    return o;
}

void LabelCycle::Private::score(const std::string &modelDir, CycleResult &r, const CycleProgress &progress) const
{
    ClassifierSource src;
    src.model_dir = modelDir;
    const TextClassifier classifier(src);
    const int64_t n = int64_t(ids.size()), L = classifier.numLabels();
    r.scores.n = n;
    r.scores.num_labels = L;
    r.scores.probabilities.reserve(size_t(n * L));
    const int64_t B = settings.score_batch_size;
    for (int64_t from = 0; from < n; from += B) {
        const int64_t b = std::min(B, n - from);
        size_t width = 1; // padded to the batch's longest text: the attention mask hides the rest
        for (int64_t k = 0; k < b; ++k)
            width = std::max(width, ids[size_t(from + k)].size());
        std::vector<int64_t> tIds(size_t(b) * width, 0), tMask(tIds.size(), 0), tSegs(tIds.size(), 0);
        for (int64_t k = 0; k < b; ++k) {
            const auto &row = ids[size_t(from + k)];
            std::copy(row.begin(), row.end(), tIds.begin() + long(size_t(k) * width));
            std::fill_n(tMask.begin() + long(size_t(k) * width), row.size(), 1);
            const auto &seg = segments[size_t(from + k)];
            std::copy(seg.begin(), seg.end(), tSegs.begin() + long(size_t(k) * width));
        }
        std::vector<float> pooled;
        const std::vector<float> probs = classifier.probabilitiesOf(tIds, tMask, tSegs, b, &pooled);
        r.scores.probabilities.insert(r.scores.probabilities.end(), probs.begin(), probs.end());
        r.scores.dim = int64_t(pooled.size()) / b;
        r.scores.embeddings.insert(r.scores.embeddings.end(), pooled.begin(), pooled.end());
        if (progress)
            progress("scoring", double(from + b) / double(n));
    }
    r.predicted.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) {
        const float *p = r.scores.probabilities.data() + i * L;
        r.predicted[size_t(i)] = int64_t(std::max_element(p, p + L) - p);
    }
}

CycleResult LabelCycle::run(const std::string &cycle_dir, const std::vector<CycleText> &train,
                            const std::vector<CycleText> &eval, const StopToken &stop, const CycleProgress &progress)
{
    d->checkLabels(train);
    const fs::path dir(cycle_dir);
    std::error_code ec;
    fs::remove_all(dir, ec);
    CycleResult r;
    r.cycle_dir = cycle_dir;
    r.model_dir = (dir / "run").string();
    r.train_texts = int64_t(train.size());
    r.eval_texts = int64_t(eval.size());
    if (progress)
        progress("preparing", 0);
    auto t0 = std::chrono::steady_clock::now();
    const PrepareReport report = d->prepare(dir, train, eval, stop);
    if (!eval.empty() && report.bag_of_words && report.bag_of_words->error.empty())
        r.bag_of_words_accuracy = report.bag_of_words->eval_accuracy;
    r.seconds_prepare = secondsSince(t0);

    t0 = std::chrono::steady_clock::now();
    const TrainingOptions options = d->trainOptions(dir, r.train_texts);
    const int64_t stepsPerEpoch = (r.train_texts + options.train_batch_size - 1) / options.train_batch_size;
    CycleObserver observer(progress, stepsPerEpoch * options.num_train_epochs);
    const RunFinished end = Trainer().run(options, observer, stop);
    if (end.status == RunStatus::Cancelled || stop.stopRequested())
        throw Error("label cycle", "cancelled", "");
    if (end.status != RunStatus::Completed)
        throw Error(end.field.empty() ? r.model_dir : end.field, "the cycle's training failed: " + end.message, end.hint);
    if (!eval.empty())
        r.eval_accuracy = observer.accuracy;
    r.seconds_train = secondsSince(t0);

    t0 = std::chrono::steady_clock::now();
    if (d->settings.rescore_pool)
        d->score(r.model_dir, r, progress);
    r.seconds_score = secondsSince(t0);
    return r;
}

} // namespace wb
