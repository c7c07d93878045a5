// SPDX-License-Identifier: Apache-2.0
// LabelStore (core/label/labelstore.h): the labels file on disk. A label is one O_APPEND write and
// an fsync; undo and relabel are atomic rewrites (commitFileAtomic, core/config/jsonfile.h).
#include "core/label/labelstore.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"
#include "core/util/uniquefd.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace wb {

namespace fs = std::filesystem;

namespace {

std::string systemError(const std::string &what) { return what + ": " + std::strerror(errno); }

// fsync(2) of the folder holding `path` (a new name in it is then durable); best effort.
void syncFolderOf(const std::string &path)
{
    const fs::path parent = fs::path(path).parent_path();
    const UniqueFd fd(::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.valid())
        (void)::fsync(fd.get());
}

// The file's size (0 when it does not exist).
uint64_t sizeOf(const std::string &path)
{
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// Brings the file to `size` bytes: truncated (a cut record dropped) or, when `lineEnd`, with "\n"
// appended (a last record an editor saved without one); fsynced.
void repair(const std::string &path, uint64_t size, bool lineEnd)
{
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    bool ok = fd.valid() && ::ftruncate(fd.get(), off_t(size)) == 0;
    if (ok && lineEnd)
        ok = ::pwrite(fd.get(), "\n", 1, off_t(size)) == 1;
    if (!ok || ::fsync(fd.get()) != 0)
        throw Error(path, systemError("cannot repair the labels file after a crash"),
                    "Check that the file is writable; the labels read from it are kept");
}

} // namespace

LabelStore LabelStore::open(const std::string &path)
{
    LabelsRead read = readLabelsCsv(path);
    LabelStore store;
    store.m_path = path;
    store.m_labels = std::move(read.labels);
    store.m_cutTail = std::move(read.cut_tail);
    store.m_size = read.complete_bytes;
    const uint64_t onDisk = sizeOf(path);
    if (onDisk != read.complete_bytes || read.missing_line_end) {
        repair(path, read.complete_bytes, read.missing_line_end);
        store.m_size = read.complete_bytes + (read.missing_line_end ? 1 : 0);
    }
    return store;
}

int64_t LabelStore::find(const std::string &file, int64_t line) const
{
    if (file.empty())
        return -1;
    for (size_t i = 0; i < m_labels.size(); ++i)
        if (m_labels[i].file == file && m_labels[i].line == line)
            return int64_t(i);
    return -1;
}

void LabelStore::checkSize() const
{
    if (sizeOf(m_path) != m_size)
        throw Error(m_path, "the labels file was changed by another program since it was opened",
                    "Open it again (the labels on disk are kept); label in one window at a time");
}

void LabelStore::append(PoolLabel label)
{
    if (label.time.empty())
        label.time = labelTimeNow();
    std::string bytes = labelCsvRecord(label); // throws for a label prepare would read differently
    if (find(label.file, label.line) >= 0)
        throw Error(m_path + ": " + label.file + (label.line > 0 ? ":" + std::to_string(label.line) : ""),
                    "the text already has a label", "Change its label (relabel) instead of adding a second one");
    if (m_size == 0)
        bytes = labelsCsvHeader() + bytes;
    checkSize();
    const bool created = !fs::exists(m_path);
    std::error_code ec;
    if (created && fs::path(m_path).has_parent_path())
        fs::create_directories(fs::path(m_path).parent_path(), ec); // a failure shows in open(2)
    const UniqueFd fd(::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (!fd.valid())
        throw Error(m_path, systemError("cannot open the labels file"), "Check that the folder is writable");
    size_t done = 0;
    while (done < bytes.size()) { // one write(2) unless the kernel takes less
        const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += size_t(n);
    }
    if (done < bytes.size() || ::fsync(fd.get()) != 0) {
        const std::string why = systemError("cannot save the label");
        (void)::ftruncate(fd.get(), off_t(m_size)); // leave no partial line behind
        (void)::fsync(fd.get());
        throw Error(m_path, why, "Free some disk space and label the text again");
    }
    if (created)
        syncFolderOf(m_path);
    m_size += bytes.size();
    m_labels.push_back(std::move(label));
}

PoolLabel LabelStore::undoLast()
{
    if (m_labels.empty())
        throw Error(m_path, "there is no label to undo", "Label a text first");
    std::vector<PoolLabel> kept(m_labels.begin(), m_labels.end() - 1);
    PoolLabel last = m_labels.back();
    rewrite(std::move(kept));
    return last;
}

void LabelStore::relabel(int64_t index, const std::string &label)
{
    if (index < 0 || index >= int64_t(m_labels.size()))
        throw Error(m_path, "there is no label number " + std::to_string(index) + " (the file has "
                                + std::to_string(m_labels.size()) + ")",
                    "Pick one of the labels listed");
    std::vector<PoolLabel> labels = m_labels;
    labels[size_t(index)].label = label;
    labels[size_t(index)].time = labelTimeNow();
    rewrite(std::move(labels));
}

void LabelStore::rewrite(std::vector<PoolLabel> labels)
{
    std::set<std::pair<std::string, int64_t>> ids;
    for (const PoolLabel &l : labels)
        if (!l.file.empty() && !ids.emplace(l.file, l.line).second)
            throw Error(m_path + ": " + l.file + (l.line > 0 ? ":" + std::to_string(l.line) : ""),
                        "two labels for one text", "Keep one label per text");
    const std::string text = labelsCsv(labels); // throws for a bad label: nothing written
    checkSize();
    const std::string tmp = m_path + ".tmp." + std::to_string(::getpid());
    {
        const UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        bool ok = fd.valid();
        for (size_t done = 0; ok && done < text.size();) {
            const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
            ok = n > 0 || (n < 0 && errno == EINTR);
            done += n > 0 ? size_t(n) : 0;
        }
        if (!ok) {
            const std::string why = systemError("cannot write the labels file");
            ::unlink(tmp.c_str());
            throw Error(m_path, why, "Free some disk space and try again; the labels file is unchanged");
        }
    }
    commitFileAtomic(tmp, m_path); // fsync, rename, fsync of the folder
    m_size = text.size();
    m_labels = std::move(labels);
}

} // namespace wb
