// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/label/labelpool.h"
#include "core/label/labelqueue.h"
#include "core/label/labelsession.h"
#include "core/label/labelstore.h"
#include "core/prepare/preparereport.h"
#include "ui/common/backgroundjob.h"

#include <QString>
#include <QWidget>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableWidget;
class QHBoxLayout;

namespace wb {

class ConfigurationForm;
class LabelCurvePlot;
class LabelCycle;
struct CycleResult;

/// The Label tab (issue 47, "Label to learn"; docs/label-to-learn.md, "In the window"): a labelling
/// session in a folder (core/label/labelsession.h). The user imports texts and creates labels
/// (New session…, LabelSessionDialog), then labels one text at a time: number keys 1…9 give a
/// label, Enter takes the model's suggestion, S skips, Ctrl+Z or Backspace undoes the last label.
/// Each label is appended to labels.csv at once (LabelStore::append, fsynced), so a crash loses
/// none; reopening the session continues with the same labels.
///
/// After every k labels (LabelSessionSettings::batch_size; every label counts, held-out ones
/// too, since they move the curve) a background cycle (LabelCycle, runBackgroundJob) trains a
/// model on the labels of texts not held out, measures it on the held-out labels and rescores
/// the pool; never two at once: labels given meanwhile are kept and the next cycle starts when k
/// more have come since the last one started. When it ends, the queue (planNextTexts) and the
/// suggestions update and a point is appended to curve.jsonl (only with at least two held-out
/// labels). The suggestion is not shown on held-out texts, so that the labels the model is
/// measured on are not led by it (their suggested_label stays empty).
///
/// Everything that reads more than a small file runs in the background: the pool, labels.csv
/// and curve.jsonl when a session opens, the cycles, and "Make a project from these labels"
/// (prepareData of labels.csv). Appending a label, undo and relabel write on the GUI thread
/// (one line and an fsync; undo and relabel rewrite the file). GUI thread only.
class LabelTab : public QWidget
{
    Q_OBJECT
public:
    explicit LabelTab(QWidget *parent = nullptr);
    ~LabelTab() override;

    /// Where New session… takes its model defaults from (the form's bert_config_file, vocab_file,
    /// init_checkpoint and casing).
    void setFormOptions(std::function<TrainingOptions()> options) { m_formOptions = std::move(options); }

    /// Opens the session in `dir` (label_session.json, its pool, labels.csv, curve.jsonl) in the
    /// background; sessionOpened() or sessionFailed() follows.
    void openSession(const QString &dir);
    /// Writes `settings` as `dir`/label_session.json (folders created) and opens it. Returns
    /// false with `error` set when it cannot be written.
    bool createSession(const QString &dir, const LabelSessionSettings &settings, QString *error = nullptr);
    /// New session… (the dialog) and Open session… (a folder).
    void newSession();
    void chooseSession();

    bool isLoaded() const { return m_loaded; }
    QString sessionDir() const { return m_dir; }
    const LabelSessionSettings &settings() const { return m_settings; }
    const std::vector<PoolText> &pool() const { return m_pool; }
    /// The labels in force, in the order given (LabelStore::labels()).
    const std::vector<PoolLabel> &labels() const;
    /// The pool index of the text shown (-1: none left, or no session).
    int64_t currentText() const { return m_current; }
    bool currentIsHeldOut() const;
    /// The text shown, "Model suggests: spam 83 %" ("" without a suggestion), and its label name.
    QString shownText() const;
    QString suggestionText() const;
    QString suggestedLabel() const;
    /// The pool indices planned after the text shown, in order.
    std::vector<int64_t> queue() const { return {m_queue.begin(), m_queue.end()}; }
    bool cycleRunning() const { return m_cycleJob.isRunning(); }
    int cyclesFinished() const { return m_cyclesFinished; }
    /// The status line under the tab ("Training on 40 labels… then scoring 5,000 texts").
    QString statusText() const;
    /// The line under the curve (why there is no point yet, or when labels stopped helping).
    QString curveNote() const;
    const std::vector<CurvePoint> &curve() const { return m_curve; }
    QTableWidget *labelledTable() const { return m_table; }
    LabelCurvePlot *curvePlot() const { return m_plot; }
    /// The pages of the tab: "Label", "Labelled", "Curve".
    QTabWidget *pages() const { return m_pages; }

    /// Gives the text shown the label `index` (label_names order) as key index + 1 does. Returns
    /// false (saying why in the status line) without a text, for an index out of range, or when
    /// the label cannot be saved.
    bool labelShown(int index);
    /// Takes the model's suggestion (Enter); false without one.
    bool takeSuggestion();
    /// Shows the next text without labelling this one (S).
    void skipShown();
    /// Removes the last label from labels.csv and shows its text again (Ctrl+Z, Backspace).
    bool undoLast();
    /// Changes the label of labelled text `row` (labels() order), as the Labelled page does.
    bool relabel(int row, const QString &label);
    /// "Make a project from these labels": prepares labels.csv into `<session>/project-<n>-labels`
    /// in the background; projectPrepared() follows.
    void makeProject();
    /// Fills `form` with the last prepared project (task, data, model start); the labels filled.
    QStringList applyProjectToForm(ConfigurationForm *form) const;

Q_SIGNALS:
    void sessionOpened(const QString &dir);
    void sessionFailed(const QString &message);
    void labelSaved(qlonglong labels);
    void cycleStarted(qlonglong labels);
    /// A cycle ended (`ok` false: failed or cancelled; the status line says why).
    void cycleFinished(qlonglong labels, bool ok);
    void projectPrepared(const wb::PrepareReport &report);
    void projectFailed(const QString &message);

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    struct Loaded;
    struct CycleDone;
    // labeltab.cpp: the widgets and the text shown.
    QWidget *buildEmptyPage();
    QWidget *buildLabelPage();
    QWidget *buildListPage();
    void showSession(Loaded &l);
    void rebuildLabelButtons();
    void showCurrent();
    void showNext();
    void updateCounts();
    void setStatus(const QString &text);
    // labeltabqueue.cpp: what is shown next, the cycles, the curve.
    void planQueue();
    void maybeStartCycle();
    void startCycle();
    void cycleEnded(JobOutcome<CycleDone> &outcome, qlonglong labels);
    void addCurvePoint(const CycleResult &r, qlonglong labels);
    void updateCurve();
    void cycleProgress(int value, const QString &stage);
    int64_t poolIndexOf(const PoolLabel &label) const;
    int64_t heldOutLabels() const;
    // labeltablist.cpp: the Labelled page.
    void fillTable();
    void appendTableRow(const PoolLabel &label);
    void tableEdited(int row, int column);

    std::function<TrainingOptions()> m_formOptions;
    QString m_dir;
    LabelSessionSettings m_settings;
    std::vector<PoolText> m_pool;
    std::shared_ptr<const std::vector<std::string>> m_poolTexts; ///< m_pool's texts, for the cycles
    std::map<std::string, int64_t> m_keyIndex;                   ///< poolTextKey → pool index
    std::vector<bool> m_heldOut, m_labelled, m_skipped;
    std::unique_ptr<LabelStore> m_store;
    std::vector<CurvePoint> m_curve;
    PoolScores m_scores; ///< the last cycle's view of the pool (n 0: none yet)
    std::shared_ptr<LabelCycle> m_cycle;
    std::deque<int64_t> m_queue;
    int64_t m_current = -1, m_shown = 0, m_labelsAtCycleStart = -1;
    qlonglong m_cycleLabels = 0, m_cycleTrain = 0;
    int m_cyclesFinished = 0;
    bool m_loaded = false, m_fillingTable = false;
    bool m_statusIsLabelError = false; ///< the status line says why the last label was not saved
    quint64 m_generation = 0;
    JobHandle m_loadJob, m_cycleJob, m_projectJob;
    QString m_status, m_cycleNote, m_projectMeta;
    PrepareReport m_project;

    QStackedWidget *m_stack;
    QLabel *m_sessionLine, *m_position, *m_heldOutNote, *m_suggestion, *m_keysHint, *m_statusLine;
    QPlainTextEdit *m_text;
    QHBoxLayout *m_buttonRow;
    std::vector<QPushButton *> m_labelButtons;
    QPushButton *m_new, *m_open, *m_makeProject, *m_skip, *m_undo;
    QProgressBar *m_progress;
    QTabWidget *m_pages;
    QTableWidget *m_table;
    LabelCurvePlot *m_plot;
};

} // namespace wb
