// SPDX-License-Identifier: Apache-2.0
#include "core/config/labelnames.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace wb {

std::optional<std::vector<std::string>> readLabelsFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::vector<std::string> names;
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        if (first && line.compare(0, 3, "\xEF\xBB\xBF") == 0)
            line.erase(0, 3);
        first = false;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        names.push_back(line);
    }
    while (!names.empty() && names.back().empty())
        names.pop_back();
    return names;
}

LabelNames readLabelNames(const std::string &metaDataPath, int64_t numLabels,
                          const std::vector<std::string> &configNames)
{
    LabelNames r;
    if (numLabels <= 0)
        return r;
    if (!metaDataPath.empty()) {
        const std::string path = (fs::path(metaDataPath).parent_path() / "labels.txt").string();
        if (auto names = readLabelsFile(path)) {
            if (int64_t(names->size()) == numLabels) {
                r.names = std::move(*names);
                for (size_t k = 0; k < r.names.size(); ++k)
                    if (r.names[k].empty())
                        r.names[k] = "label " + std::to_string(k);
                r.source = path;
                return r;
            }
            r.warning = path + " has " + std::to_string(names->size()) + " names but num_labels is "
                        + std::to_string(numLabels) + " (another preparation?); it is not used";
        }
    }
    if (int64_t(configNames.size()) == numLabels) {
        r.names = configNames;
        r.source = "id2label";
        return r;
    }
    for (int64_t k = 0; k < numLabels; ++k)
        r.names.push_back("label " + std::to_string(k));
    return r;
}

} // namespace wb
