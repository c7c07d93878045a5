// SPDX-License-Identifier: Apache-2.0
#include "core/data/recordbuckets.h"

#include "core/data/mlmmasking.h"
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"
#include "core/util/error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace wb {

namespace fs = std::filesystem;

// One bucket of framed records, written with stdio.
class RecordBuckets::File
{
public:
    File(std::string path, const std::string &hint) : m_path(std::move(path))
    {
        m_file = std::fopen(m_path.c_str(), "wb");
        if (!m_file)
            throw Error(m_path, std::string("cannot create a temporary file: ") + std::strerror(errno), hint);
    }
    ~File() { close(); }
    File(const File &) = delete;
    File &operator=(const File &) = delete;
    void write(const std::string &payload)
    {
        const std::string framed = TFRecordWriter::frame(payload);
        if (std::fwrite(framed.data(), 1, framed.size(), m_file) != framed.size())
            fail();
    }
    void finish()
    {
        const bool ok = std::fflush(m_file) == 0;
        close();
        if (!ok)
            fail();
    }
    const std::string &path() const { return m_path; }

private:
    void close()
    {
        if (m_file)
            std::fclose(m_file);
        m_file = nullptr;
    }
    [[noreturn]] void fail() const
    {
        throw Error(m_path, std::string("write failed: ") + std::strerror(errno), "Check the free disk space.");
    }
    std::string m_path;
    FILE *m_file = nullptr;
};

RecordBuckets::RecordBuckets(const fs::path &folder, uint64_t count, const std::string &hint) : m_folder(folder)
{
    std::error_code ec;
    fs::remove_all(m_folder, ec);
    if (!fs::create_directory(m_folder, ec) || ec) {
        const std::string why = ec ? ": " + ec.message() : std::string();
        m_folder.clear(); // not ours: the destructor leaves it
        throw Error(folder.parent_path().string(), "cannot write in the output folder" + why, hint);
    }
    try {
        for (uint64_t b = 0; b < count; ++b)
            m_files.push_back(std::make_unique<File>((m_folder / ("bucket-" + std::to_string(b))).string(), hint));
    } catch (...) {
        m_files.clear(); // a constructor that throws runs no destructor: leave nothing behind
        fs::remove_all(m_folder, ec);
        throw;
    }
}

RecordBuckets::~RecordBuckets()
{
    m_files.clear(); // closes the files before their folder goes
    std::error_code ec;
    if (!m_folder.empty())
        fs::remove_all(m_folder, ec);
}

void RecordBuckets::add(std::mt19937_64 &rng, const std::string &payload)
{
    m_files[size_t(mlmBelow(rng, m_files.size()))]->write(payload);
}

int64_t RecordBuckets::deal(std::vector<std::unique_ptr<TFRecordWriter>> &outputs, std::mt19937_64 &rng,
                            uint64_t maxBytes, const std::function<void(uint64_t)> &afterBucket)
{
    int64_t dealt = 0;
    std::error_code ec;
    for (uint64_t b = 0; b < m_files.size(); ++b) {
        m_files[b]->finish();
        const std::string path = m_files[b]->path();
        m_files[b].reset();
        TFRecordReader in(path);
        std::vector<std::string> records;
        uint64_t bytes = 0;
        bool more = true;
        while (more) {
            std::string payload;
            more = in.read(payload);
            if (more) {
                bytes += payload.size();
                records.push_back(std::move(payload));
            }
            if (!more || bytes >= maxBytes) {
                for (size_t i = records.size(); i > 1; --i)
                    std::swap(records[i - 1], records[size_t(mlmBelow(rng, i))]);
                for (const auto &r : records)
                    outputs[size_t(dealt++ % int64_t(outputs.size()))]->write(r);
                records.clear();
                bytes = 0;
            }
        }
        fs::remove(path, ec);
        if (afterBucket)
            afterBucket(b);
    }
    return dealt;
}

} // namespace wb
