#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the small real data sets of the learning-rate finder's table (docs/benchmarks.md,
"The learning-rate finder on real data") from the SpamAssassin public corpus tarball, as
`prepare` folders (one sub-folder per label, one file per mail, the raw bytes):

  spam-ham/        N ham (easy and hard, every k-th in name order) + N spam: whole messages
  easy-hard/       N easy_ham + N hard_ham
  three-class/     N spam + N easy_ham + N hard_ham

(the bodies-only set is spam-ham/ prepared with --email_body_only).

  make_lrfind_sets.py CORPUS.tar.gz OUT_DIR N
"""
import os
import sys
import tarfile


def every(names, n):
    """n names spread evenly over the sorted list (deterministic)."""
    names = sorted(names)
    if len(names) <= n:
        return names
    step = len(names) / n
    return [names[int(i * step)] for i in range(n)]


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    mails = {}
    with tarfile.open(argv[1]) as tar:
        for m in tar:
            if m.isfile():
                mails[os.path.basename(m.name)] = tar.extractfile(m).read()
    n = int(argv[3])
    spam = [k for k in mails if k.startswith("spam-")]
    easy = [k for k in mails if k.startswith("easy-ham-")]
    hard = [k for k in mails if k.startswith("hard-ham-")]
    sets = {
        "spam-ham": {"ham": every(easy + hard, n), "spam": every(spam, n)},
        "easy-hard": {"easy_ham": every(easy, n), "hard_ham": every(hard, n)},
        "three-class": {"spam": every(spam, n), "easy_ham": every(easy, n), "hard_ham": every(hard, n)},
    }
    for name, labels in sets.items():
        for label, files in labels.items():
            folder = os.path.join(argv[2], name, label)
            os.makedirs(folder, exist_ok=True)
            for f in files:
                with open(os.path.join(folder, f), "wb") as out:
                    out.write(mails[f])
        print(name, {label: len(files) for label, files in labels.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
