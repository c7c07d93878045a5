// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prepare Data's fields for the corrections loop (issue 46; docs/data-map.md, "The loop"):
// "Same split as" (prepare's split_file) and "Corrections" (corrections_file), and the options
// that prepare a run's data again with its corrections; internal to ui/dialogs. GUI thread only.

#include "core/prepare/dataprep.h"

#include <QObject>
#include <QString>

class QFormLayout;
class QLabel;
class QLineEdit;

namespace wb::preparedata {

/// The fields of prepare's split_file ("splitFile") and corrections_file ("correctionsFile"),
/// labelled and explained by prepare's option table, each with a "…" button that picks a file,
/// and a note under them ("correctionsNote", hidden when empty) saying what was filled in. A
/// child of the dialog (QObject parent) that owns no widget until addTo() puts them in a form.
/// Their values are not remembered between sessions (they belong to one run).
class CorrectionsFields : public QObject
{
    Q_OBJECT
public:
    explicit CorrectionsFields(QWidget *dialog);
    /// Adds the rows to `form` (the widgets become the form's); returns how many rows.
    int addTo(QFormLayout *form);
    /// Copies the fields into `o` (split_file, corrections_file; trimmed).
    void read(PrepareOptions &o) const;
    /// Shows `o`'s values in the fields.
    void write(const PrepareOptions &o);
    /// Shows `text` under the fields (hidden when empty).
    void setNote(const QString &text);
    QString note() const;

private:
    QLineEdit *addFileRow(QFormLayout *form, const char *flag, const QString &objectName, const QString &filter);

    QWidget *m_dialog;
    QLineEdit *m_split = nullptr, *m_corrections = nullptr;
    QLabel *m_note = nullptr;
};

/// The options that prepare a run's data again with its corrections: `o` (the dialog's fields:
/// the input, format and columns of the last preparation) with split_file = `splitFile` (the
/// run's split.jsonl: the same rows on the same side, so the same eval set), corrections_file =
/// `correctionsFile`, and from the prepare_report.json beside `metaDataPath` the tokenization the
/// run's data was read with (vocab_file, max_seq_length) and its e-mail switches and column names
/// (a recognised column is left empty, to be recognised again); output_dir `<meta folder>-corrected`
/// (`-corrected-2`, … when that exists) so that the run's own data stays as it is. `note` (when
/// given) receives what was filled in and what to check: Input data must be the data the run was
/// prepared from. Reads prepare_report.json (a missing or unreadable one is said in the note).
PrepareOptions correctionsPrepareOptions(PrepareOptions o, const QString &metaDataPath, const QString &splitFile,
                                         const QString &correctionsFile, QString *note = nullptr);

} // namespace wb::preparedata
