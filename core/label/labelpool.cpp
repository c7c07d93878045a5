// SPDX-License-Identifier: Apache-2.0
// The pool of "Label to learn": reading the texts to label, their ids, the held-out rule.
#include "core/label/labelpool.h"

#include "core/prepare/emailbody.h"
#include "core/prepare/preparesource.h"
#include "core/prepare/textinput.h"
#include "core/util/asciitext.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace wb {

namespace fs = std::filesystem;

namespace {

uint64_t fnv1a64(const std::string &s)
{
    uint64_t h = 14695981039346656037ull; // FNV-1a 64: offset basis and prime (Fowler, Noll, Vo)
    for (const unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

bool hidden(const fs::path &relative)
{
    for (const auto &part : relative)
        if (!part.empty() && part.string().front() == '.')
            return true;
    return false;
}

/// The text as the pool keeps it: valid UTF-8 (windows-1252 otherwise, as prepare reads), NUL
/// bytes as spaces (the labels file cannot hold them), the e-mail body when asked.
std::string poolForm(std::string text, const PoolReadOptions &o)
{
    bool latin1 = false;
    text = prep::toUtf8(std::move(text), latin1);
    if (o.email_body_only) // a decoded body (quoted-printable, base64) can hold any bytes again
        text = prep::toUtf8(emailBody(text), latin1);
    std::replace(text.begin(), text.end(), '\0', ' ');
    return text;
}

bool full(const std::vector<PoolText> &out, const PoolReadOptions &o)
{
    return o.max_texts > 0 && int64_t(out.size()) >= o.max_texts;
}

void readFolder(const fs::path &root, const PoolReadOptions &o, std::vector<PoolText> &out)
{
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path rel = it->path().lexically_relative(root);
        if (hidden(rel)) {
            if (it->is_directory())
                it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file() && rel.filename() != "labels.csv")
            files.push_back(rel);
    }
    if (ec)
        throw Error(root.string(), "cannot list the folder: " + ec.message(), "check that it exists and is readable");
    std::sort(files.begin(), files.end());
    for (const fs::path &rel : files) {
        if (full(out, o))
            break;
        std::string text = poolForm(prep::readWholeFile((root / rel).string()), o);
        if (!trimmed(text).empty())
            out.push_back({std::move(text), rel.generic_string(), 0});
    }
}

void readFile(const fs::path &path, const PoolReadOptions &o, std::vector<PoolText> &out)
{
    TextInputSpec spec;
    spec.format = textFileFormatFromName(path.string());
    spec.text_a_column = o.text_column;
    spec.format_from_name = true;
    const TextInput in = readTextInput(path.string(), spec);
    const std::string name = path.filename().string();
    for (const TextInputRecord &r : in.records) {
        if (full(out, o))
            break;
        if (r.blank)
            continue;
        if (!r.problem.empty())
            throw Error(path.string() + ":" + std::to_string(r.line), r.problem,
                        r.hint.empty() ? "fix the record, or leave it out" : r.hint);
        std::string text = poolForm(r.text_a, o);
        if (!trimmed(text).empty())
            out.push_back({std::move(text), name, r.line});
    }
}

} // namespace

std::vector<PoolText> readLabelPool(const std::string &path, const PoolReadOptions &options)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw Error(path, "no such file or folder", "pick the file or folder of texts to label");
    std::vector<PoolText> out;
    if (fs::is_directory(st))
        readFolder(fs::path(path), options, out);
    else
        readFile(fs::path(path), options, out);
    if (out.empty())
        throw Error(path, "holds no text to label (every text is empty)",
                    fs::is_directory(st) ? "pick a folder of text files, one text per file"
                                         : "pick a file with one text per line, or a CSV/JSONL file and its text column");
    return out;
}

std::string poolTextKey(const PoolText &t)
{
    if (t.file.empty()) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(t.text)));
        return std::string("#") + hex;
    }
    return t.line > 0 ? t.file + ":" + std::to_string(t.line) : t.file;
}

bool isHeldOut(const PoolText &t, double fraction)
{
    if (!(fraction > 0))
        return false;
    return double(fnv1a64(poolTextKey(t)) % 1000) < fraction * 1000.0;
}

} // namespace wb
