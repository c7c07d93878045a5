// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/textrows.h"
#include "core/util/error.h"

#include <QtTest>

using namespace wb;

namespace {

std::vector<std::vector<std::string>> fields(const TextRows &t)
{
    std::vector<std::vector<std::string>> out;
    for (const auto &r : t.rows)
        out.push_back(r.fields);
    return out;
}

std::vector<int64_t> lines(const TextRows &t)
{
    std::vector<int64_t> out;
    for (const auto &r : t.rows)
        out.push_back(r.line);
    return out;
}

} // namespace

class tst_TextRows : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// RFC 4180: quotes, doubled quotes, delimiters and line breaks inside quotes; CRLF.
    void rfc4180()
    {
        const TextRows t = parseTextRows("text,label\r\n\"noisy room, thin walls\",neg\r\n\"she said \"\"hi\"\"\nthen left\",pos\r\n"
                                         "plain,\"\"\r\n",
                                         TextRowDialect{',', true}, "a.csv");
        QCOMPARE(fields(t), (std::vector<std::vector<std::string>>{{"text", "label"},
                                                                    {"noisy room, thin walls", "neg"},
                                                                    {"she said \"hi\"\nthen left", "pos"},
                                                                    {"plain", ""}}));
        QCOMPARE(lines(t), (std::vector<int64_t>{1, 2, 3, 5}));
        QVERIFY(!t.had_bom);
    }

    /// A byte order mark is removed; blank and trailing empty lines make no rows; a lone CR ends a row.
    void bomBlankLinesAndCr()
    {
        const TextRows t = parseTextRows("\xEF\xBB\xBFtext,label\n\na,1\rb,2\n\n\n", TextRowDialect{',', true}, "a.csv");
        QVERIFY(t.had_bom);
        QCOMPARE(fields(t), (std::vector<std::vector<std::string>>{{"text", "label"}, {"a", "1"}, {"b", "2"}}));
        QCOMPARE(lines(t), (std::vector<int64_t>{1, 3, 4}));
    }

    /// An unquoted comma makes an extra field (the reader then reports the count).
    void unquotedCommaMakesExtraField()
    {
        const TextRows t = parseTextRows("noisy room, thin walls and a broken heater,neg", TextRowDialect{',', true}, "a.csv");
        QCOMPARE(fields(t), (std::vector<std::vector<std::string>>{{"noisy room", " thin walls and a broken heater", "neg"}}));
    }

    /// TSV as the GLUE readers: no quoting, quotes are data.
    void tsvHasNoQuoting()
    {
        const TextRows t = parseTextRows("a \"b\tc\"\t1\n", TextRowDialect{'\t', false}, "a.tsv");
        QCOMPARE(fields(t), (std::vector<std::vector<std::string>>{{"a \"b", "c\"", "1"}}));
    }

    void semicolon()
    {
        const TextRows t = parseTextRows("text;label\n\"a; b\";1\n", TextRowDialect{';', true}, "a.csv");
        QCOMPARE(fields(t), (std::vector<std::vector<std::string>>{{"text", "label"}, {"a; b", "1"}}));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("open quote") << QByteArray("text,label\nx,1\n\"never closed,1\nmore\n") << "a.csv:3"
                                    << "a quoted field is not closed before the end of the file";
        QTest::newRow("text after quote") << QByteArray("text,label\n\"a\"b,1\n") << "a.csv:2"
                                          << "text follows the closing quote of a quoted field";
    }

    void errors()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, field);
        QFETCH(QString, message);
        try {
            parseTextRows(std::string(input.constData(), size_t(input.size())), TextRowDialect{',', true}, "a.csv");
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
            QCOMPARE(QString::fromUtf8(e.what()), message);
        }
    }
};

QTEST_APPLESS_MAIN(tst_TextRows)
#include "tst_textrows.moc"
