// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/preparesplit.h"

#include "core/config/optionwords.h"
#include "core/prepare/badrows.h"
#include "core/prepare/preparemultilabel.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <unordered_map>

namespace wb::prep {

namespace fs = std::filesystem;

namespace {

// A warning is given when at least this share of the examples is cut at max_seq_length.
constexpr double kTruncationWarningShare = 0.25;

// Deterministic shuffle (std::shuffle's algorithm is implementation-defined).
template <typename T>
void shuffleSeeded(std::vector<T> &v, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    for (size_t i = v.size(); i > 1; --i) {
        const size_t j = size_t(rng() % i);
        std::swap(v[i - 1], v[j]);
    }
}

} // namespace

std::vector<size_t> stratifiedQuotas(const std::vector<size_t> &counts, size_t nEval)
{
    const size_t L = counts.size();
    size_t total = 0;
    for (size_t c : counts)
        total += c;
    std::vector<size_t> q(L, 0);
    if (total == 0 || nEval == 0)
        return q;
    std::vector<double> rest(L, 0.0);
    size_t given = 0;
    for (size_t l = 0; l < L; ++l) {
        const double exact = double(counts[l]) * double(nEval) / double(total);
        q[l] = std::min(size_t(exact), counts[l] > 0 ? counts[l] - 1 : 0);
        rest[l] = exact - double(q[l]);
        given += q[l];
    }
    std::vector<size_t> order(L);
    for (size_t l = 0; l < L; ++l)
        order[l] = l;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rest[a] > rest[b]; });
    // Hand out what is left, by largest remainder, to labels that can still give an example.
    for (bool progress = true; given < nEval && progress;) {
        progress = false;
        for (size_t l : order) {
            if (given >= nEval)
                break;
            if (q[l] + 1 < counts[l]) {
                ++q[l];
                ++given;
                progress = true;
            }
        }
    }
    size_t needing = 0;
    for (size_t c : counts)
        needing += c >= 2 ? 1 : 0;
    if (nEval >= needing) {
        for (size_t l = 0; l < L; ++l) {
            if (counts[l] < 2 || q[l] > 0)
                continue;
            // Take one from the label with the most eval examples (it keeps at least one).
            size_t from = L;
            for (size_t k = 0; k < L; ++k)
                if (q[k] > 1 && (from == L || q[k] > q[from]))
                    from = k;
            if (from == L)
                break;
            --q[from];
            q[l] = 1;
        }
    }
    return q;
}

std::string splitKey(const std::string &file, int64_t line) { return file + '\x1f' + std::to_string(line); }

std::string splitFileName(const PrepareOptions &o, const std::string &file)
{
    std::error_code ec;
    if (fs::is_directory(o.input_data_dir, ec)) {
        const fs::path rel = fs::path(file).lexically_relative(o.input_data_dir);
        if (!rel.empty() && *rel.begin() != "..")
            return rel.generic_string();
    }
    return fs::path(file).filename().generic_string();
}

std::unordered_map<std::string, bool> readSplitFile(const std::string &path)
{
    std::unordered_map<std::string, bool> sides;
    const std::string text = prep::readWholeFile(path);
    size_t start = 0;
    int64_t lineNo = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++lineNo;
        if (prep::trimmed(line).empty())
            continue;
        const std::string where = path + ":" + std::to_string(lineNo);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object() || !j.contains("file") || !j["file"].is_string() || !j.contains("split")
            || !j["split"].is_string() || (j.contains("line") && !j["line"].is_number_integer()))
            throw Error(where, "not a split.jsonl record", "Each line is a JSON object with \"file\", \"split\" and "
                                                           "optionally \"line\" (docs/file-formats.md, split.jsonl).");
        const std::string side = j["split"].get<std::string>();
        if (side != "train" && side != "eval")
            continue; // test and skipped rows do not choose a side
        const std::string file = j["file"].get<std::string>();
        const auto [it, added] = sides.emplace(splitKey(file, j.value("line", int64_t(0))), side == "eval");
        if (!added && it->second != (side == "eval"))
            throw Error(where,
                        "the row " + file + (j.contains("line") ? ":" + std::to_string(j["line"].get<int64_t>()) : "")
                            + " is on both sides: listed before as " + (it->second ? "eval" : "train") + ", here as " + side,
                        "Keep one line per row (docs/file-formats.md, split.jsonl).");
    }
    return sides;
}

namespace {

// The eval set as the split file --split_file says, row by row; every row of the input must
// be in it.
void splitAsFile(const PrepareOptions &o, Sorted &d, PrepareReport &rep)
{
    const auto sides = readSplitFile(o.split_file);
    std::vector<Job *> train, eval;
    std::vector<std::string> missing;
    for (Job *j : d.train) {
        const auto it = sides.find(splitKey(splitFileName(o, j->ex->file), j->ex->line));
        if (it == sides.end())
            missing.push_back(j->ex->where);
        else
            (it->second ? eval : train).push_back(j);
    }
    if (!missing.empty())
        throw Error(o.split_file, namedCount(missing, "row(s) of the input are not in the split file"),
                    "Use the split.jsonl of a prepare of the same input, or leave out " + optionName("split_file") + ".");
    d.train = std::move(train);
    d.eval = std::move(eval);
    rep.split_method = "split_file";
}

// Multi-label: the eval set by iterative stratification; both sets keep the shuffled order.
void splitIteratively(const PrepareOptions &o, const SourceSplits &src, size_t nEval, Sorted &d, PrepareReport &rep)
{
    std::vector<std::vector<int64_t>> sets;
    sets.reserve(d.train.size());
    for (const Job *j : d.train)
        sets.push_back(j->ex->label_ids);
    const std::vector<bool> toEval = iterativeStratification(sets, src.labels.size(), nEval, o.seed);
    std::vector<Job *> train, eval;
    for (size_t i = 0; i < d.train.size(); ++i)
        (toEval[i] ? eval : train).push_back(d.train[i]);
    d.train = std::move(train);
    d.eval = std::move(eval);
    rep.split_method = "iterative_stratification";
}

// The eval set as eval_fraction of the shuffled training examples: stratified by label (per
// label, the first of its shuffled examples go to eval; both sets keep the shuffled order), or
// the last ones.
void splitByFraction(const PrepareOptions &o, const SourceSplits &src, Sorted &d, PrepareReport &rep)
{
    const size_t nEval = size_t(double(d.train.size()) * o.eval_fraction + 0.5);
    if (nEval == 0 && o.eval_fraction > 0)
        rep.warnings.push_back("too few examples to split off an eval set");
    if (o.stratify_split && src.multi_label && nEval > 0) {
        splitIteratively(o, src, nEval, d, rep);
    } else if (o.stratify_split && !src.regression && nEval > 0) {
        std::vector<size_t> counts(src.labels.size(), 0);
        for (const Job *j : d.train)
            ++counts[size_t(j->ex->label_id)];
        std::vector<size_t> quota = stratifiedQuotas(counts, nEval);
        std::vector<Job *> train, eval;
        for (Job *j : d.train) {
            size_t &left = quota[size_t(j->ex->label_id)];
            if (left > 0) {
                --left;
                eval.push_back(j);
            } else {
                train.push_back(j);
            }
        }
        d.train = std::move(train);
        d.eval = std::move(eval);
        rep.split_method = "stratified";
    } else {
        d.eval.assign(d.train.end() - long(nEval), d.train.end());
        d.train.resize(d.train.size() - nEval);
        rep.split_method = nEval > 0 ? "random" : "none";
    }
}

// Label counts of train and eval and the truncated examples of every split written; a warning
// when many are cut.
void countSplits(const PrepareOptions &o, const SourceSplits &src, const Sorted &d, PrepareReport &rep)
{
    const bool single = !src.regression && !src.multi_label;
    for (Job *j : d.train) {
        rep.truncated_examples += j->out.truncated ? 1 : 0;
        if (single)
            ++rep.train_label_counts[src.labels[size_t(j->ex->label_id)]];
    }
    for (Job *j : d.eval) {
        rep.truncated_examples += j->out.truncated ? 1 : 0;
        if (single)
            ++rep.eval_label_counts[src.labels[size_t(j->ex->label_id)]];
    }
    for (Job *j : d.test)
        rep.truncated_examples += j->out.truncated ? 1 : 0;
    if (src.multi_label)
        reportMultiLabel(src, d, rep);
    const size_t written = d.train.size() + d.eval.size() + d.test.size();
    if (written > 0 && double(rep.truncated_examples) >= kTruncationWarningShare * double(written)) {
        const int percent = int(100.0 * double(rep.truncated_examples) / double(written) + 0.5);
        rep.warnings.push_back(std::to_string(rep.truncated_examples) + " of " + std::to_string(written) + " examples ("
                               + std::to_string(percent) + "%) need more than max_seq_length="
                               + std::to_string(o.max_seq_length) + " tokens and are cut: the model sees only their "
                               "first tokens. Raise max_seq_length (at most the model's max_position_embeddings, "
                               "often 512), or shorten the texts to the part that decides the label");
    }
}

} // namespace

namespace {

// The training order, shuffled with `seed`, as if the rows a --corrections_file removed were
// still there: they keep their slots in the shuffle, which are then dropped. So the other rows
// keep the order they have without the corrections: with --split_file the eval records come in
// the same order, and each training record moves up only by the removed rows before it.
void shuffleKeepingRemovedSlots(const SourceSplits &src, std::vector<Job *> &train, uint64_t seed)
{
    std::unordered_map<const RawExample *, Job *> byRow;
    for (Job *j : train)
        byRow.emplace(j->ex, j);
    std::vector<Job *> slots; // src.train's order, as makeJobs keeps it: nullptr for a removed row
    size_t found = 0;
    for (const RawExample &ex : src.train) {
        if (ex.removed) {
            slots.push_back(nullptr);
        } else if (const auto it = byRow.find(&ex); it != byRow.end()) {
            slots.push_back(it->second);
            ++found;
        }
    }
    if (found != train.size() || slots.size() == train.size()) { // nothing removed (or not in that order)
        shuffleSeeded(train, seed);
        return;
    }
    shuffleSeeded(slots, seed);
    slots.erase(std::remove(slots.begin(), slots.end(), nullptr), slots.end());
    train = std::move(slots);
}

} // namespace

void splitAndCount(const PrepareOptions &o, const SourceSplits &src, Sorted &d, PrepareReport &rep)
{
    shuffleKeepingRemovedSlots(src, d.train, o.seed);
    rep.split_method = src.hasEval ? "dev" : "none";
    if (!o.split_file.empty() && src.hasEval)
        throw Error("split_file", "the input has a dev file, which is the eval set; a split file cannot choose it",
                    "Leave out " + optionName("split_file") + ", or remove the dev file.");
    if (!src.hasEval && !rep.eval_path.empty() && !o.split_file.empty())
        splitAsFile(o, d, rep);
    else if (!src.hasEval && !rep.eval_path.empty())
        splitByFraction(o, src, d, rep);
    if (rep.eval_path.empty())
        d.eval.clear();
    if (rep.train_path.empty())
        d.train.clear();
    countSplits(o, src, d, rep);
}

std::string splitJsonl(const PrepareOptions &o, const SourceSplits &src, const Sorted &d, const PrepareReport &rep)
{
    std::unordered_map<const RawExample *, std::pair<const char *, size_t>> side;
    const std::pair<const char *, const std::vector<Job *> *> sets[] = {{"train", &d.train}, {"eval", &d.eval}, {"test", &d.test}};
    for (const auto &[name, jobs] : sets)
        for (size_t i = 0; i < jobs->size(); ++i)
            side[(*jobs)[i]->ex] = {name, i};
    std::string out;
    auto dump = [&out](const nlohmann::ordered_json &j) {
        out += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    };
    for (const std::vector<RawExample> *v : {&src.train, &src.eval, &src.test}) {
        for (const RawExample &ex : *v) {
            const auto it = side.find(&ex);
            if (it == side.end())
                continue;
            nlohmann::ordered_json j;
            j["file"] = splitFileName(o, ex.file);
            if (ex.line > 0)
                j["line"] = ex.line;
            j["split"] = it->second.first;
            j["index"] = it->second.second;
            if (v != &src.test) {
                if (src.regression)
                    j["label"] = ex.value;
                else if (src.multi_label) {
                    nlohmann::ordered_json names = nlohmann::ordered_json::array();
                    for (const int64_t id : ex.label_ids)
                        names.push_back(src.labels[size_t(id)]);
                    j["labels"] = names;
                } else {
                    j["label"] = src.labels[size_t(ex.label_id)];
                    if (!ex.corrected_from.empty()) // --corrections_file relabelled it
                        j["label_as_given"] = ex.corrected_from;
                }
            }
            dump(j);
        }
    }
    for (const SkippedRow &s : rep.skipped) {
        nlohmann::ordered_json j;
        const size_t colon = s.where.rfind(':');
        const bool hasLine = colon != std::string::npos && colon + 1 < s.where.size()
            && s.where.find_first_not_of("0123456789", colon + 1) == std::string::npos;
        j["file"] = splitFileName(o, hasLine ? s.where.substr(0, colon) : s.where);
        if (hasLine)
            j["line"] = std::stoll(s.where.substr(colon + 1));
        j["split"] = "skipped";
        j["reason"] = s.reason;
        dump(j);
    }
    return out;
}

} // namespace wb::prep
