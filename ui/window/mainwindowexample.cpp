// SPDX-License-Identifier: Apache-2.0
// The example and the pretraining lesson in the window: File → Open Example (the example's data
// downloaded and prepared off the GUI thread, "open as it was" when the learner changed it) and
// the start page's lesson, its three runs through a RunQueue.
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/config/optionwords.h"
#include "core/formats/lessonverdict.h"
#include "core/corpus/pretraininglesson.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/form/configurationform.h"
#include "ui/form/projectfile.h"
#include "ui/plot/lossplot.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"

#include <QAbstractButton>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

namespace wb {

void MainWindow::createExampleLoader()
{
    m_example = new ExampleLoader(this);
    connect(m_example, &ExampleLoader::logMessage, this, &MainWindow::appendLog);
    connect(m_example, &ExampleLoader::failed, this,
            [this](const ErrorReport &error) { reportError(tr("Cannot open the example"), error); });
    connect(m_example, &ExampleLoader::lessonPrepared, this, &MainWindow::startLesson);
    connect(m_example, &ExampleLoader::prepared, this, [this](const ExampleDataPaths &paths) {
        guarded(tr("Cannot open the example"), [&] { openExampleProject(paths); });
    });
}

void MainWindow::startLesson(const std::vector<PretrainingLessonRun> &runs)
{
    if (!m_lesson) {
        m_lesson = new RunQueue(m_session, this);
        m_lesson->setObjectName(QStringLiteral("lessonQueue"));
        connect(m_lesson, &RunQueue::runStarting, this, [this](int index) {
            appendLog(tr("Lesson, run %1 of %2: %3").arg(index + 1).arg(m_lesson->runs().size()).arg(m_lesson->runs()[size_t(index)].label));
        });
        connect(m_lesson, &RunQueue::finished, this, [this] {
            std::vector<PretrainingLessonRun> runs;
            for (const QueuedRun &r : m_lesson->runs())
                runs.push_back({r.label.toStdString(), r.purpose == RunPurpose::Pretrain, r.options});
            appendLog(tr("Lesson done: %1 In Compare runs, tick Group seeds: each start is then the mean of its seeds "
                         "with their spread (docs/tutorial.md, section 7, says what the curves show).")
                          .arg(q(pretrainingLessonSummary(runs))));
        });
        connect(m_lesson, &RunQueue::stopped, this, [this](int index, const QString &reason) {
            appendLog(tr("Lesson stopped at run %1: %2. Open the lesson again to go on.").arg(index + 1).arg(reason));
        });
    }
    std::vector<QueuedRun> queued;
    for (const PretrainingLessonRun &run : runs) {
        QueuedRun r;
        r.options = run.options;
        r.purpose = run.pretrain ? RunPurpose::Pretrain : RunPurpose::Train;
        r.label = q(run.name);
        r.show = [this, run] {
            m_form->setTask(run.pretrain ? FormTask::Pretrain : FormTask::Classify);
            setOptions(run.options);
        };
        queued.push_back(std::move(r));
    }
    if (m_lesson->isActive() || !m_session->canTrain() || !m_lesson->setRuns(std::move(queued))) {
        appendLog(tr("The lesson cannot start while a run or a check is going."));
        return;
    }
    // The lesson starts from random weights on purpose: the example's note on its weights is not the lesson's.
    m_plot->setNotice({});
    m_form->setStartFromMessage({});
    if (!m_lesson->start())
        appendLog(tr("The lesson cannot start while a run or a check is going."));
}

void MainWindow::openExample() { m_example->start(); }

void MainWindow::openExampleProject(const ExampleDataPaths &paths)
{
    const TrainingOptions o = ExampleLoader::projectOptions(paths);
    // Two projects side by side, so Compare runs shows both starts.
    const QString project = QDir(q(paths.project_dir))
                                .filePath(o.pretrained_model.empty() ? QStringLiteral("spam-example.bwproj")
                                                                     : QStringLiteral("spam-example-pretrained.bwproj"));
    if (!QFileInfo::exists(project)) {
        try {
            ProjectFile::save(project, o);
        } catch (...) {
            appendLog(tr("warning: %1").arg(currentErrorReport().logLine()));
        }
        finishOpeningExample(paths, project);
        return;
    }
    // The learner changed the example: open it as they left it, or as it was (the example's settings).
    Diagnostics diag;
    TrainingOptions saved;
    try {
        saved = ProjectFile::load(project, diag);
    } catch (...) {
        diag.error(project.toStdString(), currentErrorReport().message.toStdString());
    }
    if (diag.hasErrors() || toCommandLineFlags(saved) == toCommandLineFlags(o)) {
        finishOpeningExample(paths, project);
        return;
    }
    if (!m_exampleChangedBox) {
        m_exampleChangedBox = new QMessageBox(QMessageBox::Question, tr("The example was changed"), QString(),
                                              QMessageBox::NoButton, this);
        m_exampleChangedBox->setObjectName(QStringLiteral("exampleChangedDialog"));
        m_exampleChangedBox->setWindowModality(Qt::WindowModal);
        m_exampleChangedBox->addButton(tr("Open as I &left it"), QMessageBox::AcceptRole)
            ->setObjectName(QStringLiteral("openExampleAsLeft"));
        m_exampleChangedBox->addButton(tr("Open as it &was"), QMessageBox::DestructiveRole)
            ->setObjectName(QStringLiteral("resetExample"));
        m_exampleChangedBox->addButton(QMessageBox::Cancel)->setObjectName(QStringLiteral("cancelExample"));
    }
    // The learner's settings by the form's labels ("“Learning rate” = 0.25"), not as flags.
    QStringList changed;
    const std::vector<std::string> example = toCommandLineFlags(o);
    for (const std::string &flag : toCommandLineFlags(saved))
        if (std::find(example.begin(), example.end(), flag) == example.end()) {
            const std::string::size_type eq = flag.find('=');
            const std::string name = flag.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            changed << q(optionSetting(name, eq == std::string::npos ? std::string("true") : flag.substr(eq + 1)));
        }
    m_exampleChangedBox->setText(tr("You changed the example project %1.").arg(project));
    m_exampleChangedBox->setInformativeText(
        tr("Open it as you left it, or as it was: the example's settings again (its runs stay where they are).")
        + (changed.empty() ? QString() : QStringLiteral("\n\n") + tr("Your settings: %1").arg(changed.join(QStringLiteral("; ")))));
    m_exampleChangedBox->disconnect(this);
    connect(m_exampleChangedBox, &QMessageBox::buttonClicked, this, [this, paths, project, o](QAbstractButton *button) {
        if (button->objectName() == QLatin1String("cancelExample"))
            return;
        if (button->objectName() == QLatin1String("resetExample")) {
            try {
                ProjectFile::save(project, o);
                appendLog(tr("The example project %1 is as it was again.").arg(project));
            } catch (...) {
                reportError(tr("Cannot reset the example"), currentErrorReport());
                return;
            }
        }
        finishOpeningExample(paths, project);
    });
    m_exampleChangedBox->open();
}

QString MainWindow::offlineExampleNotice(const ExampleDataPaths &paths)
{
    if (!paths.pretrained_model.empty() || paths.start_note.empty())
        return {};
    // start_note: "trains BERT-Tiny from random weights: the pretrained one could not be had (why)";
    // on the plot only the first sentence of why (the Log keeps the whole of it).
    std::string note = paths.start_note;
    if (const size_t open = note.find('('); open != std::string::npos)
        if (const size_t stop = note.find(". ", open); stop != std::string::npos)
            note = note.substr(0, stop) + ")";
    return tr("The example %1. For a class without network, fill the Hugging Face cache beforehand on a machine "
              "with network: bert-workbench-cli models download %2 (then copy ~/.cache/huggingface to each "
              "machine); with HF_HUB_OFFLINE=1 the workbench reads the cache only and never waits for the network "
              "(docs/pretrained-models.md).")
        .arg(q(note), q(kExamplePretrainedModel));
}

void MainWindow::finishOpeningExample(const ExampleDataPaths &paths, const QString &project)
{
    const TrainingOptions o = ExampleLoader::projectOptions(paths);
    QString openError;
    if (!openProject(project, &openError)) {
        setOptions(o);
        appendLog(tr("warning: %1").arg(openError));
    }
    if (!paths.start_note.empty())
        appendLog(tr("The example %1.").arg(q(paths.start_note)));
    // Offline (a classroom without network): the plot and the form say it, not only the Log.
    const QString offline = offlineExampleNotice(paths);
    m_plot->setNotice(offline);
    if (!offline.isEmpty())
        m_form->setStartFromMessage(offline);
    appendLog(o.pretrained_model.empty()
                  ? tr("Example ready: spam detection (SpamAssassin), BERT-Tiny from random weights, one_device. Press Train.")
                  : tr("Example ready: spam detection (SpamAssassin), fine-tuning the pretrained BERT-Tiny, one_device. "
                       "Press Train."));
    statusBar()->showMessage(tr("Example loaded. Press Train to start."));
    Q_EMIT exampleReady();
}

} // namespace wb
