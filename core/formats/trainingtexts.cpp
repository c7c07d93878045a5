// SPDX-License-Identifier: Apache-2.0
#include "core/formats/trainingtexts.h"

#include "core/data/classifierdataset.h"
#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/events/stoptoken.h"
#include "core/formats/evalexamples.h"
#include "core/formats/runidentity.h"
#include "core/prepare/preparereport.h"
#include "core/tokenize/vocab.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

namespace wb {

namespace {

/// run_config.json's "tokenizer"."vocab_file" (how the run's data was really read); "" when absent.
std::string recordedVocabFile(const std::string &modelDir)
{
    Diagnostics diag;
    const auto identity = readRunConfig(modelDir, diag);
    if (!identity)
        return {};
    const auto &j = identity->json;
    const auto t = j.find("tokenizer");
    if (t == j.end() || !t->is_object())
        return {};
    const auto v = t->find("vocab_file");
    return v != t->end() && v->is_string() ? v->get<std::string>() : std::string();
}

} // namespace

TrainingTextSource trainingTextSource(TrainingOptions o)
{
    TrainingTextSource s;
    try {
        fillFromRecordedRun(o, true);
    } catch (...) {
        s.notes.push_back(describeCurrentException("run_config.json").line());
    }
    try {
        if (o.vocab_file.empty() && !o.model_dir.empty())
            o.vocab_file = recordedVocabFile(o.model_dir);
        if (o.vocab_file.empty() && !o.input_meta_data_path.empty())
            o.vocab_file = readPreparedTokenizer(o.input_meta_data_path).vocab_file;
    } catch (...) {
        s.notes.push_back(describeCurrentException("vocab_file").line());
    }
    if (o.vocab_file.empty())
        s.notes.push_back("no vocabulary is known for the training records (neither the run's vocab_file, its "
                          "run_config.json nor prepare_report.json names one): their texts cannot be shown");
    s.train_data_path = o.train_data_path;
    s.vocab_file = o.vocab_file;
    s.input_meta_data_path = o.input_meta_data_path;
    return s;
}

TrainingTexts readTrainingTexts(const TrainingTextSource &source, int64_t maxRecords, const StopToken *stop)
{
    TrainingTexts out;
    if (maxRecords <= 0)
        return out;
    const Vocab vocab = Vocab::load(source.vocab_file);
    std::string payload;
    std::vector<std::string> tokens;
    for (const std::string &file : expandFilePattern(source.train_data_path)) {
        TFRecordReader reader(file);
        while (reader.read(payload)) {
            if (int64_t(out.texts.size()) >= maxRecords) {
                out.capped = true;
                return out;
            }
            if (stop && stop->stopRequested())
                return out;
            tensorflow::Example example;
            try {
                example = parseExample(payload);
            } catch (const Error &e) {
                throw Error(reader.location(), e.what(), e.hint());
            }
            const tensorflow::Feature *ids = findFeature(example, "input_ids");
            if (!ids || ids->kind_case() != tensorflow::Feature::kInt64List)
                throw Error(reader.location(), "the record has no int64_list feature 'input_ids' (it has "
                                                   + describeFeatures(example) + ")",
                            "train_data_path must name the classifier records prepare wrote");
            tokens.clear();
            for (const int64_t id : ids->int64_list().value())
                tokens.push_back(id >= 0 && id < vocab.size() ? vocab.token(int32_t(id)) : std::string("[UNK]"));
            TrainingText t;
            t.text = detokenizeWordpieces(tokens, &t.text_b);
            out.texts.push_back(std::move(t));
        }
    }
    return out;
}

} // namespace wb
