// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb {

/// One scalar summary value read from an event file.
struct ScalarEvent
{
    std::string tag;       ///< e.g. "loss", "eval_accuracy", "epoch_loss"
    int64_t step = 0;      ///< global step of the event
    double wall_time = 0;  ///< seconds since the Unix epoch
    double value = 0;      ///< the scalar (float32 in the file for simple_value / DT_FLOAT)
};

/// Everything EventReader::readFile() extracts from one event file.
struct EventFileContents
{
    std::string path;
    std::string file_version;          ///< e.g. "brain.Event:2" (empty if the file has none)
    std::vector<ScalarEvent> scalars;  ///< in file order
    int64_t records = 0;               ///< records read (all kinds)
};

/// One point of a scalar series.
struct ScalarPoint
{
    int64_t step = 0;
    double wall_time = 0;
    double value = 0;
};

/// The scalars of one TensorBoard "run": a directory that directly holds event files.
struct ScalarRun
{
    std::string name;    ///< path relative to the opened logdir ("." for the logdir itself)
    std::string dir;     ///< absolute/as-given path of the directory
    std::map<std::string, std::vector<ScalarPoint>> series;  ///< tag -> points in file order
    std::vector<std::string> files;     ///< event files read, in name order
    std::vector<std::string> warnings;  ///< e.g. a truncated or corrupt file (rest still read)
};

/// Reads scalar summaries from TensorBoard event files: ours (EventWriter), TF1/Keras
/// `simple_value` scalars, and TF2 `tf.summary.scalar` tensors (scalars plugin, DT_FLOAT or
/// DT_DOUBLE, as float_val/double_val or tensor_content). Other summaries (histograms,
/// images, text, graphs) are skipped.
///
/// Stateless; all functions are thread-safe and may run on any thread.
class EventReader
{
public:
    /// Returns true when the base name of `path` contains "tfevents" (TensorBoard's rule).
    static bool isEventFile(const std::string &path);

    /// Reads one event file (plain, or GZIP/ZLIB compressed) with core/data's TFRecordReader,
    /// so both CRCs of every record are verified. Throws wb::Error naming the file and the
    /// record when it cannot be opened, a CRC does not match, it ends inside a record, or a
    /// record is not an Event.
    static EventFileContents readFile(const std::string &path);

    /// Reads a TensorBoard log directory: every directory below `logdir` (including itself)
    /// that directly holds event files is one run; runs are sorted by name, files within a
    /// run read in name order. `logdir` may also be a single event file (one run named after
    /// the file). A corrupt or truncated file (e.g. one still being written) adds a warning
    /// to its run and keeps the records before the damage. Throws wb::Error when `logdir` does not exist or holds no event file.
    static std::vector<ScalarRun> readRuns(const std::string &logdir);
};

} // namespace wb
