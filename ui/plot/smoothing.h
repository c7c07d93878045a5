// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <vector>

namespace wb {

/// TensorBoard's debiased exponential moving average, as the scalars dashboard draws it
/// (tensorboard/plugins/scalar/vz_line_chart2: last = last·w + (1−w)·y, shown as last / (1 − w^n)).
///
/// `weight` in [0, 1): 0 returns the input. Non-finite values pass through unchanged and do
/// not advance the average; a constant series is returned unchanged. Pure function.
/// Example: {1, 0, 1} at 0.5 → {1, 0.3333, 0.7143}.
std::vector<double> smoothTensorBoard(const std::vector<double> &values, double weight);

/// Whether every value equals the first: such a series is shown unsmoothed (TensorBoard
/// #786), by smoothTensorBoard and by the plot's in-place re-smoothing alike.
bool isConstantSeries(const std::vector<double> &values);

/// Incremental form of smoothTensorBoard for live appends (same result up to the constant
/// series special case, which only removes rounding noise).
class TensorBoardSmoother
{
public:
    explicit TensorBoardSmoother(double weight = 0.6) : m_weight(weight) {}
    /// Returns the smoothed value for the next raw value `y`.
    double add(double y);
    void reset() { m_last = 0; m_weightPower = 1; }
    double weight() const { return m_weight; }

private:
    double m_weight;
    double m_last = 0;
    double m_weightPower = 1; ///< weight^n after n values (0 once 1 - weight^n rounds to 1)
};

} // namespace wb
