// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <string>
#include <vector>

namespace wb {

/// Why `target` may not receive an export ("the folder is not empty"), or "" when it may: it does not exist, or is an
/// empty folder, or (with `overwrite`, --overwrite_output_dir) a folder that holds an earlier
/// export (config.json, bert_config.json or model.safetensors at its top). A file, a non-empty
/// folder without `overwrite`, and a non-empty folder that is no export (a model_dir, a home
/// folder) are refused. Reads the folder's listing only; thread-safe.
std::string exportTargetProblem(const std::string &target, bool overwrite);

/// Adds exportTargetProblem's reason as an error on "model_export_path" (with the fix).
void checkExportTarget(const std::string &target, bool overwrite, Diagnostics &diag);

/// The export folder, written whole or not at all. The constructor checks `target`
/// (exportTargetProblem) and creates a staging folder beside it, `<parent>/.<name>.partial-<pid>`
/// (a stale one of an earlier, killed export is removed first); the files are written there
/// (path()); commit() renames it to `target` (an earlier export at `target` is moved aside and
/// removed after the rename) and fsyncs the parent. Destroyed without commit() (an exception, a
/// full disk, a stop), it removes the staging folder: `target` is as it was.
/// Throws wb::Error naming "model_export_path" or the folder. Not copyable; one thread.
class ExportStaging
{
public:
    ExportStaging(const std::string &target, bool overwrite);
    ~ExportStaging();
    ExportStaging(const ExportStaging &) = delete;
    ExportStaging &operator=(const ExportStaging &) = delete;

    /// The staging folder the files go into (exists from construction to commit()).
    const std::string &path() const { return m_staging; }
    /// Renames the staging folder to the target. Throws wb::Error naming the target.
    void commit();

private:
    std::string m_target;
    std::string m_staging;
    bool m_overwrite = false;
    bool m_committed = false;
};

/// One line per file of `dir` ("  model.safetensors  (17.2 MB)"), in the order of `names`.
/// Sizes in bytes, kB, MB (powers of 1000). Files that are missing are left out.
std::vector<std::string> describeExportFiles(const std::string &dir, const std::vector<std::string> &names);

/// The bytes of the vocabulary file `path`, to be copied into an export as vocab.txt.
/// Throws wb::Error naming the file (fix: --vocab_file) when it cannot be read.
std::string readVocabularyForExport(const std::string &path);

} // namespace wb
