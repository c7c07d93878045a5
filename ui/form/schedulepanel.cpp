// SPDX-License-Identifier: Apache-2.0
#include "ui/form/schedulepanel.h"
#include "ui/common/qtext.h"

#include "core/advice/runfacts.h"
#include "core/config/hostinfo.h"
#include "core/config/memoryestimate.h"
#include "core/config/schedule.h"
#include "core/config/bertconfig.h"

#include <QCoreApplication>
#include <QLocale>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace wb {

namespace {

constexpr int kPlannedScheduleSamples = 2000; // points of the planned LR curve


QLabel *richLabel(const QString &objectName)
{
    auto *label = new QLabel;
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

std::optional<Schedule> scheduleOf(const TrainingOptions &o, const std::optional<InputMetaData> &meta, Diagnostics &diag)
{
    if (!meta || !meta->train_data_size || !meta->eval_data_size)
        return std::nullopt;
    return Schedule::compute(*meta->train_data_size, *meta->eval_data_size, o.num_train_epochs, o.num_eval_per_epoch,
                             o.train_batch_size, o.eval_batch_size, o.train_data_size, o.warmup_fraction, diag);
}

} // namespace

QString formatCount(int64_t n)
{
    if (n >= 1000000)
        return QStringLiteral("%1 M").arg(double(n) / 1e6, 0, 'f', 2);
    if (n >= 10000)
        return QStringLiteral("%1 k").arg(double(n) / 1e3, 0, 'f', 1);
    return QString::number(n);
}

SchedulePanel::SchedulePanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *scheduleBox = new QGroupBox(tr("Schedule (computed as run_classifier does)"));
    auto *scheduleLayout = new QVBoxLayout(scheduleBox);
    m_schedule = richLabel(QStringLiteral("schedulePanel"));
    scheduleLayout->addWidget(m_schedule);
    layout->addWidget(scheduleBox);
    auto *modelBox = new QGroupBox(tr("Model summary"));
    auto *modelLayout = new QVBoxLayout(modelBox);
    m_modelSummary = richLabel(QStringLiteral("modelSummary"));
    modelLayout->addWidget(m_modelSummary);
    layout->addWidget(modelBox);
}

void SchedulePanel::reloadInputs(const TrainingOptions &o)
{
    m_inputDiagnostics = Diagnostics();
    m_bertConfig.reset();
    m_metaData.reset();
    if (!o.bert_config_file.empty() && QFileInfo(q(o.bert_config_file)).isFile())
        m_bertConfig = BertConfig::load(o.bert_config_file, m_inputDiagnostics);
    if (!o.input_meta_data_path.empty() && QFileInfo(q(o.input_meta_data_path)).isFile())
        m_metaData = InputMetaData::load(o.input_meta_data_path, m_inputDiagnostics);
    update(o);
}

void SchedulePanel::update(const TrainingOptions &o)
{
    updateSchedule(o);
    updateModelSummary(o);
}

PlannedCurve SchedulePanel::plannedCurve(const TrainingOptions &o) const
{
    PlannedCurve c;
    Diagnostics diag;
    const std::optional<Schedule> s = scheduleOf(o, m_metaData, diag);
    if (!s || s->total_steps <= 0)
        return c;
    const int64_t total = s->total_steps;
    const double peak = defaultLearningRate(o); // the rate the run will use (its start's default)
    const int64_t stride = std::max<int64_t>(1, total / kPlannedScheduleSamples);
    // Update number t+1 (the step the plot shows) uses learningRate(t).
    for (int64_t t = 0; t < total; t += stride) {
        if (t > 0 && c.steps.back() < double(s->warmup_steps) && t > s->warmup_steps) {
            c.steps.push_back(double(s->warmup_steps + 1));
            c.learning_rates.push_back(s->learningRate(s->warmup_steps, peak, o.end_lr));
        }
        c.steps.push_back(double(t + 1));
        c.learning_rates.push_back(s->learningRate(t, peak, o.end_lr));
    }
    if (c.steps.back() != double(total)) {
        c.steps.push_back(double(total));
        c.learning_rates.push_back(s->learningRate(total - 1, peak, o.end_lr));
    }
    return c;
}

void SchedulePanel::updateSchedule(const TrainingOptions &o)
{
    const QString N = m_metaData && m_metaData->train_data_size ? QString::number(*m_metaData->train_data_size) : QStringLiteral("N");
    const QString M = m_metaData && m_metaData->eval_data_size ? QString::number(*m_metaData->eval_data_size) : QStringLiteral("M");
    QString html = QStringLiteral("<table cellspacing='2'>");
    auto row = [&html](const QString &name, const QString &formula, const QString &value) {
        html += QStringLiteral("<tr><td><code>%1</code> = <b>%3</b></td></tr>"
                               "<tr><td style='color:#555555; padding-left:14px'>= %2</td></tr>").arg(name, formula, value);
    };
    Diagnostics diag;
    const std::optional<Schedule> s = scheduleOf(o, m_metaData, diag);
    const QString B = QString::number(o.train_batch_size), Be = QString::number(o.eval_batch_size);
    const QString E = QString::number(o.num_train_epochs), n = QString::number(o.num_eval_per_epoch);
    auto val = [&s](int64_t Schedule::*field) { return s ? QString::number((*s).*field) : QStringLiteral("?"); };
    // In the window an epoch is one pass over the training data; run_classifier's "epoch" (the
    // Keras epoch of its schedule) is an evaluation interval. The formulas keep its names.
    row(tr("evaluation intervals"), QStringLiteral("num_train_epochs × num_eval_per_epoch = %1 × %2").arg(E, n), val(&Schedule::epochs));
    QString sizeFormula = QStringLiteral("train_data_size // num_eval_per_epoch = %1 // %2").arg(N, n);
    if (o.train_data_size)
        sizeFormula += QStringLiteral(", capped at %1").arg(*o.train_data_size);
    row(tr("examples per interval"), sizeFormula, val(&Schedule::train_data_size));
    const QString T = s ? QString::number(s->train_data_size) : QStringLiteral("N′");
    row(QStringLiteral("steps_per_epoch"), QStringLiteral("floor(%1 / %2)").arg(T, B), val(&Schedule::steps_per_epoch));
    row(QStringLiteral("total_steps"), QStringLiteral("steps_per_epoch × epochs = %1 × %2").arg(val(&Schedule::steps_per_epoch), val(&Schedule::epochs)),
        val(&Schedule::total_steps));
    row(QStringLiteral("warmup_steps"), QStringLiteral("int(epochs × %1 × %2 / %3)").arg(T, QString::number(o.warmup_fraction), B),
        val(&Schedule::warmup_steps));
    row(QStringLiteral("eval_steps"), QStringLiteral("ceil(%1 / %2)").arg(M, Be), val(&Schedule::eval_steps));
    html += QStringLiteral("</table>");
    html += tr("<p style='color:#555555'>An <i>epoch</i> here is one pass over the training data. An "
               "<i>evaluation interval</i> (run_classifier's \"epoch\", hence <code>steps_per_epoch</code>) "
               "ends with an evaluation and a checkpoint.</p>");
    if (!m_metaData)
        html += tr("<p><i>Choose input_meta_data.json to fill in N (train_data_size) and M (eval_data_size).</i></p>");
    for (const Diagnostic &dg : diag.items())
        html += QStringLiteral("<p style='color:#b00000'>%1<br><i>%2</i></p>").arg(q(dg.message).toHtmlEscaped(), q(dg.hint).toHtmlEscaped());
    if (s && s->total_steps > 0) {
        html += tr("<p>The learning rate rises linearly from 0 to %1 over %2 warmup steps, then falls "
                   "linearly to %3 at step %4 (see the lower plot).</p>")
                    .arg(defaultLearningRate(o), 0, 'g', 3).arg(s->warmup_steps).arg(o.end_lr, 0, 'g', 3).arg(s->total_steps);
    }
    m_schedule->setText(html);
}

QString memoryText(const MemoryEstimate &m)
{
    // Each part in the unit that shows it (a small model's parameters are MiB, not "0.0" GiB).
    auto size = [](int64_t bytes) { return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat); };
    return QCoreApplication::translate("SchedulePanel",
                                       "Memory: <b>about %1</b> per training process (parameters %2, gradients %3, "
                                       "optimizer %4, activations %5)")
        .arg(size(m.total()), size(m.parameters), size(m.gradients), size(m.optimizer), size(m.activations));
}

namespace {

/// The estimated peak memory of one training process (the per-worker batch), with a warning
/// when it exceeds this computer's memory (issue 17: know the memory before pressing Train).
QString memoryLine(const TrainingOptions &o, const BertConfig &c, int64_t labels, int64_t seq)
{
    int64_t replicas = 1;
    if (o.distribution_strategy == "multi_worker_mirrored" && o.num_local_workers > 1)
        replicas = o.num_local_workers;
    else if (o.distribution_strategy == "mirrored" && o.num_gpus > 1)
        replicas = o.num_gpus;
    const int64_t perWorker = std::max<int64_t>(1, o.train_batch_size / replicas);
    const MemoryEstimate m = estimateTrainingMemory(c, labels, seq, perWorker,
                                                    std::max<int64_t>(1, o.gradient_accumulation_steps), o.dtype,
                                                    o.activation_checkpointing);
    QString line = memoryText(m);
    const int64_t physical = physicalMemoryBytes();
    if (physical > 0 && m.total() > physical)
        line += QCoreApplication::translate("SchedulePanel",
                                            "<br><span style='color:#b00000'>More than this computer's %1 GiB: "
                                            "use a smaller Train batch size, Gradient accumulation or bf16.</span>")
                    .arg(double(physical) / double(int64_t(1) << 30), 0, 'f', 1);
    return line;
}

} // namespace

void SchedulePanel::updateModelSummary(const TrainingOptions &o)
{
    if (!m_bertConfig) {
        QString text = tr("<i>Choose a bert_config.json (or Model → New bert_config.json from Preset) to see the "
                          "model's size.</i>");
        for (const Diagnostic &dg : m_inputDiagnostics.items())
            if (dg.severity == Severity::Error)
                text += QStringLiteral("<p style='color:#b00000'>%1: %2</p>").arg(q(dg.field).toHtmlEscaped(), q(dg.message).toHtmlEscaped());
        m_modelSummary->setText(text);
        return;
    }
    const BertConfig &c = *m_bertConfig;
    const int64_t labels = m_metaData ? std::max<int64_t>(m_metaData->num_labels, 1) : 2;
    const int64_t seq = m_metaData && m_metaData->max_seq_length > 0 ? m_metaData->max_seq_length : 128;
    const ParameterCount pc = c.parameterCount(labels);
    const double flops = c.trainingFlopsPerExample(seq, labels);
    QString html = tr("<b>L=%1, H=%2, A=%3</b>, feed-forward %4, vocabulary %5<br>")
                       .arg(c.num_hidden_layers).arg(c.hidden_size).arg(c.num_attention_heads)
                       .arg(c.intermediate_size).arg(c.vocab_size);
    html += QStringLiteral("<table>");
    auto row = [&html, &pc](const QString &name, int64_t n, const QString &what) {
        html += QStringLiteral("<tr><td>%1</td><td align='right'><b>%2</b></td><td>%3%</td><td><i>%4</i></td></tr>")
                    .arg(name, formatCount(n)).arg(pc.total() ? 100.0 * double(n) / double(pc.total()) : 0.0, 0, 'f', 1).arg(what);
    };
    row(tr("embeddings"), pc.embeddings, tr("token, position and segment tables"));
    row(tr("encoder"), pc.encoder, tr("%1 transformer blocks").arg(c.num_hidden_layers));
    row(tr("pooler"), pc.pooler, tr("[CLS] summary layer"));
    row(tr("classifier"), pc.classifier, tr("%1 outputs").arg(labels));
    html += QStringLiteral("<tr><td><b>total</b></td><td align='right'><b>%1</b></td><td></td><td>%2 parameters</td></tr></table>")
                .arg(formatCount(pc.total())).arg(pc.total());
    html += tr("Training cost: <b>%1 GFLOPs per example</b> at %2 tokens (forward + backward)")
                .arg(flops / 1e9, 0, 'f', flops < 1e10 ? 2 : 1).arg(seq);
    html += tr(", %1 TFLOPs per step at batch %2.").arg(flops * double(o.train_batch_size) / 1e12, 0, 'f', 3).arg(o.train_batch_size);
    html += QStringLiteral("<br>") + memoryLine(o, c, labels, seq);
    m_modelSummary->setText(html);
}

QString SchedulePanel::scheduleText() const
{
    QTextDocument doc;
    doc.setHtml(m_schedule->text());
    return doc.toPlainText();
}

QString SchedulePanel::modelSummaryText() const
{
    QTextDocument doc;
    doc.setHtml(m_modelSummary->text());
    return doc.toPlainText();
}

} // namespace wb
