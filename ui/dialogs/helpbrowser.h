// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

class QTextBrowser;

namespace wb {

/// Help → Tutorial (F1) and Troubleshooting inside the window: a QTextBrowser (object name
/// "helpBrowser") that renders a Markdown document of docs/ (CommonMark with GitHub's tables,
/// QTextDocument::MarkdownResource) with its images, read from the document's folder, offline.
/// Links to other documents of that folder open in the browser, web links in the desktop's
/// browser. Non-modal; the window keeps one. GUI thread only.
class HelpBrowser : public QDialog
{
    Q_OBJECT
public:
    explicit HelpBrowser(QWidget *parent = nullptr);

    /// Shows the Markdown file `path` (absolute); false (and nothing shown) when it cannot be read.
    bool showDocument(const QString &path);
    QTextBrowser *browser() const { return m_browser; }
    /// The document shown (its absolute path), "" before.
    QString documentPath() const { return m_path; }

private:
    QTextBrowser *m_browser = nullptr;
    QString m_path;
};

} // namespace wb
