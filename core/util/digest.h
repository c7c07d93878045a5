// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX (openssl/types.h), kept out of this header

namespace wb {

/// The message digests the project uses: SHA-1 (git blob ids, the Hub's ETag of a file kept in
/// git), SHA-256 (data files in run_config.json, the example's downloads, LFS files on the Hub),
/// SHA-512 (npm's integrity strings). All FIPS 180-4; OpenSSL's libcrypto computes them.
enum class DigestKind { Sha1, Sha256, Sha512 };

/// A streaming digest over OpenSSL's EVP interface: update() with the bytes in any number of
/// pieces, then finishHex() or finishBytes(), which give the same digest as one update() with
/// all of the bytes and start the digest over (as reset() does).
/// Errors: a failure inside OpenSSL (it does not happen with the built-in providers) throws
/// wb::Error with field "sha256" (or "sha1", "sha512") and "OpenSSL could not start a SHA-256
/// digest" or "OpenSSL could not compute a SHA-256 digest".
/// Thread rules: one thread at a time; separate objects are independent.
class Digest
{
public:
    explicit Digest(DigestKind kind);
    ~Digest();
    Digest(const Digest &) = delete;
    Digest &operator=(const Digest &) = delete;

    DigestKind kind() const { return m_kind; }
    /// Adds `size` bytes at `data` (none when `size` is 0; `data` may then be null).
    void update(const void *data, size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    /// Forgets the bytes added so far.
    void reset();
    /// Returns the digest of the bytes added since the start or the last reset or finish, as raw
    /// bytes (20 for SHA-1, 32 for SHA-256, 64 for SHA-512), and starts over.
    std::string finishBytes();
    /// As finishBytes(), as lower-case hex digits (40, 64 or 128).
    std::string finishHex();

private:
    DigestKind m_kind;
    evp_md_ctx_st *m_ctx;
};

/// Returns the digest of `data` as lower-case hex digits. Thread-safe.
std::string digestHex(DigestKind kind, std::string_view data);
/// Returns the SHA-256 of `data` as 64 lower-case hex digits. Thread-safe.
std::string sha256Hex(std::string_view data);
/// Returns the SHA-1 of `data` as 40 lower-case hex digits. Thread-safe.
std::string sha1Hex(std::string_view data);
/// Returns the git blob id of a file whose bytes are `content`: the SHA-1 of "blob <size>\0"
/// followed by the bytes (git's `hash-object`), as 40 lower-case hex digits. Thread-safe.
std::string gitBlobSha1Hex(std::string_view content);

/// Returns the digest of the file at `path` as lower-case hex digits, read in 1 MiB pieces
/// (memory does not grow with the file), or "" when the file cannot be opened or read (a
/// folder, a glob such as `train-*.tf_record`, a missing file, an I/O error: never a digest of
/// part of a file); then `*error`, when given, is the errno of the failed call (0 on success).
/// Thread-safe.
std::string fileDigestHex(const std::string &path, DigestKind kind, int *error = nullptr);
/// fileDigestHex(path, DigestKind::Sha256): 64 lower-case hex digits, or "".
std::string sha256FileHex(const std::string &path);
/// The git blob id of the file at `path` (gitBlobSha1Hex of its bytes, the size taken from the
/// open file), read as fileDigestHex() reads; "" and `*error` as there.
std::string gitBlobSha1FileHex(const std::string &path, int *error = nullptr);

} // namespace wb
