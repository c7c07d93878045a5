// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/plot/lossplot.h"

#include <QSharedPointer>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPAxisTicker;

namespace wb {

/// The axis logic of LossPlot's two panels (loss/accuracy above, learning rate below; their x
/// axes are kept equal by the caller). GUI thread only.
namespace plotaxes {

/// The x range of a plot without data (steps 0 to 10), y ranges [0, 1] ([0.01, 1] on a log axis).
constexpr double kEmptySteps = 10;

/// The step axis' ticker: whole steps only (a 3-step run has ticks 1, 2, 3, never 1.5).
QSharedPointer<QCPAxisTicker> stepTicker();

/// Fits the view to every visible graph of `plot`, in both panels (without any: the empty
/// ranges above): the x range is the union
/// of all graphs' keys (the live run, other runs of any length and, in step mode, the planned
/// schedule), with room on the right so the last evaluation marker is drawn whole; each loss
/// and learning-rate axis fits its graphs with 5 % padding (a log axis ×1.5 either way, so the
/// lowest points stay inside, never below 0 for non-negative data); the accuracy axis of
/// `lossRect` shows [0, `accuracyMax`].
void fit(QCustomPlot *plot, QCPAxisRect *lossRect, QCPAxisRect *lrRect, double accuracyMax);

/// Sets the x tickers of both panels for `mode` (steps; h:m:s since the run started; clock
/// time) and the x label of the lower panel.
void applyXAxisMode(QCPAxisRect *lossRect, QCPAxisRect *lrRect, LossPlot::XAxis mode);

/// Gives the learning-rate axis one number format for every tick (5.0·10⁻⁵, QCustomPlot's
/// "eb" format with one decimal) and a plain "0" at zero instead of "0.0·10⁰".
void useLearningRateTicks(QCPAxis *axis);

} // namespace plotaxes

} // namespace wb
