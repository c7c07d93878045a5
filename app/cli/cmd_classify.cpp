// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"
#include "app/cli/tsvtext.h"

#include "core/config/optiontable.h"
#include "core/prepare/textinput.h"
#include "core/infer/textclassifier.h"
#include "core/util/error.h"
#include "core/util/jsonnumber.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

namespace wb::cli {

namespace {

const char *kInputFileKinds = "pass a text file: one text per line (.txt), or a .tsv/.csv with a header row, or a "
                              ".jsonl/.json with one record (object) per text";

/// Reads the texts of `path` with readTextInput (core/prepare/textinput.h), the reader prepare
/// uses: the format from the file name (.tsv, .csv, .jsonl, .json; else one text per line),
/// the text columns (or keys) as prepare finds them. Blank records are left out; a record
/// that cannot be read is an error naming its line.
std::vector<std::pair<std::string, std::string>> readInputFile(const std::string &path, const std::string &textColumn,
                                                               const std::string &textBColumn)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("input_file", "'" + path + "' is a folder, not a file", kInputFileKinds);
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
                    kInputFileKinds);
    TextInputSpec spec;
    spec.format = textFileFormatFromName(path);
    spec.text_a_column = textColumn;
    spec.text_b_column = textBColumn;
    spec.format_from_name = true;
    const TextInput input = parseTextInput(text, path, spec);
    std::vector<std::pair<std::string, std::string>> out;
    for (const TextInputRecord &r : input.records) {
        if (!r.problem.empty())
            throw Error(path + ":" + std::to_string(r.line), r.problem, r.hint + ".");
        if (!r.blank)
            out.emplace_back(r.text_a, r.text_b);
    }
    return out;
}

/// The texts to classify: the --text (and --text_b) values, the --input_file's records, or
/// standard input (one text per line) when neither is given.
std::vector<std::pair<std::string, std::string>> collectInputs(const std::vector<std::string> &texts,
                                                               const std::vector<std::string> &textsB,
                                                               const std::string &inputFile,
                                                               const std::string &textColumn,
                                                               const std::string &textBColumn)
{
    std::vector<std::pair<std::string, std::string>> inputs;
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
    return inputs;
}

/// One classification as a JSON object: text (text_b when pairs), predicted_label, the
/// probability of each label name, truncated. The JSON lines of --explain go on from these keys.
nlohmann::ordered_json classificationJson(const Classification &c, const std::vector<std::string> &names, bool pairs)
{
    nlohmann::ordered_json j;
    j["text"] = c.text;
    if (pairs)
        j["text_b"] = c.text_b;
    if (c.multi_label) // the label set: each label whose sigmoid reaches its threshold
        j["predicted_labels"] = c.predicted_labels;
    else
        j["predicted_label"] = c.predicted_label;
    nlohmann::ordered_json probs = nlohmann::ordered_json::object();
    for (size_t k = 0; k < c.probabilities.size() && k < names.size(); ++k)
        probs[names[k]] = c.probabilities[k];
    j["probabilities"] = probs;
    j["truncated"] = c.tokenized.truncated;
    return j;
}

/// The TSV cell of a classification's answer: the predicted label, or a multi-label model's
/// label set joined by "|" (prepare's default --label_delimiter; empty for no label).
std::string answerCell(const Classification &c)
{
    if (!c.multi_label)
        return tsvCell(c.predicted_label);
    std::string joined;
    for (const auto &n : c.predicted_labels)
        joined += (joined.empty() ? "" : "|") + n;
    return tsvCell(joined);
}

/// Writes the results as a TSV (header: text, text_b when pairs, predicted_label — a
/// multi-label model's predicted_labels —, one column per label name) or as JSON lines.
void printResults(const std::vector<Classification> &results, const std::vector<std::string> &names, bool pairs,
                  const std::string &format, std::ostream &out)
{
    if (format == "tsv") {
        const bool multi = !results.empty() && results.front().multi_label;
        out << "text" << (pairs ? "\ttext_b" : "") << (multi ? "\tpredicted_labels" : "\tpredicted_label");
        for (const auto &n : names)
            out << "\t" << tsvCell(n);
        out << "\n";
    }
    for (const auto &c : results) {
        if (format == "tsv") {
            out << tsvCell(c.text) << (pairs ? "\t" + tsvCell(c.text_b) : "") << "\t" << answerCell(c);
            for (double p : c.probabilities)
                out << "\t" << tsvNumber(p);
            out << "\n";
            continue;
        }
        nlohmann::ordered_json j = classificationJson(c, names, pairs);
        out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    }
    out << std::flush;
}

/// --explain: per token attributions. JSON lines: the classification's fields plus method,
/// target, target_id, ig_steps, tokens, attributions, words and completeness. TSV: one row
/// per wordpiece (text_index, token_index, token, attribution, target, predicted_label,
/// logit_difference, completeness_gap), the text's index 0-based in input order. Multi-label:
/// the target is one label (its own log-odds), predicted_label the set joined by "|", and the
/// JSON adds multi_label, target_in_predicted_set and completeness.threshold.
void printExplanations(const std::vector<Classification> &results, const std::vector<Explanation> &explanations,
                       const std::vector<std::string> &names, bool pairs, const std::string &format, std::ostream &out)
{
    if (format == "tsv")
        out << "text_index\ttoken_index\ttoken\tattribution\ttarget\tpredicted_label\tlogit_difference\tcompleteness_gap\n";
    for (size_t t = 0; t < results.size(); ++t) {
        const Classification &c = results[t];
        const Explanation &e = explanations[t];
        if (format == "tsv") {
            for (size_t k = 0; k < e.tokens.size(); ++k)
                out << t << "\t" << k << "\t" << tsvCell(e.tokens[k]) << "\t" << tsvNumber(e.attributions[k]) << "\t"
                    << tsvCell(e.target_label) << "\t" << answerCell(c) << "\t"
                    << tsvNumber(e.completeness.logit_difference) << "\t" << tsvNumber(e.completeness.gap) << "\n";
            continue;
        }
        nlohmann::ordered_json j = classificationJson(c, names, pairs);
        j["method"] = attributionMethodName(e.method);
        j["target"] = e.target_label;
        j["target_id"] = e.target_label_id;
        if (e.multi_label) { // one label's own log-odds; "predicted" means in the label set
            j["multi_label"] = true;
            j["target_in_predicted_set"] = e.target_is_predicted;
        }
        if (e.method == AttributionMethod::IntegratedGradients)
            j["ig_steps"] = e.steps;
        j["baseline"] = e.baseline;
        j["tokens"] = e.tokens;
        j["attributions"] = e.attributions;
        nlohmann::ordered_json words = nlohmann::ordered_json::array();
        for (const WordAttribution &w : e.words)
            words.push_back({{"word", w.word}, {"attribution", w.attribution}});
        j["words"] = words;
        const Completeness &m = e.completeness;
        j["completeness"] = {{"attribution_sum", m.attribution_sum},
                             {"logit_input", m.logit_input},
                             {"logit_baseline", m.logit_baseline},
                             {"logit_difference", m.logit_difference},
                             {"gap", m.gap},
                             {"relative_gap", numberOrNull<nlohmann::ordered_json>(m.relative_gap)},
                             {"tolerance", m.tolerance},
                             {"applies", m.applies},
                             {"steps_too_small", m.steps_too_small},
                             {"probability_input", numberOrNull<nlohmann::ordered_json>(m.probability_input)},
                             {"probability_baseline", numberOrNull<nlohmann::ordered_json>(m.probability_baseline)},
                             {"baseline_decides", m.baseline_decides}};
        if (m.multi_label)
            j["completeness"]["threshold"] = numberOrNull<nlohmann::ordered_json>(m.threshold);
        j["baseline_logits"] = e.baseline_logits;
        out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    }
    out << std::flush;
}

/// classify's flags, as parsed.
struct ClassifyFlags
{
    ClassifierSource src;
    std::vector<std::string> texts, textsB;
    std::string inputFile, textColumn, textBColumn, format = "tsv";
    int64_t batchSize = 32;
    bool explain = false;
    std::string explainMethod = "integrated_gradients", explainClass;
    int64_t igSteps = kDefaultIgSteps;
};

/// classify's flags from its table (classifyFlagTable(), core/config/commandoptions.h).
void addClassifyFlags(CLI::App &app, ClassifyFlags &f)
{
    ClassifierSource &src = f.src;
    const std::vector<FlagRow> &t = classifyFlagTable();
    addTableFlag(app, t, "model_export_path", src.model_export_path);
    addTableFlag(app, t, "model_dir", src.model_dir);
    addTableFlag(app, t, "predict_checkpoint_path", src.checkpoint_path);
    addTableFlag(app, t, "bert_config_file", src.bert_config_file, "the one run_config.json names");
    addTableFlag(app, t, "input_meta_data_path", src.input_meta_data_path, "the one run_config.json names");
    addTableFlag(app, t, "vocab_file", src.vocab_file, "the export's, or prepare_report.json's");
    addTableFlag(app, t, "do_lower_case", src.do_lower_case); // default: the export's, else prepare_report.json's, else true
    addTableFlag(app, t, "max_seq_length", src.max_seq_length);
    addTableFlag(app, t, "text", f.texts);
    addTableFlag(app, t, "text_b", f.textsB);
    addTableFlag(app, t, "input_file", f.inputFile);
    addTableFlag(app, t, "text_a_column", f.textColumn);
    addTableFlag(app, t, "text_b_column", f.textBColumn);
    addTableFlag(app, t, "output_format", f.format);
    addTableFlag(app, t, "batch_size", f.batchSize);
    addTableFlag(app, t, "num_threads", src.num_threads);
    addTableFlag(app, t, "explain", f.explain);
    addTableFlag(app, t, "explain_method", f.explainMethod);
    addTableFlag(app, t, "ig_steps", f.igSteps);
    addTableFlag(app, t, "explain_class", f.explainClass);
}

/// classify's rows of the option table and the --text/--text_b pairing, checked before any
/// file is read. Returns kExitOk, or kExitInvalid after writing the errors.
int checkClassifyFlags(const ClassifyFlags &f, std::ostream &err)
{
    Diagnostics ranges;
    const std::vector<FlagRow> &t = classifyFlagTable();
    checkNumericRanges({numericOption(flagRow(t, "max_seq_length"), double(f.src.max_seq_length), "0"),
                        numericOption(flagRow(t, "batch_size"), double(f.batchSize), "32"),
                        numericOption(flagRow(t, "num_threads"), double(f.src.num_threads), "0")},
                       ranges);
    checkNumericRanges(explainOptionRows(double(f.igSteps)), ranges);
    if (ranges.hasErrors())
        return reportInvalidConfiguration(err, ranges);
    if (f.textsB.size() > f.texts.size()) {
        err << "error: text_b: " << f.textsB.size() << " --text_b for " << f.texts.size() << " --text\n"
            << "  hint: give each --text_b after its --text\n";
        return kExitInvalid;
    }
    return kExitOk;
}

/// --explain: classifies and explains each input in turn, then prints them.
void explainAll(const TextClassifier &classifier, const ClassifyFlags &f,
                const std::vector<std::pair<std::string, std::string>> &inputs, const std::vector<std::string> &names,
                bool pairs, std::ostream &out, std::ostream &err)
{
    ExplainOptions options;
    options.method = *parseAttributionMethod(f.explainMethod);
    options.ig_steps = f.igSteps;
    if (!f.explainClass.empty())
        options.target_label_id = resolveLabelChoice(f.explainClass, classifier.labelNames(), classifier.numLabels());
    std::vector<Classification> results(inputs.size());
    std::vector<Explanation> explanations;
    for (size_t k = 0; k < inputs.size(); ++k) {
        explanations.push_back(classifier.explain(inputs[k].first, inputs[k].second, options, &results[k]));
        if (explanations.back().completeness.steps_too_small || explanations.back().completeness.baseline_decides)
            err << "warning: text " << k << ": " << completenessText(explanations.back()) << "\n";
    }
    printExplanations(results, explanations, names, pairs, f.format, out);
}

} // namespace

int cmdClassify(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Classify texts with an export folder (--model_export_path: model.safetensors, or only\n"
                 "onnx/model.onnx with config.json and the tokenizer files) or a checkpoint of --model_dir\n"
                 "(its --bert_config_file and --input_meta_data_path default to the ones the run recorded in\n"
                 "run_config.json). Texts from --text (repeatable), --input_file (one text per line, a\n"
                 ".tsv/.csv with a header row, or .jsonl/.json records; the text columns or keys are found\n"
                 "as prepare finds them) or standard input. Prints a TSV: text, predicted_label and one\n"
                 "probability column per label name. --explain adds each wordpiece's attribution\n"
                 "(Integrated Gradients or gradient x input; docs/explain.md).",
                 "bert-workbench-cli classify");
    ClassifyFlags f;
    if (const auto done = parseCommandFlags(app, f, addClassifyFlags, args, out, err))
        return *done;
    if (const int invalid = checkClassifyFlags(f, err); invalid != kExitOk)
        return invalid;
    std::vector<std::pair<std::string, std::string>> inputs;
    try {
        inputs = collectInputs(f.texts, f.textsB, f.inputFile, f.textColumn, f.textBColumn);
    } catch (const Error &) {
        return reportCurrentException(err, "input_file", kExitInvalid);
    }
    if (inputs.empty() && !f.inputFile.empty())
        err << "warning: input_file: '" << f.inputFile << "' holds no text to classify (the output has only the header)\n";
    try {
        const TextClassifier classifier(f.src);
        for (const auto &n : classifier.notes())
            err << "warning: " << n << "\n"; // as before the notes were told apart: the same lines
        for (const auto &w : classifier.warnings())
            err << "warning: " << w << "\n";
        const bool pairs = std::any_of(inputs.begin(), inputs.end(), [](const auto &p) { return !p.second.empty(); });
        const std::vector<std::string> names =
            classifier.isRegression() ? std::vector<std::string>{"value"} : classifier.labelNames();
        if (f.explain)
            explainAll(classifier, f, inputs, names, pairs, out, err);
        else
            printResults(classifier.classifyAll(inputs, f.batchSize), names, pairs, f.format, out);
        return kExitOk;
    } catch (...) {
        return reportCommandException(err, "classify");
    }
}

} // namespace wb::cli
