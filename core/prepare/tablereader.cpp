// SPDX-License-Identifier: Apache-2.0
// The generic "tsv" / "csv" / "jsonl" / "json" reader of prepareData(): the columns (a header
// row, or the records' keys) are found by readTextInput(), the reader classify uses too; every
// row must have as many fields as the header (docs/file-formats.md, "Raw text for Prepare data").
#include "core/config/optionwords.h"
#include "core/prepare/preparemultilabel.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/textinput.h"

#include "core/util/asciitext.h"
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

// The column names of the first file read (train); dev and test files use the same names.
struct TableNames
{
    std::string textA, textB, label;
    std::vector<std::string> labelColumns; ///< multi-label 0/1 columns (given, or found in train)
};

// The first file read (train) names the columns in `s`, and the dev and test files use them.
void takeColumns(const PrepareOptions &o, const TextInput &in, TableNames &names, SourceSplits &s)
{
    if (!s.text_a_column.empty())
        return;
    chooseTableReading(o, in, s); // multi-label or not, from the train file
    names = {in.columns.text_a, in.columns.text_b, in.columns.label, in.columns.label_columns};
    s.text_a_column = in.columns.text_a;
    s.text_b_column = in.columns.text_b;
    s.label_column = in.columns.label;
    s.text_columns_recognised = in.columns.text_recognised;
    s.label_column_recognised = in.columns.label_recognised;
}

// One record as a RawExample; false when it is skipped (blank, bad: thrown or listed).
bool toExample(TextInputRecord &rec, const std::string &where, const TextInput &in, const PrepareOptions &o,
               bool needLabel, const SourceSplits &s, ReadNotes &notes, RawExample &ex)
{
    if (rec.blank) {
        notes.skipped.push_back({where, in.format == TextFileFormat::Json || in.format == TextFileFormat::JsonLines
                                            ? "the record is blank"
                                            : "the row is blank"});
        return false;
    }
    if (!rec.problem.empty()) {
        badRow(o.skip_bad_rows, notes, where, rec.problem, rec.hint);
        return false;
    }
    if (rec.latin1)
        notes.latin1.push_back(where);
    ex.text_a = std::move(rec.text_a);
    ex.text_b = std::move(rec.text_b);
    if (ex.text_a.find('\0') != std::string::npos || ex.text_b.find('\0') != std::string::npos)
        notes.nul.push_back(where);
    ex.where = where;
    ex.file = in.path;
    ex.line = rec.line;
    if (s.multi_label) { // a text with no label is allowed: all zeros, counted in the report
        std::string problem;
        if (needLabel && !recordLabelNames(rec, s, ex.label_names, problem)) {
            badRow(o.skip_bad_rows, notes, where, problem, "Write 1 when the text has the label, else 0", "to skip the row");
            return false;
        }
        return true;
    }
    if (in.columns.label.empty())
        return true;
    ex.label = trimmed(rec.label);
    if (ex.label.empty() && needLabel) {
        badRow(o.skip_bad_rows, notes, where,
               rec.has_label ? std::string("the label is empty") : "the record has no '" + in.columns.label + "'",
               "Fill in the label in column '" + in.columns.label + "'", "to skip the row");
        return false;
    }
    return true;
}

// Reads one file with the columns `names` (empty: recognise; the train file fills them in `s`).
std::vector<RawExample> readTableFile(const std::string &path, TextFileFormat format, const PrepareOptions &o,
                                      bool needLabel, TableNames &names, SourceSplits &s, ReadNotes &notes)
{
    TextInputSpec spec;
    spec.format = format;
    spec.text_a_column = names.textA;
    spec.text_b_column = names.textB;
    spec.label_column = names.label;
    if (needLabel) // a test file need not have the label columns
        spec.label_columns = names.labelColumns;
    spec.need_label = needLabel;
    spec.detect_label_columns = s.text_a_column.empty() && o.problem_type != kSingleLabelProblem;
    TextInput in = readTextInput(path, spec);
    for (auto &w : in.warnings)
        notes.warnings.push_back(std::move(w));
    notes.bom += in.had_bom ? 1 : 0;
    takeColumns(o, in, names, s);
    if (in.records.empty())
        throw Error(path, "the file has a header but no rows", "Add examples below the header row.");
    std::vector<RawExample> out;
    for (TextInputRecord &rec : in.records) {
        RawExample ex;
        if (toExample(rec, path + ":" + std::to_string(rec.line), in, o, needLabel, s, notes, ex))
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

void readTable(const PrepareOptions &o, TextFileFormat format, SourceSplits &s, ReadNotes &notes)
{
    const std::string ext = std::string(".") + textFileFormatName(format);
    TableNames names{o.text_a_column, o.text_b_column, o.label_column, labelColumnNames(o)};
    if (fs::is_regular_file(o.input_data_dir)) {
        s.train = readTableFile(o.input_data_dir, format, o, true, names, s, notes);
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
            std::string hint =
                "Pass the data file itself as " + optionName("input_data_dir") + ", or name it train" + ext + ".";
            if (!found.empty())
                hint = "The folder holds " + joinQuoted(found) + ": pass the data file itself as "
                       + optionName("input_data_dir") + " (e.g. "
                       + optionSetting("input_data_dir", (fs::path(o.input_data_dir) / found[0]).string())
                       + "), or name it train" + ext + ".";
            throw Error(o.input_data_dir, "no train" + ext + " in this folder", hint);
        }
        s.train = readTableFile(train, format, o, true, names, s, notes);
        const std::string dev = findFile(o.input_data_dir, {"dev" + ext, "eval" + ext, "validation" + ext});
        if (!dev.empty()) {
            s.eval = readTableFile(dev, format, o, true, names, s, notes);
            s.hasEval = true;
        }
        const std::string test = findFile(o.input_data_dir, {"test" + ext});
        if (!test.empty()) {
            s.test = readTableFile(test, format, o, false, names, s, notes);
            s.hasTest = true;
        }
    }
    s.pair = !s.text_b_column.empty();
    s.processor = textFileFormatName(format);
    for (char &c : s.processor)
        c = char(std::toupper(static_cast<unsigned char>(c)));
}

} // namespace wb::prep
