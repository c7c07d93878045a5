// SPDX-License-Identifier: Apache-2.0
// prepare_report.json: the PrepareReport as JSON (keys in docs/file-formats.md), written and
// read here.
#include "core/prepare/preparereport.h"

#include "core/config/jsonfile.h"
#include "core/config/jsonrecord.h"
#include "core/util/jsonnumber.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

namespace wb {

namespace {

// How the baseline's features and model are made (docs/file-formats.md): fixed, written so
// that a reader of the file need not know this version's code.
constexpr const char *kBagOfWordsFeatures = "wordpieces";
constexpr const char *kBagOfWordsWeighting = "tfidf: sublinear tf, smooth idf (train only), l2-normalised rows";
constexpr const char *kBagOfWordsModel = "liblinear L2R_LR (L2-regularised logistic regression), one-vs-rest";

nlohmann::ordered_json bagOfWordsJson(const BagOfWordsBaseline &b)
{
    nlohmann::ordered_json j;
    j["eval_accuracy"] = numberOrNull<nlohmann::ordered_json>(b.eval_accuracy);
    j["eval_macro_f1"] = numberOrNull<nlohmann::ordered_json>(b.eval_macro_f1);
    if (!b.fitted())
        j["error"] = b.error;
    j["train_examples"] = b.train_examples;
    j["eval_examples"] = b.eval_examples;
    j["num_features"] = b.num_features;
    j["features"] = kBagOfWordsFeatures;
    j["weighting"] = kBagOfWordsWeighting;
    j["model"] = kBagOfWordsModel;
    j["C"] = b.C;
    if (!b.C_chosen_by.empty())
        j["C_chosen_by"] = b.C_chosen_by;
    if (std::isfinite(b.cv_accuracy))
        j["cv_accuracy"] = b.cv_accuracy;
    if (b.fitted() && !b.multi_label)
        j["constant_label"] = b.constant_label >= 0 ? nlohmann::ordered_json(b.constant_label) : nlohmann::ordered_json();
    if (b.multi_label) { // eval_accuracy is the subset accuracy then
        j["multi_label"] = true;
        j["threshold"] = b.threshold;
        j["eval_subset_accuracy"] = numberOrNull<nlohmann::ordered_json>(b.eval_accuracy);
        j["eval_micro_f1"] = numberOrNull<nlohmann::ordered_json>(b.eval_micro_f1);
        j["eval_samples_f1"] = numberOrNull<nlohmann::ordered_json>(b.eval_samples_f1);
        j["eval_hamming_loss"] = numberOrNull<nlohmann::ordered_json>(b.eval_hamming_loss);
        j["constant_labels"] = b.constant_labels;
    }
    return j;
}

nlohmann::ordered_json multiLabelJson(const MultiLabelReport &m)
{
    nlohmann::ordered_json j;
    j["reading"] = m.reading;
    j["delimiter"] = m.delimiter.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(m.delimiter);
    j["label_cardinality"] = numberOrNull<nlohmann::ordered_json>(m.label_cardinality);
    j["train_label_cardinality"] = numberOrNull<nlohmann::ordered_json>(m.train_label_cardinality);
    j["eval_label_cardinality"] = numberOrNull<nlohmann::ordered_json>(m.eval_label_cardinality);
    j["distinct_label_sets"] = m.distinct_label_sets;
    j["no_label_texts"] = m.no_label_texts;
    j["train_no_label_texts"] = m.train_no_label_texts;
    j["eval_no_label_texts"] = m.eval_no_label_texts;
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const LabelPairCount &p : m.cooccurrence)
        pairs.push_back({{"labels", {p.first, p.second}}, {"texts", p.texts}});
    j["cooccurrence"] = pairs;
    j["never_present"] = m.never_present;
    j["always_present"] = m.always_present;
    j["missing_in_eval"] = m.missing_in_eval;
    return j;
}

nlohmann::ordered_json correctionsJson(const PrepareReport &r)
{
    nlohmann::ordered_json c;
    c["file"] = r.corrections_file;
    c["corrected_rows"] = int64_t(r.corrected_rows.size());
    c["not_applied"] = r.corrections_not_applied;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const CorrectedRow &row : r.corrected_rows)
        rows.push_back({{"where", row.where}, {"label", row.label}, {"corrected_label", row.corrected_label},
                        {"decision", row.decision}, {"correction_line", row.correction_line}});
    c["rows"] = rows;
    c["removed_rows"] = int64_t(r.removed_rows.size());
    nlohmann::ordered_json removed = nlohmann::ordered_json::array();
    for (const CorrectedRow &row : r.removed_rows)
        removed.push_back({{"where", row.where}, {"label", row.label}, {"correction_line", row.correction_line}});
    c["removed"] = removed;
    return c;
}

} // namespace

std::string prepareReportJson(const PrepareReport &r)
{
    nlohmann::ordered_json j;
    j["processor_type"] = r.processor_type;
    j["vocab_file"] = r.vocab_file;
    j["vocab_sha256"] = r.vocab_sha256;
    j["do_lower_case"] = r.do_lower_case;
    j["max_seq_length"] = r.max_seq_length;
    if (!r.text_a_column.empty()) {
        nlohmann::ordered_json cols;
        cols["text_a"] = r.text_a_column;
        cols["text_b"] = r.text_b_column.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.text_b_column);
        cols["label"] = r.label_column.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.label_column);
        cols["text_recognised"] = r.text_columns_recognised;
        cols["label_recognised"] = r.label_column_recognised;
        j["columns"] = cols;
    }
    j["labels"] = r.labels;
    j["regression"] = r.regression;
    if (!r.problem_type.empty())
        j["problem_type"] = r.problem_type;
    if (r.multi_label)
        j["multi_label"] = multiLabelJson(*r.multi_label);
    j["train_examples"] = r.train_examples;
    j["eval_examples"] = r.eval_examples;
    j["test_examples"] = r.test_examples;
    nlohmann::ordered_json trainCounts = nlohmann::ordered_json::object(), evalCounts = nlohmann::ordered_json::object();
    for (const auto &l : r.labels) {
        const auto t = r.train_label_counts.find(l);
        const auto e = r.eval_label_counts.find(l);
        trainCounts[l] = t == r.train_label_counts.end() ? 0 : t->second;
        evalCounts[l] = e == r.eval_label_counts.end() ? 0 : e->second;
    }
    j["train_label_counts"] = trainCounts;
    j["eval_label_counts"] = evalCounts;
    j["truncated_examples"] = r.truncated_examples;
    j["mean_tokens"] = r.mean_tokens;
    j["max_tokens"] = r.max_tokens;
    j["max_tokens_capped"] = r.max_tokens_capped;
    j["texts_with_bom"] = r.texts_with_bom;
    j["texts_latin1"] = r.texts_latin1;
    j["texts_with_nul"] = r.texts_with_nul;
    j["empty_texts"] = r.empty_texts;
    j["skipped_rows"] = r.skipped_rows;
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const auto &s : r.skipped)
        skipped.push_back({{"where", s.where}, {"reason", s.reason}});
    j["skipped"] = skipped;
    auto pairs = [](const std::vector<TextPair> &v) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const auto &p : v)
            a.push_back({{"first", p.first}, {"second", p.second}});
        return a;
    };
    j["train_duplicates"] = r.train_duplicates;
    j["conflicting_duplicates"] = r.conflicting_duplicates;
    j["duplicate_examples"] = pairs(r.duplicate_examples);
    j["train_eval_overlap"] = r.train_eval_overlap;
    j["overlap_examples"] = pairs(r.overlap_examples);
    j["warnings"] = r.warnings;
    nlohmann::ordered_json leaks = nlohmann::ordered_json::array();
    for (const LabelInText &l : r.label_in_text)
        leaks.push_back({{"label", l.label}, {"token", l.token}, {"markup", l.markup}, {"label_texts", l.label_texts},
                         {"label_texts_with", l.label_texts_with}, {"other_texts", l.other_texts},
                         {"other_texts_with", l.other_texts_with}, {"examples", l.examples}});
    j["label_in_text"] = leaks;
    j["email_body_only"] = r.email_body_only;
    j["strip_quoted_replies"] = r.strip_quoted_replies;
    j["split_method"] = r.split_method;
    if (!r.corrections_file.empty())
        j["corrections"] = correctionsJson(r);
    if (r.bag_of_words)
        j["bag_of_words_baseline"] = bagOfWordsJson(*r.bag_of_words);
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string prepareReportPath(const std::string &metaDataPath)
{
    return (std::filesystem::path(metaDataPath).parent_path() / "prepare_report.json").string();
}

namespace {

const char *const kReportHint = "prepare the data again (Prepare Data…, or bert-workbench-cli prepare): it writes "
                                "a new prepare_report.json";

void readInt(const JsonRecord &j, const char *key, int64_t &out)
{
    if (const auto v = j.integer(key))
        out = *v;
}

void readBool(const JsonRecord &j, const char *key, bool &out)
{
    if (const auto v = j.boolean(key))
        out = *v;
}

void readString(const JsonRecord &j, const char *key, std::string &out)
{
    if (const auto v = j.string(key))
        out = *v;
}

/// A string, or null for "none" (text_b, label of columns).
void readOptionalString(const JsonRecord &j, const char *key, std::string &out)
{
    if (j.has(key) && j.json().at(key).is_null())
        out.clear();
    else
        readString(j, key, out);
}

void readStrings(const JsonRecord &j, const char *key, std::vector<std::string> &out)
{
    if (const nlohmann::json *a = j.array(key)) {
        out.clear();
        for (size_t k = 0; k < a->size(); ++k)
            out.push_back(j.stringItem(key, k));
    }
}

void readCounts(const JsonRecord &j, const char *key, std::map<std::string, int64_t> &out)
{
    const auto counts = j.object(key);
    if (!counts)
        return;
    out.clear();
    for (auto it = counts->json().begin(); it != counts->json().end(); ++it) {
        const int64_t n = *counts->integer(it.key().c_str());
        if (n < 0)
            counts->fail(it.key(), "is " + std::to_string(n) + ", a count of examples cannot be negative");
        out[it.key()] = n;
    }
}

// Reads the array of objects under `key` into `out` (replacing it; left as it is when the key
// is absent), each item with `read(item, value)`.
template <typename T, typename Read>
void readObjects(const JsonRecord &j, const char *key, std::vector<T> &out, Read read)
{
    if (const nlohmann::json *a = j.array(key)) {
        out.clear();
        for (size_t k = 0; k < a->size(); ++k) {
            T value;
            read(j.objectItem(key, k), value);
            out.push_back(std::move(value));
        }
    }
}

void readPairs(const JsonRecord &j, const char *key, std::vector<TextPair> &out)
{
    readObjects(j, key, out, [](const JsonRecord &item, TextPair &p) {
        readString(item, "first", p.first);
        readString(item, "second", p.second);
    });
}

/// The tokenizer the data was prepared with: processor, vocabulary, casing, sequence length.
void readTokenizerSettings(const JsonRecord &j, PrepareReport &r, PreparedTokenizer &t)
{
    readString(j, "processor_type", r.processor_type);
    if (const auto v = j.string("vocab_file"))
        r.vocab_file = t.vocab_file = *v;
    readString(j, "vocab_sha256", r.vocab_sha256);
    t.vocab_sha256 = r.vocab_sha256;
    if ((t.do_lower_case = j.boolean("do_lower_case")))
        r.do_lower_case = *t.do_lower_case;
    if ((t.max_seq_length = j.integer("max_seq_length")))
        r.max_seq_length = *t.max_seq_length;
}

/// Which columns were read as text and label, and whether they were recognised by name.
void readColumns(const JsonRecord &j, PrepareReport &r)
{
    if (const auto cols = j.object("columns")) {
        readString(*cols, "text_a", r.text_a_column);
        readOptionalString(*cols, "text_b", r.text_b_column);
        readOptionalString(*cols, "label", r.label_column);
        readBool(*cols, "text_recognised", r.text_columns_recognised);
        readBool(*cols, "label_recognised", r.label_column_recognised);
    }
}

/// Labels, split sizes, label counts, token lengths and the text-encoding counts.
void readSplitsAndTextStatistics(const JsonRecord &j, PrepareReport &r)
{
    readStrings(j, "labels", r.labels);
    readBool(j, "regression", r.regression);
    readInt(j, "train_examples", r.train_examples);
    readInt(j, "eval_examples", r.eval_examples);
    readInt(j, "test_examples", r.test_examples);
    readCounts(j, "train_label_counts", r.train_label_counts);
    readCounts(j, "eval_label_counts", r.eval_label_counts);
    readInt(j, "truncated_examples", r.truncated_examples);
    if (const auto v = j.number("mean_tokens"))
        r.mean_tokens = *v;
    readInt(j, "max_tokens", r.max_tokens);
    readBool(j, "max_tokens_capped", r.max_tokens_capped);
    readInt(j, "texts_with_bom", r.texts_with_bom);
    readInt(j, "texts_latin1", r.texts_latin1);
    readInt(j, "texts_with_nul", r.texts_with_nul);
    readInt(j, "empty_texts", r.empty_texts);
}

/// Skipped rows, duplicates, train/eval overlap, warnings and labels that leak into the text.
void readDataProblems(const JsonRecord &j, PrepareReport &r)
{
    readInt(j, "skipped_rows", r.skipped_rows);
    readObjects(j, "skipped", r.skipped, [](const JsonRecord &item, SkippedRow &row) {
        readString(item, "where", row.where);
        readString(item, "reason", row.reason);
    });
    readInt(j, "train_duplicates", r.train_duplicates);
    readInt(j, "conflicting_duplicates", r.conflicting_duplicates);
    readPairs(j, "duplicate_examples", r.duplicate_examples);
    readInt(j, "train_eval_overlap", r.train_eval_overlap);
    readPairs(j, "overlap_examples", r.overlap_examples);
    readStrings(j, "warnings", r.warnings);
    readObjects(j, "label_in_text", r.label_in_text, [](const JsonRecord &item, LabelInText &l) {
        readString(item, "label", l.label);
        readString(item, "token", l.token);
        readBool(item, "markup", l.markup);
        readInt(item, "label_texts", l.label_texts);
        readInt(item, "label_texts_with", l.label_texts_with);
        readInt(item, "other_texts", l.other_texts);
        readInt(item, "other_texts_with", l.other_texts_with);
        readStrings(item, "examples", l.examples);
    });
}

/// The "bag_of_words_baseline" object `b`; fails when an accuracy or F1 is missing without an
/// error saying why, or lies outside [0, 1].
BagOfWordsBaseline readBagOfWordsBaseline(const JsonRecord &b)
{
    BagOfWordsBaseline baseline;
    baseline.eval_accuracy = b.number("eval_accuracy").value_or(baseline.eval_accuracy);
    baseline.eval_macro_f1 = b.number("eval_macro_f1").value_or(baseline.eval_macro_f1);
    readString(b, "error", baseline.error);
    readInt(b, "train_examples", baseline.train_examples);
    readInt(b, "eval_examples", baseline.eval_examples);
    readInt(b, "num_features", baseline.num_features);
    baseline.C = b.number("C").value_or(baseline.C);
    readString(b, "C_chosen_by", baseline.C_chosen_by);
    baseline.cv_accuracy = b.number("cv_accuracy").value_or(baseline.cv_accuracy);
    if (b.has("constant_label") && !b.json().at("constant_label").is_null())
        readInt(b, "constant_label", baseline.constant_label);
    readBool(b, "multi_label", baseline.multi_label);
    baseline.threshold = b.number("threshold").value_or(baseline.threshold);
    baseline.eval_micro_f1 = b.number("eval_micro_f1").value_or(baseline.eval_micro_f1);
    baseline.eval_samples_f1 = b.number("eval_samples_f1").value_or(baseline.eval_samples_f1);
    baseline.eval_hamming_loss = b.number("eval_hamming_loss").value_or(baseline.eval_hamming_loss);
    if (const nlohmann::json *a = b.array("constant_labels"))
        for (const auto &v : *a)
            if (v.is_number_integer())
                baseline.constant_labels.push_back(v.get<int64_t>());
    for (const auto &[key, value] : {std::pair<const char *, double>{"eval_accuracy", baseline.eval_accuracy},
                                     {"eval_macro_f1", baseline.eval_macro_f1}}) {
        if (baseline.fitted() && !std::isfinite(value))
            b.fail(key, "is missing or null, and no error says why");
        if (std::isfinite(value) && (value < 0 || value > 1))
            b.fail(key, "is " + std::to_string(value) + "; expected a share between 0 and 1");
    }
    return baseline;
}

/// The "multi_label" object (multiLabelJson's keys).
MultiLabelReport readMultiLabel(const JsonRecord &m)
{
    MultiLabelReport out;
    readString(m, "reading", out.reading);
    readOptionalString(m, "delimiter", out.delimiter);
    out.label_cardinality = m.number("label_cardinality").value_or(out.label_cardinality);
    out.train_label_cardinality = m.number("train_label_cardinality").value_or(out.train_label_cardinality);
    out.eval_label_cardinality = m.number("eval_label_cardinality").value_or(out.eval_label_cardinality);
    readInt(m, "distinct_label_sets", out.distinct_label_sets);
    readInt(m, "no_label_texts", out.no_label_texts);
    readInt(m, "train_no_label_texts", out.train_no_label_texts);
    readInt(m, "eval_no_label_texts", out.eval_no_label_texts);
    readObjects(m, "cooccurrence", out.cooccurrence, [](const JsonRecord &item, LabelPairCount &p) {
        std::vector<std::string> names;
        readStrings(item, "labels", names);
        if (names.size() != 2)
            item.fail("labels", "holds " + std::to_string(names.size()) + " names; a pair has 2");
        p.first = names[0];
        p.second = names[1];
        readInt(item, "texts", p.texts);
    });
    readStrings(m, "never_present", out.never_present);
    readStrings(m, "always_present", out.always_present);
    readStrings(m, "missing_in_eval", out.missing_in_eval);
    return out;
}

/// The "corrections" object (--corrections_file).
void readCorrectionsObject(const JsonRecord &c, PrepareReport &r)
{
    readString(c, "file", r.corrections_file);
    readInt(c, "not_applied", r.corrections_not_applied);
    readObjects(c, "rows", r.corrected_rows, [](const JsonRecord &item, CorrectedRow &row) {
        readString(item, "where", row.where);
        readString(item, "label", row.label);
        readString(item, "corrected_label", row.corrected_label);
        readString(item, "decision", row.decision);
        readInt(item, "correction_line", row.correction_line);
    });
    readObjects(c, "removed", r.removed_rows, [](const JsonRecord &item, CorrectedRow &row) {
        readString(item, "where", row.where);
        readString(item, "label", row.label);
        readInt(item, "correction_line", row.correction_line);
        row.decision = "removed";
    });
}

/// Fills `r` and `t` from the report `j` (keys as prepareReportJson writes them).
void readReport(const JsonRecord &j, PrepareReport &r, PreparedTokenizer &t)
{
    readTokenizerSettings(j, r, t);
    readColumns(j, r);
    readSplitsAndTextStatistics(j, r);
    readString(j, "problem_type", r.problem_type);
    if (const auto m = j.object("multi_label"))
        r.multi_label = readMultiLabel(*m);
    readDataProblems(j, r);
    readBool(j, "email_body_only", r.email_body_only);
    readBool(j, "strip_quoted_replies", r.strip_quoted_replies);
    readString(j, "split_method", r.split_method);
    if (const auto c = j.object("corrections"))
        readCorrectionsObject(*c, r);
    if (const auto b = j.object("bag_of_words_baseline"))
        r.bag_of_words = readBagOfWordsBaseline(*b);
}

} // namespace

PrepareReport parsePrepareReport(const std::string &text, const std::string &source)
{
    PrepareReport r;
    PreparedTokenizer t;
    readReport(JsonRecord::parse(text, source, kReportHint), r, t);
    r.report_path = source;
    return r;
}

std::optional<PrepareReport> readPrepareReport(const std::string &metaDataPath)
{
    if (metaDataPath.empty())
        return std::nullopt;
    const std::string path = prepareReportPath(metaDataPath);
    const auto text = JsonRecord::readText(path, kReportHint);
    if (!text)
        return std::nullopt;
    return parsePrepareReport(*text, path);
}

std::string recordBagOfWordsBaseline(const std::string &metaDataPath, const BagOfWordsBaseline &baseline)
{
    auto report = readPrepareReport(metaDataPath);
    if (!report)
        return {};
    report->bag_of_words = baseline;
    writeFileAtomic(report->report_path, prepareReportJson(*report));
    return report->report_path;
}

std::vector<int64_t> evalCountsByLabelId(const PrepareReport &report)
{
    std::vector<int64_t> out;
    if (report.regression)
        return out;
    for (const std::string &label : report.labels) {
        const auto it = report.eval_label_counts.find(label);
        out.push_back(it == report.eval_label_counts.end() ? 0 : it->second);
    }
    return out;
}

PreparedTokenizer readPreparedTokenizer(const std::string &metaDataPath)
{
    PreparedTokenizer t;
    if (metaDataPath.empty())
        return t;
    const std::string path = prepareReportPath(metaDataPath);
    const auto record = JsonRecord::readFile(path, kReportHint);
    if (!record)
        return t;
    PrepareReport ignored;
    readReport(*record, ignored, t);
    return t;
}

} // namespace wb
