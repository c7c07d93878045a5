// SPDX-License-Identifier: Apache-2.0
#include "core/util/digest.h"

#include "core/util/error.h"
#include "core/util/hex.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace wb {

namespace {

/// What each DigestKind is: OpenSSL's algorithm, the field and name errors use, the size.
struct KindFacts
{
    const EVP_MD *(*algorithm)();
    const char *field;
    const char *name;
    unsigned int size; // bytes
};

const KindFacts &factsOf(DigestKind kind)
{
    static const KindFacts kSha1{&EVP_sha1, "sha1", "SHA-1", 20};
    static const KindFacts kSha256{&EVP_sha256, "sha256", "SHA-256", 32};
    static const KindFacts kSha512{&EVP_sha512, "sha512", "SHA-512", 64};
    return kind == DigestKind::Sha1 ? kSha1 : kind == DigestKind::Sha512 ? kSha512 : kSha256;
}

[[noreturn]] void fail(DigestKind kind, const char *verb)
{
    const KindFacts &facts = factsOf(kind);
    throw Error(facts.field, std::string("OpenSSL could not ") + verb + " a " + facts.name + " digest");
}

/// Closes a file descriptor when it goes out of scope.
struct FdCloser
{
    int fd;
    ~FdCloser() { ::close(fd); }
};

/// Hashes the file at `path` (after git's blob header when `gitBlob`); "" and `*error` on failure.
std::string hashFile(const std::string &path, DigestKind kind, bool gitBlob, int *error)
{
    if (error)
        *error = 0;
    const auto failed = [error](int err) {
        if (error)
            *error = err;
        return std::string();
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return failed(errno);
    const FdCloser closer{fd};
    Digest digest(kind);
    if (gitBlob) { // git hashes "blob <size>\0" before the bytes
        struct stat st {};
        if (::fstat(fd, &st) != 0)
            return failed(errno);
        digest.update("blob " + std::to_string(int64_t(st.st_size)) + std::string(1, '\0'));
    }
    std::vector<char> piece(size_t(1) << 20);
    for (;;) {
        const ssize_t n = ::read(fd, piece.data(), piece.size());
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return failed(errno);
        }
        digest.update(piece.data(), size_t(n));
    }
    return digest.finishHex();
}

} // namespace

Digest::Digest(DigestKind kind) : m_kind(kind), m_ctx(EVP_MD_CTX_new())
{
    // OpenSSL's libcrypto does the hashing (a well-kept library, not our own SHA code).
    if (!m_ctx || EVP_DigestInit_ex(m_ctx, factsOf(m_kind).algorithm(), nullptr) != 1) {
        EVP_MD_CTX_free(m_ctx);
        fail(m_kind, "start");
    }
}

Digest::~Digest()
{
    EVP_MD_CTX_free(m_ctx);
}

void Digest::update(const void *data, size_t size)
{
    if (size > 0 && EVP_DigestUpdate(m_ctx, data, size) != 1)
        fail(m_kind, "compute");
}

void Digest::reset()
{
    if (EVP_DigestInit_ex(m_ctx, factsOf(m_kind).algorithm(), nullptr) != 1)
        fail(m_kind, "start");
}

std::string Digest::finishBytes()
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(m_ctx, md, &size) != 1 || size != factsOf(m_kind).size)
        fail(m_kind, "compute");
    reset();
    return std::string(reinterpret_cast<const char *>(md), size);
}

std::string Digest::finishHex()
{
    return hexEncode(finishBytes());
}

std::string digestHex(DigestKind kind, std::string_view data)
{
    Digest digest(kind);
    digest.update(data);
    return digest.finishHex();
}

std::string sha256Hex(std::string_view data)
{
    return digestHex(DigestKind::Sha256, data);
}

std::string sha1Hex(std::string_view data)
{
    return digestHex(DigestKind::Sha1, data);
}

std::string gitBlobSha1Hex(std::string_view content)
{
    Digest digest(DigestKind::Sha1);
    digest.update("blob " + std::to_string(content.size()) + std::string(1, '\0'));
    digest.update(content);
    return digest.finishHex();
}

std::string fileDigestHex(const std::string &path, DigestKind kind, int *error)
{
    return hashFile(path, kind, false, error);
}

std::string sha256FileHex(const std::string &path)
{
    return fileDigestHex(path, DigestKind::Sha256);
}

std::string gitBlobSha1FileHex(const std::string &path, int *error)
{
    return hashFile(path, DigestKind::Sha1, true, error);
}

} // namespace wb
