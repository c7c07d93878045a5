// SPDX-License-Identifier: Apache-2.0
#pragma once

// Files of one pinned npm package, fetched from the npm registry with libcurl (the Hub's
// HttpClient), checked against the pinned integrity and kept in a cache, so that a second
// use needs no network. The export's web demo takes onnxruntime-web's browser files from
// here (core/formats/onnxruntimeweb.h; docs/file-formats.md "demo/index.html").

#include "core/events/stoptoken.h"

#include <string>
#include <vector>

namespace wb {

/// One release of an npm package and its integrity as the registry publishes it
/// (`dist.integrity` of the version document: "sha512-" + base64 of the SHA-512 of the .tgz,
/// the Subresource Integrity form npm writes into package-lock.json).
struct NpmPackagePin
{
    std::string name;      ///< e.g. "onnxruntime-web" (unscoped names only)
    std::string version;   ///< the exact version, e.g. "1.31.0-dev.20260914-8d85527a0"
    std::string integrity; ///< "sha512-…"
};

/// Where and how the package files are fetched. A plain value; thread-safe to copy.
struct NpmSettings
{
    /// The registry's base URL without a trailing '/': $npm_config_registry, else
    /// $NPM_CONFIG_REGISTRY (as npm reads its `registry` setting), default https://registry.npmjs.org.
    std::string registry = "https://registry.npmjs.org";
    /// The cache root: $XDG_CACHE_HOME/bert-workbench/npm-packages, else
    /// ~/.cache/bert-workbench/npm-packages.
    std::string cache_dir;
    /// No request at all, the cache only: $npm_config_offline (npm's --offline) or
    /// $HF_HUB_OFFLINE (the product's offline switch, docs/pretrained-models.md) is truthy.
    bool offline = false;
    /// Seconds to wait for a connection; a transfer slower than 1 byte/s for stall_timeout_s is cut.
    long connect_timeout_s = 20;
    long stall_timeout_s = 60;

    /// Returns the settings from the process environment (see the fields). Never throws.
    static NpmSettings fromEnvironment();
};

/// Returns the integrity of a file as npm computes it for a tarball: "sha512-" + base64 of
/// the file's SHA-512. Throws wb::Error naming the file when it cannot be read.
std::string npmIntegrityOfFile(const std::string &path);

/// Returns `<cache_dir>/<name>-<version>`, the folder the package's files are extracted into
/// (under their paths inside the package, "package/" removed: "dist/ort.wasm.min.js").
std::string npmPackageCacheFolder(const NpmPackagePin &pin, const NpmSettings &settings);

/// Returns the cache folder holding `files` (paths inside the package, e.g. "dist/ort.wasm.min.js").
/// When they are all there already, with no request. Else it uses the cached tarball
/// `<cache_dir>/<name>-<version>.tgz` when its integrity is the pinned one; else (not
/// offline) GETs the version document `<registry>/<name>/<version>`, requires its
/// `dist.integrity` to be the pinned one, GETs `dist.tarball` (redirects followed, at most 5),
/// checks the bytes' SHA-512 against the pin, and keeps the tarball. The files are
/// extracted (libarchive: gzip + tar, regular files only) into a staging folder renamed into
/// place when complete, so a reader sees all files or none.
/// Errors (wb::Error, nothing left in the cache but a verified tarball): no network or an HTTP
/// error (names the URL), a cut transfer, a wrong integrity (names the URL and both values),
/// a file the package lacks, offline without a cached copy (names the cache folder). Each
/// hint ends with `fallbackHint` (e.g. how to take the files from a local folder instead).
/// `stop` (may be null) aborts a transfer. Thread rules: one call per thread; two processes
/// filling the same cache at once each write their own staging files and rename them.
std::string fetchNpmPackageFiles(const NpmPackagePin &pin, const std::vector<std::string> &files,
                                 const NpmSettings &settings, const std::string &fallbackHint,
                                 const StopToken *stop = nullptr);

} // namespace wb
