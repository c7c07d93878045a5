// SPDX-License-Identifier: Apache-2.0
#include "ui/form/modelpicker.h"
#include "ui/common/qtext.h"

#include "core/config/optiontable.h"
#include "core/hub/catalogue.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QLineEdit>
#include <QStringList>

namespace wb {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("wb::ModelPicker", text); }

} // namespace

QComboBox *createModelPickerBox()
{
    // Random weights (empty), a model of the catalogue, or whatever the user types (any Hub id
    // org/name[@revision], a local model folder).
    auto *combo = new QComboBox;
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->lineEdit()->setPlaceholderText(tr("random weights — or a Hub id such as google-bert/bert-base-uncased"));
    combo->addItem(tr("random weights"), QString());
    for (const CatalogueEntry &e : pretrainedCatalogue()) {
        const QString name = e.short_name.empty() ? q(e.hub_id) : QStringLiteral("%1 (%2)").arg(q(e.short_name), q(e.hub_id));
        combo->addItem(name, q(e.hub_id));
        combo->setItemData(combo->count() - 1,
                           tr("%1 layers, hidden %2, %3 parameters (%4), %5, %6; %7")
                               .arg(e.layers)
                               .arg(e.hidden)
                               .arg(q(formatCount(e.parameters)), q(formatBytes(e.approx_bytes)),
                                    e.do_lower_case ? tr("uncased") : tr("cased"), q(e.languages), q(e.licence)),
                           Qt::ToolTipRole);
    }
    combo->setMinimumContentsLength(28);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    return combo;
}

QString modelPickerValue(const QComboBox *box)
{
    const QString text = box->currentText().trimmed();
    const int at = box->findText(text, Qt::MatchFixedString);
    return at >= 0 ? box->itemData(at).toString() : text;
}

void setModelPickerValue(QComboBox *box, const QString &value)
{
    const int at = value.isEmpty() ? 0 : box->findData(value, Qt::UserRole, Qt::MatchFixedString);
    if (at >= 0)
        box->setCurrentIndex(at);
    else
        box->setEditText(value); // a Hub id or folder of the user's own
    box->lineEdit()->setCursorPosition(0); // a narrow box shows the name's start, not its end
}

QString startFromText(const TrainingOptions &o)
{
    if (o.pretrained_model.empty())
        return tr("Random weights: the model config and the vocabulary are the files below.");
    // applyPretrainedModel's four fields, each filled only when empty.
    const struct
    {
        const char *what;
        const char *flag;
        bool given;
    } fields[] = {{"config", "bert_config_file", !o.bert_config_file.empty()},
                  {"vocab", "vocab_file", !o.vocab_file.empty()},
                  {"casing", "do_lower_case", !o.do_lower_case.empty()},
                  {"weights", "init_checkpoint", !o.init_checkpoint.empty()}};
    QStringList filled, kept;
    for (const auto &f : fields) {
        const OptionSpec *spec = findOption(f.flag);
        if (f.given)
            kept << (spec ? QString::fromUtf8(spec->label) : QString::fromLatin1(f.flag)); // the form's own label
        else
            filled << tr(f.what);
    }
    QString text;
    if (filled.isEmpty()) {
        text = tr("Nothing from %1: config, vocab, casing and weights are all given below.").arg(q(o.pretrained_model));
    } else {
        const QString list = filled.size() == 1 ? filled.front()
                                                : tr("%1 and %2").arg(QStringList(filled.mid(0, filled.size() - 1)).join(QStringLiteral(", ")),
                                                                      filled.back());
        text = tr("%1 from %2").arg(list, q(o.pretrained_model));
        if (!kept.isEmpty())
            text += tr("; as given: %1").arg(kept.join(QStringLiteral(", ")));
    }
    return text;
}

} // namespace wb
