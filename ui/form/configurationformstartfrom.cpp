// SPDX-License-Identifier: Apache-2.0
// The form's "Start from" (pretrained_model): the model picker, a choice filling the model's
// config, vocabulary and casing (as from_pretrained), the download under it and the line that
// says which fields are the model's.
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

QWidget *ConfigurationForm::createModelPicker(const OptionSpec &spec, Binding &b, size_t index)
{
    QComboBox *combo = createModelPickerBox();
    m_modelPicker = combo;
    connect(combo, &QComboBox::currentTextChanged, this, [this, index] {
        const QString value = modelPickerValue(m_modelPicker);
        if (value == m_pickerValue)
            return; // a cache mark changed the item's text, not the choice
        m_pickerValue = value;
        fieldEdited(index);
    });
    // A choice from the list or Enter applies the model (even the one shown: a loaded
    // project's config may be another model's); typed text also when the field is left.
    connect(combo, QOverload<int>::of(&QComboBox::activated), this, [this] {
        if (!m_loading)
            applyStartModel(modelPickerValue(m_modelPicker));
    });
    connect(combo->lineEdit(), &QLineEdit::returnPressed, this, [this] {
        if (!m_loading)
            applyStartModel(modelPickerValue(m_modelPicker));
    });
    connect(combo->lineEdit(), &QLineEdit::editingFinished, this, [this] {
        const QString value = modelPickerValue(m_modelPicker);
        if (!m_loading && value != m_appliedStartModel)
            applyStartModel(value);
    });
    b.show = [this, combo, &spec](const TrainingOptions &o) {
        setModelPickerValue(combo, q(spec.text(o)));
        m_pickerValue = modelPickerValue(combo);
    };
    b.read = [combo, &spec](TrainingOptions &o) { spec.setText(o, modelPickerValue(combo).toStdString()); };
    m_download = new ModelDownloadPanel;
    connect(m_download, &ModelDownloadPanel::fetched, this, &ConfigurationForm::fillFromStartModel);
    connect(m_download, &ModelDownloadPanel::cancelled, this, [this](const QString &source) {
        if (source != m_appliedStartModel)
            return;
        m_startFromMessage = tr("Download of %1 cancelled. The part downloaded so far stays in the Hugging Face "
                                "cache and is resumed next time. BERT config and Vocabulary stay empty: Train "
                                "downloads the model, or choose it again in Start from.")
                                 .arg(modelDisplayName(source));
        refreshModelPickerCache(m_modelPicker);
        updateStartFromNote();
    });
    connect(m_download, &ModelDownloadPanel::failed, this,
            [this](const QString &source, const QString &message, const QString &hint) {
                if (source != m_appliedStartModel)
                    return;
                m_startFromMessage = hint.isEmpty() ? tr("Could not get %1: %2").arg(modelDisplayName(source), message)
                                                    : tr("Could not get %1: %2 How to fix: %3")
                                                          .arg(modelDisplayName(source), message, hint);
                updateStartFromNote();
            });
    return combo;
}

void ConfigurationForm::chooseStartModel(const QString &value)
{
    const QString text = value.trimmed();
    setModelPickerValue(m_modelPicker, text); // its change signal marks the field edited
    applyStartModel(modelPickerValue(m_modelPicker));
}

void ConfigurationForm::putValue(const char *flag, const std::string &text)
{
    const OptionSpec *spec = findOption(flag);
    if (!spec || !spec->setText(m_base, text).empty())
        return;
    for (Binding &b : m_bindings)
        if (b.spec == spec) {
            const bool loading = std::exchange(m_loading, true);
            b.show(m_base);
            m_loading = loading;
            b.edited = false; // options() gives m_base's value: exactly `text`
        }
}

void ConfigurationForm::applyStartModel(const QString &value)
{
    m_appliedStartModel = value;
    ++m_startLookup; // a lookup for an earlier choice is stale
    m_startFiles.reset();
    m_startFromMessage.clear();
    if (value.isEmpty()) {
        // Random weights: the files shown stay (the same shape and vocabulary, from scratch).
        m_download->cancel();
        updateStartFromNote();
        Q_EMIT edited();
        return;
    }
    // The model's config, vocabulary, casing and weights are the run's: what the fields held
    // (a project's own config, another model's files) would contradict them.
    for (const char *flag : {"bert_config_file", "vocab_file", "do_lower_case", "init_checkpoint"})
        putValue(flag, std::string());
    m_startFromMessage = tr("Getting the files of %1…").arg(modelDisplayName(value));
    m_download->fetch(value);
    Q_EMIT inputFilesChanged();
    updateStartFromNote();
    Q_EMIT edited();
}

void ConfigurationForm::fillFromStartModel(const QString &source, const PretrainedModel &model)
{
    if (source != m_appliedStartModel)
        return;
    putValue("bert_config_file", model.config_file);
    putValue("vocab_file", model.vocab_file);
    putValue("do_lower_case", model.do_lower_case ? "true" : "false");
    m_startFiles = std::make_shared<const PretrainedModel>(model);
    m_startFromMessage = model.from_cache || model.bytes_downloaded == 0
                             ? QString()
                             : tr("Downloaded %1 into the Hugging Face cache.").arg(q(formatBytes(model.bytes_downloaded)));
    for (const std::string &note : model.notes)
        m_startFromMessage += (m_startFromMessage.isEmpty() ? QString() : QStringLiteral(" ")) + q(note);
    refreshModelPickerCache(m_modelPicker);
    Q_EMIT inputFilesChanged();
    updateStartFromNote();
    Q_EMIT edited();
    Q_EMIT startModelFilled();
}

void ConfigurationForm::lookUpStartModel()
{
    const int lookup = ++m_startLookup;
    const std::string model = m_base.pretrained_model;
    if (model.empty())
        return;
    runBackgroundJob<std::optional<PretrainedModel>>(
        this, [model](const JobControl &) { return findCachedPretrainedModel(model, HubSettings::fromEnvironment()); },
        [this, lookup](JobOutcome<std::optional<PretrainedModel>> outcome) {
            if (lookup != m_startLookup || !outcome.ok() || !*outcome.value)
                return; // another choice since, or not in the cache: the line names the model only
            m_startFiles = std::make_shared<const PretrainedModel>(**outcome.value);
            updateStartFromNote();
        });
}

void ConfigurationForm::setStartFromMessage(const QString &message)
{
    m_startFromMessage = message;
    m_appliedStartModel = q(options().pretrained_model);
    updateStartFromNote();
}

void ConfigurationForm::updateStartFromNote()
{
    const TrainingOptions o = options();
    if (m_startFromNote) {
        const bool known = m_startFiles && q(o.pretrained_model) == m_appliedStartModel;
        QString text = known ? startFromText(o, *m_startFiles) : startFromText(o);
        if (!m_startFromMessage.isEmpty() && q(o.pretrained_model) == m_appliedStartModel)
            text = m_startFromMessage + QLatin1Char('\n') + text;
        m_startFromNote->setText(text);
    }
    if (m_learningRateEdit) {
        TrainingOptions unset = o;
        unset.learning_rate.reset();
        // Short enough for the field (the help says the rest): the rate and where it comes from.
        m_learningRateEdit->setPlaceholderText(
            startsFromPretrainedWeights(o) ? tr("%1 (pretrained)").arg(q(shortestNumberText(learningRate(unset))))
                                           : tr("%1 (from scratch)").arg(q(shortestNumberText(learningRate(unset)))));
    }
}

} // namespace wb
