// SPDX-License-Identifier: Apache-2.0
// Test support: writing and reading the raw bytes of a test's input and output files (the
// fixtures of the prepare tests).
#pragma once

#include <QDir>
#include <QFileInfo>
#include <QString>

#include <fstream>
#include <iterator>
#include <string>

namespace wb::test {

/// Writes `bytes` as the whole of the file `path`, creating its folder.
inline void writeText(const QString &path, const std::string &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

/// The bytes of the file `path` ("" when it cannot be read).
inline std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace wb::test
