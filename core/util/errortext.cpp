// SPDX-License-Identifier: Apache-2.0
#include "core/util/errortext.h"

#include "core/util/error.h"

#include <filesystem>

namespace wb {

namespace {

std::string firstLine(const std::string &s)
{
    const auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

/// "filesystem error: cannot create directories: Not a directory [/proc/self/x]" →
/// "cannot create directories: Not a directory".
std::string filesystemReason(const std::filesystem::filesystem_error &e)
{
    std::string s = e.what();
    const std::string prefix = "filesystem error: ";
    if (s.rfind(prefix, 0) == 0)
        s.erase(0, prefix.size());
    for (const auto *p : {&e.path2(), &e.path1()}) {
        if (p->empty())
            continue;
        const std::string suffix = " [" + p->string() + "]";
        if (s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
            s.erase(s.size() - suffix.size());
    }
    return s.empty() ? e.code().message() : s;
}

} // namespace

std::string ErrorText::line() const
{
    return field.empty() ? message : field + ": " + message;
}

std::string ErrorText::toText() const
{
    return hint.empty() ? line() : line() + "\n" + hint;
}

ErrorText describeException(const std::exception_ptr &e, const std::string &fallbackField)
{
    ErrorText t;
    t.field = fallbackField;
    try {
        if (e)
            std::rethrow_exception(e);
        t.message = "unknown error";
    } catch (const Error &err) {
        if (!err.field().empty())
            t.field = err.field();
        t.message = err.what();
        t.hint = err.hint();
    } catch (const std::filesystem::filesystem_error &err) {
        if (!err.path1().empty())
            t.field = err.path1().string();
        t.message = filesystemReason(err);
    } catch (const std::bad_alloc &) {
        t.message = "out of memory";
        t.hint = "use a smaller batch size, max_seq_length or model, or free memory";
    } catch (const std::exception &err) {
        t.message = firstLine(err.what()); // c10::Error appends a backtrace after the first line
    } catch (...) {
        t.message = "unknown error";
    }
    if (t.message.empty())
        t.message = "unknown error";
    return t;
}

ErrorText describeCurrentException(const std::string &fallbackField)
{
    return describeException(std::current_exception(), fallbackField);
}

} // namespace wb
