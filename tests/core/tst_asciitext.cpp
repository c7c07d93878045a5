// SPDX-License-Identifier: Apache-2.0
// The small shared helpers every layer uses (core/util): trimmed, lowerAscii, startsWith,
// endsWith, numberOrNull and environmentValue, checked directly on their edge cases.
#include "core/util/asciitext.h"
#include "core/util/environment.h"
#include "core/util/jsonnumber.h"

#include <QtTest>

#include <cstdlib>
#include <limits>

using namespace wb;

class tst_AsciiText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void trimmedStripsOnlyAsciiWhitespace()
    {
        QCOMPARE(trimmed(" \t\n\v\f\rab c \r\n"), std::string("ab c"));
        QCOMPARE(trimmed(" \t "), std::string());
        QCOMPARE(trimmed(""), std::string());
        QCOMPARE(trimmed("\xC2\xA0x\xC2\xA0"), std::string("\xC2\xA0x\xC2\xA0")); // NBSP is not ASCII
        QCOMPARE(trimmed("--x-", "-"), std::string("x"));
    }

    void lowerAsciiChangesOnlyCapitals()
    {
        QCOMPARE(lowerAscii("ETag: ABCdef-09_Z"), std::string("etag: abcdef-09_z"));
        QCOMPARE(lowerAscii("\xC3\x84pfel"), std::string("\xC3\x84pfel")); // UTF-8 bytes kept
        QCOMPARE(lowerAscii(""), std::string());
    }

    void startsAndEndsWithAreExact()
    {
        QVERIFY(startsWith("model.safetensors", "model."));
        QVERIFY(startsWith("x", ""));
        QVERIFY(startsWith("", ""));
        QVERIFY(!startsWith("mod", "model"));
        QVERIFY(!startsWith("Model", "model"));
        QVERIFY(endsWith("model.safetensors", ".safetensors"));
        QVERIFY(endsWith("x", ""));
        QVERIFY(!endsWith("ors", ".safetensors"));
        QVERIFY(!endsWith("a.JSON", ".json"));
    }

    void numberOrNullWritesNullForUndefined()
    {
        QCOMPARE(numberOrNull(0.25).dump(), std::string("0.25"));
        QCOMPARE(numberOrNull(-3.0).dump(), std::string("-3.0"));
        QVERIFY(numberOrNull(std::numeric_limits<double>::quiet_NaN()).is_null());
        QVERIFY(numberOrNull(std::numeric_limits<double>::infinity()).is_null());
        QVERIFY(numberOrNull<nlohmann::ordered_json>(-std::numeric_limits<double>::infinity()).is_null());
        QCOMPARE(numberOrNull<nlohmann::ordered_json>(1e-300).get<double>(), 1e-300);
    }

    void environmentValueReadsOrEmpty()
    {
        ::setenv("WB_TEST_ENVIRONMENT_VALUE", " a b ", 1);
        QCOMPARE(environmentValue("WB_TEST_ENVIRONMENT_VALUE"), std::string(" a b ")); // as written
        ::unsetenv("WB_TEST_ENVIRONMENT_VALUE");
        QCOMPARE(environmentValue("WB_TEST_ENVIRONMENT_VALUE"), std::string());
    }
};

QTEST_APPLESS_MAIN(tst_AsciiText)
#include "tst_asciitext.moc"
