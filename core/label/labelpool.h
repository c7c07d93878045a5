// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pool of "Label to learn" (issue 47; docs/label-to-learn.md, "The pool"): the unlabelled
// texts a user imports to label, read as `prepare` reads texts, and the rule that holds some of
// them out for measuring the model (the held-out set the curve is drawn on).
//
// Torch-free, no Qt. Thread rules: the functions are pure or read only the files they name.

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// One pool text and its source, as split.jsonl and the labels file name rows. A plain value.
struct PoolText
{
    std::string text; ///< the text, whole (UTF-8; after email_body_only when asked)
    std::string file; ///< the source file, relative to the imported folder, or the file's name
    int64_t line = 0; ///< 1-based line the text starts on; 0 for a whole file (a folder of texts)
};

/// How a pool is read.
struct PoolReadOptions
{
    /// csv/tsv/jsonl/json: the column (key) of the texts; "" recognises it as prepare does
    /// (text, sentence, review …, core/prepare/textinput.h). Ignored for a text file and a folder.
    std::string text_column;
    /// E-mail: keep each text's body (core/prepare/emailbody.h emailBody(), as prepare's
    /// --email_body_only). A text that does not start with a header block is kept as it is.
    bool email_body_only = false;
    /// 0: every text; else at most this many (the first in file order).
    int64_t max_texts = 0;
};

/// Reads the pool at `path`:
/// - a folder: every regular file below it (recursively, sorted by relative path; hidden files
///   and folders, and files named labels.csv, skipped) is one text (`line` 0);
/// - a .csv, .tsv, .jsonl/.ndjson or .json file: one text per record, from options.text_column
///   (prepare's reader, core/prepare/textinput.h; a label column, when present, is ignored);
/// - any other file: one text per non-blank line.
/// Empty texts (white space only, also after email_body_only) are left out. Throws wb::Error
/// naming the path for a missing path, an unreadable file, a bad record (with its line) and a
/// pool without any text.
std::vector<PoolText> readLabelPool(const std::string &path, const PoolReadOptions &options = {});

/// The text's id in the labels file and split.jsonl: "file:line" ("file" for line 0; for a text
/// without a source, "#" and its FNV-1a 64 hash in hex). Pure.
std::string poolTextKey(const PoolText &t);

/// Whether a pool text belongs to the held-out set, on which the curve's accuracy is measured
/// and which never trains a model: FNV-1a 64 of poolTextKey(t), modulo 1000, below
/// fraction·1000. A function of the text's id only, so it holds across sessions, whichever order
/// texts are labelled in, and cannot be chosen by the queue. fraction in [0, 1]. Pure.
bool isHeldOut(const PoolText &t, double fraction);

} // namespace wb
