// SPDX-License-Identifier: Apache-2.0
// The GLUE readers of prepareData(): the TSV layouts of tensorflow/models
// official/nlp/data/classifier_data_lib.py (CoLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI),
// read like its csv.reader(delimiter="\t", quotechar=None).
#include "core/config/optionwords.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/textrows.h"

#include "core/util/error.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace wb::prep {

namespace fs = std::filesystem;

namespace {

struct GlueLayout
{
    const char *processor;
    std::vector<std::string> labels; // empty: regression
    bool skipHeaderTrain;            // CoLA has no header in train/dev
    int a, b, label;                 // columns; b -1: single; label -1: last column
    int testA, testB;
    const char *testLabel;
    bool skipMalformed;              // QQP
};

bool glueLayout(const std::string &name, GlueLayout &g)
{
    std::string n = name;
    for (char &c : n)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    const std::vector<std::string> bin = {"0", "1"};
    const std::vector<std::string> nli = {"contradiction", "entailment", "neutral"};
    const std::vector<std::string> ent = {"entailment", "not_entailment"};
    if (n == "COLA")
        g = {"COLA", bin, false, 3, -1, 1, 1, -1, "0", false};
    else if (n == "SST-2" || n == "SST2")
        g = {"SST-2", bin, true, 0, -1, 1, 1, -1, "0", false};
    else if (n == "MRPC")
        g = {"MRPC", bin, true, 3, 4, 0, 3, 4, "0", false};
    else if (n == "QQP")
        g = {"QQP", bin, true, 3, 4, 5, 1, 2, "0", true};
    else if (n == "STS-B" || n == "STSB")
        g = {"STS-B", {}, true, 7, 8, 9, 7, 8, "0", false};
    else if (n == "MNLI")
        g = {"MNLI", nli, true, 8, 9, -1, 8, 9, "contradiction", false};
    else if (n == "QNLI")
        g = {"QNLI", ent, true, 1, 2, -1, 1, 2, "entailment", false};
    else if (n == "RTE")
        g = {"RTE", ent, true, 1, 2, 3, 1, 2, "entailment", false};
    else if (n == "WNLI")
        g = {"WNLI", bin, true, 1, 2, 3, 1, 2, "0", false};
    else
        return false;
    return true;
}

std::vector<RawExample> readGlueFile(const std::string &path, const GlueLayout &g, bool test, const PrepareOptions &o,
                                     ReadNotes &notes)
{
    TextRows parsed = parseTextRows(readWholeFile(path), TextRowDialect{'\t', false}, path);
    notes.bom += parsed.had_bom ? 1 : 0;
    const bool skipHeader = test || g.skipHeaderTrain;
    std::vector<RawExample> out;
    for (size_t r = skipHeader ? 1 : 0; r < parsed.rows.size(); ++r) {
        TextRow &row = parsed.rows[r];
        const int a = test ? g.testA : g.a;
        const int b = test ? g.testB : g.b;
        const int l = test ? -2 : (g.label < 0 ? int(row.fields.size()) - 1 : g.label);
        const int need = std::max({a, b, l});
        const std::string where = path + ":" + std::to_string(row.line);
        if (int(row.fields.size()) <= need) {
            const std::string msg = "the row has " + std::to_string(row.fields.size()) + " tab-separated fields; "
                + g.processor + " needs at least " + std::to_string(need + 1);
            if (g.skipMalformed) // QqpProcessor skips such rows (classifier_data_lib.py)
                notes.skipped.push_back({where, msg});
            else
                badRow(o.skip_bad_rows, notes, where, msg,
                       std::string("Check that the file is the GLUE ") + g.processor + " TSV");
            continue;
        }
        if (fieldsToUtf8(row.fields))
            notes.latin1.push_back(where);
        RawExample ex;
        ex.text_a = row.fields[size_t(a)];
        if (b >= 0)
            ex.text_b = row.fields[size_t(b)];
        ex.label = test ? g.testLabel : trimmed(row.fields[size_t(l)]);
        ex.where = where;
        ex.file = path;
        ex.line = int64_t(row.line);
        if (g.labels.empty() && !test) {
            double v = 0;
            if (!parseNumber(ex.label, v)) {
                badRow(o.skip_bad_rows, notes, where, "the label '" + ex.label + "' is not a number",
                       "STS-B labels are similarity scores from 0 to 5");
                continue;
            }
            ex.value = float(v);
        }
        out.push_back(std::move(ex));
    }
    return out;
}

std::string findFile(const std::string &dir, const std::string &name)
{
    const fs::path p = fs::path(dir) / name;
    return fs::is_regular_file(p) ? p.string() : std::string();
}

} // namespace

bool isGlueTask(const std::string &name)
{
    GlueLayout g;
    return glueLayout(name, g);
}

void readGlue(const PrepareOptions &o, bool wantTest, SourceSplits &s, ReadNotes &notes)
{
    GlueLayout g;
    if (!glueLayout(o.classification_task_name, g))
        throw Error("classification_task_name", "Task not found: " + o.classification_task_name);
    const std::string n = g.processor;
    if (n == "MNLI" && o.mnli_type != "matched" && o.mnli_type != "mismatched")
        throw Error("mnli_type", "Invalid `mnli_type`: " + o.mnli_type, "Use matched or mismatched.");
    if (!o.label_list.empty())
        throw Error("label_list", "the GLUE task " + n + " has a fixed label set",
                    "Leave out " + optionName("label_list") + ", or prepare the files as "
                        + optionSetting("classification_task_name", "tsv") + ".");
    const std::string mnli = o.mnli_type;
    const std::string train = findFile(o.input_data_dir, "train.tsv");
    if (train.empty())
        throw Error(o.input_data_dir, "no train.tsv in this folder",
                    "Point " + optionName("input_data_dir") + " at the unpacked GLUE task folder (e.g. glue_data/" + n + ").");
    s.train = readGlueFile(train, g, false, o, notes);
    const std::string dev = findFile(o.input_data_dir, n == "MNLI" ? "dev_" + mnli + ".tsv" : "dev.tsv");
    if (!dev.empty()) {
        s.eval = readGlueFile(dev, g, false, o, notes);
        s.hasEval = true;
    }
    if (wantTest) {
        const std::string test = findFile(o.input_data_dir, n == "MNLI" ? "test_" + mnli + ".tsv" : "test.tsv");
        if (test.empty())
            throw Error(o.input_data_dir, "a test output was requested but there is no test.tsv",
                        "Leave out " + optionName("test_data_output_path") + ", or add the file.");
        s.test = readGlueFile(test, g, true, o, notes);
        s.hasTest = true;
    }
    s.labels = g.labels;
    s.regression = g.labels.empty();
    s.pair = g.b >= 0;
    s.processor = n;
}

} // namespace wb::prep
