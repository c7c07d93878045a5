// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QListWidget;

namespace wb {

/// The first step for an empty window (issue 16 item 12): Open Example, Prepare Data, New
/// Project, the recent projects and three lines on how fine-tuning works here. Shown as the
/// first tab until a project is open. Object names: "startOpenExample", "startPrepareData",
/// "startNewProject", "startPretrainingLesson", "recentProjectsList". GUI thread only.
class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget *parent = nullptr);

    /// Lists `projects` (newest first) under "Recent projects", after the example and the
    /// pretraining lesson when their folders exist in `cacheDir` (example-spam,
    /// pretraining-lesson; empty: defaultExampleCacheDir(), $XDG_CACHE_HOME/bert-workbench):
    /// activating one of those emits openExampleRequested() or pretrainingLessonRequested(), as
    /// File → Open Example and File → Why Pretraining Matters do. Reads two folder entries.
    void setRecentProjects(const QStringList &projects, const QString &cacheDir = QString());
    QListWidget *recentProjectsList() const { return m_recent; }

Q_SIGNALS:
    void openExampleRequested();
    /// "Why pretraining matters": the example's pretraining lesson (docs/tutorial.md, section 7).
    void pretrainingLessonRequested();
    void prepareDataRequested();
    void newProjectRequested();
    void openProjectRequested(const QString &path);

private:
    QListWidget *m_recent;
};

} // namespace wb
