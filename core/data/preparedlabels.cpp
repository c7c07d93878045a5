// SPDX-License-Identifier: Apache-2.0
#include "core/data/preparedlabels.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace wb {

namespace fs = std::filesystem;

PreparedLabelNames labelNamesForMetaData(const std::string &metaDataPath, int64_t numLabels)
{
    PreparedLabelNames out;
    if (numLabels <= 0)
        return out;
    out.labels_path = (fs::path(metaDataPath).parent_path() / "labels.txt").string();
    auto fallback = [&](const std::string &why) {
        out.names.clear();
        for (int64_t i = 0; i < numLabels; ++i)
            out.names.push_back("label " + std::to_string(i));
        out.from_file = false;
        out.warning = why + "; the labels are named 'label 0' to 'label " + std::to_string(numLabels - 1) + "'";
        return out;
    };
    std::error_code ec;
    if (!fs::is_regular_file(out.labels_path, ec))
        return fallback("no labels.txt beside " + metaDataPath);
    std::ifstream in(out.labels_path, std::ios::binary);
    std::ostringstream ss;
    if (!in || !(ss << in.rdbuf()))
        return fallback("cannot read " + out.labels_path);
    std::string text = ss.str();
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        text.erase(0, 3);
    std::vector<std::string> lines;
    size_t b = 0;
    while (b < text.size()) {
        size_t e = text.find('\n', b);
        if (e == std::string::npos)
            e = text.size();
        std::string line = text.substr(b, e - b);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
        b = e + 1;
    }
    while (!lines.empty() && lines.back().empty())
        lines.pop_back();
    if (int64_t(lines.size()) != numLabels)
        return fallback(out.labels_path + " has " + std::to_string(lines.size()) + " label(s), the meta data says "
                        + "num_labels " + std::to_string(numLabels) + " (prepared from other data?)");
    std::string emptyLines;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (!lines[i].empty())
            continue;
        lines[i] = "label " + std::to_string(i);
        emptyLines += (emptyLines.empty() ? "" : ", ") + std::to_string(i + 1);
    }
    if (!emptyLines.empty())
        out.warning = out.labels_path + ": line(s) " + emptyLines + " are empty; named 'label N' by their id";
    out.names = std::move(lines);
    out.from_file = true;
    return out;
}

} // namespace wb
