// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/formats/runsuspects.h"
#include "core/formats/trainingtexts.h"
#include "core/prepare/corrections.h"

#include <QString>
#include <QWidget>

#include <map>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QToolButton;
class QTableWidget;

namespace wb {

/// The Suspects tab (issue 46; docs/data-map.md, "Suspects and corrections", "In the window"):
/// the run's probably mislabelled training examples (loadRunSuspects, core/formats/runsuspects.h,
/// the rule of core/advice/suspects.h), one row each in rank order: rank, record, text excerpt,
/// label as given, suggested label, confidence, variability, evidence and the decision. The
/// decision of a row is a combo box: Undecided, Accept (the suggestion), Reject (keep the label),
/// Remove (leave the row out of training), or Change to each other label. Every decision is written at once to
/// `<model_dir>/corrections.jsonl` (writeCorrections: atomic, a few hundred bytes per line, on the
/// GUI thread), keeping the lines of rows that are not listed now (written by the CLI or by hand);
/// reopening the run shows the decisions found there. "Open in Try it" (or a double click) asks
/// Try it to explain a row's text for its label as given; "Prepare with corrections…" asks the
/// window to open Prepare Data with the run's split.jsonl and the corrections file.
///
/// Everything is read off the GUI thread (runBackgroundJob): the suspects, corrections.jsonl and
/// the texts of the suspects' training records (readTrainingTexts, up to the highest suspect's
/// record). The empty view says why: no run, no training_dynamics.jsonl (naming the form field
/// that turns the recording on), no suspects (core's reason), or an error. GUI thread only.
class SuspectsTable : public QWidget
{
    Q_OBJECT
public:
    /// The table's columns: what a decision needs first (at 1024×700 the text of the selected row
    /// is also under the table, previewText()).
    enum Column { Rank, Label, Suggested, Decision, Confidence, Variability, Evidence, Text, Record, ColumnCount };
    /// The decision combo's entries: 0 Undecided, 1 Accept, 2 Reject, 3 Remove, 4… Change to labels().
    enum DecisionItem { Undecided = 0, Accept = 1, Reject = 2, Remove = 3, FirstChange = 4 };

    explicit SuspectsTable(QWidget *parent = nullptr);

    /// Lists the suspects of the run in `o.model_dir` (its input_meta_data_path when set, else
    /// the one its run_config.json records), read in the background; an empty model_dir clears
    /// the view.
    void setRun(const TrainingOptions &o);

    /// Whether the last setRun has been read and shown.
    bool isLoaded() const { return m_loaded; }
    /// The shown suspects, in row order.
    const std::vector<RunSuspect> &suspects() const { return m_suspects; }
    /// The label names of the run (label id order).
    const std::vector<std::string> &labels() const { return m_labels; }
    /// The text shown for row `row` (the record's words, a pair as "a [SEP] b"; "" when unknown).
    QString rowText(int row) const;
    /// The line under the table: the selected row's input row, evidence in words and whole text
    /// ("" when no row is selected).
    QString previewText() const;
    /// The evidence of row `row` in words: "predicted ham in 3 of 3; right 0 of 3; last p(spam) 0.100".
    QString evidenceText(int row) const;
    /// The line above the table: "2 suspects among 6 training examples …", or why there is none.
    QString summaryText() const;
    /// `<model_dir>/corrections.jsonl` of the run shown ("" when none).
    QString correctionsPath() const { return m_correctionsPath; }
    QTableWidget *table() const { return m_table; }
    /// The decision combo of row `row` (nullptr outside the rows).
    QComboBox *decisionBox(int row) const;
    QPushButton *prepareButton() const { return m_prepare; }
    QToolButton *decideUndecidedButton() const { return m_decideRest; }

    /// Accepts the suggestion of row `row` / keeps its label / leaves it out of training / gives
    /// it `label` (a label name other than its given one), as the row's combo does, and writes
    /// corrections.jsonl.
    /// Returns false (saying why in the summary line) when the row is not located in split.jsonl,
    /// `label` is not one of the labels, or the file cannot be written.
    bool accept(int row);
    bool reject(int row);
    bool remove(int row);
    bool changeTo(int row, const QString &label);
    /// Gives every undecided row that can be decided `decision` (Accepted: its suggestion;
    /// Removed) in one write of corrections.jsonl, as "Decide the undecided" does. Returns how
    /// many rows it decided (0, saying why in the summary line, when the file cannot be written).
    int decideUndecided(CorrectionDecision decision);
    /// The decision of row `row` as written (Suggested when undecided).
    CorrectionDecision decisionOf(int row) const;

    /// Emits explainRequested for row `row` (what "Open in Try it" and a double click do).
    void openRow(int row);
    /// Emits prepareWithCorrectionsRequested (what "Prepare with corrections…" does); nothing
    /// without split.jsonl.
    void requestPrepare();

Q_SIGNALS:
    /// The user asked to see a suspect in Try it: its text (and text_b), explained for `classId`,
    /// its label as given.
    void explainRequested(const QString &text, const QString &textB, qlonglong classId);
    /// The user asked to prepare the run's data again with its corrections: the run's
    /// input_meta_data.json, the split.jsonl beside it and `<model_dir>/corrections.jsonl`.
    void prepareWithCorrectionsRequested(const QString &metaDataPath, const QString &splitFile,
                                         const QString &correctionsFile);

private:
    struct Loaded;
    void showEmpty(const QString &why);
    void showLoaded(Loaded &l);
    void fillRow(int row);
    void decisionChosen(int row, int item);
    bool decide(int row, CorrectionDecision decision, const std::string &corrected);
    /// Writes m_corrections with `next` (keys in `order`) put in; on success takes them over.
    bool save(std::map<std::string, Correction> next, std::vector<std::string> order);
    void updateButtons();
    int selectedRow() const;

    void showPreview();

    QLabel *m_summary;
    QLabel *m_preview; ///< "suspectsPreview"
    QTableWidget *m_table;
    QPushButton *m_open, *m_prepare;
    QToolButton *m_decideRest;
    std::vector<RunSuspect> m_suspects;
    std::vector<std::string> m_labels;
    std::vector<TrainingText> m_texts; ///< by row ("" when unknown)
    /// corrections.jsonl's lines by "file\nline" (those of listed rows updated by decisions).
    std::map<std::string, Correction> m_corrections;
    std::vector<std::string> m_order; ///< the keys of m_corrections in file order, new ones appended
    QString m_correctionsPath, m_metaPath, m_splitPath;
    QString m_summaryBase; ///< the summary line without the last decision's note
    bool m_loaded = false;
    quint64 m_generation = 0;
};

} // namespace wb
