// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QLayout>
#include <QString>
#include <QWidget>

#include <vector>

namespace wb {

/// The diverging colours of token attributions (ColorBrewer's RdBu ends): "for" the
/// explained class blue, "against" it red, white at 0.
inline const QColor kAttributionFor{0x21, 0x66, 0xac};
inline const QColor kAttributionAgainst{0xb2, 0x18, 0x2b};

/// The style sheet of a wordpiece chip in Try it: .arg(background, border, text colour).
inline const QString kChipStyle =
    QStringLiteral("QLabel{background:%1;border:1px solid %2;border-radius:4px;padding:1px 4px;color:%3}");

/// The background of a chip whose attribution is `a` when the largest |attribution| of the
/// text is `maxAbs`: t = min(|a| / maxAbs, 1); each RGB channel is
/// round(255 + t · (end − 255)), end = kAttributionFor for a > 0, kAttributionAgainst for
/// a < 0. White for a = 0, a non-finite a or maxAbs ≤ 0.
QColor attributionColour(double a, double maxAbs);
/// Black text on light chips, white on dark ones (t > 0.55).
QColor attributionTextColour(double a, double maxAbs);

/// The legend under the shaded chips: a bar from "against" (red, −max) over white (0) to
/// "for" (blue, +max), with the numbers at its ends, in logits of the explained class.
class AttributionLegend : public QWidget
{
    Q_OBJECT
public:
    explicit AttributionLegend(QWidget *parent = nullptr);
    /// The scale (max |attribution|) and the explained class's name.
    void setScale(double maxAbs, const QString &target);
    double maxAbs() const { return m_max; }
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    double m_max = 0;
    QString m_target;
};

/// Lays its items out left to right at their size hints and wraps them into rows where the width
/// ends (the wordpiece chips; the "Which words decided" row, which wraps instead of cutting its
/// boxes' names). Owns its items. GUI thread only.
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr, int margin = 6, int spacing = 4);
    ~FlowLayout() override;
    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSize() const override;
    void setGeometry(const QRect &rect) override;

private:
    int arrange(const QRect &rect, bool place) const;
    std::vector<QLayoutItem *> m_items;
};

} // namespace wb
