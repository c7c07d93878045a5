// SPDX-License-Identifier: Apache-2.0
// Builds the .deb with CPack into a scratch directory, unpacks it with dpkg -x and runs
// bert-workbench-cli from the unpacked tree. Needs the whole project built (CTest label
// "package"); skips where dpkg-deb is missing (non-Debian systems).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kAppId = QStringLiteral("io.github.bertworkbench.BertWorkbench");

struct Result
{
    int exitCode = -1;
    QString out;
    QString err;
};

Result run(const QString &program, const QStringList &args, int timeoutMs = 240000)
{
    QProcess p;
    p.start(program, args);
    Result r;
    if (!p.waitForStarted() || !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = QStringLiteral("did not finish: ") + program + QLatin1Char(' ') + args.join(QLatin1Char(' '));
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class tst_Package : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void controlFields();
    void installedFiles();
    void cliRunsFromUnpackedTree();
    void dependsCoverLinkedLibraries();
    void desktopFilesValidate();

private:
    QTemporaryDir m_scratch;
    QString m_deb;
    QString m_root;
    QString m_dpkgDeb;
};

void tst_Package::initTestCase()
{
    m_dpkgDeb = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
    if (m_dpkgDeb.isEmpty())
        QSKIP("dpkg-deb not found: the .deb test runs on Debian-based systems only");
    QVERIFY(m_scratch.isValid());
    const QString out = m_scratch.filePath(QStringLiteral("out"));
    const Result cpack = run(QStringLiteral(WB_CPACK_COMMAND),
                             {QStringLiteral("--config"), QStringLiteral(WB_CPACK_CONFIG), QStringLiteral("-G"),
                              QStringLiteral("DEB"), QStringLiteral("-B"), out},
                             540000);  // CPack's "preinstall" step builds whatever is out of date
    QVERIFY2(cpack.exitCode == 0, qPrintable(cpack.out + cpack.err));
    const QStringList debs = QDir(out).entryList({QStringLiteral("*.deb")}, QDir::Files);
    QCOMPARE(debs.size(), 1);
    m_deb = QDir(out).filePath(debs.first());
    QVERIFY2(debs.first().startsWith(QStringLiteral("bert-workbench_" WB_PROJECT_VERSION "_")), qPrintable(debs.first()));

    m_root = m_scratch.filePath(QStringLiteral("root"));
    const Result x = run(m_dpkgDeb, {QStringLiteral("-x"), m_deb, m_root});
    QVERIFY2(x.exitCode == 0, qPrintable(x.err));
}

void tst_Package::controlFields()
{
    const Result f = run(m_dpkgDeb, {QStringLiteral("-f"), m_deb, QStringLiteral("Package"),
                                     QStringLiteral("Version"), QStringLiteral("Depends"), QStringLiteral("Section")});
    QCOMPARE(f.exitCode, 0);
    QVERIFY(f.out.contains(QStringLiteral("Package: bert-workbench\n")));
    QVERIFY(f.out.contains(QStringLiteral("Version: " WB_PROJECT_VERSION "\n")));
    QVERIFY(f.out.contains(QStringLiteral("Section: science\n")));
    QStringList required = {QStringLiteral("libtorch1.13"), QStringLiteral("libopenblas0-pthread"),
                            QStringLiteral("libprotobuf32"), QStringLiteral("libutf8proc2"), QStringLiteral("libssl3")};
    if (WB_WITH_GUI)
        required << QStringLiteral("libqt6widgets6") << QStringLiteral("libqcustomplot2.1-qt6")
                 << QStringLiteral("qt6-qpa-plugins");
    for (const QString &pkg : required)
        QVERIFY2(f.out.contains(pkg), qPrintable(pkg + QStringLiteral(" missing from ") + f.out));
}

void tst_Package::installedFiles()
{
    QStringList files = {QStringLiteral("usr/bin/bert-workbench-cli"),
                         QStringLiteral("usr/share/man/man1/bert-workbench-cli.1.gz"),
                         QStringLiteral("usr/share/doc/bert-workbench/copyright")};
    if (WB_WITH_GUI) {
        files << QStringLiteral("usr/bin/bert-workbench")
              << QStringLiteral("usr/share/applications/") + kAppId + QStringLiteral(".desktop")
              << QStringLiteral("usr/share/metainfo/") + kAppId + QStringLiteral(".metainfo.xml")
              << QStringLiteral("usr/share/icons/hicolor/scalable/apps/") + kAppId + QStringLiteral(".svg");
        for (int size : {16, 24, 32, 48, 64, 128, 256, 512})
            files << QStringLiteral("usr/share/icons/hicolor/%1x%1/apps/").arg(size) + kAppId + QStringLiteral(".png");
    }
    for (const QString &f : files) {
        const QFileInfo fi(QDir(m_root).filePath(f));
        QVERIFY2(fi.isFile() && fi.size() > 0, qPrintable(f));
    }
    QVERIFY(QFileInfo(QDir(m_root).filePath(QStringLiteral("usr/bin/bert-workbench-cli"))).isExecutable());
    // Nothing is installed outside /usr (no /usr/local, no build paths).
    QCOMPARE(QDir(m_root).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{QStringLiteral("usr")});
}

void tst_Package::cliRunsFromUnpackedTree()
{
    const QString cli = QDir(m_root).filePath(QStringLiteral("usr/bin/bert-workbench-cli"));
    const Result version = run(cli, {QStringLiteral("--version")}, 60000);
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out, QStringLiteral("bert-workbench-cli " WB_PROJECT_VERSION "\n"));
    const Result help = run(cli, {QStringLiteral("--help")}, 60000);
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains(QStringLiteral("Usage: bert-workbench-cli <command>")));
    for (const char *cmd : {"train", "predict", "export", "validate", "prepare"})
        QVERIFY2(help.out.contains(QLatin1String(cmd)), cmd);
    // The man page is a valid gzip stream naming the program.
    const Result man = run(QStringLiteral("gzip"),
                           {QStringLiteral("-dc"), QDir(m_root).filePath(QStringLiteral("usr/share/man/man1/bert-workbench-cli.1.gz"))});
    QCOMPARE(man.exitCode, 0);
    QVERIFY(man.out.contains(QStringLiteral(".TH BERT-WORKBENCH-CLI 1")));
    QVERIFY(man.out.contains(QStringLiteral("bert-workbench " WB_PROJECT_VERSION)));
}

void tst_Package::dependsCoverLinkedLibraries()
{
#ifdef __SANITIZE_ADDRESS__
    // make sanitize's programs link the sanitizer runtimes (libasan, libubsan), which a release
    // package neither links nor depends on.
    QSKIP("an instrumented build links the sanitizer runtimes: Depends are checked in the ordinary build");
#endif
    const QString readelf = QStandardPaths::findExecutable(QStringLiteral("readelf"));
    const QString dpkg = QStandardPaths::findExecutable(QStringLiteral("dpkg"));
    if (readelf.isEmpty() || dpkg.isEmpty())
        QSKIP("readelf or dpkg not found");
    const Result f = run(m_dpkgDeb, {QStringLiteral("-f"), m_deb, QStringLiteral("Depends")});
    QCOMPARE(f.exitCode, 0);
    QString depends = f.out.trimmed();  // one field requested: dpkg-deb prints only its value
    if (depends.startsWith(QStringLiteral("Depends:")))
        depends = depends.mid(8);
    QSet<QString> declared;
    for (const QString &alt : depends.split(QRegularExpression(QStringLiteral("[,|]"))))
        declared.insert(alt.trimmed().section(QLatin1Char(' '), 0, 0));

    QStringList binaries = {QStringLiteral("usr/bin/bert-workbench-cli")};
    if (WB_WITH_GUI)
        binaries << QStringLiteral("usr/bin/bert-workbench");
    const QRegularExpression needed(QStringLiteral("\\(NEEDED\\).*\\[(.+)\\]"));
    for (const QString &bin : binaries) {
        const Result d = run(readelf, {QStringLiteral("-d"), QDir(m_root).filePath(bin)});
        QCOMPARE(d.exitCode, 0);
        int count = 0;
        for (auto it = needed.globalMatch(d.out); it.hasNext();) {
            const QString soname = it.next().captured(1);
            ++count;
            const Result owner = run(dpkg, {QStringLiteral("-S"), QStringLiteral("*/") + soname});
            QVERIFY2(owner.exitCode == 0, qPrintable(soname + QStringLiteral(": no Debian package owns it")));
            bool covered = false;
            QStringList owners;
            for (const QString &line : owner.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
                for (const QString &pkg : line.section(QLatin1Char(':'), 0, 0).split(QLatin1Char(','))) {
                    owners << pkg.trimmed();
                    covered = covered || declared.contains(pkg.trimmed());
                }
            }
            QVERIFY2(covered, qPrintable(bin + QStringLiteral(" needs ") + soname + QStringLiteral(" from ")
                                         + owners.join(QLatin1Char('/')) + QStringLiteral(", not in Depends")));
        }
        QVERIFY(count > 0);
    }
}

void tst_Package::desktopFilesValidate()
{
    if (!WB_WITH_GUI)
        QSKIP("built without the GUI: no desktop integration files");
    const QString dfv = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
    if (!dfv.isEmpty()) {
        const Result r = run(dfv, {QDir(m_root).filePath(QStringLiteral("usr/share/applications/") + kAppId
                                                         + QStringLiteral(".desktop"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    const QString asc = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
    if (!asc.isEmpty()) {
        const Result r = run(asc, {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                   QDir(m_root).filePath(QStringLiteral("usr/share/metainfo/") + kAppId
                                                         + QStringLiteral(".metainfo.xml"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    }
    if (dfv.isEmpty() && asc.isEmpty())
        QSKIP("neither desktop-file-validate nor appstreamcli is installed");
}

QTEST_APPLESS_MAIN(tst_Package)
#include "tst_package.moc"
