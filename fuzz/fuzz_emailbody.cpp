// SPDX-License-Identifier: Apache-2.0
// Fuzzes the e-mail body extraction (`prepare --email_body_only`, --strip_quoted_replies;
// core/prepare/emailbody.h): the RFC 5322 header block, MIME multipart nesting, quoted-printable
// and base64 decoding and the HTML reduction, on arbitrary bytes as a text of the input.
// emailBody never throws (any exception is a crash), its result never holds a CR line end and
// is not longer than what the input can give (decoding and tag removal only shrink a part; the
// parts are joined by one empty line each); stripQuotedReplies only removes lines.
#include "core/prepare/emailbody.h"

#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view message(reinterpret_cast<const char *>(data), size);
    for (const bool strip : {false, true}) {
        const std::string body = wb::emailBody(message, strip);
        // Each part joined adds "\n\n" and stands for at least one delimiter line of 3 bytes.
        if (body.size() > size + size / 3 * 2 + 2)
            std::abort();
        if (body.find("\r\n") != std::string::npos && message.find("\r\n") == std::string_view::npos)
            std::abort(); // a CRLF in the result must come from the input
    }
    const std::string stripped = wb::stripQuotedReplies(message);
    if (stripped.size() > size)
        std::abort();
    return 0;
}
