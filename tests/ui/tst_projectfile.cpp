// SPDX-License-Identifier: Apache-2.0
#include "app/cli/runflags.h"
#include "core/config/optiontable.h"
#include "ui/form/configurationform.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runhistory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <limits>
#include <sstream>

using namespace wb;

class tst_ProjectFile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip();
    void relativePathsResolveAgainstProject();
    void wrongTypeIsNamed();
    void metricsHistory();
    void everyOptionRoundTrips();
    void oldSpellingsAndAbsentKeys();
};

namespace {

/// A value of `spec` that differs from its default and that a careless widget or text
/// conversion would change: integers near the top of their type (above INT_MAX for int64
/// options), reals that need all 17 significant digits, choices other than the default.
std::string awkwardValue(const OptionSpec &spec)
{
    switch (spec.type()) {
    case OptionType::Text:
        if (!spec.choices.empty())
            return spec.choices.back() != spec.defaultText() ? spec.choices.back() : spec.choices.front();
        if (spec.isPath())
            return std::string("/data/my run/") + spec.flag; // absolute: the project file keeps it as is
        return std::string("value-") + spec.flag;
    case OptionType::Integer:
        if (std::holds_alternative<int TrainingOptions::*>(spec.member))
            return std::to_string(std::numeric_limits<int>::max() - 7);
        return std::to_string(std::numeric_limits<int64_t>::max() - 7);
    case OptionType::OptionalInteger:
        return std::to_string(int64_t(5000000000) + 123);
    case OptionType::Real:
    case OptionType::OptionalReal: {
        TrainingOptions o;
        spec.setText(o, "2.1234567890123457e-05"); // needs all 17 digits to read back
        return spec.text(o);
    }
    }
    return {};
}

QStringList allText(const TrainingOptions &o)
{
    QStringList list;
    for (const OptionSpec &spec : optionTable())
        list << QStringLiteral("%1=%2").arg(QLatin1String(spec.flag), QString::fromStdString(spec.text(o)));
    return list;
}

} // namespace

/// Every option of the table goes flags → options → form → options → project file → options
/// → flags and arrives bit-identical (text() writes reals in their shortest round-trip form),
/// each set to an awkward value that is not its default.
void tst_ProjectFile::everyOptionRoundTrips()
{
    std::vector<std::string> flags;
    for (const OptionSpec &spec : optionTable())
        flags.push_back(std::string("--") + spec.flag + "=" + awkwardValue(spec));

    CLI::App app;
    TrainingOptions parsed;
    cli::addRunFlags(app, parsed);
    std::ostringstream out, err;
    int code = 0;
    QVERIFY2(cli::parseFlags(app, flags, out, err, code), err.str().c_str());
    for (const OptionSpec &spec : optionTable()) {
        QVERIFY2(spec.isChanged(parsed), spec.flag);
        QCOMPARE(spec.text(parsed), awkwardValue(spec));
    }

    // Through the window's form: shown, not edited, read back.
    ConfigurationForm form;
    form.setOptions(parsed);
    const TrainingOptions fromForm = form.options();
    QCOMPARE(allText(fromForm), allText(parsed));
    for (const OptionSpec &spec : optionTable())
        QVERIFY2(spec.equal(parsed, fromForm), spec.flag);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("all.bwproj"));
    ProjectFile::save(path, fromForm);
    const nlohmann::json saved = ProjectFile::toJson(fromForm);
    QCOMPARE(saved.at("options").size(), optionTable().size()); // every option has its key
    Diagnostics diag;
    const TrainingOptions loaded = ProjectFile::load(path, diag);
    QVERIFY2(diag.empty(), diag.format().c_str());
    QCOMPARE(allText(loaded), allText(parsed));
    for (const OptionSpec &spec : optionTable())
        QVERIFY2(spec.equal(parsed, loaded), spec.flag);

    const std::vector<std::string> back = toCommandLineFlags(loaded);
    QCOMPARE(back, toCommandLineFlags(parsed));
    // Every option but mode (the subcommand sets it) is on the command line.
    QCOMPARE(back.size(), optionTable().size() - 1);
    for (const std::string &f : flags)
        if (f.rfind("--mode=", 0) != 0)
            QVERIFY2(std::find(back.begin(), back.end(), f) != back.end(), f.c_str());
}

void tst_ProjectFile::oldSpellingsAndAbsentKeys()
{
    // Projects written before the option table used intra_op_threads; absent keys keep defaults.
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"format":"bert-workbench-project","version":1,
        "options":{"intra_op_threads":3,"worker_timeout":45,"seed":7,"colour":"red"}})");
    const TrainingOptions o = ProjectFile::fromJson(j, QString(), diag);
    QCOMPARE(o.num_threads, 3);
    QCOMPARE(o.worker_timeout, 45);
    QCOMPARE(o.seed, int64_t(7));
    QVERIFY(!o.learning_rate); // absent: it follows the start (learningRate())
    QCOMPARE(learningRate(o), kFromScratchLearningRate);
    QCOMPARE(o.mode, std::string("train_and_eval"));
    QCOMPARE(o.model_dir, std::string()); // no default model directory
    QCOMPARE(diag.errorCount(), 0);
    QCOMPARE(int(diag.items().size()), 1);
    QCOMPARE(diag.items().front().severity, Severity::Warning);
    QCOMPARE(diag.items().front().field, std::string("options.colour"));
    QCOMPARE(diag.items().front().message, std::string("unknown setting, ignored"));

    // The CLI accepts the old spelling too, and both forms of a value.
    CLI::App app;
    TrainingOptions parsed;
    cli::addRunFlags(app, parsed);
    std::ostringstream out, err;
    int code = 0;
    QVERIFY2(cli::parseFlags(app, {"--intra_op_threads=2", "--worker_timeout", "9", "--md", "runs/a"}, out,
                             err, code),
             err.str().c_str());
    QCOMPARE(parsed.num_threads, 2);
    QCOMPARE(parsed.worker_timeout, 9);
    QCOMPARE(parsed.model_dir, std::string("runs/a"));
    TrainingOptions bad;
    CLI::App app2;
    cli::addRunFlags(app2, bad);
    QVERIFY(!cli::parseFlags(app2, {"--train_batch_size=1.5"}, out, err, code));
    QCOMPARE(code, 2);
    QVERIFY2(err.str().find("--train_batch_size: expected an integer, found '1.5'") != std::string::npos, err.str().c_str());

    // A flag given twice takes the last value (absl flags; editing a copied command line).
    TrainingOptions twice;
    CLI::App app3;
    cli::addRunFlags(app3, twice);
    QVERIFY2(cli::parseFlags(app3, {"--learning_rate=1e-3", "--model_dir=a", "--learning_rate", "2e-3"}, out, err, code),
             err.str().c_str());
    QCOMPARE(twice.learning_rate, 2e-3);
}

void tst_ProjectFile::roundTrip()
{
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.num_gpus = 1;
    o.bert_config_file = "/data/bert_config.json";
    o.train_data_path = "/data/train-*.tf_record";
    o.learning_rate = 3e-5;
    o.train_data_size = 1000;
    o.seed = 7;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(path, o);
    Diagnostics diag;
    const TrainingOptions back = ProjectFile::load(path, diag);
    QVERIFY2(diag.empty(), diag.format().c_str());
    QCOMPARE(back.distribution_strategy, o.distribution_strategy);
    QCOMPARE(back.num_gpus, 1);
    QCOMPARE(back.bert_config_file, o.bert_config_file);
    QCOMPARE(back.train_data_path, o.train_data_path);
    QCOMPARE(back.learning_rate, 3e-5);
    QCOMPARE(back.train_data_size.value_or(0), int64_t(1000));
    QCOMPARE(back.seed, int64_t(7));
    QCOMPARE(ProjectFile::toJson(back), ProjectFile::toJson(o));
}

void tst_ProjectFile::relativePathsResolveAgainstProject()
{
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"format":"bert-workbench-project","version":1,
        "options":{"bert_config_file":"cfg/bert_config.json","model_dir":"/abs/run"}})");
    const TrainingOptions o = ProjectFile::fromJson(j, QStringLiteral("/home/u/proj"), diag);
    QCOMPARE(o.bert_config_file, std::string("/home/u/proj/cfg/bert_config.json"));
    QCOMPARE(o.model_dir, std::string("/abs/run"));
}

void tst_ProjectFile::wrongTypeIsNamed()
{
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"format":"bert-workbench-project","options":{"train_batch_size":"big","colour":1}})");
    ProjectFile::fromJson(j, QString(), diag);
    QCOMPARE(diag.errorCount(), 1);
    QCOMPARE(diag.items().front().field, std::string("options.train_batch_size"));
    QVERIFY(diag.format().find("options.colour") != std::string::npos); // unknown key warned

    QTemporaryDir dir;
    diag = Diagnostics();
    ProjectFile::load(dir.filePath(QStringLiteral("nope.bwproj")), diag);
    QVERIFY(diag.hasErrors());
}

void tst_ProjectFile::metricsHistory()
{
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(QStringLiteral("runs/a"));
    QDir(dir.path()).mkpath(QStringLiteral("runs/b"));
    const QString a = dir.filePath(QStringLiteral("runs/a/metrics.jsonl"));
    QFile f(a);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"kind":"train","step":1,"loss":0.9,"learning_rate":1e-5,"examples_per_second":10,"wall_time":100.5}
{"kind":"train","step":2,"loss":0.7,"learning_rate":2e-5,"examples_per_second":10,"wall_time":101.5}

{"kind":"eval","step":2,"eval_loss":0.6,"eval_accuracy":0.75,"wall_time":102}
{"kind":"train","step":3,"lo)");
    f.close();
    QString error;
    const RunHistory h = RunHistory::load(a, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error)); // a torn last line is ignored
    QCOMPARE(h.name, QStringLiteral("a"));
    QCOMPARE(h.trainStep, (std::vector<double>{1, 2}));
    QCOMPARE(h.trainLoss, (std::vector<double>{0.9, 0.7}));
    QCOMPARE(h.evalAccuracy, (std::vector<double>{0.75}));
    QCOMPARE(h.trainWallTime.front(), 100.5);

    QFile g(dir.filePath(QStringLiteral("runs/b/metrics.jsonl")));
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("not json\n{\"kind\":\"train\",\"step\":1,\"loss\":1}\n");
    g.close();
    RunHistory::load(g.fileName(), &error);
    QVERIFY(error.contains(QStringLiteral("line 1")));

    const QStringList runs = RunHistory::findRuns(dir.filePath(QStringLiteral("runs/a")));
    QCOMPARE(runs.size(), 2); // its own and its sibling's
}

QTEST_MAIN(tst_ProjectFile) // the round trip goes through the form (widgets, offscreen)
#include "tst_projectfile.moc"
