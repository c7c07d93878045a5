// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/formats/embeddings.h"

#include <QString>
#include <QWidget>

#include <array>
#include <map>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPGraph;
class QLabel;
class QSlider;

namespace wb {

/// The embedding view (issue 25): one evaluation's eval examples as 2-D PCA points of their
/// pooled [CLS] vectors (core/formats/embeddings.h), one colour per true label, mistakes ringed
/// (the point's colour shows inside the ring); hovering shows the example's true and predicted
/// label and its text, a click emits exampleChosen (Try it), and
/// the step slider replays the saved evaluations (model_dir/embeddings/step-N.safetensors,
/// read and projected off the GUI thread). A multi-label run (issue 45; eval_examples.jsonl's
/// label sets) is coloured by one label chosen in the label box: "has L" and "does not have L",
/// the mistakes for L ringed (the predicted set at 0.5 and the true set disagree on L); hovering
/// shows the true and predicted label sets. GUI thread only.
class EmbeddingView : public QWidget
{
    Q_OBJECT
public:
    explicit EmbeddingView(QWidget *parent = nullptr);

    /// Lists the saved steps of `modelDir` and shows the latest, read in the background
    /// (texts and label names from eval_examples.jsonl when present). A folder without
    /// embeddings (or an empty path) clears the view; with `saved` false (the run's
    /// save_embeddings option is off) its text says that this is why it is empty.
    void setModelDir(const QString &modelDir, bool saved = true);
    /// Shows `s` projected as `p` (index-aligned); `texts` by row, `labelNames` by label id.
    void showPoints(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                    const std::vector<QString> &labelNames);

    /// A multi-label evaluation (issue 45): the rows of `s` with their true and predicted label
    /// sets (label ids, index-aligned with the rows; predicted at 0.5), coloured by the chosen
    /// label (colourLabel(), kept when it exists, else label 0); the label box lists `labelNames`.
    void showMultiLabelPoints(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                              const std::vector<QString> &labelNames,
                              const std::vector<std::vector<int64_t>> &trueSets,
                              const std::vector<std::vector<int64_t>> &predictedSets);
    /// Multi-label: colours the points by label `labelId` (what choosing it in the label box does).
    void setColourLabel(int64_t labelId);
    int64_t colourLabel() const { return m_colourLabel; }
    /// The label box (objectName "embeddingLabel"), shown for multi-label runs only.
    QComboBox *labelChooser() const { return m_labelBox; }
    bool isMultiLabel() const { return m_multiLabel; }

    /// The graphs drawn: one per true label (name = label name), and "mistakes". Multi-label:
    /// labelGraph(1) is "has L" and labelGraph(0) "does not have L", L the chosen label.
    QCPGraph *labelGraph(int64_t labelId) const;
    QCPGraph *mistakeGraph() const { return m_mistakes; }
    QSlider *stepSlider() const { return m_slider; }
    QCustomPlot *customPlot() const { return m_plot; }
    /// The text under the plot ("step 40: 605 examples, 31 mistakes; …").
    QString summaryText() const;
    /// The row nearest to the canvas position (pixels), within `radius` pixels; −1 when none.
    int rowAt(const QPointF &pixel, double radius = 8) const;
    /// What hovering over row `row` shows: "true spam, predicted ham (a mistake)" and, on the
    /// next line, the example's text (up to 400 characters); "" for no row. Multi-label: "true
    /// {billing, urgent}, predicted {billing}: a mistake for urgent" (or "right for urgent",
    /// urgent the chosen label; {} for no label).
    QString hoverText(int row) const;

Q_SIGNALS:
    /// A point was clicked: its example's text, for Try it.
    void exampleChosen(const QString &text);

private:
    void loadStep(int64_t step);
    void mouseMoved(QMouseEvent *event);
    void mouseClicked(QMouseEvent *event);
    QString labelText(int64_t id) const;
    QString labelSetText(const std::vector<int64_t> &ids) const;
    /// Draws the rows as one graph per group (group[i]: the key of row i; names and colours by
    /// key) with the rows where mistake[i] ringed, then fits the axes. Returns the mistakes.
    int64_t drawGroups(const std::vector<int64_t> &group, const std::vector<bool> &mistake,
                       const std::map<int64_t, std::pair<QString, QColor>> &looks);
    void keepRows(const EmbeddingSnapshot &s, const Projection2D &p, const std::vector<QString> &texts,
                  const std::vector<QString> &labelNames);
    void drawMultiLabel();

    QCustomPlot *m_plot;
    QSlider *m_slider;
    QLabel *m_summary;
    std::map<int64_t, QCPGraph *> m_labelGraphs;
    QCPGraph *m_mistakes = nullptr;
    QString m_modelDir;
    std::vector<int64_t> m_steps;
    std::vector<QString> m_texts, m_labelNames;
    std::vector<std::array<double, 2>> m_points;
    std::vector<QString> m_rowTexts;
    std::vector<int64_t> m_rowTrue, m_rowPredicted; ///< each row's true and predicted label id
    // Multi-label runs: each row's label sets, the label the points are coloured by, its box.
    bool m_multiLabel = false;
    std::vector<std::vector<int64_t>> m_rowTrueSets, m_rowPredictedSets;
    int64_t m_colourLabel = 0;
    QComboBox *m_labelBox;
    int64_t m_step = 0;
    std::array<double, 2> m_variance{0, 0};
    quint64 m_generation = 0;
};

} // namespace wb
