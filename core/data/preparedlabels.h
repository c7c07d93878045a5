// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// The label names of a prepared data set, as labelNamesForMetaData() found them.
struct PreparedLabelNames
{
    std::vector<std::string> names; ///< exactly num_labels names, in label id order
    bool from_file = false;         ///< true: read from labels.txt; false: "label 0" … "label N-1"
    std::string labels_path;        ///< the labels.txt looked at (beside the meta data)
    std::string warning;            ///< empty, or why the fallback names are used / what was fixed
};

/// Returns the names of label ids 0 … numLabels-1 for the data set whose
/// input_meta_data.json is `metaDataPath`, read from `labels.txt` in the same folder (written
/// by prepareData(): one label per line, in id order, '\n' line ends; a UTF-8 byte order mark
/// and "\r\n" line ends are accepted, and trailing empty lines are ignored).
///
/// Falls back to "label 0" … "label N-1" (`from_file` false) with a `warning` naming the file
/// when labels.txt is absent or unreadable, or when its line count differs from `numLabels`
/// (the file belongs to another preparation). An empty line inside the file is named
/// "label i" with a warning. `numLabels` <= 0 (regression) returns no names and no warning.
/// Never throws for file problems; reads only labels.txt (the meta data file itself need not
/// exist). Torch-free and Qt-free; thread-safe.
PreparedLabelNames labelNamesForMetaData(const std::string &metaDataPath, int64_t numLabels);

} // namespace wb
