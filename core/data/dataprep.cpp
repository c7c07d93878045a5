// SPDX-License-Identifier: Apache-2.0
// prepareData(): read (preparesource.h) → labels → tokenize in one parallel-for → drop empty
// texts → shuffle and split → report → write everything atomically. The equivalent of
// tensorflow/models official/nlp/data/create_finetuning_data.py for classification.
#include "core/data/dataprep.h"

#include "core/data/emailbody.h"
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/data/bagofwords.h"
#include "core/data/basictokenizer.h"
#include "core/data/examplecodec.h"
#include "core/data/fulltokenizer.h"
#include "core/data/parallelfor.h"
#include "core/data/preparefeatures.h"
#include "core/data/preparesource.h"
#include "core/data/sha256.h"
#include "core/data/tfrecordwriter.h"
#include "core/events/trainingobserver.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <unordered_map>

namespace wb {

namespace fs = std::filesystem;
using prep::RawExample;

namespace {

// A warning is given when at least this share of the examples is cut at max_seq_length.
constexpr double kTruncationWarningShare = 0.25;

enum class Split { Train, Eval, Test };

// What the parallel-for produces per example.
struct Converted
{
    std::string payload;     // encoded tf.train.Example
    uint64_t text_hash = 0;  // normalizedTextHash of text_a, text_b
    int64_t tokens = 0;
    bool truncated = false, capped = false, empty = false;
    bool latin1 = false, nul = false, bom = false; // folders: file-level findings
    // Label names (label ids) and markup tags (lower-cased names) within the first
    // max_seq_length tokens, for the label-in-the-text check (findLabelsInText).
    std::vector<int64_t> label_names;
    std::vector<std::string> markup;
};

struct Job
{
    RawExample *ex;
    Split split;
    Converted out;
};

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

constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

void fnvMix(uint64_t &h, std::string_view s)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= kFnvPrime;
    }
}

// The texts as the model reads them, hashed (64-bit FNV-1a): BasicTokenizer's tokens
// (core/data/basictokenizer.h), so copies that differ only in what the tokenizer normalises
// are one text: white space and control characters, spaces around punctuation, and when
// uncased letter case, accents and the Unicode normal form (NFD). At most `cap` tokens of
// each text count (the model sees far fewer). Tokens hold no space, and \x1f between the
// texts is a control character the tokenizer drops, so the joined form is unambiguous.
uint64_t normalizedTextHash(const BasicTokenizer &basic, std::string_view a, std::string_view b, size_t cap,
                            std::vector<std::string> &scratch)
{
    uint64_t h = kFnvOffset;
    for (const std::string_view text : {a, b}) {
        scratch.clear();
        basic.tokenize(text, scratch, cap);
        for (const std::string &t : scratch) {
            fnvMix(h, t);
            fnvMix(h, " ");
        }
        fnvMix(h, "\x1f");
    }
    return h;
}

std::string defaultPath(const std::string &given, const std::string &dir, const char *name)
{
    if (!given.empty())
        return given;
    if (dir.empty())
        return {};
    return (fs::path(dir) / name).string();
}

// "3 rows were …: a.csv:4, a.csv:9 (and 1 more)".
std::string namedCount(const std::vector<std::string> &where, const std::string &what)
{
    std::string s = std::to_string(where.size()) + " " + what + ": ";
    const size_t shown = std::min<size_t>(where.size(), 5);
    for (size_t i = 0; i < shown; ++i)
        s += (i ? ", " : "") + where[i];
    if (where.size() > shown)
        s += " (and " + std::to_string(where.size() - shown) + " more)";
    return s;
}

// The ranges of prepare's numeric options: its row of the option table (checkNumericRanges,
// core/config/optiontable.h, which words them as the training options' ranges).
std::vector<NumericOption> prepareOptionRanges(const PrepareOptions &o)
{
    return {{"max_seq_length", double(o.max_seq_length), 3, 100000, "128"},
            {"eval_fraction", o.eval_fraction, 0, 1, "0.1"},
            {"num_threads", double(o.num_threads), 1, 1024, "2"},
            {"max_input_chars_per_word", double(o.max_input_chars_per_word), 1, 100000, "200"}};
}

void checkOptions(const PrepareOptions &o)
{
    if (o.input_data_dir.empty())
        throw Error("input_data_dir", "no input data was given", "Pass --input_data_dir=<folder or file>.");
    if (!fs::exists(o.input_data_dir))
        throw Error("input_data_dir", "'" + o.input_data_dir + "' does not exist", "Check the path.");
    if (o.vocab_file.empty())
        throw Error("vocab_file", "FLAG vocab_file for word-piece tokenizer is not specified.",
                    "Pass --vocab_file=vocab.txt (the vocab of the model you will fine-tune).");
    Diagnostics diag;
    if (o.max_seq_length < 3 && o.max_seq_length >= 0)
        diag.error("max_seq_length", "must be at least 3 (room for [CLS] and [SEP]), got " + std::to_string(o.max_seq_length),
                   "the default is 128");
    if (o.eval_fraction == 1.0)
        diag.error("eval_fraction", "eval_fraction is 1; it must be below 1 (the share of the training examples "
                                    "split off as the eval set)",
                   "the default is 0.1; 0 means no eval set unless the input has a dev file");
    if (o.mnli_type != "matched" && o.mnli_type != "mismatched")
        diag.error("mnli_type", "Invalid `mnli_type`: " + o.mnli_type, "Use matched or mismatched.");
    checkNumericRanges(prepareOptionRanges(o), diag);
    for (const Diagnostic &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
}

void readSource(const PrepareOptions &o, bool wantTest, prep::SourceSplits &src, prep::ReadNotes &notes)
{
    std::string task = o.classification_task_name;
    for (char &c : task)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (task == "folders" || task == "folder")
        prep::readFolders(o, src, notes);
    else if (task == "tsv" || task == "csv")
        prep::readTable(o, task == "csv" ? TextFileFormat::Csv : TextFileFormat::Tsv, src, notes);
    else if (task == "jsonl" || task == "json")
        prep::readTable(o, task == "json" ? TextFileFormat::Json : TextFileFormat::JsonLines, src, notes);
    else if (prep::isGlueTask(o.classification_task_name))
        prep::readGlue(o, wantTest, src, notes);
    else {
        std::string names;
        for (const auto &n : prepareTaskNames())
            names += (names.empty() ? "" : ", ") + n;
        throw Error("classification_task_name", "Task not found: " + o.classification_task_name,
                    "Use one of " + names + ".");
    }
}

// The text as prepare keeps it: the e-mail body and/or without quoted replies (options).
std::string reduceText(const PrepareOptions &o, std::string text)
{
    if (o.email_body_only)
        return emailBody(text, o.strip_quoted_replies);
    if (o.strip_quoted_replies)
        return stripQuotedReplies(text);
    return text;
}

// The label names as lower-cased basic tokens (a name may be several tokens: "comp.graphics").
struct LabelNames
{
    BasicTokenizer lowerCase{true};
    std::vector<std::vector<std::string>> tokens; // by label id
    explicit LabelNames(const std::vector<std::string> &labels)
    {
        for (const std::string &l : labels) {
            std::vector<std::string> t;
            lowerCase.tokenize(l, t, 16);
            tokens.push_back(std::move(t));
        }
    }
};

// Records in `c` which label names and markup tags ("<" name, "</" name) occur within the first
// `limit` lower-cased basic tokens of the texts.
void scanForLabels(const LabelNames &names, std::string_view a, std::string_view b, size_t limit, Converted &c)
{
    thread_local std::vector<std::string> toks;
    toks.clear();
    names.lowerCase.tokenize(a, toks, limit);
    if (!b.empty() && toks.size() < limit)
        names.lowerCase.tokenize(b, toks, limit - toks.size());
    for (size_t id = 0; id < names.tokens.size(); ++id) {
        const auto &t = names.tokens[id];
        if (t.empty() || toks.size() < t.size())
            continue;
        for (size_t i = 0; i + t.size() <= toks.size(); ++i)
            if (std::equal(t.begin(), t.end(), toks.begin() + long(i))) {
                c.label_names.push_back(int64_t(id));
                break;
            }
    }
    constexpr size_t kMaxTags = 64;
    for (size_t i = 0; i + 1 < toks.size() && c.markup.size() < kMaxTags; ++i) {
        if (toks[i] != "<")
            continue;
        size_t n = i + 1;
        if (toks[n] == "/" && n + 1 < toks.size())
            ++n;
        const std::string &name = toks[n];
        const bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
        }) && std::isalpha(static_cast<unsigned char>(name[0]));
        if (word && std::find(c.markup.begin(), c.markup.end(), name) == c.markup.end())
            c.markup.push_back(name);
    }
}

// Tokenizes every job (folders: reads its file first) and encodes its record.
void convertAll(const PrepareOptions &o, const prep::SourceSplits &src, std::vector<Job> &jobs,
                const std::function<bool()> &stopRequested, const PrepareProgress &progress)
{
    const FullTokenizer tok(o.vocab_file, o.do_lower_case, o.max_input_chars_per_word);
    const int32_t cls = tok.vocab().id("[CLS]");
    const int32_t sep = tok.vocab().id("[SEP]");
    const size_t cap = size_t(kTokenCountCap * o.max_seq_length);
    const bool pair = src.pair;
    const BasicTokenizer basic(o.do_lower_case);
    const LabelNames leakNames(src.labels);
    auto body = [&](size_t i) {
        Job &job = jobs[i];
        RawExample &ex = *job.ex;
        Converted &c = job.out;
        if (!ex.path.empty()) {
            std::string bytes = prep::readWholeFile(ex.path);
            if (bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) {
                bytes.erase(0, 3);
                c.bom = true;
            }
            ex.text_a = prep::toUtf8(reduceText(o, std::move(bytes)), c.latin1);
            c.nul = ex.text_a.find('\0') != std::string::npos;
        } else if (o.email_body_only || o.strip_quoted_replies) {
            bool latin1a = false, latin1b = false;
            ex.text_a = prep::toUtf8(reduceText(o, std::move(ex.text_a)), latin1a);
            ex.text_b = prep::toUtf8(reduceText(o, std::move(ex.text_b)), latin1b);
            c.latin1 = latin1a || latin1b;
        }
        if (!src.regression && !src.labels.empty())
            scanForLabels(leakNames, ex.text_a, ex.text_b, size_t(o.max_seq_length), c);
        ExampleFeatures f;
        buildExampleFeatures(tok, ex.text_a, ex.text_b, pair, o.max_seq_length, cls, sep, cap, f);
        thread_local std::vector<std::string> scratch;
        c.text_hash = normalizedTextHash(basic, ex.text_a, ex.text_b, cap, scratch);
        c.tokens = f.tokens_needed;
        c.truncated = f.truncated;
        c.capped = f.capped;
        c.empty = f.empty_a || f.empty_b;
        if (!ex.path.empty())
            std::string().swap(ex.text_a);
        ClassifierRecord r;
        r.input_ids = std::move(f.input_ids);
        r.input_mask = std::move(f.input_mask);
        r.segment_ids = std::move(f.segment_ids);
        if (src.regression) {
            r.float_label = true;
            r.label_value = ex.value;
        } else {
            r.label_id = std::max<int64_t>(0, ex.label_id);
        }
        c.payload = encodeClassifierRecord(r);
    };
    const size_t n = jobs.size();
    const bool complete = parallelFor(n, o.num_threads, body, stopRequested, [&](size_t done) {
        if (progress)
            progress(0.05 + 0.85 * double(done) / double(std::max<size_t>(1, n)), "tokenizing");
    });
    if (!complete)
        throw Error("prepare", "cancelled", "Nothing was written.");
}

// Duplicates within train and texts shared by train and eval, compared as the model reads
// them (normalizedTextHash); each pair named by the file:line of both copies.
void findDuplicates(std::vector<Job *> train, const std::vector<Job *> &eval, PrepareReport &rep)
{
    std::sort(train.begin(), train.end()); // jobs are stored in file order: name the earlier row first
    std::unordered_map<uint64_t, const Job *> firstTrain;
    for (const Job *j : train) {
        const auto [it, added] = firstTrain.emplace(j->out.text_hash, j);
        if (added)
            continue;
        ++rep.train_duplicates;
        if (it->second->ex->label_id != j->ex->label_id)
            ++rep.conflicting_duplicates;
        if (rep.duplicate_examples.size() < kReportedPairs)
            rep.duplicate_examples.push_back({it->second->ex->where, j->ex->where});
    }
    for (const Job *j : eval) {
        const auto it = firstTrain.find(j->out.text_hash);
        if (it == firstTrain.end())
            continue;
        ++rep.train_eval_overlap;
        if (rep.overlap_examples.size() < kReportedPairs)
            rep.overlap_examples.push_back({it->second->ex->where, j->ex->where});
    }
    auto pairText = [](const std::vector<TextPair> &v) {
        return v.empty() ? std::string() : " (e.g. " + v.front().first + " and " + v.front().second + ")";
    };
    if (rep.train_duplicates)
        rep.warnings.push_back(std::to_string(rep.train_duplicates) + " training example(s) repeat an earlier text"
                               + pairText(rep.duplicate_examples)
                               + (rep.conflicting_duplicates ? "; " + std::to_string(rep.conflicting_duplicates)
                                                                   + " of them with a different label"
                                                             : std::string()));
    if (rep.train_eval_overlap)
        rep.warnings.push_back(std::to_string(rep.train_eval_overlap)
                               + " evaluation example(s) have a text that is also in the training set"
                               + pairText(rep.overlap_examples) + "; eval accuracy will look better than it is");
}

std::string metaJson(const PrepareOptions &o, const prep::SourceSplits &src, const PrepareReport &rep, bool eval,
                     bool test)
{
    nlohmann::ordered_json meta;
    meta["processor_type"] = src.processor;
    meta["train_data_size"] = rep.train_examples;
    meta["max_seq_length"] = o.max_seq_length;
    if (test)
        meta["test_data_size"] = rep.test_examples;
    if (src.regression) {
        meta["task_type"] = "bert_regression";
        meta["label_type"] = "float";
    } else {
        meta["task_type"] = "bert_classification";
        meta["num_labels"] = int64_t(src.labels.size());
    }
    if (eval)
        meta["eval_data_size"] = rep.eval_examples;
    // Our key after create_finetuning_data.py's: the casing travels with the data to the run,
    // its checkpoints and its export (run_classifier reads only the keys it knows).
    meta["do_lower_case"] = o.do_lower_case;
    return meta.dump(4, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The output paths of `o` (defaults under output_dir) and the tokenization recorded in the report.
void setOutputs(const PrepareOptions &o, PrepareReport &rep)
{
    rep.train_path = defaultPath(o.train_data_output_path, o.output_dir, "train.tf_record");
    rep.eval_path = defaultPath(o.eval_data_output_path, o.output_dir, "eval.tf_record");
    rep.test_path = o.test_data_output_path.empty() && o.write_test ? defaultPath({}, o.output_dir, "test.tf_record")
                                                                    : o.test_data_output_path;
    rep.meta_path = defaultPath(o.meta_data_file_path, o.output_dir, "input_meta_data.json");
    if (rep.meta_path.empty())
        throw Error("meta_data_file_path", "no meta data output was given",
                    "Pass --output_dir=<folder> (all outputs under default names) or --meta_data_file_path.");
    if (rep.train_path.empty() && rep.eval_path.empty())
        throw Error("train_data_output_path", "neither a train nor an eval output was given",
                    "Pass --output_dir=<folder> or --train_data_output_path / --eval_data_output_path.");
    const fs::path metaDir = fs::path(rep.meta_path).parent_path();
    rep.labels_path = (metaDir / "labels.txt").string();
    rep.report_path = (metaDir / "prepare_report.json").string();
    rep.split_path = (metaDir / "split.jsonl").string();
    rep.vocab_file = fs::absolute(o.vocab_file).lexically_normal().string();
    rep.vocab_sha256 = sha256Hex(prep::readWholeFile(o.vocab_file));
    rep.do_lower_case = o.do_lower_case;
    rep.max_seq_length = o.max_seq_length;
}

// One job per example to convert: train and eval without the skipped rows, every test row.
std::vector<Job> makeJobs(const PrepareOptions &o, prep::SourceSplits &src)
{
    std::vector<Job> jobs;
    for (auto &e : src.train)
        if (!e.skip)
            jobs.push_back({&e, Split::Train, {}});
    for (auto &e : src.eval)
        if (!e.skip)
            jobs.push_back({&e, Split::Eval, {}});
    for (auto &e : src.test)
        jobs.push_back({&e, Split::Test, {}});
    if (jobs.empty())
        throw Error(o.input_data_dir, "the input holds no training examples", "Check the folder or file.");
    return jobs;
}

// The converted examples by split, with what the readers and the conversion found.
struct Sorted
{
    std::vector<Job *> train, eval, test;
    std::vector<std::string> emptyTest, latin1, nul;
};

// Sorts the converted jobs into their splits; empty texts are skipped (train/eval) or kept
// with a warning (test: its order is the output's). Token statistics go to `rep`.
Sorted sortConverted(const PrepareOptions &o, const prep::SourceSplits &src, std::vector<Job> &jobs,
                     prep::ReadNotes &notes, PrepareReport &rep)
{
    Sorted out;
    out.latin1 = notes.latin1;
    out.nul = notes.nul;
    int64_t tokenSum = 0, counted = 0;
    for (Job &j : jobs) {
        rep.texts_with_bom += j.out.bom ? 1 : 0;
        if (j.out.latin1)
            out.latin1.push_back(j.ex->where);
        if (j.out.nul)
            out.nul.push_back(j.ex->where);
        if (j.out.empty) {
            ++rep.empty_texts;
            if (j.split != Split::Test) {
                notes.skipped.push_back({j.ex->where, "the text is empty after the tokenizer's clean-up "
                                                      "(only spaces, control characters or nothing)"});
                continue;
            }
            out.emptyTest.push_back(j.ex->where);
        }
        tokenSum += j.out.tokens;
        ++counted;
        rep.max_tokens = std::max(rep.max_tokens, j.out.tokens);
        rep.max_tokens_capped = rep.max_tokens_capped || j.out.capped;
        (j.split == Split::Train ? out.train : j.split == Split::Eval ? out.eval : out.test).push_back(&j);
    }
    if (out.train.empty() && out.eval.empty())
        throw Error(o.input_data_dir, "every text is empty after the tokenizer's clean-up (" + std::to_string(rep.empty_texts)
                                          + " rows: only spaces, control characters or nothing)",
                    src.text_a_column.empty()
                        ? std::string("Check the input files: do they hold the texts?")
                        : "The text was read from column '" + src.text_a_column + "'"
                              + (src.text_b_column.empty() ? std::string() : " and '" + src.text_b_column + "'")
                              + "; pass --text_a_column (and --text_b_column) to name the text columns.");
    if (out.train.empty() && !rep.train_path.empty())
        throw Error(o.input_data_dir, "no training example is left after skipping bad rows and empty texts",
                    "See the rows named above; fix them or check the column options.");
    rep.mean_tokens = counted ? double(tokenSum) / double(counted) : 0.0;
    return out;
}

// How many of each label's `counts` go to eval so that they add up to `nEval`: each label its
// share (largest remainder), at most all but one of its examples, and at least one for each
// label with two or more examples when `nEval` has room for all of them.
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

// A split.jsonl key: the row's file as split.jsonl names it and its line (0: a whole file).
std::string splitKey(const std::string &file, int64_t line) { return file + '\x1f' + std::to_string(line); }

// The file name split.jsonl records: relative to input_data_dir when that is a folder, else the
// file's name.
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

// Reads the train/eval sides of a split.jsonl (--split_file): key → true for eval.
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
        sides[splitKey(j["file"].get<std::string>(), j.value("line", int64_t(0)))] = side == "eval";
    }
    return sides;
}

// Shuffles the training order and, without a dev set, splits off the eval set (stratified by
// label, at random, or as a split file says); counts labels and truncated examples.
void splitAndCount(const PrepareOptions &o, const prep::SourceSplits &src, Sorted &d, PrepareReport &rep)
{
    shuffleSeeded(d.train, o.seed);
    rep.split_method = src.hasEval ? "dev" : "none";
    if (!o.split_file.empty() && src.hasEval)
        throw Error("split_file", "the input has a dev file, which is the eval set; a split file cannot choose it",
                    "Leave out --split_file, or remove the dev file.");
    if (!src.hasEval && !rep.eval_path.empty() && !o.split_file.empty()) {
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
                        "Use the split.jsonl of a prepare of the same input, or leave out --split_file.");
        d.train = std::move(train);
        d.eval = std::move(eval);
        rep.split_method = "split_file";
    } else if (!src.hasEval && !rep.eval_path.empty()) {
        const size_t nEval = size_t(double(d.train.size()) * o.eval_fraction + 0.5);
        if (nEval == 0 && o.eval_fraction > 0)
            rep.warnings.push_back("too few examples to split off an eval set");
        if (o.stratify_split && !src.regression && nEval > 0) {
            // Per label, the first of its shuffled examples go to eval; both sets keep the
            // shuffled order.
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
    if (rep.eval_path.empty())
        d.eval.clear();
    if (rep.train_path.empty())
        d.train.clear();
    for (Job *j : d.train) {
        rep.truncated_examples += j->out.truncated ? 1 : 0;
        if (!src.regression)
            ++rep.train_label_counts[src.labels[size_t(j->ex->label_id)]];
    }
    for (Job *j : d.eval) {
        rep.truncated_examples += j->out.truncated ? 1 : 0;
        if (!src.regression)
            ++rep.eval_label_counts[src.labels[size_t(j->ex->label_id)]];
    }
    for (Job *j : d.test)
        rep.truncated_examples += j->out.truncated ? 1 : 0;
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

// Warnings: every one names where to look.
void addWarnings(const prep::SourceSplits &src, const Sorted &d, prep::ReadNotes &notes, PrepareReport &rep)
{
    for (auto &w : notes.warnings)
        rep.warnings.push_back(std::move(w));
    if (!src.regression) {
        for (const auto &l : src.labels) {
            const int64_t nTrain = rep.train_label_counts.count(l) ? rep.train_label_counts.at(l) : 0;
            const int64_t nEval = rep.eval_label_counts.count(l) ? rep.eval_label_counts.at(l) : 0;
            if (!d.train.empty() && nTrain == 0)
                rep.warnings.push_back("the label '" + l + "' has no training examples; the model cannot learn it");
            else if (!d.eval.empty() && nEval == 0)
                rep.warnings.push_back("the label '" + l + "' has " + std::to_string(nTrain)
                                       + " training example(s) and none in the eval set; its accuracy is not measured");
        }
    }
    rep.texts_latin1 = int64_t(d.latin1.size());
    rep.texts_with_nul = int64_t(d.nul.size());
    rep.texts_with_bom += notes.bom;
    if (!d.latin1.empty())
        rep.warnings.push_back(namedCount(d.latin1, "text(s) were not valid UTF-8 and were read as Windows-1252 "
                                                    "(Latin-1; check the file's encoding; save it as UTF-8)"));
    if (!d.nul.empty())
        rep.warnings.push_back(namedCount(d.nul, "text(s) contained NUL bytes (dropped by the tokenizer)"));
    if (rep.texts_with_bom)
        rep.warnings.push_back(std::to_string(rep.texts_with_bom) + " file(s) started with a byte order mark (removed)");
    if (!d.emptyTest.empty())
        rep.warnings.push_back(namedCount(d.emptyTest, "test text(s) are empty after clean-up (kept, to keep the test "
                                                       "order)"));
    rep.skipped = std::move(notes.skipped);
    rep.skipped_rows = int64_t(rep.skipped.size());
    if (rep.skipped_rows) {
        std::vector<std::string> where;
        for (const auto &s : rep.skipped)
            where.push_back(s.where + " (" + s.reason + ")");
        rep.warnings.push_back(namedCount(where, "row(s) skipped"));
    }
}

// The bag-of-words baseline on the split just made, from the records as they will be written
// (the wordpieces the model sees). Classification with a train split only.
void fitBaseline(const PrepareOptions &o, const prep::SourceSplits &src, const Sorted &d, PrepareReport &rep,
                 const StopToken *stop)
{
    if (!o.bag_of_words_baseline || d.train.empty())
        return;
    if (src.regression) {
        BagOfWordsBaseline b;
        b.error = "the task is a regression (" + src.processor + "); the bag-of-words baseline is a classifier";
        rep.bag_of_words = b;
        return;
    }
    RecordSpec spec;
    spec.max_seq_length = o.max_seq_length;
    spec.num_labels = int64_t(src.labels.size());
    auto documents = [&spec](const std::vector<Job *> &jobs) {
        std::vector<BagOfWordsDocument> docs;
        docs.reserve(jobs.size());
        ClassifierRecord rec;
        for (const Job *j : jobs) {
            decodeClassifierRecord(j->out.payload, spec, rec);
            docs.push_back({bagOfWordsTerms(rec), rec.label_id});
        }
        return docs;
    };
    rep.bag_of_words = fitBagOfWordsBaseline(documents(d.train), documents(d.eval), spec.num_labels, {}, stop);
}

// Thresholds of the label-in-the-text warning: the label's name in at least this share of its
// texts and at most kLeakOtherShare of the others; a markup tag, stricter (HTML mails are
// often one label's, without giving its name away).
constexpr double kLeakLabelShare = 0.5, kLeakOtherShare = 0.1;
constexpr double kLeakMarkupShare = 0.8, kLeakMarkupOtherShare = 0.05;
constexpr size_t kLeakExamples = 3;

// "file:line" of the first place `token` (lower-cased; "<d>" as "<d") is written in the folder
// file `path`, ignoring case; the file's name when it cannot be found.
std::string placeInFile(const std::string &path, std::string token)
{
    if (token.size() > 2 && token.front() == '<' && token.back() == '>')
        token.pop_back();
    std::string text;
    try {
        text = prep::readWholeFile(path);
    } catch (const Error &) {
        return path;
    }
    std::string low = text;
    for (char &ch : low)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    const size_t at = low.find(token);
    if (at == std::string::npos)
        return path;
    return path + ":" + std::to_string(1 + std::count(text.begin(), text.begin() + long(at), '\n'));
}

// Labels given away by their texts (PrepareReport::label_in_text): each label's name, and each
// markup tag, counted in the train and eval texts of that label and of the others.
void findLabelsInText(const prep::SourceSplits &src, const Sorted &d, PrepareReport &rep)
{
    if (src.regression || src.labels.size() < 2)
        return;
    const size_t L = src.labels.size();
    std::vector<int64_t> texts(L, 0), names(L, 0), nameElsewhere(L, 0);
    std::map<std::string, std::vector<int64_t>> tags; // tag → texts per label holding it
    std::vector<const Job *> all(d.train.begin(), d.train.end());
    all.insert(all.end(), d.eval.begin(), d.eval.end());
    std::sort(all.begin(), all.end()); // file order, for the examples
    for (const Job *j : all) {
        const size_t l = size_t(j->ex->label_id);
        ++texts[l];
        for (int64_t id : j->out.label_names)
            ++(size_t(id) == l ? names[l] : nameElsewhere[size_t(id)]);
        for (const std::string &t : j->out.markup) {
            auto &v = tags[t];
            v.resize(L, 0);
            ++v[l];
        }
    }
    const int64_t total = int64_t(all.size());
    auto examples = [&](size_t label, const std::string &token, bool markup, int64_t id) {
        std::vector<std::string> out;
        for (const Job *j : all) {
            if (out.size() >= kLeakExamples)
                break;
            if (size_t(j->ex->label_id) != label)
                continue;
            const bool has = markup ? std::find(j->out.markup.begin(), j->out.markup.end(), token.substr(1, token.size() - 2))
                                          != j->out.markup.end()
                                    : std::find(j->out.label_names.begin(), j->out.label_names.end(), id)
                                          != j->out.label_names.end();
            if (has)
                out.push_back(j->ex->path.empty() ? j->ex->where : placeInFile(j->ex->path, token));
        }
        return out;
    };
    auto share = [](int64_t n, int64_t of) { return of > 0 ? double(n) / double(of) : 0.0; };
    for (size_t l = 0; l < L; ++l) {
        const int64_t others = total - texts[l];
        if (texts[l] == 0 || others == 0)
            continue;
        if (share(names[l], texts[l]) >= kLeakLabelShare && share(nameElsewhere[l], others) <= kLeakOtherShare)
            rep.label_in_text.push_back({src.labels[l], src.labels[l], false, texts[l], names[l], others,
                                         nameElsewhere[l], examples(l, src.labels[l], false, int64_t(l))});
        for (const auto &[tag, perLabel] : tags) {
            int64_t elsewhere = 0;
            for (size_t k = 0; k < L; ++k)
                elsewhere += k == l ? 0 : perLabel[k];
            if (share(perLabel[l], texts[l]) >= kLeakMarkupShare && share(elsewhere, others) <= kLeakMarkupOtherShare) {
                const std::string token = "<" + tag + ">";
                rep.label_in_text.push_back(
                    {src.labels[l], token, true, texts[l], perLabel[l], others, elsewhere, examples(l, token, true, -1)});
            }
        }
    }
    auto percent = [](int64_t n, int64_t of) { return std::to_string(int(100.0 * double(n) / double(of) + 0.5)) + "%"; };
    for (const LabelInText &x : rep.label_in_text) {
        std::string where;
        for (const std::string &e : x.examples)
            where += (where.empty() ? "" : ", ") + e;
        rep.warnings.push_back(
            std::string(x.markup ? "the markup tag " + x.token : "the label's name '" + x.token + "'") + " is in "
            + percent(x.label_texts_with, x.label_texts) + " of the texts labelled '" + x.label + "' and in "
            + percent(x.other_texts_with, x.other_texts) + " of the others, within the first max_seq_length tokens (e.g. "
            + where + "): the model can read the label from the text instead of learning it. Remove it from the texts "
            "(e.g. the element that holds the label) before preparing");
    }
}

// split.jsonl: every row of the input with the side it went to (docs/file-formats.md).
std::string splitJsonl(const PrepareOptions &o, const prep::SourceSplits &src, const Sorted &d, const PrepareReport &rep)
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
                else
                    j["label"] = src.labels[size_t(ex.label_id)];
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

// Writes every file to a temporary name first and commits them only when all are complete.
void writeOutputs(const PrepareOptions &o, const prep::SourceSplits &src, Sorted &d, PrepareReport &rep,
                  const std::function<bool()> &stopRequested, std::chrono::steady_clock::time_point t0)
{
    std::unique_ptr<TFRecordWriter> wTrain, wEval, wTest;
    if (!rep.train_path.empty())
        wTrain = std::make_unique<TFRecordWriter>(rep.train_path);
    if (!rep.eval_path.empty())
        wEval = std::make_unique<TFRecordWriter>(rep.eval_path);
    if (!rep.test_path.empty())
        wTest = std::make_unique<TFRecordWriter>(rep.test_path);
    auto writeAll = [](TFRecordWriter *w, std::vector<Job *> &v) {
        if (!w)
            return;
        for (Job *j : v) {
            w->write(j->out.payload);
            std::string().swap(j->out.payload);
        }
    };
    writeAll(wTrain.get(), d.train);
    writeAll(wEval.get(), d.eval);
    writeAll(wTest.get(), d.test);
    rep.train_examples = wTrain ? wTrain->count() : 0;
    rep.eval_examples = wEval ? wEval->count() : 0;
    rep.test_examples = wTest ? wTest->count() : 0;
    if (stopRequested())
        throw Error("prepare", "cancelled", "Nothing was written.");

    rep.processor_type = src.processor;
    rep.text_a_column = src.text_a_column;
    rep.text_b_column = src.text_b_column;
    rep.label_column = src.label_column;
    rep.text_columns_recognised = src.text_columns_recognised;
    rep.label_column_recognised = src.label_column_recognised;
    rep.labels = src.labels;
    rep.regression = src.regression;
    std::string labelsText;
    for (const auto &l : src.labels)
        labelsText += l + "\n";
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (TFRecordWriter *w : {wTrain.get(), wEval.get(), wTest.get()})
        if (w)
            w->commit();
    rep.email_body_only = o.email_body_only;
    rep.strip_quoted_replies = o.strip_quoted_replies;
    writeFileAtomic(rep.split_path, splitJsonl(o, src, d, rep));
    if (!src.regression)
        writeFileAtomic(rep.labels_path, labelsText);
    else
        rep.labels_path.clear();
    writeFileAtomic(rep.report_path, prepareReportJson(rep));
    writeFileAtomic(rep.meta_path, metaJson(o, src, rep, bool(wEval), bool(wTest)));
}

PrepareReport run(const PrepareOptions &o, const PrepareProgress &progress, const std::function<bool()> &stopRequested,
                  const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto report = [&](double f, const std::string &stage) {
        if (progress)
            progress(std::clamp(f, 0.0, 1.0), stage);
    };
    auto throwIfStopped = [&] {
        if (stopRequested())
            throw Error("prepare", "cancelled", "Nothing was written.");
    };
    checkOptions(o);
    PrepareReport rep;
    setOutputs(o, rep);

    report(0.0, "reading");
    prep::SourceSplits src;
    prep::ReadNotes notes;
    readSource(o, !rep.test_path.empty(), src, notes);
    if (!rep.test_path.empty() && !src.hasTest)
        throw Error("test_data_output_path", "the source has no test set (test.tsv / test.csv)",
                    "Leave out the test output, or add a test file.");
    prep::throwBadRows(notes); // the rows' own problems first: the labels are decided from good rows
    prep::assignLabels(o, src, notes);
    prep::throwBadRows(notes);
    throwIfStopped();

    std::vector<Job> jobs = makeJobs(o, src);
    report(0.05, "tokenizing");
    convertAll(o, src, jobs, stopRequested, progress);
    throwIfStopped();

    Sorted sorted = sortConverted(o, src, jobs, notes, rep);
    splitAndCount(o, src, sorted, rep);
    findDuplicates(sorted.train, sorted.eval, rep);
    findLabelsInText(src, sorted, rep);
    addWarnings(src, sorted, notes, rep);
    throwIfStopped();

    report(0.9, "baseline");
    fitBaseline(o, src, sorted, rep, stop);
    throwIfStopped();

    report(0.95, "writing");
    writeOutputs(o, src, sorted, rep, stopRequested, t0);
    report(1.0, "done");
    return rep;
}

} // namespace

std::vector<std::string> prepareTaskNames()
{
    return {"folders", "tsv", "csv", "jsonl", "json", "COLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE", "WNLI"};
}

PrepareReport prepareData(const PrepareOptions &o, const PrepareProgress &progress, const StopToken *stop)
{
    return run(o, progress, [stop] { return stop && stop->stopRequested(); }, stop);
}

} // namespace wb
