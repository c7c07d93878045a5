// SPDX-License-Identifier: Apache-2.0
// The labels file of "Label to learn" (core/label/labelstore.h; docs/label-to-learn.md). The rows
// are split by prepare's own row parser (core/prepare/textrows.h), so this reader and prepare read
// the same fields from the same bytes.
#include "core/label/labelstore.h"

#include "core/prepare/textrows.h"
#include "core/tokenize/unicodetext.h"
#include "core/util/error.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kHeader = "text,label,file,line,suggested_label,time\n";
constexpr size_t kFields = 6;
constexpr const char *kFieldList = "text, label, file, line, suggested_label, time";

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// "YYYY-MM-DDTHH:MM:SS[.f…]Z" with plausible ranges.
bool isUtcTime(std::string_view t)
{
    if (t.size() < 20 || t.back() != 'Z')
        return false;
    for (size_t i : {size_t(4), size_t(7)})
        if (t[i] != '-')
            return false;
    if (t[10] != 'T' || t[13] != ':' || t[16] != ':')
        return false;
    for (int i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
        if (!isDigit(t[size_t(i)]))
            return false;
    auto num = [&t](size_t at) { return (t[at] - '0') * 10 + (t[at + 1] - '0'); };
    if (num(5) < 1 || num(5) > 12 || num(8) < 1 || num(8) > 31 || num(11) > 23 || num(14) > 59 || num(17) > 60)
        return false;
    if (t.size() == 20)
        return true;
    if (t[19] != '.' || t.size() < 22 || t.size() > 30)
        return false;
    for (size_t i = 20; i + 1 < t.size(); ++i)
        if (!isDigit(t[i]))
            return false;
    return true;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The text's id in messages: "mails.txt:12", "mails/3.txt", or the text's start.
std::string labelId(const PoolLabel &l)
{
    if (!l.file.empty())
        return l.line > 0 ? l.file + ":" + std::to_string(l.line) : l.file;
    std::string start = l.text.substr(0, 40);
    for (char &c : start)
        if (c == '\n' || c == '\r')
            c = ' ';
    return "the text '" + start + (l.text.size() > 40 ? "…'" : "'");
}

// Why `l` cannot be written (or was not read) as a labels-file record; "" when it is fine.
// `hint` receives how to fix it.
std::string labelProblem(const PoolLabel &l, std::string &hint)
{
    hint = "Label it again in the Label tab; by hand, write the record as docs/file-formats.md, \"The labels file\", shows";
    if (l.text.empty())
        return "the text is empty";
    if (l.text.find('\0') != std::string::npos || !isValidUtf8(l.text))
        return "the text holds a NUL byte or is not valid UTF-8 (prepare would read it differently)";
    if (l.label.empty())
        return "the label is empty";
    if (isSpace(l.label.front()) || isSpace(l.label.back())
        || l.label.find_first_of(std::string("\n\r|,;\0", 6)) != std::string::npos
        || !isValidUtf8(l.label)) {
        hint = "Name labels without surrounding white space, line breaks, '|', ',' or ';' (prepare trims labels, and "
               "may read '|', ',' and ';' as separating several labels)";
        return "the label '" + l.label + "' has surrounding white space, a line break, '|', ',', ';' or a NUL byte, "
                                         "or is not UTF-8";
    }
    if (l.suggested_label.find_first_of(std::string("\n\r\0", 3)) != std::string::npos || !isValidUtf8(l.suggested_label))
        return "the suggested label holds a line break or a NUL byte, or is not UTF-8";
    if (l.file.find_first_of(std::string("\n\r\0", 3)) != std::string::npos || !isValidUtf8(l.file))
        return "the file name holds a line break or a NUL byte, or is not UTF-8";
    if (l.line < 0 || (l.line > 0 && l.file.empty()))
        return "the line " + std::to_string(l.line) + " is given without a file (or is negative)";
    if (!isUtcTime(l.time)) {
        hint = "Write the time as UTC ISO 8601, e.g. 2026-12-06T00:10:03.250Z";
        return "the time '" + l.time + "' is not UTC ISO 8601 (YYYY-MM-DDTHH:MM:SS[.fff]Z)";
    }
    return {};
}

void checkLabel(const PoolLabel &l, const std::string &where)
{
    std::string hint;
    const std::string problem = labelProblem(l, hint);
    if (!problem.empty())
        throw Error(where + ": " + labelId(l), "cannot save the label: " + problem, hint);
}

void appendField(std::string &out, const std::string &f)
{
    const bool quote = !f.empty()
                       && (f.find_first_of(",\"\n\r") != std::string::npos || isSpace(f.front()) || isSpace(f.back()));
    if (!quote) {
        out += f;
        return;
    }
    out += '"';
    for (char c : f) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

std::string recordOf(const PoolLabel &l)
{
    std::string out;
    out.reserve(l.text.size() + 64);
    for (const std::string *f : {&l.text, &l.label, &l.file}) {
        appendField(out, *f);
        out += ',';
    }
    if (l.line > 0)
        out += std::to_string(l.line);
    out += ',';
    appendField(out, l.suggested_label);
    out += ',';
    out += l.time;
    out += '\n';
    return out;
}

// Where the whole lines of `b` (from `from`) end, scanning as parseTextRows() does (a quote opens a
// quoted field only at a field's start; "" inside it is a quote; \n, \r\n and a lone \r end a
// line): `end` after the last line break outside quotes, `lines` the line breaks before it (inside
// quotes too, as parseTextRows() counts lines), `inQuote` whether `b` ends inside a quoted field.
struct LineScan
{
    size_t end = 0;
    int64_t lines = 0;
    bool inQuote = false;
};

LineScan scanLines(std::string_view b, size_t from)
{
    LineScan s;
    s.end = from;
    int64_t lines = 0;
    bool quoted = false, fieldStart = true;
    for (size_t i = from; i < b.size(); ++i) {
        const char c = b[i];
        const bool lineBreak = c == '\n' || c == '\r';
        if (lineBreak && c == '\r' && i + 1 < b.size() && b[i + 1] == '\n')
            ++i;
        if (quoted) {
            if (c == '"' && i + 1 < b.size() && b[i + 1] == '"')
                ++i;
            else if (c == '"')
                quoted = false;
            lines += lineBreak ? 1 : 0;
            continue;
        }
        if (lineBreak) {
            ++lines;
            s.end = i + 1;
            s.lines = lines;
            fieldStart = true;
        } else if (c == '"' && fieldStart) {
            quoted = true;
            fieldStart = false;
        } else {
            fieldStart = c == ',';
        }
    }
    s.inQuote = quoted;
    return s;
}

// A record's fields as a PoolLabel; `problem` / `hint` say why it is not one ("" when it is).
PoolLabel labelOfRow(const TextRow &row, std::string &problem, std::string &hint)
{
    PoolLabel l;
    l.source_line = row.line;
    if (row.fields.size() != kFields) {
        problem = "the record has " + std::to_string(row.fields.size()) + " fields, the labels file has "
                  + std::to_string(kFields) + " (" + kFieldList + ")";
        hint = "Quote a field that holds a comma, a quote or a line break in double quotes, and write each quote in "
               "it as \"\"";
        return l;
    }
    l.text = row.fields[0];
    l.label = row.fields[1];
    l.file = row.fields[2];
    const std::string &line = row.fields[3];
    const bool digits = !line.empty() && line.size() <= 18
                        && line.find_first_not_of("0123456789") == std::string::npos;
    if (!line.empty() && (!digits || std::stoll(line) < 1)) {
        problem = "the line '" + line + "' is not an integer >= 1";
        hint = "Write the text's 1-based line in its file, or leave the field empty for a whole file";
        return l;
    }
    l.line = line.empty() ? 0 : std::stoll(line);
    l.suggested_label = row.fields[4];
    l.time = row.fields[5];
    problem = labelProblem(l, hint);
    return l;
}

std::string headerLine() { return std::string(kHeader, std::strlen(kHeader) - 1); }

// The rows of the whole lines: the header checked, then one label each.
void readWholeLines(std::string_view whole, const std::string &path, LabelsRead &out,
                    std::map<std::pair<std::string, int64_t>, int64_t> &seen)
{
    const TextRows rows = parseTextRows(whole, TextRowDialect{',', true}, path);
    const std::string header = headerLine();
    const std::vector<std::string> names = {"text", "label", "file", "line", "suggested_label", "time"};
    if (rows.rows.empty() || rows.rows[0].line != 1 || rows.rows[0].fields != names)
        throw Error(path + ":1", "this is not a labels file: its first line is not the header '" + header + "'",
                    "Give the labels file the Label tab saved (or start a new one); a spreadsheet must save it as "
                    "CSV with ',' between fields");
    for (size_t r = 1; r < rows.rows.size(); ++r) {
        std::string problem, hint;
        PoolLabel l = labelOfRow(rows.rows[r], problem, hint);
        if (!problem.empty())
            throw Error(path + ":" + std::to_string(l.source_line), problem, hint);
        if (!l.file.empty()) {
            const auto [it, added] = seen.emplace(std::make_pair(l.file, l.line), l.source_line);
            if (!added)
                throw Error(path + ":" + std::to_string(l.source_line),
                            labelId(l) + " already has a label (line " + std::to_string(it->second) + ")",
                            "Keep one of the two records (the later one is the newer label)");
        }
        out.labels.push_back(std::move(l));
    }
}

// The last line without its line end: kept when it is a whole valid record, else dropped as cut.
void readTail(std::string_view tail, const LineScan &scan, const std::string &path, LabelsRead &out,
              const std::map<std::pair<std::string, int64_t>, int64_t> &seen)
{
    const std::string where = path + ":" + std::to_string(scan.lines + 1);
    if (!scan.inQuote) {
        try {
            const TextRows t = parseTextRows(std::string(tail) + "\n", TextRowDialect{',', true}, path);
            std::string problem, hint;
            PoolLabel l = t.rows.size() == 1 ? labelOfRow(t.rows[0], problem, hint) : PoolLabel{};
            if (t.rows.size() == 1 && problem.empty() && (l.file.empty() || !seen.count({l.file, l.line}))) {
                l.source_line = scan.lines + 1;
                out.labels.push_back(std::move(l));
                out.complete_bytes += tail.size();
                out.missing_line_end = true;
                return;
            }
        } catch (const Error &) { // a quote followed by text: a cut record too
        }
    }
    out.cut_tail = where + ": the last record was cut off while it was being saved (" + std::to_string(tail.size())
                   + " bytes, no line end): it is left out; the label being saved when the program stopped was not "
                     "saved";
}

} // namespace

LabelsRead parseLabelsCsv(std::string_view bytes, const std::string &path)
{
    LabelsRead out;
    const size_t start = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    const LineScan scan = scanLines(bytes, start);
    const std::string_view tail = bytes.substr(scan.end);
    if (scan.end == start) { // no whole line: empty, or the header cut off
        const std::string header = kHeader;
        if (!tail.empty() && header.compare(0, tail.size(), tail) != 0)
            throw Error(path + ":1", "this is not a labels file: its first line is not the header '" + headerLine() + "'",
                        "Give the labels file the Label tab saved (or start a new one)");
        if (tail.size() == header.size() - 1) { // the header without its line end
            out.complete_bytes = bytes.size();
            out.missing_line_end = true;
        } else if (!tail.empty()) {
            out.cut_tail = path + ":1: the header was cut off while the file was being created: the file has no labels";
        }
        return out;
    }
    std::map<std::pair<std::string, int64_t>, int64_t> seen;
    readWholeLines(bytes.substr(0, scan.end), path, out, seen);
    out.complete_bytes = scan.end;
    if (!tail.empty())
        readTail(tail, scan, path, out, seen);
    return out;
}

LabelsRead readLabelsCsv(const std::string &path)
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        return {};
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open() || fs::is_directory(path, ec))
        throw Error(path, "cannot read the labels file", "Check that it is a file and readable");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw Error(path, "cannot read the labels file", "Check that it is a file and readable");
    return parseLabelsCsv(bytes, path);
}

const char *labelsCsvHeader() { return kHeader; }

std::string labelCsvRecord(const PoolLabel &label)
{
    checkLabel(label, "labels file");
    return recordOf(label);
}

std::string labelsCsv(const std::vector<PoolLabel> &labels)
{
    std::string out = kHeader;
    for (const PoolLabel &l : labels)
        out += labelCsvRecord(l);
    return out;
}

std::string labelTimeNow()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&secs, &utc);
    char buf[40];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(buf + n, sizeof buf - n, ".%03dZ", int(ms));
    return buf;
}

} // namespace wb
