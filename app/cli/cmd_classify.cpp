// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/runflags.h"

#include "core/data/textrows.h"
#include "core/train/textclassifier.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

namespace wb::cli {

namespace {

// Header names recognised as the text (and second-segment) column of a TSV/CSV input file.
const std::vector<std::string> kTextColumns{"text", "sentence", "sentence1", "question", "premise", "text_a"};
const std::vector<std::string> kTextBColumns{"text_b", "sentence2", "hypothesis"};

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

/// One TSV cell: tabs and line breaks would break the row, so they become spaces.
std::string cell(std::string s)
{
    std::replace_if(s.begin(), s.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
    return s;
}

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int findColumn(const std::vector<std::string> &header, const std::string &wanted,
               const std::vector<std::string> &known)
{
    for (size_t k = 0; k < header.size(); ++k)
        if (wanted.empty() ? std::find(known.begin(), known.end(), header[k]) != known.end() : header[k] == wanted)
            return int(k);
    return -1;
}

/// Reads the texts of `path`: a .tsv/.csv file with a header row (the text column by name),
/// otherwise one text per line.
std::vector<std::pair<std::string, std::string>> readInputFile(const std::string &path, const std::string &textColumn,
                                                               const std::string &textBColumn)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("input_file", "'" + path + "' is a folder, not a file",
                    "pass a text file: one text per line, or a .tsv/.csv with a header row");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("input_file", "cannot open '" + path + "'", "check the path");
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();
    // A NUL byte does not occur in text (UTF-8, Latin-1); classifying an executable's or an
    // archive's bytes line by line prints plausible-looking nonsense.
    if (const size_t nul = text.find('\0'); nul != std::string::npos)
        throw Error("input_file", "'" + path + "' is not a text file (a NUL byte at offset " + std::to_string(nul) + ")",
                    "pass a text file: one text per line, or a .tsv/.csv with a header row");
    std::vector<std::pair<std::string, std::string>> out;
    const bool tsv = endsWith(path, ".tsv"), csv = endsWith(path, ".csv");
    if (!tsv && !csv) {
        TextRowDialect lines;
        lines.delimiter = '\0';
        lines.quoting = false;
        for (auto &row : parseTextRows(text, lines, path).rows)
            if (!row.fields.empty() && !row.fields[0].empty())
                out.emplace_back(row.fields[0], std::string());
        return out;
    }
    TextRowDialect dialect;
    dialect.delimiter = tsv ? '\t' : detectCsvDelimiter(text); // ';' from spreadsheets in decimal-comma locales
    dialect.quoting = csv;
    const TextRows rows = parseTextRows(text, dialect, path);
    if (rows.rows.empty())
        return out;
    const auto &header = rows.rows.front().fields;
    const int a = findColumn(header, textColumn, kTextColumns);
    if (a < 0) {
        std::string found;
        for (const auto &h : header)
            found += (found.empty() ? "'" : ", '") + h + "'";
        throw Error(path, "no text column " + (textColumn.empty() ? std::string("(text, sentence, sentence1, …)")
                                                                  : "'" + textColumn + "'")
                              + " in the header; columns found: " + found,
                    "pass --text_column=<name>");
    }
    const int b = findColumn(header, textBColumn, kTextBColumns);
    if (!textBColumn.empty() && b < 0)
        throw Error(path, "no column '" + textBColumn + "' in the header", "check --text_b_column");
    for (size_t r = 1; r < rows.rows.size(); ++r) {
        const auto &f = rows.rows[r].fields;
        if (size_t(a) >= f.size())
            throw Error(path + ":" + std::to_string(rows.rows[r].line),
                        "the row has " + std::to_string(f.size()) + " fields, the header " + std::to_string(header.size()),
                        "fix the row or quote fields that contain the delimiter");
        out.emplace_back(f[size_t(a)], b >= 0 && size_t(b) < f.size() ? f[size_t(b)] : std::string());
    }
    return out;
}

} // namespace

int cmdClassify(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Classify texts with an export folder (--model_export_path) or a checkpoint of --model_dir\n"
                 "(its --bert_config_file and --input_meta_data_path default to the ones the run recorded in\n"
                 "run_config.json). Texts from --text (repeatable), --input_file (one text per line, or a\n"
                 ".tsv/.csv with a header and a text column) or standard input. Prints a TSV: text,\n"
                 "predicted_label and one probability column per label name.",
                 "bert-workbench-cli classify");
    ClassifierSource src;
    std::vector<std::string> texts, textsB;
    std::string inputFile, textColumn, textBColumn, format = "tsv";
    int64_t batchSize = 32;
    app.add_option("--model_export_path", src.model_export_path, "export folder (written by export)");
    app.add_option("--model_dir,--md", src.model_dir, "training run: its latest checkpoint");
    app.add_option("--predict_checkpoint_path", src.checkpoint_path, "a checkpoint, or 'best'");
    app.add_option("--bert_config_file", src.bert_config_file, "bert_config.json (with --model_dir; default: the one run_config.json names)");
    app.add_option("--input_meta_data_path", src.input_meta_data_path, "input_meta_data.json (with --model_dir; default: the one run_config.json names)");
    app.add_option("--vocab_file", src.vocab_file, "vocab.txt (default: the export's, or prepare_report.json's)");
    app.add_flag_function(
        "--do_lower_case,!--nodo_lower_case", [&src](int64_t n) { src.do_lower_case = n > 0; },
        "lower-case the texts (default: the export's tokenizer_config.json, prepare_report.json, else true)");
    app.add_option("--max_seq_length", src.max_seq_length, "tokens per text (default: the meta data's)");
    app.add_option("--text", texts, "a text to classify (repeatable)");
    app.add_option("--text_b", textsB, "second segment of the --text at the same position (pair tasks)");
    app.add_option("--input_file", inputFile, "texts: one per line, or .tsv/.csv with a header row");
    app.add_option("--text_column", textColumn, "text column of a .tsv/.csv --input_file (default: text, sentence, …)");
    app.add_option("--text_b_column", textBColumn, "second-segment column (default: sentence2, hypothesis, text_b)");
    app.add_option("--output_format", format, "tsv or jsonl")->check(CLI::IsMember({"tsv", "jsonl"}))->capture_default_str();
    app.add_option("--batch_size", batchSize, "texts per forward pass")->check(CLI::PositiveNumber)->capture_default_str();
    int code = kExitOk;
    if (!parseFlags(app, args, out, err, code))
        return code;
    if (textsB.size() > texts.size()) {
        err << "error: text_b: " << textsB.size() << " --text_b for " << texts.size() << " --text\n"
            << "  hint: give each --text_b after its --text\n";
        return kExitInvalid;
    }
    std::vector<std::pair<std::string, std::string>> inputs;
    try {
        for (size_t k = 0; k < texts.size(); ++k)
            inputs.emplace_back(texts[k], k < textsB.size() ? textsB[k] : std::string());
        if (!inputFile.empty()) {
            auto more = readInputFile(inputFile, textColumn, textBColumn);
            inputs.insert(inputs.end(), more.begin(), more.end());
        }
        if (texts.empty() && inputFile.empty()) {
            std::string line;
            while (std::getline(std::cin, line)) {
                if (!line.empty() && line.back() == '\r')
                    line.pop_back();
                if (!line.empty())
                    inputs.emplace_back(line, std::string());
            }
        }
    } catch (const Error &) {
        return reportCurrentException(err, "input_file", kExitInvalid);
    }
    if (inputs.empty() && !inputFile.empty())
        err << "warning: input_file: '" << inputFile << "' holds no text to classify (the output has only the header)\n";
    try {
        const TextClassifier classifier(src);
        for (const auto &w : classifier.warnings())
            err << "warning: " << w << "\n";
        const auto results = classifier.classifyAll(inputs, batchSize);
        const bool pairs = std::any_of(inputs.begin(), inputs.end(), [](const auto &p) { return !p.second.empty(); });
        const std::vector<std::string> names =
            classifier.isRegression() ? std::vector<std::string>{"value"} : classifier.labelNames();
        if (format == "tsv") {
            out << "text" << (pairs ? "\ttext_b" : "") << "\tpredicted_label";
            for (const auto &n : names)
                out << "\t" << cell(n);
            out << "\n";
        }
        for (const auto &c : results) {
            if (format == "tsv") {
                out << cell(c.text) << (pairs ? "\t" + cell(c.text_b) : "") << "\t" << cell(c.predicted_label);
                for (double p : c.probabilities)
                    out << "\t" << number(p);
                out << "\n";
            } else {
                nlohmann::ordered_json j;
                j["text"] = c.text;
                if (pairs)
                    j["text_b"] = c.text_b;
                j["predicted_label"] = c.predicted_label;
                nlohmann::ordered_json probs = nlohmann::ordered_json::object();
                for (size_t k = 0; k < c.probabilities.size() && k < names.size(); ++k)
                    probs[names[k]] = c.probabilities[k];
                j["probabilities"] = probs;
                j["truncated"] = c.tokenized.truncated;
                out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
            }
        }
        out << std::flush;
        return kExitOk;
    } catch (const Error &) {
        return reportCurrentException(err, "classify", kExitInvalid);
    } catch (...) {
        return reportCurrentException(err, "classify", kExitRuntime);
    }
}

} // namespace wb::cli
