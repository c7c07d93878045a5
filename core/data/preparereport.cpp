// SPDX-License-Identifier: Apache-2.0
// prepare_report.json: the PrepareReport as JSON (keys in docs/file-formats.md).
#include "core/data/dataprep.h"

#include <nlohmann/json.hpp>

namespace wb {

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
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace wb
