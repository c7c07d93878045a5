// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QGridLayout;

namespace wb {

/// The row of controls above LossPlot's panels, in two groups (smoothing; axis, view and
/// export). The groups sit side by side when the row is wide enough for both at their size
/// hints, and the second moves under the first otherwise, so the plot's minimum width is that
/// of the wider group, not of both (1024×700 screens, 150 % scale). GUI thread only.
class PlotControlRow : public QWidget
{
    Q_OBJECT
public:
    /// Takes ownership of `first` and `second`.
    PlotControlRow(QWidget *first, QWidget *second, QWidget *parent = nullptr);

    /// Returns true when the second group is under the first.
    bool isWrapped() const { return m_wrapped; }
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void arrange(bool wrapped);

    QWidget *m_first;
    QWidget *m_second;
    QGridLayout *m_grid;
    bool m_wrapped = false;
};

} // namespace wb
