// SPDX-License-Identifier: Apache-2.0
// The sweep view of Compare runs: the runs sorted by a metric and in parallel coordinates.
#include "ui/runs/sweepview.h"

#include "ui/runs/rungroup.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Blue (low) → teal → yellow (high), a perceptually ordered ramp after matplotlib's viridis.
QColor rampColour(double t)
{
    static const QColor stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!std::isfinite(t))
        return QColor(150, 150, 150);
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, int(t));
    const double f = t - i;
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor(int(a.red() + f * (b.red() - a.red())), int(a.green() + f * (b.green() - a.green())),
                  int(a.blue() + f * (b.blue() - a.blue())));
}

bool lowerIsBetter(const QString &metric) { return metric == QLatin1String("eval_loss") || metric == QLatin1String("train_loss"); }

} // namespace

double sweepMetricOf(const RunHistory &run, const QString &metric)
{
    const FinalMetrics f = finalMetrics(run);
    if (metric == QLatin1String("eval_loss"))
        return f.evalLoss;
    if (metric == QLatin1String("train_loss"))
        return f.trainLoss;
    if (metric == QLatin1String("best_eval_accuracy")) {
        double best = kNaN;
        for (double v : run.evalAccuracy)
            if (std::isfinite(v) && !(v <= best))
                best = v;
        return best;
    }
    return f.evalAccuracy;
}

ParallelCoordinates::ParallelCoordinates(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("parallelCoordinates"));
    setMinimumHeight(220);
    setToolTip(tr("One line per run. Drag along an axis to show only the runs in that range; click an axis to clear it."));
}

void ParallelCoordinates::setData(const QStringList &axes, const std::vector<ParallelLine> &lines)
{
    m_axes = axes;
    m_lines = lines;
    m_range.assign(size_t(axes.size()), {kNaN, kNaN});
    m_log.assign(size_t(axes.size()), false);
    m_brush.assign(size_t(axes.size()), std::nullopt);
    for (int a = 0; a < axes.size(); ++a) {
        double lo = kNaN, hi = kNaN;
        bool positive = true;
        for (const ParallelLine &l : lines) {
            const double v = size_t(a) < l.values.size() ? l.values[size_t(a)] : kNaN;
            if (!std::isfinite(v))
                continue;
            lo = std::isfinite(lo) ? std::min(lo, v) : v;
            hi = std::isfinite(hi) ? std::max(hi, v) : v;
            positive = positive && v > 0;
        }
        m_range[size_t(a)] = {lo, hi};
        m_log[size_t(a)] = positive && (axes[a] == QLatin1String("learning_rate") || axes[a] == QLatin1String("weight_decay_rate"));
    }
    update();
    Q_EMIT brushChanged();
}

void ParallelCoordinates::setBrush(int axis, std::optional<std::pair<double, double>> range)
{
    if (axis < 0 || axis >= int(m_brush.size()))
        return;
    if (range && range->first > range->second)
        std::swap(range->first, range->second);
    m_brush[size_t(axis)] = range;
    update();
    Q_EMIT brushChanged();
}

std::vector<int> ParallelCoordinates::visibleLines() const
{
    std::vector<int> out;
    for (int i = 0; i < int(m_lines.size()); ++i) {
        bool inside = true;
        for (size_t a = 0; a < m_brush.size() && inside; ++a) {
            if (!m_brush[a])
                continue;
            const double v = a < m_lines[size_t(i)].values.size() ? m_lines[size_t(i)].values[a] : kNaN;
            inside = std::isfinite(v) && v >= m_brush[a]->first && v <= m_brush[a]->second;
        }
        if (inside)
            out.push_back(i);
    }
    return out;
}

double ParallelCoordinates::axisX(int axis) const
{
    const double left = 60, right = width() - 60.0;
    return m_axes.size() <= 1 ? (left + right) / 2 : left + (right - left) * axis / (m_axes.size() - 1);
}

double ParallelCoordinates::position(int axis, double v) const
{
    const auto [lo, hi] = m_range[size_t(axis)];
    if (!std::isfinite(v) || !std::isfinite(lo))
        return kNaN;
    if (hi == lo)
        return 0.5;
    if (m_log[size_t(axis)])
        return (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
    return (v - lo) / (hi - lo);
}

double ParallelCoordinates::valueAt(int axis, double p) const
{
    const auto [lo, hi] = m_range[size_t(axis)];
    if (m_log[size_t(axis)])
        return std::exp(std::log(lo) + p * (std::log(hi) - std::log(lo)));
    return lo + p * (hi - lo);
}

void ParallelCoordinates::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().base());
    if (m_axes.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No settings differ between these runs."));
        return;
    }
    const double top = plotTop(), bottom = plotBottom();
    const auto yOf = [&](double pos) { return bottom - pos * (bottom - top); };
    const int metricAxis = int(m_axes.size()) - 1;
    const std::vector<int> visible = visibleLines();
    for (int pass = 0; pass < 2; ++pass) { // faint lines below, chosen ones on top
        for (int i = 0; i < int(m_lines.size()); ++i) {
            const bool shown = std::find(visible.begin(), visible.end(), i) != visible.end();
            if (shown != (pass == 1))
                continue;
            QColor c = rampColour(position(metricAxis, m_lines[size_t(i)].values.back()));
            if (!shown)
                c = QColor(200, 200, 200);
            p.setPen(QPen(c, shown ? 2.0 : 1.0));
            QPainterPath path;
            bool started = false;
            for (int a = 0; a < m_axes.size(); ++a) {
                const double pos = position(a, size_t(a) < m_lines[size_t(i)].values.size() ? m_lines[size_t(i)].values[size_t(a)] : kNaN);
                if (!std::isfinite(pos)) {
                    started = false;
                    continue;
                }
                const QPointF pt(axisX(a), yOf(pos));
                if (started)
                    path.lineTo(pt);
                else
                    path.moveTo(pt);
                started = true;
            }
            p.drawPath(path);
        }
    }
    p.setPen(palette().text().color());
    for (int a = 0; a < m_axes.size(); ++a) {
        const double x = axisX(a);
        p.drawLine(QPointF(x, top), QPointF(x, bottom));
        p.drawText(QRectF(x - 80, 2, 160, 20), Qt::AlignCenter, m_axes[a]);
        const auto [lo, hi] = m_range[size_t(a)];
        if (std::isfinite(lo)) {
            p.drawText(QRectF(x - 80, bottom + 2, 160, 20), Qt::AlignCenter, QString::number(lo, 'g', 3));
            p.drawText(QRectF(x + 4, top - 2, 70, 16), Qt::AlignLeft, QString::number(hi, 'g', 3));
        }
        std::optional<std::pair<double, double>> b = m_brush[size_t(a)];
        if (m_dragAxis == a)
            b = std::make_pair(std::min(m_dragFrom, m_dragTo), std::max(m_dragFrom, m_dragTo));
        if (b && std::isfinite(lo)) {
            const double y1 = yOf(std::clamp(position(a, b->second), 0.0, 1.0)), y2 = yOf(std::clamp(position(a, b->first), 0.0, 1.0));
            p.fillRect(QRectF(x - 6, y1, 12, std::max(2.0, y2 - y1)), QColor(0, 114, 178, 90));
        }
    }
}

void ParallelCoordinates::mousePressEvent(QMouseEvent *e)
{
    m_dragAxis = -1;
    for (int a = 0; a < m_axes.size(); ++a)
        if (std::abs(e->position().x() - axisX(a)) <= 10 && std::isfinite(m_range[size_t(a)].first)) {
            m_dragAxis = a;
            const double pos = std::clamp((plotBottom() - e->position().y()) / (plotBottom() - plotTop()), 0.0, 1.0);
            m_dragFrom = m_dragTo = valueAt(a, pos);
        }
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent *e)
{
    if (m_dragAxis < 0)
        return;
    const double pos = std::clamp((plotBottom() - e->position().y()) / (plotBottom() - plotTop()), 0.0, 1.0);
    m_dragTo = valueAt(m_dragAxis, pos);
    update();
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent *)
{
    if (m_dragAxis < 0)
        return;
    const int axis = std::exchange(m_dragAxis, -1);
    if (m_dragFrom == m_dragTo)
        setBrush(axis, std::nullopt); // a click clears
    else
        setBrush(axis, std::make_pair(m_dragFrom, m_dragTo));
}

SweepView::SweepView(QWidget *parent)
    : QDialog(parent), m_metric(new QComboBox(this)), m_table(new QTableWidget(this)), m_plot(new ParallelCoordinates(this)),
      m_note(new QLabel(this))
{
    setObjectName(QStringLiteral("sweepView"));
    setWindowTitle(tr("Sweep view"));
    m_metric->setObjectName(QStringLiteral("sweepMetric"));
    m_metric->addItems({QStringLiteral("eval_accuracy"), QStringLiteral("best_eval_accuracy"), QStringLiteral("eval_loss"),
                        QStringLiteral("train_loss")});
    m_metric->setToolTip(tr("Sort and colour the runs by this metric (final values; best_eval_accuracy: the highest)"));
    m_table->setObjectName(QStringLiteral("sweepTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_note->setWordWrap(true);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Metric:"), this));
    row->addWidget(m_metric);
    row->addWidget(m_note, 1);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(m_plot, 3);
    layout->addWidget(m_table, 2);
    layout->addWidget(box);
    resize(900, 640);
    connect(m_metric, &QComboBox::currentTextChanged, this, [this] { rebuild(); });
    connect(m_plot, &ParallelCoordinates::brushChanged, this, [this] {
        const std::vector<int> visible = m_plot->visibleLines();
        for (int r = 0; r < m_table->rowCount(); ++r) {
            const int line = m_table->item(r, 0) ? m_table->item(r, 0)->data(Qt::UserRole).toInt() : -1;
            m_table->setRowHidden(r, std::find(visible.begin(), visible.end(), line) == visible.end());
        }
        m_note->setText(tr("%1 of %n run(s) shown", nullptr, int(m_runs.size())).arg(visible.size()));
    });
}

void SweepView::setRuns(const std::vector<RunHistory> &runs)
{
    m_runs = runs;
    rebuild();
}

void SweepView::setMetric(const QString &metric) { m_metric->setCurrentText(metric); }

void SweepView::rebuild()
{
    const QString metric = m_metric->currentText();
    QStringList keys;
    for (const SettingDifference &d : differingSettings(m_runs)) {
        bool numeric = true;
        for (const std::string &v : d.values) {
            bool ok = false;
            QString::fromStdString(v).toDouble(&ok);
            numeric = numeric && (ok || v == "–");
        }
        if (numeric)
            keys << QString::fromStdString(d.key);
    }
    std::vector<ParallelLine> lines;
    for (const RunHistory &r : m_runs) {
        ParallelLine l{r.name, {}};
        for (const QString &k : keys) {
            const auto it = r.settings.find(k.toStdString());
            bool ok = false;
            const double v = it == r.settings.end() ? kNaN : QString::fromStdString(it->second).toDouble(&ok);
            l.values.push_back(ok ? v : kNaN);
        }
        l.values.push_back(sweepMetricOf(r, metric));
        lines.push_back(std::move(l));
    }
    // The table: best first by the metric, runs without it last (in list order).
    std::vector<int> order(m_runs.size());
    for (int i = 0; i < int(order.size()); ++i)
        order[size_t(i)] = i;
    const bool lower = lowerIsBetter(metric);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const double x = lines[size_t(a)].values.back(), y = lines[size_t(b)].values.back();
        if (!std::isfinite(y))
            return std::isfinite(x);
        if (!std::isfinite(x))
            return false;
        return lower ? x < y : x > y;
    });
    m_table->clear();
    m_table->setColumnCount(int(keys.size()) + 2);
    QStringList headers{tr("run"), metric};
    headers += keys;
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(order.size()));
    for (int r = 0; r < int(order.size()); ++r) {
        const ParallelLine &l = lines[size_t(order[size_t(r)])];
        auto *name = new QTableWidgetItem(l.name);
        name->setData(Qt::UserRole, order[size_t(r)]);
        m_table->setItem(r, 0, name);
        m_table->setItem(r, 1, new QTableWidgetItem(std::isfinite(l.values.back()) ? QString::number(l.values.back(), 'g', 4)
                                                                                   : QStringLiteral("–")));
        for (int k = 0; k < keys.size(); ++k)
            m_table->setItem(r, k + 2, new QTableWidgetItem(std::isfinite(l.values[size_t(k)]) ? QString::number(l.values[size_t(k)], 'g', 6)
                                                                                                : QStringLiteral("–")));
    }
    QStringList axes = keys;
    axes << metric;
    m_plot->setData(axes, lines); // brushChanged → the table's rows and the note
}

} // namespace wb
