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

} // namespace wb
