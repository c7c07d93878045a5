// SPDX-License-Identifier: Apache-2.0
// expandFilePattern(): a data path that exists is taken literally; otherwise a glob or a
// comma-separated list, with escapes for [ * ? and commas.
#include "core/data/classifierdataset.h"
#include "core/util/error.h"

#include <QtTest>

#include <fstream>

using namespace wb;

class tst_DataPaths : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string touch(const QString &rel)
    {
        const QString p = m_dir.path() + QLatin1Char('/') + rel;
        QDir().mkpath(QFileInfo(p).absolutePath());
        std::ofstream(p.toStdString(), std::ios::binary) << "x";
        return p.toStdString();
    }

private Q_SLOTS:
    /// Issue input 4: an existing file in a folder named with [ ] is taken as written.
    void existingPathWithGlobCharactersIsLiteral()
    {
        const std::string file = touch(QStringLiteral("data/exp [v2]/train.tf_record"));
        QCOMPARE(expandFilePattern(file), std::vector<std::string>{file});
        const std::string odd = touch(QStringLiteral("data/what?*/a,b.tf_record"));
        QCOMPARE(expandFilePattern(odd), std::vector<std::string>{odd});
    }

    /// A list entry that exists is literal too; a pattern still globs; "\," is a comma.
    void listsAndEscapes()
    {
        const std::string a = touch(QStringLiteral("list/exp [v2].tf_record"));
        const std::string b = touch(QStringLiteral("list/b.tf_record"));
        const std::string c = touch(QStringLiteral("list/c,d.tf_record"));
        const std::string dir = m_dir.path().toStdString() + "/list/";
        QCOMPARE(expandFilePattern(a + "," + dir + "b.*"), (std::vector<std::string>{a, b}));
        QCOMPARE(expandFilePattern(dir + "c\\,d.tf_record, " + b), (std::vector<std::string>{c, b}));
        QCOMPARE(expandFilePattern(dir + "exp \\[v2\\].*"), std::vector<std::string>{a});
    }

    /// The "matches no files" message says how to escape.
    void noMatchExplainsEscaping()
    {
        const std::string pattern = m_dir.path().toStdString() + "/data/exp [v3]/*.tf_record";
        try {
            expandFilePattern(pattern);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), pattern);
            QCOMPARE(std::string(e.what()), std::string("the pattern matches no files"));
            QCOMPARE(e.hint(), std::string("Check the folder and the file names (TFRecord files are usually named "
                                           "*.tf_record). A path that exists is taken as written; in a pattern write "
                                           "\\[ \\] \\* \\? for a literal [ ] * ? (or [[] [*] [?]), and \\, for a comma "
                                           "inside a comma-separated list."));
        }
    }
};

QTEST_APPLESS_MAIN(tst_DataPaths)
#include "tst_datapaths.moc"
