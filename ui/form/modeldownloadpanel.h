// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/hub/pretrainedmodel.h"
#include "ui/common/backgroundjob.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace wb {

/// Gets a "Start from" model's files in the window (issue 44): resolvePretrainedModel
/// (core/hub/pretrainedmodel.h, HubSettings::fromEnvironment(): the Hugging Face cache, a
/// local folder, or a download) as a background job, shown while it runs as a progress bar
/// ("progress": bytes done of the total), a line naming the model, the file, its place among
/// the files and the time left ("downloadText"), and a Cancel button ("cancelDownload").
/// Hidden when nothing is being fetched. Cancel stops the transfer at once (the core's
/// StopToken): the files already complete stay in the cache, the cut one only as
/// blobs/<etag>.incomplete, resumed next time, so the cache never holds half a file.
/// Object name "modelDownload". GUI thread only; destroying the panel cancels a fetch.
class ModelDownloadPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ModelDownloadPanel(QWidget *parent = nullptr);
    ~ModelDownloadPanel() override;

    /// Starts getting `idOrFolder` (a Hub id, a catalogue name or a folder); a fetch still
    /// going is cancelled first and its end is not reported. Exactly one of fetched(),
    /// failed() or cancelled() follows, on the GUI thread.
    void fetch(const QString &idOrFolder);
    /// Stops the fetch going (cancelled() follows); nothing when none.
    void cancel();
    bool isFetching() const { return !m_source.isEmpty(); }
    /// The model being fetched ("" when none).
    QString source() const { return m_source; }
    /// Shows a download another job runs (Train's check fetching Start from's model first):
    /// `value` in 0…kJobProgressMax, `text` as downloadProgressText() makes it; Cancel calls
    /// `cancel`. Nothing while this panel fetches on its own.
    void showOutsideProgress(int value, const QString &text, std::function<void()> cancel);
    /// Hides what showOutsideProgress() showed.
    void endOutsideProgress();
    QProgressBar *progressBar() const { return m_bar; }
    QPushButton *cancelButton() const { return m_cancel; }
    QLabel *textLabel() const { return m_text; }

Q_SIGNALS:
    /// `source`'s files are on disk (downloaded now, or found in the cache or folder).
    void fetched(const QString &source, const wb::PretrainedModel &model);
    /// The fetch failed: the core's message and how to fix it.
    void failed(const QString &source, const QString &message, const QString &hint);
    /// Cancel stopped it (the part downloaded so far stays as blobs/<etag>.incomplete).
    void cancelled(const QString &source);

private:
    struct Shared; ///< the job's latest progress report, read by the timer
    void showProgress();
    void finish();

    QProgressBar *m_bar = nullptr;
    QLabel *m_text = nullptr;
    QPushButton *m_cancel = nullptr;
    QTimer *m_timer = nullptr;
    JobHandle m_job;
    std::shared_ptr<Shared> m_shared;
    QString m_source;
    std::function<void()> m_outsideCancel; ///< set while another job's download is shown
    int m_generation = 0; ///< a newer fetch makes an older job's end stale
};

/// "3.1 MB of 18 MB" (or "3.1 MB" while the total is unknown) and "Downloading BERT-Tiny
/// (google/…): model.safetensors, file 3 of 4, 1.2 MB/s, about 5 s left": the bar's and the
/// line's text of a progress report. Thread-safe.
QString downloadBytesText(const DownloadProgress &p);
QString downloadLineText(const DownloadProgress &p);
/// Both, as one text for a background job's progress (JobControl::setProgress):
/// showOutsideProgress() splits it again. Thread-safe.
QString downloadProgressText(const DownloadProgress &p);

} // namespace wb
