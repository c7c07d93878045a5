// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"

#include <QString>

class QComboBox;

namespace wb {

/// The "Start from" list (issue 22), one for the form and the Prepare Data dialog: "random
/// weights" (value ""), the models of the catalogue (core/hub/catalogue.h; value: the Hub id,
/// tooltip: layers, hidden size, parameters, size, casing, languages, licence), editable for
/// any Hub id org/name[@revision] or local model folder. Returns a new, parentless box.
/// GUI thread only.
QComboBox *createModelPickerBox();

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

} // namespace wb
