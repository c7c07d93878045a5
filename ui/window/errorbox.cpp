// SPDX-License-Identifier: Apache-2.0
#include "ui/window/errorbox.h"

#include <QMessageBox>

namespace wb {

void openErrorBox(QWidget *parent, const QString &title, const ErrorReport &error, const QString &objectName)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, error.message, QMessageBox::Ok, parent);
    box->setObjectName(objectName.isEmpty() ? QStringLiteral("errorDialog") : objectName);
    box->setTextFormat(Qt::PlainText);
    if (!error.hint.isEmpty())
        box->setInformativeText(QObject::tr("How to fix: %1").arg(error.hint));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

} // namespace wb
