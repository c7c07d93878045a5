// SPDX-License-Identifier: Apache-2.0
#include "core/io/eventreader.h"

#include "core/io/event.pb.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace wb {

namespace {

constexpr int kDtFloat = 1;   // tensorflow.DataType DT_FLOAT
constexpr int kDtDouble = 2;  // tensorflow.DataType DT_DOUBLE

/// Returns the single value of a rank-0 (or one-element) float/double tensor.
std::optional<double> scalarFromTensor(const tb::TensorProto &t)
{
    if (t.dtype() == kDtFloat) {
        if (t.float_val_size() >= 1)
            return t.float_val(0);
        if (t.tensor_content().size() == sizeof(float)) {
            float f;
            std::memcpy(&f, t.tensor_content().data(), sizeof f);  // little-endian hosts only
            return f;
        }
    } else if (t.dtype() == kDtDouble) {
        if (t.double_val_size() >= 1)
            return t.double_val(0);
        if (t.tensor_content().size() == sizeof(double)) {
            double d;
            std::memcpy(&d, t.tensor_content().data(), sizeof d);
            return d;
        }
    }
    return std::nullopt;
}

} // namespace

bool EventReader::isEventFile(const std::string &path)
{
    return fs::path(path).filename().string().find("tfevents") != std::string::npos;
}

namespace {

/// Reads `path` into `out`; throws wb::Error on damage, leaving what was read before in `out`.
void readInto(const std::string &path, EventFileContents &out)
{
    if (fs::is_directory(path))
        throw Error(path, "is a directory, not an event file",
                    "open the directory as a log directory, or choose an events.out.tfevents.* file");
    out.path = path;
    TFRecordReader reader(path);
    std::map<std::string, std::string> pluginOfTag;  // TF2 writes metadata on a tag's first value only
    std::string payload;
    while (reader.read(payload)) {
        tb::Event event;
        if (!event.ParseFromString(payload))
            throw Error(reader.location(),
                        "the record is not a TensorBoard Event",
                        "open a directory of TensorBoard event files (events.out.tfevents.*)");
        if (event.what_case() == tb::Event::kFileVersion) {
            if (out.file_version.empty())
                out.file_version = event.file_version();
            ++out.records;
            continue;
        }
        ++out.records;
        if (event.what_case() != tb::Event::kSummary)
            continue;
        for (const tb::Summary::Value &v : event.summary().value()) {
            if (v.has_metadata() && !v.metadata().plugin_data().plugin_name().empty())
                pluginOfTag[v.tag()] = v.metadata().plugin_data().plugin_name();
            std::optional<double> value;
            if (v.value_case() == tb::Summary::Value::kSimpleValue) {
                value = v.simple_value();
            } else if (v.value_case() == tb::Summary::Value::kTensor) {
                const auto it = pluginOfTag.find(v.tag());
                if (it == pluginOfTag.end() || it->second == "scalars")
                    value = scalarFromTensor(v.tensor());
            }
            if (value)
                out.scalars.push_back({v.tag(), event.step(), event.wall_time(), *value});
        }
    }
}

} // namespace

EventFileContents EventReader::readFile(const std::string &path)
{
    EventFileContents out;
    readInto(path, out);
    return out;
}


std::vector<ScalarRun> EventReader::readRuns(const std::string &logdir)
{
    std::error_code ec;
    if (!fs::exists(logdir, ec))
        throw Error(logdir, "the TensorBoard log directory does not exist",
                    "choose a directory that contains events.out.tfevents.* files, e.g. model_dir/summaries");

    std::map<std::string, std::vector<std::string>> filesByDir;  // sorted: runs by name
    if (fs::is_regular_file(logdir)) {
        filesByDir[fs::path(logdir).parent_path().string()].push_back(logdir);
    } else {
        for (fs::recursive_directory_iterator it(logdir, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            if (it->is_regular_file(ec) && isEventFile(it->path().string()))
                filesByDir[it->path().parent_path().string()].push_back(it->path().string());
        }
    }
    if (filesByDir.empty())
        throw Error(logdir, "no TensorBoard event files (events.out.tfevents.*) found",
                    "choose the directory TensorBoard would be started with, e.g. model_dir/summaries");

    std::vector<ScalarRun> runs;
    for (auto &[dir, files] : filesByDir) {
        std::sort(files.begin(), files.end());
        ScalarRun run;
        run.dir = dir;
        if (fs::is_regular_file(logdir))
            run.name = fs::path(logdir).filename().string();
        else
            run.name = fs::path(dir).lexically_relative(logdir).lexically_normal().generic_string();
        if (run.name.empty() || run.name == "./")
            run.name = ".";
        if (run.name.size() > 1 && run.name.back() == '/')
            run.name.pop_back();
        for (const std::string &file : files) {
            run.files.push_back(file);
            EventFileContents c;
            try {
                readInto(file, c);
            } catch (const Error &e) {
                run.warnings.push_back(e.field() + ": " + e.what() + "; kept the " +
                                       std::to_string(c.records) + " records before it");
            }
            for (const ScalarEvent &s : c.scalars)
                run.series[s.tag].push_back({s.step, s.wall_time, s.value});
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

} // namespace wb
