// SPDX-License-Identifier: Apache-2.0
#include "core/io/eventwriter.h"

#include "core/io/event.pb.h"
#include "core/data/tfrecordwriter.h"
#include "core/util/error.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace wb {

namespace {

constexpr const char *kFileVersion = "brain.Event:2";  // TensorBoard's current event format

std::string eventFileName(double wall_time, const std::string &host)
{
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%010lld", static_cast<long long>(std::floor(wall_time)));
    return std::string("events.out.tfevents.") + stamp + "." + host;
}

} // namespace

double EventWriter::now()
{
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count() / 1e6;
}

std::string EventWriter::hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
        return "localhost";
    std::string host(buf);
    for (char &c : host)
        if (c == '/')
            c = '_';
    return host;
}

EventWriter::EventWriter(const std::string &logdir, double wall_time)
{
    if (wall_time <= 0)
        wall_time = now();
    std::error_code ec;
    std::filesystem::create_directories(logdir, ec);
    if (ec || !std::filesystem::is_directory(logdir))
        throw Error(logdir, "cannot create the summary directory: " + ec.message(),
                    "check that the model_dir is writable and is not a file");
    const std::string base = (std::filesystem::path(logdir) / eventFileName(wall_time, hostName())).string();
    for (int n = 0; n < 1000 && !m_file; ++n) {
        m_path = n == 0 ? base : base + "." + std::to_string(n);
        m_file = std::fopen(m_path.c_str(), "wbx");  // exclusive: never clobber another writer
        if (!m_file && errno != EEXIST)
            throw Error(m_path, std::string("cannot create the event file: ") + std::strerror(errno),
                        "check that the model_dir is writable and the disk is not full");
    }
    if (!m_file)
        throw Error(base, "cannot find a free event file name", "remove stale event files from " + logdir);

    tb::Event event;
    event.set_wall_time(wall_time);
    event.set_file_version(kFileVersion);
    writeRecord(event.SerializeAsString());
    flush();
}

EventWriter::~EventWriter()
{
    if (m_file)
        std::fclose(m_file);
}

void EventWriter::addScalar(const std::string &tag, int64_t step, double value, double wall_time)
{
    tb::Event event;
    event.set_wall_time(wall_time > 0 ? wall_time : now());
    event.set_step(step);
    tb::Summary::Value *v = event.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(value));
    writeRecord(event.SerializeAsString());
}

void EventWriter::writeRecord(const std::string &payload)
{
    const std::string record = TFRecordWriter::frame(payload);
    if (std::fwrite(record.data(), 1, record.size(), m_file) != record.size())
        throw Error(m_path, std::string("cannot write the event file: ") + std::strerror(errno),
                    "check that the disk is not full");
    ++m_records;
}

void EventWriter::flush()
{
    if (std::fflush(m_file) != 0)
        throw Error(m_path, std::string("cannot write the event file: ") + std::strerror(errno),
                    "check that the disk is not full");
}

} // namespace wb
