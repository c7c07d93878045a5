// SPDX-License-Identifier: Apache-2.0
// Shared reader helpers and the folder-per-label reader of prepareData().
#include "core/prepare/preparesource.h"

#include "core/tokenize/unicodetext.h"
#include "core/util/error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wb::prep {

namespace fs = std::filesystem;

void badRow(bool skipBadRows, ReadNotes &notes, const std::string &where, const std::string &message,
            const std::string &advice, const char *skipPurpose, std::vector<OptionFix> otherFixes)
{
    if (skipBadRows) {
        notes.skipped.push_back({where, message});
        return;
    }
    FieldProblem p;
    p.message = message;
    p.advice = advice;
    p.fixes = std::move(otherFixes);
    p.fixes.push_back({"skip_bad_rows", "", skipPurpose});
    notes.bad.push_back({where, std::move(p)});
}

void throwBadRows(const ReadNotes &notes)
{
    if (notes.bad.empty())
        return;
    const ReadNotes::BadRow &first = notes.bad.front();
    if (notes.bad.size() == 1)
        throw FieldError(first.where, first.problem);
    std::string message = first.problem.message + "; " + std::to_string(notes.bad.size() - 1) + " more bad row"
        + (notes.bad.size() > 2 ? "s" : "") + ":";
    const size_t listed = std::min(notes.bad.size(), kListedBadRows);
    std::vector<RowProblem> rows;
    for (size_t i = 0; i < notes.bad.size(); ++i) {
        if (i > 0 && i < listed)
            message += (i > 1 ? ";" : "") + std::string(" ") + notes.bad[i].where + ": " + notes.bad[i].problem.message;
        rows.push_back({notes.bad[i].where, notes.bad[i].problem});
    }
    if (notes.bad.size() > listed)
        message += " (and " + std::to_string(notes.bad.size() - listed) + " more)";
    std::vector<std::string> hints;
    for (const auto &b : notes.bad)
        if (std::find(hints.begin(), hints.end(), b.problem.plainHint()) == hints.end())
            hints.push_back(b.problem.plainHint());
    std::string hint;
    for (const std::string &h : hints)
        hint += (hint.empty() ? "" : " ") + h;
    throw BadRowsError(first.where, message, hint, std::move(rows), notes.bad.size());
}

std::string readWholeFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot read the file", "Check that it exists and is readable.");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {

// Bytes 0x80-0x9F of windows-1252 (WHATWG Encoding Standard, index-windows-1252.txt); the five
// bytes it leaves undefined keep their C1 code point, as the standard's decoder does.
constexpr char32_t kWindows1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

} // namespace

std::string toUtf8(std::string text, bool &latin1)
{
    latin1 = false;
    if (isValidUtf8(text))
        return text;
    latin1 = true;
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (unsigned char c : text)
        appendUtf8(out, c >= 0x80 && c < 0xA0 ? kWindows1252High[c - 0x80] : char32_t(c));
    return out;
}

bool fieldsToUtf8(std::vector<std::string> &fields)
{
    bool anyLatin1 = false;
    for (std::string &f : fields) {
        bool latin1 = false;
        f = toUtf8(std::move(f), latin1);
        anyLatin1 = anyLatin1 || latin1;
    }
    return anyLatin1;
}

bool parseNumber(const std::string &text, double &value)
{
    if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos)
        return false;
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end && *end == '\0' && std::isfinite(value);
}

bool isHiddenName(const fs::path &p)
{
    const std::string n = p.filename().string();
    return !n.empty() && n[0] == '.';
}

std::vector<fs::path> labelFolders(const std::string &dir)
{
    std::vector<fs::path> labelDirs;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.is_directory() && !isHiddenName(e.path()))
            labelDirs.push_back(e.path());
    std::sort(labelDirs.begin(), labelDirs.end(),
              [](const fs::path &a, const fs::path &b) { return a.filename().string() < b.filename().string(); });
    return labelDirs;
}

std::vector<std::string> labelFolderFiles(const fs::path &labelDir)
{
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(labelDir))
        if (e.is_regular_file() && !isHiddenName(e.path()))
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

void readFolders(const PrepareOptions &o, SourceSplits &s, ReadNotes &)
{
    const std::string &dir = o.input_data_dir;
    if (!fs::is_directory(dir)) {
        std::string ext = fs::path(dir).extension().string();
        for (char &c : ext)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        const std::string message = "'" + dir + "' is not a folder (the format is folders)";
        // A file of another format: the format option fixes it (each front-end words how).
        const auto format = [&message](const char *kind, const char *name) {
            return FieldError("input_data_dir", {message, std::string("for ") + kind, {{"classification_task_name", name, ""}}, "", ""});
        };
        if (ext == ".csv")
            throw format("a CSV file", "csv");
        if (ext == ".jsonl" || ext == ".ndjson")
            throw format("a JSON Lines file", "jsonl");
        if (ext == ".json")
            throw format("a JSON file (an array of records)", "json");
        if (ext == ".tsv" || ext == ".txt")
            throw format("a tab-separated file", "tsv");
        throw Error("input_data_dir", message, "Choose the folder that holds one sub-folder per label.");
    }
    const std::vector<fs::path> labelDirs = labelFolders(dir);
    if (labelDirs.size() < 2) {
        int64_t files = 0;
        for (const auto &e : fs::directory_iterator(dir))
            files += e.is_regular_file() && !isHiddenName(e.path()) ? 1 : 0;
        std::string hint = "Put the examples of each class in its own sub-folder, e.g. ham/ and spam/.";
        if (labelDirs.empty() && files > 0)
            hint = "The folder holds " + std::to_string(files) + " file(s) and no label folders: is it one label's "
                   "folder? Pass the folder above it, which holds one sub-folder per label.";
        throw Error(dir, "a folder-per-label data set needs at least two label folders, found "
                             + std::to_string(labelDirs.size()),
                    hint);
    }
    for (const fs::path &ld : labelDirs) {
        const std::string label = ld.filename().string();
        std::vector<std::string> files = labelFolderFiles(ld);
        if (files.empty())
            throw Error(ld.string(), "the label folder holds no files", "Remove it or add examples.");
        for (std::string &f : files) {
            RawExample ex;
            ex.path = f;
            ex.where = f;
            ex.file = f;
            ex.label = label;
            s.train.push_back(std::move(ex));
        }
        s.labels.push_back(label);
    }
    s.processor = "FOLDERS";
}

} // namespace wb::prep
