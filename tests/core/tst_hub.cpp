// SPDX-License-Identifier: Apache-2.0
// The Hub client (core/hub) against a local stand-in for the Hub (tests/support/hubtestserver.h):
// the cache layout both ways, offline mode, resume, checksum, errors in words, the token's
// reach, Cancel; plus ids, settings and the catalogue.
#include "core/hub/catalogue.h"
#include "core/hub/hubcache.h"
#include "core/hub/huberror.h"
#include "core/hub/hubid.h"
#include "core/hub/pretrainedmodel.h"

#include "support/hubfixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";
const std::string kRepo = "test-org/tiny-bert";

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const std::string &path, const std::string &text)
{
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

/// Runs `f`, expecting a HubError of `kind`; returns its full text (field, message, hint).
template <class F>
std::string expectHubError(F f, HubErrorKind kind)
{
    try {
        f();
    } catch (const HubError &e) {
        if (e.kind() != kind)
            return "WRONG KIND " + std::to_string(int(e.kind())) + ": " + e.field() + ": " + e.what();
        return e.field() + ": " + std::string(e.what()) + "\n" + e.hint();
    }
    return "NO ERROR";
}

} // namespace

class tst_Hub : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;
    HubSettings m_settings;

    HubSettings settingsFor(const wbtest::HubTestServer &server)
    {
        HubSettings s = m_settings;
        s.endpoint = server.endpoint();
        return s;
    }

private Q_SLOTS:
    void init()
    {
        m_home.~QTemporaryDir();
        new (&m_home) QTemporaryDir();
        QVERIFY(m_home.isValid());
        m_settings = HubSettings{};
        m_settings.hf_home = m_home.path().toStdString();
        m_settings.cache_dir = m_settings.hf_home + "/hub";
        m_settings.max_attempts = 3;
        m_settings.retry_delay_s = 0.01;
    }

    void hubIds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("repo");
        QTest::addColumn<QString>("revision");
        QTest::addColumn<QString>("folder");
        QTest::newRow("org/name") << "google/bert_uncased_L-2_H-128_A-2" << "google/bert_uncased_L-2_H-128_A-2" << "main"
                                  << "models--google--bert_uncased_L-2_H-128_A-2";
        QTest::newRow("revision") << " google-bert/bert-base-uncased@v1.0 " << "google-bert/bert-base-uncased" << "v1.0"
                                  << "models--google-bert--bert-base-uncased";
        QTest::newRow("pr ref") << "a/b@refs/pr/3" << "a/b" << "refs/pr/3" << "models--a--b";
        QTest::newRow("legacy") << "bert-base-uncased" << "bert-base-uncased" << "main" << "models--bert-base-uncased";
        QTest::newRow("empty") << "" << "" << "" << "";
        QTest::newRow("two slashes") << "a/b/c" << "" << "" << "";
        QTest::newRow("double dash") << "a--b/c" << "" << "" << "";
        QTest::newRow("space inside") << "a/b c" << "" << "" << "";
        QTest::newRow("leading dot") << "a/.b" << "" << "" << "";
        QTest::newRow("empty revision") << "a/b@" << "" << "" << "";
        QTest::newRow("dotdot revision") << "a/b@../x" << "" << "" << "";
    }
    void hubIds()
    {
        QFETCH(QString, text);
        QFETCH(QString, repo);
        QFETCH(QString, revision);
        QFETCH(QString, folder);
        if (repo.isEmpty()) {
            const std::string msg = expectHubError([&] { parseHubId(text.toStdString()); }, HubErrorKind::InvalidId);
            QVERIFY2(msg.find("not a Hugging Face model id") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("org/name[@revision]") != std::string::npos, msg.c_str());
            return;
        }
        const HubId id = parseHubId(text.toStdString());
        QCOMPARE(QString::fromStdString(id.repo_id), repo);
        QCOMPARE(QString::fromStdString(id.revision), revision);
        QCOMPARE(QString::fromStdString(id.cacheFolderName()), folder);
    }

    /// HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub; HF_ENDPOINT; HF_HUB_OFFLINE;
    /// HF_TOKEN, else $HF_HOME/token.
    void settingsFromEnvironment()
    {
        const std::string home = m_home.path().toStdString();
        for (const char *v : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HF_ENDPOINT",
                              "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
                              "HF_TOKEN_PATH"})
            ::unsetenv(v);
        const std::string oldHome = std::getenv("HOME") ? std::getenv("HOME") : "";
        ::setenv("HOME", home.c_str(), 1);
        HubSettings s = HubSettings::fromEnvironment();
        QCOMPARE(s.cache_dir, home + "/.cache/huggingface/hub");
        QCOMPARE(s.endpoint, std::string("https://huggingface.co"));
        QVERIFY(!s.offline);
        QVERIFY(s.token.empty());

        ::setenv("HF_HOME", (home + "/hf").c_str(), 1);
        writeFile(home + "/hf/token", "hf_fromfile\n");
        ::setenv("HF_ENDPOINT", "http://mirror.example:8080/", 1);
        ::setenv("HF_HUB_OFFLINE", "1", 1);
        s = HubSettings::fromEnvironment();
        QCOMPARE(s.cache_dir, home + "/hf/hub");
        QCOMPARE(s.endpoint, std::string("http://mirror.example:8080"));
        QVERIFY(s.offline);
        QCOMPARE(s.token, std::string("hf_fromfile"));
        QCOMPARE(s.token_source, home + "/hf/token");

        ::setenv("HF_HUB_CACHE", (home + "/elsewhere").c_str(), 1);
        ::setenv("HF_TOKEN", "hf_env", 1);
        ::setenv("HF_HUB_OFFLINE", "no", 1);
        s = HubSettings::fromEnvironment();
        QCOMPARE(s.cache_dir, home + "/elsewhere");
        QCOMPARE(s.token, std::string("hf_env"));
        QCOMPARE(s.token_source, std::string("HF_TOKEN"));
        QVERIFY(!s.offline);
        for (const char *v : {"HF_HUB_CACHE", "HF_HOME", "HF_ENDPOINT", "HF_HUB_OFFLINE", "HF_TOKEN"})
            ::unsetenv(v);
        ::setenv("HOME", oldHome.c_str(), 1);
    }

    /// 24 miniatures + 6 full-size models; parameter counts of BertModel (with pooler).
    void catalogue()
    {
        const auto &c = pretrainedCatalogue();
        QCOMPARE(c.size(), size_t(30));
        const CatalogueEntry *tiny = findCatalogueEntry("bert-tiny");
        QVERIFY(tiny);
        QCOMPARE(tiny->hub_id, std::string("google/bert_uncased_L-2_H-128_A-2"));
        QCOMPARE(tiny->parameters, int64_t(4385920)); // 31036·128 + 2·128 + 2·(12·128² + 13·128) + 128² + 128
        QCOMPARE(tiny->approx_bytes, int64_t(4 * 4385920));
        QVERIFY(tiny->do_lower_case);
        QCOMPARE(tiny->licence, std::string("apache-2.0"));
        QCOMPARE(findCatalogueEntry("BERT-Mini")->hub_id, std::string("google/bert_uncased_L-4_H-256_A-4"));
        QCOMPARE(findCatalogueEntry("bert-small")->hub_id, std::string("google/bert_uncased_L-4_H-512_A-8"));
        QCOMPARE(findCatalogueEntry("BERT-Medium")->hub_id, std::string("google/bert_uncased_L-8_H-512_A-8"));
        const CatalogueEntry *base = findCatalogueEntry("bert-base-uncased");
        QVERIFY(base);
        QCOMPARE(base->hub_id, std::string("google-bert/bert-base-uncased"));
        QCOMPARE(base->parameters, int64_t(109482240)); // transformers' BertModel(bert-base-uncased)
        QVERIFY(!findCatalogueEntry("google-bert/bert-base-cased")->do_lower_case);
        QCOMPARE(findCatalogueEntry("google-bert/bert-base-multilingual-cased")->vocab_size, int64_t(119547));
        QCOMPARE(findCatalogueEntry("google/bert_uncased_L-12_H-768_A-12")->heads, int64_t(12));
        QVERIFY(!findCatalogueEntry("google/nothing"));
        QCOMPARE(formatBytes(17543680), std::string("18 MB"));
        QCOMPARE(formatCount(4385920), std::string("4.4M"));
    }

    /// A download lays the cache out as huggingface_hub does: blobs named by etag (sha256 for
    /// LFS, git blob sha1 otherwise), snapshot files as relative links, refs/main = commit.
    void downloadLaysOutTheCache()
    {
        wbtest::HubTestServer server;
        const wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        server.addRepo(kRepo, repo);
        std::vector<DownloadProgress> reports;
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel(
            kRepo, settingsFor(server), [&](const DownloadProgress &p) { reports.push_back(p); }, stop);

        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        const std::string snap = repoDir + "/snapshots/" + kCommit;
        QCOMPARE(m.folder, snap);
        QCOMPARE(m.commit, kCommit);
        QCOMPARE(m.repo_id, kRepo);
        QCOMPARE(m.config_file, snap + "/config.json");
        QCOMPARE(m.vocab_file, snap + "/vocab.txt");
        QCOMPARE(m.tokenizer_config_file, snap + "/tokenizer_config.json");
        QCOMPARE(m.weights_files, std::vector<std::string>{snap + "/model.safetensors"});
        QVERIFY(m.weights_index_file.empty());
        QCOMPARE(m.weights_format, WeightsFormat::Safetensors);
        QCOMPARE(m.do_lower_case, false);
        QCOMPARE(m.do_lower_case_source, std::string("tokenizer_config.json"));
        QVERIFY(!m.from_cache);

        const std::string weights = repo.files.at("model.safetensors").content;
        const std::string config = repo.files.at("config.json").content;
        QCOMPARE(readFile(repoDir + "/refs/main"), kCommit); // no newline, as huggingface_hub writes it
        QCOMPARE(fs::read_symlink(snap + "/model.safetensors").string(), "../../blobs/" + wbtest::sha256Hex(weights));
        QCOMPARE(fs::read_symlink(snap + "/config.json").string(), "../../blobs/" + wbtest::gitBlobSha1(config));
        QCOMPARE(fs::read_symlink(snap + "/vocab.txt").string(),
                 "../../blobs/" + wbtest::gitBlobSha1(repo.files.at("vocab.txt").content));
        QCOMPARE(readFile(repoDir + "/blobs/" + wbtest::sha256Hex(weights)), weights);
        QCOMPARE(readFile(snap + "/config.json"), config);
        QVERIFY(!fs::exists(snap + "/README.md")); // only the needed files
        std::vector<std::string> blobs;
        for (const auto &e : fs::directory_iterator(repoDir + "/blobs"))
            blobs.push_back(e.path().filename().string());
        QCOMPARE(blobs.size(), size_t(4)); // no .incomplete left

        // Progress: the four files, bytes_total = their sizes, ending complete.
        QVERIFY(!reports.empty());
        const int64_t total = int64_t(weights.size() + config.size() + repo.files.at("vocab.txt").content.size()
                                      + repo.files.at("tokenizer_config.json").content.size());
        QCOMPARE(reports.back().bytes_total, total);
        QCOMPARE(reports.back().bytes_done, total);
        QCOMPARE(reports.back().file_count, 4);
        QCOMPARE(reports.back().file, std::string("model.safetensors"));
        QVERIFY(reports.back().file_finished);
        QCOMPARE(m.bytes_downloaded, total);

        // A second call finds the complete snapshot: no request at all.
        server.clearRequests();
        const PretrainedModel again = resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        QCOMPARE(server.requestCount(), size_t(0));
        QVERIFY(again.from_cache);
        QCOMPARE(again.weights_files, m.weights_files);
    }

    /// The token goes to the Hub's host only: the CDN (another port, another origin) gets none.
    void tokenOnlyToTheHub()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.gated_token = "hf_secret";
        server.addRepo(kRepo, repo);
        HubSettings s = settingsFor(server);
        s.token = "hf_secret";
        s.token_source = "HF_TOKEN";
        StopToken stop;
        resolvePretrainedModel(kRepo, s, {}, stop);
        int hub = 0, cdn = 0;
        for (const auto &r : server.requests()) {
            if (r.server == "hub") {
                ++hub;
                QCOMPARE(r.headers.at("authorization"), std::string("Bearer hf_secret"));
            } else {
                ++cdn;
                QVERIFY2(!r.headers.count("authorization"), r.path.c_str());
            }
        }
        QCOMPARE(hub, 1 + 4 + 3); // api/models, 4 HEADs, 3 GETs of small files
        QCOMPARE(cdn, 1);         // the LFS file from the redirect target
    }

    /// A snapshot laid out by huggingface_hub (written here by hand) is used with no request made.
    void huggingfaceHubSnapshotUsedWithoutRequest()
    {
        wbtest::HubTestServer server;
        const std::string repoDir = m_settings.cache_dir + "/models--google--bert_uncased_L-2_H-128_A-2";
        const std::string commit = "30b0a37ccaaa32f332884b96992754e246e48c5f";
        const std::string weights = wbtest::tinySafetensors(16);
        const std::string wsha = wbtest::sha256Hex(weights);
        writeFile(repoDir + "/blobs/" + wsha, weights);
        writeFile(repoDir + "/blobs/" + wbtest::gitBlobSha1(wbtest::tinyConfigJson()), wbtest::tinyConfigJson());
        writeFile(repoDir + "/blobs/" + wbtest::gitBlobSha1(wbtest::tinyVocab()), wbtest::tinyVocab());
        writeFile(repoDir + "/refs/main", commit);
        const std::string snap = repoDir + "/snapshots/" + commit;
        fs::create_directories(snap);
        fs::create_symlink("../../blobs/" + wsha, snap + "/pytorch_model.bin");
        fs::create_symlink("../../blobs/" + wbtest::gitBlobSha1(wbtest::tinyConfigJson()), snap + "/config.json");
        fs::create_symlink("../../blobs/" + wbtest::gitBlobSha1(wbtest::tinyVocab()), snap + "/vocab.txt");

        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel("BERT-Tiny", settingsFor(server), {}, stop);
        QCOMPARE(server.requestCount(), size_t(0));
        QCOMPARE(m.repo_id, std::string("google/bert_uncased_L-2_H-128_A-2"));
        QCOMPARE(m.commit, commit);
        QCOMPARE(m.weights_files, std::vector<std::string>{snap + "/pytorch_model.bin"});
        QCOMPARE(m.weights_format, WeightsFormat::PytorchBin);
        QVERIFY(m.tokenizer_config_file.empty());
        QCOMPARE(m.do_lower_case, true);
        QCOMPARE(m.do_lower_case_source, std::string("catalogue"));
        QVERIFY(m.from_cache);
        const auto cached = findCachedPretrainedModel("google/bert_uncased_L-2_H-128_A-2", m_settings);
        QVERIFY(cached);
        QCOMPARE(cached->folder, snap);
    }

    /// transformers caches "bert-base-uncased" as models--bert-base-uncased; both spellings find it.
    void legacyIdCacheFolder()
    {
        const std::string repoDir = m_settings.cache_dir + "/models--bert-base-uncased";
        const std::string commit = "86b5e0934494bd15c9632b12f734a8a67f723594";
        const std::string snap = repoDir + "/snapshots/" + commit;
        writeFile(repoDir + "/refs/main", commit);
        writeFile(repoDir + "/blobs/c", wbtest::tinyConfigJson());
        writeFile(repoDir + "/blobs/v", wbtest::tinyVocab());
        writeFile(repoDir + "/blobs/w", "weights");
        fs::create_directories(snap);
        fs::create_symlink("../../blobs/c", snap + "/config.json");
        fs::create_symlink("../../blobs/v", snap + "/vocab.txt");
        fs::create_symlink("../../blobs/w", snap + "/model.safetensors");
        for (const char *name : {"bert-base-uncased", "google-bert/bert-base-uncased"}) {
            const auto m = findCachedPretrainedModel(name, m_settings);
            QVERIFY2(m, name);
            QCOMPARE(m->folder, snap);
            QCOMPARE(m->repo_id, std::string("bert-base-uncased"));
        }
    }

    /// Not enough free space for a file is refused before its transfer, naming folder and sizes.
    void diskFull()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.files["model.safetensors"].announced_size = "900000000000000000"; // 900 PB
        server.addRepo(kRepo, repo);
        StopToken stop;
        std::string msg;
        bool user = true;
        try {
            resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        } catch (const HubError &e) {
            QCOMPARE(e.kind(), HubErrorKind::DiskFull);
            user = e.isUserError();
            msg = e.field() + ": " + e.what() + "\n" + e.hint();
        }
        QVERIFY(!user);
        QVERIFY2(msg.find(m_settings.cache_dir + "/models--test-org--tiny-bert/blobs: not enough disk space for "
                          "model.safetensors of test-org/tiny-bert: it needs 900000000000000000 bytes") == 0, msg.c_str());
        QVERIFY2(msg.find("HF_HUB_CACHE") != std::string::npos, msg.c_str());
        for (const auto &r : server.requests())
            QVERIFY2(r.server != "cdn", r.path.c_str()); // nothing was transferred
    }

    /// HF_HUB_OFFLINE: the cache only; a missing model is a clear error naming what to copy where.
    void offline()
    {
        StopToken stop;
        {
            wbtest::HubTestServer server;
            server.addRepo(kRepo, wbtest::tinyRepo(kCommit));
            resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        } // the server is gone: any request would fail
        HubSettings s = m_settings;
        s.endpoint = "http://127.0.0.1:9"; // nothing listens there
        s.offline = true;
        const PretrainedModel m = resolvePretrainedModel(kRepo, s, {}, stop);
        QCOMPARE(m.commit, kCommit);
        QVERIFY(m.from_cache);
        const std::string msg =
            expectHubError([&] { resolvePretrainedModel("test-org/other", s, {}, stop); }, HubErrorKind::NotCached);
        QVERIFY2(msg.find("HF_HUB_OFFLINE=1") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("models--test-org--other") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(m_settings.cache_dir) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("models download test-org/other") != std::string::npos, msg.c_str());
        QVERIFY(!findCachedPretrainedModel("test-org/other", s));
    }

    /// A connection cut mid-body is retried with a Range request; the result is whole.
    void cutDownloadResumes()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 50000);
        repo.files["model.safetensors"].cut_once = true;
        server.addRepo(kRepo, repo);
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        const std::string weights = repo.files["model.safetensors"].content;
        QCOMPARE(wbtest::sha256Hex(readFile(m.weights_files.at(0))), wbtest::sha256Hex(weights));
        std::vector<std::string> ranges;
        for (const auto &r : server.requests())
            if (r.server == "cdn" && r.headers.count("range"))
                ranges.push_back(r.headers.at("range"));
        QCOMPARE(ranges.size(), size_t(1));
        const int64_t from = std::stoll(ranges[0].substr(6));
        QVERIFY2(from > 0 && from < int64_t(weights.size()), ranges[0].c_str());
        QCOMPARE(ranges[0], "bytes=" + std::to_string(from) + "-");
    }

    /// A .incomplete left by an earlier process is resumed from its size.
    void incompleteFileResumed()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 20000);
        server.addRepo(kRepo, repo);
        const std::string weights = repo.files["model.safetensors"].content;
        const std::string blob = m_settings.cache_dir + "/models--test-org--tiny-bert/blobs/" + wbtest::sha256Hex(weights);
        writeFile(blob + ".incomplete", weights.substr(0, 30000));
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        QCOMPARE(readFile(m.weights_files.at(0)), weights);
        QVERIFY(!fs::exists(blob + ".incomplete"));
        bool sawRange = false;
        for (const auto &r : server.requests())
            if (r.server == "cdn")
                sawRange = r.headers.count("range") && r.headers.at("range") == "bytes=30000-";
        QVERIFY(sawRange);
        QCOMPARE(m.bytes_downloaded, int64_t(weights.size() - 30000 + repo.files["config.json"].content.size()
                                             + repo.files["vocab.txt"].content.size()
                                             + repo.files["tokenizer_config.json"].content.size()));
    }

    /// A file whose sha256 is not the X-Linked-Etag is refused; nothing of it stays in the cache.
    void wrongChecksumRefused()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        const std::string announced(64, 'a');
        repo.files["model.safetensors"].wrong_linked_etag = announced;
        server.addRepo(kRepo, repo);
        StopToken stop;
        const std::string msg =
            expectHubError([&] { resolvePretrainedModel(kRepo, settingsFor(server), {}, stop); }, HubErrorKind::Checksum);
        QVERIFY2(msg.find("test-org/tiny-bert: model.safetensors") == 0, msg.c_str());
        QVERIFY2(msg.find("corrupt") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(wbtest::sha256Hex(repo.files["model.safetensors"].content)) != std::string::npos, msg.c_str());
        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        QVERIFY(!fs::exists(fs::symlink_status(repoDir + "/snapshots/" + kCommit + "/model.safetensors")));
        QVERIFY(!fs::exists(repoDir + "/blobs/" + announced));
        QVERIFY(!fs::exists(repoDir + "/blobs/" + announced + ".incomplete"));
        QVERIFY(!fs::exists(repoDir + "/refs/main"));
        QVERIFY(!findCachedPretrainedModel(kRepo, m_settings));
    }

    /// Wherever the Hub's 302 sends an LFS download (another port, a path on its own origin,
    /// absolute or relative, the same port under another host name), the X-Linked-Etag and
    /// X-Linked-Size of the first answer are what the bytes are checked against: corrupted,
    /// truncated and always-cut files are refused and leave no blob and no link; an honest
    /// server afterwards is downloaded from, not answered from the cache. The token reaches
    /// the Hub's origin only.
    void storageVerifiedWhereverServed_data()
    {
        QTest::addColumn<int>("storage");
        QTest::addColumn<QString>("faultName");
        using St = wbtest::HubTestFile::Storage;
        const std::pair<St, const char *> storages[] = {{St::Cdn, "other port"},
                                                         {St::SameHostPath, "own host, absolute"},
                                                         {St::SameHostRelative, "own host, relative"},
                                                         {St::OtherHostName, "other host name"}};
        for (const auto &[st, name] : storages)
            for (const char *fault : {"none", "corrupted", "truncated", "cut"})
                QTest::newRow((std::string(name) + ", " + fault).c_str()) << int(st) << QString::fromLatin1(fault);
    }
    void storageVerifiedWhereverServed()
    {
        QFETCH(int, storage);
        QFETCH(QString, faultName);
        const std::string fault = faultName.toStdString();
        using St = wbtest::HubTestFile::Storage;
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 20000);
        wbtest::HubTestFile &w = repo.files["model.safetensors"];
        w.storage = St(storage);
        const std::string weights = w.content;
        const std::string sha = wbtest::sha256Hex(weights);
        std::string served;
        if (fault == "corrupted") {
            served = weights;
            served[served.size() / 2] ^= 0x01;
            w.served_content = served;
        } else if (fault == "truncated") {
            served = weights.substr(0, weights.size() - 1000);
            w.served_content = served;
        } else if (fault == "cut") {
            w.cut_always = true;
        }
        server.addRepo(kRepo, repo);
        HubSettings s = settingsFor(server);
        s.token = "hf_secret";
        s.token_source = "HF_TOKEN";
        StopToken stop;
        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        const std::string link = repoDir + "/snapshots/" + kCommit + "/model.safetensors";
        if (fault == "none") {
            const PretrainedModel m = resolvePretrainedModel(kRepo, s, {}, stop);
            QCOMPARE(fs::read_symlink(link).string(), "../../blobs/" + sha);
            QCOMPARE(wbtest::sha256Hex(readFile(m.weights_files.at(0))), sha);
            int storageRequests = 0;
            for (const auto &r : server.requests()) {
                const bool atStorage = r.server == "cdn" || r.path.rfind("/lfs-storage/", 0) == 0;
                storageRequests += atStorage;
                const bool otherOrigin = r.server == "cdn" || r.headers.at("host").rfind("localhost:", 0) == 0;
                QVERIFY2(r.headers.count("authorization") == (otherOrigin ? 0u : 1u), r.path.c_str());
            }
            QCOMPARE(storageRequests, 1);
            return;
        }
        const HubErrorKind kind = fault == "cut" ? HubErrorKind::Network : HubErrorKind::Checksum;
        const std::string msg = expectHubError([&] { resolvePretrainedModel(kRepo, s, {}, stop); }, kind);
        QVERIFY2(msg.find("test-org/tiny-bert: model.safetensors: ") == 0, msg.c_str());
        if (fault == "corrupted")
            QVERIFY2(msg.find("is corrupt: its sha256 is " + wbtest::sha256Hex(served) + ", the Hub's X-Linked-Etag is "
                              + sha + "; the file was deleted") != std::string::npos, msg.c_str());
        if (fault == "truncated")
            QVERIFY2(msg.find("has " + std::to_string(served.size()) + " bytes, the Hub said "
                              + std::to_string(weights.size())) != std::string::npos, msg.c_str());
        // No blob under any name but the checked small files', no link, no ref.
        QVERIFY(!fs::exists(fs::symlink_status(link)));
        QVERIFY(!fs::exists(repoDir + "/refs/main"));
        for (const auto &e : fs::directory_iterator(repoDir + "/blobs")) {
            const std::string name = e.path().filename().string();
            QVERIFY2(name.size() == 40 || (fault == "cut" && name == sha + ".incomplete"), name.c_str());
        }
        QVERIFY(!findCachedPretrainedModel(kRepo, s));

        // The honest server afterwards: downloaded (or resumed), not "in the cache already".
        wbtest::HubTestFile honest = repo.files["model.safetensors"];
        honest.served_content.clear();
        honest.cut_always = false;
        server.setFile(kRepo, "model.safetensors", honest);
        const PretrainedModel m = resolvePretrainedModel(kRepo, s, {}, stop);
        QVERIFY(!m.from_cache);
        QVERIFY(m.bytes_downloaded > 0);
        QCOMPARE(wbtest::sha256Hex(readFile(m.weights_files.at(0))), sha);
        QCOMPARE(fs::read_symlink(link).string(), "../../blobs/" + sha);
    }

    /// A renamed repo (307, relative Location to the new name) is followed, and the digest of
    /// the answer behind it is still checked, also for storage on the Hub's own host.
    void renamedRepoKeepsTheDigest()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.files["model.safetensors"].storage = wbtest::HubTestFile::Storage::SameHostRelative;
        server.addRepo(kRepo, repo);
        server.renameRepo("old-org/tiny-bert", kRepo);
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel("old-org/tiny-bert", settingsFor(server), {}, stop);
        const std::string sha = wbtest::sha256Hex(repo.files["model.safetensors"].content);
        QCOMPARE(fs::read_symlink(m.weights_files.at(0)).string(), "../../blobs/" + sha);
        QCOMPARE(readFile(m.weights_files.at(0)), repo.files["model.safetensors"].content);
        bool renamed = false;
        for (const auto &r : server.requests())
            renamed = renamed || r.path.rfind("/old-org/tiny-bert/resolve/", 0) == 0;
        QVERIFY(renamed);

        wbtest::HubTestFile bad = repo.files["model.safetensors"];
        bad.served_content = bad.content;
        bad.served_content[100] ^= 0x20;
        server.setFile(kRepo, "model.safetensors", bad);
        server.renameRepo("old-org/other", kRepo);
        const std::string msg = expectHubError(
            [&] { resolvePretrainedModel("old-org/other", settingsFor(server), {}, stop); }, HubErrorKind::Checksum);
        QVERIFY2(msg.find("is corrupt: its sha256 is " + wbtest::sha256Hex(bad.served_content)) != std::string::npos,
                 msg.c_str());
        QVERIFY(!fs::exists(m_settings.cache_dir + "/models--old-org--other/blobs/" + sha));
    }

    /// A file that is not LFS is checked against its git blob id (the Hub's ETag): damaged
    /// bytes are refused and never stored under that name.
    void gitBlobIdChecked()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        const std::string vocab = repo.files["vocab.txt"].content;
        std::string damaged = vocab;
        damaged[3] = 'X';
        repo.files["vocab.txt"].served_content = damaged;
        server.addRepo(kRepo, repo);
        StopToken stop;
        const std::string msg =
            expectHubError([&] { resolvePretrainedModel(kRepo, settingsFor(server), {}, stop); }, HubErrorKind::Checksum);
        QVERIFY2(msg.find("test-org/tiny-bert: vocab.txt: the download of vocab.txt is corrupt: its git blob sha1 is "
                          + wbtest::gitBlobSha1(damaged) + ", the Hub's ETag is " + wbtest::gitBlobSha1(vocab))
                     == 0, msg.c_str());
        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        QVERIFY(!fs::exists(repoDir + "/blobs/" + wbtest::gitBlobSha1(vocab)));
        QVERIFY(!fs::exists(fs::symlink_status(repoDir + "/snapshots/" + kCommit + "/vocab.txt")));
    }

    /// A blob damaged in the cache (truncated, or a flipped byte) is checked before it is used:
    /// the size always (recorded at download, or the Hub's), the digest when asked (verify,
    /// refresh) and before it is linked anew; a damaged one is downloaded again, saying so.
    /// Cache-only lookups and offline use name the blob and the fix.
    void damagedCacheBlob()
    {
        wbtest::HubTestServer server;
        const wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 20000);
        server.addRepo(kRepo, repo);
        StopToken stop;
        const std::string weights = repo.files.at("model.safetensors").content;
        const std::string sha = wbtest::sha256Hex(weights);
        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        const std::string blob = repoDir + "/blobs/" + sha;
        const std::string link = repoDir + "/snapshots/" + kCommit + "/model.safetensors";
        resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        const auto truncateBlob = [&] { fs::resize_file(blob, weights.size() - 4096); };
        const auto flipByte = [&] {
            std::string b = readFile(blob);
            b[b.size() / 3] ^= 0x04;
            std::ofstream(blob, std::ios::binary | std::ios::trunc) << b;
        };
        const std::string sizeDamage = "blobs/" + sha + " is damaged (" + std::to_string(weights.size() - 4096)
                                       + " bytes, expected " + std::to_string(weights.size()) + ")";

        // 1. Truncated: a cache-only lookup (what a run's preparation does) says so and how to fix it.
        truncateBlob();
        std::string msg = expectHubError([&] { findCachedPretrainedModel(kRepo, settingsFor(server)); },
                                         HubErrorKind::Checksum);
        QVERIFY2(msg.find("test-org/tiny-bert: model.safetensors: the cached copy of model.safetensors (" + blob
                          + ") is damaged (" + std::to_string(weights.size() - 4096) + " bytes, expected "
                          + std::to_string(weights.size()) + ")") == 0, msg.c_str());
        QVERIFY2(msg.find("bert-workbench-cli models download --refresh test-org/tiny-bert") != std::string::npos,
                 msg.c_str());
        // Offline: the same, with what to do without the network.
        HubSettings offline = settingsFor(server);
        offline.offline = true;
        msg = expectHubError([&] { resolvePretrainedModel(kRepo, offline, {}, stop); }, HubErrorKind::Checksum);
        QVERIFY2(msg.find("the cached copy of model.safetensors") != std::string::npos, msg.c_str());
        QVERIFY2(msg.find("unset HF_HUB_OFFLINE and run 'bert-workbench-cli models download --refresh test-org/tiny-bert'")
                     != std::string::npos, msg.c_str());
        // Online: downloaded again, with a notice.
        std::vector<std::string> notices;
        const auto collect = [&](const DownloadProgress &p) {
            if (!p.notice.empty())
                notices.push_back(p.notice);
        };
        PretrainedModel m = resolvePretrainedModel(kRepo, settingsFor(server), collect, stop);
        QCOMPARE(notices.size(), size_t(1));
        QCOMPARE(notices[0], "test-org/tiny-bert: model.safetensors: " + sizeDamage + ": downloading it again");
        QCOMPARE(m.notes, notices);
        QVERIFY(!m.from_cache);
        QCOMPARE(readFile(blob), weights);

        // 2. A flipped byte keeps the size: found when the digest is asked for (verify, refresh).
        flipByte();
        QVERIFY(resolvePretrainedModel(kRepo, settingsFor(server), {}, stop).from_cache); // the size only
        for (const char *how : {"verify", "refresh"}) {
            notices.clear();
            HubSettings s = settingsFor(server);
            s.verify = true;
            s.refresh = std::string(how) == "refresh";
            if (!s.refresh) {
                msg = expectHubError([&] { findCachedPretrainedModel(kRepo, s); }, HubErrorKind::Checksum);
                QVERIFY2(msg.find("is damaged (its sha256 is ") != std::string::npos, msg.c_str());
            }
            m = resolvePretrainedModel(kRepo, s, collect, stop);
            QCOMPARE(notices.size(), size_t(1));
            QVERIFY2(notices[0].find("blobs/" + sha + " is damaged (its sha256 is ") != std::string::npos,
                     notices[0].c_str());
            QVERIFY2(notices[0].find(", not its name): downloading it again") != std::string::npos, notices[0].c_str());
            QCOMPARE(readFile(blob), weights);
            flipByte();
        }

        // 3. A blob that is linked anew is hashed first: never re-linked damaged.
        fs::remove(link);
        notices.clear();
        m = resolvePretrainedModel(kRepo, settingsFor(server), collect, stop);
        QCOMPARE(notices.size(), size_t(1));
        QCOMPARE(readFile(m.weights_files.at(0)), weights);

        // 4. A cache written by huggingface_hub (no recorded size), truncated: the refresh
        //    compares the Hub's X-Linked-Size.
        fs::remove_all(repoDir + "/.blob_sizes");
        truncateBlob();
        QVERIFY(findCachedPretrainedModel(kRepo, settingsFor(server))); // nothing recorded to compare
        HubSettings refresh = settingsFor(server);
        refresh.refresh = true;
        notices.clear();
        m = resolvePretrainedModel(kRepo, refresh, collect, stop);
        QCOMPARE(notices.size(), size_t(1));
        QCOMPARE(notices[0], "test-org/tiny-bert: model.safetensors: " + sizeDamage + ": downloading it again");
        QCOMPARE(readFile(blob), weights);
        QCOMPARE(readFile(repoDir + "/.blob_sizes/" + sha), std::to_string(weights.size()));
    }

    /// Errors in words: each names the model, the file and the fix; user errors vs runtime.
    void errors_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("userError");
        QTest::addColumn<QString>("must1");
        QTest::addColumn<QString>("must2");
        QTest::newRow("gated, no token") << "test-org/gated" << int(HubErrorKind::Gated) << true
                                         << "/test-org/gated, log in and accept the model's licence" << "HF_TOKEN=<token>";
        QTest::newRow("gated, wrong token") << "test-org/gated@wrongtoken" << int(HubErrorKind::Gated) << true
                                            << "gives no access to model test-org/gated" << "/settings/tokens";
        QTest::newRow("no such repo") << "test-org/nothing" << int(HubErrorKind::RepoNotFound) << true
                                      << "model test-org/nothing does not exist on" << "models list";
        QTest::newRow("no such revision") << "test-org/tiny-bert@v9" << int(HubErrorKind::RevisionNotFound) << true
                                          << "has no revision 'v9'" << "leave out '@v9'";
        QTest::newRow("no such file") << "test-org/novocab" << int(HubErrorKind::NoBertWeights) << true
                                      << "test-org/novocab: vocab.txt" << "has no vocab.txt";
        QTest::newRow("tf only") << "test-org/tf-only" << int(HubErrorKind::NoBertWeights) << true
                                 << "its weights are only flax_model.msgpack, tf_model.h5" << "from_tf=True";
        QTest::newRow("not bert") << "test-org/gpt" << int(HubErrorKind::NoBertWeights) << true
                                  << "this is a 'gpt2' model" << "Choose a BERT model";
        QTest::newRow("no network") << "test-org/tiny-bert@nonet" << int(HubErrorKind::Network) << false
                                    << "cannot reach 127.0.0.1:9" << "HF_HUB_OFFLINE=1";
    }
    void errors()
    {
        QFETCH(QString, id);
        QFETCH(int, kind);
        QFETCH(bool, userError);
        QFETCH(QString, must1);
        QFETCH(QString, must2);
        wbtest::HubTestServer server;
        server.addRepo(kRepo, wbtest::tinyRepo(kCommit));
        wbtest::HubTestRepo gated = wbtest::tinyRepo(kCommit);
        gated.gated_token = "hf_right";
        server.addRepo("test-org/gated", gated);
        wbtest::HubTestRepo novocab = wbtest::tinyRepo(kCommit);
        novocab.files.erase("vocab.txt");
        server.addRepo("test-org/novocab", novocab);
        wbtest::HubTestRepo tf = wbtest::tinyRepo(kCommit);
        tf.files.erase("model.safetensors");
        tf.files["tf_model.h5"].content = "h5";
        tf.files["flax_model.msgpack"].content = "msgpack";
        server.addRepo("test-org/tf-only", tf);
        wbtest::HubTestRepo gpt = wbtest::tinyRepo(kCommit);
        gpt.files["config.json"].content = wbtest::tinyConfigJson("gpt2");
        server.addRepo("test-org/gpt", gpt);

        HubSettings s = settingsFor(server);
        std::string text = id.toStdString();
        if (text.find("@wrongtoken") != std::string::npos) {
            text = "test-org/gated";
            s.token = "hf_wrong";
            s.token_source = "HF_TOKEN";
        }
        if (text.find("@nonet") != std::string::npos) {
            text = kRepo;
            s.endpoint = "http://127.0.0.1:9";
        }
        StopToken stop;
        std::string msg;
        bool isUser = !userError;
        try {
            resolvePretrainedModel(text, s, {}, stop);
            msg = "NO ERROR";
        } catch (const HubError &e) {
            msg = e.field() + ": " + std::string(e.what()) + "\n" + e.hint();
            QVERIFY2(int(e.kind()) == kind, msg.c_str());
            isUser = e.isUserError();
        }
        QVERIFY2(msg.find(must1.toStdString()) != std::string::npos, msg.c_str());
        QVERIFY2(msg.find(must2.toStdString()) != std::string::npos, msg.c_str());
        QCOMPARE(isUser, userError);
        if (kind != int(HubErrorKind::Network))
            QVERIFY2(msg.find("test-org/") != std::string::npos, msg.c_str()); // names the model
    }

    /// 404 EntryNotFound for a file the API listed: the message names model, file and where to
    /// look. A repo without tokenizer_config.json is fine (recorded in .no_exist, as huggingface_hub does).
    void entryNotFound()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo vanished = wbtest::tinyRepo(kCommit);
        vanished.files["model.safetensors"].missing_on_resolve = true;
        server.addRepo("test-org/vanished", vanished);
        StopToken stop;
        const std::string msg = expectHubError(
            [&] { resolvePretrainedModel("test-org/vanished", settingsFor(server), {}, stop); }, HubErrorKind::EntryNotFound);
        QVERIFY2(msg.find("test-org/vanished: model.safetensors: model test-org/vanished has no file 'model.safetensors' "
                          "at revision main (HTTP 404)") == 0, msg.c_str());
        QVERIFY2(msg.find(server.endpoint() + "/test-org/vanished/tree/main") != std::string::npos, msg.c_str());

        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.files.erase("tokenizer_config.json");
        server.addRepo("test-org/notok", repo);
        const PretrainedModel m = resolvePretrainedModel("test-org/notok", settingsFor(server), {}, stop);
        QVERIFY(m.tokenizer_config_file.empty());
        QCOMPARE(m.do_lower_case_source, std::string("default"));
        QVERIFY(fs::exists(m_settings.cache_dir + "/models--test-org--notok/.no_exist/" + kCommit + "/tokenizer_config.json"));
    }

    /// A 503 is retried after a back-off.
    void transientStatusRetried()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.files["config.json"].fail_once_status = 503;
        server.addRepo(kRepo, repo);
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        QCOMPARE(readFile(m.config_file), repo.files["config.json"].content);
    }

    /// Cancel during the weights: Stopped; the snapshot holds no half file (the part stays as
    /// blobs/<sha256>.incomplete for a resume), no ref is written.
    void cancelLeavesNoHalfFile()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 200000);
        repo.files["model.safetensors"].slow_ms = 5;
        server.addRepo(kRepo, repo);
        StopToken stop;
        int64_t seen = 0;
        const int64_t weightsSize = int64_t(repo.files["model.safetensors"].content.size());
        const auto progress = [&](const DownloadProgress &p) {
            // Stop once some bytes of the weights (not only the small files before them) arrived.
            if (p.file == "model.safetensors" && p.bytes_done > p.bytes_total - weightsSize && !p.file_finished) {
                seen = p.bytes_done;
                stop.requestStop();
            }
        };
        const std::string msg =
            expectHubError([&] { resolvePretrainedModel(kRepo, settingsFor(server), progress, stop); }, HubErrorKind::Stopped);
        QVERIFY2(msg.find("stopped by the user") != std::string::npos, msg.c_str());
        QVERIFY(seen > 0);
        const std::string repoDir = m_settings.cache_dir + "/models--test-org--tiny-bert";
        const std::string sha = wbtest::sha256Hex(repo.files["model.safetensors"].content);
        QVERIFY(!fs::exists(fs::symlink_status(repoDir + "/snapshots/" + kCommit + "/model.safetensors")));
        QVERIFY(!fs::exists(repoDir + "/blobs/" + sha));
        QVERIFY(fs::exists(repoDir + "/blobs/" + sha + ".incomplete"));
        QVERIFY(fs::file_size(repoDir + "/blobs/" + sha + ".incomplete") < repo.files["model.safetensors"].content.size());
        QVERIFY(!fs::exists(repoDir + "/refs/main"));
        QVERIFY(fs::exists(repoDir + "/snapshots/" + kCommit + "/config.json")); // complete files stay
        QVERIFY(!findCachedPretrainedModel(kRepo, m_settings));

        // The next call resumes the part.
        server.clearRequests();
        stop.reset();
        const PretrainedModel m = resolvePretrainedModel(kRepo, settingsFor(server), {}, stop);
        QCOMPARE(readFile(m.weights_files.at(0)), repo.files["model.safetensors"].content);
        bool ranged = false;
        for (const auto &r : server.requests())
            ranged = ranged || (r.server == "cdn" && r.headers.count("range"));
        QVERIFY(ranged);
    }

    /// model.safetensors.index.json + shards: every shard is fetched; paths in index order (sorted).
    void shardedWeights()
    {
        wbtest::HubTestServer server;
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        repo.files.erase("model.safetensors");
        repo.files["pytorch_model.bin"].content = "not fetched";
        repo.files["model.safetensors.index.json"].content =
            "{\"metadata\":{\"total_size\":64},\"weight_map\":{\"a\":\"model-00002-of-00002.safetensors\","
            "\"b\":\"model-00001-of-00002.safetensors\",\"c\":\"model-00001-of-00002.safetensors\"}}";
        for (const char *f : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
            repo.files[f].content = wbtest::tinySafetensors(8);
            repo.files[f].lfs = true;
        }
        server.addRepo(kRepo, repo);
        StopToken stop;
        int lastCount = 0;
        const PretrainedModel m =
            resolvePretrainedModel(kRepo, settingsFor(server), [&](const DownloadProgress &p) { lastCount = p.file_count; }, stop);
        const std::string snap = m.folder;
        QCOMPARE(m.weights_index_file, snap + "/model.safetensors.index.json");
        QCOMPARE(m.weights_files, (std::vector<std::string>{snap + "/model-00001-of-00002.safetensors",
                                                            snap + "/model-00002-of-00002.safetensors"}));
        QVERIFY(!fs::exists(snap + "/pytorch_model.bin"));
        QCOMPARE(lastCount, 6);
        QCOMPARE(readFile(m.weights_files[1]), wbtest::tinySafetensors(8));
        // A hostile index naming a path outside the repo is refused.
        wbtest::HubTestRepo bad = repo;
        bad.commit = "1111111111111111111111111111111111111111";
        bad.files["model.safetensors.index.json"].content = "{\"weight_map\":{\"a\":\"../../../../etc/passwd\"}}";
        server.addRepo("test-org/bad-index", bad);
        const std::string msg = expectHubError(
            [&] { resolvePretrainedModel("test-org/bad-index", settingsFor(server), {}, stop); }, HubErrorKind::NoBertWeights);
        QVERIFY2(msg.find("is not a plain file name beside the index") != std::string::npos, msg.c_str());
    }

    /// A local folder is used as it is; one without a vocab is a clear error.
    void localFolder()
    {
        const std::string dir = m_home.path().toStdString() + "/my-model";
        writeFile(dir + "/config.json", wbtest::tinyConfigJson());
        writeFile(dir + "/vocab.txt", wbtest::tinyVocab());
        writeFile(dir + "/pytorch_model.bin", "weights");
        StopToken stop;
        const PretrainedModel m = resolvePretrainedModel(dir, m_settings, {}, stop);
        QCOMPARE(m.folder, dir);
        QVERIFY(m.repo_id.empty());
        QCOMPARE(m.weights_files, std::vector<std::string>{dir + "/pytorch_model.bin"});
        QCOMPARE(m.do_lower_case_source, std::string("default"));
        fs::remove(dir + "/vocab.txt");
        const std::string msg =
            expectHubError([&] { resolvePretrainedModel(dir, m_settings, {}, stop); }, HubErrorKind::LocalFolder);
        QVERIFY2(msg.find("lacks vocab.txt (it has: config.json, pytorch_model.bin)") != std::string::npos, msg.c_str());
        const std::string missing = expectHubError(
            [&] { resolvePretrainedModel("./no/such/folder", m_settings, {}, stop); }, HubErrorKind::LocalFolder);
        QVERIFY2(missing.find("no such model folder") != std::string::npos, missing.c_str());
    }

    /// A mistyped local folder without "./" reads as a Hub id; the Hub's answer (here: no
    /// network) then also says what the text would have been as a folder.
    void mistypedFolderIsExplained()
    {
        m_settings.endpoint = "http://127.0.0.1:9";
        StopToken stop;
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(m_home.path()));
        QVERIFY(QDir().mkpath(QStringLiteral("models/bert-tiny")));
        QVERIFY(QDir().mkpath(QStringLiteral("models/bert-mini")));
        const std::string sibling = expectHubError(
            [&] { resolvePretrainedModel("models/bert-tinny", m_settings, {}, stop); }, HubErrorKind::Network);
        const std::string none = expectHubError(
            [&] { resolvePretrainedModel("modles/bert-tiny", m_settings, {}, stop); }, HubErrorKind::Network);
        QVERIFY(QDir::setCurrent(cwd));
        QVERIFY2(sibling.find("There is a local folder 'models', but it holds no 'bert-tinny' (it has: bert-mini, "
                              "bert-tiny)") != std::string::npos,
                 sibling.c_str());
        QVERIFY2(none.find("No local folder 'modles/bert-tiny' exists either") != std::string::npos, none.c_str());
        QVERIFY2(none.find("./modles/bert-tiny") != std::string::npos, none.c_str());
    }
};

QTEST_APPLESS_MAIN(tst_Hub)
#include "tst_hub.moc"
