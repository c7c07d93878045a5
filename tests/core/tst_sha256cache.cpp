// SPDX-License-Identifier: Apache-2.0
// The remembered SHA-256 of data files (core/prepare/sha256cache.h): an unchanged file is not read
// again; a touched file of the same size, a changed size with the same time stamp, or a cache
// entry that differs in any key part makes it read; a malformed cache is ignored and rewritten.
// Reads are counted with the test hook detail::sha256CachedReads().
#include "core/prepare/sha256cache.h"
#include "core/util/digest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace wb;
namespace fs = std::filesystem;

namespace {

void writeBytes(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Sets the modification time of `path` to `seconds` + `nanos` since the epoch.
void setMtime(const std::string &path, int64_t seconds, long nanos)
{
    struct timespec times[2];
    times[0].tv_sec = time_t(seconds);
    times[0].tv_nsec = nanos;
    times[1] = times[0];
    QVERIFY(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

int64_t reads() { return int64_t(detail::sha256CachedReads()); }

} // namespace

class tst_Sha256Cache : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_file;
    int64_t m_past = 0; // a time stamp well before now (a file not modified recently)

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_CACHE_HOME", (m_dir.path() + QStringLiteral("/cache")).toUtf8());
        QCOMPARE(sha256CacheFile(), m_dir.path().toStdString() + "/cache/bert-workbench/sha256-cache.json");
        m_file = m_dir.path().toStdString() + "/train.tf_record";
        m_past = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()
            - 3600;
    }

    void unchangedFileIsNotReread()
    {
        writeBytes(m_file, "abcd");
        setMtime(m_file, m_past, 0);
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("abcd"));
        QCOMPARE(reads(), r0 + 1);
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("abcd"));
        QCOMPARE(sha256FileHexCached(m_dir.path().toStdString() + "/./train.tf_record"), sha256Hex("abcd"));
        QCOMPARE(reads(), r0 + 1); // the same file: remembered
        const nlohmann::json cache = nlohmann::json::parse(readBytes(sha256CacheFile()));
        QCOMPARE(cache["format"].get<std::string>(), std::string("bert-workbench sha256 cache 1"));
        QCOMPARE(cache["files"].size(), size_t(1));
        QCOMPARE(cache["files"][0]["path"].get<std::string>(), m_file);
        QCOMPARE(cache["files"][0]["size"].get<int64_t>(), int64_t(4));
        QCOMPARE(cache["files"][0]["mtime_ns"].get<int64_t>(), m_past * 1000000000);
    }

    void touchedFileOfTheSameSizeIsReread()
    {
        // Same size, other bytes, a time stamp 1 s later (seen at any file system's resolution).
        writeBytes(m_file, "wxyz");
        setMtime(m_file, m_past + 1, 0);
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz"));
        QCOMPARE(reads(), r0 + 1);
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz"));
        QCOMPARE(reads(), r0 + 1);
    }

    void changedSizeWithTheSameTimeIsReread()
    {
        writeBytes(m_file, "wxyz!");
        setMtime(m_file, m_past + 1, 0); // the time stamp of the entry
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz!"));
        QCOMPARE(reads(), r0 + 1);
    }

    void entryDifferingInAnyKeyIsNotTrusted()
    {
        // An entry with the file's path, size and time but another inode, and a made-up hash.
        struct stat st {};
        QVERIFY(::stat(m_file.c_str(), &st) == 0);
        const std::string fake(64, 'a');
        const nlohmann::json entry = {{"path", m_file},        {"size", 5},   {"mtime_ns", (m_past + 1) * 1000000000},
                                      {"inode", st.st_ino + 1}, {"device", st.st_dev}, {"sha256", fake}};
        writeBytes(sha256CacheFile(), nlohmann::json({{"format", "bert-workbench sha256 cache 1"}, {"files", {entry}}}).dump());
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz!"));
        QCOMPARE(reads(), r0 + 1);
        // The same entry with the right inode is trusted (that is what the key is).
        nlohmann::json right = entry;
        right["inode"] = st.st_ino;
        writeBytes(sha256CacheFile(), nlohmann::json({{"format", "bert-workbench sha256 cache 1"}, {"files", {right}}}).dump());
        QCOMPARE(sha256FileHexCached(m_file), fake);
        QCOMPARE(reads(), r0 + 1);
    }

    void malformedCacheIsIgnoredAndRewritten()
    {
        writeBytes(sha256CacheFile(), "{\"format\": \"bert-workbench sha256 cache 1\", \"files\": [tru");
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz!"));
        QCOMPARE(reads(), r0 + 1);
        const nlohmann::json cache = nlohmann::json::parse(readBytes(sha256CacheFile()));
        QCOMPARE(cache["files"].size(), size_t(1));
        QCOMPARE(cache["files"][0]["sha256"].get<std::string>(), sha256Hex("wxyz!"));
        QCOMPARE(sha256FileHexCached(m_file), sha256Hex("wxyz!"));
        QCOMPARE(reads(), r0 + 1);
        // No temporary file is left beside it.
        int files = 0;
        for (const auto &e : fs::directory_iterator(fs::path(sha256CacheFile()).parent_path()))
            files += e.is_regular_file() ? 1 : 0;
        QCOMPARE(files, 1);
    }

    void recentlyModifiedFileIsNotRemembered()
    {
        const std::string fresh = m_dir.path().toStdString() + "/fresh.tf_record";
        writeBytes(fresh, "new"); // modified now: a change within the same time stamp would go unseen
        const int64_t r0 = reads();
        QCOMPARE(sha256FileHexCached(fresh), sha256Hex("new"));
        QCOMPARE(sha256FileHexCached(fresh), sha256Hex("new"));
        QCOMPARE(reads(), r0 + 2);
    }

    void unreadableFileGivesNoHash()
    {
        QCOMPARE(sha256FileHexCached(m_dir.path().toStdString() + "/none.tf_record"), std::string());
        QCOMPARE(sha256FileHexCached(m_dir.path().toStdString()), std::string());
        QCOMPARE(sha256FileHexCached(m_dir.path().toStdString() + "/train-*.tf_record"), std::string());
    }
};

QTEST_GUILESS_MAIN(tst_Sha256Cache)
#include "tst_sha256cache.moc"
