// SPDX-License-Identifier: Apache-2.0
// Test support: npm packages the interoperability tests run in Node (Hugging Face's
// `tokenizers`, onnxruntime-node, @huggingface/transformers), installed once into a prefix
// of the product's cache ($XDG_CACHE_HOME/bert-workbench/<prefix>, beside the example data's
// downloads), as the README says `make test` does on a fresh machine.
#pragma once

#include "core/prepare/exampledata.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include <filesystem>
#include <string>
#include <vector>

namespace wbtest {

/// Returns the node_modules folder of `<cache>/<prefix>` holding `packages` ("name@version";
/// scoped names too), installing them with `npm install --prefix` when one of them is missing
/// (ONNXRUNTIME_NODE_INSTALL=skip: onnxruntime-node's CPU binaries ship in the package; its
/// install script would fetch CUDA ones). "" and `why` when npm is missing or fails (no network).
inline std::string npmTestModules(const std::string &prefix, const std::vector<std::string> &packages, QString &why)
{
    namespace fs = std::filesystem;
    const std::string dir = wb::defaultExampleCacheDir() + "/" + prefix;
    const std::string modules = dir + "/node_modules";
    const auto installed = [&] {
        for (const auto &p : packages)
            if (!fs::exists(modules + "/" + p.substr(0, p.rfind('@')) + "/package.json"))
                return false;
        return true;
    };
    if (installed())
        return modules;
    const QString npm = QStandardPaths::findExecutable(QStringLiteral("npm"));
    if (npm.isEmpty()) {
        why = QStringLiteral("npm is not installed (scripts/install-deps.sh installs it)");
        return {};
    }
    fs::create_directories(dir);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ONNXRUNTIME_NODE_INSTALL"), QStringLiteral("skip"));
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    QStringList args{QStringLiteral("install"), QStringLiteral("--prefix"), QString::fromStdString(dir),
                     QStringLiteral("--no-audit"), QStringLiteral("--no-fund")};
    QStringList names;
    for (const auto &pkg : packages) {
        args << QString::fromStdString(pkg);
        names << QString::fromStdString(pkg);
    }
    p.start(npm, args);
    if (!p.waitForFinished(600000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0 || !installed()) {
        p.kill();
        why = QStringLiteral("npm could not install %1 into %2 (no network?): %3")
                  .arg(names.join(QStringLiteral(", ")), QString::fromStdString(dir),
                       QString::fromUtf8(p.readAll()).right(400));
        return {};
    }
    return modules;
}

} // namespace wbtest
