// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <stdexcept>
#include <string>

namespace wb {

/// Error raised by the core for bad input or a failed run.
///
/// `what()` is the full message. `field` names the file, flag, JSON key or record the
/// problem is about (e.g. "train.tf_record: record 17 at byte 4096"), `hint` says how to
/// fix it. Thrown by loaders and the Trainer; front-ends show field, message and hint.
/// Thread rule: a plain value, safe to copy between threads.
class Error : public std::runtime_error
{
public:
    Error(std::string field, const std::string &message, std::string hint = {})
        : std::runtime_error(message), m_field(std::move(field)), m_hint(std::move(hint))
    {
    }

    /// Returns the file, flag, key or record the error is about (may be empty).
    const std::string &field() const noexcept { return m_field; }
    /// Returns a one-sentence suggestion for fixing the problem (may be empty).
    const std::string &hint() const noexcept { return m_hint; }

private:
    std::string m_field;
    std::string m_hint;
};

/// A wait that ended because the user asked to stop (a StopToken request while a cluster was
/// forming, for example). Front-ends report it as a stopped run (RunStatus::Cancelled, exit
/// 130), not as a failure.
class StoppedByUser : public Error
{
public:
    using Error::Error;
};

} // namespace wb
