// SPDX-License-Identifier: Apache-2.0
// Test support: a tiny run that learns "spam" words (issue 25's attribution tests): the
// vocabulary (100 real-looking words), labels.txt (ham, spam) and records framed as prepare
// frames texts ([CLS] 1…14 words of the label [SEP]), trained for 96 steps without dropout.
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

/// [PAD] [UNK] [CLS] [SEP], 46 ham words (ids 4…49), "the", 49 spam words (ids 51…99).
inline std::vector<std::string> spamWordsVocab()
{
    const char *ham = "meeting lunch tomorrow thanks see you later home dinner mum dad back ok sure love family "
                      "weekend class homework game tonight pick up coffee morning office project report sorry late "
                      "bus train walk dog cat garden movie book friend birthday party cake talk soon night sleep";
    const char *spam = "free win winner prize cash claim urgent offer click now call txt reply stop award guaranteed "
                       "bonus credit loan won selected congratulations mobile ringtone voucher discount deal limited "
                       "exclusive entry draw code text subscribe service rate apply customer account bank lottery "
                       "million pounds dollars instant quote cheap sale bargain";
    std::vector<std::string> t{"[PAD]", "[UNK]", "[CLS]", "[SEP]"};
    std::istringstream h(ham), s(spam);
    for (std::string w; h >> w;)
        t.push_back(w);
    t.push_back("the");
    for (std::string w; s >> w;)
        t.push_back(w);
    return t;
}

/// Writes and trains the run under `root`; returns its options (vocab_file set). Empty
/// `error` on success, else the run's message.
inline wb::TrainingOptions trainSpamWordsRun(const std::string &root, std::string &error)
{
    TinyRun tiny;
    tiny.train_size = 256;
    tiny.eval_size = 32;
    tiny.batch_size = 16;
    tiny.num_train_epochs = 6;
    tiny.learning_rate = 2e-3;
    tiny.dropout_prob = 0;
    wb::TrainingOptions o = writeTinyRun(root, tiny);
    o.vocab_file = root + "/vocab.txt";
    {
        std::ofstream v(o.vocab_file);
        for (const auto &t : spamWordsVocab())
            v << t << "\n";
    }
    std::ofstream(root + "/labels.txt") << "ham\nspam\n";
    uint64_t lcg = 42;
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
            r.label_id = i % 2;
            const int64_t words = 1 + next(tiny.max_seq_length - 2);
            r.input_ids[0] = 2;
            for (int64_t k = 1; k <= words; ++k)
                r.input_ids[size_t(k)] = r.label_id == 0 ? 4 + next(46) : 51 + next(49);
            r.input_ids[size_t(words + 1)] = 3;
            for (int64_t k = 0; k <= words + 1; ++k)
                r.input_mask[size_t(k)] = 1;
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
inline wb::ClassifierSource spamWordsSource(const wb::TrainingOptions &o)
{
    wb::ClassifierSource s;
    s.model_dir = o.model_dir;
    s.bert_config_file = o.bert_config_file;
    s.input_meta_data_path = o.input_meta_data_path;
    s.vocab_file = o.vocab_file;
    return s;
}

} // namespace wbtest
