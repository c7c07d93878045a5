// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/fieldproblem.h"
#include "core/corpus/pretrainingdata.h"
#include "core/prepare/dataprep.h"
#include "core/events/trainingobserver.h"
#include "ui/common/backgroundjob.h"

#include <QDialog>

#include <memory>
#include <vector>

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QCheckBox;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace wb {

class ConfigurationForm;
namespace preparedata {
class CorrectionsFields;
class MultiLabelFields;
}

/// "Prepare data": raw text (label folders, TSV/CSV, GLUE) → TFRecords + input_meta_data.json
/// through wb::prepareData on a background job (ui/common/backgroundjob.h), with progress and
/// Cancel (the job's StopToken). "What to prepare" (combo "prepareKind") switches to pretraining
/// text instead (issue 44): a plain text file (one sentence per line, a blank line between
/// documents), a folder of text files, or a column of a CSV/TSV/JSONL file, e-mails read
/// body-only on request, through wb::preparePretrainingData, the core of `bert-workbench-cli
/// prepare_pretraining` (docs/pretraining.md); its report is shown as the command prints it. "Start from" is the form's model picker (ui/form/modelpicker.h):
/// a chosen model is resolved (downloaded when missing) in the same job and gives the vocabulary
/// (unless Vocabulary names one) and the casing, and bounds max_seq_length. After a run the dialog shows the report:
/// a label-count table (train/eval; multi-label: the texts carrying each label, with the reading
/// chosen, cardinality and pairs above the warnings) and the warnings (skipped rows, truncation, duplicates),
/// before the user trains. GUI thread only; destroying the dialog requests a stop and waits
/// for the job.
class PrepareDataDialog : public QDialog
{
    Q_OBJECT
public:
    /// What the dialog prepares: labelled texts for classification (prepare) or unlabelled
    /// text for masked-LM pretraining (prepare_pretraining).
    enum class Kind { Classification, Pretraining };

    explicit PrepareDataDialog(QWidget *parent = nullptr);
    ~PrepareDataDialog() override;

    Kind kind() const;
    /// Shows the fields of `kind` (the others are hidden, their values kept).
    void setKind(Kind kind);
    /// The pretraining fields as PretrainingDataOptions: Input data as the one input (a file or
    /// a folder), Text format, Text column, E-mail bodies only, Vocabulary, max_seq_length,
    /// Eval fraction and Output folder; the rest are prepare_pretraining's defaults (dynamic
    /// masking, no next-sentence pairs). The chosen model's vocabulary and casing are added by start().
    PretrainingDataOptions pretrainingOptions() const;
    /// Shows `o`'s fields that the dialog has (the first input only).
    void setPretrainingOptions(const PretrainingDataOptions &o);
    /// The report of the last successful pretraining preparation.
    const PretrainingDataReport &pretrainingReport() const { return m_pretrainingReport; }

    /// The fields as PrepareOptions (vocab_file as typed; the chosen model's is added by start()).
    PrepareOptions options() const;
    void setOptions(const PrepareOptions &o);
    /// "Start from": "" (random weights: the Vocabulary field), a Hub id or a model folder.
    QString pretrainedModel() const;
    void setPretrainedModel(const QString &model);
    bool isRunning() const { return m_job.isRunning(); }
    /// The report of the last successful preparation.
    const PrepareReport &report() const { return m_report; }
    QString lastError() const { return m_error; }

    /// Fills the fields with the values of the last start (QSettings group "prepareData"; the
    /// caller opens the dialog with it, tests keep their own settings). Keeps the defaults
    /// when nothing was saved.
    void restoreSettings();
    /// Sets the Vocabulary field to `vocabFile` when it is empty and the file exists (the
    /// vocabulary of the data the form trains on now, e.g. the example's); `from` says where it
    /// came from in the note under the field. Returns whether it filled the field.
    bool prefillVocabulary(const QString &vocabFile, const QString &from);
    /// Says in the dialog which of the form's fields the caller filled with the prepared files
    /// (their labels, e.g. "Training data").
    void noteFilledForm(const QStringList &fields);
    /// Uses the last successful result in `form` (issue 44): "Start from" becomes the dialog's
    /// model (ConfigurationForm::setValue("pretrained_model"), which applies its config,
    /// vocabulary and casing), the Vocabulary the data's when it is not the model's, the casing
    /// the data's (do_lower_case left to the model or the prepared report), and Training data,
    /// Evaluation data and Input meta data the prepared files; pretraining text also sets the
    /// form's task to Pretrain on text. Says in the dialog what it filled (noteFilledForm) and
    /// returns those fields' labels; nothing when there is no result yet. GUI thread.
    QStringList applyToForm(ConfigurationForm *form);
    /// Fills the fields to prepare a run's data again with its corrections (issue 46; docs/data-map.md,
    /// "The loop"): labelled texts, “Same split as” `splitFile`, “Corrections” `correctionsFile`,
    /// the tokenization and output folder of preparedata::correctionsPrepareOptions (the run's
    /// input_meta_data.json `metaDataPath`), the input as the fields hold it; the note under the
    /// fields says what was filled in (correctionsNote()). No-op while running. GUI thread.
    void useCorrections(const QString &metaDataPath, const QString &splitFile, const QString &correctionsFile);
    /// The note under the Corrections field ("" when hidden).
    QString correctionsNote() const;

public Q_SLOTS:
    /// Starts preparing with the current options (no-op while running).
    void start();
    void cancel();

Q_SIGNALS:
    void prepared(const wb::PrepareReport &report);
    /// Pretraining text was prepared (pretrainingReport()).
    void pretrainingPrepared(const wb::PretrainingDataReport &report);
    void failed(const QString &message);

private:
    enum Browse { BrowseFolder = 1, BrowseFile = 2 };
    // The constructor's steps: a path row (its browse buttons per Browse kind), the input
    // rows (data, format, columns, labels), the model rows (Start from, vocabulary,
    // max_seq_length, eval fraction), the report area (progress, stage, counts, warnings),
    // the buttons.
    void addPathRow(QFormLayout *form, const QString &label, const QString &tip, int kinds, QLineEdit *&edit,
                    const QString &objectName);
    void addInputRows(QFormLayout *form);
    void addModelRows(QFormLayout *form);
    /// "What to prepare" and the pretraining rows (Text format, Text column, E-mail bodies only).
    void addKindRow(QFormLayout *form);
    void addPretrainingRows(QFormLayout *form);
    /// Shows the rows of the kind chosen.
    void applyKind();
    void startPretraining();
    void finishPretraining(JobOutcome<PretrainingDataReport> outcome);
    /// The report in the text box below, as `prepare_pretraining` prints it.
    void showPretrainingReport(const PretrainingDataReport &r);

    void buildReportArea();
    QDialogButtonBox *buildButtons();
    /// The line under Start from: what the chosen model gives.
    void updateModelNote();
    void finish(JobOutcome<PrepareReport> outcome);
    /// A failed preparation of either kind: m_error (message and hint), and the message in red
    /// on the stage line unless `stageText` says it otherwise.
    void showFailure(const ErrorReport &error, const QString &stageText = {});
    /// A finished preparation of `kind`: the dialog's result is now of that kind, with the model
    /// and vocabulary it ran with.
    void noteSucceeded(Kind kind);
    void setRunning(bool running);
    void showReport(const PrepareReport &r);

    QFormLayout *m_form = nullptr;
    QComboBox *m_kind = nullptr;            ///< "prepareKind"
    std::vector<int> m_classificationRows;  ///< rows of m_form shown for Kind::Classification only
    std::vector<int> m_pretrainingRows;     ///< rows shown for Kind::Pretraining only
    QComboBox *m_textFormat = nullptr;      ///< "pretrainingFormat": auto, text, csv, tsv, jsonl
    QLineEdit *m_textColumn = nullptr;      ///< "pretrainingTextColumn"
    QCheckBox *m_mailBodies = nullptr;      ///< "pretrainingEmailBodyOnly"
    QLineEdit *m_input, *m_vocab, *m_output;
    QComboBox *m_task;
    QComboBox *m_model = nullptr;  ///< "pretrainedModel"
    QLabel *m_modelNote = nullptr; ///< "pretrainedModelNote"
    QSpinBox *m_maxSeq;
    QDoubleSpinBox *m_evalFraction;
    QLineEdit *m_textA, *m_textB, *m_labelColumn, *m_labelList;
    QCheckBox *m_skipBadRows;
    preparedata::MultiLabelFields *m_multiLabel = nullptr; ///< labels per text, delimiter, 0/1 columns
    preparedata::CorrectionsFields *m_corrections = nullptr; ///< Same split as, Corrections (issue 46)
    QCheckBox *m_emailBodyOnly, *m_stripQuotedReplies, *m_stratifySplit;
    QProgressBar *m_progress;
    QLabel *m_stage;
    QPushButton *m_startButton, *m_cancelButton;
    QTableWidget *m_labelCounts;
    QPlainTextEdit *m_warnings;
    QLabel *m_vocabNote = nullptr;  ///< "vocabularyNote": where a pre-filled vocabulary came from
    JobHandle m_job;
    PrepareReport m_report;
    PretrainingDataReport m_pretrainingReport;
    Kind m_lastKind = Kind::Classification; ///< of the last successful preparation
    bool m_haveResult = false;              ///< a preparation succeeded (applyToForm has a result)
    QString m_lastModel;                    ///< "Start from" of the last successful preparation
    QString m_ownVocab;                     ///< the Vocabulary typed for it ("" = the model's)
    QString m_runningModel, m_runningVocab; ///< "Start from" and Vocabulary of the job running
    QString m_error;
    std::shared_ptr<std::vector<RowProblem>> m_badRows; ///< the last job's bad rows (BadRowsError)
};

} // namespace wb

Q_DECLARE_METATYPE(wb::PrepareReport)
Q_DECLARE_METATYPE(wb::PretrainingDataReport)
