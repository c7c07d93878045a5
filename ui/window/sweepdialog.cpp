// SPDX-License-Identifier: Apache-2.0
// Training → Sweep…: a sweep's plan in the window (a SweepDriver), and Repeat with Seeds' sweep
// over seed.
#include "ui/window/sweepdialog.h"
#include "ui/common/qtext.h"

#include "core/formats/sweepnames.h"
#include "core/util/error.h"
#include "core/util/errortext.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace wb {

std::vector<std::string> sweepBaseFlags(const TrainingOptions &o, const SweepSpec &spec)
{
    std::vector<std::string> out;
    for (const std::string &flag : toCommandLineFlags(o)) {
        const std::string name = flag.substr(2, flag.find('=') == std::string::npos ? std::string::npos : flag.find('=') - 2);
        bool swept = name == "model_dir";
        for (const SweepParameter &p : spec.parameters)
            swept = swept || p.name == name;
        if (!swept)
            out.push_back(flag);
    }
    return out;
}

QueuedRun sweepQueuedRun(const TrainingOptions &base, RunPurpose purpose, const SweepDriver &sweep, size_t i, bool bySeed)
{
    const SweepRun &run = sweep.file().runs.at(i).run;
    QueuedRun q;
    q.options = base;
    applySweepRun(q.options, run);
    q.options.model_dir = sweep.runDir(i);
    q.purpose = purpose;
    q.label = bySeed ? QStringLiteral("seed %1").arg(q.options.seed) : QString::fromStdString(run.name);
    return q;
}

std::string seedSweepDir(const std::string &modelDir)
{
    std::string base = modelDir;
    while (base.size() > 1 && base.back() == '/')
        base.pop_back();
    return base + "-seeds";
}

SweepFile seedSweep(const TrainingOptions &o, int count)
{
    SweepFile f;
    SweepParameter seeds;
    seeds.name = "seed";
    for (int i = 0; i < count; ++i)
        seeds.values.push_back(double(o.seed + i));
    f.spec.parameters.push_back(seeds);
    f.base_flags = sweepBaseFlags(o, f.spec);
    return SweepDriver::withPlannedRuns(std::move(f));
}

SweepDialog::SweepDialog(QWidget *parent)
    : QDialog(parent), m_method(new QComboBox(this)), m_numRuns(new QSpinBox(this)), m_sampleSeed(new QSpinBox(this)),
      m_runsAtOnce(new QSpinBox(this)), m_folder(new QLineEdit(this)), m_planText(new QLabel(this))
{
    setObjectName(QStringLiteral("sweepDialog"));
    setWindowTitle(tr("Sweep"));
    auto *form = new QFormLayout;
    for (const std::string &name : sweepableOptions()) {
        auto *edit = new QLineEdit(this);
        edit->setObjectName(QStringLiteral("sweepParam_%1").arg(q(name)));
        edit->setPlaceholderText(tr("the form's value"));
        edit->setToolTip(tr("Values separated by commas (1e-4,5e-4), or for random search a range low:high"));
        connect(edit, &QLineEdit::textChanged, this, &SweepDialog::updatePlanText);
        form->addRow(q(name), edit);
        m_params[name] = edit;
    }
    m_method->setObjectName(QStringLiteral("sweepMethod"));
    m_method->addItems({QStringLiteral("grid"), QStringLiteral("random")});
    m_method->setToolTip(tr("grid: every combination; random: this many draws (ranges log-uniform for learning_rate and "
                            "weight_decay_rate)"));
    m_numRuns->setObjectName(QStringLiteral("sweepNumRuns"));
    m_numRuns->setRange(1, 1000);
    m_numRuns->setValue(8);
    m_sampleSeed->setObjectName(QStringLiteral("sweepSampleSeed"));
    m_sampleSeed->setRange(0, 1000000);
    m_folder->setObjectName(QStringLiteral("sweepFolder"));
    m_folder->setMinimumWidth(fontMetrics().averageCharWidth() * 40); // a path's tail is readable
    m_folder->setToolTip(tr("The sweep folder: sweep.json and one model directory per run (run-001, …). A new sweep "
                            "goes beside the project's runs as sweep-1, sweep-2, …; Compare runs names its runs "
                            "sweep-1/run-001, …"));
    m_runsAtOnce->setObjectName(QStringLiteral("sweepRunsAtOnce"));
    m_runsAtOnce->setRange(1, 64);
    m_runsAtOnce->setValue(1);
    m_runsAtOnce->setToolTip(tr("1: one run after another in the window. More: that many runs train at the same time, "
                                "each in its own process (as the command line's sweep runs them), the "
                                "machine's cores split among them"));
    connect(m_runsAtOnce, &QSpinBox::valueChanged, this, &SweepDialog::updatePlanText);
    connect(m_method, &QComboBox::currentTextChanged, this, &SweepDialog::updatePlanText);
    connect(m_numRuns, &QSpinBox::valueChanged, this, &SweepDialog::updatePlanText);
    connect(m_sampleSeed, &QSpinBox::valueChanged, this, &SweepDialog::updatePlanText);
    connect(m_folder, &QLineEdit::textChanged, this, &SweepDialog::updatePlanText);
    form->addRow(tr("Method"), m_method);
    form->addRow(tr("Runs (random)"), m_numRuns);
    form->addRow(tr("Sample seed (random)"), m_sampleSeed);
    form->addRow(tr("Sweep folder"), m_folder);
    form->addRow(tr("Runs at once"), m_runsAtOnce);
    m_planText->setObjectName(QStringLiteral("sweepPlanText"));
    m_planText->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(this);
    QPushButton *start = buttons->addButton(tr("&Start"), QDialogButtonBox::AcceptRole);
    start->setObjectName(QStringLiteral("startSweep"));
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(start, &QPushButton::clicked, this, [this] {
        QString error;
        const std::optional<SweepDriver> sweep = plan(&error);
        if (!sweep) {
            m_planText->setText(error);
            return;
        }
        try {
            sweep->save();
        } catch (...) {
            m_planText->setText(q(describeCurrentException(sweepFilePath(sweepDir().toStdString())).line()));
            return;
        }
        accept();
        Q_EMIT startRequested(sweep->file());
    });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_planText);
    layout->addWidget(buttons);
}

void SweepDialog::setBaseOptions(const TrainingOptions &o, RunPurpose purpose)
{
    m_base = o;
    m_purpose = purpose;
    if (m_folder->text().isEmpty() && !o.model_dir.empty())
        m_folder->setText(q(nextSweepDir(o.model_dir))); // runs/sweep-1 beside runs/run-1
    updatePlanText();
}

QString SweepDialog::sweepDir() const { return m_folder->text().trimmed(); }

int SweepDialog::runsAtOnce() const { return m_runsAtOnce->value(); }

std::optional<SweepDriver> SweepDialog::plan(QString *error) const
{
    try {
        SweepFile planned;
        planned.spec.method = m_method->currentText().toStdString();
        planned.spec.num_runs = m_numRuns->value();
        planned.spec.sample_seed = uint64_t(m_sampleSeed->value());
        for (const std::string &name : sweepableOptions())
            if (const QString text = m_params.at(name)->text().trimmed(); !text.isEmpty())
                planned.spec.parameters.push_back(parseSweepParameter(name + "=" + text.toStdString()));
        if (sweepDir().isEmpty())
            throw Error("sweep folder", "is empty", "name a folder for the sweep's runs");
        planned = SweepDriver::withPlannedRuns(std::move(planned));
        planned.base_flags = sweepBaseFlags(m_base, planned.spec);
        return SweepDriver::planOrResume(sweepDir().toStdString(), std::move(planned), "holds another sweep's plan",
                                         "choose another sweep folder, or the same settings to resume it");
    } catch (...) {
        if (error)
            *error = q(describeCurrentException("sweep").toText());
        return std::nullopt;
    }
}

void SweepDialog::updatePlanText()
{
    QString error;
    const std::optional<SweepDriver> sweep = plan(&error);
    if (!sweep) {
        m_planText->setText(error);
        return;
    }
    const SweepFile *file = &sweep->file();
    const size_t pending = sweep->pendingRuns().size();
    QString text = pending == file->runs.size()
                       ? (runsAtOnce() == 1 ? tr("%n run(s), one after another.", nullptr, int(file->runs.size()))
                                            : tr("%n run(s), up to %1 at once, each in its own process.", nullptr,
                                                 int(file->runs.size()))
                                                  .arg(runsAtOnce()))
                       : tr("%1 of %2 run(s) already completed in this folder; %3 to go.")
                             .arg(file->runs.size() - pending).arg(file->runs.size()).arg(pending);
    if (runsAtOnce() > 1 && m_purpose != RunPurpose::Train)
        text += QLatin1Char('\n') + tr("Runs at once trains classifiers only; pretraining sweeps run one after another.");
    m_planText->setText(text);
}

} // namespace wb
