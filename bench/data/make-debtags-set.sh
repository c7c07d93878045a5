#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a real multi-label text set from Debian's package metadata (docs/multi-label.md, "Data"):
# one row per package, its description as the text and its debtags of two facets as the labels.
#
#   bench/data/make-debtags-set.sh OUT.csv [NO_TAG_SHARE] [SEED]
#
# - Text: the package's `Description:` of `apt-cache dumpavail` (the short line and the long
#   lines that follow it); Debian ships the long descriptions apart (Translation-en, fetched by
#   `apt-get update` when Acquire::Languages includes en): when such a file is in
#   /var/lib/apt/lists, the long description of the same Description-md5 is appended.
# - Labels: the debtags (`Tag:`, comma-separated, continued on the following lines) of the facets
#   use:: (what the package is used for) and works-with:: (what it handles), the 6 most frequent
#   of each (12 labels; they co-occur as software does: use::editing with works-with::text,
#   use::viewing with works-with::image, use::converting with works-with::audio …), written
#   "|"-separated.
# - Rows: every package with at least one kept tag, plus a random sample (NO_TAG_SHARE of that
#   count, default 0.1, SEED default 1) of tagged packages with none of them (texts with no
#   label). Packages whose description repeats an earlier row's text are dropped.
# Output: CSV with the header text,labels (RFC 4180 quoting). The data itself is not committed.
# Prepare it with:
#   bert-workbench-cli prepare --classification_task_name=csv --input_data_dir=OUT.csv \
#       --vocab_file=vocab.txt --output_dir=debtags-prepared
set -euo pipefail

out=${1:?usage: make-debtags-set.sh OUT.csv [NO_TAG_SHARE] [SEED]}
share=${2:-0.1}
seed=${3:-1}

translations=$(mktemp)
available=$(mktemp)
trap 'rm -f "$translations" "$available"' EXIT
apt-cache dumpavail >"$available"
for f in /var/lib/apt/lists/*_i18n_Translation-en*; do
    [ -e "$f" ] || continue
    /usr/lib/apt/apt-helper cat-file "$f" >>"$translations"
    printf '\n' >>"$translations"
done

python3 - "$out" "$share" "$seed" "$translations" "$available" <<'EOF'
import collections, csv, random, sys

out, share, seed, translations, available = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
FACETS = ("use::", "works-with::")
PER_FACET = 6


def records(text):
    """deb822 paragraphs as {field: value}; continuation lines are joined with newlines."""
    for para in text.split("\n\n"):
        fields, key = {}, None
        for line in para.split("\n"):
            if line.startswith((" ", "\t")) and key:
                fields[key] += "\n" + line[1:]
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields.get("Package"):
            yield fields


def clean(description):
    """A description as one line of text: the " ." paragraph marks dropped, spaces joined."""
    lines = [l.strip() for l in description.split("\n")]
    if len(lines) > 1 and lines[0] and lines[0][-1] not in ".!?:":
        lines[0] += "."  # the short line is a title: end it before the long description
    return " ".join(l for l in lines if l and l != ".")


long_of = {}
with open(translations, encoding="utf-8", errors="replace") as f:
    for r in records(f.read()):
        long_of[(r["Package"], r.get("Description-md5", ""))] = r.get("Description-en", "")

packages = {}
with open(available, encoding="utf-8", errors="replace") as f:
    available_text = f.read()
for r in records(available_text):
    if r["Package"] in packages or "Tag" not in r:
        continue
    tags = [t.strip() for t in r["Tag"].replace("\n", " ").split(",") if t.strip()]
    text = r.get("Description", "")
    longer = long_of.get((r["Package"], r.get("Description-md5", "")))
    if longer and "\n" not in text:
        text = longer
    packages[r["Package"]] = (clean(text), tags)

counts = collections.Counter(t for _, tags in packages.values() for t in tags)
kept = []
for facet in FACETS:
    kept += [t for t, _ in sorted(((t, n) for t, n in counts.items() if t.startswith(facet)),
                                  key=lambda x: (-x[1], x[0]))[:PER_FACET]]
kept_set = set(kept)

with_tags, without = [], []
for name in sorted(packages):
    text, tags = packages[name]
    labels = [t for t in kept if t in tags]
    (with_tags if labels else without).append((text, "|".join(labels)))
random.Random(seed).shuffle(without)
rows, seen = [], set()
for text, labels in with_tags + without[: int(len(with_tags) * share)]:
    if text and text not in seen:
        seen.add(text)
        rows.append((text, labels))

with open(out, "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["text", "labels"])
    w.writerows(rows)
n_labels = sum(len(l.split("|")) for _, l in rows if l)
print(f"{out}: {len(rows)} texts, {sum(1 for _, l in rows if not l)} without a label, "
      f"{len(kept)} labels ({', '.join(kept)}), {n_labels / len(rows):.2f} labels per text; "
      f"long descriptions from Translation-en: {'yes' if long_of else 'no'}", file=sys.stderr)
EOF
