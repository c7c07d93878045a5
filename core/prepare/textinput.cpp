// SPDX-License-Identifier: Apache-2.0
// The column reader of prepare and classify (textinput.h): a file's header (or JSON keys),
// the text and label columns found in it, and one record per row, JSON object or line.
#include "core/prepare/textinput.h"

#include "core/prepare/preparesource.h"
#include "core/prepare/textrows.h"
#include "core/config/fieldproblem.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

namespace wb {

namespace {

using Json = nlohmann::ordered_json;

std::string joinQuoted(const std::vector<std::string> &names)
{
    std::string s;
    for (const auto &n : names)
        s += (s.empty() ? "" : ", ") + std::string("'") + n + "'";
    return s;
}

// The header names of the usual data sets: SST-2 / CoLA with a header (sentence), generic
// exports (text), the GLUE pair tasks' headers in tensorflow/models' classifier_data_lib.py
// (MRPC/STS-B sentence1+sentence2, QNLI question+sentence, MNLI/RTE premise+hypothesis in
// Hugging Face's copies, QQP question1+question2), simpletransformers' text_a/text_b data
// frames, and the IMDB review CSV's review/sentiment. Compared case-insensitively.
const std::vector<std::pair<std::string, std::string>> kPairColumns = {{"sentence1", "sentence2"},
                                                                       {"question", "sentence"},
                                                                       {"premise", "hypothesis"},
                                                                       {"question1", "question2"},
                                                                       {"text_a", "text_b"}};
const std::vector<std::string> kTextColumns = {"sentence", "text", "review", "text_a"};
const std::vector<std::string> kLabelColumns = {"label", "labels", "class", "category", "target", "sentiment"};

std::string recognisedNamesText()
{
    std::string s;
    for (const auto &n : kTextColumns)
        s += (s.empty() ? "" : ", ") + n;
    for (const auto &[a, b] : kPairColumns)
        s += ", " + a + " + " + b;
    return s;
}

std::string labelNamesText()
{
    std::string s;
    for (const auto &n : kLabelColumns)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

// Index of the name equal to `name`, else of the first one equal ignoring ASCII case; -1.
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

// The columns of one file: given by name, or recognised. On failure `problem` says why and
// which column options fix it (each front-end words the fix); nothing is thrown so that the
// ';' detection can try a split.
struct Columns
{
    int a = -1, b = -1, label = -1;
    bool textRecognised = false, labelRecognised = false;
    FieldProblem problem; ///< message empty: the columns were found
    std::vector<int> labelColumns; ///< multi-label 0/1 columns (given or detected)
    /// Detected 0/1 columns: the error to throw when their values turn out not to be all 0/1.
    FieldProblem detectedProblem;
};

struct ColumnSearch
{
    const std::vector<std::string> &header;
    const TextInputSpec &spec;
    std::string what; // "header" or "keys"
    Columns c;

    std::string found() const { return " (" + std::string(what == "keys" ? "keys" : "columns") + ": " + joinQuoted(header) + ")"; }

    bool fail(std::string problem, std::vector<OptionFix> fixes, std::string recognised = {})
    {
        c.problem.message = std::move(problem) + found();
        c.problem.fixes = std::move(fixes);
        c.problem.recognised = std::move(recognised);
        return false;
    }

    /// The fix of a wrong text column: name the first text (and the second of a pair).
    static std::vector<OptionFix> textColumnFixes()
    {
        return {{"text_a_column", "NAME", ""}, {"text_b_column", "NAME", "for sentence pairs"}};
    }

    bool given(const std::string &name, const char *flag, int &index)
    {
        if (name.empty())
            return true;
        index = findColumn(header, name);
        if (index >= 0)
            return true;
        return fail("the " + what + " has no " + (what == "keys" ? "key" : "column") + " '" + name + "'",
                    {{flag, "NAME", std::string("with one of the ") + (what == "keys" ? "keys" : "columns") + " found"}});
    }

    void recognisePair()
    {
        c.textRecognised = true;
        for (const auto &[first, second] : kPairColumns) {
            const int fa = findColumn(header, first), fb = findColumn(header, second);
            if (fa >= 0 && fb >= 0 && (spec.text_b_column.empty() || fb == c.b)) {
                c.a = fa;
                c.b = fb;
                return;
            }
        }
    }

    bool recogniseSingle()
    {
        std::vector<int> singles;
        for (const auto &name : kTextColumns) {
            const int i = findColumn(header, name);
            if (i >= 0 && i != c.b)
                singles.push_back(i);
        }
        if (singles.size() > 1)
            return fail("the " + what + " has several text columns ('" + header[size_t(singles[0])] + "', '"
                            + header[size_t(singles[1])] + "'); which one holds the text?",
                        textColumnFixes());
        if (singles.empty())
            return fail("no text column was recognised in the " + what, textColumnFixes(), recognisedNamesText());
        c.a = singles[0];
        return true;
    }

    void recogniseLabel()
    {
        std::vector<int> labels;
        for (const auto &name : kLabelColumns) {
            const int i = findColumn(header, name);
            if (i >= 0 && i != c.a && i != c.b && std::find(labels.begin(), labels.end(), i) == labels.end())
                labels.push_back(i);
        }
        if (labels.size() > 1 && spec.need_label) {
            fail("the " + what + " has several label columns ('" + header[size_t(labels[0])] + "', '"
                     + header[size_t(labels[1])] + "'); which one holds the labels?",
                 {{"label_column", "NAME", ""}});
        } else if (labels.empty() && spec.need_label) {
            fail("no label column was recognised in the " + what, {{"label_column", "NAME", ""}}, labelNamesText());
            detectLabelColumns();
        } else if (!labels.empty()) {
            c.label = labels[0];
            c.labelRecognised = true;
        }
    }

    // Multi-label: every other column, when there are two or more, may be one 0/1 column per
    // label; the values decide (checkDetectedLabelColumns), and the problem waits until then.
    void detectLabelColumns()
    {
        if (!spec.detect_label_columns)
            return;
        std::vector<int> others;
        for (size_t i = 0; i < header.size(); ++i)
            if (int(i) != c.a && int(i) != c.b)
                others.push_back(int(i));
        if (others.size() < 2)
            return;
        c.labelColumns = others;
        c.detectedProblem = std::move(c.problem);
        c.problem = {};
    }

    bool givenLabelColumns()
    {
        for (const std::string &name : spec.label_columns) {
            int i = -1;
            if (!given(name, "label_columns", i))
                return false;
            c.labelColumns.push_back(i);
        }
        return true;
    }

    Columns run()
    {
        if (!given(spec.text_a_column, "text_a_column", c.a) || !given(spec.text_b_column, "text_b_column", c.b))
            return c;
        if (c.a < 0)
            recognisePair();
        if (c.a < 0 && !recogniseSingle())
            return c;
        if (!spec.label_columns.empty()) {
            givenLabelColumns();
            return c;
        }
        if (!spec.label_column.empty()) {
            c.label = findColumn(header, spec.label_column);
            if (c.label < 0 && spec.need_label)
                given(spec.label_column, "label_column", c.label);
            return c;
        }
        recogniseLabel();
        return c;
    }
};

Columns resolveColumns(const std::vector<std::string> &header, const TextInputSpec &spec, const char *what)
{
    return ColumnSearch{header, spec, what, {}}.run();
}

void setColumns(TextInput &in, const Columns &c)
{
    const auto &h = in.columns_found;
    in.columns.text_a = h[size_t(c.a)];
    in.columns.text_b = c.b >= 0 ? h[size_t(c.b)] : std::string();
    in.columns.label = c.label >= 0 ? h[size_t(c.label)] : std::string();
    in.columns.text_recognised = c.textRecognised;
    in.columns.label_recognised = c.labelRecognised;
    for (const int i : c.labelColumns)
        in.columns.label_columns.push_back(h[size_t(i)]);
    in.columns.label_columns_detected = !c.detectedProblem.message.empty();
}

// Whether a 0/1 label column's value reads as 0 or 1 (JSON: also false / true).
bool zeroOneValue(const std::string &v)
{
    const std::string t = prep::trimmed(v);
    return t == "0" || t == "1" || t == "false" || t == "true";
}

// Detected 0/1 label columns hold only 0/1 values, else the file has no label column after
// all: the error recogniseLabel() held back, as it would have been thrown.
void checkDetectedLabelColumns(const TextInput &in, const Columns &c, const std::string &where)
{
    if (c.detectedProblem.message.empty())
        return;
    for (const TextInputRecord &rec : in.records)
        for (const std::string &v : rec.label_values)
            if (!zeroOneValue(v))
                throw FieldError(where, c.detectedProblem);
}

bool blankFields(const std::vector<std::string> &fields)
{
    return std::all_of(fields.begin(), fields.end(), [](const std::string &f) { return prep::trimmed(f).empty(); });
}

// ---- CSV / TSV ------------------------------------------------------------------------

// True when every row that is not blank has as many fields as the first row (the header).
bool consistent(const TextRows &t)
{
    return std::all_of(t.rows.begin(), t.rows.end(), [&](const TextRow &row) {
        return blankFields(row.fields) || row.fields.size() == t.rows.front().fields.size();
    });
}

TextRows parseDelimited(std::string_view bytes, const std::string &path, bool csv, TextInput &in)
{
    TextRowDialect dialect;
    dialect.quoting = csv;
    dialect.delimiter = csv ? detectCsvDelimiter(bytes) : '\t';
    if (dialect.delimiter == ';')
        in.warnings.push_back(path + ": the header is separated by ';' (a spreadsheet export); read with ';' "
                                     "between fields");
    TextRows parsed = parseTextRows(bytes, dialect, path);
    if (!csv && !consistent(parsed) && bytes.find('"') != std::string_view::npos) {
        // Spreadsheet and pandas TSV exports quote fields that hold tabs or line breaks; the
        // GLUE layout has no quoting. Read with quotes only when that makes every row fit.
        try {
            TextRows quoted = parseTextRows(bytes, TextRowDialect{'\t', true}, path);
            if (consistent(quoted)) {
                parsed = std::move(quoted);
                in.warnings.push_back(path + ": some fields are in double quotes and hold tabs or line breaks (a "
                                             "spreadsheet or pandas export); read with quotes as in CSV");
            }
        } catch (const Error &) {
            // Not quoted TSV either: the unquoted reading reports the rows.
        }
    }
    return parsed;
}

std::string fieldCountFix(bool csv, bool semicolon)
{
    if (!csv)
        return "Remove tab characters inside the texts";
    return semicolon ? "Put the text in double quotes when it contains ';'"
                     : "Put the text in double quotes when it contains commas (\"noisy room, thin walls\")";
}

void readDelimited(std::string_view bytes, const std::string &path, const TextInputSpec &spec, TextInput &in)
{
    const bool csv = spec.format == TextFileFormat::Csv;
    TextRows parsed = parseDelimited(bytes, path, csv, in);
    in.had_bom = parsed.had_bom;
    auto &rows = parsed.rows;
    if (rows.empty())
        throw Error(path, "the file is empty", "The first row must name the columns, e.g. text,label.");
    for (const auto &h : rows[0].fields)
        in.columns_found.push_back(prep::trimmed(h));
    const auto &header = in.columns_found;
    const Columns c = resolveColumns(header, spec, "header");
    if (!c.problem.message.empty()) {
        const std::string where = path + ":" + std::to_string(rows[0].line);
        if (header.size() == 1 && header[0].find(csv ? '\t' : ',') != std::string::npos) {
            if (spec.format_from_name) // the file's name sets the format: no option fixes it
                throw Error(where, c.problem.message,
                            csv ? "The file looks tab-separated: name it .tsv." : "The file looks comma-separated: name it .csv.");
            FieldProblem looks{c.problem.message, csv ? "the file looks tab-separated" : "the file looks comma-separated",
                               {{"classification_task_name", csv ? "tsv" : "csv", ""}}, "", ""};
            throw FieldError(where, looks);
        }
        throw FieldError(where, c.problem);
    }
    setColumns(in, c);
    const std::string fix = fieldCountFix(csv, csv && detectCsvDelimiter(bytes) == ';');
    for (size_t r = 1; r < rows.size(); ++r) {
        TextRow &row = rows[r];
        TextInputRecord rec;
        rec.line = row.line;
        if (blankFields(row.fields)) {
            rec.blank = true;
        } else if (row.fields.size() != header.size()) {
            rec.problem = "the row has " + std::to_string(row.fields.size())
                + (row.fields.size() == 1 ? " field" : " fields") + ", the header has " + std::to_string(header.size())
                + " (" + joinQuoted(header) + ")";
            rec.hint = fix;
        } else {
            rec.latin1 = prep::fieldsToUtf8(row.fields);
            rec.text_a = std::move(row.fields[size_t(c.a)]);
            if (c.b >= 0)
                rec.text_b = std::move(row.fields[size_t(c.b)]);
            if (c.label >= 0) {
                rec.label = std::move(row.fields[size_t(c.label)]);
                rec.has_label = true;
            }
            for (const int i : c.labelColumns)
                rec.label_values.push_back(row.fields[size_t(i)]);
        }
        in.records.push_back(std::move(rec));
    }
    checkDetectedLabelColumns(in, c, path + ":" + std::to_string(rows[0].line));
}

// ---- JSON Lines / JSON ----------------------------------------------------------------

struct JsonRecord
{
    int64_t line = 0;
    Json object;             // an object, or null when `problem` is set
    bool latin1 = false;
    std::string problem, hint;
};

int64_t lineAt(std::string_view text, size_t offset)
{
    return 1 + std::count(text.begin(), text.begin() + long(std::min(offset, text.size())), '\n');
}

std::string jsonTypeName(const Json &v)
{
    if (v.is_array())
        return "an array";
    if (v.is_object())
        return "an object";
    if (v.is_string())
        return "a string";
    if (v.is_null())
        return "null";
    return v.is_boolean() ? "a boolean" : "a number";
}

void addKeys(const Json &object, std::vector<std::string> &keys)
{
    for (auto it = object.begin(); it != object.end(); ++it)
        if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
            keys.push_back(it.key());
}

std::vector<JsonRecord> jsonLines(std::string_view bytes)
{
    std::vector<JsonRecord> out;
    int64_t line = 0;
    size_t pos = 0;
    while (pos <= bytes.size()) {
        const size_t end = std::min(bytes.find('\n', pos), bytes.size());
        std::string text(bytes.substr(pos, end - pos));
        ++line;
        pos = end + 1;
        if (prep::trimmed(text).empty()) {
            if (end == bytes.size())
                break;
            continue;
        }
        JsonRecord r;
        r.line = line;
        text = prep::toUtf8(std::move(text), r.latin1);
        const Json v = Json::parse(text, nullptr, false);
        if (v.is_discarded()) {
            r.problem = "the line is not valid JSON";
            r.hint = "Write one JSON object per line, e.g. {\"text\": \"…\", \"label\": \"…\"}";
        } else if (!v.is_object()) {
            r.problem = "the line holds " + jsonTypeName(v) + ", not a JSON object";
            r.hint = "Write one JSON object per line, e.g. {\"text\": \"…\", \"label\": \"…\"}";
        } else {
            r.object = v;
        }
        out.push_back(std::move(r));
        if (end == bytes.size())
            break;
    }
    return out;
}

// The 1-based line on which each element of the top-level array in `text` starts (the text
// is valid JSON, so strings and nesting are well formed).
std::vector<int64_t> arrayElementLines(std::string_view text)
{
    std::vector<int64_t> lines;
    int64_t line = 1;
    int depth = 0;
    bool inString = false, escaped = false, expectValue = false;
    for (const char ch : text) {
        if (ch == '\n')
            ++line;
        if (inString) {
            escaped = !escaped && ch == '\\';
            if (ch == '"' && !escaped)
                inString = false;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
            continue;
        if (depth == 1 && ch == ',') {
            expectValue = true;
            continue;
        }
        if (depth == 1 && expectValue && ch != ']') {
            lines.push_back(line);
            expectValue = false;
        }
        if (ch == '"')
            inString = true;
        else if (ch == '[' || ch == '{')
            expectValue = ++depth == 1;
        else if (ch == ']' || ch == '}')
            --depth;
    }
    return lines;
}

const char *kJsonShape = "A .json file holds one array of objects ([{\"text\": \"…\", \"label\": \"…\"}, …]); "
                         "for one object per line name it .jsonl";

std::vector<JsonRecord> jsonArray(std::string_view bytes, const std::string &path, TextInput &in)
{
    bool latin1 = false;
    const std::string text = prep::toUtf8(std::string(bytes), latin1);
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        // Hugging Face datasets' to_json() and pandas' to_json(lines=True) write JSON Lines,
        // often under a .json name: read such a file as JSON Lines, and say so.
        std::vector<JsonRecord> lines = jsonLines(bytes);
        if (lines.size() > 1 && lines.front().problem.empty()) {
            in.format = TextFileFormat::JsonLines;
            in.warnings.push_back(path + ": holds one JSON object per line (JSON Lines), not one JSON array; read "
                                         "as JSON Lines");
            return lines;
        }
        throw Error(path + ":" + std::to_string(lineAt(text, e.byte > 0 ? size_t(e.byte - 1) : 0)),
                    "not valid JSON", kJsonShape);
    }
    if (!doc.is_array())
        throw Error(path, "the file holds " + jsonTypeName(doc) + ", not a JSON array of records", kJsonShape);
    const std::vector<int64_t> lines = arrayElementLines(text);
    std::vector<JsonRecord> out;
    for (size_t k = 0; k < doc.size(); ++k) {
        JsonRecord r;
        r.line = k < lines.size() ? lines[k] : 0;
        r.latin1 = latin1;
        if (doc[k].is_object()) {
            r.object = std::move(doc[k]);
        } else {
            r.problem = "element " + std::to_string(k) + " of the array is " + jsonTypeName(doc[k]) + ", not an object";
            r.hint = "Write each record as an object, e.g. {\"text\": \"…\", \"label\": \"…\"}";
        }
        out.push_back(std::move(r));
    }
    return out;
}

// The value of `key` as text: a string as it is, a number or boolean as its JSON text; null
// and a missing key give nothing; an array or object is `problem`.
std::optional<std::string> valueText(const Json &object, const std::string &key, std::string &problem)
{
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return std::nullopt;
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_array() || it->is_object()) {
        problem = "the value of '" + key + "' is " + jsonTypeName(*it) + ", not a text";
        return std::nullopt;
    }
    return it->dump();
}

// A label value that is a JSON array (multi-label): its elements as text into `rec`; false
// (with `rec.problem`) for an element that is not a string or a number.
bool labelList(const Json &object, const std::string &key, TextInputRecord &rec)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_array())
        return true;
    rec.label_is_list = true;
    for (const Json &v : *it) {
        if (!v.is_string() && !v.is_number()) {
            rec.problem = "the list of '" + key + "' holds " + jsonTypeName(v) + ", not a label name";
            rec.hint = "Write the labels as a list of names, e.g. \"" + key + "\": [\"billing\", \"urgent\"]";
            return false;
        }
        rec.label_list.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return true;
}

TextInputRecord recordOf(JsonRecord &j, const TextInputColumns &c)
{
    TextInputRecord rec;
    rec.line = j.line;
    rec.latin1 = j.latin1;
    rec.problem = j.problem;
    rec.hint = j.hint;
    if (!rec.problem.empty())
        return rec;
    const auto a = valueText(j.object, c.text_a, rec.problem);
    const auto b = c.text_b.empty() ? std::optional<std::string>() : valueText(j.object, c.text_b, rec.problem);
    if (!c.label.empty() && !labelList(j.object, c.label, rec))
        return rec;
    const auto label = c.label.empty() || rec.label_is_list ? std::optional<std::string>()
                                                            : valueText(j.object, c.label, rec.problem);
    for (const std::string &k : c.label_columns)
        rec.label_values.push_back(valueText(j.object, k, rec.problem).value_or(std::string()));
    if (!rec.problem.empty()) {
        rec.hint = "Give each record its text as a string";
        return rec;
    }
    if (!a || (!c.text_b.empty() && !b)) {
        rec.problem = "the record has no '" + (a ? c.text_b : c.text_a) + "'";
        rec.hint = "Give every record the same keys";
        return rec;
    }
    rec.text_a = *a;
    rec.text_b = b.value_or(std::string());
    rec.has_label = label.has_value() || rec.label_is_list;
    rec.label = label.value_or(std::string());
    rec.blank = prep::trimmed(rec.text_a).empty() && prep::trimmed(rec.text_b).empty() && prep::trimmed(rec.label).empty()
                && rec.label_list.empty();
    return rec;
}

void readJson(std::string_view bytes, const std::string &path, const TextInputSpec &spec, TextInput &in)
{
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") {
        bytes.remove_prefix(3);
        in.had_bom = true;
    }
    std::vector<JsonRecord> objects = spec.format == TextFileFormat::Json ? jsonArray(bytes, path, in) : jsonLines(bytes);
    if (objects.empty())
        throw Error(path, "the file is empty", "Write one JSON object per record, e.g. {\"text\": \"…\", \"label\": \"…\"}.");
    for (const JsonRecord &j : objects)
        if (j.problem.empty())
            addKeys(j.object, in.columns_found);
    const Columns c = resolveColumns(in.columns_found, spec, "keys");
    if (!c.problem.message.empty())
        throw FieldError(path, c.problem);
    setColumns(in, c);
    for (JsonRecord &j : objects)
        in.records.push_back(recordOf(j, in.columns));
    checkDetectedLabelColumns(in, c, path);
}

// ---- Lines ----------------------------------------------------------------------------

void readLines(std::string_view bytes, const std::string &path, TextInput &in)
{
    TextRowDialect lines;
    lines.delimiter = '\n'; // never a field delimiter inside a line: one field per row
    lines.quoting = false;
    TextRows rows = parseTextRows(bytes, lines, path);
    in.had_bom = rows.had_bom;
    for (TextRow &row : rows.rows) {
        TextInputRecord rec;
        rec.line = row.line;
        rec.text_a = row.fields.empty() ? std::string() : std::move(row.fields[0]);
        rec.text_a = prep::toUtf8(std::move(rec.text_a), rec.latin1);
        rec.blank = prep::trimmed(rec.text_a).empty();
        in.records.push_back(std::move(rec));
    }
}

} // namespace

TextFileFormat textFileFormatFromName(const std::string &path)
{
    const std::string ext = lowerAscii(std::filesystem::path(path).extension().string());
    if (ext == ".csv")
        return TextFileFormat::Csv;
    if (ext == ".tsv")
        return TextFileFormat::Tsv;
    if (ext == ".jsonl" || ext == ".ndjson")
        return TextFileFormat::JsonLines;
    if (ext == ".json")
        return TextFileFormat::Json;
    return TextFileFormat::Lines;
}

const char *textFileFormatName(TextFileFormat format)
{
    switch (format) {
    case TextFileFormat::Csv: return "csv";
    case TextFileFormat::Tsv: return "tsv";
    case TextFileFormat::JsonLines: return "jsonl";
    case TextFileFormat::Json: return "json";
    case TextFileFormat::Lines: break;
    }
    return "lines";
}

TextInput parseTextInput(std::string_view bytes, const std::string &path, const TextInputSpec &spec)
{
    TextInput in;
    in.path = path;
    in.format = spec.format;
    switch (spec.format) {
    case TextFileFormat::Csv:
    case TextFileFormat::Tsv: readDelimited(bytes, path, spec, in); break;
    case TextFileFormat::JsonLines:
    case TextFileFormat::Json: readJson(bytes, path, spec, in); break;
    case TextFileFormat::Lines: readLines(bytes, path, in); break;
    }
    return in;
}

TextInput readTextInput(const std::string &path, const TextInputSpec &spec)
{
    return parseTextInput(prep::readWholeFile(path), path, spec);
}

} // namespace wb
