// SPDX-License-Identifier: Apache-2.0
// Multi-label reading (docs/multi-label.md, "Data"): which reading a source gets, each row's
// label names, the label set and its checks. Names and semantics after transformers'
// problem_type "multi_label_classification" and scikit-learn's multi-hot label indicator matrix.
#include "core/prepare/preparemultilabel.h"

#include "core/config/optionwords.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace wb::prep {

namespace fs = std::filesystem;

namespace {

// The separators people write between labels when not the one asked for.
const std::vector<std::string> kOtherDelimiters = {"|", ",", ";"};

std::vector<std::string> splitTrimmed(const std::string &text, const std::string &delimiter)
{
    std::vector<std::string> out;
    size_t b = 0;
    while (b <= text.size()) {
        size_t e = delimiter.empty() ? std::string::npos : text.find(delimiter, b);
        if (e == std::string::npos)
            e = text.size();
        std::string part = trimmed(text.substr(b, e - b));
        if (!part.empty() && std::find(out.begin(), out.end(), part) == out.end())
            out.push_back(std::move(part));
        b = e + delimiter.size();
        if (delimiter.empty())
            break;
    }
    return out;
}

std::string quoted(const std::string &s) { return "'" + s + "'"; }

std::string joinNames(const std::vector<std::string> &names, size_t most = 8)
{
    std::string s;
    for (size_t i = 0; i < names.size() && i < most; ++i)
        s += (s.empty() ? "" : ", ") + quoted(names[i]);
    if (names.size() > most)
        s += ", … (" + std::to_string(names.size()) + " in all)";
    return s;
}

// One label value of the train file with where it was written.
struct LabelValue
{
    std::string where, text;
};

// How a candidate separator `c` is used in `values`: the rows holding it, and whether it looks
// like a separator (its pieces recur: a piece is in two different values, or is a whole label).
struct SeparatorUse
{
    int64_t rows = 0;
    std::string example; // "file:line ('a,b')"
    bool recurs = false;
};

SeparatorUse separatorUse(const std::vector<LabelValue> &values, const std::string &c)
{
    SeparatorUse u;
    std::set<std::string> whole;
    std::map<std::string, std::set<std::string>> pieceIn; // piece → distinct values holding it
    for (const LabelValue &v : values) {
        if (v.text.find(c) == std::string::npos) {
            whole.insert(v.text);
            continue;
        }
        if (u.rows++ == 0)
            u.example = v.where + " ('" + v.text + "')";
        for (const std::string &piece : splitTrimmed(v.text, c))
            pieceIn[piece].insert(v.text);
    }
    for (const auto &[piece, in] : pieceIn)
        u.recurs = u.recurs || in.size() >= 2 || whole.count(piece) > 0;
    return u;
}

// The label values of the train file's good rows, split at `delimiter` into their labels.
std::vector<LabelValue> labelPieces(const TextInput &train, const std::string &delimiter, int64_t &rowsWithDelimiter,
                                    std::string &delimiterExample)
{
    std::vector<LabelValue> pieces;
    for (const TextInputRecord &rec : train.records) {
        if (rec.blank || !rec.problem.empty())
            continue;
        const std::string where = train.path + ":" + std::to_string(rec.line);
        std::vector<std::string> values = rec.label_is_list ? rec.label_list : std::vector<std::string>{rec.label};
        for (const std::string &value : values) {
            const std::string text = trimmed(value);
            if (!rec.label_is_list && text.find(delimiter) != std::string::npos && rowsWithDelimiter++ == 0)
                delimiterExample = where + " ('" + text + "')";
            for (std::string &p : splitTrimmed(text, rec.label_is_list ? std::string() : delimiter))
                pieces.push_back({where, std::move(p)});
        }
    }
    return pieces;
}

// Throws when the label column's separators are ambiguous (see chooseTableReading()).
void checkDelimiters(const PrepareOptions &o, const TextInput &train, const std::string &column, int64_t &rowsWithDelimiter)
{
    const std::string &d = o.label_delimiter;
    std::string dExample;
    const std::vector<LabelValue> pieces = labelPieces(train, d, rowsWithDelimiter, dExample);
    for (const std::string &c : kOtherDelimiters) {
        if (d.find(c) != std::string::npos)
            continue;
        const SeparatorUse u = separatorUse(pieces, c);
        if (u.rows < 2 || !u.recurs)
            continue;
        if (rowsWithDelimiter == 0)
            throw Error(train.path,
                        "the label column '" + column + "' never holds the label delimiter '" + d + "', but '" + c
                            + "' separates labels in " + std::to_string(u.rows) + " rows (e.g. " + u.example + ")",
                        PassOption("label_delimiter", c) + " to read several labels per text; if '" + c
                            + "' is part of the label names, " + passOption("problem_type", kSingleLabelProblem) + ".");
        throw Error(train.path,
                    "the label column '" + column + "' mixes label delimiters: '" + d + "' in "
                        + std::to_string(rowsWithDelimiter) + " rows (e.g. " + dExample + ") and '" + c + "' in "
                        + std::to_string(u.rows) + " rows (e.g. " + u.example + ")",
                    "Separate the labels of every row with one delimiter (e.g. replace '" + c + "' by '" + d
                        + "'); if '" + c + "' is part of the label names, leave it.");
    }
}

bool anyList(const TextInput &in, std::string &where)
{
    for (const TextInputRecord &rec : in.records)
        if (rec.label_is_list) {
            where = in.path + ":" + std::to_string(rec.line);
            return true;
        }
    return false;
}

std::string problemTypeHint() { return passOption("problem_type", kMultiLabelProblem); }

} // namespace

void checkMultiLabelOptions(const PrepareOptions &o)
{
    if (!o.problem_type.empty() && o.problem_type != kSingleLabelProblem && o.problem_type != kMultiLabelProblem)
        throw Error("problem_type", "'" + o.problem_type + "' is not a problem type",
                    "Use " + std::string(kSingleLabelProblem) + " or " + kMultiLabelProblem
                        + ", or leave it empty to decide from the data.");
    if (o.label_delimiter.empty())
        throw Error("label_delimiter", "the label delimiter is empty",
                    "Give the text that separates the labels of one text, e.g. " + optionSetting("label_delimiter", "|")
                        + " (the default).");
    if (o.max_labels < 2)
        throw Error("max_labels", "max_labels is " + std::to_string(o.max_labels) + "; it must be at least 2",
                    "the default is 1000");
    if (!o.label_columns.empty() && o.problem_type == kSingleLabelProblem)
        throw Error("label_columns", optionName("label_columns") + " reads one 0/1 column per label (multi-label), but "
                                         + optionSetting("problem_type", kSingleLabelProblem) + " was given",
                    "Leave out one of them.");
}

std::vector<std::string> labelColumnNames(const PrepareOptions &o)
{
    if (trimmed(o.label_columns).empty())
        return {};
    std::vector<std::string> names;
    for (const std::string &raw : splitTrimmed(o.label_columns + ",", ",")) {
        if (std::find(names.begin(), names.end(), raw) != names.end())
            throw Error("label_columns", "the column '" + raw + "' is named twice", "Name each label column once.");
        names.push_back(raw);
    }
    if (names.size() < 2)
        throw Error("label_columns", optionName("label_columns") + " names " + std::to_string(names.size())
                                         + " column; multi-label needs at least 2 labels",
                    "Name one 0/1 column per label, e.g. " + optionSetting("label_columns", "billing,urgent,refund") + ".");
    return names;
}

void chooseTableReading(const PrepareOptions &o, const TextInput &train, SourceSplits &s)
{
    const bool forcedSingle = o.problem_type == kSingleLabelProblem;
    const bool forcedMulti = o.problem_type == kMultiLabelProblem;
    std::string listWhere;
    const bool lists = anyList(train, listWhere);
    if (forcedSingle) {
        if (lists)
            throw Error(listWhere, "the label '" + train.columns.label + "' is a JSON list (several labels), but "
                                       + optionSetting("problem_type", kSingleLabelProblem) + " was given",
                        "Leave out " + optionName("problem_type") + " or " + problemTypeHint() + ".");
        return;
    }
    if (!train.columns.label_columns.empty()) {
        s.multi_label = true;
        s.label_columns = train.columns.label_columns;
        s.labels = s.label_columns;
        s.label_reading = "one 0/1 column per label (" + joinNames(s.label_columns, s.label_columns.size()) + ", "
                          + (train.columns.label_columns_detected ? "recognised: every column but the text holds only 0 and 1"
                                                                  : "given by " + optionName("label_columns"))
                          + ")";
        return;
    }
    if (train.columns.label.empty())
        return;
    int64_t rowsWithDelimiter = 0;
    checkDelimiters(o, train, train.columns.label, rowsWithDelimiter);
    if (!lists && rowsWithDelimiter == 0 && !forcedMulti)
        return;
    s.multi_label = true;
    s.label_delimiter = o.label_delimiter;
    if (lists)
        s.label_reading = "JSON lists in '" + train.columns.label + "' (e.g. " + listWhere + ")";
    else if (rowsWithDelimiter > 0)
        s.label_reading = "the label column '" + train.columns.label + "' split at '" + o.label_delimiter + "' ("
                          + std::to_string(rowsWithDelimiter) + " rows hold several labels)";
    else
        s.label_reading = "the label column '" + train.columns.label + "', one label per row (no row holds '"
                          + o.label_delimiter + "'; multi-label as " + optionSetting("problem_type", kMultiLabelProblem)
                          + " says)";
}

bool recordLabelNames(const TextInputRecord &rec, const SourceSplits &s, std::vector<std::string> &names,
                      std::string &problem)
{
    names.clear();
    if (!s.label_columns.empty()) {
        for (size_t k = 0; k < rec.label_values.size() && k < s.label_columns.size(); ++k) {
            const std::string v = trimmed(rec.label_values[k]);
            if (v == "1" || v == "true")
                names.push_back(s.label_columns[k]);
            else if (v != "0" && v != "false" && !v.empty()) {
                problem = "the label column '" + s.label_columns[k] + "' holds '" + v + "', expected 0 or 1";
                return false;
            }
        }
        return true;
    }
    const std::vector<std::string> values = rec.label_is_list ? rec.label_list : std::vector<std::string>{rec.label};
    for (const std::string &value : values)
        for (std::string &name : splitTrimmed(value, rec.label_is_list ? std::string() : s.label_delimiter))
            if (std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(std::move(name));
    return true;
}

namespace {

// Whether two files hold the same bytes (sizes first; unreadable files are different).
bool sameContents(const std::string &a, const std::string &b)
{
    std::error_code e1, e2;
    if (fs::file_size(a, e1) != fs::file_size(b, e2) || e1 || e2)
        return false;
    try {
        return readWholeFile(a) == readWholeFile(b);
    } catch (const Error &) {
        return false;
    }
}

} // namespace

void mergeFolderLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes)
{
    if (o.problem_type == kSingleLabelProblem)
        return;
    std::map<std::string, std::vector<size_t>> byName; // file name → indices in `merged`
    std::vector<RawExample> merged;
    int64_t shared = 0, differing = 0;
    std::string differingExample;
    for (RawExample &ex : s.train) {
        std::vector<size_t> &copies = byName[fs::path(ex.path).filename().string()];
        const auto same = std::find_if(copies.begin(), copies.end(),
                                       [&](size_t k) { return sameContents(merged[k].path, ex.path); });
        if (same == copies.end()) {
            if (!copies.empty() && differing++ == 0)
                differingExample = merged[copies.front()].path + " and " + ex.path;
            ex.label_names = {ex.label};
            copies.push_back(merged.size());
            merged.push_back(std::move(ex));
            continue;
        }
        RawExample &m = merged[*same];
        shared += m.label_names.size() == 1 ? 1 : 0;
        m.label_names.push_back(ex.label);
    }
    const bool multi = shared > 0 || o.problem_type == kMultiLabelProblem;
    if (multi && differing > 0)
        notes.warnings.push_back(std::to_string(differing) + " file(s) have the name of a file in another label folder "
                                 "but other contents (e.g. " + differingExample + "); they are separate texts");
    if (!multi)
        for (RawExample &ex : merged)
            ex.label_names.clear();
    s.train = std::move(merged);
    if (!multi)
        return;
    s.multi_label = true;
    s.label_reading = shared > 0 ? "folders: " + std::to_string(shared)
                                       + " texts are in several label folders (the same file name and contents); each "
                                         "is one text with the labels of its folders"
                                 : "folders, one label per text (no text is in two label folders; multi-label as "
                                       + optionSetting("problem_type", kMultiLabelProblem) + " says)";
}

namespace {

// The label set of a multi-label source: --label_list, the reader's (0/1 columns, folders), or
// the names of the training rows sorted by byte value (by value when all are numbers).
std::vector<std::string> multiLabelSet(const PrepareOptions &o, const SourceSplits &s)
{
    if (!trimmed(o.label_list).empty()) {
        std::vector<std::string> list = splitTrimmed(o.label_list, ",");
        return list;
    }
    if (!s.labels.empty())
        return s.labels;
    std::set<std::string> names;
    for (const RawExample &ex : s.train)
        if (!ex.skip)
            names.insert(ex.label_names.begin(), ex.label_names.end());
    std::vector<std::string> labels(names.begin(), names.end());
    double a = 0, b = 0;
    if (std::all_of(labels.begin(), labels.end(), [&a](const std::string &n) { return parseNumber(n, a); }))
        std::stable_sort(labels.begin(), labels.end(), [&a, &b](const std::string &x, const std::string &y) {
            parseNumber(x, a);
            parseNumber(y, b);
            return a < b;
        });
    return labels;
}

std::string labelSource(const PrepareOptions &o, const SourceSplits &s)
{
    if (!s.label_columns.empty())
        return "the label columns";
    if (!s.label_delimiter.empty())
        return "the label column '" + s.label_column + "'";
    return "the label folders";
}

void checkLabelCount(const PrepareOptions &o, const SourceSplits &s, const std::vector<std::string> &labels)
{
    if (int64_t(labels.size()) > o.max_labels)
        throw Error(o.input_data_dir,
                    std::to_string(labels.size()) + " distinct labels in " + labelSource(o, s) + " (" + joinNames(labels)
                        + "), more than max_labels = " + std::to_string(o.max_labels),
                    "Check that the column holds labels, not texts (" + optionName("label_column") + ", "
                        + optionName("label_delimiter") + "), or raise " + optionName("max_labels") + ".");
    if (labels.size() < 2)
        throw Error(o.input_data_dir,
                    "multi-label data needs at least 2 labels; " + labelSource(o, s) + " holds "
                        + std::to_string(labels.size()) + (labels.empty() ? "" : " (" + joinNames(labels) + ")"),
                    "Check " + optionName("label_column") + " and " + optionName("label_delimiter")
                        + "; a yes/no label is single-label: " + passOption("problem_type", kSingleLabelProblem) + ".");
}

// A label on every train/eval text teaches nothing: an error unless allowed.
void checkConstantLabels(const PrepareOptions &o, const SourceSplits &s, const std::vector<std::string> &labels)
{
    std::vector<int64_t> count(labels.size(), 0);
    int64_t texts = 0;
    for (const std::vector<RawExample> *v : {&s.train, &s.eval})
        for (const RawExample &ex : *v) {
            if (ex.skip)
                continue;
            ++texts;
            for (const int64_t id : ex.label_ids)
                ++count[size_t(id)];
        }
    if (o.allow_constant_labels || texts < 2)
        return;
    for (size_t l = 0; l < labels.size(); ++l)
        if (count[l] == texts)
            throw Error(o.input_data_dir,
                        "the label '" + labels[l] + "' is on every one of the " + std::to_string(texts)
                            + " texts: a model learns nothing from it",
                        "Remove it from the data, or " + passOption("allow_constant_labels") + " to keep it.");
}

} // namespace

void assignMultiLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes)
{
    for (RawExample &ex : s.test) {
        ex.label_ids.clear();
        ex.label_id = 0;
    }
    const std::vector<std::string> labels = multiLabelSet(o, s);
    checkLabelCount(o, s, labels);
    std::map<std::string, int64_t> index;
    for (size_t i = 0; i < labels.size(); ++i)
        if (!index.emplace(labels[i], int64_t(i)).second)
            throw Error("label_list", "the label '" + labels[i] + "' appears twice in " + optionName("label_list"),
                        "Name each label once.");
    const std::string source = !trimmed(o.label_list).empty() ? optionName("label_list") : "the training data";
    for (std::vector<RawExample> *v : {&s.train, &s.eval})
        for (RawExample &ex : *v) {
            if (ex.skip)
                continue;
            ex.label_ids.clear();
            ex.label_id = 0;
            for (const std::string &name : ex.label_names) {
                const auto it = index.find(name);
                if (it != index.end()) {
                    ex.label_ids.push_back(it->second);
                    continue;
                }
                badRow(o.skip_bad_rows, notes, ex.where,
                       "the label '" + name + "' is not one of the labels of " + source + " (" + joinNames(labels) + ")",
                       "Fix the label (check for typos and stray characters)", "to skip the row",
                       {{"label_list", "", "with the label added"}});
                ex.skip = true;
                break;
            }
            std::sort(ex.label_ids.begin(), ex.label_ids.end());
        }
    checkConstantLabels(o, s, labels);
    s.labels = labels;
}

} // namespace wb::prep
