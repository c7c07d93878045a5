// SPDX-License-Identifier: Apache-2.0
#include "core/io/summarywriter.h"

#include "core/io/eventwriter.h"

#include <filesystem>

namespace wb {

SummaryWriter::SummaryWriter(std::string model_dir) : m_modelDir(std::move(model_dir)) {}

SummaryWriter::~SummaryWriter() = default;

std::string SummaryWriter::trainDir() const
{
    return (std::filesystem::path(m_modelDir) / "summaries" / "train").string();
}

std::string SummaryWriter::validationDir() const
{
    return (std::filesystem::path(m_modelDir) / "summaries" / "validation").string();
}

void SummaryWriter::writeTrain(const StepMetrics &m, const std::vector<std::pair<std::string, double>> &fields)
{
    if (!m_train)
        m_train = std::make_unique<EventWriter>(trainDir(), m.wall_time);
    m_train->addScalar("loss", m.step, m.loss, m.wall_time);
    for (const auto &[tag, value] : fields)
        m_train->addScalar(tag, m.step, value, m.wall_time);
    m_train->addScalar("learning_rate", m.step, m.learning_rate, m.wall_time);
    m_train->addScalar("examples_per_second", m.step, m.examples_per_second, m.wall_time);
    m_train->flush();
}

std::vector<std::pair<std::string, double>> SummaryWriter::evalScalars(const EvalMetrics &m)
{
    std::vector<std::pair<std::string, double>> s{{"eval_loss", m.eval_loss}};
    if (m.regression) {
        s.insert(s.end(), {{"eval_mse", m.eval_mse}, {"eval_pearson", m.eval_pearson}, {"eval_spearman", m.eval_spearman}});
    } else {
        s.emplace_back("eval_accuracy", m.eval_accuracy);
        if (m.multi_label)
            s.insert(s.end(), {{"eval_micro_f1", m.eval_micro_f1},
                               {"eval_macro_f1", m.eval_macro_f1},
                               {"eval_samples_f1", m.eval_samples_f1},
                               {"eval_hamming_loss", m.eval_hamming_loss}});
        if (m.binary)
            s.insert(s.end(), {{"eval_f1", m.eval_f1}, {"eval_mcc", m.eval_mcc}});
    }
    if (m.distilled)
        s.emplace_back("eval_teacher_agreement", m.eval_teacher_agreement);
    return s;
}

void SummaryWriter::writeEval(const EvalMetrics &m)
{
    writeValidation(m.step, m.wall_time, evalScalars(m));
}

void SummaryWriter::writeValidation(int64_t step, double wall_time,
                                    const std::vector<std::pair<std::string, double>> &scalars)
{
    if (!m_validation)
        m_validation = std::make_unique<EventWriter>(validationDir(), wall_time);
    for (const auto &[tag, value] : scalars)
        m_validation->addScalar(tag, step, value, wall_time);
    m_validation->flush();
}

} // namespace wb
