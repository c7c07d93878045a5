// SPDX-License-Identifier: Apache-2.0
// E-mail bodies: the header block of RFC 5322 (section 2.2: fields, folding; 2.1: the empty
// line before the body), the MIME structure of RFC 2045 (Content-Type, Content-Transfer-
// Encoding: quoted-printable section 6.7, base64 section 6.8) and RFC 2046 (multipart
// boundaries, section 5.1.1). Only what a classifier needs: the readable text.
#include "core/prepare/emailbody.h"

#include "core/tokenize/unicodetext.h"
#include "core/util/hex.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

namespace wb {

namespace {

// Lines of `text` without their LF / CRLF.
std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        const bool last = end == std::string_view::npos;
        if (last)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!(last && line.empty() && start == text.size() && start > 0))
            lines.push_back(line);
        if (last)
            break;
        start = end + 1;
    }
    return lines;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trimView(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// RFC 5322 field name: printable US-ASCII except ':' (ftext), then ':'. Returns the name's length
// or 0 when `line` is not a field.
size_t fieldNameLength(std::string_view line)
{
    size_t i = 0;
    while (i < line.size() && line[i] >= 33 && line[i] <= 126 && line[i] != ':')
        ++i;
    return i > 0 && i < line.size() && line[i] == ':' ? i : 0;
}

bool isFolded(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

struct Headers
{
    std::string content_type;      // lower-cased type/subtype, "" when absent
    std::string boundary;          // multipart boundary parameter, as written
    std::string transfer_encoding; // lower-cased
    bool attachment = false;
};

// The value of parameter `name` in a header value such as `multipart/mixed; boundary="x"`.
std::string parameter(std::string_view value, const std::string &name)
{
    const std::string low = lower(value);
    size_t pos = 0;
    while ((pos = low.find(name, pos)) != std::string::npos) {
        const bool startsWord = pos == 0 || low[pos - 1] == ';' || low[pos - 1] == ' ' || low[pos - 1] == '\t';
        size_t eq = pos + name.size();
        while (eq < low.size() && (low[eq] == ' ' || low[eq] == '\t'))
            ++eq;
        if (!startsWord || eq >= low.size() || low[eq] != '=') {
            pos += name.size();
            continue;
        }
        size_t v = eq + 1;
        while (v < value.size() && (value[v] == ' ' || value[v] == '\t'))
            ++v;
        if (v < value.size() && value[v] == '"') {
            const size_t close = value.find('"', v + 1);
            return std::string(value.substr(v + 1, close == std::string_view::npos ? std::string_view::npos : close - v - 1));
        }
        size_t e = v;
        while (e < value.size() && value[e] != ';' && value[e] != ' ' && value[e] != '\t')
            ++e;
        return std::string(value.substr(v, e - v));
    }
    return {};
}

void takeField(const std::string &name, const std::string &value, Headers &h)
{
    if (name == "content-type") {
        // type/subtype ends at ';' or, in sloppy mailers' "TEXT/PLAIN charset=US-ASCII", at a blank.
        const std::string_view v = trimView(value);
        h.content_type = lower(v.substr(0, v.find_first_of("; \t")));
        h.boundary = parameter(value, "boundary");
    } else if (name == "content-transfer-encoding") {
        h.transfer_encoding = lower(trimView(value));
    } else if (name == "content-disposition") {
        h.attachment = lower(trimView(value)).rfind("attachment", 0) == 0;
    }
}

// Reads the header block at lines[begin, end); returns the index of the first body line, or
// npos when the lines do not start with a well-formed header block followed by an empty line.
// `mbox` allows an mbox "From " line first.
size_t readHeaders(const std::vector<std::string_view> &lines, size_t begin, size_t end, bool mbox, Headers &h)
{
    size_t i = begin;
    if (mbox && i < end && lines[i].rfind("From ", 0) == 0)
        ++i;
    if (i >= end || fieldNameLength(lines[i]) == 0)
        return std::string::npos;
    std::string name, value;
    for (; i < end; ++i) {
        const std::string_view line = lines[i];
        if (line.empty()) {
            if (!name.empty())
                takeField(name, value, h);
            return i + 1;
        }
        if (isFolded(line) && !name.empty()) {
            value += ' ';
            value += trimView(line);
            continue;
        }
        const size_t n = fieldNameLength(line);
        if (n == 0)
            return std::string::npos;
        if (!name.empty())
            takeField(name, value, h);
        name = lower(line.substr(0, n));
        value = std::string(trimView(line.substr(n + 1)));
    }
    return std::string::npos; // no empty line: not a message
}

// RFC 2045 6.7: "=XX" is a byte, "=" at a line end is a soft line break.
std::string decodeQuotedPrintable(const std::string &in)
{
    std::string out;
    out.reserve(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '=') {
            out += in[i];
            continue;
        }
        size_t j = i + 1;
        while (j < in.size() && (in[j] == ' ' || in[j] == '\t'))
            ++j;
        if (j < in.size() && in[j] == '\n') {
            i = j; // soft line break
            continue;
        }
        if (j == in.size()) {
            i = j;
            continue;
        }
        if (i + 2 < in.size() && hexDigitValue(in[i + 1]) >= 0 && hexDigitValue(in[i + 2]) >= 0) {
            out += char(hexDigitValue(in[i + 1]) * 16 + hexDigitValue(in[i + 2]));
            i += 2;
        } else {
            out += '='; // not an escape: kept as written
        }
    }
    return out;
}

// RFC 2045 6.8; characters outside the alphabet are ignored, decoding stops at '='.
std::string decodeBase64(const std::string &in)
{
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z')
            return c - 'A';
        if (c >= 'a' && c <= 'z')
            return c - 'a' + 26;
        if (c >= '0' && c <= '9')
            return c - '0' + 52;
        if (c == '+')
            return 62;
        if (c == '/')
            return 63;
        return -1;
    };
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : in) {
        if (c == '=')
            break;
        const int v = value(c);
        if (v < 0)
            continue;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char((acc >> bits) & 0xFF);
        }
    }
    return out;
}

// How a tag shows in the text of an HTML part: block elements (and <br>) end a line; phrasing
// (inline) elements, as the HTML Living Standard's "phrasing content" lists them, show as
// nothing, so that a word with a tag inside it (<b>W</b>ord, the <span>s mail editors put
// inside words) stays one word; any other tag (a cell, an image) separates words.
enum class TagText { Nothing, Space, LineBreak };

TagText tagText(std::string_view lowTag)
{
    size_t k = 1; // after '<'
    if (k < lowTag.size() && lowTag[k] == '/')
        ++k;
    size_t e = k;
    while (e < lowTag.size() && (std::isalnum(static_cast<unsigned char>(lowTag[e])) || lowTag[e] == ':'))
        ++e;
    const std::string_view name = lowTag.substr(k, e - k);
    static const char *const kLineBreak[] = {"br", "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6",
                                             "table", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "hr",
                                             "section", "article", "header", "footer", "title"};
    static const char *const kNothing[] = {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del",
                                           "dfn", "em", "font", "i", "ins", "kbd", "mark", "nobr", "q", "s",
                                           "samp", "small", "span", "strike", "strong", "sub", "sup", "time",
                                           "tt", "u", "var", "wbr", "o:p"};
    for (const char *n : kLineBreak)
        if (name == n)
            return TagText::LineBreak;
    for (const char *n : kNothing)
        if (name == n)
            return TagText::Nothing;
    return TagText::Space;
}

// Decodes the character reference at html[i] ('&'): a numeric one (&#233; &#xE9;) or one of the
// named ones mail editors write most; appends its text and returns its length, or 0 when there is
// none (the '&' is kept as written).
size_t characterReference(const std::string &html, const std::string &low, size_t i, std::string &out)
{
    if (i + 2 < html.size() && html[i + 1] == '#') {
        const bool hex = low[i + 2] == 'x';
        size_t k = i + (hex ? 3 : 2);
        const size_t begin = k;
        uint32_t cp = 0;
        while (k < html.size() && k - begin < 8 && std::isxdigit(static_cast<unsigned char>(html[k]))
               && (hex || std::isdigit(static_cast<unsigned char>(html[k])))) {
            const int d = hexDigitValue(html[k]);
            cp = cp * (hex ? 16u : 10u) + uint32_t(d);
            ++k;
        }
        if (k == begin || k >= html.size() || html[k] != ';' || cp == 0 || cp > 0x10FFFF
            || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        appendUtf8(out, char32_t(cp));
        return k + 1 - i;
    }
    static const std::pair<const char *, const char *> kEntities[] = {
        {"&nbsp;", " "}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"},
        {"&shy;", ""}, {"&rsquo;", "\u2019"}, {"&lsquo;", "\u2018"}, {"&rdquo;", "\u201D"},
        {"&ldquo;", "\u201C"}, {"&ndash;", "\u2013"}, {"&mdash;", "\u2014"}, {"&hellip;", "\u2026"},
        {"&euro;", "\u20AC"}, {"&pound;", "\u00A3"}, {"&copy;", "\u00A9"}, {"&reg;", "\u00AE"},
        {"&trade;", "\u2122"}, {"&bull;", "\u2022"}, {"&middot;", "\u00B7"}, {"&laquo;", "\u00AB"},
        {"&raquo;", "\u00BB"}, {"&zwnj;", "\u200C"}, {"&zwj;", "\u200D"}};
    for (const auto &[name, text] : kEntities) {
        const size_t n = std::char_traits<char>::length(name);
        if (low.compare(i, n, name) == 0) {
            out += text;
            return n;
        }
    }
    return 0;
}

// Text of an HTML part: tags (and the contents of style and script elements, and comments)
// removed as tagText() says, character references decoded, runs of blank lines collapsed.
std::string htmlToText(const std::string &html)
{
    std::string out;
    out.reserve(html.size() / 2);
    const std::string low = lower(html);
    size_t i = 0;
    while (i < html.size()) {
        const char c = html[i];
        if (c == '<') {
            if (low.compare(i, 4, "<!--") == 0) { // a comment (Outlook's conditional ones too): nothing
                const size_t close = low.find("-->", i + 4);
                i = close == std::string::npos ? html.size() : close + 3;
                continue;
            }
            for (const char *skip : {"style", "script"}) {
                const std::string open = std::string("<") + skip;
                if (low.compare(i, open.size(), open) == 0) {
                    const size_t close = low.find(std::string("</") + skip, i);
                    i = close == std::string::npos ? html.size() : close;
                    break;
                }
            }
            const size_t end = html.find('>', i);
            if (end == std::string::npos)
                break;
            switch (tagText(std::string_view(low).substr(i, end - i))) {
            case TagText::LineBreak: out += '\n'; break;
            case TagText::Space: out += ' '; break;
            case TagText::Nothing: break;
            }
            i = end + 1;
            continue;
        }
        if (c == '&') {
            if (const size_t n = characterReference(html, low, i, out)) {
                i += n;
                continue;
            }
        }
        out += c;
        ++i;
    }
    // Collapse the blank lines the removed tags leave.
    std::string collapsed;
    int newlines = 0;
    for (char ch : out) {
        if (ch == '\n') {
            if (++newlines > 2)
                continue;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            newlines = 0;
        }
        collapsed += ch;
    }
    return collapsed;
}

std::string joinLines(const std::vector<std::string_view> &lines, size_t begin, size_t end)
{
    std::string out;
    for (size_t i = begin; i < end; ++i) {
        out.append(lines[i]);
        if (i + 1 < end)
            out += '\n';
    }
    return out;
}

struct Parts
{
    std::vector<std::string> plain, html;
    std::vector<std::string> other; // the types of parts that are not text, each once
};

constexpr int kMaxDepth = 8;

// Adds the readable text of the entity at lines[bodyBegin, end) with headers `h` to `parts`.
void collect(const std::vector<std::string_view> &lines, size_t bodyBegin, size_t end, const Headers &h, int depth,
             Parts &parts)
{
    const bool multipart = h.content_type.rfind("multipart/", 0) == 0 && !h.boundary.empty();
    const bool isText = h.content_type.empty() || h.content_type.rfind("text/", 0) == 0;
    if (!multipart && !isText && std::find(parts.other.begin(), parts.other.end(), h.content_type) == parts.other.end())
        parts.other.push_back(h.content_type);
    if (h.attachment)
        return;
    if (multipart && depth < kMaxDepth) {
        const std::string delimiter = "--" + h.boundary;
        size_t partBegin = std::string::npos;
        for (size_t i = bodyBegin; i <= end; ++i) {
            const bool atEnd = i == end;
            const std::string_view line = atEnd ? std::string_view() : trimView(lines[i]);
            const bool isDelimiter = !atEnd && line.rfind(delimiter, 0) == 0
                && (line.size() == delimiter.size() || line.substr(delimiter.size()) == "--");
            if (!isDelimiter && !atEnd)
                continue;
            if (partBegin != std::string::npos) {
                Headers ph; // RFC 2046 5.1: a part without headers is text/plain
                size_t partBody = readHeaders(lines, partBegin, i, false, ph);
                if (partBody == std::string::npos) {
                    ph = Headers();
                    partBody = partBegin < i && lines[partBegin].empty() ? partBegin + 1 : partBegin;
                }
                collect(lines, partBody, i, ph, depth + 1, parts);
            }
            if (atEnd || line.substr(delimiter.size()) == "--")
                break;
            partBegin = i + 1;
        }
        return;
    }
    const bool plain = h.content_type.empty() || h.content_type == "text/plain" || multipart;
    const bool html = h.content_type == "text/html";
    if (!plain && !html)
        return;
    std::string text = joinLines(lines, bodyBegin, end);
    if (h.transfer_encoding == "quoted-printable")
        text = decodeQuotedPrintable(text);
    else if (h.transfer_encoding == "base64")
        text = decodeBase64(text);
    (plain ? parts.plain : parts.html).push_back(std::move(text));
}

bool isAttribution(std::string_view line)
{
    const std::string_view t = trimView(line);
    return t.size() >= 6 && t.substr(t.size() - 6) == "wrote:";
}

} // namespace

std::string stripQuotedReplies(std::string_view text)
{
    const std::vector<std::string_view> lines = splitLines(text);
    std::vector<bool> drop(lines.size(), false);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view t = trimView(lines[i]);
        if (!t.empty() && t.front() == '>')
            drop[i] = true;
        else if (t.rfind("On ", 0) == 0) {
            if (isAttribution(t))
                drop[i] = true;
            else if (i + 1 < lines.size() && isAttribution(lines[i + 1]) && !trimView(lines[i + 1]).empty()
                     && trimView(lines[i + 1]).front() != '>') {
                drop[i] = drop[i + 1] = true;
                ++i;
            }
        }
    }
    std::string out;
    bool first = true;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (drop[i])
            continue;
        if (!first)
            out += '\n';
        out.append(lines[i]);
        first = false;
    }
    return out;
}

std::string emptyBodyReason(const EmailBodyInfo &info)
{
    if (info.is_message && info.from_html && info.html_images > 0)
        return "the mail's HTML holds only images (" + std::to_string(info.html_images)
               + ") and links, no text (an image-only mail)";
    if (!info.is_message || info.other_types.empty())
        return {};
    std::string types;
    bool images = true;
    for (const std::string &t : info.other_types) {
        types += (types.empty() ? "" : ", ") + t;
        images = images && t.rfind("image/", 0) == 0;
    }
    return "the mail has no text, only " + types + (images ? " (an image-only mail)" : "");
}

std::string emailBody(std::string_view message, bool stripQuotes, EmailBodyInfo *info)
{
    const std::vector<std::string_view> lines = splitLines(message);
    Headers h;
    const size_t bodyBegin = readHeaders(lines, 0, lines.size(), true, h);
    std::string body;
    if (bodyBegin == std::string::npos) {
        body = joinLines(lines, 0, lines.size());
    } else {
        Parts parts;
        collect(lines, bodyBegin, lines.size(), h, 0, parts);
        // A blank text/plain alternative beside an HTML one is no text: the HTML gives the body.
        const bool plainHasText = std::any_of(parts.plain.begin(), parts.plain.end(), [](const std::string &p) {
            return p.find_first_not_of(" \t\r\n") != std::string::npos;
        });
        const bool fromHtml = !plainHasText && !parts.html.empty();
        const std::vector<std::string> &chosen = fromHtml ? parts.html : parts.plain;
        if (info) {
            info->is_message = true;
            info->from_html = fromHtml;
            info->other_types = parts.other;
            if (fromHtml)
                for (const std::string &p : chosen) {
                    const std::string low = lower(p);
                    for (size_t at = low.find("<img"); at != std::string::npos; at = low.find("<img", at + 4))
                        ++info->html_images;
                }
        }
        for (const std::string &p : chosen) {
            if (!body.empty())
                body += "\n\n";
            // Decoding may bring back CRLF line ends (base64 / quoted-printable), in HTML too.
            std::string text;
            text.reserve(p.size());
            for (char c : p)
                if (c != '\r')
                    text += c;
            body += fromHtml ? htmlToText(text) : text;
        }
    }
    return stripQuotes ? stripQuotedReplies(body) : body;
}

} // namespace wb
