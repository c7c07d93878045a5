// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/preparecorrections.h"

#include "core/config/optionwords.h"
#include "core/prepare/corrections.h"
#include "core/prepare/preparesplit.h"
#include "core/util/error.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <variant>

namespace wb::prep {

namespace {

// How many problems an error names (all are counted).
constexpr size_t kNamedProblems = 10;

struct Problem
{
    std::string where, message, hint;
};

// The rows a correction can name: the train and eval rows that were not skipped, by splitKey.
std::unordered_map<std::string, RawExample *> correctableRows(const PrepareOptions &o, SourceSplits &src)
{
    std::unordered_map<std::string, RawExample *> rows;
    for (std::vector<RawExample> *v : {&src.train, &src.eval})
        for (RawExample &ex : *v)
            if (!ex.skip)
                rows.emplace(splitKey(splitFileName(o, ex.file), ex.line), &ex);
    return rows;
}

std::string labelList(const std::vector<std::string> &labels)
{
    std::string text;
    for (const std::string &l : labels)
        text += (text.empty() ? "" : ", ") + l;
    return text;
}

// The row correction `c` (read from `where`) names, checked against the input: found among
// the train/eval rows, with the label the correction was made for. Otherwise the problem.
std::variant<RawExample *, Problem> correctedRow(const Correction &c, const std::string &where,
                                                 const std::unordered_map<std::string, RawExample *> &rows,
                                                 const SourceSplits &src)
{
    const std::string row = c.file + (c.line > 0 ? ":" + std::to_string(c.line) : "");
    const auto it = rows.find(splitKey(c.file, c.line));
    if (it == rows.end())
        return Problem{where, "the row " + row + " is not among the input's training and evaluation rows",
                       "Name the row by its file and line as this input's split.jsonl does (are these the corrections "
                       "of another input, or of a row since removed or skipped?)."};
    const std::string given = src.labels[size_t(it->second->label_id)];
    if (c.label != given)
        return Problem{where + ": label",
                       "the row " + row + " has the label '" + given + "' in the input, but the correction was made "
                           "for the label '" + c.label + "'",
                       "The data changed since the suspects were listed: list them again (bert-workbench-cli suspects), "
                       "or write the row's label as \"label\"."};
    return it->second;
}

// Relabels `ex`, the row of the accepted or changed correction `c`, or returns why it cannot.
std::optional<Problem> relabel(const Correction &c, const std::string &where, RawExample &ex, const SourceSplits &src,
                               PrepareReport &rep)
{
    const std::string row = c.file + (c.line > 0 ? ":" + std::to_string(c.line) : "");
    const std::string given = src.labels[size_t(ex.label_id)];
    const auto label = std::find(src.labels.begin(), src.labels.end(), c.corrected_label);
    if (label == src.labels.end())
        return Problem{where + ": corrected_label",
                       "'" + c.corrected_label + "' is not a label of the data (" + labelList(src.labels) + ")",
                       "Use one of the data's labels (labels.txt); a label of its own needs rows of it in the input."};
    if (c.corrected_label == given) {
        ++rep.corrections_not_applied;
        return std::nullopt;
    }
    ex.corrected_from = given;
    ex.label = c.corrected_label;
    ex.label_id = int64_t(label - src.labels.begin());
    rep.corrected_rows.push_back({row, given, c.corrected_label, correctionDecisionName(c.decision), c.source_line});
    return std::nullopt;
}

// Leaves `ex`, the row of the removed correction `c` read from `where`, out of the prepared data:
// skipped, as a bad row under skip_bad_rows is, so split.jsonl lists it with the reason.
void removeRow(const Correction &c, const std::string &where, RawExample &ex, const SourceSplits &src,
               ReadNotes &notes, PrepareReport &rep)
{
    ex.skip = true;
    ex.removed = true;
    notes.skipped.push_back({ex.where, "removed by " + where, true});
    rep.removed_rows.push_back({c.file + (c.line > 0 ? ":" + std::to_string(c.line) : ""),
                                src.labels[size_t(ex.label_id)], "", correctionDecisionName(c.decision), c.source_line});
}

// With --split_file: a warning naming the removed rows (splitKey → "file:line") that file puts
// in the eval set (the eval set is then smaller than before, so runs before and after are not
// scored on the same rows).
void warnRemovedEvalRows(const PrepareOptions &o, const std::vector<std::pair<std::string, std::string>> &removed,
                         PrepareReport &rep)
{
    if (o.split_file.empty() || removed.empty())
        return;
    const auto sides = readSplitFile(o.split_file);
    std::vector<std::string> rows;
    for (const auto &[key, where] : removed)
        if (const auto it = sides.find(key); it != sides.end() && it->second)
            rows.push_back(where);
    if (rows.empty())
        return;
    std::string named;
    for (size_t i = 0; i < rows.size() && i < kNamedProblems; ++i)
        named += (i ? ", " : "") + rows[i];
    rep.warnings.push_back(std::to_string(rows.size()) + " removed row(s) are in the eval set of " + o.split_file + " ("
                           + named + (rows.size() > kNamedProblems ? ", …" : "")
                           + "): the eval set lost them, so a run before the corrections and one after are not "
                             "scored on the same rows");
}

[[noreturn]] void throwProblems(const std::vector<Problem> &problems)
{
    std::string message = problems.front().message;
    if (problems.size() > 1) {
        message += "; " + std::to_string(problems.size() - 1) + " more:";
        for (size_t i = 1; i < problems.size() && i < kNamedProblems; ++i)
            message += (i > 1 ? "; " : " ") + problems[i].where + ": " + problems[i].message;
        if (problems.size() > kNamedProblems)
            message += "; …";
    }
    throw Error(problems.front().where, message, problems.front().hint);
}

} // namespace

void applyCorrections(const PrepareOptions &o, SourceSplits &src, ReadNotes &notes, PrepareReport &rep)
{
    if (o.corrections_file.empty())
        return;
    if (src.regression || src.multi_label)
        throw Error("corrections_file",
                    std::string("the data is ") + (src.regression ? "a regression" : "multi-label")
                        + "; corrections relabel single-label classification rows",
                    "Leave out " + optionName("corrections_file") + ".");
    const std::vector<Correction> corrections = readCorrections(o.corrections_file);
    const auto rows = correctableRows(o, src);
    std::unordered_map<std::string, int64_t> seen; // splitKey → the line that named it first
    std::vector<Problem> problems;
    std::vector<std::pair<std::string, std::string>> removed; // splitKey → "file:line"
    rep.corrections_file = o.corrections_file;
    for (const Correction &c : corrections) {
        const std::string where = o.corrections_file + ":" + std::to_string(c.source_line);
        const auto [first, added] = seen.emplace(splitKey(c.file, c.line), c.source_line);
        if (!added) {
            problems.push_back({where, "the row " + c.file + (c.line > 0 ? ":" + std::to_string(c.line) : "")
                                           + " has a correction on line " + std::to_string(first->second) + " already",
                                "Keep one line per row (the last decision)."});
            continue;
        }
        if (!c.relabels() && !c.removes()) {
            ++rep.corrections_not_applied;
            continue;
        }
        auto row = correctedRow(c, where, rows, src);
        if (auto *p = std::get_if<Problem>(&row)) {
            problems.push_back(std::move(*p));
            continue;
        }
        RawExample &ex = *std::get<RawExample *>(row);
        if (c.removes()) {
            removeRow(c, where, ex, src, notes, rep);
            removed.emplace_back(splitKey(c.file, c.line), rep.removed_rows.back().where);
        } else if (auto p = relabel(c, where, ex, src, rep))
            problems.push_back(std::move(*p));
    }
    if (!problems.empty())
        throwProblems(problems);
    warnRemovedEvalRows(o, removed, rep);
    if (o.split_file.empty() && (!rep.corrected_rows.empty() || !removed.empty()))
        rep.warnings.push_back("the corrections change the rows, and without " + optionName("split_file")
                               + " the eval set is drawn afresh: a run before the corrections and one after are not "
                                 "scored on the same rows (pass " + optionName("split_file")
                               + "=<the first prepare's split.jsonl> to keep it)");
}

void warnCorrectedEvalRows(const Sorted &d, PrepareReport &rep)
{
    std::vector<std::string> rows;
    for (const Job *j : d.eval)
        if (!j->ex->corrected_from.empty())
            rows.push_back(j->ex->where);
    if (rows.empty())
        return;
    std::string named;
    for (size_t i = 0; i < rows.size() && i < kNamedProblems; ++i)
        named += (i ? ", " : "") + rows[i];
    rep.warnings.push_back(std::to_string(rows.size()) + " relabelled row(s) are in the eval set (" + named
                           + (rows.size() > kNamedProblems ? ", …" : "")
                           + "): the eval set's labels changed, so a run before the corrections and one after are "
                             "not scored on the same labels");
}

} // namespace wb::prep
