// SPDX-License-Identifier: Apache-2.0
#include "ui/plot/smoothing.h"

#include <algorithm>
#include <cmath>

namespace wb {

double TensorBoardSmoother::add(double y)
{
    if (!std::isfinite(y))
        return y;
    m_last = m_last * m_weight + (1.0 - m_weight) * y;
    // weight^count as a running product (std::pow per point dominated re-smoothing 10^6
    // points). Once it is below 2^-54, 1 - weight^count is exactly 1.0 in double: stop
    // multiplying (no denormals) and dividing.
    if (m_weightPower == 0)
        return m_last;
    m_weightPower *= m_weight;
    if (m_weightPower < 0x1p-54) {
        m_weightPower = 0;
        return m_last;
    }
    const double debias = m_weight == 1.0 ? 1.0 : 1.0 - m_weightPower;
    return m_last / debias;
}

bool isConstantSeries(const std::vector<double> &values)
{
    // TensorBoard #786: smoothing a constant must not introduce rounding spikes.
    return std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
}

std::vector<double> smoothTensorBoard(const std::vector<double> &values, double weight)
{
    if (values.empty())
        return {};
    if (isConstantSeries(values))
        return values;
    TensorBoardSmoother s(weight);
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        out.push_back(s.add(v));
    return out;
}

} // namespace wb
