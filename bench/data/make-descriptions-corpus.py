#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A pretraining corpus of Debian's English package descriptions (issue 48's pretrained stand-in
on the long-description set, docs/benchmarks.md "Distillation"): every unique Description-en of
apt's Translation-en lists (the short line and the long lines after it, joined by spaces; "."
lines dropped), one document per description with a blank line after it, as prepare_pretraining
reads documents. Texts of EXCLUDE.csv's `text` column (the eval texts) are left out, so the
stand-in never reads an eval text. apt must have fetched the lists:
`apt-get update -o Acquire::Languages=en`.

    bench/data/make-descriptions-corpus.py OUT.txt [EXCLUDE.csv]
"""
import csv
import glob
import subprocess
import sys


def descriptions(text):
    for stanza in text.split("\n\n"):
        lines, inside = [], False
        for line in stanza.split("\n"):
            if line.startswith("Description-en:"):
                lines, inside = [line.split(":", 1)[1].strip()], True
            elif inside and line.startswith(" "):
                if line.strip() != ".":
                    lines.append(line.strip())
            else:
                inside = False
        if lines:
            yield " ".join(lines)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    files = sorted(glob.glob("/var/lib/apt/lists/*_i18n_Translation-en*"))
    if not files:
        sys.exit("no Translation-en lists in /var/lib/apt/lists: run apt-get update -o Acquire::Languages=en")
    exclude = set()
    if len(sys.argv) == 3:
        with open(sys.argv[2], newline="", encoding="utf-8") as f:
            exclude = {row["text"] for row in csv.DictReader(f)}
    seen, kept, left_out = set(), 0, 0
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for path in files:
            text = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path], check=True,
                                  capture_output=True).stdout.decode("utf-8")
            for d in descriptions(text):
                if d in seen:
                    continue
                seen.add(d)
                if d in exclude:
                    left_out += 1
                    continue
                out.write(d + "\n\n")
                kept += 1
    print(f"{len(seen)} unique descriptions; {left_out} excluded texts left out; {kept} written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
