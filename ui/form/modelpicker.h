// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/hub/pretrainedmodel.h"

#include <QString>

class QComboBox;

namespace wb {

/// The "Start from" list (issue 22), one for the form and the Prepare Data dialog: "random
/// weights" (value ""), the models of the catalogue (core/hub/catalogue.h; value: the Hub id,
/// tooltip: layers, hidden size, parameters, size, casing, languages, licence), editable for
/// any Hub id org/name[@revision] or local model folder. A name wider than the box is elided at
/// the right ("BERT-Tiny (google/bert_uncased_L-2_H-1…") while the box is not being edited, so a
/// narrow window never widens the form for it (modelPickerShownText). The models already in the Hugging Face
/// cache are marked "— in the cache, 18 MB" (their size on disk; refreshModelPickerCache), looked
/// up when the box is made and each time its list opens. Returns a new, parentless box.
/// GUI thread only.
QComboBox *createModelPickerBox();

/// Looks up which of the box's catalogue models are in the Hugging Face cache off the GUI thread
/// (cachedCatalogueModels, core/hub/modelcache.h: what `bert-workbench-cli models list` says)
/// and marks each in its text ("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2) — in the cache,
/// 18 MB") and tooltip (the folder, or "not downloaded yet"). Only the texts change, never the
/// choice. For a box of createModelPickerBox(); GUI thread only.
void refreshModelPickerCache(QComboBox *box);

/// The text the picker shows now: its name, elided at the right with "…" when the box is narrower
/// than it and not focused (while it is edited, the whole text scrolls). For a box of
/// createModelPickerBox(); GUI thread only.
QString modelPickerShownText(const QComboBox *box);

/// Whether a lookup of refreshModelPickerCache is still going for `box`.
bool isModelPickerCacheScanning(const QComboBox *box);

/// The name of a model as the window shows it: "BERT-Tiny (google/bert_uncased_L-2_H-128_A-2)"
/// for a catalogue model, else the Hub id or folder as given.
QString modelDisplayName(const QString &idOrFolder);

/// The picker's value: "" for random weights, a catalogue model's Hub id, else the typed
/// text (trimmed).
QString modelPickerValue(const QComboBox *box);

/// Shows `value`: "" selects random weights, a catalogue Hub id its row, anything else is
/// shown as typed text.
void setModelPickerValue(QComboBox *box, const QString &value);

/// What a "Start from" choice fills, for the line under the picker: only the fields the user
/// left empty, as applyPretrainedModel (core/engine/preparedrun.h) fills them; the user's own
/// values are kept and named as such. E.g. "config, vocab, casing and weights from
/// google/bert_uncased_L-2_H-128_A-2", or "vocab, casing and weights from …; as given: BERT
/// config". For random weights: where config and vocabulary come from instead.
QString startFromText(const TrainingOptions &o);

/// The same line once the chosen model's files are on disk (`files`: resolvePretrainedModel's
/// answer for o.pretrained_model): which of BERT config, Vocabulary and casing are the model's
/// files, which are filled from it at Train (empty) and which are the user's own and not the
/// model's (with how to use the model's instead: choose it again in Start from).
QString startFromText(const TrainingOptions &o, const PretrainedModel &files);

} // namespace wb
