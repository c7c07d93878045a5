// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// One training example's training dynamics (docs/file-formats.md, "training_dynamics.jsonl";
/// dataset cartography, Swayamdipta et al. 2020): `index` is the record's 0-based position in
/// the training TFRecords (file order), `label_id` its gold label, and per recorded epoch the
/// model's softmax probability of the gold label (in [0, 1]) and whether the argmax was the gold
/// label. The two arrays have the same length. A plain value.
struct TrainingDynamicsRow
{
    int64_t index = 0;
    int64_t label_id = 0;
    std::vector<double> gold_probabilities;
    std::vector<bool> correct;

    /// Mean of gold_probabilities (0 when none is recorded).
    double confidence() const;
    /// Population standard deviation of gold_probabilities (0 when fewer than two).
    double variability() const;
    /// Fraction of `correct` that is true (0 when none is recorded).
    double correctness() const;
};

/// The record-keeper of a run's training dynamics, single-label classification only (a
/// multi-label or regression run records nothing). Keyed by record index. Not thread-safe:
/// one writer (the training loop of the chief).
class TrainingDynamics
{
public:
    /// Records epoch `epoch` (0-based) of example `index`: `goldProbability` in [0, 1],
    /// `correct` the argmax was `labelId`. An epoch is recorded at most once per example (a
    /// second record for the same epoch replaces the first, as a repeated example in an epoch
    /// of a repeated dataset would); an epoch beyond the next one throws wb::Error naming the
    /// index (epochs are recorded in order). A label other than the one first recorded throws.
    void record(int64_t epoch, int64_t index, int64_t labelId, double goldProbability, bool correct);

    /// The rows, by index ascending.
    const std::map<int64_t, TrainingDynamicsRow> &rows() const { return m_rows; }

    /// Keeps only epochs [0, epochs) of every row: a resumed run drops what was recorded after
    /// the checkpoint it resumes from.
    void truncate(int64_t epochs);

    /// Restores rows read back from a file (readTrainingDynamics), replacing what is held.
    void restore(const std::vector<TrainingDynamicsRow> &rows);

private:
    std::map<int64_t, TrainingDynamicsRow> m_rows;
};

/// Writes `d`'s rows to `path` (model_dir/training_dynamics.jsonl) atomically, one JSON object
/// a line, by index ascending: {"index", "label_id", "gold_probabilities": [...],
/// "correct": [...], "confidence", "variability", "correctness"}. Throws wb::Error naming the
/// path on failure.
void writeTrainingDynamics(const std::string &path, const TrainingDynamics &d);

/// Reads a file writeTrainingDynamics wrote. A missing file is no rows. A line that is not a
/// JSON object, lacks a key, has a key of another type, or whose two arrays differ in length
/// throws wb::Error naming the file, line and key.
std::vector<TrainingDynamicsRow> readTrainingDynamics(const std::string &path);

} // namespace wb
