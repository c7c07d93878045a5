// SPDX-License-Identifier: Apache-2.0
// Streaming reader of pretraining corpora: plain text, folders of .txt, CSV/TSV and JSONL.
#include "core/corpus/pretrainingtext.h"

#include "core/prepare/emailbody.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/textrows.h"
#include "core/config/fieldproblem.h"
#include "core/config/optionwords.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"
#include "core/util/hex.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <glob.h>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBlockBytes = size_t(1) << 20;         // one fread
constexpr size_t kMaxCutOffsetsListed = 64;             // PretrainingLineSplit::cut_offsets of one line

// prepare's single text columns (core/prepare/textinput.h, TextInputSpec), compared ignoring
// ASCII case. A second list on purpose: readTextInput() reads a whole file, and this reader
// streams corpora larger than memory, so it matches the header itself. Pair layouts are not
// documents and are not recognised here (--text_column names one of them).
const char *const kTextColumns[] = {"sentence", "text", "review"};


bool isBlank(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; });
}

std::string hexByte(unsigned char c)
{
    std::string out = "0x";
    appendHexByte(out, c, HexCase::Upper);
    return out;
}

// End (one past the line break) of the last complete row of `s`; 0 when there is none yet.
size_t lastRowEnd(std::string_view s, char delimiter, bool quoting)
{
    size_t last = 0, i = 0;
    bool atFieldStart = true;
    while (i < s.size()) {
        const char c = s[i];
        if (quoting && c == '"' && atFieldStart) {
            ++i;
            while (true) {
                if (i >= s.size())
                    return last;
                if (s[i] == '"') {
                    if (i + 1 >= s.size())
                        return last;
                    if (s[i + 1] == '"') {
                        i += 2;
                        continue;
                    }
                    ++i;
                    break;
                }
                ++i;
            }
            atFieldStart = false;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (c == '\r') {
                if (i + 1 >= s.size())
                    return last;
                if (s[i + 1] == '\n')
                    ++i;
            }
            last = ++i;
            atFieldStart = true;
            continue;
        }
        atFieldStart = c == delimiter;
        ++i;
    }
    return last;
}

int64_t countLineEnds(std::string_view s)
{
    int64_t n = 0;
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n')))
            ++n;
    return n;
}

bool hasExtension(const fs::path &p, const std::vector<std::string> &exts)
{
    const std::string e = lowerAscii(p.extension().string());
    return std::find(exts.begin(), exts.end(), e) != exts.end();
}

/// The inputs with each glob pattern (one that names no existing path) replaced by the files it
/// matches, sorted as glob(3) gives them; a pattern matching nothing is an error naming it.
std::vector<std::string> expandPatterns(const std::vector<std::string> &inputs)
{
    std::vector<std::string> expanded;
    for (const std::string &input : inputs) {
        std::error_code ec;
        if (input.find_first_of("*?[") == std::string::npos || fs::exists(input, ec)) {
            expanded.push_back(input);
            continue;
        }
        glob_t g{};
        const int rc = ::glob(input.c_str(), 0, nullptr, &g);
        if (rc == 0)
            for (size_t i = 0; i < g.gl_pathc; ++i)
                expanded.emplace_back(g.gl_pathv[i]); // sorted by glob(3)
        ::globfree(&g);
        if (rc != 0)
            throw Error(input, "the pattern matches no file", "Check the path of " + optionName("input_file") + ".");
    }
    return expanded;
}

/// The corpus files in `folder` and below, sorted: the extensions of `format` (lowercase; .txt
/// for auto and text; with `anyFile`, every file), hidden files and folders skipped. None is an
/// error naming the folder.
std::vector<std::string> corpusFilesIn(const std::string &folder, const std::string &format, bool anyFile)
{
    const std::vector<std::string> exts = format == "csv"   ? std::vector<std::string>{".csv"}
                                          : format == "tsv"   ? std::vector<std::string>{".tsv"}
                                          : format == "jsonl" ? std::vector<std::string>{".jsonl", ".ndjson"}
                                                              : std::vector<std::string>{".txt"};
    std::vector<std::string> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec), end;
    if (ec)
        throw Error(folder, "cannot read the folder: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw Error(folder, "cannot read the folder: " + ec.message());
        const fs::path &p = it->path();
        if (p.filename().string().rfind('.', 0) == 0) {
            if (it->is_directory(ec))
                it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(ec) && (anyFile || hasExtension(p, exts)))
            found.push_back(p.string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty() && anyFile)
        throw Error(folder, "the folder holds no files (hidden ones are skipped)",
                    "Pass the folder that holds the mails, one per file.");
    if (found.empty())
        throw Error(folder, "the folder holds no " + exts.front() + " files",
                    "Put the corpus in " + exts.front() + " files (plain text: one sentence or line per line, "
                    "documents separated by blank lines), or pass a single file.");
    return found;
}

} // namespace

PretrainingTextReader::PretrainingTextReader(const std::vector<std::string> &inputs, const std::string &format,
                                             const std::string &textColumn, bool emailBodyOnly)
    : m_textColumn(textColumn), m_emailBodyOnly(emailBodyOnly)
{
    const std::string f = lowerAscii(format);
    if (f != "auto" && f != "text" && f != "csv" && f != "tsv" && f != "jsonl")
        throw Error("input_format", "unknown input format '" + format + "'", "Use auto, text, csv, tsv or jsonl.");
    if (inputs.empty())
        throw Error("input_file", "no input was given",
                    PassOption("input_file", "<text file, folder, .csv, .tsv or .jsonl>") + ".");
    const Kind plain = emailBodyOnly ? Kind::Mail : Kind::Text;
    auto kindOf = [&](const fs::path &p) {
        if (f == "text")
            return plain;
        if (f == "csv" || (f == "auto" && hasExtension(p, {".csv"})))
            return Kind::Csv;
        if (f == "tsv" || (f == "auto" && hasExtension(p, {".tsv"})))
            return Kind::Tsv;
        if (f == "jsonl" || (f == "auto" && hasExtension(p, {".jsonl", ".ndjson"})))
            return Kind::Jsonl;
        return plain;
    };
    for (const std::string &input : expandPatterns(inputs)) {
        std::error_code ec;
        if (fs::is_directory(input, ec)) {
            for (auto &p : corpusFilesIn(input, f, emailBodyOnly && (f == "auto" || f == "text"))) {
                m_kinds.push_back(kindOf(p));
                m_files.push_back(std::move(p));
            }
        } else if (fs::exists(input, ec)) {
            m_kinds.push_back(kindOf(input));
            m_files.push_back(input);
        } else {
            throw Error(input, "does not exist", "Check the path of " + optionName("input_file") + ".");
        }
    }
    for (const auto &p : m_files) {
        std::error_code ec;
        const auto size = fs::file_size(p, ec);
        m_totalBytes += ec ? 0 : uint64_t(size);
    }
    const char *names[] = {"text", "csv", "tsv", "jsonl", "mail"};
    m_formatName = names[int(m_kinds.front())];
}

PretrainingTextReader::~PretrainingTextReader()
{
    if (m_file)
        std::fclose(m_file);
}

bool PretrainingTextReader::openNext()
{
    if (m_file) {
        std::fclose(m_file);
        m_file = nullptr;
        m_bytesDone += m_fileBytesRead;
        m_fileBytesRead = 0;
    }
    if (m_nextFile >= m_files.size())
        return false;
    m_path = m_files[m_nextFile];
    m_kind = m_kinds[m_nextFile];
    ++m_nextFile;
    m_file = std::fopen(m_path.c_str(), "rb");
    if (!m_file)
        throw Error(m_path, std::string("cannot open the file: ") + std::strerror(errno), "Check the path and its permissions.");
    m_buf.clear();
    m_pos = 0;
    m_bufOffset = 0;
    m_eof = false;
    m_line = 0;
    m_pendingCr = false;
    m_lineCut = false;
    m_lineStart = 0;
    m_headerRead = false;
    m_rows.clear();
    m_rowPos = 0;
    m_pending.clear();
    fill();
    if (m_buf.compare(0, 3, "\xEF\xBB\xBF") == 0)
        m_pos = 3;
    if (m_kind == Kind::Csv) {
        m_delimiter = detectCsvDelimiter(std::string_view(m_buf).substr(m_pos));
        m_quoting = true;
    } else if (m_kind == Kind::Tsv) {
        m_delimiter = '\t';
        m_quoting = false;
    }
    return true;
}

bool PretrainingTextReader::fill()
{
    if (m_eof)
        return false;
    if (m_pos > 0) {
        m_buf.erase(0, m_pos);
        m_bufOffset += m_pos;
        m_pos = 0;
    }
    const size_t old = m_buf.size();
    m_buf.resize(old + kBlockBytes);
    const size_t n = std::fread(&m_buf[old], 1, kBlockBytes, m_file);
    m_buf.resize(old + n);
    m_fileBytesRead += n;
    if (n < kBlockBytes) {
        if (std::ferror(m_file))
            throw Error(m_path, std::string("cannot read the file: ") + std::strerror(errno));
        m_eof = true;
    }
    return n > 0;
}

void PretrainingTextReader::checkBytes(std::string_view bytes, uint64_t offset) const
{
    if (const size_t nul = bytes.find('\0'); nul != std::string_view::npos)
        throw Error(m_path, "a NUL byte at byte offset " + std::to_string(offset + nul)
                                + ": this looks like a binary file, not text",
                    "Give text files only (UTF-8), or leave this file out of the input.");
    if (const size_t bad = firstInvalidUtf8(bytes); bad != std::string_view::npos)
        throw Error(m_path, "the byte " + hexByte(static_cast<unsigned char>(bytes[bad])) + " at byte offset "
                                + std::to_string(offset + bad) + " is not UTF-8",
                    "Save the file as UTF-8 (e.g. iconv -f windows-1252 -t utf-8 in.txt > out.txt).");
}

bool PretrainingTextReader::readLine(std::string &line, uint64_t &offset, bool *part)
{
    const size_t cap = m_kind == Kind::Jsonl ? kMaxJsonLineBytes : kMaxSentenceBytes;
    if (part)
        *part = m_lineCut;
    while (true) {
        if (m_pendingCr) {
            if (m_pos >= m_buf.size() && fill())
                continue;
            if (m_pos < m_buf.size() && m_buf[m_pos] == '\n')
                ++m_pos;
            m_pendingCr = false;
        }
        const size_t k = m_buf.find_first_of("\r\n", m_pos);
        if (k != std::string::npos && k - m_pos <= cap) {
            offset = m_bufOffset + m_pos;
            line.assign(m_buf, m_pos, k - m_pos);
            checkBytes(line, offset);
            m_pendingCr = m_buf[k] == '\r';
            m_pos = k + 1;
            ++m_line;
            m_lineCut = false;
            return true;
        }
        if (m_buf.size() - m_pos > cap) {
            if (m_kind == Kind::Jsonl)
                throw Error(m_path + ":" + std::to_string(m_line + 1), "the line is longer than 64 MB",
                            "Write one JSON object per line with texts of reasonable size.");
            // A line longer than a sentence: cut between two tokens (tokenBoundaryCut), so that the
            // parts tokenize as the line does, and counted.
            bool insideWord = false;
            const size_t cut = m_pos + tokenBoundaryCut(std::string_view(m_buf).substr(m_pos), cap, insideWord);
            offset = m_bufOffset + m_pos;
            if (!m_lineCut)
                m_lineStart = offset;
            line.assign(m_buf, m_pos, cut - m_pos);
            checkBytes(line, offset);
            noteCut(m_path + ":" + std::to_string(m_line + 1), m_lineCut, m_bufOffset + cut - m_lineStart, insideWord);
            m_lineCut = true;
            m_pos = cut;
            if (part)
                *part = true;
            return true;
        }
        if (m_eof) {
            if (m_pos >= m_buf.size()) {
                m_lineCut = false;
                return false;
            }
            offset = m_bufOffset + m_pos;
            line.assign(m_buf, m_pos, std::string::npos);
            checkBytes(line, offset);
            m_pos = m_buf.size();
            ++m_line;
            m_lineCut = false;
            return true;
        }
        fill();
    }
}

void PretrainingTextReader::noteCut(const std::string &where, bool sameLine, uint64_t offset, bool insideWord)
{
    ++m_lineCuts;
    m_lineCutsInsideAWord += insideWord ? 1 : 0;
    if (!sameLine) {
        ++m_linesSplit;
        m_lastSplitListed = m_lineSplits.size() < kMaxLineSplitsListed;
        if (m_lastSplitListed) {
            m_lineSplits.emplace_back();
            m_lineSplits.back().where = where;
        }
    }
    if (!m_lastSplitListed)
        return;
    PretrainingLineSplit &s = m_lineSplits.back();
    ++s.cuts;
    s.cuts_inside_a_word += insideWord ? 1 : 0;
    if (s.cut_offsets.size() < kMaxCutOffsetsListed)
        s.cut_offsets.push_back(offset);
}

bool PretrainingTextReader::nextText(PretrainingTextDocument &doc)
{
    std::string line;
    uint64_t offset = 0;
    size_t bytes = 0;
    bool cont = !m_pending.empty(); // m_pending holds a marker: the last part was cut
    m_pending.clear();
    while (true) {
        const int64_t lineNo = m_line + 1;
        bool part = false;
        if (!readLine(line, offset, &part))
            return !doc.sentences.empty();
        if (isBlank(line)) {
            if (part)
                continue; // only blanks between two cuts of a long line: no sentence, no document end
            if (!doc.sentences.empty())
                return true;
            cont = false;
            continue;
        }
        if (doc.sentences.empty()) {
            doc.where = m_path + ":" + std::to_string(lineNo);
            doc.continues = cont;
        }
        bytes += line.size();
        doc.sentences.push_back(std::move(line));
        if (bytes >= kMaxDocumentPartBytes) {
            m_pending.emplace_back();
            return true;
        }
    }
}

std::string PretrainingTextReader::pickColumn(const std::vector<std::string> &names, const std::string &where)
{
    std::string list;
    for (const auto &n : names)
        list += (list.empty() ? "'" : ", '") + n + "'";
    const std::string found = " (columns: " + list + ")";
    auto find = [&](const std::string &name) -> int {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == name)
                return int(i);
        for (size_t i = 0; i < names.size(); ++i)
            if (lowerAscii(names[i]) == lowerAscii(name))
                return int(i);
        return -1;
    };
    if (!m_textColumn.empty()) {
        const int i = find(m_textColumn);
        if (i < 0)
            throw FieldError(where, {"there is no column '" + m_textColumn + "'" + found, "",
                                     {{"text_column", "NAME", "with one of the columns found"}}, "", ""});
        m_textColumnUsed = names[size_t(i)];
        m_textColumnRecognised = false;
        return m_textColumnUsed;
    }
    std::vector<int> hits;
    for (const char *name : kTextColumns)
        if (const int i = find(name); i >= 0)
            hits.push_back(i);
    if (hits.size() > 1)
        throw FieldError(where, {"there are several text columns ('" + names[size_t(hits[0])] + "', '" + names[size_t(hits[1])]
                               + "'); which one holds the text?" + found, "",
                    {{"text_column", "NAME", ""}}, "", ""});
    if (hits.empty())
        throw FieldError(where, {"no text column was recognised (sentence, text or review)" + found, "",
                                 {{"text_column", "NAME", "with the column that holds the documents"}}, "", ""});
    m_textColumnUsed = names[size_t(hits[0])];
    m_textColumnRecognised = true;
    return m_textColumnUsed;
}

void PretrainingTextReader::splitText(const std::string &text, PretrainingTextDocument &doc)
{
    // One document per row: its lines are the sentences; parts of at most kMaxDocumentPartBytes.
    size_t bytes = 0, i = 0;
    const std::string where = doc.where;
    auto add = [&](std::string_view s, size_t lineOffset) {
        if (isBlank(s))
            return;
        bool cutBefore = false;
        while (!s.empty()) {
            bool insideWord = false;
            const size_t take = tokenBoundaryCut(s, kMaxSentenceBytes, insideWord);
            if (bytes >= kMaxDocumentPartBytes) {
                m_rows.push_back(std::move(doc));
                doc = PretrainingTextDocument{};
                doc.where = where;
                doc.continues = true;
                bytes = 0;
            }
            if (!isBlank(s.substr(0, take))) {
                doc.sentences.emplace_back(s.substr(0, take));
                bytes += take;
            }
            s.remove_prefix(take);
            lineOffset += take;
            if (!s.empty()) {
                noteCut(where, cutBefore, lineOffset, insideWord);
                cutBefore = true;
            }
        }
    };
    while (i <= text.size()) {
        const size_t k = text.find_first_of("\r\n", i);
        const size_t end = k == std::string::npos ? text.size() : k;
        add(std::string_view(text).substr(i, end - i), i);
        if (k == std::string::npos)
            break;
        i = k + 1;
        if (text[k] == '\r' && i < text.size() && text[i] == '\n')
            ++i;
    }
    if (doc.sentences.empty() && !doc.continues)
        ++m_emptyRows;
    else if (!doc.sentences.empty())
        m_rows.push_back(std::move(doc));
}

bool PretrainingTextReader::nextRow(PretrainingTextDocument &doc)
{
    while (m_rowPos >= m_rows.size()) {
        m_rows.clear();
        m_rowPos = 0;
        const std::string_view rest = std::string_view(m_buf).substr(m_pos);
        size_t end = m_eof ? rest.size() : lastRowEnd(rest, m_delimiter, m_quoting);
        if (end == 0) {
            if (m_eof)
                return false;
            if (rest.size() > kMaxRowBytes)
                throw Error(m_path + ":" + std::to_string(m_line + 1), "a row is longer than 256 MB",
                            "Check the quotes: an unclosed quote makes the rest of the file one field.");
            fill();
            continue;
        }
        const std::string_view chunk = rest.substr(0, end);
        checkBytes(chunk, m_bufOffset + m_pos);
        TextRows rows;
        try {
            rows = parseTextRows(chunk, TextRowDialect{m_delimiter, m_quoting}, m_path);
        } catch (const Error &e) {
            std::string field = e.field();
            const std::string prefix = m_path + ":";
            if (field.rfind(prefix, 0) == 0) {
                try {
                    field = prefix + std::to_string(m_line + std::stoll(field.substr(prefix.size())));
                } catch (...) {
                }
            }
            throw Error(field, e.what(), e.hint());
        }
        const int64_t lineBase = m_line;
        m_line += countLineEnds(chunk);
        m_pos += end;
        for (TextRow &row : rows.rows) {
            const std::string where = m_path + ":" + std::to_string(lineBase + row.line);
            if (!m_headerRead) {
                const std::string name = pickColumn(row.fields, where);
                m_column = size_t(std::find(row.fields.begin(), row.fields.end(), name) - row.fields.begin());
                m_headerRead = true;
                continue;
            }
            if (m_column >= row.fields.size())
                throw Error(where, "the row has " + std::to_string(row.fields.size()) + " field(s), so no '"
                                       + m_textColumnUsed + "' (field " + std::to_string(m_column + 1) + ")",
                            m_kind == Kind::Csv ? "Quote fields that contain the delimiter or line breaks."
                                                : "A TSV row must have all the header's columns.");
            PretrainingTextDocument d;
            d.where = where;
            addText(std::move(row.fields[m_column]), d);
        }
        if (m_eof && m_pos >= m_buf.size() && m_rows.empty())
            return false;
    }
    doc = std::move(m_rows[m_rowPos++]);
    return true;
}

bool PretrainingTextReader::nextJsonl(PretrainingTextDocument &doc)
{
    std::string line;
    uint64_t offset = 0;
    while (m_rowPos >= m_rows.size()) {
        m_rows.clear();
        m_rowPos = 0;
        if (!readLine(line, offset))
            return false;
        if (isBlank(line))
            continue;
        const std::string where = m_path + ":" + std::to_string(m_line);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception &e) {
            throw Error(where, std::string("the line is not JSON: ") + e.what(),
                        "Write one JSON object per line, e.g. {\"text\": \"...\"}.");
        }
        if (!j.is_object())
            throw Error(where, std::string("the line is a JSON ") + j.type_name() + ", not an object",
                        "Write one JSON object per line, e.g. {\"text\": \"...\"}.");
        if (!m_headerRead) {
            std::vector<std::string> keys;
            for (auto it = j.begin(); it != j.end(); ++it)
                keys.push_back(it.key());
            pickColumn(keys, where);
            m_headerRead = true;
        }
        const auto it = j.find(m_textColumnUsed);
        if (it == j.end() || !it->is_string())
            throw Error(where, it == j.end() ? "the object has no key '" + m_textColumnUsed + "'"
                                             : "'" + m_textColumnUsed + "' is a JSON " + it->type_name() + ", not a string",
                        "Every line needs the text under the same key (" + optionName("text_column") + ").");
        PretrainingTextDocument d;
        d.where = where;
        addText(it->get<std::string>(), d);
    }
    doc = std::move(m_rows[m_rowPos++]);
    return true;
}

void PretrainingTextReader::addText(std::string text, PretrainingTextDocument &doc)
{
    if (m_emailBodyOnly) {
        // As prepare --email_body_only reads a text (core/prepare/dataprep.cpp): the body, then
        // bytes that are not UTF-8 as Windows-1252; a NUL byte (binary debris) is dropped.
        bool latin1 = false;
        text = prep::toUtf8(emailBody(text), latin1);
        text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
    }
    splitText(text, doc);
}

bool PretrainingTextReader::nextMail(PretrainingTextDocument &doc)
{
    // One mail per file, one document per mail: the file is read whole (a mail's MIME structure
    // needs all of it), then its body is split into lines as a row's text is.
    while (m_rowPos >= m_rows.size()) {
        m_rows.clear();
        m_rowPos = 0;
        if (m_headerRead)
            return false; // this file's mail has been handed out
        while (!m_eof) {
            if (m_buf.size() - m_pos > kMaxRowBytes)
                throw Error(m_path, "is longer than 256 MB: too long for one e-mail message",
                            "Give one mail per file (an mbox file of many mails is not split into mails), or leave "
                            "this file out of the input.");
            fill();
        }
        m_headerRead = true;
        std::string bytes = m_buf.substr(m_pos);
        m_pos = m_buf.size();
        PretrainingTextDocument d;
        d.where = m_path + ":1";
        addText(std::move(bytes), d);
    }
    doc = std::move(m_rows[m_rowPos++]);
    return true;
}

bool PretrainingTextReader::next(PretrainingTextDocument &doc)
{
    while (true) {
        if (!m_file && !openNext())
            return false;
        doc = PretrainingTextDocument{};
        bool got = false;
        switch (m_kind) {
        case Kind::Text: got = nextText(doc); break;
        case Kind::Csv:
        case Kind::Tsv: got = nextRow(doc); break;
        case Kind::Jsonl: got = nextJsonl(doc); break;
        case Kind::Mail: got = nextMail(doc); break;
        }
        if (got)
            return true;
        if (!openNext())
            return false;
    }
}

} // namespace wb
