// SPDX-License-Identifier: Apache-2.0
// Test support: running the interoperability scripts of tests/support/ in Node.
#pragma once

#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace wbtest {

/// The npm packages the export's interoperability tests run (npmTestModules' prefix
/// "npm-onnx"): ONNX Runtime for Node and transformers.js, whose onnxruntime-web the demo pins.
inline const std::vector<std::string> kInteropPackages{"onnxruntime-node@1.30.0", "@huggingface/transformers@4.3.1"};

/// Runs node `script` with `args` (at most 5 minutes); `output` gets stdout and stderr
/// together. Returns true when it exited normally with 0.
inline bool runNode(const QString &script, const QStringList &args, QString &output)
{
    QProcess node;
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(QStandardPaths::findExecutable(QStringLiteral("node")), QStringList{script} + args);
    const bool done = node.waitForFinished(300000);
    output = QString::fromUtf8(node.readAll());
    return done && node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0;
}

} // namespace wbtest
