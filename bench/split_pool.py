#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Splits a CSV of texts and labels (the mail corpus, the debtags set) by the split.jsonl of a
`prepare` of it: OUT/pool.csv (the train side) and OUT/eval.csv (the eval side), with the input's
header (text,label or text,labels), and OUT/pool_texts.txt /
OUT/eval_texts.txt (each text on one line, blank-line separated: prepare_pretraining's input).

  split_pool.py DATA.csv SPLIT.jsonl OUT_DIR
"""
import csv
import json
import sys


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    csv.field_size_limit(1 << 30)
    mail, split, out = argv[1:4]
    side = {}
    for line in open(split):
        r = json.loads(line)
        side[r["line"]] = r["split"]
    rows = {"train": [], "eval": []}
    with open(mail, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        while True:
            line = reader.line_num + 1  # the line the next record starts on
            try:
                rec = next(reader)
            except StopIteration:
                break
            if side.get(line) in rows:
                rows[side[line]].append(rec)
    for name, key in (("pool.csv", "train"), ("eval.csv", "eval")):
        with open(f"{out}/{name}", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows[key])
        with open(f"{out}/{name[:-4]}_texts.txt", "w") as f:
            for text, _ in rows[key]:
                f.write(" ".join(text.split()) + "\n\n")
    print({k: len(v) for k, v in rows.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
