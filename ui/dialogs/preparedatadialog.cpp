// SPDX-License-Identifier: Apache-2.0
#include "ui/dialogs/preparedatadialog.h"
#include "ui/dialogs/preparedatacorrections.h"
#include "ui/dialogs/preparedatamultilabel.h"
#include "ui/dialogs/preparedatasteps.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/commandoptions.h"
#include "core/config/fieldproblem.h"
#include "core/config/optiontable.h"
#include "core/hub/preparetokenizer.h"
#include "core/hub/pretrainedmodel.h"
#include "core/util/error.h"
#include "ui/common/backgroundjob.h"
#include "ui/form/configurationform.h"
#include "ui/form/modelpicker.h"
#include "ui/form/newwidgets.h"
#include "ui/form/wheelguard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QSettings>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace wb {

using preparedata::formLabel;
using preparedata::prepareRow;
using preparedata::rowHelp;
using preparedata::rowLabel;
using preparedata::usePretrainedModel;

namespace {

/// The dialog's words for the fix of a FieldProblem (core/config/fieldproblem.h): its fields'
/// labels (the rows of prepareFlagTable()) instead of flags, e.g. "Type the column's name into
/// “Text column” (and into “Second text column” for sentence pairs). Recognised from the header
/// when left empty: sentence, text, …." Pure; any thread.
QString dialogFieldHint(const FieldProblem &p)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("wb::PrepareDataDialog", text); };
    const auto label = [&tr](const std::string &option) {
        const FlagRow *row = findFlagRow(prepareFlagTable(), option);
        return QStringLiteral("“%1”").arg(row && *row->label ? tr(row->label) : QString::fromStdString(option));
    };
    const auto isPlaceholder = [](const std::string &v) {
        return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    };
    const auto isColumn = [](const std::string &option) {
        return option.size() > 7 && option.compare(option.size() - 7, 7, "_column") == 0;
    };
    if (!p.advice.empty()) { // "Fix the label, or tick “Skip bad rows” to skip the row."
        QString s = QString::fromStdString(p.advice);
        for (size_t k = 0; k < p.fixes.size(); ++k) {
            const OptionFix &f = p.fixes[k];
            const FlagRow *row = findFlagRow(prepareFlagTable(), f.option);
            const QString phrase = (row && row->kind == FlagKind::Switch ? tr("tick %1") : tr("fill in %1")).arg(label(f.option))
                                   + (f.purpose.empty() ? QString() : QLatin1Char(' ') + QString::fromStdString(f.purpose));
            s += (k + 1 == p.fixes.size() ? tr(", or %1") : QStringLiteral(", %1")).arg(phrase);
        }
        return s + QLatin1Char('.');
    }
    QString s;
    for (size_t k = 0; k < p.fixes.size(); ++k) {
        const OptionFix &f = p.fixes[k];
        const FlagRow *row = findFlagRow(prepareFlagTable(), f.option);
        QString phrase;
        if (k > 0 && isPlaceholder(f.value) && isColumn(f.option))
            phrase = tr("into %1").arg(label(f.option));
        else if (isPlaceholder(f.value))
            phrase = (isColumn(f.option) ? tr("type the column's name into %1") : tr("fill in %1")).arg(label(f.option));
        else if (f.value.empty() || (row && row->kind == FlagKind::Switch))
            phrase = tr("tick %1").arg(label(f.option));
        else
            phrase = tr("choose %1 in %2").arg(QString::fromStdString(f.value), label(f.option));
        if (!f.purpose.empty())
            phrase += QLatin1Char(' ') + QString::fromStdString(f.purpose);
        s += k == 0 ? phrase : (k == 1 ? QStringLiteral(" (and ") : QStringLiteral(", and ")) + phrase;
    }
    if (p.fixes.size() > 1)
        s += QLatin1Char(')');
    if (!p.reason.empty())
        s = QString::fromStdString(p.reason) + QStringLiteral(": ") + s;
    if (!s.isEmpty())
        s += QLatin1Char('.');
    if (!p.recognised.empty())
        s += (s.isEmpty() ? QString() : QStringLiteral(" "))
             + tr("Recognised from the header when left empty: %1.").arg(QString::fromStdString(p.recognised));
    if (!s.isEmpty())
        s[0] = s[0].toUpper();
    return s;
}

} // namespace


PrepareDataDialog::PrepareDataDialog(QWidget *parent) : QDialog(parent)
{
    qRegisterMetaType<wb::PrepareReport>();
    qRegisterMetaType<wb::PretrainingDataReport>();
    setWindowTitle(tr("Prepare data"));
    setObjectName(QStringLiteral("prepareDataDialog"));
    auto *form = new QFormLayout;
    m_form = form;
    addKindRow(form);
    addInputRows(form);
    addPretrainingRows(form);
    addModelRows(form);
    addPathRow(form, rowLabel("output_dir"), rowHelp("output_dir"), BrowseFolder, m_output, QStringLiteral("outputDir"));
    buildReportArea();
    QDialogButtonBox *buttons = buildButtons();
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_stage);
    layout->addWidget(m_labelCounts);
    layout->addWidget(m_warnings);
    layout->addWidget(buttons);
    setRunning(false);
    applyKind();
    guardWheel(this);
}

void PrepareDataDialog::addPathRow(QFormLayout *form, const QString &label, const QString &tip, int kinds, QLineEdit *&edit,
                                   const QString &objectName)
{
    // One browse button per kind of path the field takes.
    edit = new QLineEdit;
    edit->setObjectName(objectName);
    edit->setToolTip(tip);
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    QLineEdit *e = edit;
    for (const int kind : {int(BrowseFolder), int(BrowseFile)}) {
        if (!(kinds & kind))
            continue;
        auto *browse = new QToolButton;
        browse->setText(kinds == kind ? QStringLiteral("…") : kind == BrowseFolder ? tr("Folder…") : tr("File…"));
        browse->setObjectName(objectName + (kind == BrowseFolder ? QStringLiteral("Folder") : QStringLiteral("File")));
        connect(browse, &QToolButton::clicked, this, [this, e, kind, label] {
            const QString p = kind == BrowseFolder ? QFileDialog::getExistingDirectory(this, label, e->text())
                                             : QFileDialog::getOpenFileName(this, label, e->text());
            if (!p.isEmpty())
                e->setText(p);
        });
        row->addWidget(browse);
    }
    auto *l = new QLabel(label);
    l->setToolTip(tip);
    form->addRow(l, row);
}

void PrepareDataDialog::addInputRows(QFormLayout *form)
{
    addPathRow(form, rowLabel("input_data_dir"), rowHelp("input_data_dir"), BrowseFolder | BrowseFile, m_input,
               QStringLiteral("inputData"));
    const int firstRow = form->rowCount();
    m_task = new QComboBox;
    m_task->setObjectName(QStringLiteral("format"));
    for (const std::string &name : prepareTaskNames())
        m_task->addItem(q(name));
    m_task->setCurrentText(QStringLiteral("folders"));
    m_task->setToolTip(rowHelp("classification_task_name"));
    form->addRow(rowLabel("classification_task_name"), m_task);
    // A .csv / .tsv / .jsonl / .json file chosen while the format is still the default folders
    // sets the format.
    connect(m_input, &QLineEdit::textChanged, this, [this](const QString &path) {
        if (m_task->currentText() != QLatin1String("folders"))
            return;
        const QString suffix = QFileInfo(path.trimmed()).suffix().toLower();
        if (suffix == QLatin1String("csv") || suffix == QLatin1String("tsv") || suffix == QLatin1String("jsonl")
            || suffix == QLatin1String("json"))
            m_task->setCurrentText(suffix);
    });
    m_textA = newTextField<QLineEdit>(QStringLiteral("textAColumn"), rowHelp("text_a_column"));
    m_textB = newTextField<QLineEdit>(QStringLiteral("textBColumn"), rowHelp("text_b_column"));
    m_labelColumn = newTextField<QLineEdit>(QStringLiteral("labelColumn"), rowHelp("label_column"));
    form->addRow(tr("%1 (tsv/csv/json)").arg(rowLabel("text_a_column")), m_textA);
    form->addRow(tr("%1 (optional)").arg(rowLabel("text_b_column")), m_textB);
    form->addRow(tr("%1 (tsv/csv/json)").arg(rowLabel("label_column")), m_labelColumn);
    m_labelList = newTextField<QLineEdit>(QStringLiteral("labelList"), tr("optional, e.g. neg,pos"));
    m_labelList->setToolTip(rowHelp("label_list"));
    form->addRow(rowLabel("label_list"), m_labelList);
    m_skipBadRows = new QCheckBox(tr("%1 (each is listed below)").arg(rowLabel("skip_bad_rows")));
    m_skipBadRows->setObjectName(QStringLiteral("skipBadRows"));
    m_skipBadRows->setToolTip(rowHelp("skip_bad_rows"));
    form->addRow(QString(), m_skipBadRows);
    m_multiLabel = new preparedata::MultiLabelFields(this);
    m_multiLabel->addTo(form);
    m_corrections = new preparedata::CorrectionsFields(this);
    m_corrections->addTo(form);
    m_emailBodyOnly = new QCheckBox(tr("%1 (drop the header block)").arg(rowLabel("email_body_only")));
    m_emailBodyOnly->setObjectName(QStringLiteral("emailBodyOnly"));
    m_emailBodyOnly->setToolTip(rowHelp("email_body_only"));
    m_stripQuotedReplies = new QCheckBox(tr("%1 (“>” lines)").arg(rowLabel("strip_quoted_replies")));
    m_stripQuotedReplies->setObjectName(QStringLiteral("stripQuotedReplies"));
    m_stripQuotedReplies->setToolTip(rowHelp("strip_quoted_replies"));
    auto *mail = new QHBoxLayout;
    mail->addWidget(m_emailBodyOnly);
    mail->addWidget(m_stripQuotedReplies);
    mail->addStretch(1);
    form->addRow(QString(), mail);
    for (int row = firstRow; row < form->rowCount(); ++row)
        m_classificationRows.push_back(row);
}

void PrepareDataDialog::addKindRow(QFormLayout *form)
{
    m_kind = new QComboBox;
    m_kind->setObjectName(QStringLiteral("prepareKind"));
    m_kind->addItem(tr("Labelled texts, to classify"));
    m_kind->addItem(tr("Pretraining text, no labels"));
    m_kind->setToolTip(tr("Labelled texts become the training and evaluation data of a classifier (the form's task "
                          "“Classify text”). Pretraining text, without labels, becomes masked-language-model "
                          "sequences for the task “Pretrain on text”, as BERT's create_pretraining_data.py makes them "
                          "(docs/pretraining.md)."));
    form->addRow(tr("What to prepare"), m_kind);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &PrepareDataDialog::applyKind);
}

PrepareDataDialog::Kind PrepareDataDialog::kind() const
{
    return m_kind->currentIndex() == 1 ? Kind::Pretraining : Kind::Classification;
}

void PrepareDataDialog::setKind(Kind kind) { m_kind->setCurrentIndex(kind == Kind::Pretraining ? 1 : 0); }

void PrepareDataDialog::applyKind()
{
    const bool pretraining = kind() == Kind::Pretraining;
    for (const int row : m_classificationRows)
        m_form->setRowVisible(row, !pretraining);
    for (const int row : m_pretrainingRows)
        m_form->setRowVisible(row, pretraining);
    m_stratifySplit->setVisible(!pretraining);
    if (pretraining)
        m_labelCounts->setVisible(false);
    m_input->setToolTip(pretraining ? tr("A plain text file (one sentence per line, a blank line between documents), a "
                                         "folder of .txt files (of mails with “E-mail bodies only”), or a .csv, .tsv "
                                         "or .jsonl file with the text in its Text column.")
                                    : rowHelp("input_data_dir"));
    m_input->setPlaceholderText(pretraining ? tr("corpus.txt, a folder of .txt files, or texts.csv") : QString());
    setWindowTitle(pretraining ? tr("Prepare data — pretraining text") : tr("Prepare data"));
}

void PrepareDataDialog::addModelRows(QFormLayout *form)
{
    // "Start from", as in the form: a chosen model gives the vocabulary (unless one is named
    // below) and the casing, and bounds max_seq_length (cmd_prepare's --pretrained_model).
    m_model = createModelPickerBox();
    m_model->setObjectName(QStringLiteral("pretrainedModel"));
    m_model->setToolTip(rowHelp("pretrained_model"));
    form->addRow(rowLabel("pretrained_model"), m_model);
    m_modelNote = new QLabel;
    m_modelNote->setObjectName(QStringLiteral("pretrainedModelNote"));
    m_modelNote->setWordWrap(true);
    m_modelNote->setTextFormat(Qt::PlainText);
    QFont italic = m_modelNote->font();
    italic.setItalic(true);
    m_modelNote->setFont(italic);
    form->addRow(QString(), m_modelNote);
    addPathRow(form, rowLabel("vocab_file"), rowHelp("vocab_file"), BrowseFile, m_vocab, QStringLiteral("vocabFile"));
    m_vocabNote = new QLabel;
    m_vocabNote->setObjectName(QStringLiteral("vocabularyNote"));
    m_vocabNote->setWordWrap(true);
    m_vocabNote->setTextFormat(Qt::PlainText);
    m_vocabNote->setVisible(false);
    form->addRow(QString(), m_vocabNote);
    connect(m_vocab, &QLineEdit::textEdited, m_vocabNote, &QLabel::hide);
    m_maxSeq = new QSpinBox;
    m_maxSeq->setObjectName(QStringLiteral("maxSeqLength"));
    m_maxSeq->setRange(int(prepareRow("max_seq_length").minimum), int(prepareRow("max_seq_length").maximum));
    m_maxSeq->setValue(128);
    m_maxSeq->setToolTip(rowHelp("max_seq_length"));
    form->addRow(rowLabel("max_seq_length"), m_maxSeq);
    m_evalFraction = new QDoubleSpinBox;
    m_evalFraction->setObjectName(QStringLiteral("evalFraction"));
    m_evalFraction->setRange(prepareRow("eval_fraction").minimum, prepareRow("eval_fraction").maximum);
    m_evalFraction->setSingleStep(0.05);
    m_evalFraction->setValue(0.1);
    m_evalFraction->setToolTip(rowHelp("eval_fraction"));
    m_stratifySplit = new QCheckBox(rowLabel("stratify_split"));
    m_stratifySplit->setObjectName(QStringLiteral("stratifySplit"));
    m_stratifySplit->setChecked(true);
    m_stratifySplit->setToolTip(rowHelp("stratify_split"));
    auto *evalRow = new QHBoxLayout;
    evalRow->addWidget(m_evalFraction);
    evalRow->addWidget(m_stratifySplit);
    evalRow->addStretch(1);
    form->addRow(rowLabel("eval_fraction"), evalRow);
    connect(m_model, &QComboBox::currentTextChanged, this, &PrepareDataDialog::updateModelNote);
    connect(m_vocab, &QLineEdit::textChanged, this, &PrepareDataDialog::updateModelNote);
    updateModelNote();
}

void PrepareDataDialog::buildReportArea()
{
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_stage = new QLabel;
    m_stage->setObjectName(QStringLiteral("prepareStage"));
    m_stage->setWordWrap(true);
    m_labelCounts = new QTableWidget(0, 3);
    m_labelCounts->setObjectName(QStringLiteral("labelCounts"));
    m_labelCounts->setHorizontalHeaderLabels({tr("Label"), tr("Train"), tr("Eval")});
    m_labelCounts->horizontalHeader()->setStretchLastSection(true);
    m_labelCounts->verticalHeader()->setVisible(false);
    m_labelCounts->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_labelCounts->setVisible(false);
    m_labelCounts->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_warnings = new QPlainTextEdit;
    m_warnings->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    // Room for several wrapped warnings without a tiny scroll box.
    m_warnings->setMinimumHeight(m_warnings->fontMetrics().lineSpacing() * 8);
    m_warnings->setObjectName(QStringLiteral("prepareWarnings"));
    m_warnings->setReadOnly(true);
    m_warnings->setVisible(false);
}

QDialogButtonBox *PrepareDataDialog::buildButtons()
{
    auto *buttons = new QDialogButtonBox;
    m_startButton = buttons->addButton(tr("Prepare"), QDialogButtonBox::AcceptRole);
    m_startButton->setObjectName(QStringLiteral("prepareButton"));
    m_cancelButton = buttons->addButton(QDialogButtonBox::Cancel);
    auto *closeButton = buttons->addButton(QDialogButtonBox::Close);
    connect(m_startButton, &QPushButton::clicked, this, &PrepareDataDialog::start);
    connect(m_cancelButton, &QPushButton::clicked, this, &PrepareDataDialog::cancel);
    connect(closeButton, &QPushButton::clicked, this, &QDialog::reject);
    return buttons;
}

PrepareDataDialog::~PrepareDataDialog()
{
    // The job captures only values, but its files are half-written until it ends: stop it
    // and wait, so that nothing keeps writing after the dialog is gone.
    m_job.cancel();
    m_job.waitForFinished();
}

PrepareOptions PrepareDataDialog::options() const
{
    PrepareOptions o;
    o.input_data_dir = m_input->text().trimmed().toStdString();
    o.vocab_file = m_vocab->text().trimmed().toStdString();
    o.classification_task_name = m_task->currentText().toStdString();
    o.max_seq_length = m_maxSeq->value();
    o.eval_fraction = m_evalFraction->value();
    o.output_dir = m_output->text().trimmed().toStdString();
    o.text_a_column = m_textA->text().trimmed().toStdString();
    o.text_b_column = m_textB->text().trimmed().toStdString();
    o.label_column = m_labelColumn->text().trimmed().toStdString();
    o.label_list = m_labelList->text().trimmed().toStdString();
    o.skip_bad_rows = m_skipBadRows->isChecked();
    o.email_body_only = m_emailBodyOnly->isChecked();
    o.strip_quoted_replies = m_stripQuotedReplies->isChecked();
    o.stratify_split = m_stratifySplit->isChecked();
    m_multiLabel->read(o);
    m_corrections->read(o);
    return o;
}

void PrepareDataDialog::setOptions(const PrepareOptions &o)
{
    m_input->setText(q(o.input_data_dir));
    m_vocab->setText(q(o.vocab_file));
    m_task->setCurrentText(q(o.classification_task_name));
    m_maxSeq->setValue(int(o.max_seq_length));
    m_evalFraction->setValue(o.eval_fraction);
    m_output->setText(q(o.output_dir));
    m_textA->setText(q(o.text_a_column));
    m_textB->setText(q(o.text_b_column));
    m_labelColumn->setText(q(o.label_column));
    m_labelList->setText(q(o.label_list));
    m_skipBadRows->setChecked(o.skip_bad_rows);
    m_emailBodyOnly->setChecked(o.email_body_only);
    m_stripQuotedReplies->setChecked(o.strip_quoted_replies);
    m_stratifySplit->setChecked(o.stratify_split);
    m_multiLabel->write(o);
    m_corrections->write(o);
}

void PrepareDataDialog::useCorrections(const QString &metaDataPath, const QString &splitFile, const QString &correctionsFile)
{
    if (m_job.isRunning())
        return;
    setKind(Kind::Classification);
    QString note;
    setOptions(preparedata::correctionsPrepareOptions(options(), metaDataPath, splitFile, correctionsFile, &note));
    m_corrections->setNote(note);
}

QString PrepareDataDialog::correctionsNote() const { return m_corrections->note(); }

QString PrepareDataDialog::pretrainedModel() const { return modelPickerValue(m_model); }

void PrepareDataDialog::setPretrainedModel(const QString &model) { setModelPickerValue(m_model, model); }

void PrepareDataDialog::updateModelNote()
{
    const QString model = modelPickerValue(m_model);
    const bool ownVocab = !m_vocab->text().trimmed().isEmpty();
    if (model.isEmpty())
        m_modelNote->setText(tr("Random weights: the vocabulary below, lower-cased."));
    else if (ownVocab)
        m_modelNote->setText(tr("Casing from %1; the vocabulary below (as given).").arg(model));
    else
        m_modelNote->setText(tr("Vocabulary and casing from %1.").arg(model));
    m_vocab->setPlaceholderText(model.isEmpty() ? QString() : tr("the model's vocab.txt"));
}

void PrepareDataDialog::restoreSettings()
{
    QSettings s;
    s.beginGroup(QStringLiteral("prepareData"));
    if (!s.contains(QStringLiteral("format")))
        return;
    PrepareOptions o = options();
    auto text = [&s](const char *key, std::string &into) {
        const QString k = QString::fromLatin1(key);
        if (s.contains(k))
            into = s.value(k).toString().toStdString();
    };
    text("input_data_dir", o.input_data_dir);
    text("vocab_file", o.vocab_file);
    text("format", o.classification_task_name);
    text("output_dir", o.output_dir);
    text("text_a_column", o.text_a_column);
    text("text_b_column", o.text_b_column);
    text("label_column", o.label_column);
    text("label_list", o.label_list);
    o.max_seq_length = s.value(QStringLiteral("max_seq_length"), qlonglong(o.max_seq_length)).toLongLong();
    o.eval_fraction = s.value(QStringLiteral("eval_fraction"), o.eval_fraction).toDouble();
    o.skip_bad_rows = s.value(QStringLiteral("skip_bad_rows"), o.skip_bad_rows).toBool();
    o.email_body_only = s.value(QStringLiteral("email_body_only"), o.email_body_only).toBool();
    o.strip_quoted_replies = s.value(QStringLiteral("strip_quoted_replies"), o.strip_quoted_replies).toBool();
    o.stratify_split = s.value(QStringLiteral("stratify_split"), o.stratify_split).toBool();
    preparedata::MultiLabelFields::restore(s, o);
    setOptions(o);
    const int format = m_textFormat->findData(s.value(QStringLiteral("pretraining_format")).toString());
    m_textFormat->setCurrentIndex(format < 0 ? 0 : format);
    m_textColumn->setText(s.value(QStringLiteral("pretraining_text_column")).toString());
    m_mailBodies->setChecked(s.value(QStringLiteral("pretraining_email_body_only"), false).toBool());
    setKind(s.value(QStringLiteral("kind")).toString() == QLatin1String("pretraining") ? Kind::Pretraining
                                                                                         : Kind::Classification);
}

bool PrepareDataDialog::prefillVocabulary(const QString &vocabFile, const QString &from)
{
    if (!m_vocab->text().trimmed().isEmpty() || vocabFile.isEmpty() || !QFileInfo(vocabFile).isFile())
        return false;
    m_vocab->setText(vocabFile);
    m_vocabNote->setText(tr("Filled in from %1.").arg(from));
    m_vocabNote->setVisible(true);
    return true;
}

void PrepareDataDialog::noteFilledForm(const QStringList &fields)
{
    if (fields.isEmpty())
        return;
    m_stage->setText(m_stage->text() + QLatin1Char(' ')
                     + tr("Filled in the form's %1 with the prepared files.").arg(fields.join(QStringLiteral(", "))));
}

QStringList PrepareDataDialog::applyToForm(ConfigurationForm *form)
{
    if (!m_haveResult || !form)
        return {};
    const bool pretraining = m_lastKind == Kind::Pretraining;
    const QString vocab = q(pretraining ? m_pretrainingReport.vocab_file : m_report.vocab_file);
    // The casing has no field: "" reads it from the model, else from the prepared report, which
    // is how the data was read either way.
    if (TrainingOptions o = form->options(); !o.do_lower_case.empty()) {
        o.do_lower_case.clear();
        form->setOptions(o);
    }
    // The model's config, vocabulary and weights replace the form's: emptied first (Train fills
    // them from the model), then the choice, which the form applies as when it is chosen there.
    if (!m_lastModel.isEmpty()) {
        form->setPath(QStringLiteral("bert_config_file"), QString());
        form->setPath(QStringLiteral("init_checkpoint"), QString());
        if (m_ownVocab.isEmpty())
            form->setPath(QStringLiteral("vocab_file"), QString());
    }
    form->setValue(QStringLiteral("pretrained_model"), m_lastModel);
    QStringList filled{formLabel("pretrained_model")};
    if (m_lastModel.isEmpty() || !m_ownVocab.isEmpty()) {
        form->setPath(QStringLiteral("vocab_file"), vocab);
        filled << formLabel("vocab_file");
    }
    form->setTask(pretraining ? FormTask::Pretrain : FormTask::Classify);
    QString train, eval, meta;
    if (pretraining) {
        QStringList shards;
        for (const std::string &f : m_pretrainingReport.train_files)
            shards << q(f);
        train = shards.join(QLatin1Char(','));
        eval = q(m_pretrainingReport.eval_file);
        meta = q(m_pretrainingReport.meta_path);
    } else {
        train = q(m_report.train_path);
        eval = q(m_report.eval_path);
        meta = q(m_report.meta_path);
    }
    form->setPath(QStringLiteral("train_data_path"), train);
    form->setPath(QStringLiteral("eval_data_path"), eval);
    form->setPath(QStringLiteral("input_meta_data_path"), meta);
    filled << formLabel("train_data_path") << formLabel("eval_data_path") << formLabel("input_meta_data_path");
    QString start = m_lastModel.isEmpty() ? tr("random weights")
                                          : tr("%1, its config, vocabulary and casing").arg(m_lastModel);
    m_stage->setText(m_stage->text() + QLatin1Char(' ')
                     + tr("In the form: task “%1”, “%2” %3, and “%4”, “%5”, “%6” the prepared files.")
                           .arg(pretraining ? tr("Pretrain on text") : tr("Classify text"), formLabel("pretrained_model"),
                                start, formLabel("train_data_path"), formLabel("eval_data_path"),
                                formLabel("input_meta_data_path")));
    return filled;
}

void PrepareDataDialog::setRunning(bool running)
{
    m_startButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
}

void PrepareDataDialog::start()
{
    if (m_job.isRunning())
        return;
    const PrepareOptions o = options();
    {
        // Remembered for the next time the dialog opens (restoreSettings).
        QSettings s;
        s.beginGroup(QStringLiteral("prepareData"));
        s.setValue(QStringLiteral("input_data_dir"), q(o.input_data_dir));
        s.setValue(QStringLiteral("vocab_file"), q(o.vocab_file));
        s.setValue(QStringLiteral("format"), q(o.classification_task_name));
        s.setValue(QStringLiteral("output_dir"), q(o.output_dir));
        s.setValue(QStringLiteral("text_a_column"), q(o.text_a_column));
        s.setValue(QStringLiteral("text_b_column"), q(o.text_b_column));
        s.setValue(QStringLiteral("label_column"), q(o.label_column));
        s.setValue(QStringLiteral("label_list"), q(o.label_list));
        s.setValue(QStringLiteral("max_seq_length"), qlonglong(o.max_seq_length));
        s.setValue(QStringLiteral("eval_fraction"), o.eval_fraction);
        s.setValue(QStringLiteral("skip_bad_rows"), o.skip_bad_rows);
        s.setValue(QStringLiteral("email_body_only"), o.email_body_only);
        s.setValue(QStringLiteral("strip_quoted_replies"), o.strip_quoted_replies);
        s.setValue(QStringLiteral("stratify_split"), o.stratify_split);
        preparedata::MultiLabelFields::save(s, o);
        s.setValue(QStringLiteral("kind"), kind() == Kind::Pretraining ? QStringLiteral("pretraining") : QStringLiteral("classification"));
        s.setValue(QStringLiteral("pretraining_format"), m_textFormat->currentData().toString());
        s.setValue(QStringLiteral("pretraining_text_column"), m_textColumn->text().trimmed());
        s.setValue(QStringLiteral("pretraining_email_body_only"), m_mailBodies->isChecked());
    }
    m_runningModel = modelPickerValue(m_model);
    m_runningVocab = m_vocab->text().trimmed();
    if (kind() == Kind::Pretraining) {
        startPretraining();
        return;
    }
    m_error.clear();
    // Written by the job (its thread) before it fails; read by finish() once it has ended.
    m_badRows = std::make_shared<std::vector<RowProblem>>();
    m_progress->setValue(0);
    m_stage->setText(tr("Starting…"));
    m_labelCounts->setVisible(false);
    m_warnings->setVisible(false);
    m_job = runBackgroundJob<PrepareReport>(
        this,
        [given = o, model = modelPickerValue(m_model).toStdString(), badRows = m_badRows](const JobControl &job) {
            PrepareOptions o = given;
            if (!model.empty()) {
                PrepareTokenizer t{o.vocab_file, o.max_seq_length, o.do_lower_case};
                usePretrainedModel(t, model, job);
                o.vocab_file = t.vocab_file;
                o.max_seq_length = t.max_seq_length;
                o.do_lower_case = t.do_lower_case;
            }
            try {
                return prepareData(
                    o,
                    [&job](double fraction, const std::string &stage) {
                        job.setProgress(int(fraction * kJobProgressMax), QString::fromStdString(stage));
                    },
                    job.stopToken());
            } catch (const FieldError &e) { // the fix in the dialog's words, not the command line's
                throw Error(e.field(), e.what(), dialogFieldHint(e.problem()).toStdString());
            } catch (const BadRowsError &e) { // listed row by row in finish(), each fix once
                QStringList hints;
                for (const RowProblem &r : e.rows())
                    if (!hints.contains(dialogFieldHint(r.problem)))
                        hints << dialogFieldHint(r.problem);
                *badRows = e.rows();
                throw Error(e.field(), e.what(), hints.join(QLatin1Char(' ')).toStdString());
            }
        },
        [this](JobOutcome<PrepareReport> outcome) { finish(std::move(outcome)); },
        [this](int value, const QString &stage) {
            m_progress->setValue(value);
            m_stage->setText(stage);
        });
    setRunning(true);
}

void PrepareDataDialog::cancel()
{
    if (m_job.isRunning()) {
        m_job.cancel();
        m_stage->setText(tr("Cancelling…"));
    }
}

void PrepareDataDialog::finish(JobOutcome<PrepareReport> outcome)
{
    setRunning(false);
    if (!outcome.ok()) {
        // Several bad rows make a long message: each on its own line in the text box below,
        // from the rows the core reported (BadRowsError), then their fixes.
        const std::vector<RowProblem> rows = m_badRows ? *m_badRows : std::vector<RowProblem>();
        if (rows.size() > 1) {
            QStringList listed;
            listed << QStringLiteral("%1: %2").arg(q(rows[0].where), q(rows[0].problem.message));
            listed << (rows.size() == 2 ? tr("1 more bad row:") : tr("%1 more bad rows:").arg(rows.size() - 1));
            constexpr size_t kListedRows = 20; // as many as the core's message names
            for (size_t i = 1; i < rows.size() && i < kListedRows; ++i)
                listed << QStringLiteral("%1: %2").arg(q(rows[i].where), q(rows[i].problem.message));
            if (rows.size() > kListedRows)
                listed << tr("(and %1 more)").arg(rows.size() - kListedRows);
            listed << outcome.error.hint;
            m_warnings->setPlainText(listed.join(QLatin1Char('\n')));
            m_warnings->setVisible(true);
            showFailure(outcome.error, tr("%1 bad rows; each is listed below with its fix.").arg(rows.size()));
        } else {
            showFailure(outcome.error);
        }
        return;
    }
    m_report = std::move(*outcome.value);
    noteSucceeded(Kind::Classification);
    m_progress->setValue(1000);
    QString text = tr("Wrote %1 training and %2 evaluation examples (%3 labels) in %4 s.")
                       .arg(m_report.train_examples).arg(m_report.eval_examples).arg(m_report.labels.size())
                       .arg(m_report.seconds, 0, 'f', 1);
    if (!m_report.warnings.empty())
        text += tr(" Read the %n warning(s) below before training.", nullptr, int(m_report.warnings.size()));
    m_stage->setText(text);
    showReport(m_report);
    Q_EMIT prepared(m_report);
}

void PrepareDataDialog::showFailure(const ErrorReport &error, const QString &stageText)
{
    m_error = error.message;
    if (!error.hint.isEmpty())
        m_error += QStringLiteral("\n") + error.hint;
    m_stage->setText(QStringLiteral("<span style='color:#b00000'>%1</span>")
                         .arg((stageText.isEmpty() ? m_error : stageText).toHtmlEscaped()));
    Q_EMIT failed(m_error);
}

void PrepareDataDialog::noteSucceeded(Kind kind)
{
    m_error.clear();
    m_lastKind = kind;
    m_haveResult = true;
    m_lastModel = m_runningModel;
    m_ownVocab = m_runningVocab;
}

} // namespace wb
