// SPDX-License-Identifier: Apache-2.0
#pragma once
// The body of an e-mail message: what `prepare --email_body_only` keeps of each text
// (docs/file-formats.md, "E-mail bodies").

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// What emailBody() found in a message besides the text it returns.
struct EmailBodyInfo
{
    bool is_message = false;             ///< a header block was found (else the text passed unchanged)
    bool from_html = false;              ///< the body is the text of its text/html parts
    /// The MIME types of its parts that are not text (image/gif, application/pdf, …), in order,
    /// attachments included; each type once.
    std::vector<std::string> other_types;
    int64_t html_images = 0;             ///< <img> tags in the HTML parts the body came from
};

/// Returns the body of the e-mail `message` (bytes as stored: an RFC 5322 message, optionally
/// preceded by an mbox "From " line), without its header block:
/// - The header block is every line up to the first empty line; folded lines (starting with a
///   space or tab) belong to the field above; lines may end in CRLF or LF. A text whose first
///   line is neither a header field ("Name: value", RFC 5322 section 2.2) nor an mbox "From "
///   line, or whose header block has no empty line after it, or holds a line that is no field,
///   is not a message: it is returned as it is (CRLF read as LF), so plain texts pass unchanged.
/// - MIME (RFC 2045/2046): a multipart body yields its text/plain parts (nested multiparts
///   included, attachments left out), joined by an empty line; without a text/plain part, its
///   text/html parts reduced to text: inline (phrasing) tags and comments removed without a
///   trace, so that no word is split (W<b>or</b>ld is one word), block tags ending lines, other
///   tags separating words, style/script contents dropped, numeric character references and the
///   common named ones decoded. A single-part text/html body is reduced the same way; a body of
///   another non-text type gives "".
///   Quoted-printable and base64 are decoded; the charset is not converted (prepare reads
///   bytes that are not UTF-8 as Windows-1252, as for every text).
/// - With `stripQuotedReplies`, the lines of stripQuotedReplies() are removed as well.
/// Line ends of the result are LF. Pure; thread-safe; never throws for any input.
/// A text/plain part that is blank (an empty alternative beside the HTML one, as some mailers
/// send) counts as none: the HTML parts give the body then. `info`, when given, receives what
/// the message held besides its text (EmailBodyInfo).
std::string emailBody(std::string_view message, bool stripQuotedReplies = false, EmailBodyInfo *info = nullptr);

/// Why the body of a message is empty, in words for a skipped row: "the mail has no text, only
/// image/gif (an image-only mail)" when it held parts of other types; "the mail's HTML holds
/// only images (3) and links, no text (an image-only mail)" when its HTML had <img> tags and no
/// words; "" otherwise. Pure.
std::string emptyBodyReason(const EmailBodyInfo &info);

/// Returns `text` without quoted replies: lines whose first non-blank character is '>' and
/// the attribution line above them, "On <date>, <name> wrote:" (one line, or two lines when
/// the mail client wrapped it; "wrote:" may be followed by blanks). Line ends become LF.
/// Pure; thread-safe.
std::string stripQuotedReplies(std::string_view text);

} // namespace wb
