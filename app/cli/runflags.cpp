// SPDX-License-Identifier: Apache-2.0
#include "app/cli/runflags.h"

#include "app/cli/commands.h"

#include <algorithm>
#include <ostream>

namespace wb::cli {

void addRunFlags(CLI::App &app, TrainingOptions &o)
{
    app.add_option("--distribution_strategy,--ds", o.distribution_strategy,
                   "one_device, mirrored or multi_worker_mirrored (required; no default)");
    app.add_option("--num_gpus,--ng", o.num_gpus, "GPUs per worker (0 = CPU)")->capture_default_str();
    app.add_option("--worker_hosts", o.worker_hosts, "comma-separated host:port list (multi_worker_mirrored)");
    app.add_option("--task_index", o.task_index, "this worker's index in --worker_hosts")->capture_default_str();
    app.add_option("--num_local_workers", o.num_local_workers,
                   "multi_worker_mirrored: start this many workers on this machine")->capture_default_str();
    app.add_option("--worker_timeout", o.worker_timeout_seconds,
                   "seconds to wait for every worker to join")->capture_default_str();
    app.add_option("--bert_config_file", o.bert_config_file, "bert_config.json");
    app.add_option("--input_meta_data_path", o.input_meta_data_path, "input_meta_data.json");
    app.add_option("--train_data_path", o.train_data_path, "training TFRecord file(s) or glob");
    app.add_option("--eval_data_path", o.eval_data_path, "evaluation (or predict) TFRecord file(s) or glob");
    app.add_option("--init_checkpoint", o.init_checkpoint, "pre-trained weights (safetensors, HF names)");
    app.add_option("--model_dir,--md", o.model_dir, "checkpoints, metrics and summaries")->capture_default_str();
    app.add_option("--model_export_path", o.model_export_path, "export directory");
    app.add_option("--predict_checkpoint_path", o.predict_checkpoint_path, "checkpoint for predict");
    app.add_option("--metrics_file", o.metrics_file, "metrics.jsonl path (default <model_dir>/metrics.jsonl)");
    app.add_option("--mode", o.mode, "train_and_eval, predict or export_only")
        ->check(CLI::IsMember({"train_and_eval", "predict", "export_only"}))
        ->capture_default_str();
    app.add_option("--train_batch_size", o.train_batch_size, "global training batch")->capture_default_str();
    app.add_option("--eval_batch_size", o.eval_batch_size, "global evaluation batch")->capture_default_str();
    app.add_option("--learning_rate", o.learning_rate, "peak learning rate")->capture_default_str();
    app.add_option("--end_lr", o.end_lr, "final learning rate of the decay")->capture_default_str();
    app.add_option("--num_train_epochs", o.num_train_epochs, "real epochs")->capture_default_str();
    app.add_option("--num_eval_per_epoch", o.num_eval_per_epoch, "evaluations per epoch")->capture_default_str();
    app.add_option("--train_data_size", o.train_data_size, "cap on training examples");
    app.add_option("--steps_per_loop", o.steps_per_loop, "steps per loop: progress, metrics.jsonl and summaries every N steps (default: every 50 ms)");
    app.add_option("--log_steps", o.log_steps, "examples/s logging interval (0 disables)")->capture_default_str();
    app.add_option("--optimizer_type", o.optimizer_type, "adamw")->capture_default_str();
    app.add_option("--weight_decay_rate", o.weight_decay_rate, "AdamW weight decay (not on LayerNorm and biases)")
        ->capture_default_str();
    app.add_option("--warmup_fraction", o.warmup_fraction, "share of the steps with linear warmup")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "random seed (init, dropout, shuffling)")->capture_default_str();
    app.add_option("--keep_checkpoint_max", o.keep_checkpoint_max, "checkpoints to keep (0 = all)")
        ->capture_default_str();
    app.add_option("--save_checkpoints_steps", o.save_checkpoints_steps, "also checkpoint every N steps (0 = only at evaluations)")->capture_default_str();
    app.add_option("--num_threads", o.intra_op_threads, "intra-op threads (0 = automatic)")->capture_default_str();
    app.add_option("--best_checkpoint_metric", o.best_checkpoint_metric,
                   "keep a copy of the best checkpoint by this metric in <model_dir>/best/ (eval_accuracy, "
                   "eval_loss, eval_f1, eval_mcc); --predict_checkpoint_path=best uses it")
        ->check(CLI::IsMember({"", "eval_accuracy", "eval_loss", "eval_f1", "eval_mcc"}));
    app.add_option("--early_stopping_patience", o.early_stopping_patience,
                   "stop after N evaluations without improvement of --best_checkpoint_metric (default metric "
                   "eval_loss; 0 = never)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--lr_find_steps", o.lr_find_steps, "lr_find: at most this many steps")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--lr_find_start", o.lr_find_start, "lr_find: first learning rate")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--lr_find_end", o.lr_find_end, "lr_find: last learning rate (rises exponentially)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--vocab_file", o.vocab_file,
                   "vocab.txt of the data (export copies it; default: the one prepare_report.json records)");
    app.add_flag_function(
        "--do_lower_case,!--nodo_lower_case", [&o](int64_t n) { o.do_lower_case = n > 0; },
        "the data was lower-cased (export records it; default: prepare_report.json's, else true)");
}

bool parseFlags(CLI::App &app, const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
                int &exitCode)
{
    // CLI11 would take the *next* argument as the value of "--flag=" (an empty value), so
    // "--model_dir= --learning_rate=1e-3" trained into a directory named "--learning_rate=1e-3".
    std::vector<std::string> checked;
    for (const std::string &a : args) {
        if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=') {
            const std::string flag = a.substr(2, a.size() - 3);
            if (flag == "distribution_strategy" || flag == "ds")
                continue; // an empty strategy is "not specified": validation reports the seed's error
            err << "error: " << flag << ": the flag has an empty value\n"
                << "  hint: write --" << flag << "=<value>, or leave the flag out to use its default\n";
            exitCode = kExitInvalid;
            return false;
        }
        checked.push_back(a);
    }
    std::vector<std::string> reversed(checked.rbegin(), checked.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp &) {
        out << app.help();
        exitCode = kExitOk;
        return false;
    } catch (const CLI::ParseError &e) {
        err << "error: " << app.get_name() << ": " << e.what() << "\n";
        err << "  hint: run '" << app.get_name() << " --help' for the list of flags\n";
        exitCode = kExitInvalid;
        return false;
    }
    return true;
}

} // namespace wb::cli
