// SPDX-License-Identifier: Apache-2.0
// The label rules of prepareData() (docs/file-formats.md, "Labels"): a fixed list
// (--label_list, as the get_labels() of tensorflow/models' classifier_data_lib.py processors),
// or the training labels; numbers written differently ("1", "1.0", "+1") are one class.
#include "core/config/optionwords.h"
#include "core/prepare/preparemultilabel.h"
#include "core/prepare/preparesource.h"

#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace wb::prep {

namespace {

std::string joinNames(const std::vector<std::string> &names)
{
    std::string s;
    for (const auto &n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

// Integral numbers are named in integer form ("1.0" → "1"), others keep their first spelling.
std::string numberName(double v, const std::string &firstSpelling)
{
    if (std::floor(v) == v && std::fabs(v) < 9.0e15)
        return std::to_string(static_cast<long long>(v));
    return firstSpelling;
}

struct Seen
{
    std::string first_where;
    int64_t rows = 0;
};

std::vector<std::string> parseLabelList(const std::string &list)
{
    std::vector<std::string> out;
    size_t b = 0;
    while (b <= list.size()) {
        size_t e = list.find(',', b);
        if (e == std::string::npos)
            e = list.size();
        const std::string name = trimmed(list.substr(b, e - b));
        if (name.empty())
            throw Error("label_list", "an entry of " + optionName("label_list") + " is empty ('" + list + "')",
                        "Give the labels separated by commas, e.g. " + optionSetting("label_list", "neg,pos") + ".");
        if (std::find(out.begin(), out.end(), name) != out.end())
            throw Error("label_list", "the label '" + name + "' appears twice in " + optionName("label_list"),
                        "Name each label once.");
        out.push_back(name);
        b = e + 1;
    }
    return out;
}

} // namespace

namespace {

// A column of numbers with a few words (or the reverse): the minority rows are bad rows,
// and their labels leave `order`.
void dropMinorityKind(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes, const std::map<std::string, Seen> &seen,
                      std::vector<std::string> &order)
{
    int64_t numericRows = 0, wordRows = 0;
    double v = 0;
    for (const auto &[name, info] : seen)
        (parseNumber(name, v) ? numericRows : wordRows) += info.rows;
    if (numericRows == 0 || wordRows == 0)
        return;
    const bool dropWords = numericRows >= wordRows;
    for (auto &ex : s.train) {
        if (parseNumber(ex.label, v) == dropWords)
            continue;
        badRow(o.skip_bad_rows, notes, ex.where,
               "the label '" + ex.label + "' is " + (dropWords ? "a word" : "a number") + ", most labels in column '"
                   + s.label_column + "' are " + (dropWords ? "numbers" : "words"),
               "Fix the label (is the row shifted?)", "to skip such rows", {{"label_list", "", "to name every label"}});
        ex.skip = true;
    }
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](const std::string &n) { return parseNumber(n, v) != dropWords; }),
                order.end());
}

// Numeric labels: one class per value, ordered by value, named in integer form when integral;
// other spellings of a value are noted (and remembered in `warnedSpellings`).
std::vector<std::string> numericLabels(const std::vector<std::string> &order, std::map<std::string, Seen> &seen,
                                       std::set<std::string> &warnedSpellings, ReadNotes &notes)
{
    std::vector<std::string> labels;
    std::map<double, std::vector<std::string>> byValue;
    double v = 0;
    for (const auto &n : order) {
        parseNumber(n, v);
        byValue[v].push_back(n);
    }
    for (const auto &[value, spellings] : byValue) {
        const std::string name = numberName(value, spellings.front());
        labels.push_back(name);
        if (spellings.size() == 1 && spellings.front() == name)
            continue;
        std::string where;
        for (const auto &sp : spellings)
            warnedSpellings.insert(sp);
        for (const auto &sp : spellings)
            if (sp != name)
                where += (where.empty() ? "" : ", ") + std::string("'") + sp + "' first at " + seen[sp].first_where;
        notes.warnings.push_back("labels written as the number " + name + " are one class '" + name + "' (" + where
                                 + ")");
    }
    return labels;
}

// Word labels: sorted by byte value; labels that differ only in letter case are noted.
std::vector<std::string> wordLabels(const std::vector<std::string> &order, std::map<std::string, Seen> &seen,
                                    ReadNotes &notes)
{
    std::vector<std::string> labels = order;
    std::sort(labels.begin(), labels.end());
    std::map<std::string, std::vector<std::string>> byCase;
    for (const auto &n : labels)
        byCase[lowerAscii(n)].push_back(n);
    for (const auto &[key, names] : byCase)
        if (names.size() > 1)
            notes.warnings.push_back("the labels " + joinNames(names)
                                     + " differ only in letter case and are separate classes ("
                                     + seen[names[0]].first_where + ", " + seen[names[1]].first_where
                                     + "); use one spelling if they mean the same class");
    return labels;
}

// The label set of the training rows (docs/file-formats.md, "Labels").
std::vector<std::string> labelsFromTraining(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes,
                                            std::set<std::string> &warnedSpellings)
{
    // Labels from the training rows, in file order of first appearance.
    std::map<std::string, Seen> seen;
    std::vector<std::string> order;
    for (const auto &ex : s.train) {
        auto [it, added] = seen.try_emplace(ex.label);
        if (added) {
            it->second.first_where = ex.where;
            order.push_back(ex.label);
        }
        ++it->second.rows;
    }
    dropMinorityKind(o, s, notes, seen, order);
    double v = 0;
    const bool allNumeric = !order.empty() && std::all_of(order.begin(), order.end(),
                                                           [&v](const std::string &n) { return parseNumber(n, v); });
    std::vector<std::string> labels =
        allNumeric ? numericLabels(order, seen, warnedSpellings, notes) : wordLabels(order, seen, notes);
    if (labels.size() < 2)
        throw Error(o.input_data_dir, "the training data has " + std::to_string(labels.size())
                                          + " distinct label(s) in column '" + s.label_column
                                          + "'; a classifier needs at least 2",
                    "Check " + optionName("label_column") + ".");
    return labels;
}

// Sets each train/eval row's label_id from `labels` (numbers written differently match their
// value); a label outside the set is a bad row.
void applyLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes, const std::vector<std::string> &labels,
                 const std::set<std::string> &warnedSpellings)
{
    const bool fromList = !o.label_list.empty();
    std::map<std::string, int64_t> index;
    std::map<double, int64_t> numericIndex;
    double v = 0;
    for (size_t i = 0; i < labels.size(); ++i) {
        index[labels[i]] = int64_t(i);
        if (parseNumber(labels[i], v))
            numericIndex.emplace(v, int64_t(i));
    }
    std::map<std::string, std::string> unified; // spelling → "first where"
    auto assign = [&](std::vector<RawExample> &rows) {
        for (auto &ex : rows) {
            if (ex.skip)
                continue;
            auto it = index.find(ex.label);
            if (it != index.end()) {
                ex.label_id = it->second;
                continue;
            }
            if (parseNumber(ex.label, v)) {
                const auto nit = numericIndex.find(v);
                if (nit != numericIndex.end()) {
                    ex.label_id = nit->second;
                    if (!warnedSpellings.count(ex.label))
                        unified.try_emplace(ex.label, ex.where);
                    continue;
                }
            }
            const std::string source =
                fromList ? optionName("label_list") : (!s.labels.empty() ? "the task" : "the training data");
            badRow(o.skip_bad_rows, notes, ex.where,
                   "the label '" + ex.label + "' is not one of the labels of " + source + " (" + joinNames(labels) + ")",
                   fromList ? "Fix the label" : "Fix the label (check for typos and stray characters)", "to skip the row",
                   fromList ? std::vector<OptionFix>{{"label_list", "", "with the label added"}} : std::vector<OptionFix>{});
            ex.skip = true;
        }
    };
    assign(s.train);
    assign(s.eval);
    for (const auto &[spelling, where] : unified) {
        parseNumber(spelling, v);
        notes.warnings.push_back("the label '" + spelling + "' was read as the number label '"
                                 + labels[size_t(numericIndex.at(v))] + "' (first at " + where + ")");
    }
}

} // namespace

void assignLabels(const PrepareOptions &o, SourceSplits &s, ReadNotes &notes)
{
    if (s.multi_label) {
        assignMultiLabels(o, s, notes);
        return;
    }
    for (auto &ex : s.test)
        ex.label_id = 0;
    if (s.regression)
        return;
    std::vector<std::string> labels;
    std::set<std::string> warnedSpellings;
    if (!o.label_list.empty())
        labels = parseLabelList(o.label_list);
    else if (!s.labels.empty())
        labels = s.labels;
    else
        labels = labelsFromTraining(o, s, notes, warnedSpellings);
    if (labels.size() < 2)
        throw Error("label_list", "a classifier needs at least 2 labels, got " + std::to_string(labels.size()),
                    "Name every class, e.g. " + optionSetting("label_list", "neg,pos") + ".");
    applyLabels(o, s, notes, labels, warnedSpellings);
    s.labels = labels;
}

} // namespace wb::prep
