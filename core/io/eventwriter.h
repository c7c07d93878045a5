// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace wb {

/// Writes scalar summaries as a TensorBoard event file (tensorflow/core/util/event.proto in TFRecord framing; TensorBoard reads it).
///
/// The constructor creates `logdir` (and missing parents) and the file
/// `logdir/events.out.tfevents.<10-digit unix seconds>.<hostname>` (a ".N" suffix is
/// appended if that name is taken; the file is created exclusively, never overwritten).
/// Its first record is `Event{wall_time, file_version: "brain.Event:2"}`; each addScalar()
/// appends `Event{wall_time, step, summary{value{tag, simple_value}}}`, framed as a TFRecord
/// with masked CRC32C, so TensorBoard (and EventReader) read it, also while it is written.
///
/// Records are buffered; call flush() to make them visible to readers (the destructor
/// flushes too). Errors (directory not creatable, disk full) throw wb::Error naming the path.
/// Thread rule: one instance belongs to one thread; different instances are independent.
class EventWriter
{
public:
    /// Creates the event file in `logdir`; `wall_time` (seconds since the Unix epoch,
    /// default: now) stamps the file name and the file_version record.
    explicit EventWriter(const std::string &logdir, double wall_time = 0);
    ~EventWriter();
    EventWriter(const EventWriter &) = delete;
    EventWriter &operator=(const EventWriter &) = delete;

    /// Appends one scalar: `tag` (e.g. "loss"), global `step`, `value` (stored as float32,
    /// as TensorBoard's simple_value), `wall_time` in seconds since the epoch (0 = now).
    void addScalar(const std::string &tag, int64_t step, double value, double wall_time = 0);

    /// Writes buffered records to the file. Throws wb::Error on a write failure.
    void flush();

    /// Returns the full path of the event file.
    const std::string &path() const { return m_path; }

    /// Returns the number of records written so far (including the file_version record).
    int64_t recordCount() const { return m_records; }

    /// Returns the current time in seconds since the Unix epoch (microsecond resolution).
    static double now();

    /// Returns this machine's host name ("localhost" if it cannot be determined).
    static std::string hostName();

private:
    void writeRecord(const std::string &payload);

    std::string m_path;
    std::FILE *m_file = nullptr;
    int64_t m_records = 0;
};

} // namespace wb
