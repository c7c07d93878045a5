// SPDX-License-Identifier: Apache-2.0
// prepareData(): read (preparesource.h) → labels → tokenize in one parallel-for → drop empty
// texts → shuffle and split → report → write everything atomically. The equivalent of
// tensorflow/models official/nlp/data/create_finetuning_data.py for classification.
#include "core/prepare/dataprep.h"

#include "core/config/fieldproblem.h"

#include "core/prepare/emailbody.h"
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/config/optionwords.h"
#include "core/prepare/bagofwords.h"
#include "core/prepare/badrows.h"
#include "core/tokenize/basictokenizer.h"
#include "core/data/examplecodec.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/prepare/labelintext.h"
#include "core/data/parallelfor.h"
#include "core/prepare/preparecorrections.h"
#include "core/prepare/preparefeatures.h"
#include "core/prepare/preparemultilabel.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/preparesplit.h"
#include "core/data/tfrecordwriter.h"
#include "core/events/trainingobserver.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <unordered_map>

namespace wb {

namespace fs = std::filesystem;
using prep::Converted;
using prep::Job;
using prep::RawExample;
using prep::Sorted;
using prep::Split;

namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

void fnvMix(uint64_t &h, std::string_view s)
{
    for (unsigned char c : s) {
        h ^= c;
        h *= kFnvPrime;
    }
}

// The texts as the model reads them, hashed (64-bit FNV-1a): BasicTokenizer's tokens
// (core/tokenize/basictokenizer.h), so copies that differ only in what the tokenizer normalises
// are one text: white space and control characters, spaces around punctuation, and when
// uncased letter case, accents and the Unicode normal form (NFD). At most `cap` tokens of
// each text count (the model sees far fewer). Tokens hold no space, and \x1f between the
// texts is a control character the tokenizer drops, so the joined form is unambiguous.
uint64_t normalizedTextHash(const BasicTokenizer &basic, std::string_view a, std::string_view b, size_t cap,
                            std::vector<std::string> &scratch)
{
    uint64_t h = kFnvOffset;
    for (const std::string_view text : {a, b}) {
        scratch.clear();
        basic.tokenize(text, scratch, cap);
        for (const std::string &t : scratch) {
            fnvMix(h, t);
            fnvMix(h, " ");
        }
        fnvMix(h, "\x1f");
    }
    return h;
}

std::string defaultPath(const std::string &given, const std::string &dir, const char *name)
{
    if (!given.empty())
        return given;
    if (dir.empty())
        return {};
    return (fs::path(dir) / name).string();
}

// The ranges of prepare's numeric options: its row of the option table (checkNumericRanges,
// core/config/optiontable.h, which words them as the training options' ranges).
std::vector<NumericOption> prepareOptionRanges(const PrepareOptions &o)
{
    return {{"max_seq_length", double(o.max_seq_length), 3, 100000, "128"},
            {"eval_fraction", o.eval_fraction, 0, 1, "0.1"},
            {"num_threads", double(o.num_threads), 1, 1024, "2"},
            {"max_input_chars_per_word", double(o.max_input_chars_per_word), 1, 100000, "200"}};
}

void checkOptions(const PrepareOptions &o)
{
    if (o.input_data_dir.empty())
        throw Error("input_data_dir", "no input data was given", PassOption("input_data_dir", "<folder or file>") + ".");
    if (!fs::exists(o.input_data_dir))
        throw Error("input_data_dir", "'" + o.input_data_dir + "' does not exist", "Check the path.");
    if (o.vocab_file.empty())
        // create_finetuning_data.py's own message on the command line; the window shows the field
        // ("“Vocabulary”: no vocabulary was chosen …").
        throw Error("vocab_file",
                    optionWording() == OptionWording::Window
                        ? "no vocabulary was chosen: choose the model's WordPiece vocab.txt."
                        : "FLAG vocab_file for word-piece tokenizer is not specified.",
                    PassOption("vocab_file", "vocab.txt") + " (the vocab of the model you will fine-tune).");
    Diagnostics diag;
    if (o.max_seq_length < 3 && o.max_seq_length >= 0)
        diag.error("max_seq_length", "must be at least 3 (room for [CLS] and [SEP]), got " + std::to_string(o.max_seq_length),
                   "the default is 128");
    if (o.eval_fraction == 1.0)
        diag.error("eval_fraction", "eval_fraction is 1; it must be below 1 (the share of the training examples "
                                    "split off as the eval set)",
                   "the default is 0.1; 0 means no eval set unless the input has a dev file");
    if (o.mnli_type != "matched" && o.mnli_type != "mismatched")
        diag.error("mnli_type", "Invalid `mnli_type`: " + o.mnli_type, "Use matched or mismatched.");
    checkNumericRanges(prepareOptionRanges(o), diag);
    prep::checkMultiLabelOptions(o);
    for (const Diagnostic &d : diag.items())
        if (d.severity == Severity::Error)
            throw Error(d.field, d.message, d.hint);
}

void readSource(const PrepareOptions &o, bool wantTest, prep::SourceSplits &src, prep::ReadNotes &notes)
{
    std::string task = o.classification_task_name;
    for (char &c : task)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (task == "folders" || task == "folder") {
        prep::readFolders(o, src, notes);
        prep::mergeFolderLabels(o, src, notes);
    }
    else if (task == "tsv" || task == "csv")
        prep::readTable(o, task == "csv" ? TextFileFormat::Csv : TextFileFormat::Tsv, src, notes);
    else if (task == "jsonl" || task == "json")
        prep::readTable(o, task == "json" ? TextFileFormat::Json : TextFileFormat::JsonLines, src, notes);
    else if (prep::isGlueTask(o.classification_task_name)) {
        if (o.problem_type == prep::kMultiLabelProblem)
            throw Error("problem_type", "the GLUE task " + o.classification_task_name + " is not multi-label",
                        "Leave out " + optionName("problem_type") + ".");
        prep::readGlue(o, wantTest, src, notes);
    }
    else {
        std::string names;
        for (const auto &n : prepareTaskNames())
            names += (names.empty() ? "" : ", ") + n;
        throw Error("classification_task_name", "Task not found: " + o.classification_task_name,
                    "Use one of " + names + ".");
    }
}

// The text as prepare keeps it: the e-mail body and/or without quoted replies (options).
// `emptyReason` receives why an e-mail body came out empty (an image-only mail), else stays.
std::string reduceText(const PrepareOptions &o, std::string text, std::string &emptyReason)
{
    if (o.email_body_only) {
        EmailBodyInfo info;
        std::string body = emailBody(text, o.strip_quoted_replies, &info);
        if (emptyReason.empty()) // used only when the text turns out empty after the tokenizer's clean-up
            emptyReason = emptyBodyReason(info);
        return body;
    }
    if (o.strip_quoted_replies)
        return stripQuotedReplies(text);
    return text;
}

// Tokenizes every job (folders: reads its file first) and encodes its record.
void convertAll(const PrepareOptions &o, const prep::SourceSplits &src, std::vector<Job> &jobs,
                const std::function<bool()> &stopRequested, const PrepareProgress &progress)
{
    const FullTokenizer tok(o.vocab_file, o.do_lower_case, o.max_input_chars_per_word);
    const int32_t cls = tok.vocab().id("[CLS]");
    const int32_t sep = tok.vocab().id("[SEP]");
    const size_t cap = size_t(kTokenCountCap * o.max_seq_length);
    const bool pair = src.pair;
    const BasicTokenizer basic(o.do_lower_case);
    const prep::LabelNames leakNames(src.labels);
    auto body = [&](size_t i) {
        Job &job = jobs[i];
        RawExample &ex = *job.ex;
        Converted &c = job.out;
        if (!ex.path.empty()) {
            std::string bytes = prep::readWholeFile(ex.path);
            if (bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) {
                bytes.erase(0, 3);
                c.bom = true;
            }
            ex.text_a = prep::toUtf8(reduceText(o, std::move(bytes), c.empty_reason), c.latin1);
            c.nul = ex.text_a.find('\0') != std::string::npos;
        } else if (o.email_body_only || o.strip_quoted_replies) {
            bool latin1a = false, latin1b = false;
            ex.text_a = prep::toUtf8(reduceText(o, std::move(ex.text_a), c.empty_reason), latin1a);
            ex.text_b = prep::toUtf8(reduceText(o, std::move(ex.text_b), c.empty_reason), latin1b);
            c.latin1 = latin1a || latin1b;
        }
        if (!src.regression && !src.labels.empty())
            prep::scanForLabels(leakNames, ex.text_a, ex.text_b, size_t(o.max_seq_length), c);
        ExampleFeatures f;
        buildExampleFeatures(tok, ex.text_a, ex.text_b, pair, o.max_seq_length, cls, sep, cap, f);
        thread_local std::vector<std::string> scratch;
        c.text_hash = normalizedTextHash(basic, ex.text_a, ex.text_b, cap, scratch);
        c.tokens = f.tokens_needed;
        c.truncated = f.truncated;
        c.capped = f.capped;
        c.empty = f.empty_a || f.empty_b;
        if (!ex.path.empty())
            std::string().swap(ex.text_a);
        ClassifierRecord r;
        r.input_ids = std::move(f.input_ids);
        r.input_mask = std::move(f.input_mask);
        r.segment_ids = std::move(f.segment_ids);
        if (src.regression) {
            r.float_label = true;
            r.label_value = ex.value;
        } else if (src.multi_label) { // multi-hot, label id order (test rows: all zeros)
            r.label_set.assign(src.labels.size(), 0);
            for (const int64_t id : ex.label_ids)
                r.label_set[size_t(id)] = 1;
        } else {
            r.label_id = std::max<int64_t>(0, ex.label_id);
        }
        c.payload = encodeClassifierRecord(r);
    };
    const size_t n = jobs.size();
    const bool complete = parallelFor(n, o.num_threads, body, stopRequested, [&](size_t done) {
        if (progress)
            progress(0.05 + 0.85 * double(done) / double(std::max<size_t>(1, n)), "tokenizing");
    });
    if (!complete)
        throw Error("prepare", "cancelled", "Nothing was written.");
}

// Duplicates within train and texts shared by train and eval, compared as the model reads
// them (normalizedTextHash); each pair named by the file:line of both copies.
void findDuplicates(std::vector<Job *> train, const std::vector<Job *> &eval, PrepareReport &rep)
{
    std::sort(train.begin(), train.end()); // jobs are stored in file order: name the earlier row first
    std::unordered_map<uint64_t, const Job *> firstTrain;
    for (const Job *j : train) {
        const auto [it, added] = firstTrain.emplace(j->out.text_hash, j);
        if (added)
            continue;
        ++rep.train_duplicates;
        if (it->second->ex->label_id != j->ex->label_id || it->second->ex->label_ids != j->ex->label_ids)
            ++rep.conflicting_duplicates;
        if (rep.duplicate_examples.size() < kReportedPairs)
            rep.duplicate_examples.push_back({it->second->ex->where, j->ex->where});
    }
    for (const Job *j : eval) {
        const auto it = firstTrain.find(j->out.text_hash);
        if (it == firstTrain.end())
            continue;
        ++rep.train_eval_overlap;
        if (rep.overlap_examples.size() < kReportedPairs)
            rep.overlap_examples.push_back({it->second->ex->where, j->ex->where});
    }
    auto pairText = [](const std::vector<TextPair> &v) {
        return v.empty() ? std::string() : " (e.g. " + v.front().first + " and " + v.front().second + ")";
    };
    if (rep.train_duplicates)
        rep.warnings.push_back(std::to_string(rep.train_duplicates) + " training example(s) repeat an earlier text"
                               + pairText(rep.duplicate_examples)
                               + (rep.conflicting_duplicates ? "; " + std::to_string(rep.conflicting_duplicates)
                                                                   + " of them with a different label"
                                                             : std::string()));
    if (rep.train_eval_overlap)
        rep.warnings.push_back(std::to_string(rep.train_eval_overlap)
                               + " evaluation example(s) have a text that is also in the training set"
                               + pairText(rep.overlap_examples) + "; eval accuracy will look better than it is");
}

std::string metaJson(const PrepareOptions &o, const prep::SourceSplits &src, const PrepareReport &rep, bool eval,
                     bool test)
{
    nlohmann::ordered_json meta;
    meta["processor_type"] = src.processor;
    meta["train_data_size"] = rep.train_examples;
    meta["max_seq_length"] = o.max_seq_length;
    if (test)
        meta["test_data_size"] = rep.test_examples;
    if (src.regression) {
        meta["task_type"] = "bert_regression";
        meta["label_type"] = "float";
    } else {
        meta["task_type"] = "bert_classification";
        meta["num_labels"] = int64_t(src.labels.size());
        if (src.multi_label) // transformers' PretrainedConfig.problem_type; label_ids multi-hot
        {
            meta["problem_type"] = prep::kMultiLabelProblem;
            meta["label_type"] = "int";
        }
    }
    if (eval)
        meta["eval_data_size"] = rep.eval_examples;
    // Our key after create_finetuning_data.py's: the casing travels with the data to the run,
    // its checkpoints and its export (run_classifier reads only the keys it knows).
    meta["do_lower_case"] = o.do_lower_case;
    return meta.dump(4, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The output paths of `o` (defaults under output_dir) and the tokenization recorded in the report.
void setOutputs(const PrepareOptions &o, PrepareReport &rep)
{
    rep.train_path = defaultPath(o.train_data_output_path, o.output_dir, "train.tf_record");
    rep.eval_path = defaultPath(o.eval_data_output_path, o.output_dir, "eval.tf_record");
    rep.test_path = o.test_data_output_path.empty() && o.write_test ? defaultPath({}, o.output_dir, "test.tf_record")
                                                                    : o.test_data_output_path;
    rep.meta_path = defaultPath(o.meta_data_file_path, o.output_dir, "input_meta_data.json");
    if (rep.meta_path.empty())
        throw Error("meta_data_file_path", "no meta data output was given",
                    PassOption("output_dir", "<folder>") + " (all outputs under default names) or "
                        + optionName("meta_data_file_path") + ".");
    if (rep.train_path.empty() && rep.eval_path.empty())
        throw Error("train_data_output_path", "neither a train nor an eval output was given",
                    PassOption("output_dir", "<folder>") + " or " + optionName("train_data_output_path") + " / "
                        + optionName("eval_data_output_path") + ".");
    const fs::path metaDir = fs::path(rep.meta_path).parent_path();
    rep.labels_path = (metaDir / "labels.txt").string();
    rep.report_path = (metaDir / "prepare_report.json").string();
    rep.split_path = (metaDir / "split.jsonl").string();
    rep.vocab_file = fs::absolute(o.vocab_file).lexically_normal().string();
    rep.vocab_sha256 = sha256Hex(prep::readWholeFile(o.vocab_file));
    rep.do_lower_case = o.do_lower_case;
    rep.max_seq_length = o.max_seq_length;
}

// One job per example to convert: train and eval without the skipped rows, every test row.
std::vector<Job> makeJobs(const PrepareOptions &o, prep::SourceSplits &src)
{
    std::vector<Job> jobs;
    for (auto &e : src.train)
        if (!e.skip)
            jobs.push_back({&e, Split::Train, {}});
    for (auto &e : src.eval)
        if (!e.skip)
            jobs.push_back({&e, Split::Eval, {}});
    for (auto &e : src.test)
        jobs.push_back({&e, Split::Test, {}});
    if (jobs.empty())
        throw Error(o.input_data_dir, "the input holds no training examples", "Check the folder or file.");
    return jobs;
}

// Sorts the converted jobs into their splits; empty texts are skipped (train/eval) or kept
// with a warning (test: its order is the output's). Token statistics go to `rep`.
Sorted sortConverted(const PrepareOptions &o, const prep::SourceSplits &src, std::vector<Job> &jobs,
                     prep::ReadNotes &notes, PrepareReport &rep)
{
    Sorted out;
    out.latin1 = notes.latin1;
    out.nul = notes.nul;
    int64_t tokenSum = 0, counted = 0;
    for (Job &j : jobs) {
        rep.texts_with_bom += j.out.bom ? 1 : 0;
        if (j.out.latin1)
            out.latin1.push_back(j.ex->where);
        if (j.out.nul)
            out.nul.push_back(j.ex->where);
        if (j.out.empty) {
            ++rep.empty_texts;
            if (j.split != Split::Test) {
                notes.skipped.push_back({j.ex->where, !j.out.empty_reason.empty()
                                                          ? j.out.empty_reason
                                                          : "the text is empty after the tokenizer's clean-up "
                                                            "(only spaces, control characters or nothing)"});
                continue;
            }
            out.emptyTest.push_back(j.ex->where);
        }
        tokenSum += j.out.tokens;
        ++counted;
        rep.max_tokens = std::max(rep.max_tokens, j.out.tokens);
        rep.max_tokens_capped = rep.max_tokens_capped || j.out.capped;
        (j.split == Split::Train ? out.train : j.split == Split::Eval ? out.eval : out.test).push_back(&j);
    }
    if (out.train.empty() && out.eval.empty()) {
        const std::string message = "every text is empty after the tokenizer's clean-up (" + std::to_string(rep.empty_texts)
                                    + " rows: only spaces, control characters or nothing)";
        if (src.text_a_column.empty())
            throw Error(o.input_data_dir, message, "Check the input files: do they hold the texts?");
        // Read from the wrong column: the column options fix it (each front-end words how).
        throw FieldError(o.input_data_dir,
                         {message,
                          "the text was read from column '" + src.text_a_column + "'"
                              + (src.text_b_column.empty() ? std::string() : " and '" + src.text_b_column + "'"),
                          {{"text_a_column", "NAME", ""}, {"text_b_column", "NAME", "for sentence pairs"}}, "", ""});
    }
    if (out.train.empty() && !rep.train_path.empty())
        throw Error(o.input_data_dir, "no training example is left after skipping bad rows and empty texts",
                    "See the rows named above; fix them or check the column options.");
    rep.mean_tokens = counted ? double(tokenSum) / double(counted) : 0.0;
    return out;
}

// The bag-of-words baseline on the split just made, from the records as they will be written
// (the wordpieces the model sees). Classification with a train split only.
void fitBaseline(const PrepareOptions &o, const prep::SourceSplits &src, const Sorted &d, PrepareReport &rep,
                 const StopToken *stop)
{
    if (!o.bag_of_words_baseline || d.train.empty())
        return;
    if (src.regression) {
        BagOfWordsBaseline b;
        b.error = "the task is a regression (" + src.processor + "); the bag-of-words baseline is a classifier";
        rep.bag_of_words = b;
        return;
    }
    RecordSpec spec;
    spec.max_seq_length = o.max_seq_length;
    spec.num_labels = int64_t(src.labels.size());
    spec.multi_label = src.multi_label;
    auto documents = [&spec](const std::vector<Job *> &jobs) {
        std::vector<BagOfWordsDocument> docs;
        docs.reserve(jobs.size());
        ClassifierRecord rec;
        for (const Job *j : jobs) {
            decodeClassifierRecord(j->out.payload, spec, rec);
            docs.push_back({bagOfWordsTerms(rec), rec.label_id, rec.label_set});
        }
        return docs;
    };
    rep.bag_of_words = src.multi_label
                           ? fitMultiLabelBagOfWordsBaseline(documents(d.train), documents(d.eval), spec.num_labels, {}, stop)
                           : fitBagOfWordsBaseline(documents(d.train), documents(d.eval), spec.num_labels, {}, stop);
}

// Writes every file to a temporary name first and commits them only when all are complete.
void writeOutputs(const PrepareOptions &o, const prep::SourceSplits &src, Sorted &d, PrepareReport &rep,
                  const std::function<bool()> &stopRequested, std::chrono::steady_clock::time_point t0)
{
    std::unique_ptr<TFRecordWriter> wTrain, wEval, wTest;
    if (!rep.train_path.empty())
        wTrain = std::make_unique<TFRecordWriter>(rep.train_path);
    if (!rep.eval_path.empty())
        wEval = std::make_unique<TFRecordWriter>(rep.eval_path);
    if (!rep.test_path.empty())
        wTest = std::make_unique<TFRecordWriter>(rep.test_path);
    auto writeAll = [](TFRecordWriter *w, std::vector<Job *> &v) {
        if (!w)
            return;
        for (Job *j : v) {
            w->write(j->out.payload);
            std::string().swap(j->out.payload);
        }
    };
    writeAll(wTrain.get(), d.train);
    writeAll(wEval.get(), d.eval);
    writeAll(wTest.get(), d.test);
    rep.train_examples = wTrain ? wTrain->count() : 0;
    rep.eval_examples = wEval ? wEval->count() : 0;
    rep.test_examples = wTest ? wTest->count() : 0;
    if (stopRequested())
        throw Error("prepare", "cancelled", "Nothing was written.");

    rep.processor_type = src.processor;
    rep.text_a_column = src.text_a_column;
    rep.text_b_column = src.text_b_column;
    rep.label_column = src.label_column;
    rep.text_columns_recognised = src.text_columns_recognised;
    rep.label_column_recognised = src.label_column_recognised;
    rep.labels = src.labels;
    rep.regression = src.regression;
    if (!src.regression)
        rep.problem_type = src.multi_label ? prep::kMultiLabelProblem : prep::kSingleLabelProblem;
    std::string labelsText;
    for (const auto &l : src.labels)
        labelsText += l + "\n";
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (TFRecordWriter *w : {wTrain.get(), wEval.get(), wTest.get()})
        if (w)
            w->commit();
    rep.email_body_only = o.email_body_only;
    rep.strip_quoted_replies = o.strip_quoted_replies;
    writeFileAtomic(rep.split_path, prep::splitJsonl(o, src, d, rep));
    if (!src.regression)
        writeFileAtomic(rep.labels_path, labelsText);
    else
        rep.labels_path.clear();
    writeFileAtomic(rep.report_path, prepareReportJson(rep));
    writeFileAtomic(rep.meta_path, metaJson(o, src, rep, bool(wEval), bool(wTest)));
}

PrepareReport run(const PrepareOptions &o, const PrepareProgress &progress, const std::function<bool()> &stopRequested,
                  const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto report = [&](double f, const std::string &stage) {
        if (progress)
            progress(std::clamp(f, 0.0, 1.0), stage);
    };
    auto throwIfStopped = [&] {
        if (stopRequested())
            throw Error("prepare", "cancelled", "Nothing was written.");
    };
    checkOptions(o);
    PrepareReport rep;
    setOutputs(o, rep);

    report(0.0, "reading");
    prep::SourceSplits src;
    prep::ReadNotes notes;
    readSource(o, !rep.test_path.empty(), src, notes);
    if (!rep.test_path.empty() && !src.hasTest)
        throw Error("test_data_output_path", "the source has no test set (test.tsv / test.csv)",
                    "Leave out the test output, or add a test file.");
    prep::throwBadRows(notes); // the rows' own problems first: the labels are decided from good rows
    prep::assignLabels(o, src, notes);
    prep::throwBadRows(notes);
    prep::applyCorrections(o, src, notes, rep); // in memory, before the split counts the labels
    throwIfStopped();

    std::vector<Job> jobs = makeJobs(o, src);
    report(0.05, "tokenizing");
    convertAll(o, src, jobs, stopRequested, progress);
    throwIfStopped();

    Sorted sorted = sortConverted(o, src, jobs, notes, rep);
    prep::splitAndCount(o, src, sorted, rep);
    prep::warnCorrectedEvalRows(sorted, rep);
    findDuplicates(sorted.train, sorted.eval, rep);
    prep::findLabelsInText(src, sorted, rep);
    prep::addWarnings(src, sorted, notes, rep);
    throwIfStopped();

    report(0.9, "baseline");
    fitBaseline(o, src, sorted, rep, stop);
    throwIfStopped();

    report(0.95, "writing");
    writeOutputs(o, src, sorted, rep, stopRequested, t0);
    report(1.0, "done");
    return rep;
}

} // namespace

std::vector<std::string> prepareTaskNames()
{
    return {"folders", "tsv", "csv", "jsonl", "json", "COLA", "SST-2", "MRPC", "QQP", "STS-B", "MNLI", "QNLI", "RTE", "WNLI"};
}

PrepareReport prepareData(const PrepareOptions &o, const PrepareProgress &progress, const StopToken *stop)
{
    return run(o, progress, [stop] { return stop && stop->stopRequested(); }, stop);
}

} // namespace wb
