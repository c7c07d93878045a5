// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "ui/evaluation/learningcheck.h"

#include <optional>
#include <string>
#include <vector>

#include <QWidget>

class QBoxLayout;
class QLabel;
class QScrollArea;
class QTableWidget;

namespace wb {

class MultiLabelView;
class TopLossesView;

/// Shows an evaluation (the latest, or a run's best: evaluationToShow): summary metrics
/// (accuracy, macro-F1, binary F1 of the named positive class), the confusion matrix (rows: true label,
/// columns: predicted) as a heat map, per-class precision, recall, F1 and support, and the
/// evaluation's top losses and most-confused pairs (TopLossesView; a click on a matrix cell
/// filters them to that cell, a second click clears the filter). A multi-label evaluation shows
/// MultiLabelView instead of the matrix and per-class table (a label chooser, its
/// precision–recall curve, the per-label confusion at 0.5 and tuned). Labels are shown by name
/// (setLabelNames); long names break into lines in the headers. The tab scrolls
/// (object name "evaluationScroll"): the tables are always shown whole up to 900×420 pixels
/// each, side by side when the tab is wide enough, else one above the other. GUI thread only.
class EvaluationView : public QWidget
{
    Q_OBJECT
public:
    explicit EvaluationView(QWidget *parent = nullptr);

    /// Shows `m`; `which` (when not empty) says which checkpoint's evaluation it is ("best,
    /// step 42 (eval_accuracy 0.6667)") in the summary's title.
    void setEvaluation(const EvalMetrics &m, const QString &which = QString());
    /// Of a run's recorded evaluations (metrics.jsonl, in order) the one the tab shows: the
    /// best checkpoint's when the run kept one (best/best.json; chooseRunCheckpoint), else the
    /// last. `which` receives the best's label ("best, step 42 (…)"), else "". `evals` must
    /// not be empty. Reads best.json.
    static EvalMetrics evaluationToShow(const std::vector<EvalMetrics> &evals, const std::string &modelDir,
                                        QString *which);
    /// At the end of a run of `modelDir` that kept a best model: shows the best checkpoint's
    /// evaluation among those shown since clear() (it stays on the last one otherwise).
    void showRunBest(const std::string &modelDir);
    /// How the run shown ended (runEndPhrase, core/formats/runend.h: "stopped early at step
    /// 24, best at step 6"), said in the summary's title when the evaluation shown is the kept
    /// best checkpoint's ("Evaluation at step 6 (stopped early at step 24, best at step 6)")
    /// and in the top losses' line; "" (clear() does this) goes back to the checkpoint's label.
    void setRunEnd(const QString &phrase);
    /// The summary's title as plain text ("Evaluation at step 6 (stopped early at step 24, best
    /// at step 6) on 16 examples: loss 0.1234"), "" without an evaluation.
    QString headlineText() const;
    /// Clears the evaluation, the run's end and the top losses; keeps the label names and the baseline.
    void clear();
    /// Names of label ids 0…N−1 (readLabelNames: labels.txt beside the meta data); ids
    /// beyond them, and all of them when `names` is empty, read "label N". Redraws the
    /// matrix, the per-class table, the summary and the top losses.
    void setLabelNames(const std::vector<std::string> &names);
    const std::vector<std::string> &labelNames() const { return m_labelNames; }
    /// The name shown for label `id`.
    QString labelName(int64_t id) const;
    /// Reads model_dir/eval_examples.jsonl in the background into the top losses. When the
    /// evaluation shown has no confusion matrix (one recorded in metrics.jsonl) and the
    /// examples are of the same step, the matrix and per-class table are built from them.
    void loadExamples(const QString &modelDir);
    /// The majority-class baseline shown under the summary (nothing: unknown). Kept by clear().
    void setBaseline(const std::optional<MajorityBaseline> &baseline);
    std::optional<MajorityBaseline> baseline() const { return m_baseline; }
    /// The bag-of-words baseline's eval accuracy (prepare_report.json; nothing: none), shown
    /// under the summary with whether the evaluation shown beats it. Kept by clear().
    void setBagOfWordsBaseline(std::optional<double> accuracy);
    std::optional<double> bagOfWordsBaseline() const { return m_bagOfWords; }
    /// Whether the classification shown beat the bag-of-words baseline (bagOfWordsVerdict(),
    /// core/formats/trainingsummary.h); empty without an evaluation or a baseline.
    QString bagOfWordsVerdictText() const;
    /// Sentences saying the model did not learn; empty hides them. setCoachNotes() sets them.
    void setWarnings(const QStringList &warnings);
    /// The coach's current notes of the run shown (core/advice/coach.h), the only source of the
    /// view's advice: the box of notes that say it did not learn (learningVerdictTexts()) and,
    /// under the bag-of-words sentence, the coach's below_bag_of_words note.
    void setCoachNotes(const std::vector<CoachNote> &current);
    /// A line under the summary (e.g. where a recorded evaluation came from).
    void setNote(const QString &text);
    /// The summary as plain text (step, metrics, baseline, note).
    QString summaryText() const;
    QString warningText() const;

    QTableWidget *confusionTable() const { return m_confusion; }
    QTableWidget *classTable() const { return m_classes; }
    TopLossesView *topLosses() const { return m_topLosses; }
    /// The per-label curve and confusion of a multi-label evaluation (hidden for others).
    MultiLabelView *multiLabelView() const { return m_multiLabel; }
    /// The scroll area that holds the whole tab.
    QScrollArea *scrollArea() const { return m_scroll; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void arrangeTables();
    void updateSummary();
    /// The summary's title, in HTML (bold) or plain text.
    QString headline(bool html) const;
    void showMatrix();
    void fillMatrixFromExamples();
    void toggleCellFilter(int trueLabel, int predictedLabel);

    EvalMetrics m_metrics;
    bool m_hasMetrics = false;
    std::vector<std::string> m_labelNames;
    QString m_evaluation, m_note, m_which, m_runEnd;
    std::vector<EvalMetrics> m_seen; ///< the evaluations shown since clear(), for showRunBest()
    std::optional<MajorityBaseline> m_baseline;
    std::optional<double> m_bagOfWords;
    QString m_bagOfWordsAdvice; ///< the coach's below_bag_of_words note ("" when it has none)
    QLabel *m_warning;
    QLabel *m_summary;
    QTableWidget *m_confusion;
    QTableWidget *m_classes;
    TopLossesView *m_topLosses;
    MultiLabelView *m_multiLabel;
    QScrollArea *m_scroll = nullptr;
    QBoxLayout *m_tables = nullptr; ///< the matrix's and the per-class table's columns
};

} // namespace wb
