// SPDX-License-Identifier: Apache-2.0
#include "ui/tryit/attributionchips.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace wb {

namespace {

double strength(double a, double maxAbs)
{
    if (!std::isfinite(a) || !(maxAbs > 0))
        return 0.0;
    return std::min(std::abs(a) / maxAbs, 1.0);
}

} // namespace

QColor attributionColour(double a, double maxAbs)
{
    const double t = strength(a, maxAbs);
    if (t == 0.0)
        return QColor(255, 255, 255);
    const QColor &end = a > 0 ? kAttributionFor : kAttributionAgainst;
    const auto mix = [t](int c) { return int(std::lround(255.0 + t * (double(c) - 255.0))); };
    return QColor(mix(end.red()), mix(end.green()), mix(end.blue()));
}

QColor attributionTextColour(double a, double maxAbs)
{
    return strength(a, maxAbs) > 0.55 ? QColor(Qt::white) : QColor(0x10, 0x10, 0x10);
}

AttributionLegend::AttributionLegend(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("attributionLegend"));
    setMinimumHeight(34);
}

void AttributionLegend::setScale(double maxAbs, const QString &target)
{
    m_max = maxAbs;
    m_target = target;
    setToolTip(tr("Each wordpiece's share of the logit of “%1”: blue pushed towards it, red away from it; the "
                  "strongest wordpiece of this text has the full colour (|a| = %2).")
                   .arg(target)
                   .arg(maxAbs, 0, 'g', 3));
    update();
}

QSize AttributionLegend::sizeHint() const { return {360, 34}; }

void AttributionLegend::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QFontMetrics fm = fontMetrics();
    const QString left = tr("against %1  −%2").arg(m_target).arg(m_max, 0, 'g', 3);
    const QString right = tr("+%1  for %2").arg(m_max, 0, 'g', 3).arg(m_target);
    const int barWidth = std::max(80, std::min(240, width() - fm.horizontalAdvance(left) - fm.horizontalAdvance(right) - 24));
    const int x0 = fm.horizontalAdvance(left) + 8;
    const QRect bar(x0, 4, barWidth, 14);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    g.setColorAt(0.0, kAttributionAgainst);
    g.setColorAt(0.5, Qt::white);
    g.setColorAt(1.0, kAttributionFor);
    p.fillRect(bar, g);
    p.setPen(QColor(0x90, 0x90, 0x90));
    p.drawRect(bar.adjusted(0, 0, -1, -1));
    p.drawLine(bar.center().x(), bar.bottom(), bar.center().x(), bar.bottom() + 3);
    p.setPen(palette().color(QPalette::WindowText));
    const int baseline = bar.center().y() + fm.ascent() / 2 - 1;
    p.drawText(0, baseline, left);
    p.drawText(bar.right() + 8, baseline, right);
    p.drawText(bar.center().x() - fm.horizontalAdvance(QStringLiteral("0")) / 2, bar.bottom() + 4 + fm.ascent(),
               QStringLiteral("0"));
}

} // namespace wb
