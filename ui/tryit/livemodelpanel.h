// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/common/backgroundjob.h"

#include <QWidget>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

class QLabel;
class QTimer;

namespace wb {

/// What Try it (TryItPanel) and fill-in-the-blank (FillMaskPanel) share: a model that answers
/// as the user types. scheduleRefresh() (typing, a new source) restarts a kDebounceMs timer
/// while the panel is visible; then refreshNow() cancels the job in flight and starts the
/// panel's request (startRequest(), through runRequestJob()) as a background job with a new
/// generation number. An outcome whose generation is not the latest is dropped
/// (droppedResults()); the panel shows any other, then outcomeShown() is emitted.
/// A checkpoint saved in the form's model_dir (checkpointSaved()) raises the reload epoch
/// (reloadEpoch()), which the request carries so that its job loads the model again. Hidden, the
/// panel does no work; shown, it schedules a refresh (cheap when nothing changed: the job finds
/// the same checkpoint and keeps the loaded model). The model line says which weights answer
/// ("Model: none" when none do). The destructor cancels the job and waits for it (it may be
/// loading a model). GUI thread only.
class LiveModelPanel : public QWidget
{
    Q_OBJECT
public:
    /// Debounce between the last keystroke and the request, in milliseconds.
    static constexpr int kDebounceMs = 300;

    ~LiveModelPanel() override;

    /// Starts a request now (no debounce), cancelling the one in flight. Returns its generation.
    uint64_t refreshNow();
    /// Whether a request's job is still running.
    bool isBusy() const { return m_job.isRunning(); }
    /// Generation of the latest request (0 before any).
    uint64_t generation() const { return m_generation; }
    /// Generation of the outcome shown now (0 before any).
    uint64_t shownGeneration() const { return m_shownGeneration; }
    /// Outcomes that arrived after a newer request had been started, and were dropped.
    int droppedResults() const { return m_dropped; }
    /// The "Model: …" line (which file the weights came from).
    QString modelLine() const;
    /// The model line's detail (its tooltip): the weights' full path and where the run's other
    /// files came from; "" without a model.
    QString modelDetail() const;

public Q_SLOTS:
    /// A checkpoint was saved in `modelDir` (training runs): when it is the form's model_dir
    /// (formModelDir()), the panel follows the run (followFormRun()), and loads the model and
    /// answers the current text again (when shown; else when it is shown next).
    void checkpointSaved(const QString &modelDir);

Q_SIGNALS:
    /// A request ended and its outcome (a result, a message or an error) is now shown.
    void outcomeShown(quint64 generation);

protected:
    explicit LiveModelPanel(QWidget *parent);

    void showEvent(QShowEvent *event) override;
    /// Restarts the debounce when the panel is visible (typing, a new source).
    void scheduleRefresh();
    /// Raised by each checkpoint of the form's run; a request carries it to its job.
    uint64_t reloadEpoch() const { return m_reloadEpoch; }
    /// Runs `work(const JobControl &) -> Outcome` as request `generation`'s background job
    /// (runBackgroundJob; `work` captures only values and shared_ptrs). When it ends and is still
    /// the latest request, `show(const JobOutcome<Outcome> &)` shows it on the GUI thread and
    /// outcomeShown(generation) is emitted; else the outcome is dropped.
    template<class Outcome, class Work, class Show>
    JobHandle runRequestJob(uint64_t generation, Work work, Show show)
    {
        return runBackgroundJob<Outcome>(this, std::move(work),
                                         [this, generation, show = std::move(show)](JobOutcome<Outcome> outcome) {
                                             if (!acceptOutcome(generation))
                                                 return;
                                             show(outcome);
                                             Q_EMIT outcomeShown(generation);
                                         });
    }

    /// Makes the model line (named `objectName`, wraps, selectable) showing `text`, for the
    /// panel's layout.
    QLabel *newModelLine(const QString &objectName, const QString &text = QString());
    /// Sets the model line to `text`.
    void setModelLine(const QString &text);
    /// The model line of loaded weights: "Model: <file> — <weightsLabel> (max_seq_length N)"
    /// (without " — …" when the label is empty). The file is short: "run-1/ckpt-338" for a
    /// checkpoint of the form's model_dir, "… of org/name (cached)" in the Hugging Face cache
    /// (pathInWindowWords). Its tooltip (modelDetail()) has the full path and `notes`: where the
    /// other files came from.
    void showLoadedModel(const std::string &weightsPath, const std::string &weightsLabel, int64_t maxSeqLength,
                         const std::vector<std::string> &notes = {});
    /// No model answers: the answer cleared (clearResult()), "Model: none" and `message` (not
    /// an error) on the message line.
    void showNoModel(const QString &message);

    /// Clears the answer shown.
    virtual void clearResult() = 0;
    /// Shows `text` on the panel's message line, as an error or not.
    virtual void showMessage(const QString &text, bool isError) = 0;
    /// Starts the request of what the panel shows now (runRequestJob(generation, …)); returns
    /// its job's handle.
    virtual JobHandle startRequest(uint64_t generation) = 0;
    /// The form's model_dir, whose checkpoints the panel follows.
    virtual std::string formModelDir() const = 0;
    /// A checkpoint of the form's run was saved: what the panel drops to follow it (nothing by default).
    virtual void followFormRun() {}

private:
    /// False (the outcome is dropped and counted) when `generation` is not the latest
    /// request's; else it becomes shownGeneration().
    bool acceptOutcome(uint64_t generation);

    uint64_t m_reloadEpoch = 0;
    uint64_t m_generation = 0;
    uint64_t m_shownGeneration = 0;
    int m_dropped = 0;
    JobHandle m_job;
    QTimer *m_debounce;
    QLabel *m_modelLine = nullptr;
};

} // namespace wb
