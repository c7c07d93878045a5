// SPDX-License-Identifier: Apache-2.0
#include "core/data/sha256.h"

#include "core/util/error.h"

#include <openssl/evp.h>

namespace wb {

std::string sha256Hex(std::string_view data)
{
    // OpenSSL's libcrypto does the hashing (a well-kept library, not our own SHA-256).
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1 || size != 32)
        throw Error("sha256", "OpenSSL could not compute a SHA-256 digest");
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(64);
    for (unsigned int i = 0; i < size; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

} // namespace wb
