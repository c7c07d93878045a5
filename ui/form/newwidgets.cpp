// SPDX-License-Identifier: Apache-2.0
#include "ui/form/newwidgets.h"

#include <QLabel>

namespace wb {

QLabel *newSelectableLabel(const QString &objectName, Qt::TextFormat format)
{
    auto *label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(format);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace wb
