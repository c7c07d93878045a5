// SPDX-License-Identifier: Apache-2.0
// Prepare Data's fields for the corrections loop (preparedatacorrections.h).
#include "ui/dialogs/preparedatacorrections.h"

#include "core/prepare/preparereport.h"
#include "ui/common/qtext.h"
#include "ui/dialogs/preparedatasteps.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include <optional>

namespace wb::preparedata {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("wb::PrepareDataDialog", text); }

} // namespace

CorrectionsFields::CorrectionsFields(QWidget *dialog) : QObject(dialog), m_dialog(dialog) {}

QLineEdit *CorrectionsFields::addFileRow(QFormLayout *form, const char *flag, const QString &objectName,
                                         const QString &filter)
{
    auto *edit = new QLineEdit;
    edit->setObjectName(objectName);
    edit->setToolTip(rowHelp(flag));
    edit->setPlaceholderText(tr("optional"));
    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setObjectName(objectName + QStringLiteral("File"));
    const QString label = rowLabel(flag);
    connect(browse, &QToolButton::clicked, this, [this, edit, label, filter] {
        const QString p = QFileDialog::getOpenFileName(m_dialog, label, edit->text(), filter);
        if (!p.isEmpty())
            edit->setText(p);
    });
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    auto *l = new QLabel(label);
    l->setToolTip(rowHelp(flag));
    form->addRow(l, row);
    return edit;
}

int CorrectionsFields::addTo(QFormLayout *form)
{
    const int first = form->rowCount();
    m_split = addFileRow(form, "split_file", QStringLiteral("splitFile"), tr("split.jsonl (*.jsonl);;All files (*)"));
    m_corrections = addFileRow(form, "corrections_file", QStringLiteral("correctionsFile"),
                               tr("corrections.jsonl (*.jsonl);;All files (*)"));
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("correctionsNote"));
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    m_note->setVisible(false);
    form->addRow(QString(), m_note);
    return form->rowCount() - first;
}

void CorrectionsFields::read(PrepareOptions &o) const
{
    o.split_file = m_split->text().trimmed().toStdString();
    o.corrections_file = m_corrections->text().trimmed().toStdString();
}

void CorrectionsFields::write(const PrepareOptions &o)
{
    m_split->setText(q(o.split_file));
    m_corrections->setText(q(o.corrections_file));
}

void CorrectionsFields::setNote(const QString &text)
{
    m_note->setText(text);
    m_note->setVisible(!text.isEmpty());
}

QString CorrectionsFields::note() const { return m_note->text(); }

PrepareOptions correctionsPrepareOptions(PrepareOptions o, const QString &metaDataPath, const QString &splitFile,
                                         const QString &correctionsFile, QString *note)
{
    o.split_file = splitFile.toStdString();
    o.corrections_file = correctionsFile.toStdString();
    QStringList said;
    std::optional<PrepareReport> r;
    try {
        r = readPrepareReport(metaDataPath.toStdString());
    } catch (const std::exception &e) {
        said << tr("the run's prepare_report.json cannot be read (%1): check Vocabulary and max_seq_length")
                    .arg(QString::fromUtf8(e.what()));
    }
    if (r) {
        if (!r->vocab_file.empty())
            o.vocab_file = r->vocab_file;
        if (r->max_seq_length > 0)
            o.max_seq_length = r->max_seq_length;
        o.email_body_only = r->email_body_only;
        o.strip_quoted_replies = r->strip_quoted_replies;
        o.text_a_column = r->text_columns_recognised ? std::string() : r->text_a_column;
        o.text_b_column = r->text_columns_recognised ? std::string() : r->text_b_column;
        o.label_column = r->label_column_recognised ? std::string() : r->label_column;
        said << tr("Vocabulary, max_seq_length, the columns and the e-mail switches as the run's data was prepared");
    } else if (said.isEmpty()) {
        said << tr("no prepare_report.json beside %1: check Vocabulary and max_seq_length").arg(metaDataPath);
    }
    const QString base = QFileInfo(metaDataPath).absolutePath() + QStringLiteral("-corrected");
    QString out = base;
    for (int n = 2; QFileInfo::exists(out); ++n)
        out = base + QStringLiteral("-%1").arg(n);
    o.output_dir = QDir::toNativeSeparators(out).toStdString();
    if (note)
        *note = tr("Filled in for the run's corrections: “%1” and “%2”, %3, and a new output folder. Input data must "
                   "be the data the run was prepared from (split.jsonl names its rows); then train again with the "
                   "same settings and seed into a new model folder, and compare the two runs under Compare runs.")
                    .arg(rowLabel("split_file"), rowLabel("corrections_file"), said.join(QStringLiteral("; ")));
    return o;
}

} // namespace wb::preparedata
