// SPDX-License-Identifier: Apache-2.0
// The digest and hex helpers of core/util (digest.h, hex.h) that data, model and hub share:
// FIPS 180-4 test vectors for SHA-1/256/512, git blob ids ("blob <size>\0" + bytes, git
// hash-object), a digest fed in pieces equals the one-shot digest, files read in 1 MiB pieces
// (one over a piece boundary), the errno of a file that cannot be read, and hex round-trips.
#include "core/util/digest.h"
#include "core/util/hex.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cerrno>
#include <fstream>

class tst_Digest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void knownVectors();
    void gitBlobIds();
    void piecesEqualOneShot();
    void finishStartsOver();
    void filesAcrossPieces();
    void unreadableFiles();
    void hexEncodes();
    void hexRoundTrips();
    void hexDecodeRefuses();
    void hexChecks();
};

namespace {

const std::string kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
// FIPS 180-4 example "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq" (56 bytes, two blocks).
const std::string kTwoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const std::string kTwoBlocksSha256 = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
const std::string kMillionASha256 = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    QVERIFY(bool(out));
}

} // namespace

void tst_Digest::knownVectors()
{
    QCOMPARE(wb::sha256Hex(""), kEmptySha256);
    QCOMPARE(wb::sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(wb::sha256Hex(kTwoBlocks), kTwoBlocksSha256);
    QCOMPARE(wb::sha1Hex(""), std::string("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
    QCOMPARE(wb::sha1Hex("abc"), std::string("a9993e364706816aba3e25717850c26c9cd0d89d"));
    QCOMPARE(wb::digestHex(wb::DigestKind::Sha512, "abc"),
             std::string("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                         "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"));
    // Raw bytes: 20, 32, 64 of them, the hex digits' values.
    wb::Digest sha1(wb::DigestKind::Sha1);
    sha1.update("abc");
    const std::string raw = sha1.finishBytes();
    QCOMPARE(raw.size(), size_t(20));
    QCOMPARE(wb::hexEncode(raw), std::string("a9993e364706816aba3e25717850c26c9cd0d89d"));
    wb::Digest sha512(wb::DigestKind::Sha512);
    QCOMPARE(sha512.finishBytes().size(), size_t(64));
    QCOMPARE(sha512.kind(), wb::DigestKind::Sha512);
}

void tst_Digest::gitBlobIds()
{
    // `git hash-object` of an empty file and of "hello world\n".
    QCOMPARE(wb::gitBlobSha1Hex(""), std::string("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"));
    QCOMPARE(wb::sha1Hex(std::string("blob 0\0", 7)), std::string("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"));
    QCOMPARE(wb::gitBlobSha1Hex("hello world\n"), std::string("3b18e512dba79e4c8300dd08aeb37f8e728b8dad"));
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("hello.txt")).toStdString();
    writeFile(path, "hello world\n");
    int err = -1;
    QCOMPARE(wb::gitBlobSha1FileHex(path, &err), std::string("3b18e512dba79e4c8300dd08aeb37f8e728b8dad"));
    QCOMPARE(err, 0);
    const std::string empty = dir.filePath(QStringLiteral("empty")).toStdString();
    writeFile(empty, "");
    QCOMPARE(wb::gitBlobSha1FileHex(empty), std::string("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"));
}

void tst_Digest::piecesEqualOneShot()
{
    // Every split of the two-block message, and a million 'a's in uneven pieces.
    for (size_t cut = 0; cut <= kTwoBlocks.size(); ++cut) {
        wb::Digest d(wb::DigestKind::Sha256);
        d.update(std::string_view(kTwoBlocks).substr(0, cut));
        d.update(nullptr, 0);
        d.update(std::string_view(kTwoBlocks).substr(cut));
        QCOMPARE(d.finishHex(), kTwoBlocksSha256);
    }
    wb::Digest d(wb::DigestKind::Sha256);
    const std::string a(1000, 'a');
    size_t fed = 0;
    for (size_t piece = 1; fed < 1000000; piece = piece * 7 % 997 + 1) {
        const size_t n = std::min(piece, std::min(a.size(), size_t(1000000) - fed));
        d.update(a.data(), n);
        fed += n;
    }
    QCOMPARE(d.finishHex(), kMillionASha256);
    QCOMPARE(wb::sha256Hex(std::string(1000000, 'a')), kMillionASha256);
}

void tst_Digest::finishStartsOver()
{
    wb::Digest d(wb::DigestKind::Sha256);
    d.update("abc");
    QCOMPARE(d.finishHex(), wb::sha256Hex("abc"));
    QCOMPARE(d.finishHex(), kEmptySha256); // nothing added since
    d.update("some bytes to forget");
    d.reset();
    d.update(kTwoBlocks);
    QCOMPARE(d.finishHex(), kTwoBlocksSha256);
}

void tst_Digest::filesAcrossPieces()
{
    QTemporaryDir dir;
    // 1 MiB + 3 bytes: the file is read in two pieces.
    std::string bytes(size_t(1 << 20) + 3, '\0');
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = char((i * 131 + i / 7) & 255);
    const std::string path = dir.filePath(QStringLiteral("big.bin")).toStdString();
    writeFile(path, bytes);
    int err = -1;
    QCOMPARE(wb::fileDigestHex(path, wb::DigestKind::Sha256, &err), wb::sha256Hex(bytes));
    QCOMPARE(err, 0);
    QCOMPARE(wb::sha256FileHex(path), wb::sha256Hex(bytes));
    QCOMPARE(wb::fileDigestHex(path, wb::DigestKind::Sha1), wb::sha1Hex(bytes));
    QCOMPARE(wb::gitBlobSha1FileHex(path), wb::gitBlobSha1Hex(bytes));
    const std::string empty = dir.filePath(QStringLiteral("empty")).toStdString();
    writeFile(empty, "");
    QCOMPARE(wb::sha256FileHex(empty), kEmptySha256);
}

void tst_Digest::unreadableFiles()
{
    QTemporaryDir dir;
    int err = 0;
    QCOMPARE(wb::fileDigestHex(dir.filePath(QStringLiteral("missing")).toStdString(), wb::DigestKind::Sha256, &err), std::string());
    QCOMPARE(err, ENOENT);
    QCOMPARE(wb::sha256FileHex(dir.filePath(QStringLiteral("train-*.tf_record")).toStdString()), std::string());
    err = 0;
    QCOMPARE(wb::fileDigestHex(dir.path().toStdString(), wb::DigestKind::Sha256, &err), std::string()); // a folder
    QCOMPARE(err, EISDIR);
    err = 0;
    QCOMPARE(wb::gitBlobSha1FileHex(dir.filePath(QStringLiteral("missing")).toStdString(), &err), std::string());
    QCOMPARE(err, ENOENT);
}

void tst_Digest::hexEncodes()
{
    const std::string bytes("\x01\xab\xff\x00\x7f", 5);
    QCOMPARE(wb::hexEncode(bytes), std::string("01abff007f"));
    QCOMPARE(wb::hexEncode(bytes, wb::HexCase::Upper), std::string("01ABFF007F"));
    QCOMPARE(wb::hexEncode(""), std::string());
    std::string out = "0x";
    wb::appendHexByte(out, 0x9c);
    QCOMPARE(out, std::string("0x9c"));
    wb::appendHexByte(out, 0x0e, wb::HexCase::Upper);
    QCOMPARE(out, std::string("0x9c0E"));
}

void tst_Digest::hexRoundTrips()
{
    std::string all;
    for (int b = 0; b < 256; ++b)
        all += char(b);
    const std::string lower = wb::hexEncode(all);
    QCOMPARE(lower.size(), size_t(512));
    QCOMPARE(lower.substr(0, 8), std::string("00010203"));
    QCOMPARE(lower.substr(504), std::string("fcfdfeff"));
    QVERIFY(wb::hexDecode(lower).has_value());
    QCOMPARE(*wb::hexDecode(lower), all);
    QCOMPARE(*wb::hexDecode(wb::hexEncode(all, wb::HexCase::Upper)), all);
    QCOMPARE(*wb::hexDecode("01aB"), std::string("\x01\xab", 2));
    QCOMPARE(*wb::hexDecode(""), std::string());
    QCOMPARE(wb::hexDigitValue('0'), 0);
    QCOMPARE(wb::hexDigitValue('9'), 9);
    QCOMPARE(wb::hexDigitValue('a'), 10);
    QCOMPARE(wb::hexDigitValue('F'), 15);
    QCOMPARE(wb::hexDigitValue('g'), -1);
    QCOMPARE(wb::hexDigitValue('@'), -1);
}

void tst_Digest::hexDecodeRefuses()
{
    QVERIFY(!wb::hexDecode("abc").has_value()); // odd length
    QVERIFY(!wb::hexDecode("zz").has_value());
    QVERIFY(!wb::hexDecode("0g").has_value());
    QVERIFY(!wb::hexDecode(" 0").has_value());
    QVERIFY(!wb::hexDecode(std::string("0\0", 2)).has_value());
}

void tst_Digest::hexChecks()
{
    QVERIFY(wb::isLowerHex(kEmptySha256));
    QVERIFY(wb::isLowerHex(""));
    QVERIFY(!wb::isLowerHex("ABCDEF"));
    QVERIFY(!wb::isLowerHex("abcdefg"));
    QVERIFY(wb::isHex("0123456789abcdefABCDEF"));
    QVERIFY(wb::isHex(""));
    QVERIFY(!wb::isHex("12 4"));
    QVERIFY(!wb::isHex("W-abc")); // a weak ETag's prefix
}

QTEST_APPLESS_MAIN(tst_Digest)
#include "tst_digest.moc"
