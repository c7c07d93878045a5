// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/common/errorreport.h"

#include <QString>

class QWidget;

namespace wb {

/// Opens a window-modal warning box over `parent` titled `title`: `error`'s message as plain
/// text and, when it has a hint, "How to fix: <hint>" below it. Returns at once; the box
/// deletes itself when closed. Object name `objectName`, or "errorDialog" when empty (the tests
/// find the box by it). GUI thread only.
void openErrorBox(QWidget *parent, const QString &title, const ErrorReport &error, const QString &objectName = {});

} // namespace wb
