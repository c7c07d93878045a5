// SPDX-License-Identifier: Apache-2.0
#include "ui/fieldhelp.h"

#include "core/config/optiontable.h"

#include <QRegularExpression>

namespace wb {

FieldHelp fieldHelp(const QString &field)
{
    if (const OptionSpec *spec = findOption(field.toStdString()))
        return {QString::fromUtf8(spec->label), QString::fromUtf8(spec->help)};
    // View settings are not training options.
    if (field == QLatin1String("smoothing"))
        return {QStringLiteral("Smoothing"),
                QStringLiteral("Averages out the step-to-step noise of the training loss, exactly as TensorBoard "
                               "does (a debiased exponential moving average). 0 shows the raw loss; 0.6 is "
                               "TensorBoard's default; 0.99 shows only the long-term trend.")};
    return {};
}

QString formWording(const QString &text)
{
    static const QRegularExpression pass(QStringLiteral("\\bpass --([a-z_]+)=(<[^>]*>|[^\\s;,()]+)"));
    static const QRegularExpression flag(QStringLiteral("--([a-z_]+)"));
    QString out = text;
    out.replace(QStringLiteral("'bert-workbench-cli prepare'"), QStringLiteral("File → Prepare Data…"));
    const auto rewrite = [&out](const QRegularExpression &re, bool withValue) {
        QString result;
        qsizetype last = 0;
        auto it = re.globalMatch(out);
        while (it.hasNext()) {
            const auto m = it.next();
            const OptionSpec *spec = findOption(m.captured(1).toStdString());
            const bool inForm = spec && spec->group != FormGroup::None;
            const QString label = inForm ? QString::fromUtf8(spec->label) : QString();
            result += out.mid(last, m.capturedStart() - last);
            if (!inForm)
                result += m.captured(0);
            else if (withValue)
                result += QStringLiteral("set “%1” to %2").arg(label, m.captured(2));
            else
                result += QStringLiteral("“%1”").arg(label);
            last = m.capturedEnd();
        }
        result += out.mid(last);
        out = result;
    };
    rewrite(pass, true);
    rewrite(flag, false);
    return out;
}

} // namespace wb
