// SPDX-License-Identifier: Apache-2.0
#include "ui/label/labelsessiondialog.h"

#include "ui/common/qtext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace wb {

QString labelNameProblem(const QString &name)
{
    if (name.trimmed().isEmpty())
        return QObject::tr("a label name is empty");
    if (name.trimmed() != name)
        return QObject::tr("the label “%1” starts or ends with white space").arg(name);
    for (const QChar c : {QChar(u','), QChar(u';'), QChar(u'|'), QChar(u'\n'), QChar(u'\r'), QChar(0)})
        if (name.contains(c))
            return QObject::tr("the label “%1” holds “%2”, which prepare reads as separating labels: "
                               "choose a name without ',', ';' or '|'")
                .arg(name, c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QChar(0) ? QObject::tr("a line break") : QString(c));
    return {};
}

LabelSessionDialog::LabelSessionDialog(const LabelSessionSettings &defaults, QWidget *parent)
    : QDialog(parent), m_defaults(defaults)
{
    setWindowTitle(tr("New labelling session"));
    setObjectName(QStringLiteral("labelSessionDialog"));
    setMinimumWidth(680); // room for the paths
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    layout->addLayout(form);
    m_folder = pathRow(form, tr("Session folder"), QStringLiteral("labelSessionFolder"), true, false);
    m_folder->setToolTip(tr("label_session.json, labels.csv (every label as it is given) and curve.jsonl go here."));
    m_pool = pathRow(form, tr("Texts to label"), QStringLiteral("labelPool"), true, true);
    m_pool->setToolTip(tr("A text file (one text a line), a folder (one text a file), or a CSV/TSV/JSONL file."));
    m_column = new QLineEdit;
    m_column->setObjectName(QStringLiteral("labelPoolColumn"));
    m_column->setPlaceholderText(tr("CSV/JSONL: recognised (text, sentence, review …)"));
    form->addRow(tr("Text column"), m_column);
    m_email = new QCheckBox(tr("E-mail bodies only (drop the header block)"));
    m_email->setObjectName(QStringLiteral("labelEmailBodies"));
    form->addRow(QString(), m_email);

    m_labels = new QListWidget;
    m_labels->setObjectName(QStringLiteral("labelNames"));
    m_labels->setMaximumHeight(90);
    auto *add = new QPushButton(tr("Add label"));
    auto *remove = new QPushButton(tr("Remove"));
    connect(add, &QPushButton::clicked, this, &LabelSessionDialog::addLabel);
    connect(remove, &QPushButton::clicked, this, [this] { delete m_labels->currentItem(); });
    auto *labelButtons = new QVBoxLayout;
    labelButtons->addWidget(add);
    labelButtons->addWidget(remove);
    labelButtons->addStretch(1);
    auto *labelRow = new QHBoxLayout;
    labelRow->addWidget(m_labels, 1);
    labelRow->addLayout(labelButtons);
    form->addRow(tr("Labels (double-click renames)"), labelRow);
    QStringList names;
    for (const std::string &n : defaults.label_names)
        names << q(n);
    setLabels(names);

    m_config = pathRow(form, tr("Model config"), QStringLiteral("labelConfig"), false, true);
    m_config->setText(q(defaults.bert_config_file));
    m_vocab = pathRow(form, tr("Vocabulary"), QStringLiteral("labelVocab"), false, true);
    m_vocab->setText(q(defaults.vocab_file));
    m_init = pathRow(form, tr("Start from weights"), QStringLiteral("labelInit"), true, true);
    m_init->setText(q(defaults.init_checkpoint));
    m_init->setPlaceholderText(tr("empty: random weights"));
    m_lower = new QCheckBox(tr("Lower-case the texts (an uncased vocabulary)"));
    m_lower->setChecked(defaults.do_lower_case);
    form->addRow(QString(), m_lower);
    m_k = new QSpinBox;
    m_k->setObjectName(QStringLiteral("labelK"));
    m_k->setRange(1, 1000);
    m_k->setValue(int(defaults.batch_size));
    m_k->setSuffix(tr(" labels"));
    form->addRow(tr("Retrain after every"), m_k);
    m_order = new QComboBox;
    m_order->setObjectName(QStringLiteral("labelOrder"));
    m_order->addItem(tr("Most useful first (uncertain, diverse)"), QStringLiteral("uncertain_diverse"));
    m_order->addItem(tr("Random"), QStringLiteral("random"));
    m_order->setCurrentIndex(defaults.strategy == "random" ? 1 : 0);
    form->addRow(tr("Order"), m_order);

    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("labelSessionProblem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &LabelSessionDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QLineEdit *LabelSessionDialog::pathRow(QFormLayout *form, const QString &label, const QString &objectName, bool folder,
                                       bool file)
{
    auto *edit = new QLineEdit;
    edit->setObjectName(objectName);
    auto *row = new QHBoxLayout;
    row->addWidget(edit, 1);
    if (file) {
        auto *browse = new QPushButton(tr("File…"));
        connect(browse, &QPushButton::clicked, this, [this, edit, label] {
            const QString f = QFileDialog::getOpenFileName(this, label, edit->text());
            if (!f.isEmpty())
                edit->setText(f);
        });
        row->addWidget(browse);
    }
    if (folder) {
        auto *browse = new QPushButton(tr("Folder…"));
        connect(browse, &QPushButton::clicked, this, [this, edit, label] {
            const QString f = QFileDialog::getExistingDirectory(this, label, edit->text());
            if (!f.isEmpty())
                edit->setText(f);
        });
        row->addWidget(browse);
    }
    form->addRow(label, row);
    return edit;
}

void LabelSessionDialog::addLabel()
{
    auto *item = new QListWidgetItem(tr("label %1").arg(m_labels->count() + 1));
    item->setFlags(item->flags() | Qt::ItemIsEditable);
    m_labels->addItem(item);
    m_labels->setCurrentItem(item);
    m_labels->editItem(item);
}

QString LabelSessionDialog::folder() const { return m_folder->text().trimmed(); }

void LabelSessionDialog::setFolder(const QString &dir) { m_folder->setText(dir); }
void LabelSessionDialog::setPool(const QString &path) { m_pool->setText(path); }

void LabelSessionDialog::setLabels(const QStringList &names)
{
    m_labels->clear();
    for (const QString &n : names) {
        auto *item = new QListWidgetItem(n);
        item->setFlags(item->flags() | Qt::ItemIsEditable);
        m_labels->addItem(item);
    }
}

LabelSessionSettings LabelSessionDialog::settings() const
{
    LabelSessionSettings s = m_defaults;
    s.pool_path = m_pool->text().trimmed().toStdString();
    s.text_column = m_column->text().trimmed().toStdString();
    s.email_body_only = m_email->isChecked();
    s.label_names.clear();
    for (int i = 0; i < m_labels->count(); ++i)
        if (const QString n = m_labels->item(i)->text(); !n.trimmed().isEmpty())
            s.label_names.push_back(n.toStdString());
    s.bert_config_file = m_config->text().trimmed().toStdString();
    s.vocab_file = m_vocab->text().trimmed().toStdString();
    s.init_checkpoint = m_init->text().trimmed().toStdString();
    s.do_lower_case = m_lower->isChecked();
    s.batch_size = m_k->value();
    s.strategy = m_order->currentData().toString().toStdString();
    return s;
}

QString LabelSessionDialog::problem() const
{
    const LabelSessionSettings s = settings();
    if (folder().isEmpty())
        return tr("Session folder: choose a folder for the session's files.");
    if (s.pool_path.empty())
        return tr("Texts to label: choose a text file (one text a line), a folder (one text a file) or a CSV/JSONL file.");
    if (!QFileInfo::exists(q(s.pool_path)))
        return tr("Texts to label: “%1” does not exist; choose a text file, a folder or a CSV/JSONL file.").arg(q(s.pool_path));
    if (s.label_names.size() < 2)
        return tr("Labels: add at least two labels (Add label), e.g. spam and ham.");
    for (size_t i = 0; i < s.label_names.size(); ++i) {
        if (const QString p = labelNameProblem(q(s.label_names[i])); !p.isEmpty())
            return tr("Labels: %1.").arg(p);
        for (size_t j = 0; j < i; ++j)
            if (s.label_names[i] == s.label_names[j])
                return tr("Labels: “%1” is there twice; rename one.").arg(q(s.label_names[i]));
    }
    if (s.bert_config_file.empty() || !QFileInfo(q(s.bert_config_file)).isFile())
        return tr("Model config: choose a bert_config.json (e.g. the form's Model config).");
    if (s.vocab_file.empty() || !QFileInfo(q(s.vocab_file)).isFile())
        return tr("Vocabulary: choose the model's vocab.txt.");
    if (!s.init_checkpoint.empty() && !QFileInfo::exists(q(s.init_checkpoint)))
        return tr("Start from weights: “%1” does not exist; empty it for random weights.").arg(q(s.init_checkpoint));
    return {};
}

void LabelSessionDialog::accept()
{
    const QString p = problem();
    m_problem->setText(p);
    if (p.isEmpty())
        QDialog::accept();
}

} // namespace wb
