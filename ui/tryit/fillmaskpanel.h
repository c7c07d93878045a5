// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/infer/fillmask.h"
#include "ui/common/backgroundjob.h"

#include <QWidget>

#include <cstdint>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QTimer;
class QVBoxLayout;

namespace wb {

struct FillMaskCache;
struct FillMaskOutcome;

/// "Try it" for a masked LM (issue 24): the user types a text with [MASK] ("the meeting is on
/// [MASK]") and sees, for each [MASK], the model's 10 most probable tokens with their softmax
/// probabilities as bars (FillMaskPredictor::predict, the numbers of `fill_mask`). The model is
/// the form's pretraining model_dir (setFormSource(): its best checkpoint when kept, else its
/// latest) and is loaded again at each checkpoint of its run (checkpointSaved()).
///
/// Typing restarts a ~300 ms debounce; then the prediction runs as a background job
/// (runBackgroundJob); a result that arrives after a newer request was started is dropped.
/// The loaded predictor is cached across requests (one job uses it at a time) and reloaded
/// only when the source or the reload epoch changes. Hidden, the panel does no work. Errors
/// (no [MASK], a classifier's model_dir) are shown inline. Object names: "fillMaskText",
/// "fillMaskModel", "fillMaskMessage", "fillMaskResults"; one "fillMaskBlankN" box per [MASK]
/// (N from 1) with "fillMaskBarN_K" bars (K from 1). GUI thread only.
class FillMaskPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 300;
    static constexpr int kTopK = 10;

    explicit FillMaskPanel(QWidget *parent = nullptr);
    /// Cancels the running job and waits for it.
    ~FillMaskPanel() override;

    void setFormSource(const FillMaskSource &source);
    FillMaskSource formSource() const { return m_source; }
    /// Sets the text (restarts the debounce like typing does).
    void setText(const QString &text);
    QPlainTextEdit *textEdit() const { return m_text; }

    /// Starts a request now (no debounce), cancelling the one in flight; returns its generation.
    uint64_t refreshNow();
    bool isBusy() const { return m_job.isRunning(); }
    uint64_t generation() const { return m_generation; }
    uint64_t shownGeneration() const { return m_shownGeneration; }
    /// The result shown (empty masks before one, or after an error).
    const FillMaskResult &shownResult() const { return m_result; }
    QString modelLine() const;
    QString messageText() const;

public Q_SLOTS:
    /// A checkpoint was saved in `modelDir`: when it is the form's, the model is loaded again
    /// and the text filled in anew (when shown; else when shown next).
    void checkpointSaved(const QString &modelDir);

Q_SIGNALS:
    /// A request ended and its outcome is now shown.
    void outcomeShown(quint64 generation);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void applyOutcome(uint64_t generation, const JobOutcome<FillMaskOutcome> &outcome);
    void showResult(const FillMaskResult &r);
    void showMessage(const QString &text, bool isError);

    FillMaskSource m_source;
    uint64_t m_reloadEpoch = 0;
    uint64_t m_generation = 0;
    uint64_t m_shownGeneration = 0;
    std::shared_ptr<FillMaskCache> m_cache;
    JobHandle m_job;
    FillMaskResult m_result;

    QPlainTextEdit *m_text;
    QLabel *m_modelLine;
    QLabel *m_message;
    QWidget *m_results;
    QVBoxLayout *m_resultsLayout;
    QTimer *m_debounce;
};

} // namespace wb
