// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/formats/evalexamples.h"
#include "ui/common/backgroundjob.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace wb {

/// The mistakes of the latest evaluation, read from `model_dir/eval_examples.jsonl`
/// (core/formats/evalexamples.h): the top losses, most confidently wrong first (fastai's
/// ClassificationInterpretation.top_losses), optionally filtered to one confusion-matrix cell
/// (true label, predicted label), and the most-confused pairs (fastai's most_confused).
/// The file is read off the GUI thread (runBackgroundJob). A double-click on a row (or "Why?
/// Open in Try it") asks for its token attributions: explainRequested, which the window
/// turns into Try it showing the row's text explained for the class it predicted.
///
/// Multi-label runs (issue 45; eval_examples.jsonl's multi-label lines): a label chooser
/// (labelChooser()) lists "All labels" — rows by the mean binary cross-entropy `loss`,
/// columns #, true labels, predicted (p ≥ 0.5), loss, text — or one label L: rows by L's
/// label_losses, columns #, true labels, predicted, p(L), "L true" (yes/no), "L predicted"
/// (yes/no, at 0.5), loss of L, text. Label sets are joined by ", " ("(none)" when empty).
/// The row's explanation is asked for L, or under "All labels" for the label with the
/// highest binary cross-entropy of that row. "Most confused" lists each label's misses
/// (true, not predicted) and extras (predicted, not true) at 0.5.
/// GUI thread only.
class TopLossesView : public QWidget
{
    Q_OBJECT
public:
    /// Rows listed at most (the highest losses); the status line says how many there are.
    static constexpr int kMaxRows = 200;

    explicit TopLossesView(QWidget *parent = nullptr);
    ~TopLossesView() override;

    /// Names of label ids 0…N−1 (readLabelNames); ids beyond them read "label N".
    void setLabelNames(const std::vector<std::string> &names);
    /// The name of label `id`: the given name, else "label <id>".
    QString labelName(int64_t id) const;

    /// Reads the examples of the checkpoint modelDir keeps in the background (keptEvalExamplesPath,
    /// core/formats/runend.h: the best checkpoint's evaluation when the run keeps one, and the
    /// status line says so; else the latest evaluation's); the list updates when it has been
    /// read (examplesLoaded). A missing file shows a quiet line, a malformed one its error.
    /// A later load() or clear() drops the result of an earlier one still running.
    void load(const QString &modelDir);
    /// Shows `examples` at once (what load() does with the file's contents). A cell filter
    /// stays set (the same cell of a newer evaluation).
    void setExamples(std::vector<EvalExample> examples);
    /// Forgets the examples and the filter ("No per-example results yet"); keeps the run's end.
    void clear();
    /// How the run ended in the window's words (runEndPhrase, core/formats/runend.h: "stopped
    /// early at step 24, best at step 6"), named beside the kept best checkpoint's evaluation
    /// in the status line; "" says nothing of it.
    void setRunEnd(const QString &phrase);

    /// Lists only the examples of the confusion-matrix cell (true label, predicted label).
    void setCellFilter(int64_t trueLabelId, int64_t predictedLabelId);
    /// Lists all examples again.
    void clearFilter();
    bool hasFilter() const { return m_filter.has_value(); }
    std::optional<std::pair<int64_t, int64_t>> cellFilter() const { return m_filter; }

    const std::vector<EvalExample> &examples() const { return m_examples; }
    /// The examples shown are multi-label (the label chooser is shown).
    bool isMultiLabel() const;
    /// Multi-label: lists the rows by label `labelId`'s binary cross-entropy; −1: "All labels"
    /// (the mean). Ids outside the labels mean −1. No effect on single-label examples.
    void setLabelChoice(int64_t labelId);
    /// The label chosen (−1: "All labels").
    int64_t labelChoice() const { return m_labelChoice; }
    QComboBox *labelChooser() const { return m_labelChooser; }
    /// The line above the list: how many examples, or why there are none.
    QString statusText() const;
    /// The filter line ("true spam, predicted ham: 7 examples"), empty without a filter.
    QString filterText() const;
    /// The most-confused pairs, one per line ("spam → ham: 7").
    QString mostConfusedText() const;
    QTableWidget *table() const { return m_table; }
    /// The example listed in table row `row` (nullptr outside the rows).
    const EvalExample *rowExample(int row) const;
    /// Emits explainRequested for table row `row` (a double-click or the button does this).
    void explainRow(int row);

Q_SIGNALS:
    /// load() has ended: the examples (or the reason there are none) are shown.
    void examplesLoaded();
    /// The cell filter was set or cleared (by a call, "Show all" or a new load).
    void filterChanged();
    /// The user asked which words decided row's example: its text (and text_b), explained
    /// for `classId`, the label the evaluation predicted.
    void explainRequested(const QString &text, const QString &textB, qlonglong classId);

private:
    void showMissing(const QString &text);
    void refresh();
    void refreshStatus(size_t total, size_t shown);
    void setColumns(const QStringList &headers);
    void fillSingleLabelRows();
    void fillMultiLabelRows();
    void refreshConfused();
    void refillLabelChooser();
    /// "billing, urgent" for `ids`, "(none)" for no id.
    QString labelSet(const std::vector<int64_t> &ids) const;

    std::vector<std::string> m_labelNames;
    std::vector<EvalExample> m_examples;
    std::vector<EvalExample> m_shown; ///< the rows of the table, in order
    std::map<int64_t, QString> m_fileNames; ///< label names written in the file, by id
    std::optional<std::pair<int64_t, int64_t>> m_filter;
    int64_t m_labelChoice = -1; ///< multi-label: the label chosen, −1 "All labels"
    bool m_keptBest = false; ///< the examples are the kept best checkpoint's (best/eval_examples.jsonl)
    QString m_runEnd;        ///< runEndPhrase of the run shown ("" unknown or still training)
    quint64 m_generation = 0;
    JobHandle m_job;
    QLabel *m_status;
    QLabel *m_filterLine;
    QPushButton *m_showAll;
    QPushButton *m_explain;
    QTableWidget *m_table;
    QLabel *m_confused;
    QLabel *m_confusedTitle;
    QLabel *m_labelChooserCaption;
    QComboBox *m_labelChooser;
};

} // namespace wb
