// SPDX-License-Identifier: Apache-2.0
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/evaluation/datamapview.h"

#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/io/metricsreader.h"
#include "core/util/errortext.h"
#include "ui/common/backgroundjob.h"
#include "ui/common/qtext.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSlider>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

namespace wb {

namespace {

// Label colours (colour-blind friendly, Okabe & Ito 2008), repeated beyond eight labels; the
// Embeddings view uses the same ones, so a label has one colour in both tabs.
const QColor kLabelColours[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115), QColor(204, 121, 167),
                                QColor(86, 180, 233), QColor(213, 94, 0), QColor(240, 228, 66), QColor(0, 0, 0)};

constexpr int kDiscDiameter = 6; ///< pixels
constexpr double kMaxVariability = 0.5; ///< the largest standard deviation of values in [0, 1]

/// A disc as a pixmap (QCustomPlot blits a pixmap scatter faster than it draws ellipses).
QPixmap discPixmap(const QColor &colour)
{
    QPixmap pix(kDiscDiameter, kDiscDiameter);
    pix.fill(Qt::transparent);
    QPainter painter(&pix);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawEllipse(QRectF(0, 0, kDiscDiameter, kDiscDiameter));
    return pix;
}

/// What one background read of a run brings back.
struct LoadedMap
{
    QString empty; ///< why there is no map ("" when there is one)
    std::vector<TrainingDynamicsRow> rows;
    std::vector<int64_t> steps;
    std::vector<QString> labelNames;
    std::shared_ptr<const TrainingTexts> texts; ///< read this time; nullptr: the view's stay
    QString textsKey, textsNote;
};

/// The slider's steps: the evaluation steps metrics.jsonl records up to the last recorded step
/// (each evaluation writes a checkpoint, and the file with it), and the last recorded step.
std::vector<int64_t> mapSteps(const std::vector<TrainingDynamicsRow> &rows, const MetricsLog &log)
{
    int64_t last = 0;
    for (const TrainingDynamicsRow &r : rows)
        if (!r.steps.empty())
            last = std::max(last, r.steps.back());
    std::set<int64_t> steps{last};
    for (const EvalMetrics &e : log.eval)
        if (e.step > 0 && e.step < last)
            steps.insert(e.step);
    return {steps.begin(), steps.end()};
}

/// The label names: labels.txt beside the meta data, else the last evaluation's label_names,
/// else none ("label N" is shown).
std::vector<QString> mapLabelNames(const std::string &metaPath, int64_t numLabels, const MetricsLog &log)
{
    std::vector<QString> names;
    const LabelNames fromFile = readLabelNames(metaPath, numLabels);
    if (!fromFile.source.empty()) {
        for (const std::string &n : fromFile.names)
            names.push_back(q(n));
    } else if (!log.eval.empty()) {
        for (const std::string &n : log.eval.back().label_names)
            names.push_back(q(n));
    }
    return names;
}

/// Why a run has no map, from its meta data ("" when it may have one): the map is a
/// single-label classification's.
QString problemTypeReason(const std::string &metaPath, int64_t *numLabels)
{
    if (metaPath.empty() || !std::filesystem::exists(metaPath))
        return {};
    Diagnostics diag;
    const std::optional<InputMetaData> meta = InputMetaData::load(metaPath, diag);
    if (!meta)
        return {};
    *numLabels = meta->num_labels;
    if (meta->isRegression())
        return DataMapView::tr("No data map: this is a regression run. Training dynamics are recorded for "
                               "single-label classification runs (the probability of each example's gold label).");
    if (meta->isMultiLabel())
        return DataMapView::tr("No data map: this is a multi-label run. Training dynamics are recorded for "
                               "single-label classification runs (the probability of each example's gold label).");
    return {};
}

/// Reads the run (any thread; captures nothing of the window). `knownTextsKey`: the texts the
/// view already holds (not read again when the key is the same).
LoadedMap loadMap(const TrainingOptions &o, const QString &knownTextsKey, const JobControl &job)
{
    LoadedMap l;
    const TrainingTextSource source = trainingTextSource(o);
    int64_t numLabels = 0;
    l.empty = problemTypeReason(source.input_meta_data_path, &numLabels);
    if (!l.empty.isEmpty())
        return l;
    const std::string path = (std::filesystem::path(o.model_dir) / "training_dynamics.jsonl").string();
    l.rows = readTrainingDynamics(path);
    if (l.rows.empty()) {
        l.empty = o.record_training_dynamics
                      ? DataMapView::tr("No data map yet: training dynamics are recorded for single-label runs with "
                                        "Record training dynamics on (under Hyperparameters), and written to "
                                        "training_dynamics.jsonl at each checkpoint.")
                      : DataMapView::tr("No data map: this run does not record training dynamics (Record training "
                                        "dynamics is off). Turn it on under Hyperparameters to see each training "
                                        "example here from the next run's first checkpoint on.");
        return l;
    }
    const MetricsLog log = readMetricsFile(o.metricsPath());
    l.steps = mapSteps(l.rows, log);
    l.labelNames = mapLabelNames(source.input_meta_data_path, numLabels, log);
    l.textsKey = q(source.train_data_path + "\n" + source.vocab_file);
    if (l.textsKey == knownTextsKey)
        return l;
    if (!source.notes.empty() || source.train_data_path.empty()) {
        l.textsNote = source.notes.empty() ? DataMapView::tr("the run names no training data")
                                           : q(source.notes.front());
        return l;
    }
    try {
        l.texts = std::make_shared<const TrainingTexts>(
            readTrainingTexts(source, DataMapView::kMaxTexts, job.stopToken()));
    } catch (...) {
        l.textsNote = q(describeCurrentException("train_data_path").line());
    }
    return l;
}

} // namespace

QString DataMapView::regionName(Region r)
{
    switch (r) {
    case Region::EasyToLearn:
        return tr("easy-to-learn");
    case Region::Ambiguous:
        return tr("ambiguous");
    case Region::HardToLearn:
        return tr("hard-to-learn");
    }
    return {};
}

DataMapView::DataMapView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_plot = new QCustomPlot(this);
    m_plot->setObjectName(QStringLiteral("dataMapPlot"));
    m_plot->setMinimumSize(300, 250);
    m_plot->xAxis->setLabel(tr("variability (spread of the gold label's probability)"));
    m_plot->yAxis->setLabel(tr("confidence (mean probability of the gold label)"));
    m_plot->xAxis->setRange(-0.01, kMaxVariability + 0.01);
    m_plot->yAxis->setRange(-0.02, 1.02);
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->setNotAntialiasedElements(QCP::aeScatters | QCP::aePlottables);
    drawRegions();
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("dataMapStep"));
    m_slider->setEnabled(false);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("dataMapSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_slider);
    layout->addWidget(m_summary);
    showEmpty(tr("No data map yet: start or open a run. Training dynamics are recorded for single-label runs with "
                 "Record training dynamics on."));
    connect(m_slider, &QSlider::valueChanged, this, [this](int i) {
        if (i >= 0 && size_t(i) < m_steps.size())
            showStep(m_steps[size_t(i)]);
    });
    connect(m_plot, &QCustomPlot::mouseMove, this, &DataMapView::mouseMoved);
    connect(m_plot, &QCustomPlot::mousePress, this, &DataMapView::mouseClicked);
}

void DataMapView::drawRegions()
{
    struct Area
    {
        Region region;
        double x0, y0, x1, y1; ///< variability and confidence
        QColor colour;
        double tx, ty;         ///< where its name stands
        Qt::Alignment align;
    };
    // The names stand where few points fall: just inside the 0.5 line for the two left regions
    // (the points of easy-to-learn crowd the top, those of hard-to-learn the bottom corner), and
    // in the bottom right corner for ambiguous (a variability above 0.2 needs a confidence above
    // about 0.05: the standard deviation of values in [0, 1] with mean c is at most √(c(1−c))).
    const double midLeft = kAmbiguousVariability / 2;
    const Area areas[] = {
        {Region::EasyToLearn, 0, kEasyConfidence, kAmbiguousVariability, 1, QColor(0, 120, 85), midLeft,
         kEasyConfidence + 0.02, Qt::AlignHCenter | Qt::AlignBottom},
        {Region::HardToLearn, 0, 0, kAmbiguousVariability, kEasyConfidence, QColor(180, 70, 0), midLeft,
         kEasyConfidence - 0.02, Qt::AlignHCenter | Qt::AlignTop},
        {Region::Ambiguous, kAmbiguousVariability, 0, kMaxVariability, 1, QColor(40, 110, 170),
         kMaxVariability - 0.005, 0.01, Qt::AlignRight | Qt::AlignBottom},
    };
    // The names on a layer above the points, so that none hides them.
    m_plot->addLayer(QStringLiteral("regionNames"), m_plot->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    for (const Area &a : areas) {
        auto *rect = new QCPItemRect(m_plot);
        rect->setLayer(QStringLiteral("background"));
        rect->topLeft->setCoords(a.x0, a.y1);
        rect->bottomRight->setCoords(a.x1, a.y0);
        QColor shade = a.colour;
        shade.setAlpha(22);
        rect->setPen(Qt::NoPen);
        rect->setBrush(shade);
        auto *name = new QCPItemText(m_plot);
        name->setObjectName(QStringLiteral("region ") + regionName(a.region));
        name->setLayer(QStringLiteral("regionNames"));
        name->position->setCoords(a.tx, a.ty);
        name->setPositionAlignment(a.align);
        name->setText(regionName(a.region));
        name->setColor(a.colour);
        name->setBrush(QColor(255, 255, 255, 200));
        name->setPadding(QMargins(3, 1, 3, 1));
        QFont f = name->font();
        f.setBold(true);
        name->setFont(f);
    }
    // The boundaries as dashed lines across the whole plot.
    for (const auto &[x0, y0, x1, y1] : {std::array<double, 4>{kAmbiguousVariability, -1, kAmbiguousVariability, 2},
                                         std::array<double, 4>{0, kEasyConfidence, kAmbiguousVariability, kEasyConfidence}}) {
        auto *line = new QCPItemLine(m_plot);
        line->setLayer(QStringLiteral("background"));
        line->start->setCoords(x0, y0);
        line->end->setCoords(x1, y1);
        line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    }
}

void DataMapView::clearPoints()
{
    for (auto &[id, graph] : m_labelGraphs)
        m_plot->removeGraph(graph);
    m_labelGraphs.clear();
    m_points.clear();
}

void DataMapView::showEmpty(const QString &why)
{
    ++m_generation; // a read still under way is for the map this replaces
    clearPoints();
    m_rows.clear();
    m_steps.clear();
    m_step = 0;
    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, 0);
    }
    m_slider->setEnabled(false);
    m_summary->setText(why);
    m_plot->replot();
}

void DataMapView::setRun(const TrainingOptions &o)
{
    if (o.model_dir.empty()) {
        m_texts.reset();
        m_textsKey.clear();
        showEmpty(tr("No data map yet: start or open a run. Training dynamics are recorded for single-label runs "
                     "with Record training dynamics on."));
        return;
    }
    const quint64 generation = ++m_generation;
    const QString knownTexts = m_textsKey;
    runBackgroundJob<LoadedMap>(
        this, [o, knownTexts](const JobControl &job) { return loadMap(o, knownTexts, job); },
        [this, generation](JobOutcome<LoadedMap> out) {
            if (generation != m_generation)
                return; // another run, or a later checkpoint of this one, was asked for meanwhile
            if (!out.ok()) {
                showEmpty(tr("Cannot show the data map: %1").arg(out.error.message));
                return;
            }
            LoadedMap &l = *out.value;
            if (!l.empty.isEmpty()) {
                showEmpty(l.empty);
                return;
            }
            if (l.textsKey != m_textsKey) { // read afresh (or could not be read) for these files
                m_texts = l.texts;
                m_textsKey = l.textsKey;
                m_textsNote = l.textsNote;
            }
            showDynamics(l.rows, l.steps, m_texts, l.labelNames);
        });
}

void DataMapView::showDynamics(const std::vector<TrainingDynamicsRow> &rows, const std::vector<int64_t> &steps,
                               std::shared_ptr<const TrainingTexts> texts, const std::vector<QString> &labelNames)
{
    m_rows = rows;
    m_steps = steps;
    m_texts = std::move(texts);
    m_labelNames = labelNames;
    if (m_steps.empty()) {
        showEmpty(tr("No data map yet: no training example has been recorded."));
        return;
    }
    {
        const QSignalBlocker block(m_slider);
        m_slider->setRange(0, int(m_steps.size()) - 1);
        m_slider->setValue(int(m_steps.size()) - 1);
    }
    m_slider->setEnabled(m_steps.size() > 1);
    showStep(m_steps.back());
}

void DataMapView::showStep(int64_t step)
{
    m_step = step;
    const auto at = std::find(m_steps.begin(), m_steps.end(), step);
    if (at != m_steps.end() && m_slider->value() != int(at - m_steps.begin())) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(int(at - m_steps.begin()));
    }
    m_points.clear();
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const TrainingDynamicsRow r = m_rows[i].upTo(step);
        if (r.gold_probabilities.empty())
            continue; // not seen by then
        const size_t right = size_t(std::count(r.correct.begin(), r.correct.end(), true));
        Point p{i, r.confidence(), r.variability(), r.correctness(), r.gold_probabilities.size(), right};
        ++counts[int(regionOf(p.confidence, p.variability))];
        m_points.push_back(p);
    }
    drawPoints();
    m_summary->setText(tr("Step %1: %2 training examples: %3 easy-to-learn, %4 ambiguous, %5 hard-to-learn "
                          "(ambiguous: variability ≥ %6; easy-to-learn: confidence ≥ %7 below it). Hover for the "
                          "text, click to open it in Try it.")
                           .arg(step).arg(m_points.size())
                           .arg(counts[int(Region::EasyToLearn)]).arg(counts[int(Region::Ambiguous)])
                           .arg(counts[int(Region::HardToLearn)])
                           .arg(kAmbiguousVariability).arg(kEasyConfidence));
}

void DataMapView::drawPoints()
{
    std::map<int64_t, QVector<double>> xs, ys;
    for (const Point &p : m_points) {
        const int64_t label = m_rows[p.row].label_id;
        xs[label].push_back(p.variability);
        ys[label].push_back(p.confidence);
    }
    for (auto it = m_labelGraphs.begin(); it != m_labelGraphs.end();) { // labels no longer drawn
        if (xs.count(it->first))
            ++it;
        else {
            m_plot->removeGraph(it->second);
            it = m_labelGraphs.erase(it);
        }
    }
    for (auto &[id, x] : xs) {
        QCPGraph *&g = m_labelGraphs[id]; // a label's graph stays while it has points (the slider redraws it)
        if (!g) {
            g = m_plot->addGraph();
            const QColor colour = kLabelColours[size_t(std::max<int64_t>(id, 0)) % std::size(kLabelColours)];
            g->setLineStyle(QCPGraph::lsNone);
            g->setScatterStyle(QCPScatterStyle(discPixmap(colour)));
            g->setPen(QPen(colour)); // the legend's line, and the colour tests and readers see
            g->setAdaptiveSampling(true);
        }
        g->setName(labelText(id));
        g->setData(x, ys[id]); // sorts by variability; pointAt() uses m_points, not the graph's order
    }
    m_plot->replot();
}

QCPGraph *DataMapView::labelGraph(int64_t labelId) const
{
    const auto it = m_labelGraphs.find(labelId);
    return it == m_labelGraphs.end() ? nullptr : it->second;
}

QString DataMapView::summaryText() const { return m_summary->text(); }

QString DataMapView::labelText(int64_t id) const
{
    if (id >= 0 && size_t(id) < m_labelNames.size() && !m_labelNames[size_t(id)].isEmpty())
        return m_labelNames[size_t(id)];
    return tr("label %1").arg(id);
}

const TrainingText *DataMapView::textOf(int64_t index) const
{
    if (!m_texts || index < 0 || size_t(index) >= m_texts->texts.size())
        return nullptr;
    return &m_texts->texts[size_t(index)];
}

int DataMapView::pointAt(const QPointF &pixel, double radius) const
{
    int best = -1;
    double bestD = radius * radius;
    for (size_t i = 0; i < m_points.size(); ++i) {
        const double px = m_plot->xAxis->coordToPixel(m_points[i].variability) - pixel.x();
        const double py = m_plot->yAxis->coordToPixel(m_points[i].confidence) - pixel.y();
        const double d = px * px + py * py;
        if (d <= bestD) {
            bestD = d;
            best = int(i);
        }
    }
    return best;
}

QString DataMapView::hoverText(int point) const
{
    if (point < 0 || size_t(point) >= m_points.size())
        return {};
    const Point &p = m_points[size_t(point)];
    const TrainingDynamicsRow &r = m_rows[p.row];
    QString text = tr("record %1, label %2: %3\nconfidence %4, variability %5, correct %6 of %7 times seen "
                      "(correctness %8) by step %9")
                       .arg(r.index).arg(labelText(r.label_id)).arg(regionName(regionOf(p.confidence, p.variability)))
                       .arg(p.confidence, 0, 'f', 3).arg(p.variability, 0, 'f', 3).arg(p.correct).arg(p.observations)
                       .arg(p.correctness, 0, 'f', 2).arg(m_step);
    if (const TrainingText *t = textOf(r.index)) {
        text += QStringLiteral("\n") + q(t->text).left(400);
        if (!t->text_b.empty())
            text += QStringLiteral("\n[SEP] ") + q(t->text_b).left(200);
    } else if (!m_textsNote.isEmpty()) {
        text += tr("\n(no text: %1)").arg(m_textsNote);
    } else if (m_texts && m_texts->capped) {
        text += tr("\n(no text: the data map reads the texts of the first %1 training records)").arg(kMaxTexts);
    }
    return text;
}

void DataMapView::openPoint(int point)
{
    if (point < 0 || size_t(point) >= m_points.size())
        return;
    const TrainingDynamicsRow &r = m_rows[m_points[size_t(point)].row];
    const TrainingText *t = textOf(r.index);
    if (!t)
        return; // no text to try
    Q_EMIT explainRequested(q(t->text), q(t->text_b), qlonglong(r.label_id));
}

void DataMapView::mouseMoved(QMouseEvent *event)
{
    const QString text = hoverText(pointAt(event->position()));
    if (!text.isEmpty())
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    else
        QToolTip::hideText();
}

void DataMapView::mouseClicked(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        openPoint(pointAt(event->position()));
}

} // namespace wb
