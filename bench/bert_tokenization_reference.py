#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference port of google-research/bert tokenization.py rules (formats.md §5), used to
cross-check wb::FullTokenizer. Usage: bert_tokenization_reference.py VOCAB < lines.jsonl
Each input line is a JSON string; each output line is a JSON list of token ids."""
import json
import sys
import unicodedata


def load_vocab(path):
    vocab = {}
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            vocab[line.strip()] = i
    return vocab


def is_whitespace(c):
    if c in " \t\n\r":
        return True
    return unicodedata.category(c) == "Zs"


def is_control(c):
    if c in "\t\n\r":
        return False
    return unicodedata.category(c) in ("Cc", "Cf")


def is_punct(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic(text, lower=True):
    out = []
    for c in text:
        cp = ord(c)
        if cp == 0 or cp == 0xFFFD or is_control(c):
            continue
        out.append(" " if is_whitespace(c) else c)
    text = "".join(out)
    out = []
    for c in text:
        out.append(" " + c + " " if is_cjk(ord(c)) else c)
    tokens = "".join(out).strip().split()
    split = []
    for t in tokens:
        if lower:
            t = t.lower()
            t = "".join(c for c in unicodedata.normalize("NFD", t) if unicodedata.category(c) != "Mn")
        cur = []
        for c in t:
            if is_punct(c):
                if cur:
                    split.append("".join(cur))
                    cur = []
                split.append(c)
            else:
                cur.append(c)
        if cur:
            split.append("".join(cur))
    return " ".join(split).strip().split()


def wordpiece(token, vocab, max_chars=200):
    chars = list(token)
    if len(chars) > max_chars:
        return ["[UNK]"]
    out, start = [], 0
    while start < len(chars):
        end, cur = len(chars), None
        while start < end:
            s = "".join(chars[start:end])
            if start > 0:
                s = "##" + s
            if s in vocab:
                cur = s
                break
            end -= 1
        if cur is None:
            return ["[UNK]"]
        out.append(cur)
        start = end
    return out


def tokenize(text, vocab, lower=True):
    return [p for t in basic(text, lower) for p in wordpiece(t, vocab)]


if __name__ == "__main__":
    vocab = load_vocab(sys.argv[1])
    for line in sys.stdin:
        text = json.loads(line)
        if isinstance(text, dict):
            text = text["text"]
        toks = tokenize(text, vocab)
        print(json.dumps(toks if "--tokens" in sys.argv else [vocab[t] for t in toks], ensure_ascii=False))
