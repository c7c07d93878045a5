// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/formats/trainingdynamics.h"
#include "core/formats/trainingtexts.h"

#include <QString>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QLabel;
class QSlider;

namespace wb {

/// The data map (issue 46; dataset cartography, Swayamdipta et al. 2020; docs/data-map.md):
/// one point per training example of a single-label classification run, x its variability
/// (the population standard deviation of the gold-label probabilities training saw), y its
/// confidence (their mean), coloured by its gold label, over three named regions:
///
///  - ambiguous:     variability ≥ kAmbiguousVariability (0.2), whatever the confidence;
///  - easy-to-learn: variability < 0.2 and confidence ≥ kEasyConfidence (0.5);
///  - hard-to-learn: variability < 0.2 and confidence < 0.5.
///
/// The line under the plot counts the examples per region. Hovering over a point shows its
/// record, label, region, confidence, variability, correctness and text; a click asks Try it
/// to explain its text for its gold label (explainRequested, the path Top losses takes). The
/// step slider replays the map as it stood after each evaluation step of the run
/// (TrainingDynamicsRow::upTo) and after the last recorded step. Everything is read off the
/// GUI thread: model_dir/training_dynamics.jsonl, metrics.jsonl's evaluation steps, the label
/// names and problem type from the run's input_meta_data.json (labels.txt beside it, else the
/// evaluations' label_names), and, once per run, the texts of the first kMaxTexts training
/// records (readTrainingTexts). GUI thread only.
class DataMapView : public QWidget
{
    Q_OBJECT
public:
    static constexpr double kAmbiguousVariability = wb::kAmbiguousVariability; ///< variability ≥ this: ambiguous
    static constexpr double kEasyConfidence = wb::kEasyConfidence; ///< below it: easy from this confidence on
    static constexpr int64_t kMaxTexts = 200000;         ///< training records whose texts are read

    /// A point's region: core's wb::dataMapRegion (core/formats/trainingdynamics.h), the one rule.
    using Region = wb::DataMapRegion;
    static Region regionOf(double confidence, double variability) { return wb::dataMapRegion(confidence, variability); }
    /// "easy-to-learn", "ambiguous", "hard-to-learn".
    static QString regionName(Region r);

    explicit DataMapView(QWidget *parent = nullptr);

    /// Shows the data map of the run in `o.model_dir` (its options as the window knows them;
    /// unset data paths are filled from its run_config.json), read in the background; the
    /// latest step is shown. An empty model_dir clears the view. The training texts are read
    /// again only when the run's training data or vocabulary changed. The empty view says why:
    /// no file yet, recording off, a multi-label or regression run.
    void setRun(const TrainingOptions &o);

    /// Shows `rows` (their full observations), with the slider at `steps` (ascending; the last
    /// is shown), the texts by record index and the label names by label id.
    void showDynamics(const std::vector<TrainingDynamicsRow> &rows, const std::vector<int64_t> &steps,
                      std::shared_ptr<const TrainingTexts> texts, const std::vector<QString> &labelNames);
    /// Shows the map as it stood after global step `step` (rows not yet seen are left out).
    void showStep(int64_t step);
    int64_t shownStep() const { return m_step; }

    /// The graph of gold label `labelId` (name = the label's name), nullptr when none.
    QCPGraph *labelGraph(int64_t labelId) const;
    QSlider *stepSlider() const { return m_slider; }
    QCustomPlot *customPlot() const { return m_plot; }
    /// The line under the plot: "Step 40: 6 training examples: 3 easy-to-learn, 2 ambiguous,
    /// 1 hard-to-learn. …", or why the map is empty.
    QString summaryText() const;
    /// The point (index into the shown points) nearest to the canvas pixel, within `radius`
    /// pixels; −1 when none.
    int pointAt(const QPointF &pixel, double radius = 8) const;
    /// What hovering over point `point` shows (see the class comment); "" for no point.
    QString hoverText(int point) const;
    /// Emits explainRequested for point `point` (what a click does); nothing outside the points.
    void openPoint(int point);

Q_SIGNALS:
    /// The user asked to see a training example in Try it: its text (and text_b), explained
    /// for `classId`, its gold label.
    void explainRequested(const QString &text, const QString &textB, qlonglong classId);

private:
    /// One point of the shown step.
    struct Point
    {
        size_t row = 0; ///< into m_rows
        double confidence = 0, variability = 0, correctness = 0;
        size_t observations = 0, correct = 0; ///< times seen by the step, and how many of them right
    };
    void clearPoints();
    void showEmpty(const QString &why);
    void drawRegions();
    void drawPoints();
    QString labelText(int64_t id) const;
    const TrainingText *textOf(int64_t index) const;
    void mouseMoved(QMouseEvent *event);
    void mouseClicked(QMouseEvent *event);

    QCustomPlot *m_plot;
    QSlider *m_slider;
    QLabel *m_summary;
    std::map<int64_t, QCPGraph *> m_labelGraphs;
    std::vector<TrainingDynamicsRow> m_rows;
    std::vector<int64_t> m_steps;
    std::vector<Point> m_points;
    std::shared_ptr<const TrainingTexts> m_texts;
    QString m_textsKey;  ///< train_data_path and vocab_file the texts were read from
    QString m_textsNote; ///< why there are no texts, when there are none
    std::vector<QString> m_labelNames;
    int64_t m_step = 0;
    quint64 m_generation = 0;
};

} // namespace wb
