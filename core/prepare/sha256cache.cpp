// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/sha256cache.h"

#include "core/config/jsonfile.h"
#include "core/util/digest.h"
#include "core/util/error.h"
#include "core/util/hex.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kFormat = "bert-workbench sha256 cache 1";
constexpr size_t kMaxEntries = 1000;
constexpr int64_t kRacyNs = 2'000'000'000; // modified this recently: not remembered

std::atomic<uint64_t> g_reads{0};
std::mutex g_cacheMutex;

// What identifies a file's contents without reading it.
struct FileKey
{
    std::string path; // absolute, lexically normal
    int64_t size = 0, mtime_ns = 0;
    uint64_t inode = 0, device = 0;
    bool operator==(const FileKey &o) const
    {
        return path == o.path && size == o.size && mtime_ns == o.mtime_ns && inode == o.inode && device == o.device;
    }
};

std::optional<FileKey> keyOf(const std::string &absolute)
{
    struct stat st {};
    if (::stat(absolute.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    FileKey k;
    k.path = absolute;
    k.size = int64_t(st.st_size);
    k.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + int64_t(st.st_mtim.tv_nsec);
    k.inode = uint64_t(st.st_ino);
    k.device = uint64_t(st.st_dev);
    return k;
}

bool isSha256Hex(const std::string &s)
{
    return s.size() == 64 && isLowerHex(s);
}

// The cache's entries; none when the file is missing or not the format.
nlohmann::json readEntries(const std::string &cacheFile)
{
    std::ifstream in(cacheFile, std::ios::binary);
    if (!in)
        return nlohmann::json::array();
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("files") || !j["files"].is_array())
        return nlohmann::json::array();
    return j["files"];
}

// Whether cache entry `e` is the file `k` (every key part equal) with a well-formed hash.
bool entryMatches(const nlohmann::json &e, const FileKey &k)
{
    if (!e.is_object())
        return false;
    const auto str = [&e](const char *name) {
        const auto it = e.find(name);
        return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto num = [&e](const char *name) -> std::optional<uint64_t> {
        const auto it = e.find(name);
        if (it == e.end() || !it->is_number_integer())
            return std::nullopt;
        return it->is_number_unsigned() ? it->get<uint64_t>() : uint64_t(it->get<int64_t>());
    };
    return str("path") == k.path && num("size") == uint64_t(k.size) && num("mtime_ns") == uint64_t(k.mtime_ns)
        && num("inode") == k.inode && num("device") == k.device && isSha256Hex(str("sha256"));
}

nlohmann::json entryOf(const FileKey &k, const std::string &sha)
{
    return {{"path", k.path}, {"size", k.size}, {"mtime_ns", k.mtime_ns}, {"inode", k.inode}, {"device", k.device},
            {"sha256", sha}};
}

// Adds (or replaces) the entry of `k` and writes the cache back; a failure to write is ignored
// (the hash is still right, only not remembered).
void remember(const std::string &cacheFile, const FileKey &k, const std::string &sha)
{
    nlohmann::json kept = nlohmann::json::array();
    for (const nlohmann::json &e : readEntries(cacheFile))
        if (e.is_object() && !(e.contains("path") && e["path"] == k.path))
            kept.push_back(e);
    kept.push_back(entryOf(k, sha));
    if (kept.size() > kMaxEntries)
        kept.erase(kept.begin(), kept.begin() + long(kept.size() - kMaxEntries));
    nlohmann::json j = {{"format", kFormat}, {"files", std::move(kept)}};
    try {
        writeFileAtomic(cacheFile, j.dump(1) + "\n");
    } catch (const Error &) {
        // a read-only or full cache folder: the next run hashes the file again
    }
}

int64_t nowNs()
{
    struct timespec ts {};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + int64_t(ts.tv_nsec);
}

} // namespace

std::string sha256CacheFile()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    const fs::path base = xdg && *xdg ? fs::path(xdg) : fs::path(home && *home ? home : "/tmp") / ".cache";
    return (base / "bert-workbench" / "sha256-cache.json").string();
}

std::string sha256FileHexCached(const std::string &path)
{
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    const std::optional<FileKey> before = ec ? std::nullopt : keyOf(abs.lexically_normal().string());
    if (!before) {
        ++g_reads;
        return sha256FileHex(path); // not a plain file: its own answer ("" for a folder or a glob)
    }
    const std::string cacheFile = sha256CacheFile();
    {
        const std::lock_guard<std::mutex> lock(g_cacheMutex);
        for (const nlohmann::json &e : readEntries(cacheFile))
            if (entryMatches(e, *before))
                return e["sha256"].get<std::string>();
    }
    ++g_reads;
    const std::string sha = sha256FileHex(path);
    const std::optional<FileKey> after = keyOf(before->path);
    if (sha.empty() || !after || !(*after == *before) || nowNs() - before->mtime_ns < kRacyNs)
        return sha;
    const std::lock_guard<std::mutex> lock(g_cacheMutex);
    remember(cacheFile, *before, sha);
    return sha;
}

namespace detail {
uint64_t sha256CachedReads() { return g_reads.load(); }
} // namespace detail

} // namespace wb
