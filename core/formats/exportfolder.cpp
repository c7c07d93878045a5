// SPDX-License-Identifier: Apache-2.0
#include "core/formats/exportfolder.h"
#include "core/config/optionwords.h"

#include "core/util/error.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace wb {

namespace {

bool looksLikeExport(const fs::path &dir)
{
    std::error_code ec;
    for (const char *f : {"config.json", "bert_config.json", "model.safetensors"})
        if (fs::is_regular_file(dir / f, ec))
            return true;
    return false;
}

fs::path sibling(const fs::path &target, const std::string &what)
{
    const fs::path clean = target.has_filename() ? target : target.parent_path(); // "out/" → "out"
    return clean.parent_path() / ("." + clean.filename().string() + "." + what + "-" + std::to_string(::getpid()));
}

void syncDirectory(const fs::path &dir)
{
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECTORY);
    if (fd >= 0) {
        (void)::fsync(fd);
        ::close(fd);
    }
}

} // namespace

std::string exportTargetProblem(const std::string &target, bool overwrite)
{
    std::error_code ec;
    const fs::path t = target;
    if (!fs::exists(t, ec))
        return {};
    if (!fs::is_directory(t, ec))
        return "it is a file, not a folder";
    if (fs::is_empty(t, ec))
        return {};
    if (!overwrite)
        return "the folder is not empty";
    if (!looksLikeExport(t))
        return "the folder is not empty and holds no earlier export (no config.json, bert_config.json or "
               "model.safetensors), so " + optionName("overwrite_output_dir") + " does not replace it";
    return {};
}

void checkExportTarget(const std::string &target, bool overwrite, Diagnostics &diag)
{
    const std::string problem = exportTargetProblem(target, overwrite);
    if (problem.empty())
        return;
    diag.error("model_export_path", "cannot export into " + target + ": " + problem,
               overwrite ? "choose a new or empty folder for " + optionName("model_export_path")
                         : "choose a new or empty folder for " + optionName("model_export_path") + ", or "
                               + passOption("overwrite_output_dir") + " to replace an earlier export there");
}

ExportStaging::ExportStaging(const std::string &target, bool overwrite) : m_target(target), m_overwrite(overwrite)
{
    if (target.empty())
        throw Error("model_export_path", "Export path is not specified", passOption("model_export_path", "<directory>"));
    if (const std::string problem = exportTargetProblem(target, overwrite); !problem.empty())
        throw Error("model_export_path", "cannot export into " + target + ": " + problem,
                    "choose a new or empty folder, or " + passOption("overwrite_output_dir")
                        + " to replace an earlier export");
    const fs::path staging = sibling(fs::path(target), "partial");
    std::error_code ec;
    if (staging.has_parent_path())
        fs::create_directories(staging.parent_path(), ec);
    fs::remove_all(staging, ec); // a stale one of a killed export with the same pid
    if (!fs::create_directory(staging, ec) || ec)
        throw Error(target, "cannot create the export's staging folder " + staging.string() + ": " + ec.message(),
                    "check that the folder above " + optionName("model_export_path") + " exists and is writable");
    m_staging = staging.string();
}

ExportStaging::~ExportStaging()
{
    if (!m_committed && !m_staging.empty()) {
        std::error_code ec;
        fs::remove_all(m_staging, ec);
    }
}

void ExportStaging::commit()
{
    // Checked again: another export may have written the target since the constructor.
    if (const std::string problem = exportTargetProblem(m_target, m_overwrite); !problem.empty())
        throw Error("model_export_path", "cannot export into " + m_target + ": " + problem,
                    "choose a new or empty folder, or " + passOption("overwrite_output_dir"));
    const fs::path target = m_target;
    std::error_code ec;
    fs::path aside;
    if (fs::exists(target, ec)) {
        aside = sibling(target, "replaced");
        fs::remove_all(aside, ec);
        fs::rename(target, aside, ec);
        if (ec)
            throw Error(m_target, "cannot move the earlier export aside: " + ec.message(),
                        "check that the folder is writable");
    }
    fs::rename(m_staging, target, ec);
    if (ec) {
        std::error_code back;
        if (!aside.empty())
            fs::rename(aside, target, back);
        throw Error(m_target, "cannot rename the finished export into place: " + ec.message(),
                    "check that the folder above it is writable");
    }
    m_committed = true;
    if (!aside.empty())
        fs::remove_all(aside, ec);
    syncDirectory(target.parent_path());
}

std::vector<std::string> describeExportFiles(const std::string &dir, const std::vector<std::string> &names)
{
    std::vector<std::string> lines;
    for (const auto &n : names) {
        std::error_code ec;
        const auto size = fs::file_size(fs::path(dir) / n, ec);
        if (ec)
            continue;
        char buf[64];
        if (size < 1000)
            std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(size));
        else if (size < 1000 * 1000)
            std::snprintf(buf, sizeof buf, "%.1f kB", double(size) / 1e3);
        else
            std::snprintf(buf, sizeof buf, "%.1f MB", double(size) / 1e6);
        lines.push_back("  " + n + "  (" + buf + ")");
    }
    return lines;
}

std::string readVocabularyForExport(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot read the vocabulary to copy into the export", "check " + optionName("vocab_file"));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace wb
