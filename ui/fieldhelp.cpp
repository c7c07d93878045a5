// SPDX-License-Identifier: Apache-2.0
#include "ui/fieldhelp.h"

#include <QHash>
#include <QRegularExpression>

namespace wb {

FieldHelp fieldHelp(const QString &field)
{
    static const QHash<QString, FieldHelp> help = {
        {QStringLiteral("distribution_strategy"),
         {QStringLiteral("Distribution strategy"),
          QStringLiteral("How training is spread over your hardware. one_device trains on one CPU or one GPU "
                         "(the right choice on a laptop). mirrored copies the model to every local GPU and "
                         "averages their gradients. multi_worker_mirrored does the same across several "
                         "processes or machines. There is no default: you must choose one.")}},
        {QStringLiteral("num_gpus"),
         {QStringLiteral("GPUs"),
          QStringLiteral("How many GPUs to use. 0 trains on the CPU. one_device allows at most 1; mirrored uses "
                         "one replica per GPU. Typical: 0 without a GPU, 1 with one.")}},
        {QStringLiteral("num_local_workers"),
         {QStringLiteral("Local workers"),
          QStringLiteral("multi_worker_mirrored only: start this many worker processes on this computer. "
                         "Each trains on its share of every batch and the gradients are averaged, so the "
                         "result matches one worker. The plot shows the chief's (worker 0) curves. Off (0) "
                         "joins the cluster described by TF_CONFIG or MASTER_ADDR/WORLD_SIZE/RANK instead. "
                         "The training batch size must divide by the number of workers.")}},
        {QStringLiteral("worker_timeout"),
         {QStringLiteral("Worker timeout"),
          QStringLiteral("multi_worker_mirrored only: how long every worker waits for the others to join, "
                         "and for each exchange of gradients. A worker that does not come, or dies, ends the "
                         "run with an error naming it after at most this long. 300 s (the default) leaves "
                         "time to start workers by hand on several machines; 30 s is plenty for local workers.")}},
        {QStringLiteral("bert_config_file"),
         {QStringLiteral("BERT config"),
          QStringLiteral("bert_config.json describes the model's shape: layers, width, attention heads, "
                         "vocabulary size. It must match the init checkpoint. Use Model → New config from "
                         "preset to write one (BERT-Tiny trains in minutes on a CPU).")}},
        {QStringLiteral("input_meta_data_path"),
         {QStringLiteral("Input meta data"),
          QStringLiteral("input_meta_data.json is written when the data is prepared. It says how many "
                         "examples and labels there are and the sequence length, which the schedule below "
                         "is computed from.")}},
        {QStringLiteral("train_data_path"),
         {QStringLiteral("Training data"),
          QStringLiteral("TFRecord file(s) with the training examples (a file, a glob such as train-*.tf_record, "
                         "or a comma-separated list). Make them with File → Prepare Data.")}},
        {QStringLiteral("eval_data_path"),
         {QStringLiteral("Evaluation data"),
          QStringLiteral("TFRecord file(s) with held-out examples. The model never trains on them; they "
                         "measure how well it generalises after each epoch.")}},
        {QStringLiteral("init_checkpoint"),
         {QStringLiteral("Init checkpoint"),
          QStringLiteral("Pre-trained weights (safetensors with Hugging Face BERT names) to start from. "
                         "Fine-tuning a pre-trained model needs far less data. Leave empty to start from "
                         "random weights (fine for small experiments, much worse accuracy).")}},
        {QStringLiteral("model_dir"),
         {QStringLiteral("Model directory"),
          QStringLiteral("Where checkpoints, metrics.jsonl, TensorBoard summaries and predictions are "
                         "written. Training again with the same directory resumes from its latest "
                         "checkpoint; choose a new directory for a fresh run.")}},
        {QStringLiteral("train_batch_size"),
         {QStringLiteral("Train batch size"),
          QStringLiteral("Examples per training step. Larger batches give smoother gradients but need more "
                         "memory. Typical: 16 or 32 for BERT-Base, 32–128 for small models.")}},
        {QStringLiteral("eval_batch_size"),
         {QStringLiteral("Eval batch size"),
          QStringLiteral("Examples per evaluation step. Only affects speed and memory, not results. "
                         "Typical: the same as the train batch size or larger.")}},
        {QStringLiteral("learning_rate"),
         {QStringLiteral("Learning rate"),
          QStringLiteral("How big each update step is, at its peak (after warmup). Too high and the loss "
                         "jumps or becomes NaN; too low and it barely moves. Typical for fine-tuning: "
                         "2e-5 to 5e-5 for BERT-Base; 1e-4 to 1e-3 for BERT-Tiny.")}},
        {QStringLiteral("end_lr"),
         {QStringLiteral("End learning rate"),
          QStringLiteral("The learning rate decays linearly from its peak to this value at the last step. "
                         "Typical: 0.")}},
        {QStringLiteral("num_train_epochs"),
         {QStringLiteral("Epochs"),
          QStringLiteral("How many times the model sees every training example. Typical: 2–4 for "
                         "fine-tuning. More epochs can overfit: watch the eval loss rise while the train "
                         "loss keeps falling.")}},
        {QStringLiteral("num_eval_per_epoch"),
         {QStringLiteral("Evaluations per epoch"),
          QStringLiteral("How often to evaluate (and checkpoint) within one epoch. 1 evaluates at the end of "
                         "each epoch; higher values give more points on the eval curve but cost time.")}},
        {QStringLiteral("train_data_size"),
         {QStringLiteral("Train data size cap"),
          QStringLiteral("Use at most this many training examples per epoch (0 = all). Handy for a quick "
                         "trial run on a large dataset.")}},
        {QStringLiteral("seed"),
         {QStringLiteral("Random seed"),
          QStringLiteral("Fixes the random initialisation and shuffling so a run can be repeated exactly. "
                         "Try a few seeds: small datasets give noticeably different results per seed.")}},
        {QStringLiteral("warmup_fraction"),
         {QStringLiteral("Warmup fraction"),
          QStringLiteral("Part of training during which the learning rate ramps up from 0 to its peak; "
                         "this keeps the first updates from wrecking pre-trained weights. Typical: 0.1 "
                         "(run_classifier's fixed value).")}},
        {QStringLiteral("weight_decay_rate"),
         {QStringLiteral("Weight decay"),
          QStringLiteral("AdamW's pull of the weights towards zero, a mild regulariser (not applied to "
                         "biases and LayerNorm). Typical: 0.01.")}},
        {QStringLiteral("log_steps"),
         {QStringLiteral("Log steps"),
          QStringLiteral("How often (in steps) a speed line with examples per second is written to the log. "
                         "Typical: 100; smaller for short runs.")}},
        {QStringLiteral("keep_checkpoint_max"),
         {QStringLiteral("Checkpoints kept"),
          QStringLiteral("How many recent checkpoints to keep in the model directory (0 keeps all). "
                         "Each BERT-Base checkpoint takes about 1.3 GB with optimizer state.")}},
        {QStringLiteral("smoothing"),
         {QStringLiteral("Smoothing"),
          QStringLiteral("Averages out the step-to-step noise of the training loss, exactly as TensorBoard "
                         "does (a debiased exponential moving average). 0 shows the raw loss; 0.6 is "
                         "TensorBoard's default; 0.99 shows only the long-term trend.")}},
    };
    return help.value(field);
}

QString formWording(const QString &text)
{
    static const QRegularExpression pass(QStringLiteral("\\bpass --([a-z_]+)=(<[^>]*>|[^\\s;,()]+)"));
    static const QRegularExpression flag(QStringLiteral("--([a-z_]+)"));
    QString out = text;
    out.replace(QStringLiteral("'bert-workbench-cli prepare'"), QStringLiteral("File → Prepare Data…"));
    const auto rewrite = [&out](const QRegularExpression &re, bool withValue) {
        QString result;
        qsizetype last = 0;
        auto it = re.globalMatch(out);
        while (it.hasNext()) {
            const auto m = it.next();
            const FieldHelp help = fieldHelp(m.captured(1));
            result += out.mid(last, m.capturedStart() - last);
            if (help.label.isEmpty())
                result += m.captured(0);
            else if (withValue)
                result += QStringLiteral("set “%1” to %2").arg(help.label, m.captured(2));
            else
                result += QStringLiteral("“%1”").arg(help.label);
            last = m.capturedEnd();
        }
        result += out.mid(last);
        out = result;
    };
    rewrite(pass, true);
    rewrite(flag, false);
    return out;
}

} // namespace wb
