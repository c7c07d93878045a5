// SPDX-License-Identifier: Apache-2.0
// Fuzzes the GUI project file (File → Open Project): the JSON text through parseJsonObject,
// then ProjectFile::fromJson (format marker, the "options" object, each flag's type,
// relative paths resolved against the project's folder). Both report through Diagnostics
// and never throw.
#include "core/config/jsonfile.h"
#include "ui/form/projectfile.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QString baseDir = QStringLiteral("/home/user/projects");
    wb::Diagnostics diag;
    const auto j = wb::parseJsonObject(std::string(reinterpret_cast<const char *>(data), size), "fuzz.bwproj", diag);
    if (!j)
        return 0;
    const wb::TrainingOptions options = wb::ProjectFile::fromJson(*j, baseDir, diag);
    (void)wb::ProjectFile::toJson(options).dump();
    return 0;
}
