// SPDX-License-Identifier: Apache-2.0
#include "core/distil/distillationdata.h"

#include "core/config/fieldproblem.h"
#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/config/trainingoptions.h"
#include "core/data/classifierdataset.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/engine/preflight.h"
#include "core/events/stoptoken.h"
#include "core/formats/runidentity.h"
#include "core/infer/textclassifier.h"
#include "core/label/labelpool.h"
#include "core/prepare/preparereport.h"
#include "core/util/digest.h"
#include "core/util/error.h"
#include "core/util/numbertext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <unordered_set>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kFormat = "bert-workbench distillation 1";

/// The teacher's run: its options as recorded, its meta data and its model.
struct Teacher
{
    TrainingOptions options;
    InputMetaData meta;
};

Teacher openTeacherRun(const DistillationRequest &r)
{
    if (r.teacher_dir.empty())
        throw Error("teacher_dir", "no teacher run was named",
                    "pass " + optionName("teacher_dir") + " with the model_dir of a finished fine-tuning run");
    if (!fs::is_directory(r.teacher_dir))
        throw Error("teacher_dir", "'" + r.teacher_dir + "' is not a folder",
                    "pass the model_dir of a finished fine-tuning run");
    if (!fs::exists(runConfigPath(r.teacher_dir)))
        throw Error("teacher_dir", "'" + r.teacher_dir + "' holds no training run (no run_config.json)",
                    "train the teacher first (" + commandName("train") + "), then distil from its model_dir");
    Teacher t;
    t.options.model_dir = r.teacher_dir;
    fillFromRecordedRun(t.options, true, true); // its lines speak of flags; the summary names the teacher
    t.meta = loadRunMetaData(t.options.input_meta_data_path);
    if (t.meta.isPretraining())
        throw Error("teacher_dir", "'" + r.teacher_dir + "' is a pretraining run; a teacher must be a fine-tuned classifier",
                    "fine-tune a classifier from it first and distil from that run");
    return t;
}

/// The key of a teacher pass: everything its outputs depend on.
std::string cacheKey(const Teacher &t, const TextClassifier &model, const std::vector<PoolText> &transfer,
                     const DistillationRequest &r)
{
    Digest d(DigestKind::Sha256);
    d.update(std::string(kFormat) + "\n");
    d.update(sha256FileHex(model.weightsPath()) + "\n");
    for (const std::string &pattern : {t.options.train_data_path, t.options.eval_data_path})
        for (const std::string &file : expandFilePattern(pattern))
            d.update(sha256FileHex(file) + "\n");
    d.update(std::to_string(t.meta.max_seq_length) + " " + std::to_string(r.seed) + " "
             + (model.doLowerCase() ? "lower" : "cased") + "\n");
    for (const PoolText &p : transfer) {
        d.update(p.text);
        d.update(std::string(1, '\0'));
    }
    return d.finishHex();
}

bool cacheMatches(const std::string &dir, const std::string &key, DistillationData &out)
{
    try {
        std::ifstream in(fs::path(dir) / "teacher.json");
        if (!in)
            return false;
        const nlohmann::json j = nlohmann::json::parse(in);
        if (j.value("format", "") != kFormat || j.value("key", "") != key)
            return false;
        for (const char *f : {"train.tf_record", "eval.tf_record", "input_meta_data.json"})
            if (!fs::is_regular_file(fs::path(dir) / f))
                return false;
        const nlohmann::json &c = j.at("counts");
        out.labelled = c.at("labelled").get<int64_t>();
        out.transfer = c.at("transfer").get<int64_t>();
        out.transfer_in_eval = c.at("transfer_in_eval").get<int64_t>();
        out.transfer_duplicates = c.at("transfer_duplicates").get<int64_t>();
        out.transfer_truncated = c.at("transfer_truncated").get<int64_t>();
        out.eval = c.at("eval").get<int64_t>();
        out.teacher_agreement_train = j.value("teacher_train_accuracy", 0.0);
        return true;
    } catch (const std::exception &) {
        return false; // unreadable: computed again
    }
}

std::string tokenKey(const int64_t *ids, int64_t n)
{
    return std::string(reinterpret_cast<const char *>(ids), size_t(n) * sizeof(int64_t));
}

/// Builds the records: runs the teacher, keeps its logits.
class RecordBuilder
{
public:
    RecordBuilder(const Teacher &t, const TextClassifier &model, const DistillationRequest &r, const StopToken &stop,
                  const std::function<void(const std::string &)> &progress)
        : m_t(t), m_model(model), m_r(r), m_stop(stop), m_progress(progress),
          m_width(t.meta.isRegression() ? 1 : t.meta.num_labels), m_seq(t.meta.max_seq_length)
    {
    }

    /// The teacher's records of `pattern` with its logits; their token keys go to `seen`.
    std::vector<ClassifierRecord> labelled(const std::string &pattern, std::unordered_set<std::string> &seen,
                                           double *accuracy)
    {
        DatasetOptions o;
        o.pattern = pattern;
        o.max_seq_length = m_seq;
        o.num_labels = m_t.meta.num_labels;
        o.float_labels = m_t.meta.label_type == "float";
        o.multi_label = m_t.meta.isMultiLabel();
        o.has_sample_weights = m_t.meta.has_sample_weights;
        o.batch_size = m_r.batch_size;
        o.training = false;
        ClassifierDataset data(o);
        std::vector<ClassifierRecord> out;
        int64_t right = 0;
        ClassifierBatch b;
        while (data.next(b)) {
            checkStop();
            const size_t first = out.size();
            for (int64_t k = 0; k < b.size; ++k) {
                ClassifierRecord rec;
                const size_t at = size_t(k * m_seq);
                rec.input_ids.assign(b.input_ids.begin() + long(at), b.input_ids.begin() + long(at + size_t(m_seq)));
                rec.input_mask.assign(b.input_mask.begin() + long(at), b.input_mask.begin() + long(at + size_t(m_seq)));
                rec.segment_ids.assign(b.segment_ids.begin() + long(at), b.segment_ids.begin() + long(at + size_t(m_seq)));
                if (o.float_labels) {
                    rec.float_label = true;
                    rec.label_value = b.label_values[size_t(k)];
                } else if (o.multi_label) {
                    for (int64_t j = 0; j < o.num_labels; ++j)
                        rec.label_set.push_back(int64_t(b.label_sets[size_t(k * o.num_labels + j)]));
                } else {
                    rec.label_id = b.label_ids[size_t(k)];
                }
                if (!b.weights.empty())
                    rec.weight = b.weights[size_t(k)];
                const int64_t len = std::accumulate(rec.input_mask.begin(), rec.input_mask.end(), int64_t(0));
                seen.insert(tokenKey(rec.input_ids.data(), len));
                out.push_back(std::move(rec));
            }
            teach(out, first);
            for (size_t k = first; k < out.size(); ++k)
                if (!o.float_labels && !o.multi_label)
                    right += argmax(out[k].teacher_logits) == out[k].label_id ? 1 : 0;
            report("records of " + pattern, int64_t(out.size()), 0);
        }
        if (accuracy)
            *accuracy = out.empty() ? 0.0 : double(right) / double(out.size());
        return out;
    }

    /// Transfer texts as records (the teacher's prediction as label, has_label 0).
    std::vector<ClassifierRecord> transfer(const std::vector<PoolText> &texts, const std::unordered_set<std::string> &eval,
                                           std::unordered_set<std::string> &seen, DistillationData &counts)
    {
        std::vector<ClassifierRecord> out;
        for (const PoolText &p : texts) {
            checkStop();
            const TokenizedText tok = m_model.tokenize(p.text);
            const std::string key = tokenKey(tok.input_ids.data(), int64_t(tok.input_ids.size()));
            if (eval.count(key)) {
                ++counts.transfer_in_eval;
                continue;
            }
            if (!seen.insert(key).second) {
                ++counts.transfer_duplicates;
                continue;
            }
            counts.transfer_truncated += tok.truncated ? 1 : 0;
            ClassifierRecord rec;
            rec.input_ids = tok.input_ids;
            rec.segment_ids = tok.segment_ids;
            rec.input_mask.assign(tok.input_ids.size(), 1);
            rec.input_ids.resize(size_t(m_seq), 0);
            rec.segment_ids.resize(size_t(m_seq), 0);
            rec.input_mask.resize(size_t(m_seq), 0);
            rec.has_label = 0;
            if (m_t.meta.has_sample_weights)
                rec.weight = 1.0f;
            out.push_back(std::move(rec));
        }
        // Batches of similar length: each is padded to its longest text only.
        std::vector<size_t> order(out.size());
        std::iota(order.begin(), order.end(), size_t(0));
        const auto length = [&out](size_t k) {
            return std::accumulate(out[k].input_mask.begin(), out[k].input_mask.end(), int64_t(0));
        };
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return length(a) < length(b); });
        std::vector<ClassifierRecord> sorted;
        sorted.reserve(out.size());
        for (size_t k : order)
            sorted.push_back(std::move(out[k]));
        for (size_t from = 0; from < sorted.size(); from += size_t(m_r.batch_size)) {
            checkStop();
            const size_t to = std::min(sorted.size(), from + size_t(m_r.batch_size));
            std::vector<ClassifierRecord> batch(std::make_move_iterator(sorted.begin() + long(from)),
                                                std::make_move_iterator(sorted.begin() + long(to)));
            teach(batch, 0);
            for (size_t k = 0; k < batch.size(); ++k) {
                ClassifierRecord &rec = batch[k];
                if (m_t.meta.isRegression()) {
                    rec.float_label = m_t.meta.label_type == "float";
                    rec.label_value = rec.teacher_logits[0];
                    rec.label_id = int64_t(std::lround(rec.teacher_logits[0]));
                } else if (m_t.meta.isMultiLabel()) {
                    for (float z : rec.teacher_logits)
                        rec.label_set.push_back(z >= 0 ? 1 : 0);
                } else {
                    rec.label_id = argmax(rec.teacher_logits);
                }
                sorted[from + k] = std::move(rec);
            }
            report("transfer texts labelled", int64_t(to), int64_t(sorted.size()));
        }
        counts.transfer = int64_t(sorted.size());
        return sorted;
    }

private:
    static int64_t argmax(const std::vector<float> &v)
    {
        return int64_t(std::max_element(v.begin(), v.end()) - v.begin());
    }

    void checkStop() const
    {
        if (m_stop.stopRequested())
            throw StoppedByUser("distil", "stopped before the teacher finished; nothing was written");
    }

    /// "teacher: 2000 of 4724 transfer texts labelled" (`total` 0: "teacher: 2000 records of <file>").
    void report(const std::string &what, int64_t done, int64_t total)
    {
        if (m_progress && (done - m_lastReported >= 1000 || done < m_lastReported)) {
            m_progress("teacher: " + std::to_string(done) + (total > 0 ? " of " + std::to_string(total) : std::string())
                       + " " + what);
            m_lastReported = done;
        }
    }

    /// The teacher's logits for records [first, end) of `recs`, in one forward pass padded to
    /// the longest of them.
    void teach(std::vector<ClassifierRecord> &recs, size_t first)
    {
        const size_t n = recs.size() - first;
        if (n == 0)
            return;
        int64_t len = 1;
        for (size_t k = first; k < recs.size(); ++k)
            len = std::max(len, std::accumulate(recs[k].input_mask.begin(), recs[k].input_mask.end(), int64_t(0)));
        std::vector<int64_t> ids, mask, segs;
        for (size_t k = first; k < recs.size(); ++k) {
            ids.insert(ids.end(), recs[k].input_ids.begin(), recs[k].input_ids.begin() + len);
            mask.insert(mask.end(), recs[k].input_mask.begin(), recs[k].input_mask.begin() + len);
            segs.insert(segs.end(), recs[k].segment_ids.begin(), recs[k].segment_ids.begin() + len);
        }
        std::vector<float> logits;
        m_model.probabilitiesOf(ids, mask, segs, int64_t(n), nullptr, &logits);
        for (size_t k = 0; k < n; ++k)
            recs[first + k].teacher_logits.assign(logits.begin() + long(k * size_t(m_width)),
                                                  logits.begin() + long((k + 1) * size_t(m_width)));
    }

    const Teacher &m_t;
    const TextClassifier &m_model;
    const DistillationRequest &m_r;
    const StopToken &m_stop;
    const std::function<void(const std::string &)> &m_progress;
    const int64_t m_width, m_seq;
    int64_t m_lastReported = 0;
};

void writeRecords(const std::string &path, const std::vector<ClassifierRecord> &records)
{
    TFRecordWriter w(path);
    for (const ClassifierRecord &r : records)
        w.write(encodeClassifierRecord(r));
    w.commit();
}

void copyBeside(const std::string &metaPath, const char *name, const fs::path &dir)
{
    const fs::path from = fs::path(metaPath).parent_path() / name;
    if (fs::is_regular_file(from))
        fs::copy_file(from, dir / name, fs::copy_options::overwrite_existing);
}

/// The teacher's model: its best (else latest) checkpoint, or the one --teacher_checkpoint names.
TextClassifier openTeacherModel(const DistillationRequest &r)
{
    ClassifierSource source;
    source.model_dir = r.teacher_dir;
    source.checkpoint_path = r.teacher_checkpoint;
    if (r.teacher_checkpoint.empty())
        return TextClassifier(source);
    try { // classify's words name its own flag; here the checkpoint is the teacher's
        return TextClassifier(source);
    } catch (const Error &e) {
        throw Error("teacher_checkpoint", "'" + r.teacher_checkpoint + "' of the teacher run '" + r.teacher_dir + "': " + e.what(),
                    "leave " + optionName("teacher_checkpoint") + " out (the teacher's best model, else its "
                    "latest checkpoint), or name best, latest or one of its ckpt-N");
    }
}

/// The transfer texts, read as prepare reads text; problems named on --transfer_data.
std::vector<PoolText> readTransferTexts(const DistillationRequest &r)
{
    if (r.transfer_data.empty())
        return {};
    PoolReadOptions read;
    read.text_column = r.transfer_column;
    read.email_body_only = r.email_body_only;
    read.max_texts = r.max_transfer_texts;
    try {
        return readLabelPool(r.transfer_data, read);
    } catch (const FieldError &e) {
        // prepare's column options are distil's --transfer_column; a pair's second column has none.
        FieldProblem p = e.problem();
        std::vector<OptionFix> fixes;
        for (OptionFix fix : p.fixes)
            if (fix.option == "text_a_column") {
                fix.option = "transfer_column";
                fixes.push_back(fix);
            }
        p.fixes = fixes;
        p.message = (e.field().empty() ? "" : e.field() + ": ") + p.message;
        throw FieldError("transfer_data", p);
    } catch (const Error &e) {
        throw Error("transfer_data", e.field().empty() ? std::string(e.what()) : e.field() + ": " + e.what(), e.hint());
    }
}

/// teacher.json: the cache key, where the outputs came from and the counts (docs/file-formats.md).
nlohmann::ordered_json teacherJson(const DistillationRequest &r, const DistillationData &out, const std::string &key)
{
    nlohmann::ordered_json j;
    j["format"] = kFormat;
    j["key"] = key;
    j["teacher_dir"] = fs::absolute(r.teacher_dir).lexically_normal().string();
    j["teacher_weights"] = // absolute, as teacher_dir: the file is read from other working folders
        out.teacher_weights.empty() ? std::string() : fs::absolute(out.teacher_weights).lexically_normal().string();
    j["teacher_weights_label"] = out.teacher_weights_label;
    j["teacher_train_accuracy"] = out.teacher_agreement_train;
    j["transfer_data"] = r.transfer_data;
    j["transfer_column"] = r.transfer_column;
    j["email_body_only"] = r.email_body_only;
    j["seed"] = r.seed;
    j["counts"] = {{"labelled", out.labelled},
                   {"transfer", out.transfer},
                   {"transfer_in_eval", out.transfer_in_eval},
                   {"transfer_duplicates", out.transfer_duplicates},
                   {"transfer_truncated", out.transfer_truncated},
                   {"eval", out.eval}};
    j["teacher_seconds"] = out.teacher_seconds;
    return j;
}

/// Writes the student's folder `dir` whole or not at all: built in "<dir>.partial", teacher.json
/// last, then renamed over any earlier one.
void writeStudentFolder(const fs::path &dir, const Teacher &t, bool doLowerCase,
                        const std::vector<ClassifierRecord> &train, const std::vector<ClassifierRecord> &evalRecords,
                        const nlohmann::ordered_json &teacher)
{
    const fs::path partial = dir.string() + ".partial";
    fs::remove_all(partial);
    fs::create_directories(partial);
    try {
        writeRecords((partial / "train.tf_record").string(), train);
        writeRecords((partial / "eval.tf_record").string(), evalRecords);
        InputMetaData meta = t.meta;
        meta.has_teacher_logits = true;
        meta.train_data_size = int64_t(train.size());
        meta.eval_data_size = int64_t(evalRecords.size());
        meta.do_lower_case = doLowerCase;
        writeFileAtomic((partial / "input_meta_data.json").string(), meta.toJson().dump(2) + "\n");
        copyBeside(t.options.input_meta_data_path, "labels.txt", partial);
        copyBeside(t.options.input_meta_data_path, "prepare_report.json", partial);
        writeFileAtomic((partial / "teacher.json").string(), teacher.dump(2) + "\n");
        fs::remove_all(dir);
        fs::rename(partial, dir);
    } catch (...) {
        std::error_code ignored;
        fs::remove_all(partial, ignored);
        throw;
    }
}

} // namespace

DistillationData prepareDistillationData(const DistillationRequest &r, const StopToken &stop,
                                         const std::function<void(const std::string &)> &progress)
{
    if (r.output_dir.empty())
        throw Error("model_dir", "distillation needs a folder for the student's data", "pass " + optionName("model_dir"));
    if (r.batch_size < 1)
        throw Error("batch_size", "must be positive, got " + std::to_string(r.batch_size));
    const Teacher t = openTeacherRun(r);
    const TextClassifier model = openTeacherModel(r);
    if (model.maxSeqLength() != t.meta.max_seq_length)
        throw Error("teacher_dir", "the teacher reads " + std::to_string(model.maxSeqLength())
                                       + " wordpieces but its records hold " + std::to_string(t.meta.max_seq_length));

    DistillationData out;
    out.teacher_weights = model.weightsPath();
    out.teacher_weights_label = model.weightsLabel();
    out.teacher_do_lower_case = model.doLowerCase() ? "true" : "false";
    out.teacher_vocab_file = t.options.vocab_file;
    if (out.teacher_vocab_file.empty())
        out.teacher_vocab_file = readPreparedTokenizer(t.options.input_meta_data_path).vocab_file;
    const fs::path dir(r.output_dir);
    out.input_meta_data_path = (dir / "input_meta_data.json").string();
    out.train_data_path = (dir / "train.tf_record").string();
    out.eval_data_path = (dir / "eval.tf_record").string();

    const std::vector<PoolText> texts = readTransferTexts(r);
    const std::string key = cacheKey(t, model, texts, r);
    if (cacheMatches(r.output_dir, key, out)) {
        out.cached = true;
        return out;
    }

    const auto started = std::chrono::steady_clock::now();
    RecordBuilder builder(t, model, r, stop, progress);
    std::unordered_set<std::string> evalKeys, seen;
    std::vector<ClassifierRecord> evalRecords = builder.labelled(t.options.eval_data_path, evalKeys, nullptr);
    std::vector<ClassifierRecord> train = builder.labelled(t.options.train_data_path, seen, &out.teacher_agreement_train);
    out.labelled = int64_t(train.size());
    out.eval = int64_t(evalRecords.size());
    std::vector<ClassifierRecord> moved = builder.transfer(texts, evalKeys, seen, out);
    train.insert(train.end(), std::make_move_iterator(moved.begin()), std::make_move_iterator(moved.end()));
    std::shuffle(train.begin(), train.end(), std::mt19937_64(r.seed));
    out.teacher_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    writeStudentFolder(dir, t, model.doLowerCase(), train, evalRecords, teacherJson(r, out, key));
    if (out.transfer_in_eval > 0)
        out.notes.push_back(std::to_string(out.transfer_in_eval)
                            + " transfer texts were left out: their wordpieces are those of an evaluation text, and "
                              "learning the teacher's answer for them would make the student's eval accuracy a "
                              "measure of memory");
    return out;
}

Diagnostics checkStudentOptions(const TrainingOptions &student, const DistillationRequest &request)
{
    Diagnostics diag;
    checkOptionValues(student, diag); // the ranges, distillation_alpha and _temperature among them
    Teacher t;
    try {
        t = openTeacherRun(request);
    } catch (const Error &e) {
        diag.error(e.field(), e.what(), e.hint());
        return diag;
    }
    // The student against the teacher's records: the records the teacher's pass writes have
    // their shapes, labels and wordpiece ids, so the strategy, the config and its vocab_size,
    // max_seq_length and the rest are checked now rather than after the pass.
    TrainingOptions proxy = student;
    proxy.train_data_path = t.options.train_data_path;
    proxy.eval_data_path = t.options.eval_data_path;
    proxy.input_meta_data_path = t.options.input_meta_data_path;
    proxy.distillation_alpha = 1; // the teacher's records carry no teacher outputs
    proxy.distillation_temperature = 1;
    DistillationData teacherFiles;
    teacherFiles.teacher_vocab_file = t.options.vocab_file;
    teacherFiles.teacher_do_lower_case = t.options.do_lower_case;
    try {
        const TrainingOptions withVocab = studentOptions(proxy, teacherFiles);
        proxy.vocab_file = withVocab.vocab_file;
        proxy.do_lower_case = withVocab.do_lower_case;
    } catch (const Error &e) {
        diag.error(e.field(), e.what(), e.hint());
    }
    // A pretrained student (--pretrained_model) is fetched and filled in by the run's plan,
    // after this: its config is checked then.
    if (!student.pretrained_model.empty())
        return diag;
    ValidationScope scope;
    scope.check_model_dir_run = false; // the student's own run is compared when it starts
    const ValidationResult checked = validateRun(proxy, scope);
    for (Diagnostic d : checked.diagnostics.items()) {
        if (d.severity != Severity::Error)
            continue;
        for (const std::string dataFlag : {"train_data_path", "eval_data_path", "input_meta_data_path"})
            if (d.field == dataFlag || d.field.rfind(dataFlag + ": ", 0) == 0) {
                // Not the user's flags: distil takes them from the teacher. "train_data_path: <file>"
                // keeps the file.
                const std::string file = d.field.size() > dataFlag.size() ? d.field.substr(dataFlag.size() + 2) + ": " : "";
                d.message = "the teacher's records (" + file + d.message + ")";
                d.field = "teacher_dir";
            }
        const bool repeat = std::any_of(diag.items().begin(), diag.items().end(), [&d](const Diagnostic &x) {
            return x.field == d.field && x.message == d.message;
        });
        if (!repeat)
            diag.add(d);
    }
    return diag;
}

TrainingOptions studentOptions(TrainingOptions o, const DistillationData &d)
{
    o.train_data_path = d.train_data_path;
    o.eval_data_path = d.eval_data_path;
    o.input_meta_data_path = d.input_meta_data_path;
    if (o.vocab_file.empty())
        o.vocab_file = d.teacher_vocab_file;
    else if (!d.teacher_vocab_file.empty() && sha256FileHex(o.vocab_file) != sha256FileHex(d.teacher_vocab_file))
        throw Error("vocab_file",
                    "the student's vocabulary '" + o.vocab_file + "' is not the teacher's ('" + d.teacher_vocab_file
                        + "'): the records hold the teacher's wordpiece ids",
                    "leave " + optionName("vocab_file") + " empty (the teacher's is used), or distil into a student "
                    "of the same vocabulary");
    if (o.do_lower_case.empty())
        o.do_lower_case = d.teacher_do_lower_case;
    return o;
}

std::vector<std::string> distillationSummary(const DistillationData &d, const std::string &dataDir)
{
    const auto fixed1 = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", v);
        return std::string(text);
    };
    std::vector<std::string> lines;
    for (const std::string &note : d.notes)
        lines.push_back("note: " + note);
    lines.push_back("teacher: " + d.teacher_weights
                    + (d.teacher_weights_label.empty() ? "" : " (" + d.teacher_weights_label + ")"));
    std::string data = "student's data: " + groupedDigits(d.labelled) + " labelled texts";
    if (d.teacher_agreement_train > 0)
        data += " (the teacher gets " + fixed1(100.0 * d.teacher_agreement_train) + " % of them right)";
    data += ", " + groupedDigits(d.transfer) + " transfer texts labelled by the teacher";
    if (d.transfer_in_eval + d.transfer_duplicates > 0)
        data += " (left out: " + groupedDigits(d.transfer_in_eval) + " in the eval set, "
                + groupedDigits(d.transfer_duplicates) + " repeated)";
    lines.push_back(data + "; evaluated on the teacher's " + groupedDigits(d.eval) + " eval texts");
    lines.push_back(d.cached ? "teacher's outputs: reused from " + dataDir + " (teacher.json matches the teacher and the texts)"
                             : "teacher's outputs: computed in " + fixed1(d.teacher_seconds) + " s, kept in " + dataDir);
    return lines;
}

} // namespace wb
