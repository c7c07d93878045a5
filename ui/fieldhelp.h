// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace wb {

/// Plain-language help for one configuration field (teaching aid: tooltip and "?" button).
struct FieldHelp
{
    QString label;   ///< short label shown next to the field
    QString text;    ///< what it does and typical values, a few sentences, plain text
};

/// Returns the help for `field` (a run_classifier flag name such as "learning_rate");
/// an empty FieldHelp for unknown names. Thread-safe.
FieldHelp fieldHelp(const QString &field);

} // namespace wb
