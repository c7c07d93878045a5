// SPDX-License-Identifier: Apache-2.0
// One cycle of label to learn: prepare the labels, train, rescore the pool (labelcycle.h).
#include "core/learn/labelcycle.h"

#include "core/advice/runfacts.h"
#include "core/config/learningrates.h"
#include "core/config/trainingoptions.h"
#include "core/events/stoptoken.h"
#include "core/events/trainingobserver.h"
#include "core/infer/textclassifier.h"
#include "core/label/labelstore.h"
#include "core/launch/trainer.h"
#include "core/data/examplecodec.h"
#include "core/prepare/bagofwords.h"
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
#include <unordered_map>

namespace wb {

namespace fs = std::filesystem;

namespace {

/// The label loop's rate from random weights (docs/label-to-learn.md, "One cycle": BERT-Tiny,
/// 100 steps at 1e-3, learned the spam mails from 10 labels on, and no cycle failed).
constexpr double kLabelLoopLearningRate = 1e-3;

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

private:
    const CycleProgress &m_progress;
    int64_t m_total;
};

/// The texts as a CSV prepare reads, each `copies` times.
void writeTexts(const fs::path &path, const std::vector<CycleText> &texts, int64_t copies = 1)
{
    std::vector<PoolLabel> rows;
    rows.reserve(texts.size() * size_t(copies));
    for (int64_t c = 0; c < copies; ++c)
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

/// A text's features as prepare builds them, without the padding.
struct TextFeatures
{
    std::vector<int64_t> ids, segments;
};

struct LabelCycle::Private
{
    LabelCycleSettings settings;
    std::unique_ptr<FullTokenizer> tokenizer;
    int32_t cls = 0, sep = 0;
    std::vector<TextFeatures> pool;
    std::unordered_map<std::string, TextFeatures> seen; ///< eval and train texts, by text

    TextFeatures features(const std::string &text) const;
    const TextFeatures &cached(const std::string &text);
    void checkLabels(const std::vector<CycleText> &train) const;
    int64_t labelId(const std::string &label) const;
    PrepareReport prepare(const fs::path &dir, const std::vector<CycleText> &train, const StopToken &stop) const;
    int64_t passes(int64_t trainTexts) const;
    TrainingOptions trainOptions(const fs::path &dir, int64_t trainTexts) const;
    void baseline(const std::vector<CycleText> &train, const std::vector<CycleText> &eval, CycleResult &r,
                  const StopToken &stop);
    std::vector<float> probabilities(const TextClassifier &classifier, const std::vector<const TextFeatures *> &texts,
                                     std::vector<float> *pooled, const CycleProgress &progress) const;
    void score(const std::string &modelDir, const std::vector<CycleText> &eval, CycleResult &r,
               const CycleProgress &progress);
};

TextFeatures LabelCycle::Private::features(const std::string &text) const
{
    ExampleFeatures f;
    buildExampleFeatures(*tokenizer, text, {}, false, settings.max_seq_length, cls, sep, size_t(settings.max_seq_length), f);
    size_t len = 0;
    while (len < f.input_mask.size() && f.input_mask[len] != 0)
        ++len;
    return {{f.input_ids.begin(), f.input_ids.begin() + long(len)},
            {f.segment_ids.begin(), f.segment_ids.begin() + long(len)}};
}

const TextFeatures &LabelCycle::Private::cached(const std::string &text)
{
    auto it = seen.find(text);
    if (it == seen.end())
        it = seen.emplace(text, features(text)).first;
    return it->second;
}

int64_t LabelCycle::Private::labelId(const std::string &label) const
{
    return int64_t(std::find(settings.label_names.begin(), settings.label_names.end(), label)
                   - settings.label_names.begin());
}

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
        || !(s.learning_rate >= 0))
        throw Error("label cycle", "max_seq_length >= 2, batch sizes >= 1, min_epochs >= 1 and a learning_rate "
                                   ">= 0 (0: by the start) are needed",
                    "fix the session's settings");
    d->tokenizer = std::make_unique<FullTokenizer>(s.vocab_file, s.do_lower_case);
    d->cls = d->tokenizer->vocab().id("[CLS]");
    d->sep = d->tokenizer->vocab().id("[SEP]");
    d->pool.reserve(pool.size());
    for (const std::string &text : pool)
        d->pool.push_back(d->features(text));
}

LabelCycle::~LabelCycle() = default;

int64_t LabelCycle::poolSize() const { return int64_t(d->pool.size()); }

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
                                           const StopToken &stop) const
{
    fs::create_directories(dir / "data");
    writeTexts(dir / "data" / "train.csv", train, passes(int64_t(train.size())));
    writeTexts(dir / "data" / "dev.csv", train); // the run evaluates on its own labels (see the header)
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
    p.bag_of_words_baseline = false; // fitted below on the eval texts
    p.problem_type = "single_label_classification";
    return prepareData(p, {}, &stop);
}

void LabelCycle::Private::baseline(const std::vector<CycleText> &train, const std::vector<CycleText> &eval,
                                   CycleResult &r, const StopToken &stop)
{
    auto docs = [this](const std::vector<CycleText> &texts) {
        std::vector<BagOfWordsDocument> out;
        for (const CycleText &t : texts) {
            const TextFeatures &f = cached(t.text);
            ClassifierRecord record;
            record.input_ids = f.ids;
            record.input_mask.assign(f.ids.size(), 1);
            record.segment_ids = f.segments;
            out.push_back({bagOfWordsTerms(record), labelId(t.label)});
        }
        return out;
    };
    const BagOfWordsBaseline b =
        fitBagOfWordsBaseline(docs(train), docs(eval), int64_t(settings.label_names.size()), {}, &stop);
    if (b.fitted())
        r.bag_of_words_accuracy = b.eval_accuracy;
}

int64_t LabelCycle::Private::passes(int64_t trainTexts) const
{
    const int64_t batch = std::max<int64_t>(1, std::min(settings.train_batch_size, trainTexts));
    return std::max(settings.min_epochs, (settings.min_steps * batch + trainTexts - 1) / std::max<int64_t>(trainTexts, 1));
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
    if (s.learning_rate > 0) {
        o.learning_rate = s.learning_rate;
    } else {
        const WeightsStart start = weightsStartOf(o);
        o.learning_rate = start == WeightsStart::Random            ? kLabelLoopLearningRate
                          : start == WeightsStart::OwnPretraining ? learningRateRange(start)->suggest
                                                                  : kPretrainedLearningRate;
    }
    o.num_train_epochs = 1; // of a train file holding passes(trainTexts) copies of each label
    o.num_eval_per_epoch = 1;
    o.seed = s.seed;
    o.num_threads = s.num_threads;
    o.keep_checkpoint_max = 1;
    o.log_steps = 0;
    o.save_embeddings = false;
    o.record_training_dynamics = false;
    o.padding = "longest"; // a cycle's wait is the user's: short texts train at their own length
    return o;
}

std::vector<float> LabelCycle::Private::probabilities(const TextClassifier &classifier,
                                                      const std::vector<const TextFeatures *> &texts,
                                                      std::vector<float> *pooled, const CycleProgress &progress) const
{
    std::vector<float> out;
    const int64_t n = int64_t(texts.size()), B = settings.score_batch_size;
    for (int64_t from = 0; from < n; from += B) {
        const int64_t b = std::min(B, n - from);
        size_t width = 1; // padded to the batch's longest text: the attention mask hides the rest
        for (int64_t k = 0; k < b; ++k)
            width = std::max(width, texts[size_t(from + k)]->ids.size());
        std::vector<int64_t> tIds(size_t(b) * width, 0), tMask(tIds.size(), 0), tSegs(tIds.size(), 0);
        for (int64_t k = 0; k < b; ++k) {
            const TextFeatures &f = *texts[size_t(from + k)];
            const long at = long(size_t(k) * width);
            std::copy(f.ids.begin(), f.ids.end(), tIds.begin() + at);
            std::fill_n(tMask.begin() + at, f.ids.size(), 1);
            std::copy(f.segments.begin(), f.segments.end(), tSegs.begin() + at);
        }
        std::vector<float> rows;
        const std::vector<float> probs = classifier.probabilitiesOf(tIds, tMask, tSegs, b, pooled ? &rows : nullptr);
        out.insert(out.end(), probs.begin(), probs.end());
        if (pooled)
            pooled->insert(pooled->end(), rows.begin(), rows.end());
        if (progress)
            progress("scoring", double(from + b) / double(n));
    }
    return out;
}

void LabelCycle::Private::score(const std::string &modelDir, const std::vector<CycleText> &eval, CycleResult &r,
                                const CycleProgress &progress)
{
    ClassifierSource src;
    src.model_dir = modelDir;
    const TextClassifier classifier(src);
    const int64_t L = classifier.numLabels();
    if (!eval.empty()) {
        std::vector<const TextFeatures *> texts;
        for (const CycleText &t : eval)
            texts.push_back(&cached(t.text));
        const std::vector<float> probs = probabilities(classifier, texts, nullptr, {});
        int64_t right = 0;
        for (size_t i = 0; i < eval.size(); ++i) {
            const float *p = probs.data() + int64_t(i) * L;
            right += int64_t(std::max_element(p, p + L) - p) == labelId(eval[i].label) ? 1 : 0;
        }
        r.eval_accuracy = double(right) / double(eval.size());
    }
    if (!settings.rescore_pool)
        return;
    std::vector<const TextFeatures *> texts;
    for (const TextFeatures &f : pool)
        texts.push_back(&f);
    const int64_t n = int64_t(pool.size());
    r.scores.n = n;
    r.scores.num_labels = L;
    r.scores.probabilities = probabilities(classifier, texts, &r.scores.embeddings, progress);
    r.scores.dim = n > 0 ? int64_t(r.scores.embeddings.size()) / n : 0;
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
    d->prepare(dir, train, stop);
    r.seconds_prepare = secondsSince(t0);

    t0 = std::chrono::steady_clock::now();
    const TrainingOptions options = d->trainOptions(dir, r.train_texts);
    CycleObserver observer(progress, r.train_texts * d->passes(r.train_texts) / options.train_batch_size);
    const RunFinished end = Trainer().run(options, observer, stop);
    if (end.status == RunStatus::Cancelled || stop.stopRequested())
        throw Error("label cycle", "cancelled", "");
    if (end.status != RunStatus::Completed)
        throw Error(end.field.empty() ? r.model_dir : end.field, "the cycle's training failed: " + end.message, end.hint);
    r.seconds_train = secondsSince(t0);

    t0 = std::chrono::steady_clock::now();
    if (!eval.empty())
        d->baseline(train, eval, r, stop);
    r.seconds_baseline = secondsSince(t0);

    t0 = std::chrono::steady_clock::now();
    d->score(r.model_dir, eval, r, progress);
    r.seconds_score = secondsSince(t0);
    return r;
}

} // namespace wb
