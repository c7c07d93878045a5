// SPDX-License-Identifier: Apache-2.0
#include "core/data/classifierdataset.h"

#include "core/config/optionwords.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

namespace wb {

namespace {

constexpr size_t kQueueBatches = 4; // prefetch depth (batches)

/// What a file list's names are trimmed of: blanks and line ends (\v and \f are kept).
constexpr std::string_view kListBlanks = " \t\n\r";

bool hasGlobChars(const std::string &s)
{
    return s.find_first_of("*?[") != std::string::npos;
}

// Thrown inside the producer when the consumer asked it to stop.
struct Stopped
{
};

} // namespace

namespace {

bool isFile(const std::string &path, bool &isDir)
{
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        return false;
    isDir = S_ISDIR(st.st_mode);
    return true;
}

// Splits a comma-separated list; "\," is a comma inside a name.
std::vector<std::string> splitList(const std::string &spec)
{
    std::vector<std::string> pieces(1);
    for (size_t i = 0; i < spec.size(); ++i) {
        if (spec[i] == '\\' && i + 1 < spec.size() && spec[i + 1] == ',') {
            pieces.back().push_back(',');
            ++i;
        } else if (spec[i] == ',') {
            pieces.emplace_back();
        } else {
            pieces.back().push_back(spec[i]);
        }
    }
    return pieces;
}

const char *const kEscapeHint =
    "Check the folder and the file names (TFRecord files are usually named *.tf_record). A path that exists is "
    "taken as written; in a pattern write \\[ \\] \\* \\? for a literal [ ] * ? (or [[] [*] [?]), and \\, "
    "for a comma inside a comma-separated list.";

} // namespace

std::vector<std::string> expandFilePattern(const std::string &spec)
{
    // A path that exists as written is taken literally, even with [ ] * ? or commas in it.
    bool isDir = false;
    const std::string whole = trimmed(spec, kListBlanks);
    if (!whole.empty() && isFile(whole, isDir) && !isDir)
        return {whole};
    std::vector<std::string> files;
    bool any = false;
    for (const std::string &raw : splitList(spec)) {
        const std::string piece = trimmed(raw, kListBlanks);
        if (piece.empty())
            continue;
        any = true;
        if (isFile(piece, isDir) && !isDir) {
            files.push_back(piece);
        } else if (hasGlobChars(piece)) {
            glob_t g{};
            const int rc = ::glob(piece.c_str(), 0, nullptr, &g);
            std::vector<std::string> matched;
            for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) {
                struct stat st{};
                if (::stat(g.gl_pathv[i], &st) == 0 && !S_ISDIR(st.st_mode))
                    matched.emplace_back(g.gl_pathv[i]);
            }
            globfree(&g);
            if (matched.empty())
                throw Error(piece, "the pattern matches no files", kEscapeHint);
            std::sort(matched.begin(), matched.end());
            files.insert(files.end(), matched.begin(), matched.end());
        } else {
            if (!isFile(piece, isDir))
                throw Error(piece, "the data file does not exist",
                            "Check the path, or run " + commandName("prepare") + " to create TFRecord files from raw text.");
            throw Error(piece, "is a directory, not a TFRecord file",
                        "Name the file, or use a glob such as " + piece + "/*.tf_record.");
        }
    }
    if (!any)
        throw Error("data path", "no data file given", "Pass a TFRecord file, a glob or a comma-separated list.");
    return files;
}

struct ClassifierDataset::Private
{
    DatasetOptions o;
    RecordSpec spec;
    std::vector<std::string> files;

    std::thread thread;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<ClassifierBatch> queue;
    bool started = false;
    bool done = false;
    bool stop = false;
    std::exception_ptr error;

    ClassifierBatch current;

    void startThread()
    {
        done = stop = false;
        error = nullptr;
        queue.clear();
        started = true;
        thread = std::thread([this] { run(); });
    }

    void stopThread()
    {
        {
            std::lock_guard<std::mutex> lock(mu);
            stop = true;
        }
        cv.notify_all();
        if (thread.joinable())
            thread.join();
        started = false;
    }

    void newBatch()
    {
        current = ClassifierBatch{};
        current.seq_length = o.max_seq_length;
        const size_t n = size_t(o.batch_size * o.max_seq_length);
        current.input_ids.reserve(n);
        current.input_mask.reserve(n);
        current.segment_ids.reserve(n);
    }

    void pushBatch()
    {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stop || queue.size() < kQueueBatches; });
        if (stop)
            throw Stopped{};
        queue.push_back(std::move(current));
        lock.unlock();
        cv.notify_all();
        newBatch();
    }

    void emit(const ClassifierRecord &r, int64_t index)
    {
        current.record_indices.push_back(index);
        current.input_ids.insert(current.input_ids.end(), r.input_ids.begin(), r.input_ids.end());
        current.input_mask.insert(current.input_mask.end(), r.input_mask.begin(), r.input_mask.end());
        current.segment_ids.insert(current.segment_ids.end(), r.segment_ids.begin(), r.segment_ids.end());
        if (o.float_labels)
            current.label_values.push_back(r.label_value);
        else if (o.multi_label)
            current.label_sets.insert(current.label_sets.end(), r.label_set.begin(), r.label_set.end());
        else
            current.label_ids.push_back(r.label_id);
        if (r.weight)
            current.weights.push_back(*r.weight);
        if (o.teacher_outputs > 0) {
            current.teacher_logits.insert(current.teacher_logits.end(), r.teacher_logits.begin(), r.teacher_logits.end());
            current.has_label.push_back(float(r.has_label));
        }
        if (++current.size == o.batch_size)
            pushBatch();
    }

    // Reads one pass over the files; calls sink(record, record index) for each record of this shard.
    template <typename Sink>
    int64_t readPass(Sink &&sink)
    {
        int64_t global = 0, emitted = 0;
        ClassifierRecord rec;
        std::string payload;
        for (const std::string &file : files) {
            TFRecordReader reader(file);
            while (true) {
                if (o.take && global >= *o.take)
                    return emitted;
                {
                    std::lock_guard<std::mutex> lock(mu);
                    if (stop)
                        throw Stopped{};
                }
                const bool mine = global % o.num_shards == o.shard_index;
                if (!(mine ? reader.read(payload) : reader.skip(true)))
                    break;
                ++global;
                if (!mine)
                    continue;
                decodeClassifierRecordAt(reader, payload, spec, rec);
                sink(rec, global - 1);
                ++emitted;
            }
        }
        return emitted;
    }

    void run()
    {
        try {
            newBatch();
            if (!o.training) {
                readPass([&](const ClassifierRecord &r, int64_t i) { emit(r, i); });
                if (current.size > 0)
                    pushBatch();
            } else {
                std::mt19937_64 rng(o.seed);
                std::vector<std::pair<ClassifierRecord, int64_t>> buffer;
                buffer.reserve(size_t(o.shuffle_buffer));
                auto pick = [&]() -> size_t {
                    return std::uniform_int_distribution<size_t>(0, buffer.size() - 1)(rng);
                };
                while (true) {
                    const int64_t n = readPass([&](const ClassifierRecord &r, int64_t i) {
                        if (int64_t(buffer.size()) < o.shuffle_buffer) {
                            buffer.emplace_back(r, i);
                            return;
                        }
                        const size_t j = pick();
                        emit(buffer[j].first, buffer[j].second);
                        buffer[j] = {r, i};
                    });
                    if (n == 0)
                        throw Error(o.pattern, "the training data holds no records for this worker",
                                    "Check " + optionName("train_data_path") + " (and " + optionName("train_data_size")
                                        + " / the number of workers).");
                    // End of epoch: drain in random order (shuffle happens before repeat, as in TF).
                    while (!buffer.empty()) {
                        const size_t j = pick();
                        emit(buffer[j].first, buffer[j].second);
                        buffer[j] = std::move(buffer.back());
                        buffer.pop_back();
                    }
                }
            }
        } catch (const Stopped &) {
            return;
        } catch (...) {
            std::lock_guard<std::mutex> lock(mu);
            error = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lock(mu);
            done = true;
        }
        cv.notify_all();
    }
};

ClassifierDataset::ClassifierDataset(DatasetOptions options) : d(std::make_unique<Private>())
{
    d->o = std::move(options);
    const DatasetOptions &o = d->o;
    if (o.batch_size <= 0)
        throw Error("batch_size", "must be positive, got " + std::to_string(o.batch_size));
    if (o.max_seq_length <= 0)
        throw Error("max_seq_length", "must be positive, got " + std::to_string(o.max_seq_length));
    if (o.num_shards < 1 || o.shard_index < 0 || o.shard_index >= o.num_shards)
        throw Error("shard_index", "shard " + std::to_string(o.shard_index) + " of " + std::to_string(o.num_shards)
                                       + " is not a valid shard");
    if (o.shuffle_buffer < 1)
        throw Error("shuffle_buffer", "must be at least 1, got " + std::to_string(o.shuffle_buffer));
    d->spec.max_seq_length = o.max_seq_length;
    d->spec.num_labels = o.num_labels;
    d->spec.float_labels = o.float_labels;
    d->spec.multi_label = o.multi_label;
    d->spec.has_sample_weights = o.has_sample_weights;
    d->spec.teacher_outputs = o.teacher_outputs;
    d->spec.vocab_size = o.vocab_size;
    d->spec.type_vocab_size = o.type_vocab_size;
    d->files = expandFilePattern(o.pattern);
}

ClassifierDataset::~ClassifierDataset()
{
    d->stopThread();
}

bool ClassifierDataset::next(ClassifierBatch &batch)
{
    if (!d->started)
        d->startThread();
    std::unique_lock<std::mutex> lock(d->mu);
    d->cv.wait(lock, [&] { return !d->queue.empty() || d->done; });
    if (!d->queue.empty()) {
        batch = std::move(d->queue.front());
        d->queue.pop_front();
        lock.unlock();
        d->cv.notify_all();
        return true;
    }
    if (d->error)
        std::rethrow_exception(d->error);
    return false;
}

void ClassifierDataset::reset()
{
    d->stopThread();
}

const std::vector<std::string> &ClassifierDataset::files() const
{
    return d->files;
}

int64_t ClassifierDataset::countRecords() const
{
    int64_t n = 0;
    for (const std::string &f : d->files) {
        TFRecordReader reader(f);
        while (reader.skip(true))
            ++n;
    }
    return n;
}

} // namespace wb
