// SPDX-License-Identifier: Apache-2.0
#include "core/hub/npmpackage.h"

#include "core/hub/httpclient.h"
#include "core/hub/hubsettings.h"
#include "core/util/digest.h"
#include "core/util/environment.h"
#include "core/util/error.h"
#include "core/util/tarball.h"

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <system_error>

#include <unistd.h>

namespace fs = std::filesystem;

namespace wb {

namespace {

/// Finishes a SHA-512 as npm's integrity string, "sha512-<base64>" (ssri's Subresource
/// Integrity form; base64 with padding, OpenSSL's EVP_EncodeBlock).
std::string npmIntegrity(Digest &sha512)
{
    const std::string md = sha512.finishBytes();
    std::string b64(4 * ((md.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(b64.data()),
                                  reinterpret_cast<const unsigned char *>(md.data()), int(md.size()));
    b64.resize(size_t(n));
    return "sha512-" + b64;
}

std::string withFallback(const std::string &hint, const std::string &fallback)
{
    return fallback.empty() ? hint : hint + "; or " + fallback;
}

std::string pidSuffix() { return "-" + std::to_string(::getpid()); }

HubSettings httpSettings(const NpmSettings &s)
{
    HubSettings h; // no token: nothing is sent to the npm registry but the request
    h.connect_timeout_s = s.connect_timeout_s;
    h.stall_timeout_s = s.stall_timeout_s;
    return h;
}

std::string describeFailure(const HttpResult &r)
{
    if (r.aborted)
        return "stopped by the user";
    if (r.sink_failed)
        return "the file could not be written (disk full?)";
    if (r.curl_code != 0)
        return r.curl_message.empty() ? "the transfer failed" : r.curl_message;
    return "HTTP status " + std::to_string(r.status);
}

/// GET `url`, following up to 5 redirects; the body goes to `sink` (2xx) or into the result.
HttpResult getFollowing(HttpClient &http, std::string url, const HttpSink &sink, const StopToken *stop,
                        std::string &finalUrl)
{
    const HttpProgress progress = [stop](int64_t) { return !(stop && stop->stopRequested()); };
    for (int hop = 0;; ++hop) {
        HttpResult r = http.perform("GET", url, false, {}, 0, sink, progress);
        finalUrl = url;
        if (r.curl_code == 0 && r.status >= 300 && r.status < 400 && !r.redirect_url.empty() && hop < 5) {
            url = r.redirect_url;
            continue;
        }
        return r;
    }
}

/// Downloads the pinned tarball to `tgz` (verified, renamed into place). Throws wb::Error.
void downloadTarball(const NpmPackagePin &pin, const NpmSettings &s, const std::string &tgz,
                     const std::string &fallback, const StopToken *stop)
{
    HttpClient http(httpSettings(s));
    const std::string docUrl = s.registry + "/" + pin.name + "/" + pin.version;
    std::string at;
    const HttpResult doc = getFollowing(http, docUrl, {}, stop, at);
    if (doc.curl_code != 0 || doc.status != 200)
        throw Error(at, "cannot read the npm registry's entry of " + pin.name + "@" + pin.version + ": "
                            + describeFailure(doc),
                    withFallback("check the network connection and npm_config_registry (now " + s.registry + ")",
                                 fallback));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(doc.body);
    } catch (const std::exception &e) {
        throw Error(at, std::string("the registry's answer is not JSON: ") + e.what(),
                    withFallback("check npm_config_registry (now " + s.registry + ")", fallback));
    }
    const auto dist = j.find("dist");
    if (dist == j.end() || !dist->is_object() || !dist->contains("tarball") || !(*dist)["tarball"].is_string()
        || !dist->contains("integrity") || !(*dist)["integrity"].is_string())
        throw Error(at + ": dist", "the registry's entry has no dist.tarball and dist.integrity",
                    withFallback("check npm_config_registry (now " + s.registry + ")", fallback));
    const std::string announced = (*dist)["integrity"].get<std::string>();
    if (announced != pin.integrity)
        throw Error(at + ": dist.integrity",
                    "the registry announces " + announced + " for " + pin.name + "@" + pin.version
                        + ", not the pinned " + pin.integrity + ": the files are refused",
                    withFallback("check npm_config_registry (now " + s.registry + ")", fallback));
    const std::string tarUrl = (*dist)["tarball"].get<std::string>();

    const std::string part = tgz + ".incomplete" + pidSuffix();
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error(part, std::string("cannot write the download: ") + std::strerror(errno),
                    "check that the cache folder is writable (XDG_CACHE_HOME)");
    Digest sha(DigestKind::Sha512);
    const HttpSink sink = [&](const char *data, size_t n, long) {
        sha.update(data, n);
        return bool(out.write(data, std::streamsize(n)));
    };
    const HttpResult got = getFollowing(http, tarUrl, sink, stop, at);
    const bool written = bool(out.flush());
    out.close();
    std::error_code ec;
    if (got.curl_code != 0 || got.status != 200 || !written) {
        fs::remove(part, ec);
        if (got.aborted && stop && stop->stopRequested())
            throw StoppedByUser(at, "the download was stopped", "export again to download it");
        throw Error(at, "cannot download " + pin.name + "@" + pin.version + ": "
                            + (written ? describeFailure(got) : std::string("the file could not be written (disk full?)")),
                    withFallback("check the network connection and export again", fallback));
    }
    const std::string actual = npmIntegrity(sha);
    if (actual != pin.integrity) {
        fs::remove(part, ec);
        throw Error(at, "the downloaded " + pin.name + "@" + pin.version + " has integrity " + actual
                            + ", not the pinned " + pin.integrity + ": the file is refused",
                    withFallback("check npm_config_registry (now " + s.registry + ") and any proxy on the way",
                                 fallback));
    }
    fs::rename(part, tgz, ec);
    if (ec) {
        fs::remove(part, ec);
        throw Error(tgz, "cannot keep the download in the cache: " + ec.message(),
                    "check that the cache folder is writable (XDG_CACHE_HOME)");
    }
}

/// Writes the package's `files` ("package/<file>" in the tarball) into `dir`. Throws wb::Error.
void extractFiles(const std::string &tgz, const std::vector<std::string> &files, const std::string &dir,
                  const std::string &fallback)
{
    const UnpackWording wording{"package", withFallback("delete " + tgz + " so that it is downloaded again", fallback),
                                "check that the cache folder is writable (XDG_CACHE_HOME)",
                                "free disk space in the cache folder (XDG_CACHE_HOME)"};
    const ArchiveReader a = openTarGz(tgz, wording);
    std::set<std::string> wanted(files.begin(), files.end());
    archive_entry *entry = nullptr;
    while (!wanted.empty()) {
        const int r = archive_read_next_header(a.get(), &entry);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
            throwUnpackError(a.get(), tgz, wording);
        const char *raw = archive_entry_pathname(entry);
        std::string name = raw ? raw : "";
        if (name.rfind("package/", 0) != 0 || archive_entry_filetype(entry) != AE_IFREG)
            continue;
        name = name.substr(8);
        if (!wanted.count(name))
            continue; // only the named files: no path from the archive reaches the disk otherwise
        writeEntryData(a.get(), fs::path(dir) / name, tgz + ": " + name, wording);
        wanted.erase(name);
    }
    if (!wanted.empty())
        throw Error(tgz, "the package has no " + *wanted.begin(), fallback);
}

bool hasAll(const std::string &dir, const std::vector<std::string> &files)
{
    std::error_code ec;
    for (const auto &f : files)
        if (!fs::is_regular_file(fs::path(dir) / f, ec))
            return false;
    return true;
}

} // namespace

NpmSettings NpmSettings::fromEnvironment()
{
    NpmSettings s;
    std::string r = environmentValue("npm_config_registry");
    if (r.empty())
        r = environmentValue("NPM_CONFIG_REGISTRY");
    while (!r.empty() && (r.back() == '/' || r.back() == ' '))
        r.pop_back();
    if (!r.empty())
        s.registry = r;
    const std::string xdg = environmentValue("XDG_CACHE_HOME");
    const std::string home = environmentValue("HOME");
    const fs::path base = !xdg.empty() ? fs::path(xdg) : fs::path(home.empty() ? "/tmp" : home) / ".cache";
    s.cache_dir = (base / "bert-workbench" / "npm-packages").string();
    s.offline = isTruthyEnvValue(environmentValue("npm_config_offline"))
                || isTruthyEnvValue(environmentValue("NPM_CONFIG_OFFLINE"))
                || isTruthyEnvValue(environmentValue("HF_HUB_OFFLINE"));
    return s;
}

std::string npmIntegrityOfFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot read the file to check its integrity");
    Digest sha(DigestKind::Sha512);
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        sha.update(buf.data(), size_t(in.gcount()));
    }
    return npmIntegrity(sha);
}

std::string npmPackageCacheFolder(const NpmPackagePin &pin, const NpmSettings &settings)
{
    return (fs::path(settings.cache_dir) / (pin.name + "-" + pin.version)).string();
}

std::string fetchNpmPackageFiles(const NpmPackagePin &pin, const std::vector<std::string> &files,
                                 const NpmSettings &settings, const std::string &fallbackHint, const StopToken *stop)
{
    const std::string folder = npmPackageCacheFolder(pin, settings);
    if (hasAll(folder, files))
        return folder;
    std::error_code ec;
    fs::create_directories(settings.cache_dir, ec);
    if (ec)
        throw Error(settings.cache_dir, "cannot create the download cache: " + ec.message(),
                    withFallback("check that XDG_CACHE_HOME (or ~/.cache) is writable", fallbackHint));
    const std::string tgz = folder + ".tgz";
    if (fs::is_regular_file(tgz, ec) && npmIntegrityOfFile(tgz) != pin.integrity)
        fs::remove(tgz, ec); // a damaged copy: fetched again below
    if (!fs::is_regular_file(tgz, ec)) {
        if (settings.offline)
            throw Error(tgz, pin.name + "@" + pin.version + " is not in the cache and offline mode is on "
                                 "(npm_config_offline or HF_HUB_OFFLINE)",
                        withFallback("export once with the network on (the files are then cached in "
                                         + settings.cache_dir + ")",
                                     fallbackHint));
        downloadTarball(pin, settings, tgz, fallbackHint, stop);
    }
    const std::string staging = folder + ".partial" + pidSuffix();
    fs::remove_all(staging, ec);
    try {
        extractFiles(tgz, files, staging, fallbackHint);
    } catch (...) {
        fs::remove_all(staging, ec);
        throw;
    }
    fs::remove_all(folder, ec); // an incomplete one (a file removed by hand)
    fs::rename(staging, folder, ec);
    if (ec && !hasAll(folder, files)) { // another process may have renamed its copy first
        const std::string why = ec.message();
        fs::remove_all(staging, ec);
        throw Error(folder, "cannot put the unpacked files into the cache: " + why,
                    "check that the cache folder is writable (XDG_CACHE_HOME)");
    }
    fs::remove_all(staging, ec);
    return folder;
}

} // namespace wb
