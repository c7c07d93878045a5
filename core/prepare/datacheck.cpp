// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/datacheck.h"

#include "core/config/optionwords.h"
#include "core/data/classifierdataset.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

namespace wb {

namespace {

constexpr int64_t kParsedRecords = 1000; // records fully parsed per data path; the rest: framing only

void checkOne(const std::string &flag, const std::string &pattern, const RecordSpec &spec,
              std::optional<int64_t> expected, const std::string &expectedKey, Diagnostics &diag)
{
    std::vector<std::string> files;
    try {
        files = expandFilePattern(pattern);
    } catch (const Error &e) {
        diag.error(flag + ": " + e.field(), e.what(), e.hint());
        return;
    }
    int64_t count = 0;
    ClassifierRecord rec;
    std::string payload;
    for (const std::string &file : files) {
        try {
            TFRecordReader reader(file);
            while (true) {
                const bool parse = count < kParsedRecords;
                if (!(parse ? reader.read(payload) : reader.skip(false)))
                    break;
                ++count;
                if (parse)
                    decodeClassifierRecordAt(reader, payload, spec, rec);
            }
        } catch (const Error &e) { // a file's, or a record's (its field the record's location)
            diag.error(flag + ": " + e.field(), e.what(), e.hint());
            return;
        }
    }
    if (count == 0) {
        diag.error(flag + ": " + pattern, "the data files hold no records",
                   "Run " + commandName("prepare") + " (or create_finetuning_data.py) to write the records.");
        return;
    }
    if (expected && *expected != count)
        diag.warning(flag + ": " + pattern,
                     "input_meta_data.json says " + expectedKey + " = " + std::to_string(*expected) + " but the files hold "
                         + std::to_string(count) + " records",
                     "The step counts are computed from " + expectedKey
                         + "; use the meta data written together with these records.");
}

} // namespace

void checkDataFiles(const TrainingOptions &options, const BertConfig &config, const InputMetaData &meta,
                    Diagnostics &diag)
{
    RecordSpec spec;
    spec.max_seq_length = meta.max_seq_length;
    spec.float_labels = meta.label_type == "float";
    spec.multi_label = meta.isMultiLabel();
    spec.num_labels = meta.isRegression() ? 1 : meta.num_labels;
    spec.has_sample_weights = meta.has_sample_weights;
    spec.vocab_size = config.vocab_size;
    spec.type_vocab_size = config.type_vocab_size;
    if (spec.max_seq_length <= 0)
        return; // reported by the meta-data check
    const bool training = options.mode == "train_and_eval" || options.mode == "train";
    if (training && !options.train_data_path.empty())
        checkOne("train_data_path", options.train_data_path, spec, meta.train_data_size, "train_data_size", diag);
    if (!options.eval_data_path.empty() && options.mode != "export_only")
        checkOne("eval_data_path", options.eval_data_path, spec, training ? meta.eval_data_size : std::nullopt,
                 "eval_data_size", diag);
}

} // namespace wb
