// SPDX-License-Identifier: Apache-2.0
#include "ui/form/modeldownloadpanel.h"
#include "ui/common/qtext.h"

#include "core/hub/catalogue.h"
#include "core/hub/huberror.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

namespace wb {

namespace {

constexpr int kBarMax = 1000;
constexpr int kRefreshMs = 100; // the bar follows the download this often

QString tr(const char *text) { return QCoreApplication::translate("wb::ModelDownloadPanel", text); }

QString secondsText(double s)
{
    const qint64 n = qint64(std::llround(s));
    if (n >= 3600)
        return tr("%1 h %2 min").arg(n / 3600).arg((n % 3600) / 60);
    if (n >= 60)
        return tr("%1 min %2 s").arg(n / 60).arg(n % 60);
    return tr("%1 s").arg(n);
}

/// "BERT-Tiny (google/bert_uncased_L-2_H-128_A-2)" for a catalogue model, else the id.
QString modelName(const std::string &repoId)
{
    const CatalogueEntry *e = findCatalogueEntry(repoId);
    return e && !e->short_name.empty() ? QStringLiteral("%1 (%2)").arg(q(e->short_name), q(repoId)) : q(repoId);
}

} // namespace

QString downloadBytesText(const DownloadProgress &p)
{
    return p.bytes_total >= 0 ? tr("%1 of %2").arg(q(formatBytes(p.bytes_done)), q(formatBytes(p.bytes_total)))
                              : q(formatBytes(p.bytes_done));
}

QString downloadLineText(const DownloadProgress &p)
{
    QString text = tr("Downloading %1: %2, file %3 of %4").arg(modelName(p.repo_id), q(p.file)).arg(p.file_index).arg(p.file_count);
    if (p.bytes_per_second > 0)
        text += tr(", %1/s").arg(q(formatBytes(int64_t(p.bytes_per_second))));
    if (p.seconds_left >= 0 && std::isfinite(p.seconds_left))
        text += tr(", about %1 left").arg(secondsText(p.seconds_left));
    return text;
}

QString downloadProgressText(const DownloadProgress &p)
{
    return downloadBytesText(p) + QLatin1Char('\n') + downloadLineText(p);
}

struct ModelDownloadPanel::Shared
{
    std::mutex mutex;
    std::optional<DownloadProgress> latest; ///< the last report (notices aside)
    bool changed = false;
};

ModelDownloadPanel::ModelDownloadPanel(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("modelDownload"));
    m_text = new QLabel;
    m_text->setObjectName(QStringLiteral("downloadText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_bar = new QProgressBar;
    m_bar->setObjectName(QStringLiteral("downloadProgress"));
    m_bar->setRange(0, kBarMax);
    m_bar->setTextVisible(true);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelDownload"));
    m_cancel->setToolTip(tr("Stop the download; the part downloaded so far stays in the Hugging Face cache and is "
                            "resumed the next time this model is chosen or trained"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text);
    auto *row = new QHBoxLayout;
    row->addWidget(m_bar, 1);
    row->addWidget(m_cancel);
    layout->addLayout(row);
    m_timer = new QTimer(this);
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &ModelDownloadPanel::showProgress);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_outsideCancel) {
            m_cancel->setEnabled(false);
            m_outsideCancel();
        } else {
            cancel();
        }
    });
    setVisible(false);
}

ModelDownloadPanel::~ModelDownloadPanel()
{
    m_job.cancel(); // the job holds only values and its shared state: it ends on its own
}

void ModelDownloadPanel::fetch(const QString &idOrFolder)
{
    m_job.cancel(); // an older fetch ends; its end is stale (m_generation)
    const int generation = ++m_generation;
    m_source = idOrFolder;
    m_shared = std::make_shared<Shared>();
    m_bar->setRange(0, 0); // busy until the first report gives the total
    m_bar->setFormat(QString());
    m_text->setText(tr("Looking for %1 in the Hugging Face cache…").arg(idOrFolder));
    m_cancel->setEnabled(true);
    setVisible(true);
    m_timer->start();
    auto shared = m_shared;
    m_job = runBackgroundJob<PretrainedModel>(
        this,
        [source = idOrFolder.toStdString(), shared](const JobControl &job) {
            const DownloadProgressFn progress = [shared](const DownloadProgress &p) {
                if (!p.notice.empty())
                    return; // said again in the model's notes
                std::lock_guard<std::mutex> lock(shared->mutex);
                shared->latest = p;
                shared->changed = true;
            };
            return resolvePretrainedModel(source, HubSettings::fromEnvironment(), progress, *job.stopToken());
        },
        [this, generation](JobOutcome<PretrainedModel> outcome) {
            if (generation != m_generation)
                return; // a later fetch (or none) replaced this one
            const QString source = m_source;
            finish();
            if (outcome.ok())
                Q_EMIT fetched(source, *outcome.value);
            else if (outcome.cancelled)
                Q_EMIT cancelled(source);
            else
                Q_EMIT failed(source, outcome.error.message, outcome.error.hint);
        });
}

void ModelDownloadPanel::showOutsideProgress(int value, const QString &text, std::function<void()> cancel)
{
    if (isFetching())
        return;
    const bool first = !m_outsideCancel;
    m_outsideCancel = std::move(cancel);
    if (first)
        m_cancel->setEnabled(true);
    m_bar->setRange(0, kBarMax);
    m_bar->setValue(std::clamp(value * kBarMax / kJobProgressMax, 0, kBarMax));
    m_bar->setFormat(text.section(QLatin1Char('\n'), 0, 0));
    m_text->setText(text.section(QLatin1Char('\n'), 1));
    setVisible(true);
}

void ModelDownloadPanel::endOutsideProgress()
{
    if (!m_outsideCancel)
        return;
    m_outsideCancel = nullptr;
    if (!isFetching())
        setVisible(false);
}

void ModelDownloadPanel::cancel()
{
    if (!isFetching())
        return;
    m_job.cancel();
    m_cancel->setEnabled(false); // the transfer stops within a moment; cancelled() follows
    m_text->setText(tr("Stopping the download of %1…").arg(m_source));
}

void ModelDownloadPanel::showProgress()
{
    if (!m_shared)
        return;
    std::optional<DownloadProgress> p;
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        if (!m_shared->changed)
            return;
        p = m_shared->latest;
        m_shared->changed = false;
    }
    if (!p || !m_cancel->isEnabled())
        return;
    if (p->bytes_total > 0) {
        m_bar->setRange(0, kBarMax);
        m_bar->setValue(int(std::min<double>(kBarMax, double(kBarMax) * double(p->bytes_done) / double(p->bytes_total))));
    } else {
        m_bar->setRange(0, 0);
    }
    m_bar->setFormat(downloadBytesText(*p));
    m_text->setText(downloadLineText(*p));
}

void ModelDownloadPanel::finish()
{
    m_timer->stop();
    m_shared.reset();
    m_source.clear();
    m_job = JobHandle();
    setVisible(false);
}

} // namespace wb
