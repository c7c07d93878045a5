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

namespace wb {

FlowLayout::FlowLayout(QWidget *parent, int margin, int spacing) : QLayout(parent)
{
    setContentsMargins(margin, margin, margin, margin);
    setSpacing(spacing);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem *item = FlowLayout::takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem *item) { m_items.push_back(item); }

int FlowLayout::count() const { return int(m_items.size()); }

QLayoutItem *FlowLayout::itemAt(int index) const { return index >= 0 && index < count() ? m_items[size_t(index)] : nullptr; }

QLayoutItem *FlowLayout::takeAt(int index)
{
    if (index < 0 || index >= count())
        return nullptr;
    QLayoutItem *item = m_items[size_t(index)];
    m_items.erase(m_items.begin() + index);
    return item;
}

int FlowLayout::heightForWidth(int width) const { return arrange(QRect(0, 0, width, 0), false); }

QSize FlowLayout::sizeHint() const { return minimumSize(); }

QSize FlowLayout::minimumSize() const
{
    QSize size;
    for (const QLayoutItem *item : m_items)
        size = size.expandedTo(item->minimumSize());
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

void FlowLayout::setGeometry(const QRect &rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

int FlowLayout::arrange(const QRect &rect, bool place) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    int x = area.x(), y = area.y(), rowHeight = 0;
    for (QLayoutItem *item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize size = item->sizeHint();
        if (x > area.x() && x + size.width() > area.right() + 1) {
            x = area.x();
            y += rowHeight + spacing();
            rowHeight = 0;
        }
        if (place)
            item->setGeometry(QRect(QPoint(x, y), size));
        x += size.width() + spacing();
        rowHeight = std::max(rowHeight, size.height());
    }
    return y + rowHeight - rect.y() + contentsMargins().bottom();
}

} // namespace wb
