// SPDX-License-Identifier: Apache-2.0
// Test support: the one generator of a tiny, valid training run (bert_config.json,
// input_meta_data.json, train/eval TFRecords) for every test that trains.
#pragma once

#include "core/config/trainingoptions.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>

namespace wbtest {

/// What writeTinyRun writes. The defaults are a BERT of 2 layers, hidden 32, vocab 100,
/// 2 labels at max_seq_length 16, 64 training and 16 evaluation records, batch 8, 2 epochs.
struct TinyRun
{
    int64_t train_size = 64;
    int64_t eval_size = 16;
    int64_t num_labels = 2;
    int64_t max_seq_length = 16;
    int hidden_size = 32;
    int num_hidden_layers = 2;
    int64_t batch_size = 8;
    int64_t num_train_epochs = 2;
    double learning_rate = 1e-3;
    /// hidden_dropout_prob and attention_probs_dropout_prob. 0 makes a run deterministic
    /// across worker counts (each worker would draw its own dropout masks).
    double dropout_prob = 0.1;
    /// When > 0, every mislabel_every-th record (i % mislabel_every == mislabel_every - 1) gets
    /// the next label while its tokens still show its own: label noise, so eval accuracy
    /// cannot reach 1 and eval loss and F1 stay informative. 0: every label is learnable.
    int64_t mislabel_every = 0;
    std::string model_dir = "model"; ///< relative to the root
    /// File names under the root (change them to write a second, different model beside).
    std::string bert_config_name = "bert_config.json";
    std::string meta_data_name = "input_meta_data.json";
};

/// Writes the config, meta data and learnable records (label k % num_labels; the label
/// shows in the token ids; see mislabel_every for noise) under `root` (created when
/// missing) and returns matching options: strategy one_device, batch/epochs/learning rate
/// from `p`, log_steps 0, model_dir <root>/<p.model_dir>. The records are the same for the same sizes.
inline wb::TrainingOptions writeTinyRun(const std::string &root, const TinyRun &p = {})
{
    std::filesystem::create_directories(root);
    wb::TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.bert_config_file = root + "/" + p.bert_config_name;
    o.input_meta_data_path = root + "/" + p.meta_data_name;
    o.train_data_path = root + "/train.tf_record";
    o.eval_data_path = root + "/eval.tf_record";
    o.model_dir = root + "/" + p.model_dir;
    o.train_batch_size = p.batch_size;
    o.eval_batch_size = p.batch_size;
    o.learning_rate = p.learning_rate;
    o.num_train_epochs = p.num_train_epochs;
    o.log_steps = 0;
    std::ofstream(o.bert_config_file) << "{\"vocab_size\": 100, \"hidden_size\": " << p.hidden_size
                                      << ", \"num_hidden_layers\": " << p.num_hidden_layers
                                      << ", \"num_attention_heads\": 2, \"intermediate_size\": " << 2 * p.hidden_size
                                      << ", \"hidden_act\": \"gelu\", \"hidden_dropout_prob\": " << p.dropout_prob
                                      << ", \"attention_probs_dropout_prob\": " << p.dropout_prob
                                      << ", \"max_position_embeddings\": 64, "
                                         "\"type_vocab_size\": 2, \"initializer_range\": 0.02}";
    std::ofstream(o.input_meta_data_path) << "{\"processor_type\": \"FOLDERS\", \"task_type\": \"bert_classification\", "
                                             "\"num_labels\": " << p.num_labels
                                          << ", \"train_data_size\": " << p.train_size
                                          << ", \"eval_data_size\": " << p.eval_size
                                          << ", \"max_seq_length\": " << p.max_seq_length << "}";
    const int64_t span = 100 / p.num_labels; // 2 labels: ids 1..49 and 51..99
    for (const auto &[path, n] : {std::pair{o.train_data_path, p.train_size}, std::pair{o.eval_data_path, p.eval_size}}) {
        wb::TFRecordWriter w(path);
        for (int64_t i = 0; i < n; ++i) {
            wb::ClassifierRecord r;
            r.input_ids.assign(size_t(p.max_seq_length), 0);
            r.input_mask.assign(size_t(p.max_seq_length), 0);
            r.segment_ids.assign(size_t(p.max_seq_length), 0);
            r.label_id = i % p.num_labels;
            for (int64_t k = 0; k < 6 && k < p.max_seq_length; ++k) {
                r.input_ids[size_t(k)] = 1 + r.label_id * span + (i * 7 + k) % (span - 1);
                r.input_mask[size_t(k)] = 1;
            }
            if (p.mislabel_every > 0 && i % p.mislabel_every == p.mislabel_every - 1)
                r.label_id = (r.label_id + 1) % p.num_labels;
            w.write(wb::encodeClassifierRecord(r));
        }
        w.commit();
    }
    return o;
}

/// Writes a vocab.txt for a tiny run's 100 token ids to `path`: [PAD] [UNK] [CLS] [SEP] [MASK],
/// then w5 … w99 (id k is "w<k>"), for the tests that export or classify a tiny run.
inline void writeTinyVocab(const std::string &path)
{
    std::ofstream vocab(path);
    vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (int k = 5; k < 100; ++k)
        vocab << "w" << k << "\n";
}

/// A text of the two-class tiny corpus: 4 to 10 words, class "low" from w10 … w29, class "high"
/// from w60 … w79 (ids of writeTinyVocab's vocabulary), drawn from `rng`.
inline std::string twoClassText(std::mt19937 &rng, bool high)
{
    std::uniform_int_distribution<int> word(0, 19), length(4, 10);
    std::string text;
    for (int k = length(rng); k > 0; --k)
        text += (text.empty() ? "w" : " w") + std::to_string((high ? 60 : 10) + word(rng));
    return text;
}

/// Writes a teacher-and-student project into the folder `root` (distillation's tests):
/// vocab.txt (writeTinyVocab), bert_config.json (the teacher: hidden 32, 2 layers),
/// student_config.json (hidden 16, 1 layer) and data.csv (60 rows "text,label" of
/// twoClassText, every third "high", the rest "low"; seed 7).
inline void writeTeacherStudentProject(const std::string &root)
{
    writeTinyVocab(root + "/vocab.txt");
    const auto config = [](int hidden, int layers, int intermediate) {
        return "{\"vocab_size\": 100, \"hidden_size\": " + std::to_string(hidden) +
               ", \"num_hidden_layers\": " + std::to_string(layers) +
               ", \"num_attention_heads\": 2, \"intermediate_size\": " + std::to_string(intermediate) +
               ", \"hidden_act\": \"gelu\", \"hidden_dropout_prob\": 0.1, "
               "\"attention_probs_dropout_prob\": 0.1, \"max_position_embeddings\": 64, "
               "\"type_vocab_size\": 2, \"initializer_range\": 0.02}";
    };
    std::ofstream(root + "/bert_config.json") << config(32, 2, 64);
    std::ofstream(root + "/student_config.json") << config(16, 1, 32);
    std::mt19937 rng(7);
    std::string csv = "text,label\n";
    for (int i = 0; i < 60; ++i) {
        const bool high = i % 3 == 0;
        csv += twoClassText(rng, high) + "," + (high ? "high" : "low") + "\n";
    }
    std::ofstream(root + "/data.csv") << csv;
}

} // namespace wbtest
