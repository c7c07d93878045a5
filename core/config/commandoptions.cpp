// SPDX-License-Identifier: Apache-2.0
// The rows of the command tables (commandoptions.h): the shared rows first, then each
// command's flags in its `--help` order.
#include "core/config/commandoptions.h"

#include <stdexcept>

namespace wb {

namespace {

FlagRow value(const char *flag, const char *summary)
{
    FlagRow r;
    r.flag = flag;
    r.summary = summary;
    return r;
}

FlagRow switchRow(const char *flag, const char *summary, const char *negation = "")
{
    FlagRow r = value(flag, summary);
    r.kind = FlagKind::Switch;
    r.negation = negation;
    return r;
}

FlagRow withField(FlagRow r, const char *label, const char *help)
{
    r.label = label;
    r.help = help;
    return r;
}

FlagRow ranged(FlagRow r, double minimum, double maximum, const char *zeroMeans = "")
{
    r.minimum = minimum;
    r.maximum = maximum;
    r.zero_means = zeroMeans;
    return r;
}

FlagRow required(FlagRow r)
{
    r.required = true;
    return r;
}

FlagRow aliased(FlagRow r, std::vector<std::string> aliases)
{
    r.aliases = std::move(aliases);
    return r;
}

FlagRow strict(FlagRow r, std::vector<std::string> choices)
{
    r.choices = std::move(choices);
    r.strict_choices = true;
    return r;
}

FlagRow trainingRow(const char *flag) { return trainingFlagRow(flag); }

std::vector<FlagRow> buildSharedRows()
{
    std::vector<FlagRow> t;
    t.push_back(withField(value("max_seq_length", "tokens per sequence, [CLS] and [SEP] included; longer texts are cut "
                                                  "(at most the model's max_position_embeddings)"),
                          "max_seq_length",
                          "Tokens per example; longer texts are truncated. Typical: 128; must not exceed the "
                          "model's max_position_embeddings"));
    t.push_back(withField(value("vocab_file", "the model's WordPiece vocab.txt"), "Vocabulary",
                          "The WordPiece vocab.txt that belongs to the model (e.g. bert-base-uncased)"));
    t.push_back(switchRow("do_lower_case", "lower-case and strip accents: true for uncased models, false for cased ones",
                          "nodo_lower_case"));
    t.push_back(withField(aliased(value("pretrained_model",
                                        "pretrained BERT: Hub id (org/name[@revision]), catalogue name (BERT-Tiny) or "
                                        "local model folder, downloaded into the Hugging Face cache when missing; its "
                                        "vocab.txt and casing are used unless given (train: also its config and weights)"),
                                  {"model_name_or_path"}),
                          "Start from",
                          "The pretrained BERT the data is for: its vocab.txt and casing are used (downloaded into the "
                          "Hugging Face cache when missing). Random weights: the vocabulary below"));
    t.push_back(withField(value("eval_fraction", "share held out as the eval set when the input has no dev set"),
                          "Eval fraction", "Share of the examples held out for evaluation when the input has no dev set"));
    t.push_back(withField(value("text_a_column", "tsv/csv/jsonl/json: the column (key) of the first text (default: "
                                                 "recognised from the header: sentence, text, review, text_a, or a pair "
                                                 "such as sentence1+sentence2, question+sentence, premise+hypothesis, "
                                                 "question1+question2, text_a+text_b)"),
                          "Text column",
                          "recognised from the header (sentence, text, review, text_a, sentence1, question, premise)"));
    t.push_back(withField(value("text_b_column", "tsv/csv/jsonl/json: the column (key) of the second text of a pair "
                                                 "(default: the recognised pair's second, e.g. sentence2)"),
                          "Second text column", "recognised with the first (sentence2, hypothesis, …)"));
    t.push_back(value("max_predictions_per_seq", "masked LM predictions per sequence (at most max_seq_length × "
                                                 "masked_lm_prob are used)"));
    return t;
}

FlagRow shared(const char *flag) { return sharedFlagRow(flag); }

/// prepare's multi-label rows (docs/multi-label.md, "Data").
void addMultiLabelPrepareRows(std::vector<FlagRow> &t)
{
    t.push_back(withField(strict(value("problem_type", "single_label_classification or multi_label_classification "
                                                       "(several labels per text); default: decided from the data, and "
                                                       "the report says how"),
                                 {"", "single_label_classification", "multi_label_classification"}),
                          "Labels per text",
                          "One label per text (single_label_classification), several (multi_label_classification: a "
                          "delimited label column, one 0/1 column per label, JSON lists, a text in several label "
                          "folders), or decided from the data; the report says which reading was chosen"));
    t.push_back(withField(value("label_delimiter", "multi-label: what separates the labels of one text in the label "
                                                   "column (billing|urgent)"),
                          "Label delimiter", "Multi-label: what separates the labels of one text in the label column, "
                                             "e.g. | in billing|urgent"));
    t.push_back(withField(value("label_columns", "multi-label: comma-separated names of one 0/1 column per label "
                                                 "(default: recognised when every column but the text holds only 0 "
                                                 "and 1)"),
                          "Label columns", "Multi-label: the names of one 0/1 column per label, comma-separated; empty: "
                                           "recognised when every column but the text holds only 0 and 1"));
    t.push_back(value("max_labels", "multi-label: more distinct labels than this is an error"));
    t.push_back(withField(switchRow("allow_constant_labels", "multi-label: keep a label that every text carries (an "
                                                             "error otherwise: it teaches nothing)"),
                          "Keep labels on every text", "Multi-label: keep a label that every text carries (it teaches "
                                                       "the model nothing; an error otherwise)"));
}

std::vector<FlagRow> buildPrepareTable()
{
    std::vector<FlagRow> t;
    t.push_back(withField(required(value("input_data_dir", "folder with the raw data (tsv/csv/jsonl/json: or a single file)")),
                          "Input data",
                          "A folder with one sub-folder per label (each file one example), a TSV/CSV/JSONL/JSON file (or "
                          "a folder with train/dev/test files), or a GLUE task folder"));
    t.push_back(shared("vocab_file"));
    t.push_back(shared("pretrained_model"));
    t.push_back(shared("do_lower_case"));
    t.push_back(ranged(shared("max_seq_length"), 8, 4096));
    t.push_back(withField(value("classification_task_name", "folders, tsv, csv, jsonl, json or a GLUE task name"), "Format",
                          "How the input is laid out: folders (label = folder name), tsv, csv, jsonl (one JSON object "
                          "per line), json (an array of objects), or a GLUE task name"));
    t.push_back(value("mnli_type", "MNLI dev/test set: matched or mismatched"));
    t.push_back(withField(value("output_dir", "write train.tf_record, eval.tf_record, input_meta_data.json, labels.txt here"),
                          "Output folder", "train.tf_record, eval.tf_record, input_meta_data.json and labels.txt go here"));
    t.push_back(value("train_data_output_path", "training TFRecord output"));
    t.push_back(value("eval_data_output_path", "evaluation TFRecord output"));
    t.push_back(value("test_data_output_path", "test TFRecord output (needs a test file)"));
    t.push_back(switchRow("write_test", "with --output_dir: also write test.tf_record"));
    t.push_back(value("meta_data_file_path", "input_meta_data.json output"));
    t.push_back(ranged(shared("eval_fraction"), 0.01, 0.9));
    t.push_back(shared("text_a_column"));
    t.push_back(shared("text_b_column"));
    t.push_back(withField(value("label_column", "tsv/csv/jsonl/json: the label column (default: recognised from the "
                                                "header: label, labels, class, category, target, sentiment)"),
                          "Label column", "recognised from the header (label, class, category, target, sentiment)"));
    t.push_back(withField(value("label_list", "tsv/csv/folders: comma-separated labels that fix the label set and id "
                                              "order (a,b,c)"),
                          "Label list",
                          "Comma-separated labels that fix the label set and its id order; any other label in the data "
                          "is an error naming its file and line"));
    t.push_back(withField(switchRow("skip_bad_rows", "skip rows with a wrong field count or an empty/unknown label (each "
                                                     "is listed) instead of failing"),
                          "Skip bad rows",
                          "Rows with the wrong number of fields or an empty or unknown label are skipped instead of "
                          "stopping the preparation"));
    t.push_back(value("seed", "seed of the split and the training order"));
    t.push_back(value("num_threads", "tokenizer threads"));
    t.push_back(value("bag_of_words_baseline", "fit the bag-of-words baseline (TF-IDF + logistic regression) on the train "
                                               "split and record its eval accuracy and macro-F1 in prepare_report.json"));
    t.push_back(withField(switchRow("email_body_only", "e-mail data: keep only each text's body (drop the RFC 5322 header "
                                                       "block; MIME: the text/plain parts, quoted-printable and base64 "
                                                       "decoded)"),
                          "E-mail bodies only",
                          "For e-mail messages (email_body_only): keep each text's body, without the Received:, From:, "
                          "Subject: … header block; MIME mails give their text/plain parts, decoded"));
    t.push_back(withField(switchRow("strip_quoted_replies", "drop quoted replies: lines starting with '>' and 'On ... "
                                                            "wrote:' lines"),
                          "Drop quoted replies",
                          "strip_quoted_replies: remove lines starting with “>” and the “On … wrote:” line above them"));
    t.push_back(withField(value("stratify_split", "split off the eval set per label, keeping each label's share "
                                                  "(classification without a dev file); false: one random cut"),
                          "stratified by label",
                          "stratify_split: every label keeps its share in the eval set (recorded in split.jsonl); off: "
                          "one random cut"));
    t.push_back(withField(value("split_file", "reuse the train/eval split of an earlier prepare of the same input (its "
                                              "split.jsonl)"),
                          "Same split as",
                          "A split.jsonl written by an earlier prepare of the same input (beside its "
                          "input_meta_data.json): every row keeps its side, so the eval set stays the same; empty: a "
                          "new split"));
    t.push_back(withField(value("corrections_file", "relabel or leave out rows as a corrections.jsonl says (its "
                                                    "accepted and changed lines relabel, its removed lines leave out; "
                                                    "the input files stay as they are); with --split_file of the "
                                                    "prepare before, the eval set stays the same"),
                          "Corrections",
                          "A corrections.jsonl (the decisions on a run's suspects: bert-workbench-cli suspects "
                          "--corrections_file): the rows it accepts or changes get the corrected label in the "
                          "prepared data, the rows it removes are left out; your files are not changed"));
    addMultiLabelPrepareRows(t);
    return t;
}

std::vector<FlagRow> buildPreparePretrainingTable()
{
    std::vector<FlagRow> t;
    t.push_back(aliased(required(value("input_file", "text file, folder of .txt files, .csv/.tsv/.jsonl, a glob "
                                                     "('corpus/*.txt'), or a comma-separated list")),
                        {"input_data_dir"}));
    t.push_back(value("input_format", "auto (by extension; a folder: its .txt files), text, csv, tsv or jsonl"));
    t.push_back(value("text_column", "csv/tsv/jsonl: column or key of the text (default: recognised: sentence, text or "
                                     "review)"));
    t.push_back(switchRow("email_body_only", "e-mail messages: keep each one's body as prepare --email_body_only does "
                                             "(each plain file one mail; a folder: all its files)"));
    t.push_back(shared("vocab_file"));
    t.push_back(shared("pretrained_model"));
    t.push_back(shared("do_lower_case"));
    t.push_back(shared("max_seq_length"));
    t.push_back(shared("max_predictions_per_seq"));
    t.push_back(value("masked_lm_prob", "share of the tokens to mask"));
    t.push_back(value("short_seq_prob", "share of sequences shorter than max_seq_length (random length)"));
    t.push_back(ranged(value("dupe_factor", "times each training document is turned into sequences"), 0, 1e6,
                       "10 with --masking=static, 1 with dynamic"));
    t.push_back(value("random_seed", "seed of every random choice"));
    t.push_back(switchRow("do_whole_word_mask", "mask all WordPiece pieces of a word together"));
    t.push_back(switchRow("next_sentence", "write sentence pairs with next_sentence_labels (google-research); default: "
                                           "pack contiguous text"));
    t.push_back(value("masking", "dynamic (new masks every epoch, by the trainer) or static (masks in the records)"));
    t.push_back(shared("eval_fraction"));
    t.push_back(required(value("output_dir", "write train.tf_record(s), eval.tf_record, input_meta_data.json here")));
    t.push_back(value("num_output_shards", "train files: 1 = train.tf_record, N = train.tf_record-0000i-of-0000N"));
    t.push_back(value("num_threads", "tokenizer threads"));
    return t;
}

std::vector<FlagRow> buildClassifyTable()
{
    std::vector<FlagRow> t;
    t.push_back(trainingRow("model_export_path"));
    t.push_back(aliased(value("model_dir", "training run: its best (else latest) checkpoint, or an export folder"), {"md"}));
    t.push_back(trainingRow("predict_checkpoint_path"));
    t.push_back(trainingRow("bert_config_file"));
    t.push_back(trainingRow("input_meta_data_path"));
    t.push_back(shared("vocab_file"));
    t.push_back(shared("do_lower_case"));
    t.push_back(ranged(shared("max_seq_length"), 0, 100000, "the meta data's (or tokenizer_config.json's) max_seq_length"));
    t.push_back(value("text", "a text to classify (repeatable)"));
    t.push_back(value("text_b", "second segment of the --text at the same position (pair tasks)"));
    t.push_back(value("input_file", "texts: one per line (.txt), a .tsv/.csv with a header row, or .jsonl/.json records"));
    t.push_back(aliased(shared("text_a_column"), {"text_column"}));
    t.push_back(shared("text_b_column"));
    t.push_back(strict(value("output_format", "tsv or jsonl"), {"tsv", "jsonl"}));
    t.push_back(ranged(value("batch_size", "texts per forward pass"), 1, 65536));
    t.push_back(switchRow("explain", "also write each wordpiece's attribution to the explained class's logit "
                                     "(docs/explain.md)"));
    t.push_back(strict(value("explain_method", "integrated_gradients or gradient_x_input (with --explain)"),
                       {"integrated_gradients", "gradient_x_input"}));
    t.push_back(ranged(value("ig_steps", "Integrated Gradients steps m, 1 to 1024 (with --explain)"), kIgStepsMinimum,
                       kIgStepsMaximum));
    t.push_back(ranged(value("num_threads", "intra-op threads (0: libtorch's own choice)"), 0, 4096));
    t.push_back(value("explain_class", "the class to explain: a label name or a 0-based index (default: the predicted "
                                       "class; a multi-label model: the label whose own probability is explained, "
                                       "default the most probable label)"));
    return t;
}

std::vector<FlagRow> buildExampleTable()
{
    std::vector<FlagRow> t;
    t.push_back(value("cache_dir", "cache folder ($XDG_CACHE_HOME/bert-workbench)"));
    t.push_back(strict(value("lesson", "pretraining: prepare and run the pretraining lesson"), {"pretraining"}));
    t.push_back(value("output_dir", "lesson: the folder of its data and runs (runs/<name>)"));
    t.push_back(switchRow("print_only", "lesson: prepare the data and print the commands, run nothing"));
    t.push_back(value("corpus_dir", "lesson: your own folder per label instead of the example's mails"));
    t.push_back(shared("vocab_file"));
    t.push_back(trainingRow("bert_config_file"));
    t.push_back(shared("max_seq_length"));
    t.push_back(value("num_labelled", "lesson: labelled training rows of the fine-tunes"));
    t.push_back(value("subset_seed", "lesson: which rows are labelled"));
    t.push_back(value("seed", "lesson: the pretraining's seed and the fine-tunes' first"));
    t.push_back(value("num_seeds", "lesson: fine-tunes per start, seeds seed, seed+1, ... (their spread is what the "
                                   "seed alone moves)"));
    t.push_back(value("pretrain_epochs", "lesson: epochs of pretraining"));
    t.push_back(value("pretrain_sequences", "lesson: pretraining sequences per epoch (0: all)"));
    t.push_back(value("pretrain_batch_size", "lesson: batch size of pretraining"));
    t.push_back(value("pretrain_learning_rate", "lesson: peak learning rate of pretraining"));
    t.push_back(value("finetune_epochs", "lesson: epochs of each fine-tune"));
    t.push_back(value("finetune_batch_size", "lesson: batch size of the fine-tunes"));
    t.push_back(value("finetune_learning_rate",
                      "lesson: peak learning rate of both fine-tunes (0: each start's usual rate)"));
    return t;
}

std::vector<RunPretrainingOption> buildRunPretrainingOptions()
{
    using F = RunPretrainingFlags;
    std::vector<RunPretrainingOption> t;
    t.push_back({value("input_file", "training records: a file, a glob or a comma-separated list of globs (= "
                                     "--train_data_path)"),
                 &F::input_file});
    t.push_back({value("output_dir", "checkpoints, metrics and summaries (= --model_dir)"), &F::output_dir});
    t.push_back({value("max_seq_length", "tokens per record: checked against the records (or the meta data); an "
                                         "error when they differ"),
                 &F::max_seq_length});
    t.push_back({value("max_predictions_per_seq", "masked positions per record: checked as --max_seq_length"),
                 &F::max_predictions_per_seq});
    t.push_back({switchRow("do_train", "train (pretrain always trains; false is an error)", "nodo_train"), &F::do_train});
    t.push_back({switchRow("do_eval", "evaluate (pretrain evaluates every epoch and at the end in any case)", "nodo_eval"),
                 &F::do_eval});
    t.push_back({value("max_eval_steps", "accepted and ignored: an evaluation reads the whole evaluation set"),
                 &F::max_eval_steps});
    t.push_back({value("iterations_per_loop", "= --steps_per_loop (steps between progress reports)"),
                 &F::iterations_per_loop});
    t.push_back({switchRow("use_tpu", "TPUs are not supported: true is an error (false is accepted)", "nouse_tpu"),
                 &F::use_tpu});
    const char *const ignored = "TPU only: accepted and ignored";
    t.push_back({value("tpu_name", ignored), &F::tpu_name});
    t.push_back({value("tpu_zone", ignored), &F::tpu_zone});
    t.push_back({value("gcp_project", ignored), &F::gcp_project});
    t.push_back({value("master", ignored), &F::master});
    t.push_back({value("num_tpu_cores", ignored), &F::num_tpu_cores});
    return t;
}

} // namespace

bool FlagRow::hasName(std::string_view name) const
{
    if (name == flag || (*negation && name == negation))
        return true;
    for (const std::string &a : aliases)
        if (name == a)
            return true;
    return false;
}

FlagRow trainingFlagRow(std::string_view flag)
{
    const OptionSpec *s = findOption(flag);
    if (!s || flag != s->flag)
        throw std::out_of_range("no training option '" + std::string(flag) + "'");
    FlagRow r = value(s->flag, s->summary);
    r.label = s->label;
    r.help = s->help;
    return r;
}

namespace {

/// The rows `build` makes, built on the first call (thread-safe) and kept.
template <class Row, std::vector<Row> (*build)()>
const std::vector<Row> &builtOnce()
{
    static const std::vector<Row> rows = build();
    return rows;
}

} // namespace

const std::vector<FlagRow> &sharedFlagRows() { return builtOnce<FlagRow, buildSharedRows>(); }

const FlagRow &sharedFlagRow(std::string_view flag) { return flagRow(sharedFlagRows(), flag); }

const std::vector<FlagRow> &prepareFlagTable() { return builtOnce<FlagRow, buildPrepareTable>(); }

const std::vector<FlagRow> &preparePretrainingFlagTable() { return builtOnce<FlagRow, buildPreparePretrainingTable>(); }

const std::vector<FlagRow> &classifyFlagTable() { return builtOnce<FlagRow, buildClassifyTable>(); }

const std::vector<FlagRow> &exampleFlagTable() { return builtOnce<FlagRow, buildExampleTable>(); }

const std::vector<RunPretrainingOption> &runPretrainingOptions()
{
    return builtOnce<RunPretrainingOption, buildRunPretrainingOptions>();
}

const FlagRow *findFlagRow(const std::vector<FlagRow> &table, std::string_view name)
{
    for (const FlagRow &r : table)
        if (r.hasName(name))
            return &r;
    return nullptr;
}

const FlagRow &flagRow(const std::vector<FlagRow> &table, std::string_view flag)
{
    for (const FlagRow &r : table)
        if (flag == r.flag)
            return r;
    throw std::out_of_range("no option row '" + std::string(flag) + "'");
}

NumericOption numericOption(const FlagRow &row, double value, const char *defaultText)
{
    return {row.flag, value, row.minimum, row.maximum, defaultText, row.zero_means};
}

} // namespace wb
