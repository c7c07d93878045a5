// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading a gzipped tarball with libarchive: the steps the example data's npm tarballs
// (core/prepare/exampledata.cpp) and the pinned npm packages (core/hub/npmpackage.cpp) share.
// Header-only, so that only the libraries that link libarchive (wb_data, wb_hub) compile it.

#include "core/util/error.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace wb {

/// Frees a libarchive reader.
struct ArchiveReadCloser
{
    void operator()(archive *a) const { archive_read_free(a); }
};

/// An open libarchive reader; one owner thread.
using ArchiveReader = std::unique_ptr<archive, ArchiveReadCloser>;

/// What the errors of unpacking say: "cannot unpack the <noun>: …" and how to fix each kind.
struct UnpackWording
{
    std::string noun;         ///< what the tarball is to the user: "archive", "package"
    std::string damagedHint;  ///< the tarball cannot be read (e.g. delete it so that it is downloaded again)
    std::string writeHint;    ///< an unpacked file cannot be created (may be empty)
    std::string diskFullHint; ///< an unpacked file cannot be completed (may be empty)
};

/// Throws wb::Error naming `where` (the tarball, or "<tarball>: <entry>") with libarchive's
/// error of `a`: "cannot unpack the <noun>: <why>", hint `damagedHint`.
[[noreturn]] inline void throwUnpackError(archive *a, const std::string &where, const UnpackWording &w)
{
    throw Error(where, "cannot unpack the " + w.noun + ": " + archive_error_string(a), w.damagedHint);
}

/// Opens the gzipped tar file `path` (read in 64 KiB blocks). Throws wb::Error naming `path`
/// when libarchive has no memory or cannot open it.
inline ArchiveReader openTarGz(const std::string &path, const UnpackWording &w)
{
    ArchiveReader a(archive_read_new());
    if (!a)
        throw Error(path, "cannot unpack the " + w.noun + ": out of memory");
    archive_read_support_filter_gzip(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throwUnpackError(a.get(), path, w);
    return a;
}

/// Writes the data of the entry `a` was last moved to (archive_read_next_header) into
/// `target`, created or truncated, its folders created. Throws wb::Error naming `target`
/// when it cannot be written, or naming `where` ("<tarball>: <entry>") when the data cannot
/// be read; a partly written `target` is left for the caller to remove.
inline void writeEntryData(archive *a, const std::filesystem::path &target, const std::string &where,
                           const UnpackWording &w)
{
    std::filesystem::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error(target.string(), std::string("cannot write an unpacked file: ") + std::strerror(errno), w.writeHint);
    const void *block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int rc;
    while ((rc = archive_read_data_block(a, &block, &size, &offset)) == ARCHIVE_OK)
        out.write(static_cast<const char *>(block), std::streamsize(size));
    if (rc != ARCHIVE_EOF)
        throwUnpackError(a, where, w);
    if (!out.flush())
        throw Error(target.string(), "cannot write an unpacked file (disk full?)", w.diskFullHint);
}

} // namespace wb
