// SPDX-License-Identifier: Apache-2.0
// The generic "tsv" / "csv" reader of prepareData(): a header row names the columns; every
// row must have as many fields as the header (docs/file-formats.md, "Raw text for Prepare data").
#include "core/data/preparesource.h"
#include "core/data/textrows.h"

#include "core/util/error.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace wb::prep {

namespace fs = std::filesystem;

namespace {

std::string joinQuoted(const std::vector<std::string> &names)
{
    std::string s;
    for (const auto &n : names)
        s += (s.empty() ? "" : ", ") + std::string("'") + n + "'";
    return s;
}

std::string lowerAscii(std::string s)
{
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The header names of the usual data sets: SST-2 / CoLA with a header (sentence), generic
// exports (text), and the GLUE pair tasks' headers in tensorflow/models' classifier_data_lib.py
// (MRPC/STS-B sentence1+sentence2, QNLI question+sentence, MNLI/RTE premise+hypothesis in
// Hugging Face's copies, QQP question1+question2), and the IMDB review CSV's review/sentiment.
// Compared case-insensitively.
const std::vector<std::pair<std::string, std::string>> kPairColumns = {
    {"sentence1", "sentence2"}, {"question", "sentence"}, {"premise", "hypothesis"}, {"question1", "question2"}};
const std::vector<std::string> kTextColumns = {"sentence", "text", "review"};
const std::vector<std::string> kLabelColumns = {"label", "labels", "class", "category", "target", "sentiment"};

std::string recognisedNamesText()
{
    return "sentence, text, review, sentence1 + sentence2, question + sentence, premise + hypothesis, question1 + "
           "question2";
}

// Index of the header name equal to `name`, else of the first one equal ignoring ASCII case; -1.
int findColumn(const std::vector<std::string> &header, const std::string &name)
{
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return int(i);
    const std::string key = lowerAscii(name);
    for (size_t i = 0; i < header.size(); ++i)
        if (lowerAscii(header[i]) == key)
            return int(i);
    return -1;
}

// The columns of one file: given by name, or recognised from the header. On failure `problem`
// (and `hint`) say why; nothing is thrown so that the ';' detection can try a split.
struct Columns
{
    int a = -1, b = -1, label = -1;
    bool textRecognised = false, labelRecognised = false;
    std::string problem, hint;
};

Columns resolveColumns(const std::vector<std::string> &header, const std::string &textA, const std::string &textB,
                       const std::string &label, bool needLabel)
{
    Columns c;
    const std::string found = " (columns: " + joinQuoted(header) + ")";
    auto missing = [&](const std::string &name, const char *flag) {
        c.problem = "the header has no column '" + name + "'" + found;
        c.hint = std::string("Pass --") + flag + "=NAME with one of the columns found.";
    };
    if (!textA.empty()) {
        c.a = findColumn(header, textA);
        if (c.a < 0) {
            missing(textA, "text_a_column");
            return c;
        }
    }
    if (!textB.empty()) {
        c.b = findColumn(header, textB);
        if (c.b < 0) {
            missing(textB, "text_b_column");
            return c;
        }
    }
    if (c.a < 0) {
        c.textRecognised = true;
        for (const auto &[first, second] : kPairColumns) {
            const int fa = findColumn(header, first), fb = findColumn(header, second);
            if (fa >= 0 && fb >= 0 && (textB.empty() || fb == c.b)) {
                c.a = fa;
                c.b = fb;
                break;
            }
        }
    }
    if (c.a < 0) {
        std::vector<int> singles;
        for (const auto &name : kTextColumns) {
            const int i = findColumn(header, name);
            if (i >= 0 && i != c.b)
                singles.push_back(i);
        }
        if (singles.size() > 1) {
            c.problem = "the header has several text columns ('" + header[size_t(singles[0])] + "', '"
                + header[size_t(singles[1])] + "'); which one holds the text?" + found;
            c.hint = "Pass --text_a_column=NAME (and --text_b_column=NAME for sentence pairs).";
            return c;
        }
        if (singles.empty()) {
            c.problem = "no text column was recognised in the header" + found;
            c.hint = "Pass --text_a_column=NAME (and --text_b_column=NAME for sentence pairs). Recognised without "
                     "a flag: " + recognisedNamesText() + ".";
            return c;
        }
        c.a = singles[0];
    }
    if (!label.empty()) {
        c.label = findColumn(header, label);
        if (c.label < 0 && needLabel)
            missing(label, "label_column");
        return c;
    }
    std::vector<int> labels;
    for (const auto &name : kLabelColumns) {
        const int i = findColumn(header, name);
        if (i >= 0 && i != c.a && i != c.b && std::find(labels.begin(), labels.end(), i) == labels.end())
            labels.push_back(i);
    }
    if (labels.size() > 1 && needLabel) {
        c.problem = "the header has several label columns ('" + header[size_t(labels[0])] + "', '"
            + header[size_t(labels[1])] + "'); which one holds the labels?" + found;
        c.hint = "Pass --label_column=NAME.";
    } else if (labels.empty() && needLabel) {
        c.problem = "no label column was recognised in the header" + found;
        c.hint = "Pass --label_column=NAME. Recognised without a flag: label, labels, class, category, target, "
                 "sentiment.";
    } else if (!labels.empty()) {
        c.label = labels[0];
        c.labelRecognised = true;
    }
    return c;
}

// True when every row that is not blank has as many fields as the first row (the header).
bool consistent(const TextRows &t)
{
    for (const TextRow &row : t.rows) {
        bool blank = true;
        for (const auto &f : row.fields)
            blank = blank && trimmed(f).empty();
        if (!blank && row.fields.size() != t.rows.front().fields.size())
            return false;
    }
    return true;
}

// The column names of the first file read (train); dev and test files use the same names.
struct TableNames
{
    std::string textA, textB, label;
};

// Reads one file with the columns `names` (empty: recognise; the train file fills them in `s`).
std::vector<RawExample> readTableFile(const std::string &path, bool csv, const PrepareOptions &o, bool needLabel,
                                      TableNames &names, SourceSplits &s, ReadNotes &notes)
{
    const std::string bytes = readWholeFile(path);
    TextRowDialect dialect;
    dialect.quoting = csv;
    dialect.delimiter = csv ? detectCsvDelimiter(bytes) : '\t';
    if (dialect.delimiter == ';')
        notes.warnings.push_back(path + ": the header is separated by ';' (a spreadsheet export); read with ';' "
                                        "between fields");
    TextRows parsed = parseTextRows(bytes, dialect, path);
    if (!csv && !consistent(parsed) && bytes.find('"') != std::string::npos) {
        // Spreadsheet and pandas TSV exports quote fields that hold tabs or line breaks; the
        // GLUE layout has no quoting. Read with quotes only when that makes every row fit.
        try {
            TextRows quoted = parseTextRows(bytes, TextRowDialect{'\t', true}, path);
            if (consistent(quoted)) {
                parsed = std::move(quoted);
                notes.warnings.push_back(path + ": some fields are in double quotes and hold tabs or line breaks (a "
                                                "spreadsheet or pandas export); read with quotes as in CSV");
            }
        } catch (const Error &) {
            // Not quoted TSV either: the unquoted reading reports the rows.
        }
    }
    notes.bom += parsed.had_bom ? 1 : 0;
    auto &rows = parsed.rows;
    if (rows.empty())
        throw Error(path, "the file is empty", "The first row must name the columns, e.g. text,label.");
    std::vector<std::string> header;
    for (const auto &h : rows[0].fields)
        header.push_back(trimmed(h));
    const bool first = s.text_a_column.empty();
    const Columns c = resolveColumns(header, names.textA, names.textB, names.label, needLabel);
    if (!c.problem.empty()) {
        std::string hint = c.hint;
        if (header.size() == 1 && header[0].find(csv ? '\t' : ',') != std::string::npos)
            hint = csv ? "The file looks tab-separated: use --classification_task_name=tsv."
                       : "The file looks comma-separated: use --classification_task_name=csv.";
        throw Error(path + ":" + std::to_string(rows[0].line), c.problem, hint);
    }
    if (first) {
        names.textA = header[size_t(c.a)];
        names.textB = c.b >= 0 ? header[size_t(c.b)] : std::string();
        names.label = c.label >= 0 ? header[size_t(c.label)] : std::string();
        s.text_a_column = names.textA;
        s.text_b_column = names.textB;
        s.label_column = names.label;
        s.text_columns_recognised = c.textRecognised;
        s.label_column_recognised = c.labelRecognised;
    }
    const int a = c.a, b = c.b, l = c.label;
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
        if (fieldsToUtf8(row.fields))
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
                       "Fill in the label in column '" + header[size_t(l)] + "', or pass --skip_bad_rows to skip the row.");
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
    TableNames names{o.text_a_column, o.text_b_column, o.label_column};
    if (fs::is_regular_file(o.input_data_dir)) {
        s.train = readTableFile(o.input_data_dir, csv, o, true, names, s, notes);
    } else {
        const std::string train = findFile(o.input_data_dir, {"train" + ext});
        if (train.empty()) {
            std::vector<std::string> found;
            for (const auto &e : fs::directory_iterator(o.input_data_dir)) {
                std::string name = e.path().filename().string();
                std::string lower = lowerAscii(name);
                if (e.is_regular_file() && lower.size() > ext.size()
                    && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0)
                    found.push_back(name);
            }
            std::sort(found.begin(), found.end());
            std::string hint = "Pass the data file itself as --input_data_dir, or name it train" + ext + ".";
            if (!found.empty())
                hint = "The folder holds " + joinQuoted(found) + ": pass the data file itself as --input_data_dir "
                       "(e.g. --input_data_dir=" + (fs::path(o.input_data_dir) / found[0]).string() + "), or name it train"
                       + ext + ".";
            throw Error(o.input_data_dir, "no train" + ext + " in this folder", hint);
        }
        s.train = readTableFile(train, csv, o, true, names, s, notes);
        const std::string dev = findFile(o.input_data_dir, {"dev" + ext, "eval" + ext, "validation" + ext});
        if (!dev.empty()) {
            s.eval = readTableFile(dev, csv, o, true, names, s, notes);
            s.hasEval = true;
        }
        const std::string test = findFile(o.input_data_dir, {"test" + ext});
        if (!test.empty()) {
            s.test = readTableFile(test, csv, o, false, names, s, notes);
            s.hasTest = true;
        }
    }
    s.pair = !s.text_b_column.empty();
    s.processor = csv ? "CSV" : "TSV";
}

} // namespace wb::prep
