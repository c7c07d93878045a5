// SPDX-License-Identifier: Apache-2.0
// A labelling session's files (label_session.json, curve.jsonl) and what is shown next.
#include "core/label/labelsession.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"
#include "core/util/jsonnumber.h"
#include "core/util/uniquefd.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace wb {

using nlohmann::json;

const std::vector<std::string> &labelQueueStrategies()
{
    static const std::vector<std::string> names{"uncertain_diverse", "random"};
    return names;
}

std::string labelSessionPath(const std::string &dir) { return dir + "/label_session.json"; }
std::string labelSessionLabelsPath(const std::string &dir) { return dir + "/labels.csv"; }
std::string labelSessionCurvePath(const std::string &dir) { return dir + "/curve.jsonl"; }
std::string labelSessionCyclesDir(const std::string &dir) { return dir + "/cycles"; }

namespace {

void checkSettings(const LabelSessionSettings &s, const std::string &where)
{
    const auto &names = labelQueueStrategies();
    if (std::find(names.begin(), names.end(), s.strategy) == names.end())
        throw Error(where + ": strategy", "unknown order '" + s.strategy + "'",
                    "use uncertain_diverse (most useful first) or random");
    if (s.batch_size < 1)
        throw Error(where + ": batch_size", "must be at least 1 (labels between two models)", "use e.g. 10");
    if (!(s.held_out_fraction >= 0 && s.held_out_fraction < 1))
        throw Error(where + ": held_out_fraction", "must be in [0, 1)", "use e.g. 0.2");
    if (s.held_out_every < 0 || s.max_seq_length < 2)
        throw Error(where + (s.held_out_every < 0 ? ": held_out_every" : ": max_seq_length"),
                    "is out of range", "held_out_every >= 0 (0: never), max_seq_length >= 2");
    for (size_t i = 0; i < s.label_names.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (s.label_names[i] == s.label_names[j])
                throw Error(where + ": label_names", "the label '" + s.label_names[i] + "' is listed twice",
                            "give each label once");
}

template <class T>
void take(const json &j, const char *key, T &out, const std::string &where)
{
    if (!j.contains(key))
        return;
    try {
        out = j.at(key).get<T>();
    } catch (const json::exception &) {
        throw Error(where + ": " + key, "has the wrong type (" + std::string(j.at(key).type_name()) + ")",
                    "write it as label_session.json's documentation says (docs/label-to-learn.md)");
    }
}

double numberOrNaN(const json &j, const char *key, const std::string &where)
{
    if (!j.contains(key) || j.at(key).is_null())
        return std::nan("");
    if (!j.at(key).is_number())
        throw Error(where + ": " + key, "is not a number or null", "the file was not written by the workbench");
    return j.at(key).get<double>();
}

} // namespace

void writeLabelSession(const std::string &path, const LabelSessionSettings &s)
{
    checkSettings(s, path);
    const json j = {{"pool_path", s.pool_path},
                    {"text_column", s.text_column},
                    {"email_body_only", s.email_body_only},
                    {"label_names", s.label_names},
                    {"bert_config_file", s.bert_config_file},
                    {"init_checkpoint", s.init_checkpoint},
                    {"vocab_file", s.vocab_file},
                    {"do_lower_case", s.do_lower_case},
                    {"max_seq_length", s.max_seq_length},
                    {"batch_size", s.batch_size},
                    {"strategy", s.strategy},
                    {"seed", s.seed},
                    {"held_out_fraction", s.held_out_fraction},
                    {"held_out_every", s.held_out_every}};
    writeFileAtomic(path, j.dump(4) + "\n");
}

LabelSessionSettings readLabelSession(const std::string &path)
{
    Diagnostics diag;
    const auto j = readJsonObjectFile(path, diag);
    if (!j) {
        const Diagnostic &d = diag.items().front();
        throw Error(d.field, d.message, d.hint);
    }
    LabelSessionSettings s;
    take(*j, "pool_path", s.pool_path, path);
    take(*j, "text_column", s.text_column, path);
    take(*j, "email_body_only", s.email_body_only, path);
    take(*j, "label_names", s.label_names, path);
    take(*j, "bert_config_file", s.bert_config_file, path);
    take(*j, "init_checkpoint", s.init_checkpoint, path);
    take(*j, "vocab_file", s.vocab_file, path);
    take(*j, "do_lower_case", s.do_lower_case, path);
    take(*j, "max_seq_length", s.max_seq_length, path);
    take(*j, "batch_size", s.batch_size, path);
    take(*j, "strategy", s.strategy, path);
    take(*j, "seed", s.seed, path);
    take(*j, "held_out_fraction", s.held_out_fraction, path);
    take(*j, "held_out_every", s.held_out_every, path);
    checkSettings(s, path);
    return s;
}

std::string curvePointJson(const CurvePoint &p)
{
    const json j = {{"labels", p.labels},
                    {"train_labels", p.train_labels},
                    {"eval_examples", p.eval_examples},
                    {"eval_source", p.eval_source},
                    {"accuracy", numberOrNull(p.accuracy)},
                    {"bag_of_words_accuracy", numberOrNull(p.bag_of_words_accuracy)},
                    {"strategy", p.strategy},
                    {"seed", p.seed},
                    {"seconds", p.seconds},
                    {"seconds_train", p.seconds_train},
                    {"seconds_score", p.seconds_score},
                    {"model_dir", p.model_dir}};
    return j.dump();
}

CurvePoint parseCurvePoint(const std::string &line, const std::string &where)
{
    json j;
    try {
        j = json::parse(line);
    } catch (const json::parse_error &e) {
        throw Error(where, std::string("is not a JSON line: ") + e.what(), "curve.jsonl holds one JSON object per line");
    }
    if (!j.is_object())
        throw Error(where, "is not a JSON object", "curve.jsonl holds one JSON object per line");
    CurvePoint p;
    take(j, "labels", p.labels, where);
    take(j, "train_labels", p.train_labels, where);
    take(j, "eval_examples", p.eval_examples, where);
    take(j, "eval_source", p.eval_source, where);
    p.accuracy = numberOrNaN(j, "accuracy", where);
    p.bag_of_words_accuracy = numberOrNaN(j, "bag_of_words_accuracy", where);
    take(j, "strategy", p.strategy, where);
    take(j, "seed", p.seed, where);
    take(j, "seconds", p.seconds, where);
    take(j, "seconds_train", p.seconds_train, where);
    take(j, "seconds_score", p.seconds_score, where);
    take(j, "model_dir", p.model_dir, where);
    return p;
}

void appendCurvePoint(const std::string &path, const CurvePoint &p)
{
    const std::string line = curvePointJson(p) + "\n";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (fd.get() < 0 || ::write(fd.get(), line.data(), line.size()) != ssize_t(line.size()) || ::fsync(fd.get()) != 0)
        throw Error(path, std::string("cannot append the curve's point: ") + std::strerror(errno),
                    "check the folder is writable and the disk has room");
}

std::vector<CurvePoint> readCurve(const std::string &path)
{
    std::vector<CurvePoint> out;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return out;
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = 0;
    for (int64_t lineNo = 1; at < all.size(); ++lineNo) {
        const size_t end = all.find('\n', at);
        if (end == std::string::npos)
            break; // a last line without its line end was cut while it was written
        const std::string line = all.substr(at, end - at);
        at = end + 1;
        if (!line.empty())
            out.push_back(parseCurvePoint(line, path + ":" + std::to_string(lineNo)));
    }
    return out;
}

namespace {

/// The queue's picks among `candidates` (pool indices), as pool indices.
std::vector<int64_t> queuePicks(const LabelSessionSettings &s, const PoolScores &scores,
                                const std::vector<int64_t> &candidates, const std::vector<bool> &labelled,
                                int64_t count)
{
    std::vector<int64_t> out;
    if (s.strategy == "random" || scores.n == 0) {
        // One order of the whole pool per seed, so that labelling never reshuffles what is left.
        std::vector<bool> isCandidate(labelled.size(), false);
        for (const int64_t i : candidates)
            isCandidate[size_t(i)] = true;
        for (const int64_t i : randomOrder(int64_t(labelled.size()), uint64_t(s.seed))) {
            if (int64_t(out.size()) >= count)
                break;
            if (isCandidate[size_t(i)])
                out.push_back(i);
        }
        return out;
    }
    PoolScores sub;
    sub.n = int64_t(candidates.size());
    sub.num_labels = scores.num_labels;
    sub.dim = scores.dim;
    for (const int64_t i : candidates) {
        sub.probabilities.insert(sub.probabilities.end(), scores.probabilities.begin() + i * scores.num_labels,
                                 scores.probabilities.begin() + (i + 1) * scores.num_labels);
        sub.embeddings.insert(sub.embeddings.end(), scores.embeddings.begin() + i * scores.dim,
                              scores.embeddings.begin() + (i + 1) * scores.dim);
    }
    for (int64_t i = 0; i < scores.n; ++i)
        if (labelled[size_t(i)])
            sub.labelled_embeddings.insert(sub.labelled_embeddings.end(), scores.embeddings.begin() + i * scores.dim,
                                           scores.embeddings.begin() + (i + 1) * scores.dim);
    for (const int64_t k : pickUncertainDiverse(sub, count))
        out.push_back(candidates[size_t(k)]);
    return out;
}

} // namespace

std::vector<int64_t> planNextTexts(const LabelSessionSettings &s, const PoolScores &scores,
                                   const std::vector<bool> &labelled, const std::vector<bool> &held_out,
                                   int64_t shown, int64_t count)
{
    const size_t n = labelled.size();
    if (held_out.size() != n || (scores.n != 0 && size_t(scores.n) != n))
        throw Error("planNextTexts", "the pool's flags and scores have different sizes",
                    "pass one flag and one row of scores per pool text");
    std::vector<int64_t> free, freeHeldOut;
    for (size_t i = 0; i < n; ++i)
        if (!labelled[i])
            (held_out[i] ? freeHeldOut : free).push_back(int64_t(i));
    // Which of the next `count` positions are held-out draws.
    int64_t heldOutSlots = 0;
    std::vector<bool> slotHeldOut(size_t(std::max<int64_t>(count, 0)), false);
    for (int64_t k = 0; k < count; ++k)
        if (s.held_out_every > 0 && (shown + k + 1) % s.held_out_every == 0 && heldOutSlots < int64_t(freeHeldOut.size()))
            slotHeldOut[size_t(k)] = true, ++heldOutSlots;
    std::mt19937_64 rng(uint64_t(s.seed) * 1000003u + uint64_t(shown));
    std::vector<int64_t> drawn;
    for (int64_t k = 0; k < heldOutSlots; ++k) {
        const size_t j = size_t(k) + size_t(rng() % (freeHeldOut.size() - size_t(k)));
        std::swap(freeHeldOut[size_t(k)], freeHeldOut[j]);
        drawn.push_back(freeHeldOut[size_t(k)]);
    }
    const std::vector<int64_t> picks = queuePicks(s, scores, free, labelled, count - heldOutSlots);
    std::vector<int64_t> out;
    size_t nextPick = 0, nextDrawn = 0;
    for (int64_t k = 0; k < count; ++k) {
        if (slotHeldOut[size_t(k)])
            out.push_back(drawn[nextDrawn++]);
        else if (nextPick < picks.size())
            out.push_back(picks[nextPick++]);
    }
    return out;
}

} // namespace wb
