// SPDX-License-Identifier: Apache-2.0
// "Start from" a pretrained model (issue 22), end to end against a local stand-in for the Hub:
// prepareRun never downloads and says what is missing; fetchPretrainedModel puts the model
// into the Hugging Face cache; prepareRun then fills the model config, vocabulary, casing and
// init checkpoint from it; the run trains from the pretrained weights (a pytorch_model.bin
// written by torch.save); offline it works from the cache; data prepared with another casing
// or vocabulary is refused, naming both sides.
#include "core/config/jsonfile.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/engine/preparedrun.h"
#include "core/launch/trainer.h"
#include "core/util/digest.h"
#include "support/hubtestserver.h"
#include "support/recordingobserver.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string fixture(const std::string &name) { return std::string(WB_TEST_DATA_DIR) + "/pretrained/tiny-bert-zip/" + name; }

/// 40 pieces: the fixture model's vocab_size.
std::string vocab40()
{
    std::string v = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (int i = 5; i < 40; ++i)
        v += "w" + std::to_string(i) + "\n";
    return v;
}

} // namespace

class tst_PretrainedStart : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<wbtest::HubTestServer> m_hub;
    TrainingOptions m_options;

    std::string path(const std::string &name) const { return m_dir.filePath(QString::fromStdString(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_hub = std::make_unique<wbtest::HubTestServer>();
        wbtest::HubTestRepo repo;
        repo.commit = std::string(40, 'a');
        repo.files["config.json"].content = readAll(fixture("config.json"));
        repo.files["vocab.txt"].content = vocab40();
        repo.files["pytorch_model.bin"].content = readAll(fixture("pytorch_model.bin"));
        repo.files["pytorch_model.bin"].lfs = true;
        QVERIFY(!repo.files["pytorch_model.bin"].content.empty());
        m_hub->addRepo("test-org/tiny-bert-uncased", repo);
        qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_hub->endpoint()));
        qputenv("HF_HOME", QByteArray::fromStdString(path("hf_home")));
        qunsetenv("HF_HUB_CACHE");
        qunsetenv("HF_HUB_OFFLINE");
        qunsetenv("HF_TOKEN");

        // Records in the model's vocabulary: label k shows in the ids (5..21 or 22..39).
        writeFileAtomic(path("input_meta_data.json"),
                        R"({"processor_type": "FOLDERS", "task_type": "bert_classification", "num_labels": 2,
                            "train_data_size": 32, "eval_data_size": 8, "max_seq_length": 16})");
        for (const auto &[file, n] : {std::pair{std::string("train.tf_record"), 32}, std::pair{std::string("eval.tf_record"), 8}}) {
            TFRecordWriter w(path(file));
            for (int i = 0; i < n; ++i) {
                ClassifierRecord r;
                r.label_id = i % 2;
                r.input_ids.assign(16, 0);
                r.input_mask.assign(16, 0);
                r.segment_ids.assign(16, 0);
                r.input_ids[0] = 2;
                for (int k = 1; k < 9; ++k)
                    r.input_ids[size_t(k)] = (r.label_id ? 22 : 5) + (i + k) % 17;
                r.input_ids[9] = 3;
                for (int k = 0; k < 10; ++k)
                    r.input_mask[size_t(k)] = 1;
                w.write(encodeClassifierRecord(r));
            }
            w.commit();
        }
        m_options.distribution_strategy = "one_device";
        m_options.pretrained_model = "test-org/tiny-bert-uncased";
        m_options.input_meta_data_path = path("input_meta_data.json");
        m_options.train_data_path = path("train.tf_record");
        m_options.eval_data_path = path("eval.tf_record");
        m_options.model_dir = path("run");
        m_options.train_batch_size = 8;
        m_options.eval_batch_size = 8;
        m_options.num_train_epochs = 1;
        m_options.log_steps = 0;
    }

    void cleanupTestCase()
    {
        qunsetenv("HF_ENDPOINT");
        qunsetenv("HF_HOME");
        qunsetenv("HF_HUB_OFFLINE");
    }

    // 1. prepareRun never downloads: a model that is not there yet is one clear error, not
    //    also "no model config was given".
    void notDownloadedIsOneClearError()
    {
        m_hub->clearRequests();
        const PreparedRun r = prepareRun(m_options, RunPurpose::Train);
        QCOMPARE(m_hub->requestCount(), size_t(0));
        QVERIFY(!r.ok());
        QStringList fields;
        QString message;
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error) {
                fields << QString::fromStdString(d.field);
                if (d.field == "pretrained_model")
                    message = QString::fromStdString(d.message + " | " + d.hint);
            }
        QCOMPARE(fields, QStringList{QStringLiteral("pretrained_model")});
        QVERIFY2(message.contains(QStringLiteral("'test-org/tiny-bert-uncased' is not downloaded yet")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("models download test-org/tiny-bert-uncased")), qPrintable(message));
    }

    // 2. The front-ends' step: download into the cache, then the one choice fills the rest.
    void fetchThenPrepareFillsTheOptions()
    {
        StopToken stop;
        const auto fetched = fetchPretrainedModel(m_options, {}, stop);
        QVERIFY(fetched.has_value());
        QVERIFY(!fetched->from_cache);
        QVERIFY(m_hub->requestCount() > 0);
        const std::string snapshot = path("hf_home") + "/hub/models--test-org--tiny-bert-uncased/snapshots/" + std::string(40, 'a');
        QCOMPARE(fs::weakly_canonical(fetched->folder).string(), fs::weakly_canonical(snapshot).string());

        m_hub->clearRequests();
        const PreparedRun r = prepareRun(m_options, RunPurpose::Train);
        QVERIFY2(r.ok(), r.validation.diagnostics.format().c_str());
        QCOMPARE(m_hub->requestCount(), size_t(0)); // the cache, no request
        QVERIFY(r.pretrained.has_value());
        QCOMPARE(r.options.bert_config_file, fetched->folder + "/config.json");
        QCOMPARE(r.options.vocab_file, fetched->folder + "/vocab.txt");
        QCOMPARE(r.options.init_checkpoint, fetched->folder);
        QCOMPARE(r.options.do_lower_case, std::string("true")); // 'uncased' in the id
        QCOMPARE(r.validation.bert_config->vocab_size, int64_t(40));
        QCOMPARE(r.validation.bert_config->hidden_size, int64_t(8));

        // An option the user gave wins over the model's.
        TrainingOptions own = m_options;
        own.do_lower_case = "false";
        QCOMPARE(prepareRun(own, RunPurpose::Validate).options.do_lower_case, std::string("false"));
    }

    // 3. It trains from the pretrained weights: every encoder tensor loaded.
    void trainsFromThePretrainedWeights()
    {
        const PreparedRun r = prepareRun(m_options, RunPurpose::Train);
        QVERIFY2(r.ok(), r.validation.diagnostics.format().c_str());
        wbtest::RecordingObserver obs;
        StopToken stop;
        const RunFinished end = Trainer().execute(r, obs, stop);
        QVERIFY2(end.status == RunStatus::Completed, end.message.c_str());
        QCOMPARE(end.last_step, int64_t(4));
        QString loaded;
        for (const std::string &line : obs.logs)
            if (QString::fromStdString(line).contains(QStringLiteral("loaded 41 tensors")))
                loaded = QString::fromStdString(line);
        QVERIFY2(!loaded.isEmpty(), qPrintable(QString::fromStdString(obs.logs.empty() ? "" : obs.logs.front())));
        QVERIFY2(loaded.contains(QStringLiteral("0 missing")), qPrintable(loaded));
    }

    // 3b. The learning rate follows the start when it is not given (and says so); a given one
    //     is used as given; a run already in model_dir goes on at the rate it recorded.
    void learningRateFollowsTheStart()
    {
        const auto note = [](const PreparedRun &r) {
            for (const auto &d : r.validation.diagnostics.items())
                if (d.severity == Severity::Info && d.field == "learning_rate")
                    return d.message;
            return std::string();
        };
        TrainingOptions o = m_options;
        o.model_dir = path("lr-pretrained");
        QVERIFY(!o.learning_rate);
        PreparedRun r = prepareRun(o, RunPurpose::Train);
        QCOMPARE(r.options.learning_rate, std::optional<double>(5e-5));
        QCOMPARE(note(r), std::string("5e-05, the default from pretrained weights (--learning_rate not given)"));

        TrainingOptions scratch = o; // the same model's files, from random weights
        scratch.pretrained_model.clear();
        scratch.bert_config_file = r.options.bert_config_file;
        scratch.vocab_file = r.options.vocab_file;
        scratch.model_dir = path("lr-scratch");
        r = prepareRun(scratch, RunPurpose::Train);
        QCOMPARE(r.options.learning_rate, std::optional<double>(5e-4));
        QCOMPARE(note(r), std::string("0.0005, the default from random weights (--learning_rate not given)"));

        scratch.learning_rate = 3e-5; // given: as given, nothing said
        r = prepareRun(scratch, RunPurpose::Train);
        QCOMPARE(r.options.learning_rate, std::optional<double>(3e-5));
        QCOMPARE(note(r), std::string());

        // The run of test 3 in m_options.model_dir recorded 5e-5; from random weights in that
        // model_dir the unset rate is the run's, not 5e-4 (a resume goes on at its own rate).
        scratch.learning_rate.reset();
        scratch.model_dir = m_options.model_dir;
        r = prepareRun(scratch, RunPurpose::Train);
        QCOMPARE(r.options.learning_rate, std::optional<double>(5e-5));
        QCOMPARE(note(r), "5e-05, as the run in " + m_options.model_dir + " recorded it (--learning_rate not given)");
    }

    // 4. Offline (HF_HUB_OFFLINE=1) it works from the cache, with no request.
    void offlineUsesTheCache()
    {
        qputenv("HF_HUB_OFFLINE", "1");
        m_hub->clearRequests();
        StopToken stop;
        const auto fetched = fetchPretrainedModel(m_options, {}, stop);
        QVERIFY(fetched && fetched->from_cache);
        QVERIFY(prepareRun(m_options, RunPurpose::Validate).ok());
        QCOMPARE(m_hub->requestCount(), size_t(0));
        qunsetenv("HF_HUB_OFFLINE");
    }

    // 4b. A weights blob damaged in the cache: preparing a run names the cached copy and the
    //     fix (not a damaged download, not the loader's "truncated"); the front-ends' fetch
    //     downloads it again, and the run is ready.
    void damagedCachedWeightsAreNamed()
    {
        const std::string weights = readAll(fixture("pytorch_model.bin"));
        const std::string blob = path("hf_home") + "/hub/models--test-org--tiny-bert-uncased/blobs/"
                                 + wbtest::sha256Hex(weights);
        QVERIFY(fs::exists(blob));
        fs::resize_file(blob, weights.size() / 2);
        const PreparedRun r = prepareRun(m_options, RunPurpose::Validate);
        QVERIFY(!r.ok());
        QString said;
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error)
                said += QString::fromStdString(d.field + ": " + d.message + " | " + d.hint + "\n");
        QVERIFY2(said.startsWith(QStringLiteral("test-org/tiny-bert-uncased: pytorch_model.bin: the cached copy of "
                                                "pytorch_model.bin (")), qPrintable(said));
        QVERIFY2(said.contains(QString::fromStdString(" is damaged (" + std::to_string(weights.size() / 2)
                                                      + " bytes, expected " + std::to_string(weights.size()) + ")")),
                 qPrintable(said));
        QVERIFY2(said.contains(QStringLiteral("bert-workbench-cli models download --refresh test-org/tiny-bert-uncased")),
                 qPrintable(said));

        StopToken stop;
        std::string notice;
        const auto fetched = fetchPretrainedModel(
            m_options, [&](const DownloadProgress &p) { notice += p.notice; }, stop);
        QVERIFY(fetched && !fetched->from_cache);
        QVERIFY2(notice.find("is damaged (" + std::to_string(weights.size() / 2) + " bytes") != std::string::npos,
                 notice.c_str());
        QCOMPARE(readAll(blob), weights);
        QVERIFY(prepareRun(m_options, RunPurpose::Validate).ok());
    }

    /// Damage the size check cannot see: a changed byte (same size), and a truncation in a cache
    /// without size records (huggingface_hub's). The weights then fail to parse; the run's
    /// preparation says first that the cached copy is damaged, with the fix.
    void sameSizeDamageIsNamedWhenTheWeightsFail_data()
    {
        QTest::addColumn<bool>("truncate");
        QTest::newRow("changed bytes") << false;
        QTest::newRow("truncated, no size record") << true;
    }

    void sameSizeDamageIsNamedWhenTheWeightsFail()
    {
        QFETCH(bool, truncate);
        const std::string weights = readAll(fixture("pytorch_model.bin"));
        const std::string repo = path("hf_home") + "/hub/models--test-org--tiny-bert-uncased";
        const std::string blob = repo + "/blobs/" + wbtest::sha256Hex(weights);
        QVERIFY(fs::exists(blob));
        if (truncate) {
            fs::remove_all(repo + "/.blob_sizes");
            fs::resize_file(blob, weights.size() / 3);
        } else {
            std::string damaged = weights;
            for (size_t k = 0; k < 64 && k < damaged.size(); ++k)
                damaged[k] = char(~damaged[k]); // the archive's header: the weights no longer read
            fs::remove(blob);
            std::ofstream(blob, std::ios::binary) << damaged;
        }
        const PreparedRun r = prepareRun(m_options, RunPurpose::Validate);
        QVERIFY(!r.ok());
        const Diagnostic *first = nullptr;
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error && !first)
                first = &d;
        QVERIFY(first);
        const std::string said = first->field + ": " + first->message + " | " + first->hint;
        QVERIFY2(said.find("the cached copy of pytorch_model.bin (") != std::string::npos, said.c_str());
        QVERIFY2(said.find(") is damaged (") != std::string::npos, said.c_str());
        QVERIFY2(said.find("bert-workbench-cli models download --refresh test-org/tiny-bert-uncased") != std::string::npos,
                 said.c_str());
        // The fix works: --refresh hashes the cached blobs and fetches the damaged one again.
        StopToken stop;
        HubSettings settings = HubSettings::fromEnvironment();
        settings.refresh = true;
        settings.verify = true; // as `models download --refresh` sets it
        resolvePretrainedModel(m_options.pretrained_model, settings, {}, stop);
        QCOMPARE(readAll(blob), weights);
        QVERIFY(prepareRun(m_options, RunPurpose::Validate).ok());
    }

    // 5. Data prepared for another tokenizer: an error naming both sides.
    void dataOfAnotherTokenizerIsRefused()
    {
        const std::string report = path("prepare_report.json");
        writeFileAtomic(report, "{\"vocab_file\": \"/elsewhere/vocab.txt\", \"vocab_sha256\": \"" + sha256Hex("other vocab")
                                    + "\", \"do_lower_case\": false, \"max_seq_length\": 16}\n");
        const PreparedRun r = prepareRun(m_options, RunPurpose::Validate);
        // An explicit --do_lower_case=false (the data's) wins over the model's casing.
        TrainingOptions cased = m_options;
        cased.do_lower_case = "false";
        int casingErrors = 0;
        const PreparedRun casedRun = prepareRun(cased, RunPurpose::Validate); // (iterating a temporary's member dangles)
        for (const auto &d : casedRun.validation.diagnostics.items())
            casingErrors += d.severity == Severity::Error && d.message.find("prepared cased") != std::string::npos;
        QCOMPARE(casingErrors, 0);
        fs::remove(report);
        QStringList messages;
        for (const auto &d : r.validation.diagnostics.items())
            if (d.severity == Severity::Error && d.field == "pretrained_model")
                messages << QString::fromStdString(d.message);
        QCOMPARE(messages.size(), 2);
        QVERIFY2(messages[0].contains(QStringLiteral("another vocabulary")) && messages[0].contains(QStringLiteral("/elsewhere/vocab.txt")),
                 qPrintable(messages[0]));
        QVERIFY2(messages[1].startsWith(QStringLiteral("the data was prepared cased, but test-org/tiny-bert-uncased is uncased")),
                 qPrintable(messages[1]));
        QVERIFY(prepareRun(m_options, RunPurpose::Validate).ok()); // without the report: nothing to compare
    }
};

QTEST_GUILESS_MAIN(tst_PretrainedStart)
#include "tst_pretrainedstart.moc"
