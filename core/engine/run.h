// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/engine/preflight.h"
#include "core/model/bertmodel.h"
#include "core/events/trainingobserver.h"

#include <string>

namespace wb {

/// One validated run of Trainer::run: train (the TrainingLoop over FineTuningTask,
/// core/engine/finetuningtask.cpp), predict or export
/// (core/launch/trainer.cpp). Throws wb::Error, c10::Error or std::exception on failure;
/// Trainer::run turns them into RunFinished. Thread rules: one thread.
class Run
{
public:
    Run(const TrainingOptions &spec, TrainingObserver &observer, const StopToken &stop, const ValidationResult &v);

    RunFinished train();
    RunFinished predict();
    RunFinished exportModel();

    /// Last step, checkpoint and train loss reached so far (valid after a throw too).
    const RunFinished &progress() const { return m_progress; }

private:
    nn::BertForSequenceClassification makeModel();
    std::string checkpointForInference() const;
    void loadForInference(nn::BertForSequenceClassification &model, const std::string &path);

    const TrainingOptions &m_spec;
    TrainingObserver &m_obs;
    const StopToken &m_stop;
    BertConfig m_cfg;
    InputMetaData m_meta;
    /// The meta data with the casing the data was tokenized with (dataTokenizer()), as each
    /// checkpoint records it for export and classify.
    InputMetaData m_checkpointMeta;
    Schedule m_sched;
    ProblemType m_problem;
    RunFinished m_progress;
};

} // namespace wb
