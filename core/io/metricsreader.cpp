// SPDX-License-Identifier: Apache-2.0
#include "core/io/metricsreader.h"

#include "core/io/runeventjson.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace wb {

MetricsLog readMetricsFile(const std::string &path, std::string *error)
{
    MetricsLog log;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error)
            *error = path + ": cannot open: " + std::strerror(errno);
        return log;
    }
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(std::move(line));
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string &line = lines[i];
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object()) {
            if (i + 1 == lines.size())
                break; // a torn last line
            if (error)
                *error = path + ": line " + std::to_string(i + 1) + ": not a JSON object";
            return log;
        }
        const auto kind = j.find("kind");
        if (kind == j.end() || !kind->is_string())
            continue;
        if (*kind == "train")
            log.train.push_back(j.get<StepMetrics>());
        else if (*kind == "eval")
            log.eval.push_back(j.get<EvalMetrics>());
        else if (*kind == "note")
            log.notes.push_back(j.get<CoachNote>());
    }
    return log;
}

} // namespace wb
