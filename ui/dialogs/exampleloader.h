// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/prepare/exampledata.h"
#include "core/corpus/pretraininglesson.h"
#include "ui/common/backgroundjob.h"

#include <QObject>

class QProgressDialog;
class QWidget;

namespace wb {

/// File → Open Example: obtains and prepares the spam-detection example
/// (ensureExampleData) as a background job with a window-modal progress dialog (object
/// name "exampleProgress") whose Cancel stops it. GUI thread only.
class ExampleLoader : public QObject
{
    Q_OBJECT
public:
    /// `window` parents the progress dialog.
    explicit ExampleLoader(QWidget *window);
    /// Cancels a running job and waits for it.
    ~ExampleLoader() override;

    bool isRunning() const { return m_job.isRunning(); }
    /// Starts the job; does nothing while one runs.
    void start();
    /// The pretraining lesson (docs/tutorial.md, section 7): obtains the example as start()
    /// does, then prepares the lesson's data (preparePretrainingLesson) in
    /// <cache>/pretraining-lesson and emits lessonPrepared() with its three runs. Does nothing
    /// while a job runs.
    void startLesson();

    /// Returns the example's project options: one_device on the CPU, BERT-Tiny, 3 epochs
    /// with 2 evaluations each; from the pretrained BERT-Tiny when paths.pretrained_model is
    /// set (learning rate 1e-4, model_dir <project_dir>/runs/pretrained-1), else from random
    /// weights (5e-4, <project_dir>/runs/run-1).
    static TrainingOptions projectOptions(const ExampleDataPaths &paths);
    /// The example's start, the last step of start(): resolves the pretrained BERT-Tiny
    /// (kExamplePretrainedModel) from the Hub or the Hugging Face cache (HubSettings from the
    /// environment, one attempt, 10 s to connect) and sets paths.pretrained_model and
    /// paths.start_note ("fine-tunes the pretrained BERT-Tiny (<folder>)"); when it cannot be
    /// had, leaves pretrained_model empty and says why in start_note ("trains BERT-Tiny from
    /// random weights: …"). Rethrows only after `stop`. Any thread; may use the network.
    static void chooseStart(ExampleDataPaths &paths, const StopToken &stop);

Q_SIGNALS:
    void logMessage(const QString &line);
    /// The example's files are ready.
    void prepared(const wb::ExampleDataPaths &paths);
    /// The lesson's data is ready: its runs, in order (pretrainingLessonRuns).
    void lessonPrepared(const std::vector<wb::PretrainingLessonRun> &runs);
    /// The job failed (not emitted after Cancel).
    void failed(const wb::ErrorReport &error);

private:
    void showProgressDialog(const QString &title);
    /// Runs `work` (a JobControl's job returning T) as the job behind the progress dialog, each
    /// stage shown as `stageText` with the stage for %1. At its end the dialog is hidden; then a
    /// cancelled job logs `cancelledText`, a failed one emits failed(), else `done` gets the value.
    template<typename T, typename Work, typename Done>
    void runJob(Work work, const QString &stageText, const QString &cancelledText, Done done);

    QWidget *m_window;
    QProgressDialog *m_progress = nullptr;
    JobHandle m_job;
};

} // namespace wb
