// SPDX-License-Identifier: Apache-2.0
// The web demo's runtime files (issue 26, `export --demo`): onnxruntime-web's ort.wasm.min.js,
// ort-wasm-simd-threaded.wasm and ort-wasm-simd-threaded.mjs come from the pinned release's
// tarball, fetched from the npm registry (a loopback stand-in serving the real tarball, as
// `npm pack` gets it), checked against the pinned sha512 integrity, cached (a second export
// needs no network, offline mode included), or from a local folder (--onnxruntime_web_dir).
// A cut transfer, a changed byte, a wrong announced integrity, no network, offline without a
// cached copy and a missing file are refused with the URL or file and the fix, and leave
// nothing in the cache.
#include "core/hub/npmpackage.h"
#include "core/formats/onnxruntimeweb.h"
#include "core/util/error.h"
#include "support/npmregistryserver.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

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

/// Every file below `dir`, relative, sorted ("" entries for none).
std::vector<std::string> filesBelow(const std::string &dir)
{
    std::vector<std::string> names;
    if (!fs::exists(dir))
        return names;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
}

/// A port nothing listens on (bound, then closed).
int closedPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
    const int port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

std::string errorText(const Error &e) { return e.field() + ": " + e.what() + " / " + e.hint(); }

} // namespace

class tst_OnnxRuntimeWeb : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string m_tarball; ///< the pinned release as npm packs it
    std::string m_reference; ///< its three dist/ files, unpacked by tar
    QString m_skip;

    std::string root() const { return m_tmp.path().toStdString(); }

    NpmSettings settings(const std::string &registry, const std::string &cache) const
    {
        NpmSettings s;
        s.registry = registry;
        s.cache_dir = root() + "/" + cache;
        s.connect_timeout_s = 5;
        s.stall_timeout_s = 5;
        return s;
    }

    QString fetchError(const NpmSettings &s)
    {
        try {
            obtainOnnxRuntimeWeb("", s);
        } catch (const Error &e) {
            return QString::fromStdString(errorText(e));
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const NpmPackagePin pin = onnxRuntimeWebPin();
        QCOMPARE(pin.name, std::string("onnxruntime-web"));
        const QString npm = QStandardPaths::findExecutable(QStringLiteral("npm"));
        if (npm.isEmpty()) {
            m_skip = QStringLiteral("npm is not installed (scripts/install-deps.sh installs it)");
            return;
        }
        // npm pack takes the tarball from npm's cache when the ONNX tests installed it already.
        QProcess p;
        p.setWorkingDirectory(m_tmp.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(npm, {QStringLiteral("pack"), QStringLiteral("--prefer-offline"), QStringLiteral("--silent"),
                      QString::fromStdString(pin.name + "@" + pin.version)});
        const std::string packed = root() + "/" + pin.name + "-" + pin.version + ".tgz";
        if (!p.waitForFinished(300000) || p.exitCode() != 0 || !fs::exists(packed)) {
            m_skip = QStringLiteral("npm could not pack %1 (no network?): %2")
                         .arg(QString::fromStdString(pin.version), QString::fromUtf8(p.readAll()).right(300));
            return;
        }
        m_tarball = readAll(packed);
        // The pin is the registry's: npm computes the same integrity of the same bytes.
        QCOMPARE(npmIntegrityOfFile(packed), pin.integrity);
        m_reference = root() + "/reference";
        fs::create_directories(m_reference);
        QStringList members;
        for (const auto &f : onnxRuntimeWebFiles())
            members << QString::fromStdString("package/dist/" + f);
        QProcess tar;
        tar.start(QStringLiteral("tar"), QStringList{QStringLiteral("-xzf"), QString::fromStdString(packed),
                                                     QStringLiteral("-C"), QString::fromStdString(m_reference)}
                                             + members);
        QVERIFY(tar.waitForFinished(60000) && tar.exitCode() == 0);
        m_reference += "/package/dist";
        fs::remove(packed);
    }

    void fetchesChecksAndCachesThePinnedRelease()
    {
        if (m_tarball.empty())
            QSKIP(qPrintable(m_skip));
        const NpmPackagePin pin = onnxRuntimeWebPin();
        wbtest::NpmRegistryServer registry(pin.name, pin.version, m_tarball, pin.integrity);
        const NpmSettings s = settings(registry.url(), "cache");
        const std::string folder = obtainOnnxRuntimeWeb("", s);
        QCOMPARE(folder, root() + "/cache/onnxruntime-web-" + pin.version + "/dist");
        for (const auto &f : onnxRuntimeWebFiles()) {
            const std::string mine = readAll(folder + "/" + f), theirs = readAll(m_reference + "/" + f);
            QVERIFY2(!theirs.empty() && mine == theirs, f.c_str());
        }
        QCOMPARE(registry.requests(), (std::vector<std::string>{"/onnxruntime-web/" + pin.version,
                                                                "/onnxruntime-web/-/onnxruntime-web-" + pin.version + ".tgz"}));
        // The cache: the tarball and the three files, nothing else (no staging left).
        QCOMPARE(filesBelow(s.cache_dir),
                 (std::vector<std::string>{"onnxruntime-web-" + pin.version + ".tgz",
                                           "onnxruntime-web-" + pin.version + "/dist/ort-wasm-simd-threaded.mjs",
                                           "onnxruntime-web-" + pin.version + "/dist/ort-wasm-simd-threaded.wasm",
                                           "onnxruntime-web-" + pin.version + "/dist/ort.wasm.min.js"}));

        // A second export: no request, offline and with no registry at all.
        NpmSettings offline = settings("http://127.0.0.1:" + std::to_string(closedPort()), "cache");
        offline.offline = true;
        QCOMPARE(obtainOnnxRuntimeWeb("", offline), folder);
        // A file removed by hand is unpacked again from the cached tarball, still offline.
        fs::remove(folder + "/ort-wasm-simd-threaded.wasm");
        QCOMPARE(obtainOnnxRuntimeWeb("", offline), folder);
        QCOMPARE(readAll(folder + "/ort-wasm-simd-threaded.wasm"), readAll(m_reference + "/ort-wasm-simd-threaded.wasm"));
        QCOMPARE(registry.requests().size(), size_t(2));

        // copyOnnxRuntimeWeb puts them into demo/ort/.
        const std::string demo = root() + "/export/demo";
        QCOMPARE(copyOnnxRuntimeWeb(folder, demo),
                 (std::vector<std::string>{"demo/ort/ort.wasm.min.js", "demo/ort/ort-wasm-simd-threaded.wasm",
                                           "demo/ort/ort-wasm-simd-threaded.mjs"}));
        QCOMPARE(readAll(demo + "/ort/ort.wasm.min.js"), readAll(m_reference + "/ort.wasm.min.js"));
    }

    void aCutTransferLeavesNothing()
    {
        if (m_tarball.empty())
            QSKIP(qPrintable(m_skip));
        const NpmPackagePin pin = onnxRuntimeWebPin();
        wbtest::NpmRegistryServer registry(pin.name, pin.version, m_tarball, pin.integrity);
        registry.cut = true;
        const NpmSettings s = settings(registry.url(), "cache-cut");
        const QString e = fetchError(s);
        QVERIFY2(e.startsWith(QString::fromStdString(registry.tarballUrl() + ": cannot download onnxruntime-web@"
                                                     + pin.version + ": ")),
                 qPrintable(e));
        QVERIFY2(e.contains(QStringLiteral("--onnxruntime_web_dir")), qPrintable(e));
        QCOMPARE(filesBelow(s.cache_dir), std::vector<std::string>{});
    }

    void aChangedByteOrAnotherIntegrityIsRefused()
    {
        if (m_tarball.empty())
            QSKIP(qPrintable(m_skip));
        const NpmPackagePin pin = onnxRuntimeWebPin();
        {
            wbtest::NpmRegistryServer registry(pin.name, pin.version, m_tarball, pin.integrity);
            registry.corrupt = true;
            const NpmSettings s = settings(registry.url(), "cache-corrupt");
            const QString e = fetchError(s);
            QVERIFY2(e.contains(QStringLiteral("has integrity sha512-")), qPrintable(e));
            QVERIFY2(e.contains(QString::fromStdString("not the pinned " + pin.integrity + ": the file is refused")),
                     qPrintable(e));
            QVERIFY2(e.startsWith(QString::fromStdString(registry.tarballUrl())), qPrintable(e));
            QCOMPARE(filesBelow(s.cache_dir), std::vector<std::string>{});
        }
        {
            // The registry announces another integrity: refused before the tarball is asked for.
            wbtest::NpmRegistryServer registry(pin.name, pin.version, m_tarball, pin.integrity);
            registry.announced_integrity = "sha512-AAAA";
            const NpmSettings s = settings(registry.url(), "cache-announced");
            const QString e = fetchError(s);
            QVERIFY2(e.contains(QStringLiteral("dist.integrity: the registry announces sha512-AAAA")), qPrintable(e));
            QCOMPARE(registry.requests(), std::vector<std::string>{"/onnxruntime-web/" + pin.version});
            QCOMPARE(filesBelow(s.cache_dir), std::vector<std::string>{});
        }
    }

    void noNetworkAndOfflineWithoutACopyAreNamed()
    {
        const NpmPackagePin pin = onnxRuntimeWebPin();
        const std::string registry = "http://127.0.0.1:" + std::to_string(closedPort());
        NpmSettings s = settings(registry, "cache-none");
        QString e = fetchError(s);
        QVERIFY2(e.startsWith(QString::fromStdString(registry + "/onnxruntime-web/" + pin.version
                                                     + ": cannot read the npm registry's entry of onnxruntime-web@")),
                 qPrintable(e));
        QVERIFY2(e.contains(QString::fromStdString("npm_config_registry (now " + registry + ")")), qPrintable(e));
        QVERIFY2(e.contains(QStringLiteral("pass --onnxruntime_web_dir=DIR")), qPrintable(e));
        s.offline = true;
        e = fetchError(s);
        QVERIFY2(e.startsWith(QString::fromStdString(s.cache_dir + "/onnxruntime-web-" + pin.version
                                                     + ".tgz: onnxruntime-web@" + pin.version
                                                     + " is not in the cache and offline mode is on")),
                 qPrintable(e));
        QCOMPARE(filesBelow(s.cache_dir), std::vector<std::string>{});
    }

    void aLocalFolderIsCheckedAndNeedsNoNetwork()
    {
        // The three files in a folder, or an unpacked package with them in dist/.
        const std::string flat = root() + "/local-flat", package = root() + "/local-package";
        fs::create_directories(flat);
        fs::create_directories(package + "/dist");
        for (const auto &f : onnxRuntimeWebFiles()) {
            std::ofstream(flat + "/" + f) << "flat " << f;
            std::ofstream(package + "/dist/" + f) << "package " << f;
        }
        const NpmSettings none = settings("http://127.0.0.1:" + std::to_string(closedPort()), "cache-local");
        QCOMPARE(obtainOnnxRuntimeWeb(flat, none), flat);
        QCOMPARE(obtainOnnxRuntimeWeb(package, none), package + "/dist");
        fs::remove(package + "/dist/ort-wasm-simd-threaded.mjs");
        try {
            obtainOnnxRuntimeWeb(package, none);
            QFAIL("a folder without ort-wasm-simd-threaded.mjs was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("onnxruntime_web_dir"));
            QVERIFY2(std::string(e.what()).rfind("no ort-wasm-simd-threaded.mjs in " + package + "/dist", 0) == 0,
                     e.what());
            QVERIFY2(e.hint().find("npm pack onnxruntime-web@" + onnxRuntimeWebPin().version) != std::string::npos,
                     e.hint().c_str());
        }
        QVERIFY(!fs::exists(none.cache_dir));
    }
};

QTEST_GUILESS_MAIN(tst_OnnxRuntimeWeb)
#include "tst_onnxruntimeweb.moc"
