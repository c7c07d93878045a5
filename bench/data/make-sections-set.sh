#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a real single-label text set from Debian's package metadata: one row per package, its
# description as the text (the `Description:` of `apt-cache dumpavail`: the short line and the
# long lines after it, as apt has them) and its archive section as the label, for the sections
# that say what a program is for: games, sound, graphics, net and science (the area prefix,
# contrib/ or non-free/, dropped). A description that more than one package has is dropped (the
# -data, -common … packages of one program). At most PER_SECTION rows a section, drawn with SEED.
# Used by the distillation benchmark (docs/benchmarks.md, "Distillation (issue 48)").
#
#   bench/data/make-sections-set.sh OUT.csv [PER_SECTION=700] [SEED=1]
#
# Output: CSV with the header text,label (RFC 4180 quoting). The data itself is not committed.
set -euo pipefail

out=${1:?usage: make-sections-set.sh OUT.csv [PER_SECTION] [SEED]}
per_section=${2:-700}
seed=${3:-1}

apt-cache dumpavail | python3 -c '
import collections, csv, random, sys
keep = ("games", "sound", "graphics", "net", "science")
per_section, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows, seen = [], collections.Counter()
for stanza in sys.stdin.read().split("\n\n"):
    section, text, in_description = None, [], False
    for line in stanza.split("\n"):
        if line.startswith("Section:"):
            section = line.split(":", 1)[1].strip().split("/")[-1]
        elif line.startswith("Description:"):
            text, in_description = [line.split(":", 1)[1].strip()], True
        elif in_description and line.startswith(" "):
            part = line.strip()
            if part != ".":
                text.append(part)
        else:
            in_description = False
    if section in keep and text:
        t = " ".join(text)
        seen[t] += 1
        rows.append((t, section))
by_section = collections.defaultdict(list)
for t, section in rows:
    if seen[t] == 1:
        by_section[section].append(t)
rng = random.Random(seed)
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["text", "label"])
    picked = []
    for section in keep:
        texts = sorted(by_section[section])
        rng.shuffle(texts)
        picked += [(t, section) for t in texts[:per_section]]
    rng.shuffle(picked)
    w.writerows(picked)
print({s: min(len(by_section[s]), per_section) for s in keep})
' "$per_section" "$seed" "$out"
