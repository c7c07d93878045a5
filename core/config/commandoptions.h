// SPDX-License-Identifier: Apache-2.0
#pragma once
// The option tables of the commands whose options are not TrainingOptions: prepare,
// prepare_pretraining, classify, example, and pretrain's run_pretraining.py flags. The
// training options have their own table (optiontable.h); these follow the same rule: one row
// per flag gives its names, its `--help` summary, its man page entry, its range and (where the
// window has a field for it) the field's label and help. A flag that several commands take
// with one meaning (max_seq_length, vocab_file, do_lower_case, …) is one shared row, the same
// text in every command's `--help` (sharedFlagRow). docs/architecture.md, "Adding an option".

#include "core/config/optiontable.h"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace wb {

/// How the CLI reads a flag.
enum class FlagKind
{
    Value,  ///< --flag=VALUE (or --flag VALUE); a bool takes true/false
    Switch, ///< --flag alone sets it (a bool); `negation` (--noflag) clears it
};

/// One flag of a command table. A plain value; the tables are immutable and thread-safe to read.
struct FlagRow
{
    const char *flag = "";            ///< canonical name, without "--"
    std::vector<std::string> aliases; ///< other accepted names (old spellings, other tools' names)
    FlagKind kind = FlagKind::Value;
    const char *negation = "";        ///< Switch: the name that clears it ("nodo_lower_case"), "" for none
    const char *summary = "";         ///< one line for `--help` and the man page, the same in every command
    const char *label = "";           ///< the window's field label ("" when the window has no field)
    const char *help = "";            ///< the field's plain-language tooltip ("" when no field)
    std::vector<std::string> choices; ///< allowed values; the CLI rejects others when `strict_choices`
    bool strict_choices = false;
    bool required = false;            ///< the command fails without it (CLI11's "is required")
    double minimum = 0, maximum = 0;  ///< range of a number (the window's spin box, checkTableRanges)
    const char *zero_means = "";      ///< what 0 stands for ("automatic"), "" when 0 is just 0

    bool hasRange() const { return maximum > minimum; }
    /// Whether `name` is the flag, the negation or one of the aliases.
    bool hasName(std::string_view name) const;
};

/// The rows of flags several commands take with one meaning, by flag name: max_seq_length,
/// vocab_file, do_lower_case, pretrained_model, eval_fraction, text_a_column, text_b_column,
/// max_predictions_per_seq. The training table's rows of the same names use the same
/// summaries; a training option another command takes is that command's trainingFlagRow.
const std::vector<FlagRow> &sharedFlagRows();
/// The shared row of `flag`; throws std::out_of_range for a flag that has none (a table bug).
const FlagRow &sharedFlagRow(std::string_view flag);

/// A training option's row (optiontable.h) as a command row: the same flag, summary, label and
/// help, for a command that takes the flag without taking the training options (classify's
/// --bert_config_file). Throws std::out_of_range for a flag that is no training option.
FlagRow trainingFlagRow(std::string_view flag);

/// `bert-workbench-cli prepare` (create_finetuning_data.py's flags); the Prepare Data dialog's
/// fields take their labels, tooltips and ranges from the same rows.
const std::vector<FlagRow> &prepareFlagTable();
/// `bert-workbench-cli prepare_pretraining` (create_pretraining_data.py's flags).
const std::vector<FlagRow> &preparePretrainingFlagTable();
/// `bert-workbench-cli classify`.
const std::vector<FlagRow> &classifyFlagTable();
/// `bert-workbench-cli example` (the example project and the pretraining lesson).
const std::vector<FlagRow> &exampleFlagTable();
/// google-research/bert run_pretraining.py's flags that are not training options
/// (docs/pretraining.md, "From google-research/bert"); `pretrain` only. Its --bert_config_file,
/// --init_checkpoint, --train_batch_size, --eval_batch_size, --learning_rate,
/// --save_checkpoints_steps, --num_train_steps and --num_warmup_steps are training options.
/// Unset optionals: not given.
struct RunPretrainingFlags
{
    std::string input_file;                         ///< comma-separated globs: --train_data_path
    std::string output_dir;                         ///< --model_dir
    std::optional<int64_t> max_seq_length;          ///< checked against the records (or the meta data)
    std::optional<int64_t> max_predictions_per_seq; ///< likewise
    std::optional<bool> do_train, do_eval, use_tpu;
    std::optional<int64_t> max_eval_steps, iterations_per_loop, num_tpu_cores;
    std::string tpu_name, tpu_zone, gcp_project, master;
};

/// The RunPretrainingFlags member a row is stored in.
using RunPretrainingMember = std::variant<std::string RunPretrainingFlags::*, std::optional<int64_t> RunPretrainingFlags::*,
                                          std::optional<bool> RunPretrainingFlags::*>;

/// One run_pretraining.py flag: its row and its member.
struct RunPretrainingOption
{
    FlagRow row;
    RunPretrainingMember member;
};

/// `pretrain`'s run_pretraining.py flags, in their `--help` group's order; the CLI binds each
/// row to its member (no list of its own).
const std::vector<RunPretrainingOption> &runPretrainingOptions();

/// The row of `table` whose flag, negation or alias is `name`; nullptr when none is.
const FlagRow *findFlagRow(const std::vector<FlagRow> &table, std::string_view name);
/// The row of `table` named `flag`; throws std::out_of_range when it has none (a table bug).
const FlagRow &flagRow(const std::vector<FlagRow> &table, std::string_view flag);

/// checkNumericRanges's row for `row` (which must have a range) holding `value`.
NumericOption numericOption(const FlagRow &row, double value, const char *defaultText);

} // namespace wb
