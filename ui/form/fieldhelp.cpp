// SPDX-License-Identifier: Apache-2.0
#include "ui/form/fieldhelp.h"

#include "core/config/diagnostics.h"
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

FormValidationText formValidationText(const Diagnostics &diag)
{
    const auto q = [](const std::string &s) { return QString::fromStdString(s); };
    QStringList lines, hints, warnings;
    FormValidationText out;
    for (const Diagnostic &dg : diag.items()) {
        const OptionSpec *spec = findOption(dg.field);
        if (dg.severity != Severity::Error) {
            const bool labelled = spec && spec->group != FormGroup::None;
            const QString field = labelled ? QString::fromUtf8(spec->label) : q(dg.field);
            warnings << (field.isEmpty() ? formWording(q(dg.message))
                                         : QStringLiteral("%1: %2").arg(field, formWording(q(dg.message))));
            continue;
        }
        if (spec)
            out.fields << QString::fromLatin1(spec->flag);
        // The form's words, not the command line's: "set “BERT config” to …", not "--bert_config_file=…".
        const QString message = formWording(q(dg.message));
        const bool strategy = dg.field == "distribution_strategy" || dg.field == "num_gpus" || dg.field == "num_local_workers";
        // "BERT config", not "bert_config_file"; options without a widget keep their flag name.
        const QString label = spec && spec->group != FormGroup::None ? QString::fromUtf8(spec->label) : QString();
        lines << (strategy || dg.field.empty() ? message
                                               : QStringLiteral("%1: %2").arg(label.isEmpty() ? q(dg.field) : label, message));
        if (!dg.hint.empty())
            hints << QStringLiteral("• %1").arg(formWording(q(dg.hint)));
    }
    out.errors = lines.join(QLatin1Char('\n'));
    out.hints = hints.join(QLatin1Char('\n'));
    out.warnings = warnings.join(QLatin1Char('\n'));
    return out;
}

} // namespace wb
