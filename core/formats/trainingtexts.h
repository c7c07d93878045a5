// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

class StopToken;

/// Where the texts of a run's training records come from (the data map's hover, issue 46;
/// docs/data-map.md): the training TFRecords and the vocabulary that turns their input_ids
/// back into wordpieces.
struct TrainingTextSource
{
    std::string train_data_path;      ///< file, glob or comma-separated list (as --train_data_path)
    std::string vocab_file;           ///< vocab.txt; empty: unknown (no texts; `notes` says why)
    std::string input_meta_data_path; ///< the run's input_meta_data.json (label names, problem type)
    std::vector<std::string> notes;   ///< why something could not be found, one line each
};

/// Resolves the source of `o`'s training texts: the options as given, their unset
/// train_data_path, input_meta_data_path and vocab_file filled from model_dir/run_config.json
/// (fillFromRecordedRun), an unset vocab_file then from run_config.json's "tokenizer"
/// (how the data really was read), else from prepare_report.json beside the meta data.
/// Never throws: a problem becomes a line in `notes`. Reads small files; any thread.
TrainingTextSource trainingTextSource(TrainingOptions o);

/// One training record's text: the wordpieces of its input_ids joined back into words
/// (detokenizeWordpieces: "##" pieces glued, [CLS]/[PAD] dropped), the second segment of a
/// pair in `text_b`. Lower-cased when the run's tokenizer was.
struct TrainingText
{
    std::string text;
    std::string text_b;
};

/// The texts of the first records of a run's training set.
struct TrainingTexts
{
    /// texts[i] is record i's (0-based position among all records of the files in reading
    /// order: the `index` of training_dynamics.jsonl). At most the maxRecords asked for.
    std::vector<TrainingText> texts;
    /// More records follow the ones read (the set is bigger than maxRecords).
    bool capped = false;
};

/// Reads the first `maxRecords` records of `source.train_data_path` (expandFilePattern's
/// files in order; GZIP/ZLIB records too) and turns their input_ids into text with
/// `source.vocab_file` (an id outside the vocabulary reads "[UNK]"). Only the feature
/// input_ids is read (an int64_list; other features are not checked: the run checked them).
/// Memory: about the texts' bytes. Polls `stop` between records (stopped: what was read so
/// far). Throws wb::Error naming the vocab file when it cannot be read, the file pattern when
/// it matches nothing, and "<file>: record <i> at byte <offset>" for a record that is not a
/// tf.train.Example with input_ids. Any thread.
TrainingTexts readTrainingTexts(const TrainingTextSource &source, int64_t maxRecords,
                                const StopToken *stop = nullptr);

} // namespace wb
