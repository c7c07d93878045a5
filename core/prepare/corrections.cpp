// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/corrections.h"

#include "core/config/jsonfile.h"
#include "core/prepare/preparesource.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <functional>
#include <map>
#include <set>

namespace wb {

namespace {

constexpr const char *kDocs = "docs/file-formats.md, corrections.jsonl";
constexpr const char *kSplitDocs = "docs/file-formats.md, split.jsonl";

struct DecisionName
{
    CorrectionDecision decision;
    const char *name;
};

constexpr DecisionName kDecisions[] = {{CorrectionDecision::Suggested, "suggested"},
                                       {CorrectionDecision::Accepted, "accepted"},
                                       {CorrectionDecision::Rejected, "rejected"},
                                       {CorrectionDecision::Changed, "changed"},
                                       {CorrectionDecision::Removed, "removed"}};

// Calls `each(lineNumber, json)` for every non-blank line of `text`; a line that is not a JSON
// object throws wb::Error("<source>:<line>", …).
void eachJsonLine(const std::string &text, const std::string &source, const char *docs,
                  const std::function<void(int64_t, const std::string &, const nlohmann::json &)> &each)
{
    size_t start = 0;
    int64_t lineNo = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++lineNo;
        if (trimmed(line).empty())
            continue;
        const std::string where = source + ":" + std::to_string(lineNo);
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object())
            throw Error(where, "is not a JSON object", std::string("Each line is one JSON object (") + docs + ").");
        each(lineNo, where, j);
    }
}

std::string stringKey(const nlohmann::json &j, const std::string &where, const char *key, bool required,
                      const char *docs = kDocs)
{
    if (!j.contains(key)) {
        if (required)
            throw Error(where + ": " + key, "is missing (expected a string)",
                        std::string("Every line has \"") + key + "\" (" + docs + ").");
        return {};
    }
    if (!j[key].is_string())
        throw Error(where + ": " + key, "is " + std::string(j[key].type_name()) + ", expected a string",
                    std::string("Write it in quotes (") + docs + ").");
    return j[key].get<std::string>();
}

int64_t integerKey(const nlohmann::json &j, const std::string &where, const char *key, int64_t minimum,
                   int64_t absent)
{
    if (!j.contains(key))
        return absent;
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < minimum)
        throw Error(where + ": " + key, "is " + j[key].dump() + ", expected an integer ≥ " + std::to_string(minimum),
                    std::string("Write the number as split.jsonl has it, or leave the key out (") + kDocs + ").");
    return j[key].get<int64_t>();
}

CorrectionDecision decisionOf(const std::string &name, const std::string &where)
{
    for (const DecisionName &d : kDecisions)
        if (name == d.name)
            return d.decision;
    throw Error(where + ": decision", "is '" + name + "', expected suggested, accepted, rejected, changed or removed",
                "accepted takes suggested_label, changed takes corrected_label, removed leaves the row out; suggested "
                "and rejected change nothing.");
}

// The corrected label of an accepted or changed line, checked.
void checkCorrectedLabel(Correction &c, const std::string &where)
{
    if (c.decision == CorrectionDecision::Accepted) {
        if (c.suggested_label.empty())
            throw Error(where + ": suggested_label", "an accepted correction has no suggested_label",
                        "Write the label to take as \"corrected_label\" with \"decision\":\"changed\".");
        if (c.corrected_label.empty())
            c.corrected_label = c.suggested_label;
        else if (c.corrected_label != c.suggested_label)
            throw Error(where + ": corrected_label",
                        "is '" + c.corrected_label + "' but the accepted suggestion is '" + c.suggested_label + "'",
                        "Use \"decision\":\"changed\" for a label of your own.");
    } else if (c.decision == CorrectionDecision::Changed && c.corrected_label.empty()) {
        throw Error(where + ": corrected_label", "a changed correction has no corrected_label",
                    "Write the label to take as \"corrected_label\".");
    } else if (c.decision == CorrectionDecision::Removed && !c.corrected_label.empty()) {
        throw Error(where + ": corrected_label",
                    "a removed row takes no corrected_label ('" + c.corrected_label + "')",
                    "Use \"decision\":\"changed\" to relabel the row, or leave corrected_label out to remove it.");
    } else if (!c.relabels()) {
        c.corrected_label.clear();
    }
}

} // namespace

const char *correctionDecisionName(CorrectionDecision d)
{
    for (const DecisionName &n : kDecisions)
        if (n.decision == d)
            return n.name;
    return "suggested";
}

std::string correctionsJsonl(const std::vector<Correction> &corrections)
{
    std::string out;
    for (const Correction &c : corrections) {
        nlohmann::ordered_json j;
        j["file"] = c.file;
        if (c.line > 0)
            j["line"] = c.line;
        if (c.index >= 0)
            j["index"] = c.index;
        j["label"] = c.label;
        if (!c.suggested_label.empty())
            j["suggested_label"] = c.suggested_label;
        j["decision"] = correctionDecisionName(c.decision);
        if (c.relabels())
            j["corrected_label"] = c.corrected_label;
        if (!c.time.empty())
            j["time"] = c.time;
        out += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    }
    return out;
}

void writeCorrections(const std::string &path, const std::vector<Correction> &corrections)
{
    writeFileAtomic(path, correctionsJsonl(corrections));
}

std::vector<Correction> parseCorrections(const std::string &text, const std::string &source)
{
    std::vector<Correction> out;
    eachJsonLine(text, source, kDocs, [&out](int64_t lineNo, const std::string &where, const nlohmann::json &j) {
        Correction c;
        c.source_line = lineNo;
        c.file = stringKey(j, where, "file", true);
        if (c.file.empty())
            throw Error(where + ": file", "is empty", "Name the row's file as split.jsonl does.");
        c.line = integerKey(j, where, "line", 1, 0);
        c.index = integerKey(j, where, "index", 0, -1);
        c.label = stringKey(j, where, "label", true);
        c.suggested_label = stringKey(j, where, "suggested_label", false);
        c.decision = decisionOf(stringKey(j, where, "decision", true), where);
        c.corrected_label = stringKey(j, where, "corrected_label", false);
        c.time = stringKey(j, where, "time", false);
        checkCorrectedLabel(c, where);
        out.push_back(std::move(c));
    });
    return out;
}

MergedCorrections mergeCorrections(std::vector<Correction> existing, const std::vector<Correction> &listed)
{
    MergedCorrections m;
    m.lines = std::move(existing);
    auto key = [](const Correction &c) { return c.file + "\n" + std::to_string(c.line); };
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < m.lines.size(); ++i)
        at.emplace(key(m.lines[i]), i);
    std::set<std::string> listedKeys;
    for (const Correction &c : listed) {
        listedKeys.insert(key(c));
        const auto it = at.find(key(c));
        if (it == at.end()) {
            at.emplace(key(c), m.lines.size());
            m.lines.push_back(c);
            ++m.written;
        } else if (m.lines[it->second].decision == CorrectionDecision::Suggested) {
            m.lines[it->second] = c;
            ++m.written;
        } else {
            ++m.kept_decided;
        }
    }
    for (const Correction &c : m.lines)
        m.kept_other += listedKeys.count(key(c)) ? 0 : 1;
    return m;
}

std::vector<Correction> readCorrections(const std::string &path)
{
    return parseCorrections(prep::readWholeFile(path), path);
}

std::string correctionTimeNow()
{
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

std::vector<SplitRow> readSplitRows(const std::string &path)
{
    std::vector<SplitRow> rows;
    eachJsonLine(prep::readWholeFile(path), path, kSplitDocs,
                 [&rows](int64_t, const std::string &where, const nlohmann::json &j) {
                     SplitRow r;
                     r.file = stringKey(j, where, "file", true, kSplitDocs);
                     r.line = integerKey(j, where, "line", 1, 0);
                     r.split = stringKey(j, where, "split", true, kSplitDocs);
                     r.index = integerKey(j, where, "index", 0, -1);
                     if (j.contains("label") && j["label"].is_string())
                         r.label = j["label"].get<std::string>();
                     rows.push_back(std::move(r));
                 });
    return rows;
}

} // namespace wb
