// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// One training example's training dynamics (docs/file-formats.md, "training_dynamics.jsonl";
/// dataset cartography, Swayamdipta et al. 2020): `index` is the record's 0-based position in
/// the training TFRecords (file order), `label_id` its gold label. Each time the training forward
/// pass saw the example there is one observation: the global step (1-based, the step that saw it),
/// the softmax probability of the gold label (in [0, 1]), the argmax label and whether it was the
/// gold label. The four arrays have the same length, steps non-decreasing. A plain value.
struct TrainingDynamicsRow
{
    int64_t index = 0;
    int64_t label_id = 0;
    std::vector<int64_t> steps;
    std::vector<double> gold_probabilities;
    std::vector<int64_t> predicted_label_ids;
    std::vector<bool> correct;

    /// Mean of gold_probabilities (0 when none is recorded).
    double confidence() const;
    /// Population standard deviation of gold_probabilities (0 when fewer than two).
    double variability() const;
    /// Fraction of `correct` that is true (0 when none is recorded).
    double correctness() const;
    /// The row as it stood after global step `step`: the observations with steps ≤ `step`.
    TrainingDynamicsRow upTo(int64_t step) const;
};

/// The data map's regions (dataset cartography's names; docs/data-map.md, "The regions").
enum class DataMapRegion { EasyToLearn, Ambiguous, HardToLearn };

/// Variability at or above which an example is ambiguous: its gold-label probability swung by
/// at least this much (a population standard deviation; the most a probability can have is 0.5).
constexpr double kAmbiguousVariability = 0.2;
/// Below kAmbiguousVariability, confidence at or above which an example is easy to learn (the
/// model gave its label at least even odds on average); below it, hard to learn.
constexpr double kEasyConfidence = 0.5;

/// The region of an example with this confidence and variability: ambiguous when variability ≥
/// kAmbiguousVariability, else easy-to-learn when confidence ≥ kEasyConfidence, else hard-to-learn.
DataMapRegion dataMapRegion(double confidence, double variability);

/// "easy-to-learn", "ambiguous" or "hard-to-learn".
const char *dataMapRegionName(DataMapRegion region);

/// How many examples with at least one observation lie in each region. A plain value.
struct DataMapCounts
{
    int64_t examples = 0;
    int64_t easy_to_learn = 0;
    int64_t ambiguous = 0;
    int64_t hard_to_learn = 0;
};

/// The counts of `rows` (TrainingDynamics::rows()) by dataMapRegion of each row's confidence
/// and variability; rows without observations are left out. Pure.
DataMapCounts dataMapCounts(const std::map<int64_t, TrainingDynamicsRow> &rows);

/// The record-keeper of a run's training dynamics, single-label classification only (a
/// multi-label or regression run records nothing). Keyed by record index. Not thread-safe:
/// one writer (the training loop of the chief).
class TrainingDynamics
{
public:
    /// Appends an observation of example `index` made by global step `step` (1-based):
    /// `goldProbability` in [0, 1] the softmax probability of `labelId`, `predictedLabelId` the
    /// argmax. An example may be seen more than once in a step (the end of one pass over the data
    /// and the start of the next in one batch). A step below the example's last recorded step, or
    /// a label other than the one first recorded, throws wb::Error naming the index.
    void record(int64_t step, int64_t index, int64_t labelId, double goldProbability, int64_t predictedLabelId);

    /// The rows, by index ascending.
    const std::map<int64_t, TrainingDynamicsRow> &rows() const { return m_rows; }

    /// Keeps only the observations of steps ≤ `step`: a resumed run drops what was recorded after
    /// the checkpoint it resumes from (0: nothing is kept). A row left with none is removed.
    void truncate(int64_t step);

    /// Restores rows read back from a file (readTrainingDynamics), replacing what is held.
    void restore(const std::vector<TrainingDynamicsRow> &rows);

private:
    std::map<int64_t, TrainingDynamicsRow> m_rows;
};

/// Writes `d`'s rows to `path` (model_dir/training_dynamics.jsonl) atomically, one JSON object
/// a line, by index ascending: {"index", "label_id", "steps": [...], "gold_probabilities": [...],
/// "predicted_label_ids": [...], "correct": [...], "confidence", "variability", "correctness"}.
/// Throws wb::Error naming the path on failure.
void writeTrainingDynamics(const std::string &path, const TrainingDynamics &d);

/// Reads a file writeTrainingDynamics wrote. A missing file is no rows. A line that is not a
/// JSON object, lacks a key, has a key of another type, or whose arrays differ in length
/// throws wb::Error naming the file, line and key.
std::vector<TrainingDynamicsRow> readTrainingDynamics(const std::string &path);

} // namespace wb
