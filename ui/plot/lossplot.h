// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "ui/runs/runhistory.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;

class QToolButton;

namespace wb {

/// Live training curves: raw and TensorBoard-smoothed train loss, eval loss and
/// eval accuracy (second y axis) markers, and a learning-rate panel with the planned schedule
/// and the actual LR; overlays of other runs. Appends go straight to the graphs; replots are
/// coalesced by one 40 ms single-shot timer and done with rpQueuedReplot. GUI thread only.
class LossPlot : public QWidget
{
    Q_OBJECT
public:
    enum class XAxis { Step, RelativeTime, WallTime };
    /// EvalNextSentenceAccuracy: pretraining with next-sentence pairs (EvalMetrics::next_sentence).
    enum class Series { TrainLoss, SmoothedTrainLoss, EvalLoss, EvalAccuracy, LearningRate, PlannedLearningRate,
                        EvalNextSentenceAccuracy };

    explicit LossPlot(QWidget *parent = nullptr);
    ~LossPlot() override;

    /// Removes the current run's data (keeps the planned schedule and comparison runs).
    void clear();
    /// Draws the whole planned learning-rate schedule (`lr[i]` at `steps[i]`).
    void setPlannedSchedule(const std::vector<double> &steps, const std::vector<double> &lr);
    void addStep(const StepMetrics &m);
    void addEvaluation(const EvalMetrics &m);

    /// Overlays another run in `colour`; replaces an overlay with the same sourcePath.
    void addComparisonRun(const RunHistory &run, const QColor &colour);
    void removeComparisonRun(const QString &sourcePath);
    void clearComparisonRuns();
    int comparisonRunCount() const;

    /// Draws the majority-class baseline as a dashed line on the accuracy axis (NaN hides it).
    void setAccuracyBaseline(double accuracy);
    /// Returns the baseline shown, NaN when none.
    double accuracyBaseline() const;
    /// Draws the bag-of-words baseline (TF-IDF + logistic regression, prepare_report.json) as a
    /// second dashed line on the accuracy axis, its legend entry "bag of words: 0.97" (NaN hides it).
    void setBagOfWordsBaseline(double accuracy);
    /// Returns the bag-of-words baseline shown, NaN when none.
    double bagOfWordsBaseline() const;
    /// Returns the legend text of the bag-of-words line ("bag of words: 0.97"), empty when hidden.
    QString bagOfWordsBaselineLabel() const;

    double smoothing() const;
    void setSmoothing(double weight);
    XAxis xAxis() const;
    void setXAxis(XAxis mode);
    bool isLogScale() const;
    void setLogScale(bool on);
    void resetView();

    /// Names the curves for masked-LM pretraining (train/eval MLM loss, MLM accuracy on the
    /// masked words; the eval loss's legend entry then also gives the latest perplexity,
    /// exp(eval MLM loss)) or back for a classifier. The data stay.
    void setPretraining(bool on);
    bool isPretraining() const;
    /// Names the live run in the legend: "<name>: train loss (smoothed)", … ("" : unnamed), so
    /// it can be told from the runs overlaid under Compare runs. The data stay.
    void setRunName(const QString &name);
    QString runName() const;
    /// A line above the curves ("plotNotice", word-wrapped) about how the run was set up, e.g.
    /// that the example trains from random weights because the Hub could not be reached;
    /// "" hides it. Stays until set again.
    void setNotice(const QString &text);
    QString notice() const;
    /// The legend text of the live run's series `s`.
    QString seriesName(Series s) const;

    /// Returns the number of points the graph of `s` holds (the live run).
    int pointCount(Series s) const;
    /// Writes `wall_time,step,value` for every point of `s` (live run). Atomic.
    bool exportCsv(const QString &path, Series s, QString *error = nullptr) const;
    /// Saves the plot as PDF (".pdf") or PNG (anything else).
    bool exportImage(const QString &path, QString *error = nullptr);
    /// Returns how many replots were actually performed (for tests and benchmarks).
    int replotCount() const;
    bool isReplotPending() const;
    QCustomPlot *customPlot() const;

Q_SIGNALS:
    void smoothingChanged(double weight);

private:
    // The constructor's steps: the canvas (loss and learning-rate rects), their axes, the
    // graphs, the baseline line, the legend, the canvas' mouse and replot signals, the
    // control row's two groups (smoothing; x axis, log scale, reset, export).
    void buildCanvas();
    void buildAxes();
    void buildGraphs();
    void buildBaseline();
    void buildLegend();
    void connectCanvas();
    QWidget *buildSmoothingControls();
    QWidget *buildViewControls();
    QToolButton *buildExportButton();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace wb
