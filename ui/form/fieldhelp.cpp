// SPDX-License-Identifier: Apache-2.0
#include "ui/form/fieldhelp.h"

#include "core/config/diagnostics.h"
#include "core/config/optiontable.h"

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
            warnings << (field.isEmpty() ? q(dg.message)
                                         : QStringLiteral("%1: %2").arg(field, q(dg.message)));
            continue;
        }
        if (spec)
            out.fields << QString::fromLatin1(spec->flag);
        // The core wrote it in the form's words: "set “BERT config” to …", not "--bert_config_file=…".
        const QString message = q(dg.message);
        const bool strategy = dg.field == "distribution_strategy" || dg.field == "num_gpus" || dg.field == "num_local_workers";
        // "BERT config", not "bert_config_file"; options without a widget keep their flag name.
        const QString label = spec && spec->group != FormGroup::None ? QString::fromUtf8(spec->label) : QString();
        lines << (strategy || dg.field.empty() ? message
                                               : QStringLiteral("%1: %2").arg(label.isEmpty() ? q(dg.field) : label, message));
        if (!dg.hint.empty())
            hints << QStringLiteral("• %1").arg(q(dg.hint));
    }
    out.errors = lines.join(QLatin1Char('\n'));
    out.hints = hints.join(QLatin1Char('\n'));
    out.warnings = warnings.join(QLatin1Char('\n'));
    return out;
}

} // namespace wb
