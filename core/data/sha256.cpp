// SPDX-License-Identifier: Apache-2.0
#include "core/data/sha256.h"

#include "core/util/error.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

namespace wb {

namespace {

std::string hexOf(const unsigned char *digest, unsigned int size)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * size);
    for (unsigned int i = 0; i < size; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace

std::string sha256Hex(std::string_view data)
{
    // OpenSSL's libcrypto does the hashing (a well-kept library, not our own SHA-256).
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1 || size != 32)
        throw Error("sha256", "OpenSSL could not compute a SHA-256 digest");
    return hexOf(digest, size);
}

std::string sha256FileHex(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
        throw Error("sha256", "OpenSSL could not start a SHA-256 digest");
    std::vector<char> piece(size_t(1) << 20);
    while (in) {
        in.read(piece.data(), std::streamsize(piece.size()));
        if (in.gcount() > 0 && EVP_DigestUpdate(ctx.get(), piece.data(), size_t(in.gcount())) != 1)
            throw Error("sha256", "OpenSSL could not compute a SHA-256 digest");
    }
    if (in.bad()) // a read error (not the end of the file): no digest of part of a file
        return {};
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1 || size != 32)
        throw Error("sha256", "OpenSSL could not compute a SHA-256 digest");
    return hexOf(digest, size);
}

} // namespace wb
