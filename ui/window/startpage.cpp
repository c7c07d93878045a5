// SPDX-License-Identifier: Apache-2.0
#include "ui/window/startpage.h"

#include "core/prepare/exampledata.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace wb {

namespace {

/// Item data (Qt::UserRole + 1) of the example's and the lesson's entries in Recent projects.
constexpr int kEntryKindRole = Qt::UserRole + 1;
const QString kExampleEntry = QStringLiteral("example");
const QString kLessonEntry = QStringLiteral("lesson");

/// `path` with the home folder as "~".
QString shortPath(const QString &path)
{
    const QString home = QDir::homePath();
    return path.startsWith(home + QLatin1Char('/')) ? QStringLiteral("~") + path.mid(home.size()) : path;
}

} // namespace

StartPage::StartPage(QWidget *parent) : QWidget(parent), m_recent(new QListWidget(this))
{
    auto *title = new QLabel(tr("<h2>Fine-tune a BERT text classifier</h2>"), this);
    auto *how = new QLabel(tr("<ol>"
                              "<li><b>Prepare</b> labelled texts into TFRecords (File → Prepare Data), or open the example.</li>"
                              "<li><b>Choose</b> a strategy, the model config and the data on the left; the schedule "
                              "shows the steps it gives.</li>"
                              "<li><b>Train</b> and watch the loss fall and the eval accuracy rise above the "
                              "majority-class baseline; Stop and Resume at any checkpoint.</li>"
                              "</ol>"),
                           this);
    how->setWordWrap(true);
    auto button = [this](const QString &text, const QString &name, const QString &tip) {
        auto *b = new QPushButton(text, this);
        b->setObjectName(name);
        b->setToolTip(tip);
        b->setMinimumHeight(36);
        return b;
    };
    QPushButton *example = button(tr("Open the Example (spam detection)"), QStringLiteral("startOpenExample"),
                                  tr("Prepares a small spam/ham data set and a BERT-Tiny project, ready to train"));
    QPushButton *lesson = button(tr("Why Pretraining Matters (lesson)"), QStringLiteral("startPretrainingLesson"),
                                 tr("Pretrains BERT-Tiny on the example's mails without their labels, then fine-tunes it "
                                    "on 200 labelled mails next to a fine-tune from random weights: three runs, one after "
                                    "another, compared in Compare runs"));
    QPushButton *prepare = button(tr("Prepare Data…"), QStringLiteral("startPrepareData"),
                                  tr("Turn your own labelled texts (folders, CSV/TSV) into training data, or your own "
                                     "text into pretraining data"));
    QPushButton *fresh = button(tr("New Project"), QStringLiteral("startNewProject"),
                                tr("Start with an empty form"));
    connect(example, &QPushButton::clicked, this, &StartPage::openExampleRequested);
    connect(lesson, &QPushButton::clicked, this, &StartPage::pretrainingLessonRequested);
    connect(prepare, &QPushButton::clicked, this, &StartPage::prepareDataRequested);
    connect(fresh, &QPushButton::clicked, this, &StartPage::newProjectRequested);
    m_recent->setObjectName(QStringLiteral("recentProjectsList"));
    m_recent->setToolTip(tr("Double-click to open"));
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const QString kind = item->data(kEntryKindRole).toString();
        if (kind == kExampleEntry)
            Q_EMIT openExampleRequested();
        else if (kind == kLessonEntry)
            Q_EMIT pretrainingLessonRequested();
        else
            Q_EMIT openProjectRequested(item->data(Qt::UserRole).toString());
    });

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(example);
    buttons->addWidget(prepare);
    buttons->addWidget(fresh);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 12, 24, 12);
    layout->addWidget(title);
    layout->addWidget(how);
    layout->addLayout(buttons);
    auto *lessonRow = new QHBoxLayout; // its own row: the window's narrowest width stays the three buttons'
    lessonRow->addWidget(lesson);
    lessonRow->addStretch(1);
    layout->addLayout(lessonRow);
    layout->addSpacing(12);
    layout->addWidget(new QLabel(tr("<b>Recent projects</b>"), this));
    layout->addWidget(m_recent, 1);
}

void StartPage::setRecentProjects(const QStringList &projects, const QString &cacheDir)
{
    m_recent->clear();
    // The example and the lesson live in the cache, not in a project file of the user's: listed
    // while their folders exist, opened as their File menu items open them.
    const QDir cache(cacheDir.isEmpty() ? QString::fromStdString(defaultExampleCacheDir()) : cacheDir);
    const struct
    {
        const QString &kind;
        QString folder, text, tip;
    } entries[] = {
        {kExampleEntry, QStringLiteral("example-spam"), tr("Example: spam detection"),
         tr("Opens the example as File → Open Example does (its project and runs in %1)")},
        {kLessonEntry, QStringLiteral("pretraining-lesson"), tr("Lesson: Why Pretraining Matters"),
         tr("Runs the lesson again as File → Why Pretraining Matters does (its data and runs in %1)")},
    };
    for (const auto &e : entries) {
        const QString folder = cache.filePath(e.folder);
        if (!QFileInfo(folder).isDir())
            continue;
        auto *item = new QListWidgetItem(tr("%1 — %2").arg(e.text, shortPath(folder)), m_recent);
        item->setData(Qt::UserRole, folder);
        item->setData(kEntryKindRole, e.kind);
        item->setToolTip(e.tip.arg(folder));
    }
    for (const QString &p : projects) {
        auto *item = new QListWidgetItem(p, m_recent);
        item->setData(Qt::UserRole, p);
    }
    if (m_recent->count() == 0) {
        auto *item = new QListWidgetItem(tr("(none yet)"), m_recent);
        item->setFlags(Qt::NoItemFlags);
    }
}

} // namespace wb
