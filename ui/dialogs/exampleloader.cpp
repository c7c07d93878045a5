// SPDX-License-Identifier: Apache-2.0
#include "ui/dialogs/exampleloader.h"

#include "core/hub/pretrainedmodel.h"
#include "core/util/errortext.h"

#include <QDir>
#include <filesystem>
#include <QProgressDialog>

namespace wb {

ExampleLoader::ExampleLoader(QWidget *window) : QObject(window), m_window(window) {}

ExampleLoader::~ExampleLoader()
{
    // The job captures nothing of this object; waiting keeps the cache directory consistent.
    m_job.cancel();
    m_job.waitForFinished();
}

void ExampleLoader::showProgressDialog(const QString &title)
{
    if (!m_progress) {
        m_progress = new QProgressDialog(tr("Preparing the spam-detection example…"), tr("Cancel"), 0, kJobProgressMax, m_window);
        m_progress->setObjectName(QStringLiteral("exampleProgress"));
        m_progress->setWindowModality(Qt::WindowModal);
        m_progress->setMinimumDuration(300);
        m_progress->setAutoClose(false);
        m_progress->setAutoReset(false);
        connect(m_progress, &QProgressDialog::canceled, this, [this] { m_job.cancel(); });
    }
    m_progress->setWindowTitle(title);
    m_progress->reset();
    m_progress->setValue(0);
}

template<typename T, typename Work, typename Done>
void ExampleLoader::runJob(Work work, const QString &stageText, const QString &cancelledText, Done done)
{
    m_job = runBackgroundJob<T>(
        this, std::move(work),
        [this, cancelledText, done = std::move(done)](JobOutcome<T> outcome) {
            m_progress->reset();
            m_progress->hide();
            if (outcome.cancelled)
                Q_EMIT logMessage(cancelledText);
            else if (!outcome.ok())
                Q_EMIT failed(outcome.error);
            else
                done(*outcome.value);
        },
        [this, stageText](int value, const QString &stage) {
            m_progress->setValue(value);
            m_progress->setLabelText(stageText.arg(stage));
        });
}

void ExampleLoader::startLesson()
{
    if (m_job.isRunning())
        return;
    showProgressDialog(tr("Why Pretraining Matters"));
    const std::string cacheDir = defaultExampleCacheDir();
    Q_EMIT logMessage(tr("Preparing the pretraining lesson in %1 (the example's mails without their labels, and 200 "
                         "labelled ones)")
                          .arg(QDir(QString::fromStdString(cacheDir)).filePath(QStringLiteral("pretraining-lesson"))));
    runJob<std::vector<PretrainingLessonRun>>(
        [cacheDir](const JobControl &job) {
            auto report = [&job](double fraction, const std::string &stage) {
                job.setProgress(int(fraction * kJobProgressMax), QString::fromStdString(stage));
            };
            const ExampleDataPaths paths = ensureExampleData(cacheDir, report, job.stopToken());
            PretrainingLessonOptions o;
            o.corpus_dir = paths.corpus_dir;
            o.vocab_file = paths.vocab_file;
            o.bert_config_file = paths.bert_config_file;
            o.output_dir = (std::filesystem::path(cacheDir) / "pretraining-lesson").string();
            const PretrainingLessonData d = preparePretrainingLesson(o, report, job.stopToken());
            return pretrainingLessonRuns(o, d);
        },
        tr("Preparing the pretraining lesson: %1"), tr("Lesson preparation cancelled."),
        [this](const std::vector<PretrainingLessonRun> &runs) { Q_EMIT lessonPrepared(runs); });
}

void ExampleLoader::start()
{
    if (m_job.isRunning())
        return;
    showProgressDialog(tr("Open Example"));
    const std::string cacheDir = defaultExampleCacheDir();
    Q_EMIT logMessage(tr("Opening the example project (first use downloads and prepares the SpamAssassin corpus into %1)")
                          .arg(QString::fromStdString(cacheDir)));
    runJob<ExampleDataPaths>(
        [cacheDir](const JobControl &job) {
            ExampleDataPaths paths = ensureExampleData(
                cacheDir,
                [&job](double fraction, const std::string &stage) {
                    job.setProgress(int(fraction * kJobProgressMax), QString::fromStdString(stage));
                },
                job.stopToken());
            job.setProgress(kJobProgressMax, QStringLiteral("getting the pretrained BERT-Tiny"));
            chooseStart(paths, *job.stopToken());
            return paths;
        },
        tr("Preparing the spam-detection example: %1"), tr("Example preparation cancelled."),
        [this](const ExampleDataPaths &paths) { Q_EMIT prepared(paths); });
}

void ExampleLoader::chooseStart(ExampleDataPaths &paths, const StopToken &stop)
{
    // Fine-tuning means starting from pretrained weights: BERT-Tiny's, when the Hub (or the
    // Hugging Face cache) has them; else from random weights, as the log says.
    HubSettings settings = HubSettings::fromEnvironment();
    settings.max_attempts = 1; // the example must not wait long for an absent network
    settings.connect_timeout_s = 10;
    try {
        const PretrainedModel m = resolvePretrainedModel(kExamplePretrainedModel, settings, {}, stop);
        paths.pretrained_model = kExamplePretrainedModel;
        paths.start_note = "fine-tunes the pretrained BERT-Tiny (" + m.folder + ")";
    } catch (...) {
        if (stop.stopRequested())
            throw;
        paths.start_note = "trains BERT-Tiny from random weights: the pretrained one could not be had ("
                           + describeCurrentException(kExamplePretrainedModel).message + ")";
    }
}

TrainingOptions ExampleLoader::projectOptions(const ExampleDataPaths &paths)
{
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.num_gpus = 0;
    const bool pretrained = !paths.pretrained_model.empty();
    if (pretrained) // the pretrained BERT-Tiny's config, vocabulary, casing and weights
        o.pretrained_model = paths.pretrained_model;
    else
        o.bert_config_file = paths.bert_config_file;
    o.input_meta_data_path = paths.meta_data_path;
    o.train_data_path = paths.train_data_path;
    o.eval_data_path = paths.eval_data_path;
    o.model_dir = QDir(QString::fromStdString(paths.project_dir))
                      .filePath(pretrained ? QStringLiteral("runs/pretrained-1") : QStringLiteral("runs/run-1"))
                      .toStdString();
    o.train_batch_size = 32;
    o.eval_batch_size = 64;
    // Pretrained: the BERT miniatures' fine-tuning range (Turc et al. 2019: 1e-4, 5e-5, 3e-5);
    // a small model trained from scratch tolerates a larger rate.
    o.learning_rate = pretrained ? 1e-4 : 5e-4;
    o.num_train_epochs = 3;
    o.num_eval_per_epoch = 2;
    o.log_steps = 20;
    return o;
}

} // namespace wb
