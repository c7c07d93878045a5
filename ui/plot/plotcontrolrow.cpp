// SPDX-License-Identifier: Apache-2.0
#include "ui/plot/plotcontrolrow.h"

#include <QGridLayout>
#include <QResizeEvent>

#include <algorithm>

namespace wb {

PlotControlRow::PlotControlRow(QWidget *first, QWidget *second, QWidget *parent)
    : QWidget(parent), m_first(first), m_second(second), m_grid(new QGridLayout(this))
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setVerticalSpacing(2);
    arrange(false);
}

QSize PlotControlRow::minimumSizeHint() const
{
    const int width = std::max(m_first->minimumSizeHint().width(), m_second->minimumSizeHint().width());
    return {width, m_grid->minimumSize().height()};
}

void PlotControlRow::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const int both = m_first->sizeHint().width() + m_grid->horizontalSpacing() + m_second->sizeHint().width();
    arrange(event->size().width() < both);
}

void PlotControlRow::arrange(bool wrapped)
{
    if (wrapped == m_wrapped && m_grid->indexOf(m_second) >= 0)
        return;
    m_wrapped = wrapped;
    m_grid->removeWidget(m_first);
    m_grid->removeWidget(m_second);
    m_grid->addWidget(m_first, 0, 0);
    m_grid->addWidget(m_second, wrapped ? 1 : 0, wrapped ? 0 : 1);
    m_grid->setColumnStretch(0, wrapped ? 1 : 0);
    m_grid->setColumnStretch(1, wrapped ? 0 : 1);
    updateGeometry();
}

} // namespace wb
