// SPDX-License-Identifier: Apache-2.0
// E-mail bodies (issue 27, "Data"): emailBody() and stripQuotedReplies(), and prepare's
// --email_body_only / --strip_quoted_replies on a folder of mails.
#include "core/prepare/dataprep.h"
#include "core/prepare/emailbody.h"
#include "core/prepare/exampledata.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"

#include "support/textfiles.h"

#include <QtTest>

#include <fstream>
#include <set>

using namespace wb;
using wb::test::writeText;

namespace {

// A SpamAssassin-like message: mbox line, folded Received header, CRLF line ends.
const std::string kPlainMail = "From bob@example.com  Fri Aug 23 11:03:37 2002\r\n"
                               "Received: from mail.example.com\r\n"
                               "\tby mx.example.org (Postfix) with ESMTP id 5AC99\r\n"
                               "From: Bob <bob@example.com>\r\n"
                               "Subject: lunch\r\n"
                               "\r\n"
                               "Hi Alice,\r\n"
                               "lunch on Thursday?\r\n";

} // namespace

class tst_EmailBody : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void headerBlockIsDropped()
    {
        QCOMPARE(emailBody(kPlainMail), std::string("Hi Alice,\nlunch on Thursday?"));
        // LF only, no mbox line, a folded Subject that holds a colon.
        QCOMPARE(emailBody("Subject: re: the plan\n  continued: here\nTo: a@b\n\nbody line\n"), std::string("body line"));
        // The body keeps its own empty lines and a line that looks like a header.
        QCOMPARE(emailBody("From: a@b\n\nfirst\n\nNote: second\n"), std::string("first\n\nNote: second"));
    }

    void plainTextsPassUnchanged()
    {
        QCOMPARE(emailBody("Hi Bob, lunch on Thursday?"), std::string("Hi Bob, lunch on Thursday?"));
        QCOMPARE(emailBody("hello"), std::string("hello"));
        // "Note:" looks like a field, but no empty line ends a header block.
        QCOMPARE(emailBody("Note: the meeting moved"), std::string("Note: the meeting moved"));
        // The second line is no field: not a header block.
        QCOMPARE(emailBody("Dear all: hi\nthis is text\n\nmore"), std::string("Dear all: hi\nthis is text\n\nmore"));
        QCOMPARE(emailBody(""), std::string());
    }

    void multipartTakesTextPlainDecoded()
    {
        const std::string mail = "From: a@b\r\n"
                                 "Content-Type: multipart/alternative;\r\n"
                                 "\tboundary=\"XYZ\"\r\n"
                                 "\r\n"
                                 "This is a multi-part message in MIME format.\r\n"
                                 "--XYZ\r\n"
                                 "Content-Type: text/plain; charset=utf-8\r\n"
                                 "Content-Transfer-Encoding: quoted-printable\r\n"
                                 "\r\n"
                                 "Caf=C3=A9 at noon, a very long line that the sender wrapped with a soft=\r\n"
                                 " break =3D fine\r\n"
                                 "--XYZ\r\n"
                                 "Content-Type: text/html\r\n"
                                 "\r\n"
                                 "<p>Caf&eacute; at noon</p>\r\n"
                                 "--XYZ--\r\n"
                                 "epilogue\r\n";
        QCOMPARE(emailBody(mail), std::string("Caf\xC3\xA9 at noon, a very long line that the sender wrapped with a soft"
                                              " break = fine"));
    }

    void base64AndNestedMultipartAndAttachment()
    {
        // "Hello there\n" in base64; a nested multipart/alternative inside multipart/mixed; a
        // text/plain attachment that is left out.
        const std::string mail = "Content-Type: multipart/mixed; boundary=outer\n"
                                 "\n"
                                 "--outer\n"
                                 "Content-Type: multipart/alternative; boundary=\"inner\"\n"
                                 "\n"
                                 "--inner\n"
                                 "Content-Type: text/plain\n"
                                 "Content-Transfer-Encoding: base64\n"
                                 "\n"
                                 "SGVsbG8g\n"
                                 "dGhlcmUK\n"
                                 "--inner--\n"
                                 "--outer\n"
                                 "Content-Type: text/plain; name=notes.txt\n"
                                 "Content-Disposition: attachment; filename=notes.txt\n"
                                 "\n"
                                 "attached text\n"
                                 "--outer--\n";
        QCOMPARE(emailBody(mail), std::string("Hello there\n"));
    }

    /// Inline tags, comments and character references inside a word leave it whole (mail
    /// editors put <span>s inside words, Outlook writes &rsquo;); block tags end lines; cells
    /// and images separate words.
    void htmlNeverSplitsAWord()
    {
        const std::string mail = "Content-Type: text/html\n"
                                 "\n"
                                 "<div>Hel<span style=\"color:red\">lo</span> W<b>or</b><i>ld</i><!-- x > y -->s "
                                 "caf&#233; na&#xEF;ve don&rsquo;t co<wbr>operate</div><pre>pre</pre>"
                                 "<table><tr><td>one</td><td>two</td></tr></table><p>x<img src=\"a.gif\">y</p>"
                                 "a&#0;b &#xD800; &bogus;\n";
        QCOMPARE(emailBody(mail), std::string("\nHello Worlds caf\xC3\xA9 na\xC3\xAFve don\xE2\x80\x99t cooperate\n"
                                              "\npre\n\n one  two \n\nx y\na&#0;b &#xD800; &bogus;"));
    }

    void htmlOnlyBodyLosesItsTags()
    {
        const std::string mail = "Content-Type: text/html; charset=us-ascii\n"
                                 "\n"
                                 "<html><head><style>p {color: red}</style></head><body><p>Buy&nbsp;now &amp; save</p>"
                                 "<br>today</body></html>\n";
        const std::string body = emailBody(mail);
        QVERIFY2(body.find('<') == std::string::npos, body.c_str());
        QVERIFY2(body.find("color") == std::string::npos, body.c_str());
        QVERIFY2(body.find("Buy now & save") != std::string::npos, body.c_str());
        QVERIFY2(body.find("today") != std::string::npos, body.c_str());
        // A sloppy header without ';' before its parameter is still text/plain.
        QCOMPARE(emailBody("Content-Type: TEXT/PLAIN charset=US-ASCII\n\nplain words\n"), std::string("plain words"));
        // A single part of another type holds no text.
        QCOMPARE(emailBody("Content-Type: image/gif\nContent-Transfer-Encoding: base64\n\nR0lGODlh\n"), std::string());
    }

    /// A multipart/alternative whose text/plain part is blank (some mailers send one beside
    /// the HTML) reads its HTML part; a mail of images only says so, naming the types.
    void blankPlainPartFallsBackToHtmlAndImagesAreNamed()
    {
        const std::string mail = "Content-Type: multipart/alternative; boundary=\"b1\"\n"
                                 "\n"
                                 "--b1\n"
                                 "Content-Type: text/plain; charset=us-ascii\n"
                                 "\n"
                                 "  \n"
                                 "\n"
                                 "--b1\n"
                                 "Content-Type: text/html; charset=us-ascii\n"
                                 "\n"
                                 "<p>Cheap <b>watches</b> today</p>\n"
                                 "--b1--\n";
        EmailBodyInfo info;
        const std::string body = emailBody(mail, false, &info);
        QVERIFY2(body.find("Cheap watches today") != std::string::npos, body.c_str());
        QVERIFY(info.is_message);
        QVERIFY(info.from_html);
        QVERIFY(info.other_types.empty());
        QCOMPARE(emptyBodyReason(info), std::string());
        // A text/plain part with words still wins over the HTML one.
        std::string withText = mail;
        withText.replace(withText.find("  \n"), 3, "plain words\n");
        EmailBodyInfo textInfo;
        QCOMPARE(emailBody(withText, false, &textInfo), std::string("plain words\n"));
        QVERIFY(!textInfo.from_html);

        const std::string images = "Content-Type: multipart/mixed; boundary=\"m\"\n"
                                   "\n"
                                   "--m\n"
                                   "Content-Type: image/gif\n"
                                   "Content-Transfer-Encoding: base64\n"
                                   "\n"
                                   "R0lGODlh\n"
                                   "--m\n"
                                   "Content-Type: image/jpeg\n"
                                   "Content-Disposition: attachment; filename=\"a.jpg\"\n"
                                   "\n"
                                   "/9j/4AAQ\n"
                                   "--m--\n";
        EmailBodyInfo imageInfo;
        QCOMPARE(emailBody(images, false, &imageInfo), std::string());
        QCOMPARE(imageInfo.other_types, (std::vector<std::string>{"image/gif", "image/jpeg"}));
        QCOMPARE(emptyBodyReason(imageInfo),
                 std::string("the mail has no text, only image/gif, image/jpeg (an image-only mail)"));
        // An HTML part of pictures and links only is an image-only mail too.
        EmailBodyInfo htmlImages;
        const std::string pictures = emailBody(
            "Content-Type: text/html\n\n<a href=\"x\"><IMG src=\"a.jpg\"></a><img src=\"b.gif\">\n", false, &htmlImages);
        QVERIFY2(pictures.find_first_not_of(" \n") == std::string::npos, pictures.c_str());
        QCOMPARE(htmlImages.html_images, int64_t(2));
        QCOMPARE(emptyBodyReason(htmlImages),
                 std::string("the mail's HTML holds only images (2) and links, no text (an image-only mail)"));
        // prepare names such a mail when it skips it.
        const QString in = m_dir.path() + QStringLiteral("/images");
        writeText(in + QStringLiteral("/ham/1.eml"), kPlainMail);
        writeText(in + QStringLiteral("/ham/2.eml"), kPlainMail);
        writeText(in + QStringLiteral("/spam/1.eml"), images);
        writeText(in + QStringLiteral("/spam/2.eml"), mail);
        const std::string vocabPath = (m_dir.path() + QStringLiteral("/vocab-images.txt")).toStdString();
        writeText(QString::fromStdString(vocabPath), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhi\nlunch\ncheap\n");
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.vocab_file = vocabPath;
        o.max_seq_length = 32;
        o.eval_fraction = 0;
        o.bag_of_words_baseline = false;
        o.email_body_only = true;
        o.output_dir = (m_dir.path() + QStringLiteral("/out-images")).toStdString();
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(3));
        QCOMPARE(r.skipped.size(), size_t(1));
        QVERIFY2(r.skipped.front().where.find("spam/1.eml") != std::string::npos, r.skipped.front().where.c_str());
        QCOMPARE(r.skipped.front().reason,
                 std::string("the mail has no text, only image/gif, image/jpeg (an image-only mail)"));
    }

    void decodedHtmlHasLfLineEnds()
    {
        // Found by fuzz_emailbody: base64 (and quoted-printable) bring CRLF back inside an HTML
        // part; the result's line ends are LF there too, as for text/plain.
        // "<p>One</p>\r\n<p>Two</p>\r\n" in base64:
        const std::string b64 = "Content-Type: text/html\n"
                                "Content-Transfer-Encoding: base64\n"
                                "\n"
                                "PHA+T25lPC9wPg0KPHA+VHdvPC9wPg0K\n";
        QCOMPARE(emailBody(b64), std::string("\nOne\n\nTwo\n\n"));
        const std::string qp = "Content-Type: text/html\n"
                               "Content-Transfer-Encoding: quoted-printable\n"
                               "\n"
                               "One=0D=0A<br>Two=0D\n";
        QCOMPARE(emailBody(qp), std::string("One\n\nTwo"));
    }

    void quotedRepliesAreStripped()
    {
        const std::string text = "Sounds good, see you then.\n"
                                 "On Tue, 1 Dec 2026 at 10:00, Bob <bob@example.com> wrote:\n"
                                 "> lunch on Thursday?\n"
                                 ">> earlier\n"
                                 "  > indented quote\n"
                                 "Alice\n";
        QCOMPARE(stripQuotedReplies(text), std::string("Sounds good, see you then.\nAlice"));
        // The attribution wrapped over two lines by the mail client.
        QCOMPARE(stripQuotedReplies("ok\nOn Tue, 1 Dec 2026, Bob Smith\n<bob@example.com> wrote:\n> hi\n"),
                 std::string("ok"));
        // A sentence starting with "On" stays.
        QCOMPARE(stripQuotedReplies("On Thursday we meet."), std::string("On Thursday we meet."));
        QCOMPARE(emailBody("From: a@b\n\nyes\n> question?\n", true), std::string("yes"));
        QCOMPARE(emailBody("From: a@b\n\nyes\n> question?\n", false), std::string("yes\n> question?"));
    }

    /// The example is prepared from the mails' bodies, with the stratified split.
    void examplePreparesBodies()
    {
        ExampleDataPaths p;
        p.corpus_dir = "/cache/spamassassin";
        p.project_dir = "/cache/example-spam";
        p.vocab_file = "/cache/vocab/bert-base-uncased-vocab.txt";
        const PrepareOptions o = examplePrepareOptions(p);
        QCOMPARE(o.email_body_only, true);
        QCOMPARE(o.strip_quoted_replies, false);
        QCOMPARE(o.stratify_split, true);
        QCOMPARE(o.input_data_dir, p.corpus_dir);
        QCOMPARE(o.output_dir, p.project_dir);
        QCOMPARE(o.max_seq_length, int64_t(128));
        QCOMPARE(o.eval_fraction, 0.1);
        QCOMPARE(o.seed, uint64_t(42));
    }

    /// prepare with --email_body_only: the records hold the body's tokens only; the report says so.
    void prepareKeepsOnlyBodies()
    {
        const QString in = m_dir.path() + QStringLiteral("/mails");
        writeText(in + QStringLiteral("/ham/1.eml"), kPlainMail);
        writeText(in + QStringLiteral("/ham/2.eml"), "From: c@d\n\nlunch\n> received from\n");
        writeText(in + QStringLiteral("/spam/1.eml"), "Received: from spam\nSubject: buy\n\nbuy now\n");
        writeText(in + QStringLiteral("/spam/2.eml"), "Received: from spam\n\nbuy\n");
        const std::string vocabPath = (m_dir.path() + QStringLiteral("/vocab.txt")).toStdString();
        writeText(QString::fromStdString(vocabPath),
                  "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhi\nalice\n,\nlunch\non\nthursday\n?\nbuy\nnow\nreceived\nfrom\n>\n");
        for (const bool bodyOnly : {false, true}) {
            PrepareOptions o;
            o.input_data_dir = in.toStdString();
            o.vocab_file = vocabPath;
            o.max_seq_length = 64;
            o.eval_fraction = 0;
            o.bag_of_words_baseline = false;
            o.email_body_only = bodyOnly;
            o.strip_quoted_replies = bodyOnly;
            o.output_dir = (m_dir.path() + (bodyOnly ? QStringLiteral("/out-body") : QStringLiteral("/out-all"))).toStdString();
            const PrepareReport r = prepareData(o);
            QCOMPARE(r.email_body_only, bodyOnly);
            QCOMPARE(r.strip_quoted_replies, bodyOnly);
            QCOMPARE(r.train_examples, int64_t(4));
            RecordSpec spec;
            spec.max_seq_length = 64;
            spec.num_labels = 2;
            TFRecordReader reader(r.train_path);
            std::string payload;
            int64_t received = 0, tokens = 0;
            std::multiset<int64_t> lengths;
            while (reader.read(payload)) {
                ClassifierRecord rec;
                decodeClassifierRecord(payload, spec, rec);
                int64_t n = 0;
                for (int64_t id : rec.input_ids) {
                    n += id != 0 ? 1 : 0;
                    received += id == 13 ? 1 : 0; // "received"
                }
                lengths.insert(n);
                tokens += n;
            }
            if (bodyOnly) {
                QCOMPARE(received, int64_t(0));
                // [CLS] hi alice , lunch on thursday ? [SEP] = 9; [CLS] lunch [SEP] = 3;
                // [CLS] buy now [SEP] = 4; [CLS] buy [SEP] = 3.
                QCOMPARE(lengths, (std::multiset<int64_t>{3, 3, 4, 9}));
            } else {
                QVERIFY(received >= 3);
                QVERIFY(tokens > 19);
            }
            QVERIFY(readPrepareReport(r.meta_path)->email_body_only == bodyOnly);
        }
    }
};

QTEST_APPLESS_MAIN(tst_EmailBody)
#include "tst_emailbody.moc"
