// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/runs/runhistory.h"

#include <QDialog>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QComboBox;
class QTableWidget;
class QLabel;

namespace wb {

/// One run as a line of the parallel-coordinates view: its value on each axis (NaN: none).
struct ParallelLine
{
    QString name;
    std::vector<double> values;
};

/// Parallel coordinates (Inselberg; as TensorBoard's HParams and W&B sweeps show runs): one
/// vertical axis per column, one polyline per run, coloured by the last axis (the metric) from
/// dark blue (lowest) to yellow (highest). Dragging along an axis brushes a range of it: runs
/// outside every brushed range are drawn faint and left out of visibleLines(); a click without
/// a drag on an axis clears its brush. learning_rate and weight_decay_rate axes are
/// logarithmic when all their values are positive. GUI thread only.
class ParallelCoordinates : public QWidget
{
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget *parent = nullptr);

    void setData(const QStringList &axes, const std::vector<ParallelLine> &lines);
    const QStringList &axes() const { return m_axes; }
    /// Brushes axis `axis` to [low, high] (in the axis' units); nothing clears it.
    void setBrush(int axis, std::optional<std::pair<double, double>> range);
    /// The lines inside every brushed range, by index into setData's list.
    std::vector<int> visibleLines() const;

Q_SIGNALS:
    void brushChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    QSize sizeHint() const override { return {640, 320}; }

private:
    double axisX(int axis) const;
    /// 0 (bottom) … 1 (top) of `v` on `axis`, NaN when it has no value.
    double position(int axis, double v) const;
    double valueAt(int axis, double position) const;
    double plotTop() const { return 28; }
    double plotBottom() const { return height() - 24.0; }

    QStringList m_axes;
    std::vector<ParallelLine> m_lines;
    std::vector<std::pair<double, double>> m_range; ///< each axis' min and max
    std::vector<bool> m_log;
    std::vector<std::optional<std::pair<double, double>>> m_brush;
    int m_dragAxis = -1;
    double m_dragFrom = 0, m_dragTo = 0;
};

/// Compare runs → Sweep view…: the listed runs as a sweep, the way TensorBoard's HParams shows
/// them: a table sorted by the chosen metric (best first; eval_loss and train_loss lowest first)
/// with one column per setting that differs between the runs (differingSettings) and a
/// parallel-coordinates view of those settings and the metric; brushing an axis filters the
/// table. Object names: "sweepView", "sweepTable", "sweepMetric", "parallelCoordinates".
class SweepView : public QDialog
{
    Q_OBJECT
public:
    explicit SweepView(QWidget *parent = nullptr);
    /// Shows `runs`; the axes are the numeric settings that differ between them.
    void setRuns(const std::vector<RunHistory> &runs);
    /// "eval_accuracy" (final), "best_eval_accuracy", "eval_loss" (final) or "train_loss".
    void setMetric(const QString &metric);
    QTableWidget *table() const { return m_table; }
    ParallelCoordinates *plot() const { return m_plot; }

private:
    void rebuild();

    std::vector<RunHistory> m_runs;
    QComboBox *m_metric;
    QTableWidget *m_table;
    ParallelCoordinates *m_plot;
    QLabel *m_note;
};

/// A run's value of a sweep metric (as above); NaN when it has none. Pure.
double sweepMetricOf(const RunHistory &run, const QString &metric);

} // namespace wb
