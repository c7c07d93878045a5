// SPDX-License-Identifier: Apache-2.0
// Test helper: the tiny run of tests/support/tinyrun.h in a QTemporaryDir.
#pragma once

#include "support/tinyrun.h"

#include <QTemporaryDir>

namespace wbtest {

/// writeTinyRun(dir, {train_size = trainSize, eval_size = evalSize}): BERT L=2, H=32,
/// vocab 100, 2 labels, max_seq_length 16, batch 8, 2 epochs, model_dir <dir>/model.
inline wb::TrainingOptions writeTinyRun(const QTemporaryDir &dir, int64_t trainSize = 64, int64_t evalSize = 16)
{
    TinyRun p;
    p.train_size = trainSize;
    p.eval_size = evalSize;
    return writeTinyRun(dir.path().toStdString(), p);
}

} // namespace wbtest
