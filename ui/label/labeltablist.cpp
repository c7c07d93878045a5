// SPDX-License-Identifier: Apache-2.0
// The Label tab: the Labelled page (every label given, the label column editable) and "Make a
// project from these labels" (prepare of labels.csv, handed to the form).
#include "ui/label/labeltab.h"

#include "core/prepare/dataprep.h"
#include "ui/common/qtext.h"
#include "ui/form/configurationform.h"
#include "ui/form/formtask.h"
#include "ui/label/labelcurveplot.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include <functional>

namespace wb {

namespace {

enum Column { TextColumn, LabelColumn, SuggestedColumn, TimeColumn, ColumnCount };

/// The Label column's editor: a combo box of the session's label names.
class LabelChoiceDelegate : public QStyledItemDelegate
{
public:
    LabelChoiceDelegate(std::function<QStringList()> names, QObject *parent)
        : QStyledItemDelegate(parent), m_names(std::move(names))
    {
    }
    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &, const QModelIndex &) const override
    {
        auto *box = new QComboBox(parent);
        box->addItems(m_names());
        return box;
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        static_cast<QComboBox *>(editor)->setCurrentText(index.data().toString());
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        model->setData(index, static_cast<QComboBox *>(editor)->currentText());
    }

private:
    std::function<QStringList()> m_names;
};

/// "2026-12-06T00:10:03.250Z" as local time, "06.12.2026 01:10:03" in the locale's short form.
QString shownTime(const std::string &time)
{
    const QDateTime t = QDateTime::fromString(q(time), Qt::ISODateWithMs);
    return t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::ShortFormat) : q(time);
}

} // namespace

QWidget *LabelTab::buildListPage()
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    auto *hint = new QLabel(tr("Every label given, oldest first. Double-click a label to change it (saved at once)."));
    hint->setWordWrap(true);
    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("labelledTable"));
    m_table->setHorizontalHeaderLabels({tr("Text"), tr("Label"), tr("Suggested"), tr("Time")});
    m_table->horizontalHeader()->setSectionResizeMode(TextColumn, QHeaderView::Stretch);
    for (int c : {LabelColumn, SuggestedColumn, TimeColumn})
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setVisible(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setItemDelegateForColumn(LabelColumn, new LabelChoiceDelegate(
                                                       [this] {
                                                           QStringList names;
                                                           for (const std::string &n : m_settings.label_names)
                                                               names << q(n);
                                                           return names;
                                                       },
                                                       m_table));
    connect(m_table, &QTableWidget::cellChanged, this, &LabelTab::tableEdited);
    layout->addWidget(hint);
    layout->addWidget(m_table, 1);
    return page;
}

void LabelTab::appendTableRow(const PoolLabel &label)
{
    m_fillingTable = true;
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    QString text = q(label.text).simplified();
    auto *textItem = new QTableWidgetItem(text.size() > 200 ? text.left(200) + QChar(0x2026) : text);
    textItem->setToolTip(q(label.text).left(2000));
    const std::vector<QTableWidgetItem *> items{textItem, new QTableWidgetItem(q(label.label)),
                                                 new QTableWidgetItem(q(label.suggested_label)),
                                                 new QTableWidgetItem(shownTime(label.time))};
    for (int c = 0; c < ColumnCount; ++c) {
        if (c != LabelColumn)
            items[size_t(c)]->setFlags(items[size_t(c)]->flags() & ~Qt::ItemIsEditable);
        m_table->setItem(row, c, items[size_t(c)]);
    }
    m_fillingTable = false;
}

void LabelTab::fillTable()
{
    m_fillingTable = true;
    m_table->setRowCount(0);
    for (const PoolLabel &label : labels())
        appendTableRow(label);
    m_fillingTable = false;
    m_table->scrollToBottom();
}

void LabelTab::tableEdited(int row, int column)
{
    if (m_fillingTable || column != LabelColumn)
        return;
    relabel(row, m_table->item(row, column)->text());
}

bool LabelTab::relabel(int row, const QString &label)
{
    if (!m_store || row < 0 || row >= int(m_store->labels().size()))
        return false;
    const std::string name = label.toStdString();
    if (m_store->labels()[size_t(row)].label == name)
        return true;
    bool ok = false;
    if (std::find(m_settings.label_names.begin(), m_settings.label_names.end(), name) == m_settings.label_names.end()) {
        setStatus(tr("“%1” is not one of this session's labels.").arg(label));
    } else {
        try {
            m_store->relabel(row, name);
            setStatus(tr("Text %1 is now labelled “%2” (saved); the next model learns it.").arg(row + 1).arg(label));
            ok = true;
        } catch (...) {
            setStatus(tr("The label was not changed: %1").arg(currentErrorReport().logLine()));
        }
    }
    // The row shows what the file holds.
    m_fillingTable = true;
    m_table->item(row, LabelColumn)->setText(q(m_store->labels()[size_t(row)].label));
    m_table->item(row, TimeColumn)->setText(shownTime(m_store->labels()[size_t(row)].time));
    m_fillingTable = false;
    return ok;
}

void LabelTab::makeProject()
{
    if (!m_store || m_projectJob.isRunning())
        return;
    if (m_store->labels().size() < 4) {
        setStatus(tr("A project needs a few labels of each kind first (%1 given).").arg(m_store->labels().size()));
        return;
    }
    PrepareOptions o;
    o.input_data_dir = m_store->path();
    o.classification_task_name = "csv";
    o.vocab_file = m_settings.vocab_file;
    o.do_lower_case = m_settings.do_lower_case;
    o.max_seq_length = m_settings.max_seq_length;
    o.seed = uint64_t(m_settings.seed);
    std::string list;
    for (const std::string &n : m_settings.label_names)
        list += (list.empty() ? "" : ",") + n;
    o.label_list = list;
    o.output_dir = (QDir(m_dir).filePath(QStringLiteral("project-%1-labels").arg(m_store->labels().size()))).toStdString();
    m_makeProject->setEnabled(false);
    setStatus(tr("Making a project from %1…").arg(counted(qlonglong(m_store->labels().size()))));
    m_projectJob = runBackgroundJob<PrepareReport>(
        this, [o](const JobControl &job) { return prepareData(o, {}, job.stopToken()); },
        [this](JobOutcome<PrepareReport> outcome) {
            m_makeProject->setEnabled(m_loaded);
            if (!outcome.ok()) {
                setStatus(tr("The project was not made: %1").arg(outcome.error.logLine()));
                Q_EMIT projectFailed(outcome.error.logLine());
                return;
            }
            m_project = *outcome.value;
            setStatus(tr("Project made: %1 training and %2 evaluation texts in %3; the form trains on it.")
                          .arg(m_project.train_examples)
                          .arg(m_project.eval_examples)
                          .arg(QDir::toNativeSeparators(QFileInfo(q(m_project.meta_path)).absolutePath())));
            Q_EMIT projectPrepared(m_project);
        });
}

QStringList LabelTab::applyProjectToForm(ConfigurationForm *form) const
{
    if (!form || m_project.meta_path.empty())
        return {};
    form->setTask(FormTask::Classify);
    const QString init = q(m_settings.init_checkpoint);
    if (!init.isEmpty() && QFileInfo(init).isDir()) {
        form->setValue(QStringLiteral("pretrained_model"), init); // an export folder: its files
    } else {
        form->setValue(QStringLiteral("pretrained_model"), QString());
        form->setPath(QStringLiteral("bert_config_file"), q(m_settings.bert_config_file));
        form->setPath(QStringLiteral("init_checkpoint"), init);
    }
    form->setPath(QStringLiteral("vocab_file"), q(m_settings.vocab_file));
    form->setPath(QStringLiteral("train_data_path"), q(m_project.train_path));
    form->setPath(QStringLiteral("eval_data_path"), q(m_project.eval_path));
    form->setPath(QStringLiteral("input_meta_data_path"), q(m_project.meta_path));
    const QString dir = QFileInfo(q(m_project.meta_path)).absolutePath();
    form->setPath(QStringLiteral("model_dir"), QDir(dir).filePath(QStringLiteral("run")));
    return {QStringLiteral("bert_config_file"), QStringLiteral("init_checkpoint"), QStringLiteral("vocab_file"),
            QStringLiteral("train_data_path"), QStringLiteral("eval_data_path"), QStringLiteral("input_meta_data_path"),
            QStringLiteral("model_dir")};
}

} // namespace wb
