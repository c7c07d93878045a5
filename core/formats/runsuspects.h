// SPDX-License-Identifier: Apache-2.0
#pragma once

// A run's suspects (issue 46; docs/data-map.md, "Suspects and corrections"): the probably
// mislabelled training examples of core/advice/suspects.h found in model_dir/training_dynamics.jsonl,
// named by their label names and tied to their input rows through the split.jsonl that prepare
// wrote beside the run's input_meta_data.json, and turned into corrections.jsonl lines
// (core/prepare/corrections.h). The CLI's `suspects` and the window read runs through this.
// Torch-free; reads files only; thread-safe.

#include "core/advice/suspects.h"
#include "core/formats/trainingdynamics.h"
#include "core/prepare/corrections.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// The rule's input of each row (the same arrays).
std::vector<SuspectInput> suspectInputs(const std::vector<TrainingDynamicsRow> &rows);

/// One suspect of a run, with names and its input row.
struct RunSuspect
{
    Suspect evidence;
    std::string label;           ///< the label as given (label name)
    std::string suggested_label; ///< the suggestion's name
    std::string file;            ///< its row's file as split.jsonl names it ("" when not located)
    int64_t line = 0;            ///< its row's line (0: a whole file, or not located)
    bool located = false;        ///< split.jsonl has the training record
};

/// What loadRunSuspects found.
struct RunSuspects
{
    std::string dynamics_path;        ///< model_dir/training_dynamics.jsonl
    std::string meta_path;            ///< the run's input_meta_data.json ("" when unknown)
    std::string split_path;           ///< split.jsonl beside it ("" when there is none)
    std::vector<std::string> labels;  ///< label names in id order
    int64_t examples = 0;             ///< training examples with training dynamics
    std::vector<RunSuspect> suspects; ///< ranked as findSuspects ranks them
    std::vector<std::string> notes;   ///< what could not be found, in words (labels, split.jsonl)
};

/// Returns `<modelDir>/training_dynamics.jsonl`.
std::string trainingDynamicsPath(const std::string &modelDir);

/// The suspects of the run in `modelDir` by `rule`. The input_meta_data.json is `metaDataPath`, or
/// when empty the one the run's run_config.json records (fillFromRecordedRun); label names from labels.txt beside it
/// (readLabelNames); split.jsonl from beside it. Throws wb::Error(dynamics_path, why, fix) when
/// the run has no training_dynamics.jsonl, saying which of the reasons holds: a multi-label or
/// regression run, a run with record_training_dynamics=false, a run without a checkpoint yet; and
/// wb::Error as readTrainingDynamics and readSplitRows for files that cannot be read.
RunSuspects loadRunSuspects(const std::string &modelDir, const SuspectRule &rule = {},
                            const std::string &metaDataPath = {});

/// The corrections.jsonl line of suspect `s` (its row, record, label and suggestion) with
/// `decision`; corrected_label is `corrected` for Accepted and Changed, else empty. Pure.
Correction correctionOf(const RunSuspect &s, CorrectionDecision decision, const std::string &corrected,
                        const std::string &time);

/// The corrections.jsonl lines of located suspects (those not located are left out), in rank
/// order, each with `decision`: Suggested, Accepted (corrected_label = the suggestion), Rejected
/// or Removed (Changed is Accepted here: a list has no label of the user's); `time` as
/// Correction::time.
std::vector<Correction> suspectCorrections(const std::vector<RunSuspect> &suspects, CorrectionDecision decision,
                                           const std::string &time);

} // namespace wb
