// SPDX-License-Identifier: Apache-2.0
#include "ui/form/wheelguard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFocusEvent>
#include <QScrollBar>
#include <QWidget>

namespace wb {

namespace {

const char *const kGuardedRoot = "wbWheelGuarded"; // property marking a root passed to guardWheel()
const char *const kUserFocus = "wbUserFocused";    // property: the user focused, clicked or typed into the field
const char *const kFilterName = "wbWheelGuard";    // object name of the application's filter

bool isField(const QWidget *w)
{
    return qobject_cast<const QAbstractSpinBox *>(w) || qobject_cast<const QComboBox *>(w)
           || (qobject_cast<const QAbstractSlider *>(w) && !qobject_cast<const QScrollBar *>(w));
}

bool isGuarded(const QWidget *w)
{
    for (; w; w = w->parentWidget())
        if (w->property(kGuardedRoot).toBool())
            return true;
    return false;
}

/// A field that takes focus at all takes it from a click or Tab only, never from the wheel.
void strongFocus(QWidget *field)
{
    if (field->focusPolicy() != Qt::NoFocus)
        field->setFocusPolicy(Qt::StrongFocus);
}

/// The guarded field `w` is, or whose inner part it is (a spin box's line edit), or nullptr.
QWidget *guardedField(QWidget *w)
{
    if (!isField(w) && w->parentWidget() && isField(w->parentWidget()))
        w = w->parentWidget();
    return isField(w) && isGuarded(w) ? w : nullptr;
}

/// Focus that comes and goes without the user choosing a field: the window (re)activated, a
/// menu or popup opened over it. The first field of a window gets focus when the window is
/// first shown; that alone must not let the wheel change it.
bool isPassingFocus(Qt::FocusReason reason)
{
    return reason == Qt::ActiveWindowFocusReason || reason == Qt::PopupFocusReason || reason == Qt::MenuBarFocusReason;
}

/// Focus the user moved (to another field): a click, Tab, Backtab, a label's shortcut. A combo
/// box's own list taking focus while open is none of these.
bool isUserMove(Qt::FocusReason reason)
{
    return reason == Qt::MouseFocusReason || reason == Qt::TabFocusReason || reason == Qt::BacktabFocusReason
           || reason == Qt::ShortcutFocusReason;
}

class WheelGuard : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        const QEvent::Type type = event->type();
        if (!watched->isWidgetType())
            return false;
        switch (type) {
        case QEvent::Polish:
        case QEvent::Wheel:
        case QEvent::FocusIn:
        case QEvent::FocusOut:
        case QEvent::MouseButtonPress:
        case QEvent::KeyPress:
            break;
        default:
            return false;
        }
        QWidget *field = guardedField(static_cast<QWidget *>(watched));
        if (!field)
            return false;
        switch (type) {
        case QEvent::Polish: // a field created after guardWheel(), before it is first shown
            strongFocus(field);
            return false;
        case QEvent::FocusIn:
            if (!isPassingFocus(static_cast<QFocusEvent *>(event)->reason()))
                field->setProperty(kUserFocus, true); // a click, Tab, a label's shortcut, the program
            return false;
        case QEvent::FocusOut:
            if (isUserMove(static_cast<QFocusEvent *>(event)->reason()))
                field->setProperty(kUserFocus, false); // the user went to another field
            return false;
        case QEvent::MouseButtonPress: // into a field that already has the window's first focus
        case QEvent::KeyPress:
            if (field->hasFocus())
                field->setProperty(kUserFocus, true);
            return false;
        default:
            break;
        }
        if (field->hasFocus() && field->property(kUserFocus).toBool())
            return false;
        // Filtered but not accepted: QApplication hands a spontaneous wheel event on to the
        // parent, and the scroll area around the form scrolls.
        event->ignore();
        return true;
    }
};

} // namespace

void guardWheel(QWidget *root)
{
    QCoreApplication *app = QCoreApplication::instance();
    if (!app->findChild<QObject *>(QLatin1String(kFilterName), Qt::FindDirectChildrenOnly)) {
        auto *guard = new WheelGuard(app);
        guard->setObjectName(QLatin1String(kFilterName));
        app->installEventFilter(guard);
    }
    root->setProperty(kGuardedRoot, true);
    if (isField(root))
        strongFocus(root);
    for (QWidget *w : root->findChildren<QWidget *>())
        if (isField(w))
            strongFocus(w);
}

} // namespace wb
