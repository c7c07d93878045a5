// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "core/hub/preparetokenizer.h"

#include "core/hub/pretrainedmodel.h"
#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/runflags.h"

#include "core/config/bertconfig.h"
#include "core/prepare/dataprep.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <limits>
#include <ostream>
#include <unistd.h>

namespace wb::cli {

namespace {

void printCounts(std::ostream &out, const PrepareReport &r)
{
    size_t width = 5;
    for (const auto &l : r.labels)
        width = std::max(width, l.size());
    out << "  " << std::left << std::setw(int(width)) << "label" << std::right << std::setw(10) << "train"
        << std::setw(10) << "eval" << "\n";
    for (const auto &l : r.labels) {
        const auto t = r.train_label_counts.find(l);
        const auto e = r.eval_label_counts.find(l);
        out << "  " << std::left << std::setw(int(width)) << l << std::right << std::setw(10)
            << (t == r.train_label_counts.end() ? 0 : t->second) << std::setw(10)
            << (e == r.eval_label_counts.end() ? 0 : e->second) << "\n";
    }
}

// How many co-occurring label pairs the terminal lists (prepare_report.json has up to 20).
constexpr size_t kListedPairs = 5;

void printMultiLabel(std::ostream &out, const PrepareReport &r)
{
    if (!r.multi_label) {
        if (!r.problem_type.empty())
            out << "  problem type: " << r.problem_type << " (one label per text)\n";
        return;
    }
    const MultiLabelReport &m = *r.multi_label;
    out << "  problem type: " << r.problem_type << " (labels read from " << m.reading << ")\n";
    out << "  labels per text: " << std::fixed << std::setprecision(2) << m.label_cardinality << " (train "
        << m.train_label_cardinality;
    if (r.eval_examples > 0)
        out << ", eval " << m.eval_label_cardinality;
    out << ")" << std::defaultfloat
        << "; texts with no label: " << m.no_label_texts << "; distinct label sets: " << m.distinct_label_sets << "\n";
    if (!m.cooccurrence.empty()) {
        out << "  most frequent pairs:";
        for (size_t k = 0; k < m.cooccurrence.size() && k < kListedPairs; ++k)
            out << (k ? ", " : " ") << m.cooccurrence[k].first << "+" << m.cooccurrence[k].second << " ("
                << m.cooccurrence[k].texts << ")";
        out << "\n";
    }
    auto names = [&out](const char *what, const std::vector<std::string> &v) {
        if (v.empty())
            return;
        out << "  " << what << ":";
        for (size_t k = 0; k < v.size(); ++k)
            out << (k ? ", " : " ") << v[k];
        out << "\n";
    };
    names("labels on no text", m.never_present);
    names("labels on every text", m.always_present);
}

// How many relabelled rows the terminal lists (prepare_report.json lists them all).
constexpr size_t kListedCorrections = 20;

// --corrections_file: how many rows were relabelled, and the first of them.
void printCorrections(std::ostream &out, const PrepareReport &r)
{
    if (r.corrections_file.empty())
        return;
    out << "  corrections: " << r.corrections_file << ": " << r.corrected_rows.size() << " row(s) relabelled";
    if (r.corrections_not_applied > 0)
        out << "; " << r.corrections_not_applied << " line(s) change nothing (suggested, rejected or the same label)";
    out << "\n";
    for (size_t i = 0; i < r.corrected_rows.size() && i < kListedCorrections; ++i) {
        const CorrectedRow &c = r.corrected_rows[i];
        out << "    " << c.where << ": " << c.label << " -> " << c.corrected_label << " (" << c.decision << ", line "
            << c.correction_line << ")\n";
    }
    if (r.corrected_rows.size() > kListedCorrections)
        out << "    … " << (r.corrected_rows.size() - kListedCorrections) << " more in " << r.report_path << "\n";
    if (r.removed_rows.empty())
        return;
    out << "  corrections: " << r.removed_rows.size() << " row(s) removed (left out of the prepared data)\n";
    for (size_t i = 0; i < r.removed_rows.size() && i < kListedCorrections; ++i)
        out << "    " << r.removed_rows[i].where << ": " << r.removed_rows[i].label << " removed (line "
            << r.removed_rows[i].correction_line << ")\n";
    if (r.removed_rows.size() > kListedCorrections)
        out << "    … " << (r.removed_rows.size() - kListedCorrections) << " more in " << r.report_path << "\n";
}

// The first rows are listed on the terminal; prepare_report.json lists them all.
constexpr size_t kListedSkippedRows = 100;

void printPrepareReport(const PrepareReport &r, std::ostream &out, std::ostream &err)
{
    out << "prepared " << r.processor_type << " data in " << std::fixed << std::setprecision(1) << r.seconds
        << std::defaultfloat << " s\n";
    if (!r.train_path.empty())
        out << "  train: " << r.train_path << " (" << r.train_examples << " examples)\n";
    if (!r.eval_path.empty())
        out << "  eval:  " << r.eval_path << " (" << r.eval_examples << " examples)\n";
    if (!r.test_path.empty())
        out << "  test:  " << r.test_path << " (" << r.test_examples << " examples)\n";
    auto column = [&](const char *what, const std::string &name, bool recognised, const char *flag) {
        if (!name.empty())
            out << "  " << what << ": " << name << " (" << (recognised ? std::string("recognised from the header")
                                                                       : std::string("--") + flag)
                << ")\n";
    };
    column("text column", r.text_a_column, r.text_columns_recognised, "text_a_column");
    column("second text column", r.text_b_column, r.text_columns_recognised, "text_b_column");
    column("label column", r.label_column, r.label_column_recognised, "label_column");
    out << "  vocab: " << r.vocab_file << " (sha256 " << r.vocab_sha256.substr(0, 12) << "…); do_lower_case="
        << (r.do_lower_case ? "true" : "false") << "; max_seq_length=" << r.max_seq_length << "\n";
    out << "  meta data: " << r.meta_path << "\n";
    out << "  report: " << r.report_path << "\n";
    if (!r.split_path.empty())
        out << "  split: " << r.split_path << " (" << r.split_method << ")\n";
    printCorrections(out, r);
    if (r.email_body_only || r.strip_quoted_replies)
        out << "  texts: " << (r.email_body_only ? "e-mail bodies" : "as written")
            << (r.strip_quoted_replies ? ", quoted replies removed" : "") << "\n";
    if (!r.labels_path.empty()) {
        out << "  labels: " << r.labels_path << " (";
        for (size_t i = 0; i < r.labels.size(); ++i)
            out << (i ? ", " : "") << i << "=" << r.labels[i];
        out << ")\n";
        printMultiLabel(out, r);
        printCounts(out, r);
    }
    out << "  truncated to max_seq_length: " << r.truncated_examples << " examples; tokens per example: mean "
        << std::fixed << std::setprecision(1) << r.mean_tokens << std::defaultfloat << ", max "
        << (r.max_tokens_capped ? ">= " : "") << r.max_tokens << "\n";
    out << "  skipped rows: " << r.skipped_rows << "; duplicate texts in train: " << r.train_duplicates
        << "; texts in both train and eval: " << r.train_eval_overlap << "\n";
    if (r.bag_of_words)
        out << "  " << bagOfWordsLine(*r.bag_of_words) << "\n";
    std::vector<const SkippedRow *> skipped; // the corrections' removed rows are listed with them
    for (const SkippedRow &s : r.skipped)
        if (!s.removed_by_correction)
            skipped.push_back(&s);
    for (size_t i = 0; i < skipped.size() && i < kListedSkippedRows; ++i)
        err << "warning: " << skipped[i]->where << ": skipped: " << skipped[i]->reason << "\n";
    if (skipped.size() > kListedSkippedRows)
        err << "warning: " << (skipped.size() - kListedSkippedRows) << " more skipped rows are listed in "
            << r.report_path << "\n";
    for (const auto &w : r.warnings)
        err << "warning: " << w << "\n";
}

/// prepare's flags, bound to `o` and the few values read beside it.
struct PrepareFlags
{
    PrepareOptions o;
    TokenizerFlags tokenizer;
    int64_t seed = 42;
};

/// prepare's flags from its table (prepareFlagTable(), core/config/commandoptions.h).
void addPrepareFlags(CLI::App &app, PrepareFlags &f)
{
    PrepareOptions &o = f.o;
    const std::vector<FlagRow> &t = prepareFlagTable();
    addTableFlag(app, t, "input_data_dir", o.input_data_dir);
    addTokenizerFlags(app, t, f.tokenizer, {o.vocab_file, o.max_seq_length, o.do_lower_case});
    addTableFlag(app, t, "classification_task_name", o.classification_task_name);
    addTableFlag(app, t, "mnli_type", o.mnli_type);
    addTableFlag(app, t, "output_dir", o.output_dir);
    addTableFlag(app, t, "train_data_output_path", o.train_data_output_path);
    addTableFlag(app, t, "eval_data_output_path", o.eval_data_output_path);
    addTableFlag(app, t, "test_data_output_path", o.test_data_output_path);
    addTableFlag(app, t, "write_test", o.write_test);
    addTableFlag(app, t, "meta_data_file_path", o.meta_data_file_path);
    addTableFlag(app, t, "eval_fraction", o.eval_fraction);
    addTableFlag(app, t, "text_a_column", o.text_a_column);
    addTableFlag(app, t, "text_b_column", o.text_b_column);
    addTableFlag(app, t, "label_column", o.label_column);
    addTableFlag(app, t, "label_list", o.label_list);
    addTableFlag(app, t, "skip_bad_rows", o.skip_bad_rows);
    f.seed = int64_t(o.seed);
    addTableFlag(app, t, "seed", f.seed);
    addTableFlag(app, t, "num_threads", o.num_threads);
    addTableFlag(app, t, "bag_of_words_baseline", o.bag_of_words_baseline);
    addTableFlag(app, t, "email_body_only", o.email_body_only);
    addTableFlag(app, t, "strip_quoted_replies", o.strip_quoted_replies);
    addTableFlag(app, t, "stratify_split", o.stratify_split);
    addTableFlag(app, t, "split_file", o.split_file);
    addTableFlag(app, t, "corrections_file", o.corrections_file);
    addTableFlag(app, t, "problem_type", o.problem_type);
    addTableFlag(app, t, "label_delimiter", o.label_delimiter);
    addTableFlag(app, t, "label_columns", o.label_columns);
    addTableFlag(app, t, "max_labels", o.max_labels);
    addTableFlag(app, t, "allow_constant_labels", o.allow_constant_labels);
}

} // namespace

std::function<void(double, const std::string &)> prepareProgressPrinter(std::ostream &err)
{
    const bool tty = &err == &std::cerr && ::isatty(STDERR_FILENO);
    return [tty, &err, lastStage = std::string(), lastPercent = -1](double f, const std::string &stage) mutable {
        const int percent = int(f * 100.0);
        if (tty) {
            if (percent == lastPercent && stage == lastStage)
                return;
            const int width = 30, filled = int(f * width);
            err << "\r[" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), ' ') << "] "
                << percent << "% " << stage << "        " << std::flush;
            if (stage == "done")
                err << "\n";
        } else if (stage != lastStage) {
            err << stage << "...\n";
        }
        lastStage = stage;
        lastPercent = percent;
    };
}


namespace {

/// --pretrained_model: fetches the model, then fills the tokenizer settings not given from it
/// (chooseTokenizer() in commands.h says how).
int takePretrainedModel(const TokenizerFlags &flags, PreparedText o, std::ostream &out, std::ostream &err)
{
    // The data must be read as the model reads text: its vocabulary and its casing.
    const std::string &pretrainedModel = flags.pretrainedModel;
    TrainingOptions run;
    run.pretrained_model = pretrainedModel;
    if (const int fetched = fetchPretrainedForRun(run, false, out, err); fetched != kExitOk)
        return fetched;
    try {
        const auto m = findCachedPretrainedModel(pretrainedModel, HubSettings::fromEnvironment());
        if (!m)
            throw Error("pretrained_model", "'" + pretrainedModel + "' is not in the Hugging Face cache");
        PrepareTokenizer t{o.vocab_file, o.max_seq_length, o.do_lower_case};
        const PrepareTokenizerGiven given{flags.vocab->count() > 0, flags.lowerCase->count() > 0,
                                          flags.maxSeq->count() > 0};
        const Diagnostics said = applyPretrainedTokenizer(*m, pretrainedModel, given, t);
        o.vocab_file = t.vocab_file;
        o.max_seq_length = t.max_seq_length;
        o.do_lower_case = t.do_lower_case;
        for (const Diagnostic &d : said.items())
            err << (d.severity == Severity::Info ? "note: " + d.field + " " : "warning: " + d.field + ": ") << d.message
                << "\n";
    } catch (...) {
        return reportCurrentException(err, "pretrained_model", kExitInvalid);
    }
    return kExitOk;
}

} // namespace

void addTokenizerFlags(CLI::App &app, const std::vector<FlagRow> &table, TokenizerFlags &flags, PreparedText text)
{
    flags.vocab = addTableFlag(app, table, "vocab_file", text.vocab_file);
    addTableFlag(app, table, "pretrained_model", flags.pretrainedModel);
    flags.lowerCase = addTableFlag(app, table, "do_lower_case", text.do_lower_case);
    flags.maxSeq = addTableFlag(app, table, "max_seq_length", text.max_seq_length);
}

int chooseTokenizer(const TokenizerFlags &flags, PreparedText text, std::ostream &out, std::ostream &err)
{
    if (!flags.pretrainedModel.empty())
        return takePretrainedModel(flags, text, out, err);
    if (text.vocab_file.empty())
        return reportError(err, ErrorText{"vocab_file", "no vocabulary was given",
                                          "pass --vocab_file=vocab.txt, or --pretrained_model=<model> to use its own"},
                           kExitInvalid);
    return kExitOk;
}


int cmdPrepare(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Convert raw text into train/eval TFRecords + input_meta_data.json + labels.txt\n"
                 "(the equivalent of tensorflow/models' create_finetuning_data.py).\n"
                 "Formats: 'folders' (one sub-folder per label, one file per example), 'tsv'/'csv'\n"
                 "(header row), 'jsonl'/'json' (JSON Lines, a JSON array of objects; the keys are the\n"
                 "columns); the text and label columns are recognised from usual names such as\n"
                 "sentence, text, sentence1/sentence2, label, or named with --text_a_column,\n"
                 "--text_b_column, --label_column; or a GLUE task name\n"
                 "(COLA, SST-2, MRPC, QQP, STS-B, MNLI, QNLI, RTE, WNLI; the GLUE TSV layouts).",
                 "bert-workbench-cli prepare");
    PrepareFlags flags;
    addPrepareFlags(app, flags);
    PrepareOptions &o = flags.o;
    if (const auto done = parseCommandFlags(app, args, out, err))
        return *done;
    const int64_t seed = flags.seed;
    if (seed < 0)
        return reportError(err,
                           ErrorText{"seed", "seed is " + std::to_string(seed) + "; it must be between 0 and "
                                                 + std::to_string(std::numeric_limits<int64_t>::max()),
                                     "the default is 42"},
                           kExitInvalid);
    o.seed = uint64_t(seed);
    if (const int chosen = chooseTokenizer(flags.tokenizer, {o.vocab_file, o.max_seq_length, o.do_lower_case}, out, err);
        chosen != kExitOk)
        return chosen;

    const bool tty = &err == &std::cerr && ::isatty(STDERR_FILENO);
    const PrepareProgress progress = prepareProgressPrinter(err);
    try {
        const PrepareReport r = prepareData(o, progress);
        printPrepareReport(r, out, err);
        return kExitOk;
    } catch (...) {
        if (tty) // end the progress bar's line
            err << "\n";
        return reportCommandException(err, "prepare"); // 2: bad input data or flags
    }
}

} // namespace wb::cli
