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

void SummaryWriter::writeTrain(const StepMetrics &m)
{
    if (!m_train)
        m_train = std::make_unique<EventWriter>(trainDir(), m.wall_time);
    m_train->addScalar("loss", m.step, m.loss, m.wall_time);
    m_train->addScalar("learning_rate", m.step, m.learning_rate, m.wall_time);
    m_train->addScalar("examples_per_second", m.step, m.examples_per_second, m.wall_time);
    m_train->flush();
}

void SummaryWriter::writeEval(const EvalMetrics &m)
{
    if (!m_validation)
        m_validation = std::make_unique<EventWriter>(validationDir(), m.wall_time);
    EventWriter &w = *m_validation;
    w.addScalar("eval_loss", m.step, m.eval_loss, m.wall_time);
    if (m.regression) {
        w.addScalar("eval_mse", m.step, m.eval_mse, m.wall_time);
        w.addScalar("eval_pearson", m.step, m.eval_pearson, m.wall_time);
        w.addScalar("eval_spearman", m.step, m.eval_spearman, m.wall_time);
    } else {
        w.addScalar("eval_accuracy", m.step, m.eval_accuracy, m.wall_time);
        if (m.binary) {
            w.addScalar("eval_f1", m.step, m.eval_f1, m.wall_time);
            w.addScalar("eval_mcc", m.step, m.eval_mcc, m.wall_time);
        }
    }
    w.flush();
}

} // namespace wb
