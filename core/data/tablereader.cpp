// SPDX-License-Identifier: Apache-2.0
// The generic "tsv" / "csv" reader of prepareData(): a header row names the columns; every
// row must have as many fields as the header (docs/file-formats.md, "Raw text for Prepare data").
#include "core/data/preparesource.h"
#include "core/data/textrows.h"

#include "core/util/error.h"

#include <filesystem>

namespace wb::prep {

namespace fs = std::filesystem;

namespace {

std::string firstLine(const std::string &text)
{
    const size_t end = text.find_first_of("\r\n");
    return text.substr(0, end == std::string::npos ? text.size() : end);
}

std::string joinQuoted(const std::vector<std::string> &names)
{
    std::string s;
    for (const auto &n : names)
        s += (s.empty() ? "" : ", ") + std::string("'") + n + "'";
    return s;
}

// CSV exports of spreadsheets in locales with a decimal comma use ';' between fields. The
// header tells: no ',' in it, but ';' splits it into the named text column.
char csvDelimiter(const std::string &text, const PrepareOptions &o)
{
    const std::string head = firstLine(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text);
    if (head.find(',') != std::string::npos || head.find(';') == std::string::npos)
        return ',';
    const std::string needle = o.text_a_column;
    size_t b = 0;
    while (b <= head.size()) {
        size_t e = head.find(';', b);
        if (e == std::string::npos)
            e = head.size();
        std::string name = trimmed(head.substr(b, e - b));
        if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
            name = name.substr(1, name.size() - 2);
        if (name == needle)
            return ';';
        b = e + 1;
    }
    return ',';
}

std::vector<RawExample> readTableFile(const std::string &path, bool csv, const PrepareOptions &o, bool needLabel,
                                      ReadNotes &notes)
{
    const std::string bytes = readWholeFile(path);
    TextRowDialect dialect;
    dialect.quoting = csv;
    dialect.delimiter = csv ? csvDelimiter(bytes, o) : '\t';
    if (dialect.delimiter == ';')
        notes.warnings.push_back(path + ": the header is separated by ';' (a spreadsheet export); read with ';' "
                                        "between fields");
    TextRows parsed = parseTextRows(bytes, dialect, path);
    notes.bom += parsed.had_bom ? 1 : 0;
    auto &rows = parsed.rows;
    if (rows.empty())
        throw Error(path, "the file is empty", "The first row must name the columns, e.g. text,label.");
    std::vector<std::string> header;
    for (const auto &h : rows[0].fields)
        header.push_back(trimmed(h));
    auto column = [&](const std::string &name, bool required) -> int {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return int(i);
        if (!required)
            return -1;
        std::string hint = "Name the columns with --text_a_column, --text_b_column and --label_column.";
        if (header.size() == 1 && header[0].find(csv ? '\t' : ',') != std::string::npos)
            hint = csv ? "The file looks tab-separated: use --classification_task_name=tsv."
                       : "The file looks comma-separated: use --classification_task_name=csv.";
        throw Error(path + ":" + std::to_string(rows[0].line),
                    "the header has no column '" + name + "' (columns: " + joinQuoted(header) + ")", hint);
    };
    const int a = column(o.text_a_column, true);
    const int b = o.text_b_column.empty() ? -1 : column(o.text_b_column, true);
    const int l = column(o.label_column, needLabel);
    if (rows.size() == 1)
        throw Error(path, "the file has a header but no rows", "Add examples below the header row.");
    const std::string fix = csv ? (dialect.delimiter == ';' ? "Put the text in double quotes when it contains ';'"
                                                            : "Put the text in double quotes when it contains commas "
                                                              "(\"noisy room, thin walls\")")
                                : std::string("Remove tab characters inside the texts");
    std::vector<RawExample> out;
    for (size_t r = 1; r < rows.size(); ++r) {
        TextRow &row = rows[r];
        const std::string where = path + ":" + std::to_string(row.line);
        bool blank = true;
        for (const auto &f : row.fields)
            blank = blank && trimmed(f).empty();
        if (blank) {
            notes.skipped.push_back({where, "the row is blank"});
            continue;
        }
        if (row.fields.size() != header.size()) {
            badRow(o.skip_bad_rows, notes, where,
                   "the row has " + std::to_string(row.fields.size()) + (row.fields.size() == 1 ? " field" : " fields")
                       + ", the header has " + std::to_string(header.size()) + " (" + joinQuoted(header) + ")",
                   fix + ", or pass --skip_bad_rows to skip such rows.");
            continue;
        }
        bool anyLatin1 = false;
        for (auto &f : row.fields) {
            bool latin1 = false;
            f = toUtf8(std::move(f), latin1);
            anyLatin1 = anyLatin1 || latin1;
        }
        if (anyLatin1)
            notes.latin1.push_back(where);
        RawExample ex;
        ex.text_a = std::move(row.fields[size_t(a)]);
        if (b >= 0)
            ex.text_b = std::move(row.fields[size_t(b)]);
        if (ex.text_a.find('\0') != std::string::npos || ex.text_b.find('\0') != std::string::npos)
            notes.nul.push_back(where);
        ex.where = where;
        if (l >= 0) {
            ex.label = trimmed(row.fields[size_t(l)]);
            if (ex.label.empty() && needLabel) {
                badRow(o.skip_bad_rows, notes, where, "the label is empty",
                       "Fill in the label in column '" + o.label_column + "', or pass --skip_bad_rows to skip the row.");
                continue;
            }
        }
        out.push_back(std::move(ex));
    }
    return out;
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

} // namespace

void readTable(const PrepareOptions &o, bool csv, SourceSplits &s, ReadNotes &notes)
{
    const std::string ext = csv ? ".csv" : ".tsv";
    if (fs::is_regular_file(o.input_data_dir)) {
        s.train = readTableFile(o.input_data_dir, csv, o, true, notes);
    } else {
        const std::string train = findFile(o.input_data_dir, {"train" + ext});
        if (train.empty())
            throw Error(o.input_data_dir, "no train" + ext + " in this folder",
                        "Pass the data file itself as --input_data_dir, or name it train" + ext + ".");
        s.train = readTableFile(train, csv, o, true, notes);
        const std::string dev = findFile(o.input_data_dir, {"dev" + ext, "eval" + ext, "validation" + ext});
        if (!dev.empty()) {
            s.eval = readTableFile(dev, csv, o, true, notes);
            s.hasEval = true;
        }
        const std::string test = findFile(o.input_data_dir, {"test" + ext});
        if (!test.empty()) {
            s.test = readTableFile(test, csv, o, false, notes);
            s.hasTest = true;
        }
    }
    s.pair = !o.text_b_column.empty();
    s.processor = csv ? "CSV" : "TSV";
}

} // namespace wb::prep
