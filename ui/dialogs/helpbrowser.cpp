// SPDX-License-Identifier: Apache-2.0
#include "ui/dialogs/helpbrowser.h"

#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QGuiApplication>
#include <QScreen>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace wb {

HelpBrowser::HelpBrowser(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("helpDialog"));
    setWindowTitle(tr("BERT Workbench help"));
    m_browser = new QTextBrowser;
    m_browser->setObjectName(QStringLiteral("helpBrowser"));
    m_browser->setOpenLinks(false); // web links go to the desktop's browser, local ones stay here
    connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.isLocalFile() || url.isRelative()) {
            const QUrl target = m_browser->source().resolved(url);
            if (target.fileName().endsWith(QLatin1String(".md")) && QFileInfo(target.toLocalFile()).isFile()) {
                showDocument(target.toLocalFile());
                return;
            }
            if (!url.fragment().isEmpty() && target.path() == m_browser->source().path()) {
                m_browser->scrollToAnchor(url.fragment());
                return;
            }
        }
        QDesktopServices::openUrl(url);
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_browser, 1);
    layout->addWidget(buttons);
    // Readable, but never larger than the screen (1024×700 laptops).
    const QRect avail = (parent && parent->screen() ? parent->screen() : QGuiApplication::primaryScreen())->availableGeometry();
    resize(std::min(900, avail.width() - 40), std::min(760, avail.height() - 60));
}

bool HelpBrowser::showDocument(const QString &path)
{
    const QFileInfo file(path);
    if (!file.isFile() || !file.isReadable())
        return false;
    m_path = file.absoluteFilePath();
    // Images such as screenshots/x.png resolve against the document's own folder.
    m_browser->setSearchPaths({file.absolutePath()});
    m_browser->setSource(QUrl::fromLocalFile(m_path), QTextDocument::MarkdownResource);
    setWindowTitle(tr("%1 — BERT Workbench help").arg(file.completeBaseName()));
    return true;
}

} // namespace wb
