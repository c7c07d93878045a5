// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

namespace wb {

class Diagnostics;

/// Plain-language help for one configuration field (teaching aid: tooltip and "?" button).
struct FieldHelp
{
    QString label;   ///< short label shown next to the field
    QString text;    ///< what it does and typical values, a few sentences, plain text
};

/// Returns the help for `field` (a flag name or alias of optionTable() such as
/// "learning_rate", whose label and help text it returns, or the view setting "smoothing");
/// an empty FieldHelp for unknown names. Thread-safe.
FieldHelp fieldHelp(const QString &field);

/// A failed pre-flight check in the form's words, as Train's validation dialog and the
/// learning-rate finder show it.
struct FormValidationText
{
    QString errors;      ///< one line per error: "<form label>: <message>" (strategy errors unprefixed)
    QString hints;       ///< "• <hint>" lines, or empty
    QString warnings;    ///< "<form label or field>: <message>" lines of the warnings (form words), or empty
    QStringList fields;  ///< flags of the options named by an error (to highlight in the form)
};

/// Returns `diag`'s errors, hints and warnings as the form shows them: fields by their form
/// label, options without a widget by their flag name; the core words the messages themselves
/// (core/config/optionwords.h). Thread-safe.
FormValidationText formValidationText(const Diagnostics &diag);

} // namespace wb
