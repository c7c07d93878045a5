// SPDX-License-Identifier: Apache-2.0
#pragma once

// Constructors of the small widgets that the form, the dialogs and Try it make alike: a named
// text field with its placeholder, a named label that wraps and whose text can be selected
// and copied (a model line, an error, a summary). GUI thread only.

#include <QString>
#include <Qt>

class QLabel;

namespace wb {

/// A new text field (QLineEdit, QPlainTextEdit) named `objectName` that shows `placeholder`
/// while it is empty.
template<class Edit>
Edit *newTextField(const QString &objectName, const QString &placeholder)
{
    auto *edit = new Edit;
    edit->setObjectName(objectName);
    edit->setPlaceholderText(placeholder);
    return edit;
}

/// A new empty label named `objectName` whose text wraps, is read as `format` and can be
/// selected with the mouse (and copied).
QLabel *newSelectableLabel(const QString &objectName, Qt::TextFormat format = Qt::AutoText);

} // namespace wb
