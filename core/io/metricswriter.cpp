// SPDX-License-Identifier: Apache-2.0
#include "core/io/metricswriter.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/io/runeventjson.h"
#include "core/util/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace wb {

MetricsWriter::MetricsWriter(const std::string &path) : m_path(path)
{
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (m_fd < 0)
        throw Error(path, std::string("cannot open the metrics file: ") + std::strerror(errno),
                    "check that model_dir (or " + optionName("metrics_file") + ") is writable");
}

MetricsWriter::~MetricsWriter()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

nlohmann::ordered_json MetricsWriter::trainJson(const StepMetrics &m)
{
    // The "train" line: the StepMetrics format (core/io/runeventjson.h) less total_steps and epoch.
    const nlohmann::ordered_json full = m;
    nlohmann::ordered_json j;
    j["kind"] = "train";
    for (const char *key : {"step", "loss", "learning_rate", "examples_per_second", "wall_time"})
        j[key] = full.at(key);
    return j;
}

nlohmann::json MetricsWriter::evalJson(const EvalMetrics &m)
{
    // The "eval" line: the EvalMetrics format less regression, binary and confusion.
    nlohmann::json j = m;
    j.erase("regression");
    j.erase("binary");
    j.erase("confusion");
    j["kind"] = "eval";
    return j;
}

void MetricsWriter::writeTrain(const StepMetrics &m, const std::vector<std::pair<std::string, double>> &fields)
{
    nlohmann::ordered_json j = trainJson(m);
    for (const auto &[key, value] : fields)
        j[key] = value;
    appendText(dumpLine(j) + "\n");
}

void MetricsWriter::writeEval(const EvalMetrics &m, const std::vector<std::pair<std::string, double>> &fields)
{
    nlohmann::json j = evalJson(m);
    for (const auto &[key, value] : fields)
        j[key] = value;
    appendText(dumpLine(j) + "\n");
}

void MetricsWriter::writeNote(const CoachNote &n)
{
    nlohmann::ordered_json j;
    j["kind"] = "note";
    const nlohmann::ordered_json body = n;
    for (auto it = body.begin(); it != body.end(); ++it)
        j[it.key()] = it.value();
    appendText(dumpLine(j) + "\n");
}

void MetricsWriter::writeLine(const nlohmann::json &j)
{
    appendText(j.dump() + "\n");
}

void MetricsWriter::appendText(const std::string &line)
{
    const ssize_t n = ::write(m_fd, line.data(), line.size());
    if (n != ssize_t(line.size()))
        throw Error(m_path, std::string("could not append to the metrics file: ") + std::strerror(errno),
                    "free disk space or choose another " + optionName("metrics_file"));
}

void MetricsWriter::truncateAfterStep(const std::string &path, int64_t step)
{
    std::ifstream in(path);
    if (!in)
        return;
    std::ostringstream kept;
    std::string line;
    bool changed = false;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.contains("step") && j["step"].is_number_integer() && j["step"].get<int64_t>() > step) {
            changed = true;
            continue;
        }
        if (j.is_discarded()) { // a torn last line from a killed run
            changed = true;
            continue;
        }
        kept << line << "\n";
    }
    if (changed)
        writeFileAtomic(path, kept.str());
}

} // namespace wb
