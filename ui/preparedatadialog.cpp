// SPDX-License-Identifier: Apache-2.0
#include "ui/preparedatadialog.h"

#include "core/util/error.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

namespace wb {

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }

} // namespace

PrepareDataDialog::PrepareDataDialog(QWidget *parent) : QDialog(parent)
{
    qRegisterMetaType<wb::PrepareReport>();
    setWindowTitle(tr("Prepare data"));
    setObjectName(QStringLiteral("prepareDataDialog"));
    auto *form = new QFormLayout;
    auto pathRow = [this, form](const QString &label, const QString &tip, bool directory, QLineEdit *&edit) {
        edit = new QLineEdit;
        edit->setToolTip(tip);
        auto *browse = new QToolButton;
        browse->setText(QStringLiteral("…"));
        QLineEdit *e = edit;
        connect(browse, &QToolButton::clicked, this, [this, e, directory, label] {
            const QString p = directory ? QFileDialog::getExistingDirectory(this, label, e->text())
                                        : QFileDialog::getOpenFileName(this, label, e->text());
            if (!p.isEmpty())
                e->setText(p);
        });
        auto *row = new QHBoxLayout;
        row->addWidget(edit, 1);
        row->addWidget(browse);
        auto *l = new QLabel(label);
        l->setToolTip(tip);
        form->addRow(l, row);
    };
    pathRow(tr("Input data"), tr("A folder with one sub-folder per label (each file one example), a TSV/CSV file, "
                                 "or a GLUE task folder"), true, m_input);
    m_task = new QComboBox;
    for (const std::string &name : prepareTaskNames())
        m_task->addItem(q(name));
    m_task->setCurrentText(QStringLiteral("folders"));
    m_task->setToolTip(tr("How the input is laid out: folders (label = folder name), tsv, csv, or a GLUE task name"));
    form->addRow(tr("Format"), m_task);
    m_textA = new QLineEdit(QStringLiteral("text"));
    m_textB = new QLineEdit;
    m_labelColumn = new QLineEdit(QStringLiteral("label"));
    form->addRow(tr("Text column (tsv/csv)"), m_textA);
    form->addRow(tr("Second text column (optional)"), m_textB);
    form->addRow(tr("Label column (tsv/csv)"), m_labelColumn);
    pathRow(tr("Vocabulary"), tr("The WordPiece vocab.txt that belongs to the model (e.g. bert-base-uncased)"), false, m_vocab);
    m_maxSeq = new QSpinBox;
    m_maxSeq->setRange(8, 4096);
    m_maxSeq->setValue(128);
    m_maxSeq->setToolTip(tr("Tokens per example; longer texts are truncated. Typical: 128; must not exceed the "
                            "model's max_position_embeddings"));
    form->addRow(tr("max_seq_length"), m_maxSeq);
    m_evalFraction = new QDoubleSpinBox;
    m_evalFraction->setRange(0.01, 0.9);
    m_evalFraction->setSingleStep(0.05);
    m_evalFraction->setValue(0.1);
    m_evalFraction->setToolTip(tr("Share of the examples held out for evaluation when the input has no dev set"));
    form->addRow(tr("Eval fraction"), m_evalFraction);
    pathRow(tr("Output folder"), tr("train.tf_record, eval.tf_record, input_meta_data.json and labels.txt go here"),
            true, m_output);

    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_stage = new QLabel;
    m_stage->setWordWrap(true);
    auto *buttons = new QDialogButtonBox;
    m_startButton = buttons->addButton(tr("Prepare"), QDialogButtonBox::AcceptRole);
    m_cancelButton = buttons->addButton(QDialogButtonBox::Cancel);
    auto *closeButton = buttons->addButton(QDialogButtonBox::Close);
    connect(m_startButton, &QPushButton::clicked, this, &PrepareDataDialog::start);
    connect(m_cancelButton, &QPushButton::clicked, this, &PrepareDataDialog::cancel);
    connect(closeButton, &QPushButton::clicked, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_stage);
    layout->addWidget(buttons);
    setRunning(false);
}

PrepareDataDialog::~PrepareDataDialog()
{
    if (m_thread) {
        m_cancel = true;
        m_thread->wait();
        delete m_thread;
    }
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
}

void PrepareDataDialog::setRunning(bool running)
{
    m_startButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
}

void PrepareDataDialog::start()
{
    if (m_thread)
        return;
    const PrepareOptions o = options();
    m_cancel = false;
    m_error.clear();
    m_progress->setValue(0);
    m_stage->setText(tr("Starting…"));
    m_thread = QThread::create([this, o] {
        try {
            m_report = prepareData(
                o,
                [this](double fraction, const std::string &stage) {
                    const QString s = q(stage);
                    QMetaObject::invokeMethod(this, [this, fraction, s] {
                        m_progress->setValue(int(fraction * 1000));
                        m_stage->setText(s);
                    }, Qt::QueuedConnection);
                },
                &m_cancel);
        } catch (const Error &e) {
            m_error = e.field().empty() ? QString::fromUtf8(e.what())
                                        : QStringLiteral("%1: %2").arg(q(e.field()), QString::fromUtf8(e.what()));
            if (!e.hint().empty())
                m_error += QStringLiteral("\n") + q(e.hint());
        } catch (const std::exception &e) {
            m_error = QString::fromUtf8(e.what());
        }
    });
    connect(m_thread, &QThread::finished, this, &PrepareDataDialog::finish);
    setRunning(true);
    m_thread->start();
}

void PrepareDataDialog::cancel()
{
    if (m_thread) {
        m_cancel = true;
        m_stage->setText(tr("Cancelling…"));
    }
}

void PrepareDataDialog::finish()
{
    m_thread->wait();
    m_thread->deleteLater();
    m_thread = nullptr;
    setRunning(false);
    if (!m_error.isEmpty()) {
        m_stage->setText(QStringLiteral("<span style='color:#b00000'>%1</span>").arg(m_error.toHtmlEscaped()));
        Q_EMIT failed(m_error);
        return;
    }
    m_progress->setValue(1000);
    QString text = tr("Wrote %1 training and %2 evaluation examples (%3 labels: %4) in %5 s.")
                       .arg(m_report.train_examples).arg(m_report.eval_examples).arg(m_report.labels.size())
                       .arg(q(m_report.labels.empty() ? std::string() : m_report.labels.front()) +
                            (m_report.labels.size() > 1 ? QStringLiteral(", …") : QString()))
                       .arg(m_report.seconds, 0, 'f', 1);
    if (m_report.truncated_examples > 0)
        text += tr(" %1 examples were truncated to max_seq_length.").arg(m_report.truncated_examples);
    m_stage->setText(text);
    Q_EMIT prepared(m_report);
}

} // namespace wb
