// SPDX-License-Identifier: Apache-2.0
// Test helper: writes a tiny, valid run (bert_config.json, input_meta_data.json, TFRecords).
#pragma once

#include "core/config/trainingoptions.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"

#include <QTemporaryDir>

#include <fstream>
#include <utility>

namespace wbtest {

/// Writes a BERT (L=2, H=32, vocab 100) config, meta data for 2 labels at max_seq_length 16
/// and `trainSize`/`evalSize` learnable records into `dir`; returns matching options
/// (strategy one_device, batch 8, 2 epochs, model_dir <dir>/model).
inline wb::TrainingOptions writeTinyRun(const QTemporaryDir &dir, int64_t trainSize = 64, int64_t evalSize = 16)
{
    const std::string root = dir.path().toStdString();
    wb::TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.bert_config_file = root + "/bert_config.json";
    o.input_meta_data_path = root + "/input_meta_data.json";
    o.train_data_path = root + "/train.tf_record";
    o.eval_data_path = root + "/eval.tf_record";
    o.model_dir = root + "/model";
    o.train_batch_size = 8;
    o.eval_batch_size = 8;
    o.learning_rate = 1e-3;
    o.num_train_epochs = 2;
    o.log_steps = 0;
    std::ofstream(o.bert_config_file) << R"({"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 64, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 64, "type_vocab_size": 2,
        "initializer_range": 0.02})";
    std::ofstream(o.input_meta_data_path) << "{\"processor_type\": \"FOLDERS\", \"task_type\": \"bert_classification\", "
                                             "\"num_labels\": 2, \"train_data_size\": " << trainSize
                                          << ", \"eval_data_size\": " << evalSize << ", \"max_seq_length\": 16}";
    for (const auto &[path, n] : {std::pair{o.train_data_path, trainSize}, std::pair{o.eval_data_path, evalSize}}) {
        wb::TFRecordWriter w(path);
        for (int64_t i = 0; i < n; ++i) {
            wb::ClassifierRecord r;
            r.input_ids.assign(16, 0);
            r.input_mask.assign(16, 0);
            r.segment_ids.assign(16, 0);
            r.label_id = i % 2;
            for (int k = 0; k < 6; ++k) {
                r.input_ids[size_t(k)] = 1 + r.label_id * 50 + (i * 7 + k) % 49;
                r.input_mask[size_t(k)] = 1;
            }
            w.write(wb::encodeClassifierRecord(r));
        }
        w.commit();
    }
    return o;
}

} // namespace wbtest
