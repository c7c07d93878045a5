// SPDX-License-Identifier: Apache-2.0
#include "ui/form/configurationform.h"
#include "ui/common/qtext.h"

#include "core/config/optiontable.h"
#include "core/hub/catalogue.h"
#include "core/hub/pretrainedmodel.h"
#include "ui/common/backgroundjob.h"
#include "ui/form/fieldhelp.h"
#include "ui/form/modeldownloadpanel.h"
#include "ui/form/modelpicker.h"
#include "ui/form/numberspinbox.h"
#include "ui/form/wheelguard.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWhatsThis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

constexpr int kMaxRecent = 8;      // entries per recent-files list
constexpr int kPathFieldChars = 34; // a path field narrower than this many average characters goes under its label
constexpr int kRealDecimals = 1000; // digits a real text field takes after the point (Qt's default; was 12)

/// A note under a field, across the form's row: italic plain text that wraps, named `objectName`.
QLabel *newNoteLabel(const QString &objectName)
{
    auto *note = new QLabel;
    note->setObjectName(objectName);
    note->setWordWrap(true);
    note->setTextFormat(Qt::PlainText);
    QFont italic = note->font();
    italic.setItalic(true);
    note->setFont(italic);
    return note;
}

/// What 0 shows in a number field: the zero meaning without its explanation in parentheses
/// ("off (use TF_CONFIG …)" → "off"), which the tooltip gives, so it fits a narrow field.
QString zeroText(const OptionSpec &spec)
{
    const QString full = QString::fromUtf8(spec.zero_means);
    const int paren = full.indexOf(QStringLiteral(" ("));
    return paren > 0 ? full.left(paren) : full;
}

QString tooltip(const OptionSpec &spec)
{
    QString tip = QStringLiteral("<b>%1</b> (<code>--%2</code>)<br>%3")
                      .arg(QString::fromUtf8(spec.label), QString::fromLatin1(spec.flag), QString::fromUtf8(spec.help).toHtmlEscaped());
    if (zeroText(spec) != QString::fromUtf8(spec.zero_means))
        tip += QStringLiteral("<br>0: %1").arg(QString::fromUtf8(spec.zero_means).toHtmlEscaped());
    return tip;
}

/// The integer range of `spec`'s form field: the table's minimum and maximum within the
/// member's own type (int or int64; a double holds int64's maximum only rounded up).
std::pair<qint64, qint64> integerRange(const OptionSpec &spec)
{
    const bool isInt = std::holds_alternative<int TrainingOptions::*>(spec.member);
    const qint64 lo = isInt ? std::numeric_limits<int>::min() : std::numeric_limits<qint64>::min();
    const qint64 hi = isInt ? std::numeric_limits<int>::max() : std::numeric_limits<qint64>::max();
    const auto saturate = [lo, hi](double v) { return v <= double(lo) ? lo : v >= double(hi) ? hi : qint64(v); };
    return {saturate(spec.minimum), saturate(spec.maximum)};
}

bool isInputFile(const OptionSpec &spec)
{
    const std::string_view f = spec.flag;
    return f == "bert_config_file" || f == "input_meta_data_path";
}

} // namespace

ConfigurationForm::ConfigurationForm(QWidget *parent) : QWidget(parent)
{
    m_loading = true; // the editors' first values are no edits
    m_layout = new QVBoxLayout(this);
    buildTaskRow();
    const struct
    {
        FormGroup group;
        QString title;
    } groups[] = {{FormGroup::Strategy, tr("1. Where to train")},
                  {FormGroup::Files, tr("2. Model and data")},
                  {FormGroup::Hyperparameters, tr("3. Hyperparameters")}};
    QWidget *localWorkers = nullptr, *workerTimeout = nullptr;
    for (const auto &g : groups) {
        auto *box = new QGroupBox(g.title);
        auto *form = new QFormLayout(box);
        // On a narrow pane (1024×700, 150 % scale) a field that does not fit beside its label
        // moves under it, instead of the label being cut.
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        for (const OptionSpec &spec : optionTable()) {
            if (spec.group != g.group)
                continue;
            Binding binding{&spec, {}, {}, false};
            QWidget *editor = createEditor(spec, binding, m_bindings.size());
            addRow(form, spec, editor);
            m_bindings.push_back(std::move(binding));
            if (std::string_view(spec.flag) == "num_local_workers") {
                localWorkers = editor;
                m_localWorkersRow = editor->parentWidget();
                m_strategyForm = form;
            }
            if (std::string_view(spec.flag) == "worker_timeout")
                workerTimeout = editor;
        }
        if (g.group == FormGroup::Hyperparameters) {
            auto *reset = new QPushButton(tr("Reset to defaults"));
            reset->setObjectName(QStringLiteral("resetDefaults"));
            reset->setToolTip(tr("Set every hyperparameter back to run_classifier's default (files and strategy are kept)"));
            connect(reset, &QPushButton::clicked, this, &ConfigurationForm::resetToDefaults);
            form->addRow(QString(), reset);
        }
        if (g.group == FormGroup::Files)
            m_filesForm = form;
        m_layout->addWidget(box);
    }
    // Local workers and the timeout only mean something for multi_worker_mirrored.
    if (m_strategy && localWorkers && workerTimeout) {
        const auto follow = [this, localWorkers, workerTimeout] {
            const bool multi = m_strategy->currentText() == QLatin1String("multi_worker_mirrored");
            localWorkers->setEnabled(multi);
            workerTimeout->setEnabled(multi);
        };
        connect(m_strategy, &QComboBox::currentTextChanged, this, follow);
        follow();
    }
    guardWheel(this); // the panels added to panelLayout() later are guarded too
    m_loading = false;
    applyTask();
    updateStartFromNote();
}

void ConfigurationForm::buildTaskRow()
{
    auto *row = new QFormLayout;
    m_task = new QComboBox;
    m_task->setObjectName(QStringLiteral("task"));
    m_task->addItem(tr("Classify text"), QString::fromLatin1(formTaskName(FormTask::Classify)));
    m_task->addItem(tr("Pretrain on text"), QString::fromLatin1(formTaskName(FormTask::Pretrain)));
    m_task->setToolTip(tr("<b>Task</b><br>Classify text: fine-tune a classifier on labelled data "
                          "(<code>bert-workbench-cli train</code>).<br>Pretrain on text: teach the model your own "
                          "unlabelled text with the masked-language-model objective, on the data of "
                          "<code>prepare_pretraining</code> (<code>bert-workbench-cli pretrain</code>); "
                          "then fine-tune from it."));
    auto *label = new QLabel(tr("Task"));
    label->setBuddy(m_task);
    m_task->setWhatsThis(m_task->toolTip());
    label->setWhatsThis(m_task->toolTip());
    row->addRow(label, m_task);
    m_taskNote = newNoteLabel(QStringLiteral("taskNote"));
    row->addRow(m_taskNote);
    m_layout->addLayout(row);
    connect(m_task, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] {
        applyTask();
        Q_EMIT taskChanged();
        if (!m_loading)
            Q_EMIT edited();
    });
}

FormTask ConfigurationForm::task() const
{
    return parseFormTask(m_task->currentData().toString().toStdString()).value_or(FormTask::Classify);
}

void ConfigurationForm::setTask(FormTask t)
{
    const int index = m_task->findData(QString::fromLatin1(formTaskName(t)));
    if (index == m_task->currentIndex())
        return;
    const bool loading = std::exchange(m_loading, true);
    m_task->setCurrentIndex(index); // applyTask() and taskChanged() from its signal
    m_loading = loading;
}

void ConfigurationForm::applyTask()
{
    const bool pretrain = task() == FormTask::Pretrain;
    m_taskNote->setText(pretrain ? tr("Masked-language-model pretraining on unlabelled text (the records of "
                                      "prepare_pretraining): the model learns to fill in hidden words. The curves "
                                      "show the MLM loss and the accuracy on the masked words; Try it fills in "
                                      "[MASK]. Then fine-tune with “Init checkpoint” set to this model directory.")
                                 : tr("Fine-tune a classifier on labelled examples (the records of Prepare Data)."));
    // Local workers are train's only for now (docs/pretraining.md).
    if (m_strategyForm && m_localWorkersRow)
        m_strategyForm->setRowVisible(m_localWorkersRow, !pretrain);
    // The classifier metrics mean nothing for a masked LM: eval_loss is its MLM loss,
    // eval_accuracy its MLM accuracy.
    if (auto *best = findChild<QComboBox *>(QStringLiteral("best_checkpoint_metric")))
        if (auto *model = qobject_cast<QStandardItemModel *>(best->model()))
            for (const char *metric : {"eval_f1", "eval_mcc"})
                if (QStandardItem *item = model->item(best->findData(QString::fromLatin1(metric))))
                    item->setEnabled(!pretrain);
}

ConfigurationForm::~ConfigurationForm()
{
    // ~QWidget deletes the children after this object's members are gone; a child's signal
    // emitted then (the model field's editingFinished when it loses focus) must not reach this
    // form's slots, which read those members (found by UBSan in ui.startfrom).
    for (QObject *child : findChildren<QObject *>())
        child->disconnect(this);
}

QWidget *ConfigurationForm::createEditor(const OptionSpec &spec, Binding &b, size_t index)
{
    const QString flag = QString::fromLatin1(spec.flag);
    switch (spec.type()) {
    case OptionType::Text:
        if (spec.isPath())
            return createPathEditor(spec, b, index);
        if (flag == QLatin1String("pretrained_model"))
            return createModelPicker(spec, b, index);
        if (spec.isBoolean())
            return createCheckBox(spec, b, index);
        if (!spec.choices.empty())
            return createChoiceBox(spec, b, index);
        return createTextEdit(spec, b, index);
    case OptionType::Integer:
    case OptionType::OptionalInteger:
        return createIntegerEditor(spec, b, index);
    case OptionType::Real:
    case OptionType::OptionalReal:
        break;
    }
    return createRealEditor(spec, b, index);
}

QWidget *ConfigurationForm::createCheckBox(const OptionSpec &spec, Binding &b, size_t index)
{
    const auto onEdit = [this, index] { fieldEdited(index); };
    // An on/off option is a check box (its label says what "on" does), not a
    // false/true choice.
    auto *check = new QCheckBox;
    connect(check, &QCheckBox::toggled, this, onEdit);
    b.show = [check, &spec](const TrainingOptions &o) { check->setChecked(spec.text(o) == "true"); };
    b.read = [check, &spec](TrainingOptions &o) { spec.setText(o, check->isChecked() ? "true" : "false"); };
    return check;
}

QWidget *ConfigurationForm::createChoiceBox(const OptionSpec &spec, Binding &b, size_t index)
{
    const QString flag = QString::fromLatin1(spec.flag);
    const auto onEdit = [this, index] { fieldEdited(index); };
    auto *combo = new QComboBox;
    combo->setPlaceholderText(tr("Choose a %1…").arg(QString::fromUtf8(spec.label).toLower()));
    // An empty choice (an option that may be off) reads "none". The box is as wide
    // as its longest choice, not the longer placeholder: the row then fits beside
    // its label on a narrow pane.
    int longest = 0;
    for (const std::string &c : spec.choices) {
        const QString text = c.empty() ? tr("none") : q(c);
        combo->addItem(text, q(c));
        longest = std::max(longest, int(text.size()));
    }
    combo->setMinimumContentsLength(longest);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setCurrentIndex(-1);
    connect(combo, QOverload<int>::of(&QComboBox::currentIndexChanged), this, onEdit);
    b.show = [combo, &spec](const TrainingOptions &o) {
        combo->setCurrentIndex(combo->findData(q(spec.text(o)), Qt::UserRole, Qt::MatchFixedString));
    };
    b.read = [combo, &spec](TrainingOptions &o) {
        spec.setText(o, combo->currentIndex() < 0 ? std::string() : combo->currentData().toString().toStdString());
    };
    if (flag == QLatin1String("distribution_strategy"))
        m_strategy = combo;
    return combo;
}

QWidget *ConfigurationForm::createTextEdit(const OptionSpec &spec, Binding &b, size_t index)
{
    const auto onEdit = [this, index] { fieldEdited(index); };
    auto *edit = new QLineEdit;
    connect(edit, &QLineEdit::textChanged, this, onEdit);
    b.show = [edit, &spec](const TrainingOptions &o) { edit->setText(q(spec.text(o))); };
    b.read = [edit, &spec](TrainingOptions &o) { spec.setText(o, edit->text().trimmed().toStdString()); };
    return edit;
}

QWidget *ConfigurationForm::createIntegerEditor(const OptionSpec &spec, Binding &b, size_t index)
{
    const auto onEdit = [this, index] { fieldEdited(index); };
    // int64 in full: a seed above INT_MAX is shown and given back as it is.
    auto *spin = new NumberSpinBox(NumberSpinBox::Kind::Integer);
    const auto [lo, hi] = integerRange(spec);
    spin->setRange(lo, hi);
    if (*spec.zero_means)
        spin->setSpecialValueText(zeroText(spec));
    if (std::string_view(spec.unit) == "s")
        spin->setSuffix(tr(" s"));
    spin->setValue(spec.defaultText().empty() ? 0 : QString::fromStdString(spec.defaultText()).toLongLong());
    connect(spin, &NumberSpinBox::valueChanged, this, onEdit);
    const bool optional = spec.type() == OptionType::OptionalInteger;
    b.show = [spin, &spec, lo = lo, hi = hi](const TrainingOptions &o) {
        const std::string text = spec.text(o);
        const qint64 v = text.empty() ? 0 : QString::fromStdString(text).toLongLong();
        spin->setRange(lo, hi);
        spin->widenTo(v); // a value beyond the form's range is shown as it is; validation reports it
        spin->setValue(v);
    };
    b.read = [spin, &spec, optional](TrainingOptions &o) {
        if (optional && spin->value() == 0) {
            spec.copy(TrainingOptions{}, o); // 0 shows "all": the option is not given
            return;
        }
        spec.setText(o, std::to_string(spin->value()));
    };
    return spin;
}

QWidget *ConfigurationForm::createRealEditor(const OptionSpec &spec, Binding &b, size_t index)
{
    const auto onEdit = [this, index] { fieldEdited(index); };
    // Reals are shown in their shortest round-trip text (spec.text(): 2.123456789e-05, not
    // 'g', 6's 2.12346e-05) and read back exactly; a spin box does not round them to its decimals.
    if (spec.step > 0) {
        auto *spin = new NumberSpinBox(NumberSpinBox::Kind::Real);
        spin->setRealRange(spec.minimum, spec.maximum);
        spin->setSingleStep(spec.step);
        spin->setDecimals(spec.decimals);
        spin->setRealValue(QString::fromStdString(spec.defaultText()).toDouble());
        connect(spin, &NumberSpinBox::valueChanged, this, onEdit);
        b.show = [spin, &spec](const TrainingOptions &o) {
            const double v = QString::fromStdString(spec.text(o)).toDouble();
            spin->setRealRange(spec.minimum, spec.maximum);
            spin->widenRealTo(v);
            spin->setRealValue(v);
        };
        b.read = [spin, &spec](TrainingOptions &o) {
            spec.setText(o, QString::number(spin->realValue(), 'g', 17).toStdString()); // 17 digits: exact
        };
        return spin;
    }
    auto *edit = new QLineEdit;
    auto *validator = new QDoubleValidator(spec.minimum, spec.maximum, kRealDecimals, edit);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    validator->setLocale(QLocale::c());
    edit->setValidator(validator);
    connect(edit, &QLineEdit::textChanged, this, onEdit);
    b.show = [edit, &spec](const TrainingOptions &o) { edit->setText(q(spec.text(o))); };
    const bool optional = spec.type() == OptionType::OptionalReal;
    if (optional && QLatin1String(spec.flag) == QLatin1String("learning_rate"))
        m_learningRateEdit = edit; // its placeholder names the rate the start gives
    b.read = [edit, &spec, optional](TrainingOptions &o) {
        if (optional && edit->text().trimmed().isEmpty()) {
            spec.copy(TrainingOptions{}, o); // empty: not given
            return;
        }
        bool ok = false;
        const double v = QLocale::c().toDouble(edit->text().trimmed(), &ok);
        // An unreadable number reaches validation as NaN, which names the field.
        spec.setText(o, ok ? QString::number(v, 'g', 17).toStdString() : std::string("nan"));
    };
    return edit;
}

QWidget *ConfigurationForm::createPathEditor(const OptionSpec &spec, Binding &b, size_t index)
{
    const QString field = QString::fromLatin1(spec.flag);
    const bool directory = spec.path == PathKind::Directory;
    const QString filter = tr(spec.file_types);
    auto *edit = new QLineEdit;
    edit->setClearButtonEnabled(true);
    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Browse (arrow: recent files)"));
    browse->setPopupMode(QToolButton::MenuButtonPopup);
    auto *menu = new QMenu(browse);
    browse->setMenu(menu);
    connect(menu, &QMenu::aboutToShow, this, [this, menu, edit, field] {
        menu->clear();
        const QStringList items = recentValues(field);
        if (items.isEmpty())
            menu->addAction(tr("No recent files"))->setEnabled(false);
        for (const QString &item : items)
            menu->addAction(item, this, [edit, item] { edit->setText(item); });
    });
    connect(browse, &QToolButton::clicked, this, [this, edit, field, directory, filter, &spec] {
        // Next to the file already named, else next to the project's other files (not the
        // program's working directory).
        const QString start = edit->text().isEmpty() ? startFolder() : QFileInfo(edit->text()).absolutePath();
        const QString title = QString::fromUtf8(spec.label);
        const QString path = directory ? QFileDialog::getExistingDirectory(this, title, edit->text().isEmpty() ? startFolder() : edit->text())
                                       : QFileDialog::getOpenFileName(this, title, start, filter);
        if (!path.isEmpty()) {
            edit->setText(path);
            addRecentValue(field, path);
        }
    });
    const bool input = isInputFile(spec);
    connect(edit, &QLineEdit::textChanged, this, [this, input, index] {
        if (input && !m_loading) {
            m_bindings.at(index).edited = true; // options() reads the new path in the slots
            Q_EMIT inputFilesChanged();
        }
        fieldEdited(index);
    });
    b.show = [edit, &spec](const TrainingOptions &o) { edit->setText(q(spec.text(o))); };
    b.read = [edit, &spec](TrainingOptions &o) { spec.setText(o, edit->text().trimmed().toStdString()); };
    m_pathEdits.push_back(edit);
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    row->setObjectName(field + QStringLiteral("_row"));
    edit->setProperty("wbPathEdit", true);
    return row;
}

void ConfigurationForm::addRow(QFormLayout *form, const OptionSpec &spec, QWidget *editor)
{
    const QString field = QString::fromLatin1(spec.flag);
    const QString tip = tooltip(spec);
    // The editor itself (the line edit of a path row) carries the flag's name.
    QWidget *named = editor;
    if (spec.isPath())
        named = editor->findChild<QLineEdit *>();
    named->setObjectName(field);
    named->setToolTip(tip);
    if (auto *edit = qobject_cast<QLineEdit *>(named); edit && spec.isPath()) {
        // A narrow field shows the path's end; the tooltip holds all of it.
        connect(edit, &QLineEdit::textChanged, edit, [edit, tip](const QString &path) {
            edit->setToolTip(path.isEmpty() ? tip : QStringLiteral("<code>%1</code><hr>%2").arg(path.toHtmlEscaped(), tip));
        });
    }
    editor->setToolTip(tip);
    // Shift+F1 (What's This?) and a click on the field, its label or its row: the "?" text.
    named->setWhatsThis(tip);
    editor->setWhatsThis(tip);
    auto *label = new QLabel(QString::fromUtf8(spec.label));
    label->setToolTip(tip);
    label->setWhatsThis(tip);
    auto *button = new QToolButton;
    button->setText(QStringLiteral("?"));
    button->setObjectName(field + QStringLiteral("_help"));
    button->setToolTip(tr("Explain %1").arg(QString::fromUtf8(spec.label)));
    button->setAutoRaise(true);
    button->setWhatsThis(tip);
    button->setFocusPolicy(Qt::NoFocus); // Tab goes from field to field; F1/What's This explain
    connect(button, &QToolButton::clicked, this, [button, tip] {
        QWhatsThis::showText(button->mapToGlobal(QPoint(button->width(), button->height() / 2)), tip, button);
    });
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(editor, 1);
    if (field == QLatin1String("keep_checkpoint_max")) {
        m_diskUse = new QLabel;
        m_diskUse->setObjectName(QStringLiteral("checkpointDiskUse"));
        m_diskUse->setToolTip(tr("Disk space of the checkpoints (ckpt-*) now in the model directory"));
        layout->addWidget(m_diskUse);
    }
    layout->addWidget(button);
    label->setBuddy(named);
    m_labels.push_back({field, label});
    form->addRow(label, row);
    if (field == QLatin1String("pretrained_model")) {
        // Which of the files below the choice fills (those left empty); their fields keep
        // what the user typed.
        m_startFromNote = newNoteLabel(QStringLiteral("startFromNote"));
        form->addRow(m_startFromNote); // under the picker, across the row
        if (m_download)
            form->addRow(m_download); // the chosen model's download, while it runs
    }
}

void ConfigurationForm::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateFilesLayout();
}

void ConfigurationForm::updateFilesLayout()
{
    if (!m_filesForm)
        return;
    int labelWidth = 0;
    for (int row = 0; row < m_filesForm->rowCount(); ++row)
        if (QLayoutItem *item = m_filesForm->itemAt(row, QFormLayout::LabelRole); item && item->widget())
            labelWidth = std::max(labelWidth, item->widget()->sizeHint().width());
    const QWidget *box = m_filesForm->parentWidget();
    const QMargins margins = m_filesForm->contentsMargins();
    const int fieldWidth = box->contentsRect().width() - margins.left() - margins.right() - labelWidth
                           - std::max(0, m_filesForm->horizontalSpacing());
    const auto policy = fieldWidth < kPathFieldChars * fontMetrics().averageCharWidth() ? QFormLayout::WrapAllRows
                                                                                          : QFormLayout::WrapLongRows;
    if (m_filesForm->rowWrapPolicy() != policy)
        m_filesForm->setRowWrapPolicy(policy);
}

void ConfigurationForm::setCheckpointDiskUse(const QString &text)
{
    if (m_diskUse)
        m_diskUse->setText(text);
}

void ConfigurationForm::highlightFields(const QStringList &flags)
{
    for (const auto &[flag, label] : m_labels) {
        const bool on = flags.contains(flag);
        QWidget *editor = findChild<QWidget *>(flag);
        label->setStyleSheet(on ? QStringLiteral("color:#b00000;font-weight:bold") : QString());
        if (editor)
            editor->setStyleSheet(on ? QStringLiteral("border:2px solid #d03030") : QString());
    }
    m_highlighted = flags;
}

void ConfigurationForm::fieldEdited(size_t index)
{
    if (!m_loading && index < m_bindings.size())
        m_bindings[index].edited = true;
    if (!m_highlighted.isEmpty())
        highlightFields({}); // an edit clears the marks of the last failed check
    if (!m_loading) {
        updateStartFromNote();
        Q_EMIT edited();
    }
}

TrainingOptions ConfigurationForm::options() const
{
    TrainingOptions o = m_base;
    for (const Binding &b : m_bindings)
        if (b.edited) // a field the user did not touch gives back exactly its loaded value
            b.read(o);
    if (m_strategy && (m_strategy->currentText() != QLatin1String("multi_worker_mirrored") || task() == FormTask::Pretrain))
        o.num_local_workers = 0;
    return o;
}

void ConfigurationForm::setOptions(const TrainingOptions &o)
{
    m_loading = true;
    m_base = o;
    for (Binding &b : m_bindings) {
        b.show(o);
        b.edited = false;
    }
    m_loading = false;
    // A loaded "Start from" is not applied (its fields stay as loaded); its files are looked
    // up in the cache for the line under the picker.
    if (q(o.pretrained_model) != m_appliedStartModel || !m_download->isFetching()) {
        if (m_download->isFetching())
            m_download->cancel();
        m_appliedStartModel = q(o.pretrained_model);
        m_startFiles.reset();
        m_startFromMessage.clear();
        lookUpStartModel();
    }
    updateStartFromNote();
}

void ConfigurationForm::resetToDefaults()
{
    TrainingOptions current = options();
    const TrainingOptions defaults;
    for (const OptionSpec &spec : optionTable())
        if (spec.group == FormGroup::Hyperparameters)
            spec.copy(defaults, current);
    setOptions(current);
    Q_EMIT edited();
}

QString ConfigurationForm::startFolder() const
{
    // The data first (what a learner browses for most), then the model's files, then the run.
    for (const char *flag : {"input_meta_data_path", "train_data_path", "eval_data_path", "bert_config_file", "vocab_file",
                             "init_checkpoint", "model_dir"})
        for (const QLineEdit *edit : m_pathEdits) {
            const QString text = edit->text().trimmed();
            if (edit->objectName() != QLatin1String(flag) || text.isEmpty() || text.contains(QLatin1Char('*')))
                continue;
            const QFileInfo f(text);
            const QString dir = f.isDir() && QLatin1String(flag) != QLatin1String("model_dir") ? f.absoluteFilePath() : f.absolutePath();
            if (QFileInfo(dir).isDir())
                return dir;
        }
    return QDir::homePath();
}

void ConfigurationForm::setPath(const QString &flag, const QString &path)
{
    for (QLineEdit *edit : m_pathEdits)
        if (edit->objectName() == flag)
            edit->setText(path);
}

bool ConfigurationForm::setValue(const QString &flag, const QString &text)
{
    if (flag == QLatin1String("pretrained_model")) {
        chooseStartModel(text);
        return true;
    }
    for (Binding &b : m_bindings) {
        if (QLatin1String(b.spec->flag) != flag)
            continue;
        TrainingOptions o = options();
        if (!b.spec->setText(o, text.toStdString()).empty())
            return false;
        b.show(o);
        b.edited = true; // also where the field shows no change (a value it cannot show)
        return true; // the editor's own change signal emits edited()
    }
    return false;
}

void ConfigurationForm::rememberPaths()
{
    for (QLineEdit *edit : m_pathEdits)
        addRecentValue(edit->objectName(), edit->text().trimmed());
}

QStringList ConfigurationForm::recentValues(const QString &key)
{
    return QSettings().value(QStringLiteral("recent/") + key).toStringList();
}

void ConfigurationForm::addRecentValue(const QString &key, const QString &value)
{
    if (value.isEmpty())
        return;
    QSettings settings;
    QStringList list = settings.value(QStringLiteral("recent/") + key).toStringList();
    list.removeAll(value);
    list.prepend(value);
    while (list.size() > kMaxRecent)
        list.removeLast();
    settings.setValue(QStringLiteral("recent/") + key, list);
}

} // namespace wb
