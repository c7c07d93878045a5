// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/lrfind.h"
#include "core/advice/runfacts.h"
#include "ui/common/backgroundjob.h"

#include <QDialog>
#include <QMetaType>

#include <memory>
#include <optional>

class QCustomPlot;
class QDialogButtonBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QTimer;

namespace wb {

class ConfigurationForm;
class LrFindRelay;
class NumberSpinBox;

/// Training → Find Learning Rate…: the learning-rate range test (Smith 2017, fastai's
/// lr_find; core/engine/lrfind.h) on the form's current options. The pre-flight check runs
/// first and its errors are shown in the form's words, as Train shows them
/// (formValidationText); then findLearningRate runs off the GUI thread (runBackgroundJob)
/// and each step is drawn as it arrives: the loss of each step as faint points and the
/// smoothed loss as a line over a logarithmic learning-rate axis. At the end the suggestion
/// (the valley of the smoothed loss) and the minimum / 10 are marked — or, for a flat or noisy
/// curve (LrFindResult::verdict), the summary says so and nothing is suggested; its sentences are
/// the CLI's (lrFindSummary on the run's facts) — and "Use this"
/// puts the suggestion, rounded to the two significant digits shown, into the form's
/// learning-rate field. The core writes model_dir/lr_find.json.
///
/// Object names: "lrFindPlot" (the QCustomPlot; graphs "rawLoss", "smoothedLoss"; vertical
/// lines "suggestionMarker", "minOver10Marker"), "lrFindError", "lrFindProgress",
/// "lrFindSummary", buttons "runLrFind", "stopLrFind", "useSuggestion", "useMinOver10";
/// range editors "lr_find_steps", "lr_find_start", "lr_find_end". GUI thread only.
class LrFindDialog : public QDialog
{
    Q_OBJECT
public:
    /// `form` gives the options and receives the chosen learning rate; it must outlive the dialog.
    explicit LrFindDialog(ConfigurationForm *form, QWidget *parent = nullptr);
    /// Cancels a running test (it stops after its current step and writes what it has).
    ~LrFindDialog() override;

    /// What Training → Find Learning Rate… does on opening: takes the range from the form's
    /// options, then shows model_dir/lr_find.json when it exists (Run tests again; a file that
    /// cannot be read shows why), else starts.
    void begin();
    /// Starts the range test with the form's options and the range fields (filled from the
    /// form's options on construction and by begin()). Returns false
    /// (and does nothing) while one is running. rangeTestFinished() follows, also when the options
    /// are invalid (validationText() then says why and nothing runs).
    bool start();
    /// Asks the running test to stop after its current step (StopToken); what it measured
    /// is kept, shown and saved.
    void stop();
    bool isRunning() const { return m_job.isRunning() || m_running; }
    /// Close (and Esc) stop a running test, then hide the dialog.
    void reject() override;

    /// Shows the result saved in `path` (lr_find.json, read by wb::readLrFindJson and analysed
    /// again). False when it does not exist, or cannot be read: then the error names the file
    /// and key (validationText()), and Run replaces the file.
    bool showSaved(const QString &path);

    /// The last result shown (nothing before the first, or after a failed start).
    const std::optional<LrFindResult> &result() const { return m_result; }
    /// The error shown instead of a result (validation errors in form words; "" when none).
    QString validationText() const;
    QString progressText() const;
    QString summaryText() const;
    QCustomPlot *plot() const { return m_plot; }

    /// `lr` rounded to two significant digits, the value "Use this" puts into the form.
    static double roundedRate(double lr);
    /// `lr` as the dialog writes it: "3.2e-4" (`digits` after the point; no exponent padding).
    static QString rateText(double lr, int digits = 1);

Q_SIGNALS:
    /// The test started by start() has ended (or could not start); see result() and validationText().
    void rangeTestFinished();
    /// A step was drawn (1-based `step`).
    void stepShown(int step);
    /// "Use this" or "Use min / 10" put `learningRate` into the form.
    void learningRateChosen(double learningRate);

private:
    // The constructor's steps, top to bottom: the range row (steps, start, end, Run, Stop),
    // the error line, the plot and its legend, the progress and summary lines, the buttons.
    QHBoxLayout *buildRangeRow();
    void buildErrorLine();
    void buildPlot();
    void buildPlotLegend();
    void buildProgressLines();
    QDialogButtonBox *buildButtons();
    void showStep(const LrFindResult &r);
    void showResult(const LrFindResult &r, bool running);
    void showError(const QString &text, const QString &hints = QString());
    void useRate(double lr);
    void updateButtons();
    void scheduleReplot();
    /// Shows the range of `o` (lr_find_steps, lr_find_start, lr_find_end) in the range fields.
    void showRange(const TrainingOptions &o);
    TrainingOptions runOptions() const;

    ConfigurationForm *m_form;
    QCustomPlot *m_plot = nullptr;
    QLabel *m_error = nullptr, *m_progress = nullptr, *m_summary = nullptr;
    NumberSpinBox *m_steps = nullptr;
    QLineEdit *m_start = nullptr, *m_end = nullptr;
    QPushButton *m_run = nullptr, *m_stop = nullptr, *m_useSuggestion = nullptr, *m_useMin = nullptr;
    QTimer *m_replot = nullptr;
    JobHandle m_job;
    std::shared_ptr<LrFindRelay> m_relay;
    std::optional<LrFindResult> m_result;
    RunFacts m_facts; ///< the facts of the run tested (its start), which the summary's advice rests on
    int64_t m_totalSteps = 0;
    bool m_running = false;
};

} // namespace wb

Q_DECLARE_METATYPE(wb::LrFindResult)
