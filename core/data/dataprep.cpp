// SPDX-License-Identifier: Apache-2.0
#include "core/data/dataprep.h"

#include "core/config/jsonfile.h"
#include "core/data/examplecodec.h"
#include "core/data/fulltokenizer.h"
#include "core/data/tfrecordwriter.h"
#include "core/data/unicodetext.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace wb {

namespace fs = std::filesystem;

namespace {

enum class Split { Train, Eval, Test };

struct RawExample
{
    std::string text_a;
    std::string text_b;
    std::string path;     // folders: read the text from this file
    std::string label;    // label string (classification)
    float value = 0.0f;   // regression label
    std::string where;    // "file:line" for messages
};

struct GlueLayout
{
    const char *processor;
    std::vector<std::string> labels; // empty: regression
    bool skipHeaderTrain;            // CoLA has no header in train/dev
    int a, b, label;                 // columns; b -1: single; label -1: last column
    int testA, testB;
    const char *testLabel;
    bool skipMalformed;              // QQP
};

std::string upper(std::string s)
{
    for (char &c : s)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

bool glueLayout(const std::string &name, GlueLayout &g)
{
    const std::string n = upper(name);
    const std::vector<std::string> bin = {"0", "1"};
    const std::vector<std::string> nli = {"contradiction", "entailment", "neutral"};
    const std::vector<std::string> ent = {"entailment", "not_entailment"};
    if (n == "COLA")
        g = {"COLA", bin, false, 3, -1, 1, 1, -1, "0", false};
    else if (n == "SST-2" || n == "SST2")
        g = {"SST-2", bin, true, 0, -1, 1, 1, -1, "0", false};
    else if (n == "MRPC")
        g = {"MRPC", bin, true, 3, 4, 0, 3, 4, "0", false};
    else if (n == "QQP")
        g = {"QQP", bin, true, 3, 4, 5, 1, 2, "0", true};
    else if (n == "STS-B" || n == "STSB")
        g = {"STS-B", {}, true, 7, 8, 9, 7, 8, "0", false};
    else if (n == "MNLI")
        g = {"MNLI", nli, true, 8, 9, -1, 8, 9, "contradiction", false};
    else if (n == "QNLI")
        g = {"QNLI", ent, true, 1, 2, -1, 1, 2, "entailment", false};
    else if (n == "RTE")
        g = {"RTE", ent, true, 1, 2, 3, 1, 2, "entailment", false};
    else if (n == "WNLI")
        g = {"WNLI", bin, true, 1, 2, 3, 1, 2, "0", false};
    else
        return false;
    return true;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot read the file", "Check that it exists and is readable.");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Splits TSV text (no quoting, like Python csv with quotechar=None) into rows.
std::vector<std::vector<std::string>> parseTsv(const std::string &text)
{
    std::vector<std::vector<std::string>> rows;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(pos, end - pos);
        pos = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::vector<std::string> row;
        size_t b = 0;
        while (true) {
            const size_t t = line.find('\t', b);
            row.push_back(line.substr(b, t == std::string::npos ? std::string::npos : t - b));
            if (t == std::string::npos)
                break;
            b = t + 1;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// RFC 4180 CSV: quoted fields may hold commas, quotes ("") and newlines.
std::vector<std::vector<std::string>> parseCsv(const std::string &text, const std::string &path)
{
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, fieldStarted = false;
    size_t line = 1, quoteLine = 1;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field.push_back('"');
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n')
                    ++line;
                field.push_back(c);
            }
            continue;
        }
        if (c == '"' && !fieldStarted) {
            quoted = fieldStarted = true;
            quoteLine = line;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
            fieldStarted = false;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            row.push_back(std::move(field));
            field.clear();
            fieldStarted = false;
            rows.push_back(std::move(row));
            row.clear();
            ++line;
        } else {
            field.push_back(c);
            fieldStarted = true;
        }
    }
    if (quoted)
        throw Error(path + ":" + std::to_string(quoteLine), "a quoted CSV field is not closed before the end of the file",
                    "Close the quote, or escape quotes inside fields as \"\".");
    if (fieldStarted || !row.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

// Text-level encoding repair; counts what was fixed.
struct EncodingCounts
{
    int64_t bom = 0, latin1 = 0, nul = 0;
};

std::string normalizeText(std::string text, EncodingCounts &counts)
{
    if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF && static_cast<unsigned char>(text[1]) == 0xBB
        && static_cast<unsigned char>(text[2]) == 0xBF) {
        text.erase(0, 3);
        ++counts.bom;
    }
    if (text.find('\0') != std::string::npos)
        ++counts.nul;
    if (!isValidUtf8(text)) {
        ++counts.latin1;
        std::string out;
        out.reserve(text.size() + text.size() / 8);
        for (unsigned char c : text)
            appendUtf8(out, c);
        return out;
    }
    return text;
}

struct SourceSplits
{
    std::vector<RawExample> train, eval, test;
    bool hasEval = false, hasTest = false;
    std::vector<std::string> labels;
    bool regression = false;
    std::string processor;
};

bool isHidden(const fs::path &p)
{
    const std::string n = p.filename().string();
    return !n.empty() && n[0] == '.';
}

void loadFolders(const std::string &dir, SourceSplits &s)
{
    std::vector<fs::path> labelDirs;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.is_directory() && !isHidden(e.path()))
            labelDirs.push_back(e.path());
    std::sort(labelDirs.begin(), labelDirs.end(),
              [](const fs::path &a, const fs::path &b) { return a.filename().string() < b.filename().string(); });
    if (labelDirs.size() < 2)
        throw Error(dir, "a folder-per-label data set needs at least two label folders, found "
                             + std::to_string(labelDirs.size()),
                    "Put the examples of each class in its own sub-folder, e.g. ham/ and spam/.");
    for (const fs::path &ld : labelDirs) {
        const std::string label = ld.filename().string();
        std::vector<std::string> files;
        for (const auto &e : fs::directory_iterator(ld))
            if (e.is_regular_file() && !isHidden(e.path()))
                files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
        if (files.empty())
            throw Error(ld.string(), "the label folder holds no files", "Remove it or add examples.");
        for (std::string &f : files) {
            RawExample ex;
            ex.path = f;
            ex.where = f;
            ex.label = label;
            s.train.push_back(std::move(ex));
        }
        s.labels.push_back(label);
    }
    s.processor = "FOLDERS";
}

std::string findFile(const std::string &dir, const std::vector<std::string> &names)
{
    for (const std::string &n : names) {
        const fs::path p = fs::path(dir) / n;
        if (fs::is_regular_file(p))
            return p.string();
    }
    return {};
}

std::vector<RawExample> loadTable(const std::string &path, bool csv, const PrepareOptions &o, bool needLabel,
                                  EncodingCounts &enc)
{
    const std::string text = normalizeText(readFile(path), enc);
    const auto rows = csv ? parseCsv(text, path) : parseTsv(text);
    if (rows.empty())
        throw Error(path, "the file is empty", "The first row must name the columns.");
    const auto &header = rows[0];
    auto column = [&](const std::string &name, bool required) -> int {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return int(i);
        if (!required)
            return -1;
        std::string names;
        for (const auto &h : header)
            names += (names.empty() ? "" : ", ") + std::string("'") + h + "'";
        throw Error(path, "the header has no column '" + name + "' (columns: " + names + ")",
                    "Name the columns with --text_a_column, --text_b_column and --label_column.");
    };
    const int a = column(o.text_a_column, true);
    const int b = o.text_b_column.empty() ? -1 : column(o.text_b_column, true);
    const int l = column(o.label_column, needLabel);
    std::vector<RawExample> out;
    for (size_t r = 1; r < rows.size(); ++r) {
        const auto &row = rows[r];
        if (row.size() == 1 && row[0].empty())
            continue;
        const int need = std::max({a, b, l});
        const std::string where = path + ":" + std::to_string(r + 1);
        if (int(row.size()) <= need)
            throw Error(where, "the row has " + std::to_string(row.size()) + " columns, the header "
                                   + std::to_string(header.size()),
                        csv ? "Quote fields that contain commas or line breaks." : "Fields must not contain tabs.");
        RawExample ex;
        ex.text_a = row[size_t(a)];
        if (b >= 0)
            ex.text_b = row[size_t(b)];
        ex.label = l >= 0 ? row[size_t(l)] : std::string();
        ex.where = where;
        out.push_back(std::move(ex));
    }
    return out;
}

void loadGeneric(const PrepareOptions &o, bool csv, SourceSplits &s, EncodingCounts &enc)
{
    const std::string ext = csv ? ".csv" : ".tsv";
    if (fs::is_regular_file(o.input_data_dir)) {
        s.train = loadTable(o.input_data_dir, csv, o, true, enc);
    } else {
        const std::string train = findFile(o.input_data_dir, {"train" + ext});
        if (train.empty())
            throw Error(o.input_data_dir, "no train" + ext + " in this folder",
                        "Pass the data file itself as --input_data_dir, or name it train" + ext + ".");
        s.train = loadTable(train, csv, o, true, enc);
        const std::string dev = findFile(o.input_data_dir, {"dev" + ext, "eval" + ext, "validation" + ext});
        if (!dev.empty()) {
            s.eval = loadTable(dev, csv, o, true, enc);
            s.hasEval = true;
        }
        const std::string test = findFile(o.input_data_dir, {"test" + ext});
        if (!test.empty()) {
            s.test = loadTable(test, csv, o, false, enc);
            s.hasTest = true;
        }
    }
    std::set<std::string> seen;
    bool allInts = true;
    for (const auto &ex : s.train) {
        if (seen.insert(ex.label).second) {
            char *end = nullptr;
            std::strtoll(ex.label.c_str(), &end, 10);
            allInts = allInts && !ex.label.empty() && end && *end == '\0';
        }
    }
    s.labels.assign(seen.begin(), seen.end());
    if (allInts)
        std::sort(s.labels.begin(), s.labels.end(),
                  [](const std::string &x, const std::string &y) { return std::stoll(x) < std::stoll(y); });
    if (s.labels.size() < 2)
        throw Error(o.input_data_dir, "the training data has " + std::to_string(s.labels.size())
                                          + " distinct label(s) in column '" + o.label_column + "'; a classifier needs at least 2",
                    "Check --label_column.");
    s.processor = csv ? "CSV" : "TSV";
}

std::vector<RawExample> loadGlueFile(const std::string &path, const GlueLayout &g, bool test, int64_t &skipped,
                                     EncodingCounts &enc)
{
    const std::string text = normalizeText(readFile(path), enc);
    const auto rows = parseTsv(text);
    const bool skipHeader = test || g.skipHeaderTrain;
    std::vector<RawExample> out;
    for (size_t r = skipHeader ? 1 : 0; r < rows.size(); ++r) {
        const auto &row = rows[r];
        if (row.size() == 1 && row[0].empty())
            continue;
        const int a = test ? g.testA : g.a;
        const int b = test ? g.testB : g.b;
        const int l = test ? -2 : (g.label < 0 ? int(row.size()) - 1 : g.label);
        const int need = std::max({a, b, l});
        const std::string where = path + ":" + std::to_string(r + 1);
        if (int(row.size()) <= need) {
            if (g.skipMalformed) {
                ++skipped;
                continue;
            }
            throw Error(where, "the row has " + std::to_string(row.size()) + " tab-separated columns; "
                                   + g.processor + " needs at least " + std::to_string(need + 1),
                        std::string("Check that the file is the GLUE ") + g.processor + " TSV.");
        }
        RawExample ex;
        ex.text_a = row[size_t(a)];
        if (b >= 0)
            ex.text_b = row[size_t(b)];
        ex.label = test ? g.testLabel : row[size_t(l)];
        ex.where = where;
        if (g.labels.empty()) {
            char *end = nullptr;
            ex.value = std::strtof(ex.label.c_str(), &end);
            if (!test && (ex.label.empty() || *end != '\0'))
                throw Error(where, "the label '" + ex.label + "' is not a number", "STS-B labels are scores 0-5.");
        }
        out.push_back(std::move(ex));
    }
    return out;
}

void loadGlue(const PrepareOptions &o, const GlueLayout &g, bool wantTest, SourceSplits &s, int64_t &skipped,
              EncodingCounts &enc)
{
    const std::string n = g.processor;
    const std::string mnli = o.mnli_type == "mismatched" ? "mismatched" : "matched";
    if (n == "MNLI" && o.mnli_type != "matched" && o.mnli_type != "mismatched")
        throw Error("mnli_type", "Invalid `mnli_type`: " + o.mnli_type, "Use matched or mismatched.");
    const std::string train = findFile(o.input_data_dir, {"train.tsv"});
    if (train.empty())
        throw Error(o.input_data_dir, "no train.tsv in this folder",
                    "Point --input_data_dir at the unpacked GLUE task folder (e.g. glue_data/" + n + ").");
    s.train = loadGlueFile(train, g, false, skipped, enc);
    const std::string dev = findFile(o.input_data_dir, {n == "MNLI" ? "dev_" + mnli + ".tsv" : "dev.tsv"});
    if (!dev.empty()) {
        s.eval = loadGlueFile(dev, g, false, skipped, enc);
        s.hasEval = true;
    }
    if (wantTest) {
        const std::string test = findFile(o.input_data_dir, {n == "MNLI" ? "test_" + mnli + ".tsv" : "test.tsv"});
        if (test.empty())
            throw Error(o.input_data_dir, "a test output was requested but there is no test.tsv",
                        "Leave out --test_data_output_path, or add the file.");
        s.test = loadGlueFile(test, g, true, skipped, enc);
        s.hasTest = true;
    }
    s.labels = g.labels;
    s.regression = g.labels.empty();
    s.processor = n;
}

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

struct Features
{
    std::vector<int64_t> ids, mask, seg;
    bool truncated = false;
};

void buildFeatures(const FullTokenizer &tok, const std::string &a, const std::string &b, bool pair, int64_t maxLen,
                   int32_t cls, int32_t sep, Features &f)
{
    const size_t limit = size_t(std::max<int64_t>(0, pair ? maxLen - 3 : maxLen - 2));
    std::vector<int32_t> ta = tok.tokenizeToIds(a, limit + 1);
    std::vector<int32_t> tb;
    if (pair)
        tb = tok.tokenizeToIds(b, limit + 1);
    f.truncated = ta.size() > limit || tb.size() > limit;
    ta.resize(std::min(ta.size(), limit));
    tb.resize(std::min(tb.size(), limit));
    if (pair) {
        // _truncate_seq_pair: pop from the longer list (b when equal) until the total fits.
        while (ta.size() + tb.size() > limit) {
            f.truncated = true;
            if (ta.size() > tb.size())
                ta.pop_back();
            else
                tb.pop_back();
        }
    }
    f.ids.assign(size_t(maxLen), 0);
    f.mask.assign(size_t(maxLen), 0);
    f.seg.assign(size_t(maxLen), 0);
    size_t k = 0;
    auto put = [&](int32_t id, int64_t segment) {
        f.ids[k] = id;
        f.mask[k] = 1;
        f.seg[k] = segment;
        ++k;
    };
    put(cls, 0);
    for (int32_t id : ta)
        put(id, 0);
    put(sep, 0);
    if (pair) {
        for (int32_t id : tb)
            put(id, 1);
        put(sep, 1);
    }
}

std::string defaultPath(const std::string &given, const std::string &dir, const char *name)
{
    if (!given.empty())
        return given;
    if (dir.empty())
        return {};
    return (fs::path(dir) / name).string();
}

} // namespace

std::vector<std::string> prepareTaskNames()
{
    return {"folders", "tsv", "csv", "COLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE", "WNLI"};
}

PrepareReport prepareData(const PrepareOptions &o, const PrepareProgress &progress, const std::atomic<bool> *cancel)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto report = [&](double f, const std::string &stage) {
        if (progress)
            progress(std::clamp(f, 0.0, 1.0), stage);
    };
    auto cancelled = [&] { return cancel && cancel->load(); };
    auto throwIfCancelled = [&] {
        if (cancelled())
            throw Error("prepare", "cancelled", "Nothing was written.");
    };

    // Options.
    if (o.input_data_dir.empty())
        throw Error("input_data_dir", "no input data was given", "Pass --input_data_dir=<folder or file>.");
    if (!fs::exists(o.input_data_dir))
        throw Error("input_data_dir", "'" + o.input_data_dir + "' does not exist", "Check the path.");
    if (o.vocab_file.empty())
        throw Error("vocab_file", "FLAG vocab_file for word-piece tokenizer is not specified.",
                    "Pass --vocab_file=vocab.txt (the vocab of the model you will fine-tune).");
    if (o.max_seq_length < 3 || o.max_seq_length > 100000)
        throw Error("max_seq_length", "must be at least 3 (room for [CLS] and [SEP]), got "
                                          + std::to_string(o.max_seq_length));
    if (!(o.eval_fraction >= 0.0 && o.eval_fraction < 1.0))
        throw Error("eval_fraction", "must be in [0, 1), got " + std::to_string(o.eval_fraction));
    PrepareReport rep;
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
    rep.labels_path = (fs::path(rep.meta_path).parent_path() / "labels.txt").string();

    // Read the source.
    report(0.0, "reading");
    const std::string task = o.classification_task_name;
    const std::string lowerTask = [&] {
        std::string t = task;
        for (char &c : t)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return t;
    }();
    SourceSplits src;
    EncodingCounts enc;
    GlueLayout glue{};
    if (lowerTask == "folders" || lowerTask == "folder") {
        if (!fs::is_directory(o.input_data_dir))
            throw Error("input_data_dir", "'" + o.input_data_dir + "' is not a folder",
                        "For the folders format, pass the folder that holds one sub-folder per label.");
        loadFolders(o.input_data_dir, src);
    } else if (lowerTask == "tsv" || lowerTask == "csv") {
        loadGeneric(o, lowerTask == "csv", src, enc);
    } else if (glueLayout(task, glue)) {
        loadGlue(o, glue, !rep.test_path.empty(), src, rep.skipped_rows, enc);
    } else {
        std::string names;
        for (const auto &n : prepareTaskNames())
            names += (names.empty() ? "" : ", ") + n;
        throw Error("classification_task_name", "Task not found: " + task, "Use one of " + names + ".");
    }
    if (src.train.empty())
        throw Error(o.input_data_dir, "the input holds no training examples", "Check the folder or file.");
    if (!rep.test_path.empty() && !src.hasTest)
        throw Error("test_data_output_path", "the source has no test set (test.tsv / test.csv)",
                    "Leave out the test output, or add a test file.");
    throwIfCancelled();

    std::map<std::string, int64_t> labelIndex;
    for (size_t i = 0; i < src.labels.size(); ++i)
        labelIndex[src.labels[i]] = int64_t(i);

    // Split and order: shuffled training order; eval split off when there is no dev set.
    shuffleSeeded(src.train, o.seed);
    if (!src.hasEval && !rep.eval_path.empty()) {
        const size_t nEval = size_t(double(src.train.size()) * o.eval_fraction + 0.5);
        if (nEval == 0 && o.eval_fraction > 0)
            rep.warnings.push_back("too few examples to split off an eval set");
        src.eval.assign(src.train.end() - long(nEval), src.train.end());
        src.train.resize(src.train.size() - nEval);
    }
    if (rep.eval_path.empty())
        src.eval.clear();
    if (rep.train_path.empty())
        src.train.clear();

    // Convert: all splits in one list, tokenized by worker threads.
    struct Job
    {
        RawExample *ex;
        Split split;
    };
    std::vector<Job> jobs;
    for (auto &e : src.train)
        jobs.push_back({&e, Split::Train});
    for (auto &e : src.eval)
        jobs.push_back({&e, Split::Eval});
    for (auto &e : src.test)
        jobs.push_back({&e, Split::Test});

    const FullTokenizer tok(o.vocab_file, o.do_lower_case, o.max_input_chars_per_word);
    const int32_t cls = tok.vocab().id("[CLS]");
    const int32_t sep = tok.vocab().id("[SEP]");
    tok.vocab().id("[UNK]");
    const bool isGlue = src.processor != "FOLDERS" && src.processor != "TSV" && src.processor != "CSV";
    const bool pair = std::any_of(jobs.begin(), jobs.end(), [](const Job &j) { return !j.ex->text_b.empty(); })
        || (isGlue && glue.b >= 0) || (!isGlue && !o.text_b_column.empty());

    std::vector<std::string> payloads(jobs.size());
    std::atomic<size_t> nextJob{0}, doneJobs{0};
    std::atomic<int64_t> truncated{0}, empty{0};
    std::mutex errMu;
    std::exception_ptr firstError;
    EncodingCounts fileEnc;
    std::mutex encMu;
    std::condition_variable doneCv;
    const size_t n = jobs.size();
    auto worker = [&] {
        Features f;
        EncodingCounts local;
        try {
            while (true) {
                if (cancelled())
                    break;
                {
                    std::lock_guard<std::mutex> lock(errMu);
                    if (firstError)
                        break;
                }
                const size_t i = nextJob.fetch_add(1);
                if (i >= n)
                    break;
                RawExample &ex = *jobs[i].ex;
                if (!ex.path.empty())
                    ex.text_a = normalizeText(readFile(ex.path), local);
                if (ex.text_a.empty() && ex.text_b.empty())
                    ++empty;
                buildFeatures(tok, ex.text_a, ex.text_b, pair, o.max_seq_length, cls, sep, f);
                if (!ex.path.empty())
                    std::string().swap(ex.text_a);
                if (f.truncated)
                    ++truncated;
                ClassifierRecord r;
                r.input_ids = f.ids;
                r.input_mask = f.mask;
                r.segment_ids = f.seg;
                if (src.regression) {
                    r.float_label = true;
                    r.label_value = ex.value;
                } else {
                    const auto it = labelIndex.find(ex.label);
                    if (it == labelIndex.end() && jobs[i].split != Split::Test)
                        throw Error(ex.where, "unknown label '" + ex.label + "' (the labels are the training set's: "
                                                  + [&] {
                                                        std::string s;
                                                        for (const auto &l : src.labels)
                                                            s += (s.empty() ? "" : ", ") + l;
                                                        return s;
                                                    }() + ")",
                                    "Fix the label, or check for a byte order mark or stray spaces.");
                    r.label_id = it == labelIndex.end() ? 0 : it->second;
                }
                payloads[i] = encodeClassifierRecord(r);
                if (doneJobs.fetch_add(1) + 1 == n)
                    doneCv.notify_all();
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(errMu);
            if (!firstError)
                firstError = std::current_exception();
        }
        {
            std::lock_guard<std::mutex> lock(encMu);
            fileEnc.bom += local.bom;
            fileEnc.latin1 += local.latin1;
            fileEnc.nul += local.nul;
        }
        doneCv.notify_all();
    };
    const int threads = std::max(1, std::min<int>(o.num_threads, int(std::max<size_t>(1, n / 64))));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    {
        std::mutex waitMu;
        std::unique_lock<std::mutex> lock(waitMu);
        int live = threads;
        (void)live;
        while (doneJobs.load() < n) {
            doneCv.wait_for(lock, std::chrono::milliseconds(100));
            report(0.05 + 0.85 * double(doneJobs.load()) / double(std::max<size_t>(1, n)), "tokenizing");
            std::lock_guard<std::mutex> el(errMu);
            if (firstError || cancelled())
                break;
        }
    }
    for (auto &t : pool)
        t.join();
    if (firstError)
        std::rethrow_exception(firstError);
    throwIfCancelled();

    // Write: every file to a temporary name first; rename only when all are complete.
    report(0.9, "writing");
    std::unique_ptr<TFRecordWriter> wTrain, wEval, wTest;
    if (!rep.train_path.empty())
        wTrain = std::make_unique<TFRecordWriter>(rep.train_path);
    if (!rep.eval_path.empty())
        wEval = std::make_unique<TFRecordWriter>(rep.eval_path);
    if (!rep.test_path.empty())
        wTest = std::make_unique<TFRecordWriter>(rep.test_path);
    for (size_t i = 0; i < n; ++i) {
        switch (jobs[i].split) {
        case Split::Train:
            wTrain->write(payloads[i]);
            if (!src.regression)
                ++rep.train_label_counts[jobs[i].ex->label];
            break;
        case Split::Eval: wEval->write(payloads[i]); break;
        case Split::Test: wTest->write(payloads[i]); break;
        }
        std::string().swap(payloads[i]);
    }
    rep.train_examples = wTrain ? wTrain->count() : 0;
    rep.eval_examples = wEval ? wEval->count() : 0;
    rep.test_examples = wTest ? wTest->count() : 0;
    throwIfCancelled();

    nlohmann::ordered_json meta;
    meta["processor_type"] = src.processor;
    meta["train_data_size"] = rep.train_examples;
    meta["max_seq_length"] = o.max_seq_length;
    if (wTest)
        meta["test_data_size"] = rep.test_examples;
    if (src.regression) {
        meta["task_type"] = "bert_regression";
        meta["label_type"] = "float";
    } else {
        meta["task_type"] = "bert_classification";
        meta["num_labels"] = int64_t(src.labels.size());
    }
    if (wEval)
        meta["eval_data_size"] = rep.eval_examples;
    std::string labelsText;
    for (const auto &l : src.labels)
        labelsText += l + "\n";

    if (wTrain)
        wTrain->commit();
    if (wEval)
        wEval->commit();
    if (wTest)
        wTest->commit();
    if (!src.regression)
        writeFileAtomic(rep.labels_path, labelsText);
    else
        rep.labels_path.clear();
    writeFileAtomic(rep.meta_path, meta.dump(4) + "\n");

    rep.processor_type = src.processor;
    rep.labels = src.labels;
    rep.regression = src.regression;
    rep.truncated_examples = truncated.load();
    rep.empty_texts = empty.load();
    rep.texts_with_bom = enc.bom + fileEnc.bom;
    rep.texts_latin1 = enc.latin1 + fileEnc.latin1;
    rep.texts_with_nul = enc.nul + fileEnc.nul;
    if (rep.texts_latin1)
        rep.warnings.push_back(std::to_string(rep.texts_latin1) + " text(s) were not valid UTF-8 and were read as Latin-1");
    if (rep.texts_with_bom)
        rep.warnings.push_back(std::to_string(rep.texts_with_bom) + " text(s) started with a byte order mark (removed)");
    if (rep.texts_with_nul)
        rep.warnings.push_back(std::to_string(rep.texts_with_nul) + " text(s) contained NUL bytes (dropped)");
    if (rep.skipped_rows)
        rep.warnings.push_back(std::to_string(rep.skipped_rows) + " malformed row(s) skipped");
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report(1.0, "done");
    return rep;
}

} // namespace wb
