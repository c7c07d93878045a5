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

# Where apt keeps the English descriptions (Translation-en: the long description after the short
# line), they replace the Packages records' own, which hold the short line only when apt is set
# to Acquire::Languages "none" (Debian's container images): `apt-get update -o
# Acquire::Languages=en` fetches them. Without them each text is the one short line.
translations=$(mktemp)
trap 'rm -f "$translations"' EXIT
for f in /var/lib/apt/lists/*_i18n_Translation-en*; do
    [ -e "$f" ] && /usr/lib/apt/apt-helper cat-file "$f" >>"$translations" && printf '\n' >>"$translations"
done

apt-cache dumpavail | python3 -c '
import collections, csv, random, sys
keep = ("games", "sound", "graphics", "net", "science")
per_section, seed, out, translations = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]

def stanzas(text, key):
    """(key value, Section, description lines) of each stanza; key is Description or Description-en."""
    for stanza in text.split("\n\n"):
        md5, section, lines, in_description = None, None, [], False
        for line in stanza.split("\n"):
            if line.startswith("Section:"):
                section = line.split(":", 1)[1].strip().split("/")[-1]
            elif line.startswith("Description-md5:"):
                md5 = line.split(":", 1)[1].strip()
            elif line.startswith(key + ":"):
                lines, in_description = [line.split(":", 1)[1].strip()], True
            elif in_description and line.startswith(" "):
                part = line.strip()
                if part != ".":
                    lines.append(part)
            else:
                in_description = False
        yield md5, section, lines

long_text = {md5: lines for md5, _, lines in stanzas(open(translations, encoding="utf-8").read(), "Description-en")
             if md5 and lines}
rows, seen, long_used = [], collections.Counter(), 0
for md5, section, text in stanzas(sys.stdin.read(), "Description"):
    if md5 in long_text:
        text, long_used = long_text[md5], long_used + 1
    if section in keep and text:
        t = " ".join(text)
        seen[t] += 1
        rows.append((t, section))
print(f"{long_used} descriptions from Translation-en", file=sys.stderr)
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
' "$per_section" "$seed" "$out" "$translations"
