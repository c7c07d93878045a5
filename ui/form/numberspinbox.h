// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractSpinBox>

namespace wb {

/// A spin box for one number option that shows, and gives back, exactly the value it was set
/// to: an Integer box holds the whole int64 range (QSpinBox holds int, so a seed above INT_MAX
/// could not be shown), a Real box shows its value in the shortest text that reads back to the
/// same double (QDoubleSpinBox rounds every value to its decimals, 0.0123456789 → 0.0123).
///
/// The arrow keys, the arrow buttons and the wheel (with focus, ui/form/wheelguard.h) step by
/// singleStep(), within the range; a stepped real is rounded to decimals() (0.1 + 0.05 gives
/// 0.15, not 0.15000000000000002). Typed text is taken as typed; text that does not parse or
/// lies outside the range is put back to the value when editing finishes. Numbers are written
/// and read in the C locale ("2.5e-05"), as the command line and project files write them.
/// specialValueText() is shown for the minimum given to setRange()/setRealRange(), as
/// QSpinBox does; widenTo() keeps it there. valueChanged() follows every change of the value:
/// typed, stepped or set. GUI thread only.
class NumberSpinBox : public QAbstractSpinBox
{
    Q_OBJECT
public:
    enum class Kind
    {
        Integer, ///< int64 values: value(), setValue(), setRange()
        Real,    ///< double values: realValue(), setRealValue(), setRealRange()
    };
    explicit NumberSpinBox(Kind kind, QWidget *parent = nullptr);

    Kind kind() const { return m_kind; }

    /// Integer: the value. Real: the value truncated towards zero.
    qint64 value() const;
    /// Sets the value, clamped to the range; emits valueChanged() when it changed.
    void setValue(qint64 value);
    void setRange(qint64 minimum, qint64 maximum);
    qint64 minimum() const { return m_min; }
    qint64 maximum() const { return m_max; }
    /// Extends the range so that it holds `value` (a loaded value the form's range does not
    /// allow is shown as it is; validation reports it). The special value stays where it was.
    void widenTo(qint64 value);

    /// Real: the value. Integer: the value as a double.
    double realValue() const;
    void setRealValue(double value);
    void setRealRange(double minimum, double maximum);
    double realMinimum() const { return m_realMin; }
    double realMaximum() const { return m_realMax; }
    void widenRealTo(double value);
    /// Decimals a stepped Real value is rounded to (default 2).
    void setDecimals(int decimals) { m_decimals = decimals; }
    int decimals() const { return m_decimals; }

    /// The step of the arrows and the wheel (an Integer box uses it rounded, at least 1).
    void setSingleStep(double step) { m_step = step; }
    double singleStep() const { return m_step; }
    /// Text after the number (" s"); the value is read without it.
    void setSuffix(const QString &suffix);
    QString suffix() const { return m_suffix; }

    void stepBy(int steps) override;
    QValidator::State validate(QString &input, int &pos) const override;
    void fixup(QString &input) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void valueChanged();

protected:
    StepEnabled stepEnabled() const override;

private:
    /// The text of `i` (Integer) or `r` (Real), with the special text and the suffix.
    QString textOf(qint64 i, double r) const;
    QString currentText() const { return textOf(m_int, m_real); }
    /// Parses `input` (special text, number and suffix); false when it is no number in range.
    bool parse(const QString &input, qint64 &i, double &r, bool &inRange) const;
    void showValue();
    void takeTyped(const QString &text);
    /// Sets the value without clamping; emits valueChanged() when it changed.
    void assign(qint64 i, double r, bool rewriteText);
    QSize hintFor(const QStringList &texts) const;

    Kind m_kind;
    qint64 m_int = 0, m_min = 0, m_max = 99, m_intSpecial = 0;
    double m_real = 0, m_realMin = 0, m_realMax = 99, m_realSpecial = 0;
    double m_step = 1;
    int m_decimals = 2;
    QString m_suffix;
};

} // namespace wb
