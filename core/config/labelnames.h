// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The label names of a classifier and where they came from.
struct LabelNames
{
    std::vector<std::string> names; ///< exactly num_labels names, in label id order
    std::string source;             ///< the labels.txt read, "id2label" (the config), or "" (fallback)
    std::string warning;            ///< empty, or why the fallback was used (a labels.txt of another length)
};

/// Returns the names of label ids 0 … numLabels−1, from the first source that has exactly
/// numLabels names: (1) `labels.txt` beside `metaDataPath` (written by `prepare`: one name
/// per line in id order; a UTF-8 byte order mark, "\r\n" and trailing empty lines are
/// accepted), (2) `configNames` (BertConfig::labelNames(), Hugging Face's id2label),
/// (3) "label 0" … "label N−1". `metaDataPath` may be empty (skips 1). numLabels ≤ 0
/// (regression) returns no names. Never throws for file problems. Torch-free; thread-safe.
LabelNames readLabelNames(const std::string &metaDataPath, int64_t numLabels,
                          const std::vector<std::string> &configNames = {});

/// Reads a labels.txt file (rules as above). Returns nothing when it cannot be opened.
std::optional<std::vector<std::string>> readLabelsFile(const std::string &path);

/// What `prepare` recorded about its tokenizer in `prepare_report.json` beside the meta data.
struct PreparedTokenizer
{
    std::string vocab_file;             ///< absolute or as given to prepare; empty when not recorded
    std::optional<bool> do_lower_case;  ///< unset when not recorded
    std::optional<int64_t> max_seq_length;
};

/// Reads `prepare_report.json` beside `metaDataPath` (keys `vocab_file`, `do_lower_case`,
/// `max_seq_length`; docs/file-formats.md). Returns empty fields when the file or a key is
/// absent or of another type; never throws. Torch-free; thread-safe.
PreparedTokenizer readPreparedTokenizer(const std::string &metaDataPath);

} // namespace wb
