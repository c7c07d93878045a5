// SPDX-License-Identifier: Apache-2.0
#include "core/corpus/pretraininglesson.h"

#include "core/config/jsonfile.h"
#include "core/config/learningrates.h"
#include "core/config/optionwords.h"
#include "core/prepare/emailbody.h"
#include "core/data/examplecodec.h"
#include "core/prepare/preparereport.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/preparesplit.h"
#include "core/corpus/pretrainingdata.h"
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"
#include "core/events/stoptoken.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>

namespace wb {

namespace fs = std::filesystem;

namespace {

void checkStop(const StopToken *stop)
{
    if (stop && stop->stopRequested())
        throw Error("example", "stopped by the user", "start the lesson again to prepare it anew");
}

// Deterministic in-place shuffle (std::shuffle's algorithm is implementation-defined).
void shuffleSeeded(std::vector<int64_t> &v, std::mt19937_64 &rng)
{
    for (size_t i = v.size(); i > 1; --i)
        std::swap(v[i - 1], v[size_t(rng() % i)]);
}

} // namespace

int64_t writeMailCorpusJsonl(const std::string &corpusDir, const std::string &path,
                             const std::set<std::string> &leaveOut, int64_t *leftOut)
{
    int64_t skipped = 0;
    std::error_code ec;
    if (!fs::is_directory(corpusDir, ec))
        throw Error(corpusDir, "is not a folder", "Pass the folder that holds one sub-folder of mails per label.");
    const std::vector<fs::path> labelDirs = prep::labelFolders(corpusDir); // as prepare reads the folders
    const std::string tmp = path + ".tmp";
    fs::create_directories(fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path());
    int64_t n = 0;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error(tmp, "cannot write the corpus file", "Choose a writable " + optionName("output_dir") + ".");
        for (const fs::path &ld : labelDirs) {
            for (const std::string &f : prep::labelFolderFiles(ld)) {
                if (!leaveOut.empty()
                    && leaveOut.count(fs::path(f).lexically_relative(corpusDir).generic_string()) > 0) {
                    ++skipped;
                    continue;
                }
                std::string bytes = prep::readWholeFile(f);
                if (bytes.compare(0, 3, "\xEF\xBB\xBF") == 0)
                    bytes.erase(0, 3);
                bool latin1 = false; // the body only, as the example's classifier (prepare --email_body_only)
                std::string text = prep::toUtf8(emailBody(bytes), latin1);
                text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
                out << nlohmann::json{{"text", text}}.dump() << '\n';
                ++n;
            }
        }
        if (!out.flush()) {
            fs::remove(tmp, ec);
            throw Error(tmp, "cannot write the corpus file (disk full?)");
        }
    }
    if (n == 0) {
        fs::remove(tmp, ec);
        throw Error(corpusDir, "holds no mails (no files in its label folders)",
                    "Pass the folder that holds one sub-folder of mails per label.");
    }
    commitFileAtomic(tmp, path);
    if (leftOut)
        *leftOut = skipped;
    return n;
}

std::vector<int64_t> selectLabelledSubset(const std::vector<int64_t> &labels, int64_t count, uint64_t seed)
{
    int64_t numLabels = 0;
    for (int64_t l : labels)
        numLabels = std::max(numLabels, l + 1);
    std::vector<std::vector<int64_t>> byLabel(size_t(std::max<int64_t>(numLabels, 0)));
    for (size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= 0)
            byLabel[size_t(labels[i])].push_back(int64_t(i));
    int64_t present = 0, total = 0;
    for (const auto &rows : byLabel) {
        present += rows.empty() ? 0 : 1;
        total += int64_t(rows.size());
    }
    if (count > total)
        throw Error("num_labelled", "asks for " + std::to_string(count) + " labelled rows, the training set has "
                                        + std::to_string(total),
                    "Ask for at most " + std::to_string(total) + ".");
    if (count < present)
        throw Error("num_labelled", "asks for " + std::to_string(count) + " labelled rows, fewer than the "
                                        + std::to_string(present) + " labels present",
                    "Ask for at least one row per label.");
    // Largest-remainder apportionment of `count` by the labels' shares, at least 1 each.
    std::vector<int64_t> take(byLabel.size(), 0);
    std::vector<std::pair<double, size_t>> remainders;
    int64_t given = 0;
    for (size_t k = 0; k < byLabel.size(); ++k) {
        if (byLabel[k].empty())
            continue;
        const double exact = double(count) * double(byLabel[k].size()) / double(total);
        take[k] = std::max<int64_t>(1, int64_t(std::floor(exact)));
        remainders.push_back({exact - std::floor(exact), k});
        given += take[k];
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    for (size_t r = 0; given < count; r = (r + 1) % remainders.size()) {
        const size_t k = remainders[r].second;
        if (take[k] < int64_t(byLabel[k].size())) {
            ++take[k];
            ++given;
        }
    }
    while (given > count) { // the minimum of 1 overshot: take back from the largest
        const size_t k = size_t(std::max_element(take.begin(), take.end()) - take.begin());
        --take[k];
        --given;
    }
    std::mt19937_64 rng(seed);
    std::vector<int64_t> out;
    for (size_t k = 0; k < byLabel.size(); ++k) {
        std::vector<int64_t> rows = byLabel[k];
        shuffleSeeded(rows, rng);
        out.insert(out.end(), rows.begin(), rows.begin() + take[k]);
    }
    shuffleSeeded(out, rng);
    return out;
}

namespace {

/// (a) The masked-LM pretraining data of the lesson's corpus file (d.corpus_file, d.corpus_documents
/// set): into <output_dir>/pretraining-data, sets d.pretraining_dir.
void prepareLessonPretrainingData(const PretrainingLessonOptions &o, const fs::path &out, PretrainingLessonData &d,
                                  const StopToken *stop)
{
    PretrainingDataOptions po;
    po.input_files = {d.corpus_file};
    po.input_format = "jsonl";
    po.text_column = "text";
    po.vocab_file = o.vocab_file;
    po.do_lower_case = o.do_lower_case;
    po.max_seq_length = o.max_seq_length;
    po.max_predictions_per_seq = std::min<int64_t>(20, maxUsefulPredictionsPerSeq(o.max_seq_length, 0.15));
    po.output_dir = d.pretraining_dir = (out / "pretraining-data").string();
    po.num_threads = o.num_threads;
    // About 60 mails (1 % of the example's, some 600 sequences: an evaluation takes seconds,
    // not minutes), at most 10 % of a small corpus.
    po.eval_fraction = std::min(0.1, 60.0 / double(d.corpus_documents));
    preparePretrainingData(po, {}, stop);
}

/// (b) The labelled data as the example prepares it: into <output_dir>/labelled, sets
/// d.labelled_dir and d.eval_data_path.
PrepareReport prepareLessonLabelledData(const PretrainingLessonOptions &o, const fs::path &out,
                                        PretrainingLessonData &d, const StopToken *stop)
{
    PrepareOptions lo;
    lo.input_data_dir = o.corpus_dir;
    lo.vocab_file = o.vocab_file;
    lo.do_lower_case = o.do_lower_case;
    lo.max_seq_length = o.max_seq_length;
    lo.classification_task_name = "folders";
    lo.output_dir = d.labelled_dir = (out / "labelled").string();
    lo.eval_fraction = 0.1;
    lo.email_body_only = true; // as the example and the corpus read the mails
    lo.seed = o.subset_seed;
    lo.num_threads = o.num_threads;
    lo.bag_of_words_baseline = false;
    const PrepareReport lrep = prepareData(lo, {}, stop);
    d.eval_data_path = lrep.eval_path;
    return lrep;
}

/// The files split.jsonl at `path` puts in eval ("label/name"), read by prepare's own reader
/// (readSplitFile, whose keys are splitKey(file, line): a folder file's line is 0).
std::set<std::string> evalFilesOf(const std::string &path)
{
    std::set<std::string> files;
    for (const auto &[key, eval] : prep::readSplitFile(path))
        if (eval)
            files.insert(key.substr(0, key.find('\x1f')));
    return files;
}

/// The labelled data's input_meta_data.json as an object; wb::Error naming the file otherwise.
nlohmann::ordered_json readLessonMeta(const std::string &metaPath)
{
    std::ifstream in(metaPath);
    nlohmann::ordered_json meta = nlohmann::ordered_json::parse(in, nullptr, false);
    if (meta.is_discarded() || !meta.is_object())
        throw Error(metaPath, "is not a JSON object", "Prepare the labelled data again.");
    return meta;
}

/// The subset of o.num_labelled training rows (selectLabelledSubset) written to
/// <output_dir>/labels-N: train.tf_record, labels.txt where the labelled data has one, and
/// input_meta_data.json with its train_data_size. Sets d.subset_rows, d.subset_per_label and
/// d.subset_dir.
void writeLabelledSubset(const PretrainingLessonOptions &o, const fs::path &out, const PrepareReport &lrep,
                         PretrainingLessonData &d)
{
    nlohmann::ordered_json meta = readLessonMeta(lrep.meta_path);
    RecordSpec spec;
    spec.max_seq_length = o.max_seq_length;
    spec.num_labels = meta.value("num_labels", int64_t(2));
    std::vector<std::string> payloads;
    std::vector<int64_t> labels;
    {
        TFRecordReader reader(lrep.train_path);
        std::string payload;
        ClassifierRecord r;
        while (reader.read(payload)) {
            decodeClassifierRecord(payload, spec, r);
            labels.push_back(r.label_id);
            payloads.push_back(payload);
        }
    }
    d.subset_rows = selectLabelledSubset(labels, o.num_labelled, o.subset_seed);
    d.subset_per_label.assign(size_t(spec.num_labels), 0);
    d.subset_dir = (out / ("labels-" + std::to_string(o.num_labelled))).string();
    fs::create_directories(d.subset_dir);
    {
        TFRecordWriter w((fs::path(d.subset_dir) / "train.tf_record").string());
        for (int64_t i : d.subset_rows) {
            w.write(payloads[size_t(i)]);
            ++d.subset_per_label[size_t(labels[size_t(i)])];
        }
        w.commit();
    }
    meta["train_data_size"] = int64_t(d.subset_rows.size());
    std::error_code ec;
    if (fs::is_regular_file(lrep.labels_path, ec)) {
        std::ifstream in(lrep.labels_path, std::ios::binary);
        writeFileAtomic((fs::path(d.subset_dir) / "labels.txt").string(),
                        std::string(std::istreambuf_iterator<char>(in), {}));
    }
    writeFileAtomic((fs::path(d.subset_dir) / "input_meta_data.json").string(), meta.dump(4) + "\n");
}

} // namespace

PretrainingLessonData preparePretrainingLesson(const PretrainingLessonOptions &o, const PrepareProgress &progress,
                                               const StopToken *stop)
{
    if (o.output_dir.empty())
        throw Error("output_dir", "no output folder was given",
                    PassOption("output_dir", "<folder>") + " for the lesson's files.");
    if (o.num_labelled < 1)
        throw Error("num_labelled", "must be at least 1, got " + std::to_string(o.num_labelled), "The lesson uses 200.");
    auto say = [&](double f, const std::string &stage) {
        if (progress)
            progress(f, stage);
    };
    PretrainingLessonData d;
    const fs::path out(o.output_dir);
    fs::create_directories(out);

    // (a) The labelled data as the example prepares it: its split says which mails are eval.
    say(0.0, "preparing the labelled data");
    const PrepareReport lrep = prepareLessonLabelledData(o, out, d, stop);
    checkStop(stop);

    // (b) The unlabelled corpus: every training mail's text, one document per mail; the eval
    // mails are left out (pretraining on the text the comparison is scored on would flatter it).
    say(0.4, "writing the unlabelled corpus");
    d.corpus_file = (out / "corpus.jsonl").string();
    d.corpus_documents =
        writeMailCorpusJsonl(o.corpus_dir, d.corpus_file, evalFilesOf(lrep.split_path), &d.corpus_left_out);
    checkStop(stop);

    say(0.5, "preparing the pretraining data");
    prepareLessonPretrainingData(o, out, d, stop);
    checkStop(stop);

    say(0.9, "choosing the labelled subset");
    writeLabelledSubset(o, out, lrep, d);
    say(1.0, "done");
    return d;
}

std::vector<PretrainingLessonRun> pretrainingLessonRuns(const PretrainingLessonOptions &o,
                                                        const PretrainingLessonData &d)
{
    const fs::path runsDir = fs::path(o.output_dir) / "runs";
    TrainingOptions base;
    base.distribution_strategy = "one_device";
    base.bert_config_file = o.bert_config_file;
    base.vocab_file = o.vocab_file;
    base.do_lower_case = o.do_lower_case ? "true" : "false";
    base.seed = o.seed;
    base.keep_checkpoint_max = 1;

    PretrainingLessonRun pre{"pretrain", true, base};
    pre.options.input_meta_data_path = (fs::path(d.pretraining_dir) / "input_meta_data.json").string();
    pre.options.train_data_path = (fs::path(d.pretraining_dir) / "train.tf_record").string();
    pre.options.eval_data_path = (fs::path(d.pretraining_dir) / "eval.tf_record").string();
    pre.options.model_dir = (runsDir / "pretrain").string();
    pre.options.num_train_epochs = o.pretrain_epochs;
    pre.options.train_batch_size = pre.options.eval_batch_size = o.pretrain_batch_size;
    pre.options.learning_rate = o.pretrain_learning_rate;
    // Four evaluations per epoch; train_data_size caps each interval (run_classifier's
    // schedule: num_eval_per_epoch "epochs" of train_data_size / num_eval_per_epoch).
    pre.options.num_eval_per_epoch = 4;
    if (o.pretrain_sequences > 0)
        pre.options.train_data_size = std::max<int64_t>(1, o.pretrain_sequences / pre.options.num_eval_per_epoch);

    PretrainingLessonRun fineTune{"", false, base};
    fineTune.options.input_meta_data_path = (fs::path(d.subset_dir) / "input_meta_data.json").string();
    fineTune.options.train_data_path = (fs::path(d.subset_dir) / "train.tf_record").string();
    fineTune.options.eval_data_path = d.eval_data_path;
    fineTune.options.train_batch_size = o.finetune_batch_size;
    fineTune.options.num_train_epochs = o.finetune_epochs;
    if (o.finetune_learning_rate > 0) // both starts at one rate; else each start's own default
        fineTune.options.learning_rate = o.finetune_learning_rate;
    std::vector<PretrainingLessonRun> runs{pre};
    for (int64_t k = 0; k < std::max<int64_t>(1, o.num_seeds); ++k) {
        const int64_t seed = o.seed + k;
        for (const bool fromPretraining : {true, false}) {
            PretrainingLessonRun r = fineTune;
            r.name = std::string(fromPretraining ? "finetune-pretrained" : "finetune-random") + "-seed-"
                     + std::to_string(seed);
            r.options.seed = seed;
            if (fromPretraining)
                r.options.init_checkpoint = pre.options.model_dir;
            r.options.model_dir = (runsDir / r.name).string();
            runs.push_back(std::move(r));
        }
    }
    return runs;
}

double lessonMajorityShare(const std::string &evalDataPath)
{
    try {
        const auto report = readPrepareReport((fs::path(evalDataPath).parent_path() / "input_meta_data.json").string());
        if (!report)
            return std::numeric_limits<double>::quiet_NaN();
        const std::vector<int64_t> counts = evalCountsByLabelId(*report);
        int64_t total = 0, top = 0;
        for (int64_t c : counts) {
            total += c;
            top = std::max(top, c);
        }
        return total > 0 ? double(top) / double(total) : std::numeric_limits<double>::quiet_NaN();
    } catch (...) {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string pretrainingLessonVerdict(const std::vector<double> &pretrained, const std::vector<double> &random,
                                     double ratePretrained, double rateRandom, double majorityShare)
{
    if (pretrained.empty() || random.empty())
        return {};
    struct Spread
    {
        double mean = 0, low = 0, high = 0;
    };
    const auto spread = [](const std::vector<double> &v) {
        Spread s{0, *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
        for (double x : v)
            s.mean += x / double(v.size());
        return s;
    };
    const auto number = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3f", v);
        return std::string(buf);
    };
    const Spread p = spread(pretrained), r = spread(random);
    const auto words = [&number](const char *name, const Spread &s, size_t n) {
        return std::string(name) + ": eval_accuracy " + number(s.mean) + " (mean of " + std::to_string(n) + " seed"
               + (n == 1 ? "" : "s") + (n > 1 ? ", " + number(s.low) + " to " + number(s.high) : std::string()) + ")";
    };
    // A start that ended at the majority share everywhere answered the majority label: it did not learn.
    const auto constant = [majorityShare](const Spread &s) {
        return std::isfinite(majorityShare) && s.high <= majorityShare + 0.005;
    };
    // A start that did not learn is named, with its rate; both not learning is the verdict itself.
    const bool bothConstant = constant(p) && constant(r);
    std::string notLearned;
    for (const auto &[name, s, rate] : {std::tuple{"From the pretraining", p, ratePretrained},
                                        std::tuple{"From random weights", r, rateRandom}})
        if (constant(s) && !bothConstant)
            notLearned += std::string(" ") + name + ", every seed answered the majority label (" + number(majorityShare)
                          + " of the eval set is that label): it did not learn at learning_rate " + rateWords(rate)
                          + ", so this comparison says more about the rate than about pretraining; compare at a rate "
                            "that suits both (Find Learning Rate).";
    const double difference = p.mean - r.mean;
    const double seedSpread = std::max(p.high - p.low, r.high - r.low);
    char diff[32];
    std::snprintf(diff, sizeof diff, "%+.1f", 100.0 * difference);
    std::string verdict;
    if (bothConstant)
        verdict = "neither start learned: every seed of both answered the majority label (" + number(majorityShare)
                  + " of the eval set is that label), so this comparison says nothing about pretraining; compare at "
                    "a rate that suits both (Find Learning Rate), or with more labels or epochs";
    else if (pretrained.size() < 2 || random.size() < 2)
        verdict = "one seed cannot tell a difference from what the seed alone moves: run more seeds";
    else if (std::abs(difference) <= seedSpread)
        verdict = "the difference is within what the seed alone moves (up to " + number(seedSpread)
                  + "): on this data, this little pretraining did not clearly help";
    else
        verdict = difference > 0 ? "pretraining helped: more than the seed alone moves (up to " + number(seedSpread) + ")"
                                 : "pretraining did worse, by more than the seed alone moves (up to "
                                       + number(seedSpread) + ")";
    return words("from the pretraining", p, pretrained.size()) + "; " + words("from random weights", r, random.size())
           + "; difference " + diff + " points, " + verdict
           + (ratePretrained == rateRandom
                  ? ". Both started at learning_rate " + rateWords(ratePretrained)
                        + " with the same labels, eval set, epochs and seeds: only the start differs."
                  : ". The same labels, eval set, epochs and seeds; the learning rates differ, each its start's "
                    "usual one (" + rateWords(ratePretrained) + " after the pretraining, " + rateWords(rateRandom)
                        + " from random weights): the start and its rate differ.")
           + notLearned;
}

} // namespace wb
