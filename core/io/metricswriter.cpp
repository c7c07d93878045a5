// SPDX-License-Identifier: Apache-2.0
#include "core/io/metricswriter.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace wb {

namespace {
nlohmann::json num(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
} // namespace

MetricsWriter::MetricsWriter(const std::string &path) : m_path(path)
{
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (m_fd < 0)
        throw Error(path, std::string("cannot open the metrics file: ") + std::strerror(errno),
                    "check that model_dir (or --metrics_file) is writable");
}

MetricsWriter::~MetricsWriter()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

nlohmann::json MetricsWriter::trainJson(const StepMetrics &m)
{
    nlohmann::ordered_json j;
    j["kind"] = "train";
    j["step"] = m.step;
    j["loss"] = num(m.loss);
    j["learning_rate"] = num(m.learning_rate);
    j["examples_per_second"] = num(m.examples_per_second);
    j["wall_time"] = num(m.wall_time);
    return nlohmann::json(j);
}

nlohmann::json MetricsWriter::evalJson(const EvalMetrics &m)
{
    nlohmann::json j;
    j["kind"] = "eval";
    j["step"] = m.step;
    j["wall_time"] = num(m.wall_time);
    j["eval_loss"] = num(m.eval_loss);
    j["num_examples"] = m.num_examples;
    if (m.regression) {
        j["eval_mse"] = num(m.eval_mse);
        j["eval_pearson"] = num(m.eval_pearson);
        j["eval_spearman"] = num(m.eval_spearman);
    } else {
        j["eval_accuracy"] = num(m.eval_accuracy);
        if (m.binary) {
            j["eval_f1"] = num(m.eval_f1);
            j["eval_mcc"] = num(m.eval_mcc);
        }
    }
    return j;
}

void MetricsWriter::writeTrain(const StepMetrics &m)
{
    nlohmann::ordered_json j;
    j["kind"] = "train";
    j["step"] = m.step;
    j["loss"] = num(m.loss);
    j["learning_rate"] = num(m.learning_rate);
    j["examples_per_second"] = num(m.examples_per_second);
    j["wall_time"] = num(m.wall_time);
    appendText(j.dump() + "\n");
}

void MetricsWriter::writeEval(const EvalMetrics &m)
{
    writeLine(evalJson(m));
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
                    "free disk space or choose another --metrics_file");
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
