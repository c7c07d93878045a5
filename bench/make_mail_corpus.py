#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a benchmark corpus from the SpamAssassin tarball: a CSV with the columns "text" (each
e-mail's body, headers dropped, decoded as UTF-8 with U+FFFD for bad bytes) and "label" (ham or
spam, so that `prepare` reads it too), the whole corpus written REPEAT times.

  make_mail_corpus.py CORPUS.tar.gz OUT.csv REPEAT
"""
import csv
import sys
import tarfile


def bodies(path):
    mails = []
    with tarfile.open(path) as tar:  # in archive order: a .tar.gz is read front to back
        for m in tar:
            if m.isfile():
                mails.append((m.name, tar.extractfile(m).read()))
    for name, data in sorted(mails):
        raw = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        _, sep, body = raw.partition("\n\n")
        yield (body if sep else raw).replace("\x00", ""), "spam" if "/spam/" in name else "ham"


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    texts = list(bodies(argv[1]))
    with open(argv[2], "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        for _ in range(int(argv[3])):
            for text, label in texts:
                w.writerow([text, label])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
