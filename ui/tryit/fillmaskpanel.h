// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/infer/fillmask.h"
#include "ui/common/backgroundjob.h"
#include "ui/tryit/livemodelpanel.h"

#include <cstdint>
#include <memory>

class QLabel;
class QPlainTextEdit;
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
/// (runBackgroundJob); a result that arrives after a newer request was started is dropped
/// (LiveModelPanel, which Try it shares). The loaded predictor is cached across requests (one
/// job uses it at a time) and reloaded only when the source or the reload epoch changes.
/// Hidden, the panel does no work. Errors (no [MASK], a classifier's model_dir) are shown
/// inline. Object names: "fillMaskText", "fillMaskModel", "fillMaskMessage", "fillMaskResults";
/// one "fillMaskBlankN" box per [MASK] (N from 1) with "fillMaskBarN_K" bars (K from 1). GUI
/// thread only.
class FillMaskPanel : public LiveModelPanel
{
    Q_OBJECT
public:
    static constexpr int kTopK = 10;

    explicit FillMaskPanel(QWidget *parent = nullptr);

    void setFormSource(const FillMaskSource &source);
    FillMaskSource formSource() const { return m_source; }
    /// Sets the text (restarts the debounce like typing does).
    void setText(const QString &text);
    QPlainTextEdit *textEdit() const { return m_text; }

    /// The result shown (empty masks before one, or after an error).
    const FillMaskResult &shownResult() const { return m_result; }
    QString messageText() const;

private:
    JobHandle startRequest(uint64_t generation) override;
    std::string formModelDir() const override { return m_source.model_dir; }
    void applyOutcome(const JobOutcome<FillMaskOutcome> &outcome);
    void showResult(const FillMaskResult &r);
    void clearResult() override { showResult({}); }
    void showMessage(const QString &text, bool isError) override;

    FillMaskSource m_source;
    std::shared_ptr<FillMaskCache> m_cache;
    FillMaskResult m_result;

    QPlainTextEdit *m_text;
    QLabel *m_message;
    QWidget *m_results;
    QVBoxLayout *m_resultsLayout;
};

} // namespace wb
