// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/runs/runhistory.h"

#include "core/formats/sweep.h"

#include <QDialog>
#include <QRectF>
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
/// logarithmic when all their values are positive. Axis titles never overlap: when they do
/// not fit side by side they are drawn on two rows, and a title wider than two axes' spacing is
/// elided (its full text in the tooltip of that axis). GUI thread only.
class ParallelCoordinates : public QWidget
{
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget *parent = nullptr);

    /// `axes`: the keys ("learning_rate", …, the metric's key last); `titles`: what each axis
    /// is called on screen (empty: the keys).
    void setData(const QStringList &axes, const std::vector<ParallelLine> &lines, const QStringList &titles = {});
    const QStringList &axes() const { return m_axes; }
    const QStringList &titles() const { return m_titles; }
    /// Where each axis title is drawn at the widget's current size (widget coordinates).
    std::vector<QRectF> titleRects() const;
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
    bool event(QEvent *event) override;
    QSize sizeHint() const override { return {640, 320}; }

private:
    double axisX(int axis) const;
    /// 0 (bottom) … 1 (top) of `v` on `axis`, NaN when it has no value.
    double position(int axis, double v) const;
    double valueAt(int axis, double position) const;
    /// Whether the titles take two rows (they do not fit side by side).
    bool twoTitleRows() const;
    /// Title `axis` as drawn: elided to the room it has.
    QString shownTitle(int axis) const;
    double plotTop() const;
    double plotBottom() const { return height() - 24.0; }

    QStringList m_axes, m_titles;
    std::vector<ParallelLine> m_lines;
    std::vector<std::pair<double, double>> m_range; ///< each axis' min and max
    std::vector<bool> m_log;
    std::vector<std::optional<std::pair<double, double>>> m_brush;
    int m_dragAxis = -1;
    double m_dragFrom = 0, m_dragTo = 0;
};

/// Compare runs → Sweep view… (and the view a finished sweep opens): runs as a sweep, the way
/// TensorBoard's HParams shows them: a table sorted by the chosen metric (best first; losses
/// lowest first) with one column per swept option, and a parallel-coordinates view of those
/// options and the metric; brushing an axis filters the table. The metric is eval accuracy by
/// default, eval loss when no run has an accuracy (regression), train loss only when no run
/// was evaluated. Object names: "sweepView", "sweepTitle", "sweepTable", "sweepMetric",
/// "parallelCoordinates". GUI thread only.
class SweepView : public QDialog
{
    Q_OBJECT
public:
    explicit SweepView(QWidget *parent = nullptr);
    /// Shows `runs` (any runs, e.g. those selected in Compare runs); the axes are
    /// sweepAxesOf(runs).
    void setRuns(const std::vector<RunHistory> &runs);
    /// Shows the runs of one sweep: `file` is its sweep.json (the options it varies are the
    /// axes — those that take two or more values in `runs` —, each run's values are the plan's
    /// for the run of its folder's name, its metric the default when a run has it) and `name`
    /// names it in the title ("sweep-1").
    void setSweep(const std::vector<RunHistory> &runs, const SweepFile &file, const QString &name);
    /// "eval_accuracy" (final), "best_eval_accuracy", "eval_loss" (final) or "train_loss"; one
    /// the view does not offer for these runs is ignored.
    void setMetric(const QString &metric);
    /// The metric shown ("eval_accuracy", …).
    QString metric() const;
    const std::vector<RunHistory> &runs() const { return m_runs; }
    QTableWidget *table() const { return m_table; }
    ParallelCoordinates *plot() const { return m_plot; }

private:
    void present(const std::vector<RunHistory> &runs, const QStringList &axes, std::vector<std::vector<double>> values,
                 const QString &metric, const QString &title);
    void rebuild();

    std::vector<RunHistory> m_runs;
    QStringList m_keys;                  ///< the axes' options
    std::vector<std::vector<double>> m_values; ///< per run, per axis (NaN: not recorded)
    QComboBox *m_metric;
    QLabel *m_title;
    QTableWidget *m_table;
    ParallelCoordinates *m_plot;
    QLabel *m_note;
};

/// A run's value of a sweep metric (as above); NaN when it has none. Pure.
double sweepMetricOf(const RunHistory &run, const QString &metric);

/// The metrics the Sweep view offers for `runs`: eval_accuracy and best_eval_accuracy when a
/// run has an eval accuracy, eval_loss when one was evaluated, train_loss only when none was
/// (the first is the default). Pure.
QStringList sweepMetricsOf(const std::vector<RunHistory> &runs);

/// The axes of runs that are not known to be one sweep: the sweepable options
/// (sweepableOptions(), core/formats/sweep.h) whose values differ between them; when none
/// does, the other numeric settings that differ, without the model's architecture
/// (bert_config.*) and what follows from other settings (total_steps, warmup_steps, …), at
/// most 6. Pure.
QStringList sweepAxesOf(const std::vector<RunHistory> &runs);

/// What an option or a metric is called on screen: the form's label ("Learning rate"), a
/// metric's name ("Eval accuracy"); the key itself when it has none. Pure.
QString sweepAxisTitle(const QString &key);

} // namespace wb
