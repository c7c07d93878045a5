// SPDX-License-Identifier: Apache-2.0
#include "ui/form/modelpicker.h"
#include "ui/common/qtext.h"

#include "core/config/optiontable.h"
#include "core/hub/catalogue.h"
#include "core/hub/modelcache.h"
#include "ui/common/backgroundjob.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLineEdit>
#include <QPainter>
#include <QStringList>
#include <QStyle>
#include <QStyleOptionFrame>

#include <optional>
#include <vector>

namespace wb {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("wb::ModelPicker", text); }

constexpr int kBaseTextRole = Qt::UserRole + 1; // the item's name without its cache mark
constexpr int kBaseTipRole = Qt::UserRole + 2;  // its tooltip without the cache line

/// The picker's text field: a name wider than the field is drawn elided at the right ("…") while
/// the field is not focused; focused, it is an ordinary line edit (the whole text, scrolling).
class ElidingLineEdit : public QLineEdit
{
public:
    /// The text as drawn now.
    QString shownText() const
    {
        if (hasFocus() || text().isEmpty())
            return text();
        return fontMetrics().elidedText(text(), Qt::ElideRight, textRect().width());
    }

protected:
    void paintEvent(QPaintEvent *event) override
    {
        const QString shown = shownText();
        if (shown == text()) {
            QLineEdit::paintEvent(event);
            return;
        }
        QPainter painter(this);
        QStyleOptionFrame option;
        initStyleOption(&option);
        style()->drawPrimitive(QStyle::PE_PanelLineEdit, &option, &painter, this);
        painter.setPen(palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::Text));
        painter.drawText(textRect(), Qt::AlignLeft | Qt::AlignVCenter, shown);
    }

private:
    /// Where QLineEdit draws its text: the style's contents rectangle less the text margins and
    /// the line edit's own 2 pixels at each side.
    QRect textRect() const
    {
        QStyleOptionFrame option;
        initStyleOption(&option);
        const QRect contents = style()->subElementRect(QStyle::SE_LineEditContents, &option, this).marginsRemoved(textMargins());
        return contents.adjusted(2, 0, -2, 0);
    }
};

/// The picker: a combo box that looks the cache up again each time its list opens.
class ModelPickerBox : public QComboBox
{
public:
    void showPopup() override
    {
        refreshModelPickerCache(this);
        QComboBox::showPopup();
    }
    int scan = 0;          ///< the latest lookup; an older one's answer is dropped
    bool scanning = false; ///< a lookup is going
};

} // namespace

QString modelDisplayName(const QString &idOrFolder)
{
    const CatalogueEntry *e = findCatalogueEntry(idOrFolder.toStdString());
    return e && !e->short_name.empty() ? QStringLiteral("%1 (%2)").arg(q(e->short_name), q(e->hub_id)) : idOrFolder;
}

void refreshModelPickerCache(QComboBox *box)
{
    auto *picker = dynamic_cast<ModelPickerBox *>(box);
    if (!picker)
        return;
    const int scan = ++picker->scan;
    picker->scanning = true;
    // stat calls over up to 30 snapshots: off the GUI thread (docs/architecture.md, "Threading").
    runBackgroundJob<std::vector<std::optional<CachedModelFiles>>>(
        picker, [](const JobControl &) { return cachedCatalogueModels(HubSettings::fromEnvironment()); },
        [picker, scan](JobOutcome<std::vector<std::optional<CachedModelFiles>>> outcome) {
            if (scan != picker->scan)
                return;
            picker->scanning = false;
            if (!outcome.ok())
                return;
            const auto &catalogue = pretrainedCatalogue();
            for (int row = 0; row < picker->count(); ++row) {
                const QString id = picker->itemData(row).toString();
                if (id.isEmpty())
                    continue;
                for (size_t i = 0; i < catalogue.size() && i < outcome.value->size(); ++i) {
                    if (q(catalogue[i].hub_id) != id)
                        continue;
                    const std::optional<CachedModelFiles> &cached = (*outcome.value)[i];
                    const QString base = picker->itemData(row, kBaseTextRole).toString();
                    const QString tip = picker->itemData(row, kBaseTipRole).toString();
                    const QString text = cached ? tr("%1 — in the cache, %2").arg(base, q(formatBytes(cached->bytes_on_disk)))
                                                : base;
                    if (picker->itemText(row) != text) // the current item's text changes, not the choice
                        picker->setItemText(row, text);
                    picker->setItemData(row,
                                        cached ? tr("%1\nIn the Hugging Face cache: %2 on disk in %3")
                                                     .arg(tip, q(formatBytes(cached->bytes_on_disk)), q(cached->folder))
                                               : tr("%1\nNot downloaded yet: chosen here, it is downloaded (about %2)")
                                                     .arg(tip, q(formatBytes(catalogue[i].approx_bytes))),
                                        Qt::ToolTipRole);
                }
            }
        });
}

bool isModelPickerCacheScanning(const QComboBox *box)
{
    const auto *picker = dynamic_cast<const ModelPickerBox *>(box);
    return picker && picker->scanning;
}

QComboBox *createModelPickerBox()
{
    // Random weights (empty), a model of the catalogue, or whatever the user types (any Hub id
    // org/name[@revision], a local model folder).
    auto *combo = new ModelPickerBox;
    combo->setEditable(true);
    combo->setLineEdit(new ElidingLineEdit); // a long name elides instead of widening the form
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->lineEdit()->setPlaceholderText(tr("random weights — or a Hub id such as google-bert/bert-base-uncased"));
    combo->addItem(tr("random weights"), QString());
    for (const CatalogueEntry &e : pretrainedCatalogue()) {
        const QString name = e.short_name.empty() ? q(e.hub_id) : QStringLiteral("%1 (%2)").arg(q(e.short_name), q(e.hub_id));
        combo->addItem(name, q(e.hub_id));
        const QString tip = tr("%1 layers, hidden %2, %3 parameters (%4), %5, %6; %7")
                                .arg(e.layers)
                                .arg(e.hidden)
                                .arg(q(formatCount(e.parameters)), q(formatBytes(e.approx_bytes)),
                                     e.do_lower_case ? tr("uncased") : tr("cased"), q(e.languages), q(e.licence));
        combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
        combo->setItemData(combo->count() - 1, name, kBaseTextRole);
        combo->setItemData(combo->count() - 1, tip, kBaseTipRole);
    }
    combo->setMinimumContentsLength(28);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    refreshModelPickerCache(combo);
    return combo;
}

QString modelPickerShownText(const QComboBox *box)
{
    if (const auto *edit = dynamic_cast<const ElidingLineEdit *>(box->lineEdit()))
        return edit->shownText();
    return box->currentText();
}

QString modelPickerValue(const QComboBox *box)
{
    const QString text = box->currentText().trimmed();
    int at = box->findText(text, Qt::MatchFixedString);
    if (at < 0) // a catalogue name typed without its cache mark
        at = box->findData(text, kBaseTextRole, Qt::MatchFixedString);
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

QString startFromText(const TrainingOptions &o, const PretrainedModel &files)
{
    if (o.pretrained_model.empty())
        return startFromText(o);
    const QString model = modelDisplayName(q(o.pretrained_model));
    const auto label = [](const char *flag) {
        const OptionSpec *spec = findOption(flag);
        return spec ? QString::fromUtf8(spec->label) : QString::fromLatin1(flag);
    };
    const QString casing = files.do_lower_case ? tr("casing (uncased)") : tr("casing (cased)");
    const bool casingGiven = !o.do_lower_case.empty();
    const bool casingTheirs = !casingGiven || (o.do_lower_case == "true") == files.do_lower_case;
    // Each of the model's parts: its file in the field, empty (filled from it at Train), or the user's own.
    QStringList theirs, atTrain, yours;
    const struct
    {
        QString what;
        std::string given;
        std::string its;
    } parts[] = {{label("bert_config_file"), o.bert_config_file, files.config_file},
                 {label("vocab_file"), o.vocab_file, files.vocab_file}};
    for (const auto &part : parts)
        (part.given.empty() ? atTrain : part.given == part.its ? theirs : yours) << part.what;
    (casingGiven ? (casingTheirs ? theirs : yours) : atTrain) << casing;
    const auto list = [](const QStringList &items) {
        return items.size() == 1 ? items.front()
                                 : tr("%1 and %2").arg(QStringList(items.mid(0, items.size() - 1)).join(QStringLiteral(", ")), items.back());
    };
    QStringList sentences;
    if (!theirs.isEmpty())
        sentences << tr("From %1: %2.").arg(model, list(theirs));
    if (!atTrain.isEmpty())
        sentences << tr("Filled from %1 at Train: %2.").arg(model, list(atTrain));
    sentences << (o.init_checkpoint.empty() ? tr("Train starts from its weights.")
                                            : tr("Train starts from the weights in %1 (given), not from the model's.")
                                                  .arg(label("init_checkpoint")));
    if (!yours.isEmpty())
        sentences << tr("Yours, not the model's: %1; choose the model again in Start from to use its files.").arg(list(yours));
    return sentences.join(QLatin1Char(' '));
}

} // namespace wb
