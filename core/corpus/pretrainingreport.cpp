// SPDX-License-Identifier: Apache-2.0
// What prepare_pretraining says about its data: the warnings, prepare_report.json and the
// data set's input_meta_data.json (docs/pretraining.md, "The report").
#include "core/config/inputmetadata.h"
#include "core/config/optionwords.h"
#include "core/corpus/pretrainingdata.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace wb {

namespace {

constexpr double kUnkWarningRate = 0.05; // warn when more tokens are [UNK]

std::string fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace

std::vector<std::string> pretrainingDataWarnings(const PretrainingDataOptions &o, const PretrainingDataReport &rep)
{
    std::vector<std::string> warnings;
    if (rep.train_sequences < kPretrainingTinyCorpusSequences)
        warnings.push_back("only " + std::to_string(rep.train_sequences) + " training sequence(s): fewer than one "
                               "batch of " + std::to_string(kPretrainingTinyCorpusSequences)
                               + " (train's default train_batch_size); pretraining on this little text teaches the "
                                 "model little. Add text, or use a smaller "
                               + optionName("train_batch_size"));
    if (!rep.eval_file.empty() && rep.eval_sequences == 0)
        warnings.push_back("no document fell into the eval set (eval_fraction " + fixed(o.eval_fraction, 3) + " of "
                               + std::to_string(rep.train_documents) + " document piece(s)): eval.tf_record is empty; "
                               "add documents (blank lines separate them) or raise "
                               + optionName("eval_fraction"));
    if (rep.unk_rate > kUnkWarningRate)
        warnings.push_back(fixed(100.0 * rep.unk_rate, 1) + "% of the tokens are [UNK]: check "
                               + optionName("do_lower_case") + " ("
                               + (o.do_lower_case ? std::string("true") : std::string("false"))
                               + ") and that the vocabulary fits the language of the corpus");
    if (rep.duplicate_documents)
        warnings.push_back(std::to_string(rep.duplicate_documents) + " document(s) repeat an earlier document of "
                               "the same split (the same tokens): the model sees them more often");
    if (rep.train_eval_overlap_documents)
        warnings.push_back(std::to_string(rep.train_eval_overlap_documents)
                               + " eval document(s) are also in the training set: the eval MLM loss will look better "
                                 "than it is; remove the repeated documents from the corpus");
    if (rep.long_line_cuts_inside_a_word) {
        std::string first;
        for (const auto &l : rep.long_line_splits)
            if (l.cuts_inside_a_word) {
                first = " (first: " + l.where + ")";
                break;
            }
        warnings.push_back(std::to_string(rep.long_line_cuts_inside_a_word) + " cut(s) inside a word: "
                               + "a run of more than 1 MiB without whitespace" + first
                               + " was read in parts cut at a character boundary (such a word is [UNK] whole or "
                                 "cut); check that the file is text with spaces between its words");
    }
    if (rep.empty_rows && rep.email_body_only)
        warnings.push_back(std::to_string(rep.empty_rows) + " mail(s) or row(s) had no body text (e.g. an image-only "
                                                            "mail) and were left out");
    else if (rep.empty_rows)
        warnings.push_back(std::to_string(rep.empty_rows) + " row(s) had an empty text and were left out");
    return warnings;
}

std::string pretrainingMetaJson(const PretrainingDataReport &r)
{
    // Written by the meta data's one reader/writer pair (core/config/inputmetadata.h), so
    // that every key pretrain reads is one this writes, in the order docs/pretraining.md shows.
    InputMetaData meta;
    meta.task_type = "bert_pretraining";
    meta.num_labels = 0;
    meta.max_seq_length = r.max_seq_length;
    meta.max_predictions_per_seq = r.max_predictions_per_seq;
    meta.train_data_size = r.train_sequences;
    meta.eval_data_size = r.eval_sequences;
    meta.use_next_sentence_label = r.next_sentence;
    meta.masking = r.masking;
    meta.masked_lm_prob = r.masked_lm_prob;
    meta.whole_word_masking = r.whole_word_masking;
    meta.vocab_size = r.vocab_size;
    meta.do_lower_case = r.do_lower_case;
    return meta.toJson().dump(4, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string pretrainingReportJson(const PretrainingDataReport &r)
{
    nlohmann::ordered_json j;
    j["task_type"] = "bert_pretraining";
    j["input_format"] = r.input_format;
    if (r.email_body_only)
        j["email_body_only"] = true;
    if (!r.text_column.empty()) {
        j["text_column"] = r.text_column;
        j["text_column_recognised"] = r.text_column_recognised;
    }
    j["input_files"] = r.input_files;
    j["input_bytes"] = r.input_bytes;
    j["documents"] = r.documents;
    j["empty_rows"] = r.empty_rows;
    j["sentences"] = r.sentences;
    j["tokens"] = r.tokens;
    j["unk_tokens"] = r.unk_tokens;
    j["unk_rate"] = r.unk_rate;
    j["train_documents"] = r.train_documents;
    j["eval_documents"] = r.eval_documents;
    j["documents_longer_than_a_sequence"] = r.documents_longer_than_a_sequence;
    j["long_documents_cut"] = r.long_documents_cut;
    j["sentences_split"] = r.sentences_split;
    j["long_lines_split"] = r.long_lines_split;
    j["long_line_cuts"] = r.long_line_cuts;
    j["long_line_cuts_inside_a_word"] = r.long_line_cuts_inside_a_word;
    j["long_line_splits"] = nlohmann::ordered_json::array();
    for (const PretrainingLineSplit &l : r.long_line_splits) {
        nlohmann::ordered_json e;
        e["where"] = l.where;
        e["cuts"] = l.cuts;
        e["cuts_inside_a_word"] = l.cuts_inside_a_word;
        e["cut_offsets"] = l.cut_offsets;
        j["long_line_splits"].push_back(std::move(e));
    }
    j["duplicate_documents"] = r.duplicate_documents;
    j["train_eval_overlap_documents"] = r.train_eval_overlap_documents;
    j["duplicate_check_saturated"] = r.duplicate_check_saturated;
    j["train_sequences"] = r.train_sequences;
    j["eval_sequences"] = r.eval_sequences;
    j["sequence_tokens"] = r.sequence_tokens;
    j["next_sentence"] = r.next_sentence;
    j["random_next_sequences"] = r.random_next_sequences;
    j["masking"] = r.masking;
    j["masked_positions"] = r.masked_positions;
    j["dupe_factor"] = r.dupe_factor;
    j["max_seq_length"] = r.max_seq_length;
    j["max_predictions_per_seq"] = r.max_predictions_per_seq;
    j["masked_lm_prob"] = r.masked_lm_prob;
    j["whole_word_masking"] = r.whole_word_masking;
    j["short_seq_prob"] = r.short_seq_prob;
    j["eval_fraction"] = r.eval_fraction;
    j["random_seed"] = r.random_seed;
    j["vocab_file"] = r.vocab_file;
    j["vocab_sha256"] = r.vocab_sha256;
    j["vocab_size"] = r.vocab_size;
    j["do_lower_case"] = r.do_lower_case;
    j["train_files"] = r.train_files;
    j["eval_file"] = r.eval_file;
    j["warnings"] = r.warnings;
    j["seconds"] = r.seconds;
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace wb
