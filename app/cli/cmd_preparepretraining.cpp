// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli prepare_pretraining`: google-research/bert create_pretraining_data.py's
// flags over preparePretrainingData() (docs/pretraining.md).
#include "app/cli/commands.h"

#include "app/cli/errors.h"
#include "app/cli/flagtable.h"
#include "app/cli/interrupt.h"
#include "app/cli/runflags.h"
#include "core/config/bertconfig.h"
#include "core/corpus/pretrainingdata.h"
#include "core/hub/pretrainedmodel.h"
#include "core/util/error.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace wb::cli {

namespace {

std::string megabytes(uint64_t bytes)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << double(bytes) / 1e6 << " MB";
    return s.str();
}

void printReport(const PretrainingDataReport &r, std::ostream &out, std::ostream &err)
{
    out << "prepared pretraining data in " << std::fixed << std::setprecision(1) << r.seconds << std::defaultfloat
        << " s\n";
    if (r.masking == "dynamic")
        out << "  masking: dynamic (the records hold unmasked sequences; the trainer draws new masks every epoch; "
               "--masking=static writes fixed masks as google-research's run_pretraining.py needs)\n";
    else
        out << "  masking: static (masks written into the records, " << r.dupe_factor
            << " copies of each training sequence with different masks: --dupe_factor)\n";
    out << "  input: " << r.input_files << " file(s), " << megabytes(r.input_bytes) << ", read as " << r.input_format;
    if (!r.text_column.empty())
        out << ", text from '" << r.text_column << "' (" << (r.text_column_recognised ? "recognised" : "--text_column")
            << ")";
    if (r.email_body_only)
        out << ", e-mail bodies only (" << r.empty_rows << " without body text left out)";
    out << "\n";
    out << "  documents: " << r.documents << " (" << r.train_documents << " train / " << r.eval_documents
        << " eval pieces); longer than a sequence: " << r.documents_longer_than_a_sequence
        << "; cut into pieces: " << r.long_documents_cut << "\n";
    out << "  repeated documents: " << r.duplicate_documents << " within a split, " << r.train_eval_overlap_documents
        << " in both train and eval" << (r.duplicate_check_saturated ? " (the check stopped at 1.5 M documents)" : "")
        << "\n";
    out << "  sentences: " << r.sentences << "; longer than a sequence and split: " << r.sentences_split << "\n";
    out << "  lines over 1 MiB read in parts: " << r.long_lines_split;
    if (r.long_lines_split) {
        out << " (" << r.long_line_cuts << " cut(s), ";
        if (r.long_line_cuts_inside_a_word)
            out << r.long_line_cuts_inside_a_word << " inside a word";
        else
            out << "all between tokens";
        const PretrainingLineSplit &first = r.long_line_splits.front();
        out << "; first: " << first.where << " at byte " << first.cut_offsets.front() << ")";
    }
    out << "\n";
    out << "  tokens: " << r.tokens << "; [UNK]: " << r.unk_tokens << " (" << std::fixed << std::setprecision(2)
        << 100.0 * r.unk_rate << std::defaultfloat << "%)\n";
    out << "  sequences: " << r.train_sequences << " train (dupe_factor " << r.dupe_factor << "), " << r.eval_sequences
        << " eval; " << (r.next_sentence ? "next-sentence pairs, " + std::to_string(r.random_next_sequences) + " random B"
                                         : std::string("packed, no next-sentence pairs"))
        << "\n";
    out << "  masked positions: " << r.masked_positions
        << (r.masking == "dynamic" ? " per epoch (masked_lm_prob " : " (masked_lm_prob ") << r.masked_lm_prob
        << ", max_predictions_per_seq " << r.max_predictions_per_seq
        << (r.whole_word_masking ? ", whole words" : "") << ")\n";
    for (size_t i = 0; i < r.train_files.size(); ++i)
        if (i < 3 || i + 1 == r.train_files.size())
            out << "  train: " << r.train_files[i] << "\n";
        else if (i == 3)
            out << "  train: … (" << r.train_files.size() << " shards)\n";
    if (!r.eval_file.empty())
        out << "  eval:  " << r.eval_file << "\n";
    out << "  vocab: " << r.vocab_file << " (sha256 " << r.vocab_sha256.substr(0, 12) << "…, " << r.vocab_size
        << " tokens); do_lower_case=" << (r.do_lower_case ? "true" : "false") << "; max_seq_length=" << r.max_seq_length
        << "\n";
    out << "  meta data: " << r.meta_path << "\n";
    out << "  report: " << r.report_path << "\n";
    for (const auto &w : r.warnings)
        err << "warning: " << w << "\n";
}

/// prepare_pretraining's flags, and which of the tokenizer's the user gave.
struct PretrainingFlags
{
    PretrainingDataOptions o;
    std::string inputs;         ///< --input_file: a comma-separated list
    TokenizerFlags tokenizer;
    CLI::Option *maxPredictions = nullptr;
};

/// prepare_pretraining's flags from its table (preparePretrainingFlagTable()).
void addPretrainingFlags(CLI::App &app, PretrainingFlags &f)
{
    PretrainingDataOptions &o = f.o;
    const std::vector<FlagRow> &t = preparePretrainingFlagTable();
    addTableFlag(app, t, "input_file", f.inputs);
    addTableFlag(app, t, "input_format", o.input_format);
    addTableFlag(app, t, "text_column", o.text_column);
    addTableFlag(app, t, "email_body_only", o.email_body_only);
    addTokenizerFlags(app, t, f.tokenizer, {o.vocab_file, o.max_seq_length, o.do_lower_case});
    f.maxPredictions = addTableFlag(app, t, "max_predictions_per_seq", o.max_predictions_per_seq);
    addTableFlag(app, t, "masked_lm_prob", o.masked_lm_prob);
    addTableFlag(app, t, "short_seq_prob", o.short_seq_prob);
    addTableFlag(app, t, "dupe_factor", o.dupe_factor);
    addTableFlag(app, t, "random_seed", o.random_seed);
    addTableFlag(app, t, "do_whole_word_mask", o.do_whole_word_mask);
    addTableFlag(app, t, "next_sentence", o.next_sentence);
    addTableFlag(app, t, "masking", o.masking);
    addTableFlag(app, t, "eval_fraction", o.eval_fraction);
    addTableFlag(app, t, "output_dir", o.output_dir);
    addTableFlag(app, t, "num_output_shards", o.num_output_shards);
    addTableFlag(app, t, "num_threads", o.num_threads);
}

std::vector<std::string> splitCommaList(const std::string &list)
{
    std::vector<std::string> parts;
    for (size_t start = 0; start <= list.size();) {
        const size_t comma = list.find(',', start);
        const std::string part = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!part.empty())
            parts.push_back(part);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return parts;
}

} // namespace

int cmdPreparePretraining(const std::vector<std::string> &args, std::ostream &out, std::ostream &err)
{
    CLI::App app("Convert unlabelled text into pretraining TFRecords + input_meta_data.json + prepare_report.json\n"
                 "(the equivalent of google-research/bert's create_pretraining_data.py).\n"
                 "Input: a plain-text file (one sentence or line per line, documents separated by blank lines),\n"
                 "a folder of .txt files, or the text column of a .csv/.tsv/.jsonl file (each row one document).",
                 "bert-workbench-cli prepare_pretraining");
    PretrainingFlags f;
    if (const auto done = parseCommandFlags(app, f, addPretrainingFlags, args, out, err))
        return *done;
    f.o.input_files = splitCommaList(f.inputs);
    PretrainingDataOptions &o = f.o;
    if (const int chosen = chooseTokenizer(f.tokenizer, {o.vocab_file, o.max_seq_length, o.do_lower_case}, out, err);
        chosen != kExitOk)
        return chosen;
    if (f.maxPredictions->count() == 0) // an explicit value is checked as given
        fitMaxPredictionsToSequence(f.o);

    const bool tty = &err == &std::cerr && ::isatty(STDERR_FILENO);
    StopToken stop;
    InterruptGuard guard(stop, "\nstopping; nothing is written (Ctrl+C again to quit at once)...\n");
    try {
        const PretrainingDataReport r = preparePretrainingData(f.o, prepareProgressPrinter(err), &stop);
        printReport(r, out, err);
        return kExitOk;
    } catch (const Error &) {
        if (stop.stopRequested())
            return reportCurrentException(err, "prepare_pretraining", kExitStopped);
        if (tty)
            err << "\n";
        return reportCurrentException(err, "prepare_pretraining", kExitInvalid);
    } catch (...) {
        if (tty)
            err << "\n";
        return reportCurrentException(err, "prepare_pretraining", kExitRuntime);
    }
}

} // namespace wb::cli
