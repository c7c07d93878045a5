// SPDX-License-Identifier: Apache-2.0
#include "core/config/jsonfile.h"

#include "core/util/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace wb {

namespace {

// Converts a byte offset into 1-based line and column numbers.
void lineColumn(const std::string &text, std::size_t offset, int &line, int &column)
{
    line = 1;
    column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
}

// Deepest nesting of arrays and objects accepted. nlohmann::json parses any depth, but dump()
// (used in error messages) recurses once per level and overflowed the stack at ~300,000.
constexpr std::size_t kMaxJsonDepth = 512;

// Returns the offset of the bracket that opens level kMaxJsonDepth + 1, or npos.
std::size_t tooDeepAt(const std::string &text)
{
    std::size_t depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string::npos;
}

} // namespace

std::optional<nlohmann::json> parseJsonObject(const std::string &textIn, const std::string &source,
                                              Diagnostics &diag)
{
    std::string text = textIn;
    if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        text.erase(0, 3);
        diag.warning(source, "the file starts with a UTF-8 byte order mark; it was skipped",
                     "save the file as UTF-8 without BOM");
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        diag.error(source, "the file is empty; a JSON object was expected",
                   "write a JSON object such as {\"vocab_size\": 30522, ...} into it");
        return std::nullopt;
    }
    if (const std::size_t at = tooDeepAt(text); at != std::string::npos) {
        int line = 0;
        int column = 0;
        lineColumn(text, at, line, column);
        diag.error(source,
                   "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column)
                       + ": arrays and objects are nested more than " + std::to_string(kMaxJsonDepth) + " levels deep",
                   "the file is damaged or not a configuration file");
        return std::nullopt;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &e) {
        int line = 0;
        int column = 0;
        const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
        lineColumn(text, at, line, column);
        std::string what = e.what();
        // nlohmann's message starts with "[json.exception.parse_error.101] parse error at ...".
        const auto pos = what.find(": ");
        std::string detail = pos == std::string::npos ? what : what.substr(pos + 2);
        diag.error(source,
                   "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column)
                       + ": " + detail,
                   "fix the syntax there (a missing comma, quote or brace is the usual cause)");
        return std::nullopt;
    } catch (const nlohmann::json::out_of_range &e) {
        // A number beyond the range of double, e.g. 1e999 (found by fuzz/fuzz_bertconfig).
        std::string what = e.what();
        const auto pos = what.find("] ");
        std::string detail = pos == std::string::npos ? what : what.substr(pos + 2);
        diag.error(source, "invalid JSON: " + detail, "write the number within the range of a double (about 1.8e308)");
        return std::nullopt;
    }
    if (!j.is_object()) {
        diag.error(source, std::string("the top level is a JSON ") + j.type_name() + ", not an object",
                   "the file must contain one JSON object {...}");
        return std::nullopt;
    }
    return j;
}

std::optional<nlohmann::json> readJsonObjectFile(const std::string &path, Diagnostics &diag)
{
    std::error_code ec;
    if (path.empty()) {
        diag.error("(no file)", "no file name was given");
        return std::nullopt;
    }
    if (!fs::exists(path, ec)) {
        diag.error(path, "file not found", "check the path; relative paths are relative to the working directory");
        return std::nullopt;
    }
    if (fs::is_directory(path, ec)) {
        diag.error(path, "is a directory, not a file", "choose the JSON file inside it");
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diag.error(path, std::string("cannot be read: ") + std::strerror(errno), "check the file permissions");
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return parseJsonObject(ss.str(), path, diag);
}

void writeFileAtomic(const std::string &path, const std::string &text)
{
    const fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path())
        fs::create_directories(target.parent_path(), ec);
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::FILE *f = std::fopen(tmp.c_str(), "wb");
        if (!f)
            throw Error(path, std::string("cannot write: ") + std::strerror(errno),
                        "check that the directory exists and is writable");
        const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0
                        && ::fsync(fileno(f)) == 0;
        const int err = errno;
        const bool closed = std::fclose(f) == 0;
        if (!ok || !closed) {
            std::remove(tmp.c_str());
            throw Error(path, std::string("write failed: ") + std::strerror(ok ? errno : err),
                        "free some disk space (or raise the file size limit) and try again");
        }
    }
    fs::rename(tmp, target, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw Error(path, "cannot replace the file: " + ec.message());
    }
}

namespace {

/// fsync(2) of a file or directory opened read-only; false when it cannot be opened or synced.
bool syncPath(const std::string &path, bool directory)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

} // namespace

void commitFileAtomic(const std::string &tmp, const std::string &path)
{
    if (!syncPath(tmp, false)) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error(path, "could not flush the new file to disk: " + why, "check the free disk space and try again");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        std::remove(tmp.c_str());
        throw Error(path, "could not rename the new file into place: " + ec.message());
    }
    const fs::path parent = fs::path(path).parent_path();
    syncPath(parent.empty() ? std::string(".") : parent.string(), true); // best effort: the rename is done
}

} // namespace wb
