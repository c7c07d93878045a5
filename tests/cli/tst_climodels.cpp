// SPDX-License-Identifier: Apache-2.0
// bert-workbench-cli models list|info|download, in-process, against the local stand-in for the
// Hub (tests/support/hubtestserver.h) through HF_ENDPOINT and a temporary HF_HOME.
#include "cli/clirun.h"
#include "support/hubfixtures.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace {

const std::string kCommit = "89abcdef0123456789abcdef0123456789abcdef";

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

} // namespace

class tst_CliModels : public QObject
{
    Q_OBJECT

    QTemporaryDir m_home;
    wbtest::HubTestServer m_server;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_home.isValid());
        m_server.addRepo("test-org/tiny-bert", wbtest::tinyRepo(kCommit));
        for (const char *v : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
                              "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH"})
            ::unsetenv(v);
        ::setenv("HF_HOME", m_home.path().toUtf8().constData(), 1);
        ::setenv("HF_ENDPOINT", m_server.endpoint().c_str(), 1);
    }
    void init() { ::unsetenv("HF_HUB_OFFLINE"); ::setenv("HF_ENDPOINT", m_server.endpoint().c_str(), 1); }

    void list()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "list"}, out, err), 0);
        const auto l = lines(out);
        QVERIFY2(l.size() >= 31, out.c_str());
        QVERIFY2(l[0].rfind("NAME", 0) == 0, out.c_str());
        std::string tiny;
        int rows = 0;
        for (const auto &x : l) {
            if (x.find("google/bert_uncased_L-") != std::string::npos || x.find("google-bert/") != std::string::npos)
                ++rows;
            if (x.find("google/bert_uncased_L-2_H-128_A-2") != std::string::npos)
                tiny = x;
        }
        QCOMPARE(rows, 30);
        QVERIFY2(tiny.rfind("BERT-Tiny", 0) == 0, tiny.c_str());
        for (const char *must : {" 2 ", " 128 ", "4.4M", "18 MB", "uncased", "English"})
            QVERIFY2(tiny.find(must) != std::string::npos, (tiny + " lacks " + must).c_str());
        QVERIFY2(out.find("Cache: " + m_home.path().toStdString() + "/hub") != std::string::npos, out.c_str());

        QCOMPARE(wbtest::runCli({"models", "list", "--format=json"}, out, err), 0);
        const nlohmann::json j = nlohmann::json::parse(out);
        QCOMPARE(j.size(), size_t(30));
        QCOMPARE(j[0]["hub_id"].get<std::string>(), std::string("google/bert_uncased_L-2_H-128_A-2"));
        QCOMPARE(j[0]["parameters"].get<int64_t>(), int64_t(4385920));
        QCOMPARE(j[0]["license"].get<std::string>(), std::string("apache-2.0"));
    }

    void downloadThenInfo()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/tiny-bert"}, out, err), 0);
        const std::string snap = m_home.path().toStdString() + "/hub/models--test-org--tiny-bert/snapshots/" + kCommit;
        QVERIFY2(out.find("bert_config_file=" + snap + "/config.json\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("vocab_file=" + snap + "/vocab.txt\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("init_checkpoint=" + snap + "/model.safetensors\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("do_lower_case=false\ndo_lower_case_source=tokenizer_config.json\n") != std::string::npos,
                 out.c_str());
        QVERIFY2(err.find("downloaded ") != std::string::npos, err.c_str());
        QVERIFY2(err.find("model.safetensors (4/4)  done") != std::string::npos, err.c_str()); // plain progress lines

        const size_t before = m_server.requestCount();
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/tiny-bert"}, out, err), 0);
        QCOMPARE(m_server.requestCount(), before); // from the cache, no request
        QVERIFY2(err.find("in the cache already") != std::string::npos, err.c_str());

        QCOMPARE(wbtest::runCli({"models", "info", "test-org/tiny-bert"}, out, err), 0);
        QVERIFY2(out.find("(not in the catalogue)") != std::string::npos, out.c_str());
        QVERIFY2(out.find("cached=yes\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("commit=" + kCommit) != std::string::npos, out.c_str());

        ::setenv("HF_HUB_OFFLINE", "1", 1); // offline: the cache serves it
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/tiny-bert"}, out, err), 0);
        QCOMPARE(m_server.requestCount(), before);

        QCOMPARE(wbtest::runCli({"models", "info", "BERT-Tiny"}, out, err), 0);
        QVERIFY2(out.find("hub_id=google/bert_uncased_L-2_H-128_A-2\nname=BERT-Tiny\nnum_hidden_layers=2\n")
                     != std::string::npos, out.c_str());
        QVERIFY2(out.find("license=apache-2.0") != std::string::npos, out.c_str());
        QVERIFY2(out.find("cached=no") != std::string::npos, out.c_str());
    }

    void jsonlEvents()
    {
        m_server.addRepo("test-org/jsonl", wbtest::tinyRepo(kCommit));
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/jsonl", "--progress_format=jsonl"}, out, err), 0);
        const auto l = lines(out);
        QVERIFY(l.size() >= 2);
        int downloads = 0;
        for (size_t i = 0; i + 1 < l.size(); ++i) {
            const nlohmann::json e = nlohmann::json::parse(l[i]);
            QCOMPARE(e["event"].get<std::string>(), std::string("download"));
            QCOMPARE(e["repo_id"].get<std::string>(), std::string("test-org/jsonl"));
            QVERIFY(e["bytes_total"].get<int64_t>() > 0);
            // Not known yet: null, never 0 or -1 (issue 41).
            QVERIFY2(e["bytes_per_second"].is_null() || e["bytes_per_second"].get<double>() > 0, l[i].c_str());
            QVERIFY2(e["seconds_left"].is_null() || e["seconds_left"].get<double>() >= 0, l[i].c_str());
            ++downloads;
        }
        QVERIFY(downloads >= 4); // at least one per file
        const nlohmann::json last = nlohmann::json::parse(l.back());
        QCOMPARE(last["event"].get<std::string>(), std::string("finished"));
        QCOMPARE(last["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(last["model"]["weights_format"].get<std::string>(), std::string("safetensors"));
        QVERIFY(last["model"]["folder"].get<std::string>().find("models--test-org--jsonl/snapshots/" + kCommit)
                != std::string::npos);

        QCOMPARE(wbtest::runCli({"models", "download", "test-org/nothing", "--progress_format=jsonl"}, out, err), 2);
        const nlohmann::json failed = nlohmann::json::parse(lines(out).back());
        QCOMPARE(failed["status"].get<std::string>(), std::string("failed"));
        QCOMPARE(failed["field"].get<std::string>(), std::string("test-org/nothing"));
    }

    /// Ctrl+C during a transfer: exit 130, a "cancelled" event, and the part is kept for a resume.
    void ctrlCStops()
    {
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 200000);
        repo.files["model.safetensors"].slow_ms = 5; // about 1 s for the whole file
        m_server.addRepo("test-org/slow", repo);
        std::thread interrupter([this] {
            for (int i = 0; i < 1000; ++i) {
                for (const auto &r : m_server.requests())
                    if (r.server == "cdn" && r.path.find("/cdn/") == 0 && r.method == "GET") {
                        std::this_thread::sleep_for(std::chrono::milliseconds(50));
                        ::kill(::getpid(), SIGINT);
                        return;
                    }
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        });
        m_server.clearRequests();
        std::string out, err;
        const int code = wbtest::runCli({"models", "download", "test-org/slow", "--progress_format=jsonl"}, out, err);
        interrupter.join();
        QCOMPARE(code, 130);
        QVERIFY2(err.find("error: test-org/slow: model.safetensors: stopped by the user; the part downloaded so far is "
                          "kept in ") != std::string::npos, err.c_str());
        const nlohmann::json last = nlohmann::json::parse(lines(out).back());
        QCOMPARE(last["status"].get<std::string>(), std::string("cancelled"));
    }

    /// A blob damaged in the cache is never used or re-linked: `models download` (the recorded
    /// size), `--verify` and `--refresh` (the sha256) download it again and say so; offline it
    /// is an error naming the blob and the fix.
    void damagedCacheDownloadedAgain()
    {
        const wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit, 20000);
        m_server.addRepo("test-org/damaged", repo);
        const std::string weights = repo.files.at("model.safetensors").content;
        const std::string sha = wbtest::sha256Hex(weights);
        const std::string repoDir = m_home.path().toStdString() + "/hub/models--test-org--damaged";
        const std::string blob = repoDir + "/blobs/" + sha;
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/damaged"}, out, err), 0);

        std::filesystem::resize_file(blob, 1000);
        const std::string sizeNote = "note: test-org/damaged: model.safetensors: blobs/" + sha
                                     + " is damaged (1000 bytes, expected " + std::to_string(weights.size())
                                     + "): downloading it again\n";
        ::setenv("HF_HUB_OFFLINE", "1", 1);
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/damaged"}, out, err), 1);
        QVERIFY2(err.find("error: test-org/damaged: model.safetensors: the cached copy of model.safetensors (" + blob
                          + ") is damaged (1000 bytes, expected " + std::to_string(weights.size()) + ")")
                     == 0, err.c_str());
        QVERIFY2(err.find("unset HF_HUB_OFFLINE and run 'bert-workbench-cli models download --refresh test-org/damaged'")
                     != std::string::npos, err.c_str());
        ::unsetenv("HF_HUB_OFFLINE");
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/damaged"}, out, err), 0);
        QVERIFY2(err.find(sizeNote) != std::string::npos, err.c_str());
        QVERIFY2(err.find(sizeNote, err.find(sizeNote) + 1) == std::string::npos, err.c_str()); // said once
        QVERIFY2(err.find("in the cache already") == std::string::npos, err.c_str());
        QCOMPARE(readFile(blob), weights);

        for (const char *flag : {"--refresh", "--verify"}) {
            std::string b = readFile(blob);
            b[b.size() / 2] ^= 0x10;
            std::ofstream(blob, std::ios::binary | std::ios::trunc) << b;
            QCOMPARE(wbtest::runCli({"models", "download", "test-org/damaged", flag}, out, err), 0);
            QVERIFY2(err.find("note: test-org/damaged: model.safetensors: blobs/" + sha + " is damaged (its sha256 is "
                              + wbtest::sha256Hex(b) + ", not its name): downloading it again\n")
                         != std::string::npos, (std::string(flag) + ": " + err).c_str());
            QCOMPARE(readFile(blob), weights);
        }
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/damaged", "--refresh", "--progress_format=jsonl"}, out,
                                err), 0);
        QVERIFY2(out.find("\"event\":\"notice\"") == std::string::npos, out.c_str()); // whole: nothing to say
    }

    /// A mirror that serves LFS files from a path on its own host: a damaged file is refused
    /// (exit 1, nothing linked), and the honest file afterwards is downloaded, not taken from
    /// the cache.
    void ownHostStorageVerified()
    {
        wbtest::HubTestRepo repo = wbtest::tinyRepo(kCommit);
        wbtest::HubTestFile &w = repo.files["model.safetensors"];
        w.storage = wbtest::HubTestFile::Storage::SameHostPath;
        w.served_content = w.content;
        w.served_content[w.content.size() - 3] ^= 0x40;
        m_server.addRepo("test-org/mirror", repo);
        const std::string sha = wbtest::sha256Hex(w.content);
        const std::string repoDir = m_home.path().toStdString() + "/hub/models--test-org--mirror";
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/mirror"}, out, err), 1);
        QVERIFY2(err.find("error: test-org/mirror: model.safetensors: the download of model.safetensors is corrupt: its "
                          "sha256 is " + wbtest::sha256Hex(w.served_content) + ", the Hub's X-Linked-Etag is " + sha)
                     != std::string::npos, err.c_str());
        QVERIFY(!std::filesystem::exists(repoDir + "/blobs/" + sha));
        QVERIFY(!std::filesystem::exists(
            std::filesystem::symlink_status(repoDir + "/snapshots/" + kCommit + "/model.safetensors")));
        QVERIFY(!std::filesystem::exists(repoDir + "/refs/main"));

        wbtest::HubTestFile honest = w;
        honest.served_content.clear();
        m_server.setFile("test-org/mirror", "model.safetensors", honest);
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/mirror"}, out, err), 0);
        QVERIFY2(err.find("downloaded ") != std::string::npos, err.c_str());
        QVERIFY2(err.find("in the cache already") == std::string::npos, err.c_str());
        QCOMPARE(readFile(repoDir + "/blobs/" + sha), honest.content);
    }

    /// Exit codes: 2 for what the user fixes, 1 for runtime failures; errors in the CLI's form.
    void errors()
    {
        std::string out, err;
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/nothing"}, out, err), 2);
        QVERIFY2(err.find("error: test-org/nothing: model test-org/nothing does not exist on " + m_server.endpoint())
                     == 0, err.c_str());
        QVERIFY2(err.find("  hint: Check the spelling") != std::string::npos, err.c_str());

        QCOMPARE(wbtest::runCli({"models", "download", "not a model id"}, out, err), 2);
        QVERIFY2(err.find("not a Hugging Face model id") != std::string::npos, err.c_str());

        ::setenv("HF_HUB_OFFLINE", "1", 1);
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/other"}, out, err), 2);
        QVERIFY2(err.find("HF_HUB_OFFLINE=1 forbids downloading it") != std::string::npos, err.c_str());
        ::unsetenv("HF_HUB_OFFLINE");

        ::setenv("HF_ENDPOINT", "http://127.0.0.1:9", 1);
        QCOMPARE(wbtest::runCli({"models", "download", "test-org/other"}, out, err), 1);
        QVERIFY2(err.find("cannot reach 127.0.0.1:9") != std::string::npos, err.c_str());

        QCOMPARE(wbtest::runCli({"models", "frobnicate"}, out, err), 2);
        QVERIFY2(err.find("unknown subcommand 'frobnicate'") != std::string::npos, err.c_str());
        QCOMPARE(wbtest::runCli({"models", "download"}, out, err), 2);
        QCOMPARE(wbtest::runCli({"models", "--help"}, out, err), 0);
        QVERIFY(out.find("models <list|info|download>") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(tst_CliModels)
#include "tst_climodels.moc"
