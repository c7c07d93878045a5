// SPDX-License-Identifier: Apache-2.0
#include "core/config/trainingoptions.h"

#include <charconv>

namespace wb {

std::string TrainingOptions::metricsPath() const
{
    if (!metrics_file.empty())
        return metrics_file;
    std::string dir = model_dir.empty() ? std::string(".") : model_dir;
    if (dir.back() != '/')
        dir += '/';
    return dir + "metrics.jsonl";
}

namespace {

std::string number(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v); // shortest round-trip text
    return std::string(buf, r.ptr);
}

} // namespace

std::vector<std::string> toCommandLineFlags(const TrainingOptions &o)
{
    const TrainingOptions d;
    std::vector<std::string> f;
    const auto text = [&](const char *name, const std::string &v, const std::string &def) {
        if (v != def)
            f.push_back(std::string("--") + name + "=" + v);
    };
    const auto integer = [&](const char *name, int64_t v, int64_t def) {
        if (v != def)
            f.push_back(std::string("--") + name + "=" + std::to_string(v));
    };
    const auto real = [&](const char *name, double v, double def) {
        if (v != def)
            f.push_back(std::string("--") + name + "=" + number(v));
    };
    if (!o.distribution_strategy.empty())
        f.push_back("--distribution_strategy=" + o.distribution_strategy);
    integer("num_gpus", o.num_gpus, d.num_gpus);
    text("worker_hosts", o.worker_hosts, d.worker_hosts);
    integer("task_index", o.task_index, d.task_index);
    integer("num_local_workers", o.num_local_workers, d.num_local_workers);
    integer("worker_timeout", o.worker_timeout_seconds, d.worker_timeout_seconds);
    text("bert_config_file", o.bert_config_file, d.bert_config_file);
    text("input_meta_data_path", o.input_meta_data_path, d.input_meta_data_path);
    text("train_data_path", o.train_data_path, d.train_data_path);
    text("eval_data_path", o.eval_data_path, d.eval_data_path);
    text("init_checkpoint", o.init_checkpoint, d.init_checkpoint);
    text("model_dir", o.model_dir, d.model_dir);
    text("model_export_path", o.model_export_path, d.model_export_path);
    text("predict_checkpoint_path", o.predict_checkpoint_path, d.predict_checkpoint_path);
    text("metrics_file", o.metrics_file, d.metrics_file);
    integer("train_batch_size", o.train_batch_size, d.train_batch_size);
    integer("eval_batch_size", o.eval_batch_size, d.eval_batch_size);
    real("learning_rate", o.learning_rate, d.learning_rate);
    real("end_lr", o.end_lr, d.end_lr);
    integer("num_train_epochs", o.num_train_epochs, d.num_train_epochs);
    integer("num_eval_per_epoch", o.num_eval_per_epoch, d.num_eval_per_epoch);
    if (o.train_data_size)
        f.push_back("--train_data_size=" + std::to_string(*o.train_data_size));
    if (o.steps_per_loop)
        f.push_back("--steps_per_loop=" + std::to_string(*o.steps_per_loop));
    integer("log_steps", o.log_steps, d.log_steps);
    text("optimizer_type", o.optimizer_type, d.optimizer_type);
    real("weight_decay_rate", o.weight_decay_rate, d.weight_decay_rate);
    real("warmup_fraction", o.warmup_fraction, d.warmup_fraction);
    integer("seed", o.seed, d.seed);
    integer("keep_checkpoint_max", o.keep_checkpoint_max, d.keep_checkpoint_max);
    integer("save_checkpoints_steps", o.save_checkpoints_steps, d.save_checkpoints_steps);
    integer("num_threads", o.intra_op_threads, d.intra_op_threads);
    text("best_checkpoint_metric", o.best_checkpoint_metric, d.best_checkpoint_metric);
    integer("early_stopping_patience", o.early_stopping_patience, d.early_stopping_patience);
    integer("lr_find_steps", o.lr_find_steps, d.lr_find_steps);
    real("lr_find_start", o.lr_find_start, d.lr_find_start);
    real("lr_find_end", o.lr_find_end, d.lr_find_end);
    text("vocab_file", o.vocab_file, d.vocab_file);
    if (o.do_lower_case)
        f.push_back(std::string("--do_lower_case=") + (*o.do_lower_case ? "true" : "false"));
    return f;
}

std::string shellJoin(const std::vector<std::string> &args)
{
    std::string out;
    for (const std::string &a : args) {
        if (!out.empty())
            out += ' ';
        const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_-+=/.,:@%")
                                             == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

} // namespace wb
