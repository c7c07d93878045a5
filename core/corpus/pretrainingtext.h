// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

/// One document (or, for a long one, one part of it) read by PretrainingTextReader: its
/// sentences (one per input line, blank lines left out), UTF-8, without line ends.
struct PretrainingTextDocument
{
    std::vector<std::string> sentences;
    std::string where;             ///< "file:line" of the document's first line
    bool continues = false;        ///< a further part of the previous document (cut at kMaxDocumentPartBytes)
};

/// A line longer than PretrainingTextReader::kMaxSentenceBytes, read in parts (one sentence each).
struct PretrainingLineSplit
{
    std::string where;             ///< "file:line" of the line; csv/tsv/jsonl: of the row (or JSONL line)
    /// Where each later part begins: bytes from the start of the line (plain text) or of the
    /// row's text (csv/tsv/jsonl: the field or value after unquoting / unescaping).
    std::vector<uint64_t> cut_offsets; ///< the first 64 cuts
    int64_t cuts = 0;                  ///< cuts in the line (parts − 1)
    int64_t cuts_inside_a_word = 0;    ///< of those, cuts inside a word (no token boundary within the limit)
};

/// Where to cut `text` when it is longer than `limit` bytes (limit > 0): the length of the first
/// part, at most `limit`, chosen so that no token of BERT's BasicTokenizer (transformers'
/// tokenization_bert.py: _tokenize_chinese_chars, then whitespace_tokenize) spans the cut, and so
/// the parts' tokens are the whole text's: the last character boundary in (0, limit] with a
/// separating character on either side of it, whitespace (space, tab, CR, LF, the Unicode space
/// separators Zs, U+2028/U+2029) or a CJK ideograph, or a punctuation character that no
/// lower-casing context crosses (neither neighbour case-ignorable nor U+03A3: str.lower()'s final
/// sigma reads across case-ignorable characters). The whitespace stays in one of the parts.
/// Without such a boundary (a single "word" longer than `limit`), the last UTF-8 character
/// boundary in (0, limit], and `insideWord` is set. Returns text.size() when the text is not
/// longer than `limit`. Pure; reads only inside `text`, whatever its bytes.
size_t tokenBoundaryCut(std::string_view text, size_t limit, bool &insideWord);

/// Reads the documents of a pretraining corpus one at a time, never the whole corpus
/// (docs/pretraining.md, "Input formats"):
/// - plain text ("text"; any file that is not .csv/.tsv/.jsonl): one sentence or line per
///   line, documents separated by blank lines (lines of only whitespace);
/// - a folder: its .txt files (recursively, hidden ones skipped, sorted by path), each read
///   as plain text, each file ending its last document;
/// - "csv" / "tsv" (a header row; RFC 4180 CSV with ',' or a ';' export, TSV without quoting):
///   each row one document, the line breaks inside its text field separating sentences;
/// - "jsonl": one JSON object per line, each one document.
/// The text column (csv/tsv) or key (jsonl) is `textColumn` (exact, else ignoring ASCII case)
/// or recognised as prepare recognises a single text column: sentence, text or review.
/// A UTF-8 byte order mark at a file's start is skipped; "\r\n" and "\r" end lines too.
/// Bounded memory: a document is handed out in parts of at most kMaxDocumentPartBytes (between
/// sentences), a line (plain text, or a line of a row's text) longer than kMaxSentenceBytes in
/// sentences of at most kMaxSentenceBytes, cut where tokenBoundaryCut() says: between tokens, so
/// that the parts' tokens are the line's; only a single "word" longer than kMaxSentenceBytes is
/// cut inside, at a UTF-8 character boundary. Every such line is counted (linesSplit(),
/// lineCutsInsideAWord(), lineSplits()). A CSV/TSV row or a JSONL line is never cut: one longer
/// than kMaxRowBytes / kMaxJsonLineBytes is an error.
///
/// Errors (wb::Error, field = the file, or "file:line"): a file that cannot be read, a binary
/// file (a NUL byte; the message gives its byte offset), bytes that are not UTF-8 (the byte
/// offset), a CSV/TSV row without the text field, a JSONL line that is not an object with
/// a string text, a text column that is missing or ambiguous (the columns found and the flag
/// to pass), an input without files. Not thread-safe.
class PretrainingTextReader
{
public:
    static constexpr size_t kMaxDocumentPartBytes = size_t(1) << 20; ///< text bytes per document part
    static constexpr size_t kMaxSentenceBytes = size_t(1) << 20;     ///< bytes per sentence (a longer line is cut)
    static constexpr size_t kMaxRowBytes = size_t(256) << 20;        ///< one CSV/TSV row (longer: an error)
    static constexpr size_t kMaxJsonLineBytes = size_t(64) << 20;    ///< one JSONL line (longer: an error)
    static constexpr size_t kMaxLineSplitsListed = 20;               ///< lineSplits() keeps the first ones

    /// `inputs`: files, folders and glob patterns (glob(3), e.g. "corpus/*.txt"; sorted), read
    /// in this order. `format`: "auto" (folder → its .txt
    /// files; .csv, .tsv, .jsonl/.ndjson by extension; anything else plain text), "text",
    /// "csv", "tsv" or "jsonl". Throws wb::Error for a missing input or an unknown format.
    /// `emailBodyOnly` (prepare_pretraining --email_body_only): the texts are e-mail messages,
    /// reduced to their bodies as prepare --email_body_only reads them (emailBody(), text not in
    /// UTF-8 read as Windows-1252): each plain file is one mail and one document (its body's
    /// lines its sentences, read whole: at most kMaxRowBytes), a folder gives all its files
    /// whatever their extension (hidden ones skipped), a csv/tsv/jsonl row's text is one mail.
    /// A mail whose body is empty counts in emptyRows().
    PretrainingTextReader(const std::vector<std::string> &inputs, const std::string &format,
                          const std::string &textColumn, bool emailBodyOnly = false);
    ~PretrainingTextReader();
    PretrainingTextReader(const PretrainingTextReader &) = delete;
    PretrainingTextReader &operator=(const PretrainingTextReader &) = delete;

    /// Reads the next document (part) into `doc`; returns false after the last one.
    bool next(PretrainingTextDocument &doc);

    /// Input bytes consumed so far and in total (for progress).
    uint64_t bytesRead() const { return m_bytesDone + m_fileBytesRead; }
    uint64_t totalBytes() const { return m_totalBytes; }
    /// Returns the files read (folders expanded).
    const std::vector<std::string> &files() const { return m_files; }
    /// Returns the format of the files: "text", "csv", "tsv" or "jsonl" (the first file's).
    const std::string &formatName() const { return m_formatName; }
    /// csv/tsv/jsonl: the header name or key read as the text, and whether it was recognised.
    const std::string &textColumn() const { return m_textColumnUsed; }
    bool textColumnRecognised() const { return m_textColumnRecognised; }
    /// Rows (csv/tsv/jsonl) whose text was empty or only whitespace, and with emailBodyOnly mails
    /// whose body is; they are not documents.
    int64_t emptyRows() const { return m_emptyRows; }
    /// Lines longer than kMaxSentenceBytes read in parts so far, the cuts made in them, and of
    /// those the cuts inside a word (see tokenBoundaryCut()).
    int64_t linesSplit() const { return m_linesSplit; }
    int64_t lineCuts() const { return m_lineCuts; }
    int64_t lineCutsInsideAWord() const { return m_lineCutsInsideAWord; }
    /// The first kMaxLineSplitsListed lines split, in input order (each complete once the reader
    /// has moved past it).
    const std::vector<PretrainingLineSplit> &lineSplits() const { return m_lineSplits; }

private:
    enum class Kind { Text, Csv, Tsv, Jsonl, Mail };
    bool openNext();
    bool fill();
    bool nextText(PretrainingTextDocument &doc);
    bool nextRow(PretrainingTextDocument &doc);
    bool nextJsonl(PretrainingTextDocument &doc);
    bool nextMail(PretrainingTextDocument &doc);
    void addText(std::string text, PretrainingTextDocument &doc);
    bool readLine(std::string &line, uint64_t &offset, bool *part = nullptr);
    void checkBytes(std::string_view bytes, uint64_t offset) const;
    void splitText(const std::string &text, PretrainingTextDocument &doc);
    void noteCut(const std::string &where, bool sameLine, uint64_t offset, bool insideWord);
    std::string pickColumn(const std::vector<std::string> &names, const std::string &where);

    std::vector<std::string> m_files;
    std::vector<Kind> m_kinds;
    size_t m_nextFile = 0;
    std::string m_textColumn;
    bool m_emailBodyOnly = false;
    std::string m_textColumnUsed;
    bool m_textColumnRecognised = false;
    std::string m_formatName;
    uint64_t m_totalBytes = 0, m_bytesDone = 0, m_fileBytesRead = 0;
    int64_t m_emptyRows = 0;
    int64_t m_linesSplit = 0, m_lineCuts = 0, m_lineCutsInsideAWord = 0;
    std::vector<PretrainingLineSplit> m_lineSplits;
    bool m_lastSplitListed = false; // the line cut last has an entry in m_lineSplits

    // The open file.
    FILE *m_file = nullptr;
    std::string m_path;
    Kind m_kind = Kind::Text;
    std::string m_buf;           // bytes read but not consumed
    size_t m_pos = 0;            // consumed bytes of m_buf
    uint64_t m_bufOffset = 0;    // file offset of m_buf[0]
    bool m_eof = false;
    int64_t m_line = 0;          // lines consumed
    bool m_pendingCr = false;    // the last line ended with '\r' (a following '\n' belongs to it)
    bool m_lineCut = false;      // the line being read has been cut (its next part continues it)
    uint64_t m_lineStart = 0;    // file offset of the line being read
    // csv/tsv
    bool m_headerRead = false;
    size_t m_column = 0;
    char m_delimiter = ',';
    bool m_quoting = true;
    std::vector<PretrainingTextDocument> m_rows;
    size_t m_rowPos = 0;
    // A document part waiting to be handed out (text format, cut parts of a long row).
    std::vector<PretrainingTextDocument> m_pending;
};

/// Returns the offset of the first byte of `bytes` that is not part of valid UTF-8 (bad lead
/// byte, truncated, overlong, surrogate or beyond U+10FFFF), or std::string_view::npos.
size_t firstInvalidUtf8(std::string_view bytes);

} // namespace wb
