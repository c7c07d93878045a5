// SPDX-License-Identifier: Apache-2.0
#pragma once

// The colours of runs on the plot and in Compare runs, in one place (issue 44, item 10): the
// run shown (the live run) keeps its series' colours, and the runs compared with it get one
// colour each from a palette that none of those colours is in. GUI thread only (QColor).

#include <QColor>

#include <iterator>

namespace wb::runcolours {

/// The series of the run shown: train loss (also its name in Compare runs), eval loss, eval
/// accuracy, learning rate (matplotlib's tab10 blue, orange, green, purple).
inline const QColor kTrainLoss(31, 119, 180);
inline const QColor kEvalLoss(255, 127, 14);
inline const QColor kEvalAccuracy(44, 160, 44);
inline const QColor kLearningRate(148, 103, 189);

/// The compared runs' colours, neighbours far apart: red, navy, olive, magenta, violet, brown,
/// maroon, umber (no teal: beside the eval accuracy's green it read as the same series). Each
/// reads on white (luminance contrast 4.2:1 or more, WCAG 2's measure), none is black (the run
/// shown is named in the default text colour) or a colour of the run shown above, and each is
/// at least 25 CIELAB units (ΔE*76) from those and from every other.
inline constexpr QRgb kCompared[] = {qRgb(214, 39, 40), qRgb(40, 40, 140),  qRgb(128, 128, 0), qRgb(199, 21, 133),
                                     qRgb(120, 40, 200), qRgb(140, 86, 75),  qRgb(90, 0, 40),   qRgb(110, 60, 0)};

/// The colour of the compared run number `index` (any integer; repeats after 8).
inline QColor compared(int index)
{
    const int n = int(std::size(kCompared));
    return QColor(kCompared[((index % n) + n) % n]);
}

} // namespace wb::runcolours
