// SPDX-License-Identifier: Apache-2.0
// Test support: a tiny multi-label run (issue 45) whose three labels each have their own words:
// billing (ids 50…59), urgent (60…69) and refund (70…79); the other ids are filler words
// ("w<id>"). Each record carries each label independently (about 40 %, some none) and two of
// the label's words among 3…8 filler words, framed [CLS] … [SEP]. Trained for 96 steps without
// dropout, so that the attributions of "which words decided" differ from label to label.
#pragma once

#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/events/stoptoken.h"
#include "core/infer/textclassifier.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace wbtest {

/// The label names of the run, in id order.
inline std::vector<std::string> multiLabelWordsLabels() { return {"billing", "urgent", "refund"}; }

/// The vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK], filler "w5" … "w49", ten words per label, "w80" … "w99".
inline std::vector<std::string> multiLabelWordsVocab()
{
    const char *labelWords = "invoice charge payment bill paid billing card fee price cost "
                             "asap immediately urgent emergency critical hurry quickly deadline today outage "
                             "refund return reimburse cancel back money returned credit exchange reversal";
    std::vector<std::string> t{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (int k = 5; k < 50; ++k)
        t.push_back("w" + std::to_string(k));
    std::istringstream words(labelWords);
    for (std::string w; words >> w;)
        t.push_back(w);
    for (int k = 80; k < 100; ++k)
        t.push_back("w" + std::to_string(k));
    return t;
}

/// Writes and trains the run under `root`; returns its options (vocab_file set). Empty
/// `error` on success, else the run's message.
inline wb::TrainingOptions trainMultiLabelWordsRun(const std::string &root, std::string &error)
{
    TinyRun tiny;
    tiny.train_size = 256;
    tiny.eval_size = 32;
    tiny.batch_size = 16;
    tiny.num_train_epochs = 6;
    tiny.learning_rate = 3e-3;
    tiny.dropout_prob = 0;
    wb::TrainingOptions o = writeTinyRun(root, tiny);
    o.vocab_file = root + "/vocab.txt";
    {
        std::ofstream v(o.vocab_file);
        for (const auto &t : multiLabelWordsVocab())
            v << t << "\n";
    }
    std::ofstream(root + "/labels.txt") << "billing\nurgent\nrefund\n";
    std::ofstream(o.input_meta_data_path)
        << "{\"processor_type\": \"TEST\", \"task_type\": \"bert_classification\", \"num_labels\": 3, "
           "\"problem_type\": \"multi_label_classification\", \"label_type\": \"int\", \"train_data_size\": "
        << tiny.train_size << ", \"eval_data_size\": " << tiny.eval_size << ", \"max_seq_length\": " << tiny.max_seq_length
        << "}";
    uint64_t lcg = 45;
    const auto next = [&lcg](int64_t n) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        return int64_t((lcg >> 33) % uint64_t(n));
    };
    for (const auto &[path, n] : {std::pair{o.train_data_path, tiny.train_size}, std::pair{o.eval_data_path, tiny.eval_size}}) {
        wb::TFRecordWriter w(path);
        for (int64_t i = 0; i < n; ++i) {
            wb::ClassifierRecord r;
            r.input_ids.assign(size_t(tiny.max_seq_length), 0);
            r.input_mask.assign(size_t(tiny.max_seq_length), 0);
            r.segment_ids.assign(size_t(tiny.max_seq_length), 0);
            r.label_set.assign(3, 0);
            std::vector<int64_t> words;
            for (int64_t k = 0; k < 3; ++k)
                if (next(5) < 2) {
                    r.label_set[size_t(k)] = 1;
                    words.push_back(50 + 10 * k + next(10));
                    words.push_back(50 + 10 * k + next(10));
                }
            const int64_t fillers = 3 + next(std::max<int64_t>(1, 12 - int64_t(words.size()) - 3 + 1));
            for (int64_t f = 0; f < fillers; ++f) {
                const int64_t id = 5 + next(65); // w5 … w49, then w80 … w99
                words.insert(words.begin() + next(int64_t(words.size()) + 1), id < 50 ? id : id + 30);
            }
            r.input_ids[0] = 2;
            for (size_t k = 0; k < words.size(); ++k)
                r.input_ids[k + 1] = words[k];
            r.input_ids[words.size() + 1] = 3;
            for (size_t k = 0; k <= words.size() + 1; ++k)
                r.input_mask[k] = 1;
            w.write(wb::encodeClassifierRecord(r));
        }
        w.commit();
    }
    RecordingObserver obs;
    wb::StopToken stop;
    const wb::RunFinished r = wb::Trainer().run(o, obs, stop);
    error = r.status == wb::RunStatus::Completed ? std::string() : r.message;
    return o;
}

/// The run's classifier source (model_dir with its config, meta data and vocab).
inline wb::ClassifierSource multiLabelWordsSource(const wb::TrainingOptions &o)
{
    wb::ClassifierSource s;
    s.model_dir = o.model_dir;
    s.bert_config_file = o.bert_config_file;
    s.input_meta_data_path = o.input_meta_data_path;
    s.vocab_file = o.vocab_file;
    return s;
}

} // namespace wbtest
