// SPDX-License-Identifier: Apache-2.0
#include "ui/form/numberspinbox.h"

#include <QLineEdit>
#include <QLocale>
#include <QStyle>
#include <QStyleOptionSpinBox>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace wb {

namespace {

constexpr int kHintChars = 12; // size hints measure at most this many characters of a bound

bool isDigits(QStringView s)
{
    return !s.isEmpty() && std::all_of(s.begin(), s.end(), [](QChar c) { return c.isDigit(); });
}

} // namespace

NumberSpinBox::NumberSpinBox(Kind kind, QWidget *parent) : QAbstractSpinBox(parent), m_kind(kind)
{
    connect(lineEdit(), &QLineEdit::textEdited, this, &NumberSpinBox::takeTyped);
    // Text left unreadable or out of range shows the value again.
    connect(this, &QAbstractSpinBox::editingFinished, this, &NumberSpinBox::showValue);
    showValue();
}

qint64 NumberSpinBox::value() const
{
    if (m_kind == Kind::Integer)
        return m_int;
    return std::isfinite(m_real) ? qint64(std::clamp(m_real, -9.2e18, 9.2e18)) : 0;
}

double NumberSpinBox::realValue() const { return m_kind == Kind::Integer ? double(m_int) : m_real; }

void NumberSpinBox::setValue(qint64 value)
{
    if (m_kind == Kind::Real)
        return setRealValue(double(value));
    assign(std::clamp(value, m_min, m_max), 0, true);
}

void NumberSpinBox::setRealValue(double value)
{
    if (m_kind == Kind::Integer)
        return setValue(std::isfinite(value) ? qint64(std::clamp(value, -9.2e18, 9.2e18)) : 0);
    assign(0, std::isnan(value) ? value : std::clamp(value, m_realMin, m_realMax), true);
}

void NumberSpinBox::setRange(qint64 minimum, qint64 maximum)
{
    m_min = minimum;
    m_max = std::max(minimum, maximum);
    m_intSpecial = minimum;
    if (m_kind == Kind::Integer && (m_int < m_min || m_int > m_max))
        assign(std::clamp(m_int, m_min, m_max), 0, true);
    updateGeometry();
}

void NumberSpinBox::setRealRange(double minimum, double maximum)
{
    m_realMin = minimum;
    m_realMax = std::max(minimum, maximum);
    m_realSpecial = minimum;
    if (m_kind == Kind::Real && (m_real < m_realMin || m_real > m_realMax))
        assign(0, std::clamp(m_real, m_realMin, m_realMax), true);
    updateGeometry();
}

void NumberSpinBox::widenTo(qint64 value)
{
    m_min = std::min(m_min, value);
    m_max = std::max(m_max, value);
}

void NumberSpinBox::widenRealTo(double value)
{
    if (std::isnan(value))
        return;
    m_realMin = std::min(m_realMin, value);
    m_realMax = std::max(m_realMax, value);
}

void NumberSpinBox::setSuffix(const QString &suffix)
{
    m_suffix = suffix;
    showValue();
    updateGeometry();
}

QString NumberSpinBox::textOf(qint64 i, double r) const
{
    const bool special = m_kind == Kind::Integer ? i == m_intSpecial : r == m_realSpecial;
    if (special && !specialValueText().isEmpty())
        return specialValueText();
    // The shortest text that reads back to the same double ("2.123456789e-05", "0.1").
    const QString number = m_kind == Kind::Integer ? QString::number(i)
                                                   : QString::number(r, 'g', QLocale::FloatingPointShortest);
    return number + m_suffix;
}

bool NumberSpinBox::parse(const QString &input, qint64 &i, double &r, bool &inRange) const
{
    inRange = false;
    if (!specialValueText().isEmpty() && input == specialValueText()) {
        i = m_intSpecial;
        r = m_realSpecial;
        inRange = true;
        return true;
    }
    QStringView text(input);
    if (!m_suffix.isEmpty() && text.endsWith(m_suffix))
        text.chop(m_suffix.size());
    text = text.trimmed();
    bool ok = false;
    if (m_kind == Kind::Integer) {
        i = text.toLongLong(&ok);
        inRange = ok && i >= m_min && i <= m_max;
    } else {
        r = QLocale::c().toDouble(text, &ok);
        ok = ok && std::isfinite(r);
        inRange = ok && r >= m_realMin && r <= m_realMax;
    }
    return ok;
}

QValidator::State NumberSpinBox::validate(QString &input, int &) const
{
    qint64 i = 0;
    double r = 0;
    bool inRange = false;
    if (parse(input, i, r, inRange))
        return inRange ? QValidator::Acceptable : QValidator::Intermediate;
    // Something on the way to a number ("", "-", "1e", "12" beyond int64) or to the special
    // text ("al" of "all") is allowed while typing.
    if (!input.isEmpty() && specialValueText().startsWith(input))
        return QValidator::Intermediate;
    QStringView text(input);
    if (!m_suffix.isEmpty() && text.endsWith(m_suffix))
        text.chop(m_suffix.size());
    text = text.trimmed();
    if (text.startsWith(u'-') || text.startsWith(u'+'))
        text = text.mid(1);
    if (m_kind == Kind::Integer)
        return text.isEmpty() || isDigits(text) ? QValidator::Intermediate : QValidator::Invalid;
    const bool numberish = std::all_of(text.begin(), text.end(), [](QChar c) {
        return c.isDigit() || c == u'.' || c == u'e' || c == u'E' || c == u'-' || c == u'+';
    });
    return numberish ? QValidator::Intermediate : QValidator::Invalid;
}

void NumberSpinBox::fixup(QString &input) const { input = currentText(); }

void NumberSpinBox::takeTyped(const QString &text)
{
    qint64 i = 0;
    double r = 0;
    bool inRange = false;
    if (parse(text, i, r, inRange) && inRange)
        assign(i, r, false); // the text stays as typed ("0.10", not "0.1")
}

void NumberSpinBox::stepBy(int steps)
{
    if (m_kind == Kind::Integer) {
        const qint64 step = std::max<qint64>(1, qint64(std::llround(m_step)));
        qint64 delta = 0, next = 0;
        if (__builtin_mul_overflow(step, qint64(steps), &delta) || __builtin_add_overflow(m_int, delta, &next))
            next = steps > 0 ? std::numeric_limits<qint64>::max() : std::numeric_limits<qint64>::min();
        assign(std::clamp(next, m_min, m_max), 0, true);
    } else {
        // Rounded to the decimals, so that 0.1 + 0.05 is the 0.15 one would type.
        const double next = QString::number(m_real + steps * m_step, 'f', m_decimals).toDouble();
        assign(0, std::clamp(next, m_realMin, m_realMax), true);
    }
    selectAll();
}

QAbstractSpinBox::StepEnabled NumberSpinBox::stepEnabled() const
{
    if (isReadOnly())
        return StepNone;
    StepEnabled e = StepNone;
    const bool up = m_kind == Kind::Integer ? m_int < m_max : m_real < m_realMax;
    const bool down = m_kind == Kind::Integer ? m_int > m_min : m_real > m_realMin;
    if (up)
        e |= StepUpEnabled;
    if (down)
        e |= StepDownEnabled;
    return e;
}

void NumberSpinBox::assign(qint64 i, double r, bool rewriteText)
{
    const bool changed = m_kind == Kind::Integer ? i != m_int
                                                 : std::memcmp(&r, &m_real, sizeof r) != 0; // -0.0 ≠ 0.0, NaN = NaN
    m_int = i;
    m_real = r;
    if (rewriteText)
        showValue();
    if (changed)
        Q_EMIT valueChanged();
}

void NumberSpinBox::showValue()
{
    const QString text = currentText();
    if (lineEdit()->text() != text) {
        lineEdit()->setText(text);
        updateGeometry(); // minimumSizeHint() fits the text shown
    }
}

QSize NumberSpinBox::hintFor(const QStringList &texts) const
{
    ensurePolished();
    const QFontMetrics fm(fontMetrics());
    int w = 0;
    for (const QString &s : texts)
        w = std::max(w, fm.horizontalAdvance(s + u' '));
    w += 2; // room for the blinking cursor, as QAbstractSpinBox leaves
    QStyleOptionSpinBox opt;
    initStyleOption(&opt);
    return style()->sizeFromContents(QStyle::CT_SpinBox, &opt, QSize(w, lineEdit()->sizeHint().height()), this);
}

QSize NumberSpinBox::sizeHint() const
{
    const QString low = m_kind == Kind::Integer ? textOf(m_min, 0) : textOf(0, m_realMin);
    const QString high = m_kind == Kind::Integer ? textOf(m_max, 0) : textOf(0, m_realMax);
    return hintFor({low.left(kHintChars), high.left(kHintChars), specialValueText(), currentText()});
}

QSize NumberSpinBox::minimumSizeHint() const
{
    // Enough for what it shows (a narrow pane still shows "off", "5000000000").
    return hintFor({specialValueText(), currentText()});
}

} // namespace wb
