// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/memoryestimate.h"
#include "core/config/trainingoptions.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;

namespace wb {

/// The planned learning-rate curve of a configuration: update number t+1 (the step the plot
/// shows) uses Schedule::learningRate(t). Empty when the schedule is not known.
struct PlannedCurve
{
    std::vector<double> steps;
    std::vector<double> learning_rates;
};

/// Returns `n` for people: "950", "12.3 k", "4.39 M".
QString formatCount(int64_t n);

/// The schedule panel's memory line for `m`: "Memory: <b>about 190.3 MiB</b> per training
/// process (parameters 17.4 MiB, gradients 17.4 MiB, optimizer 34.8 MiB, activations 12.0 MiB)"
/// (HTML), each size in its own unit (KiB, MiB, GiB: 1024-based). Pure.
QString memoryText(const MemoryEstimate &m);

/// The panels below the form: the schedule computed as run_classifier does (epochs,
/// steps_per_epoch, total_steps, warmup_steps, eval_steps with their formulas, from
/// input_meta_data.json and the form) and the model summary (parameters and FLOPs from
/// bert_config.json). GUI thread only.
class SchedulePanel : public QWidget
{
    Q_OBJECT
public:
    explicit SchedulePanel(QWidget *parent = nullptr);

    /// Reads bert_config_file and input_meta_data_path of `o` (small JSON files) again.
    void reloadInputs(const TrainingOptions &o);
    /// Recomputes both panels for `o`.
    void update(const TrainingOptions &o);
    /// Returns the planned learning rate per step for `o` (at most ~2000 points).
    PlannedCurve plannedCurve(const TrainingOptions &o) const;

    /// The schedule panel's text (plain text).
    QString scheduleText() const;
    QString modelSummaryText() const;

private:
    void updateSchedule(const TrainingOptions &o);
    void updateModelSummary(const TrainingOptions &o);

    QLabel *m_schedule = nullptr;
    QLabel *m_modelSummary = nullptr;
    std::optional<BertConfig> m_bertConfig;
    std::optional<InputMetaData> m_metaData;
    Diagnostics m_inputDiagnostics;
};

} // namespace wb
