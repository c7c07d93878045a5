// SPDX-License-Identifier: Apache-2.0
#pragma once

// Output panes that follow their end (the Log tab, the export's result): a new line scrolls to
// it unless the reader has scrolled up to read an earlier one. GUI thread only.

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QString>
#include <QTextCursor>

namespace wb {

/// Whether `edit` shows its last line: the vertical scroll bar at its end (true for a pane
/// that has never been laid out, e.g. a tab not yet shown).
inline bool showsEnd(const QPlainTextEdit *edit)
{
    const QScrollBar *bar = edit->verticalScrollBar();
    return bar->value() >= bar->maximum();
}

/// Moves the text cursor to the end and scrolls there. A hidden pane scrolls when it is shown
/// (QPlainTextEdit shows its cursor on the first show after an append).
inline void showEnd(QPlainTextEdit *edit)
{
    edit->moveCursor(QTextCursor::End);
    edit->ensureCursorVisible();
    edit->verticalScrollBar()->setValue(edit->verticalScrollBar()->maximum());
}

/// Appends `text` as a new paragraph; `edit` follows its end when it showed the end before
/// (a reader who scrolled up stays where they are, their selection too).
inline void appendFollowingEnd(QPlainTextEdit *edit, const QString &text)
{
    const bool follow = showsEnd(edit);
    edit->appendPlainText(text);
    if (follow)
        showEnd(edit);
}

/// Replaces the text of `edit` by `text` and shows its end (the last lines say how it ended).
inline void setTextShowingEnd(QPlainTextEdit *edit, const QString &text)
{
    edit->setPlainText(text);
    showEnd(edit);
}

} // namespace wb
