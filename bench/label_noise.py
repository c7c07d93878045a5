#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Helpers of bench/label_noise_spam.sh (issue 46; docs/benchmarks.md, "Label errors on the spam
example (issue 46)"). Rows of a CSV are named as prepare's split.jsonl names them: by file and
the 1-based line where the row starts (docs/file-formats.md, "The eval split and split.jsonl").

  label_noise.py flip CLEAN_CSV CLEAN_SPLIT SEED FRACTION OUT_CSV OUT_FLIPPED
      flip exactly round(FRACTION x train rows) labels of CLEAN_SPLIT's train rows (seeded) into
      OUT_CSV (same rows, same lines); OUT_FLIPPED lists them (file, line, label, noisy_label)
  label_noise.py folds SPLIT K SEED OUT_PREFIX
      OUT_PREFIX<f>.jsonl for f in 0..K-1: split files putting fold f of SPLIT's train rows (and
      SPLIT's eval rows) on the eval side, the other folds on the train side; folds stratified
      by the (noisy) label, seeded
  label_noise.py oof SPLIT K FOLD_PREFIX RUN_PREFIX OUT
      out-of-fold probabilities of SPLIT's train rows: fold f's from RUN_PREFIX<f>/eval_examples.jsonl
      through FOLD_PREFIX<f>/split.jsonl (prepared fold f); OUT: one {line, label, probabilities}
  label_noise.py cl OOF TOP_K OUT_CORRECTIONS
      confident learning (Northcutt et al. 2021) on the out-of-fold probabilities: the TOP_K
      label issues as corrections.jsonl lines (decision "accepted", suggested = the confident label)
  label_noise.py dynamics RUN_DIR SPLIT TOP_K OUT_CORRECTIONS
      the suspects' rule of core/advice/suspects.h recomputed from RUN_DIR/training_dynamics.jsonl
      (a stand-in while the CLI's `suspects` is missing; same ranking, same corrections lines)
  label_noise.py apply CSV CORRECTIONS OUT_CSV
      the accepted corrections applied to CSV's rows (a stand-in for prepare --corrections_file)
  label_noise.py score CORRECTIONS FLIPPED
      prints JSON: listed, hits, precision (hits / listed), recall (hits / flipped)
  label_noise.py oracle FLIPPED OUT_CORRECTIONS
      every flipped row given back its true label, as accepted corrections (the loop's ceiling)
  label_noise.py review_texts CSV REMOVED OUT_JSONL
      the texts of the rows a corrections file removes, one {"text": ...} a line in its order, for
      `classify --input_file=OUT_JSONL --output_format=jsonl` with the run trained without them
  label_noise.py review CLASSIFIED REMOVED MIN_P FLIPPED OUT_CORRECTIONS
      the removed rows that run assigns to their suggested label with p >= MIN_P relabelled
      (accepted), the rest still removed; prints how many of each were flipped (FLIPPED)
  label_noise.py table WORK_DIR SEEDS TRAIN_SEEDS
      the results of bench/label_noise_spam.sh in WORK_DIR as Markdown tables (and results.json);
      with several TRAIN_SEEDS (the first: the runs without a -t<seed> suffix) also the eval
      accuracy per training seed and the recovered share of their means
"""
import csv
import io
import json
import random
import sys

csv.field_size_limit(1 << 30)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def csv_rows(path):
    """The header and [(start_line, row)] of a CSV, lines counted as prepare counts them: '\r\n',
    '\n' and a lone '\r' each end a line (Python's universal newlines; inside quoted texts too)."""
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows, start = [], reader.line_num + 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    return header, rows


def write_csv(path, header, rows):
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(header)
    for row in rows:
        w.writerow(row)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())
    return buf.getvalue()


def checked_rows(csv_path, split):
    """The CSV's rows by start line, checked against split.jsonl: the same lines, the same labels."""
    header, rows = csv_rows(csv_path)
    label_col = header.index("label")
    by_line = {line: row for line, row in rows}
    listed = {r["line"]: r for r in split if r["split"] in ("train", "eval")}
    if set(listed) - set(by_line):
        raise SystemExit(f"{csv_path}: split.jsonl lines {sorted(set(listed) - set(by_line))[:5]} start no row")
    for line, r in listed.items():
        if by_line[line][label_col] != r["label"]:
            raise SystemExit(f"{csv_path}:{line}: label {by_line[line][label_col]!r}, split.jsonl says {r['label']!r}")
    return header, rows, label_col


def cmd_flip(clean_csv, clean_split, seed, fraction, out_csv, out_flipped):
    split = read_jsonl(clean_split)
    header, rows, label_col = checked_rows(clean_csv, split)
    with open(clean_csv, encoding="utf-8", newline="") as f:
        original = f.read()
    if write_csv(out_csv, header, [r for _, r in rows]) != original:
        raise SystemExit(f"{clean_csv}: rewriting the rows does not give the same bytes; lines would move")
    labels = sorted({r[label_col] for _, r in rows})
    train = sorted((r for r in split if r["split"] == "train"), key=lambda r: r["line"])
    rng = random.Random(int(seed))
    chosen = rng.sample(train, round(float(fraction) * len(train)))
    flipped, new_label = [], {}
    for r in sorted(chosen, key=lambda r: r["line"]):
        other = [lab for lab in labels if lab != r["label"]]
        new_label[r["line"]] = other[0] if len(other) == 1 else rng.choice(other)
        flipped.append({"file": r["file"], "line": r["line"], "index": r["index"], "label": r["label"],
                        "noisy_label": new_label[r["line"]]})
    noisy = []
    for line, row in rows:
        row = list(row)
        if line in new_label:
            row[label_col] = new_label[line]
        noisy.append(row)
    write_csv(out_csv, header, noisy)
    write_jsonl(out_flipped, flipped)
    print(f"flipped {len(flipped)} of {len(train)} train rows (seed {seed}) -> {out_csv}")


def cmd_folds(split_path, k, seed, out_prefix):
    split = [r for r in read_jsonl(split_path) if r["split"] in ("train", "eval")]
    k, rng = int(k), random.Random(int(seed))
    fold_of = {}
    for label in sorted({r["label"] for r in split}):
        lines = sorted(r["line"] for r in split if r["split"] == "train" and r["label"] == label)
        rng.shuffle(lines)
        for i, line in enumerate(lines):
            fold_of[line] = i % k
    for f in range(k):
        out = []
        for r in split:
            side = "eval" if r["split"] == "eval" or fold_of[r["line"]] == f else "train"
            out.append({"file": r["file"], "line": r["line"], "split": side, "label": r["label"]})
        write_jsonl(f"{out_prefix}{f}.jsonl", out)
    print(f"{k} folds of {len(fold_of)} train rows -> {out_prefix}0..{k - 1}.jsonl")


def cmd_oof(split_path, k, fold_prefix, run_prefix, out):
    train = {r["line"]: r for r in read_jsonl(split_path) if r["split"] == "train"}
    labels = [l.strip() for l in open(f"{fold_prefix}0/labels.txt", encoding="utf-8") if l.strip()]
    oof = {}
    for f in range(int(k)):
        fold_split = read_jsonl(f"{fold_prefix}{f}/split.jsonl")
        examples = {e["index"]: e for e in read_jsonl(f"{run_prefix}{f}/eval_examples.jsonl")}
        for r in fold_split:
            if r["split"] != "eval" or r["line"] not in train:
                continue
            e = examples[r["index"]]
            if e["true_label"] != train[r["line"]]["label"]:
                raise SystemExit(f"fold {f}: line {r['line']}: eval label {e['true_label']} is not the noisy label")
            if r["line"] in oof:
                raise SystemExit(f"line {r['line']} is in two folds")
            oof[r["line"]] = {"file": r["file"], "line": r["line"], "index": train[r["line"]]["index"],
                              "label": e["true_label"], "probabilities": e["probabilities"], "labels": labels}
    if set(oof) != set(train):
        raise SystemExit(f"{len(set(train) - set(oof))} train rows have no out-of-fold probabilities")
    write_jsonl(out, [oof[line] for line in sorted(oof)])
    print(f"out-of-fold probabilities of {len(oof)} train rows -> {out}")


def confident_learning(rows):
    """Northcutt, Jiang and Chuang 2021, "Confident Learning: Estimating Uncertainty in Dataset
    Labels", the confident joint C[noisy label][confident label]: per class j the threshold t_j is
    the mean out-of-fold p_j over the rows labelled j; a row counts in C[i][j] for the label j
    with p_j >= t_j (among several, the largest p_j; a row with none is not counted). The label
    issues are the off-diagonal rows (the paper's C_{y~,y*} method, cleanlab's
    filter_by="confident_learning"), ranked by self-confidence p_{noisy label} ascending.
    Returns (ranked issues [(row, confident label id)], thresholds, joint)."""
    labels = rows[0]["labels"]
    n = len(labels)
    sums, counts = [0.0] * n, [0] * n
    for r in rows:
        i = labels.index(r["label"])
        sums[i] += r["probabilities"][i]
        counts[i] += 1
    t = [sums[j] / counts[j] if counts[j] else 1.0 for j in range(n)]
    joint = [[0] * n for _ in range(n)]
    issues = []
    for r in rows:
        p, i = r["probabilities"], labels.index(r["label"])
        above = [j for j in range(n) if p[j] >= t[j]]
        if not above:
            continue
        j = max(above, key=lambda c: (p[c], -c))
        joint[i][j] += 1
        if j != i:
            issues.append((r, j))
    issues.sort(key=lambda rj: (rj[0]["probabilities"][labels.index(rj[0]["label"])], rj[0]["line"]))
    return issues, t, joint


def cmd_cl(oof_path, top_k, out):
    rows = read_jsonl(oof_path)
    issues, t, joint = confident_learning(rows)
    labels = rows[0]["labels"]
    chosen = issues[: int(top_k)]
    write_jsonl(out, [{"file": r["file"], "line": r["line"], "index": r["index"], "label": r["label"],
                       "suggested_label": labels[j], "decision": "accepted", "corrected_label": labels[j]}
                      for r, j in chosen])
    print(json.dumps({"thresholds": dict(zip(labels, [round(x, 4) for x in t])), "confident_joint": joint,
                      "off_diagonal": len(issues), "listed": len(chosen)}))


def suspect_rule(row, max_confidence=0.5, max_variability=1.0, min_share=0.5):
    """core/advice/suspects.cpp's rule: (is a suspect, suggested label id, confidence)."""
    p, pred = row["gold_probabilities"], row["predicted_label_ids"]
    if not p:
        return False, -1, 0.0
    m = len(p)
    conf = sum(p) / m
    var = (sum((x - conf) ** 2 for x in p) / m) ** 0.5 if m > 1 else 0.0
    seen = {}
    for pos, label in enumerate(pred):
        count, _ = seen.get(label, (0, 0))
        seen[label] = (count + 1, pos)
    best = max(seen, key=lambda lab: seen[lab])  # most often, ties: the latest last prediction
    count = seen[best][0]
    ok = conf < max_confidence and var < max_variability and best != row["label_id"] and count > min_share * m
    return ok, best, conf


def cmd_dynamics(run_dir, split_path, top_k, out):
    by_index = {r["index"]: r for r in read_jsonl(split_path) if r["split"] == "train"}
    labels = [l.strip() for l in open(split_path.rsplit("/", 1)[0] + "/labels.txt", encoding="utf-8") if l.strip()]
    found = []
    for row in read_jsonl(f"{run_dir}/training_dynamics.jsonl"):
        ok, best, conf = suspect_rule(row)
        if ok:
            found.append((conf, row["index"], best))
    found.sort()
    lines = []
    for conf, index, best in found[: int(top_k)]:
        r = by_index[index]
        lines.append({"file": r["file"], "line": r["line"], "index": index, "label": r["label"],
                      "suggested_label": labels[best], "decision": "accepted", "corrected_label": labels[best]})
    write_jsonl(out, lines)
    print(f"{len(found)} suspects (Python port of the rule); {len(lines)} written to {out}")


def cmd_apply(csv_path, corrections, out_csv):
    header, rows = csv_rows(csv_path)
    label_col = header.index("label")
    fix = {c["line"]: c.get("corrected_label", c.get("suggested_label"))
           for c in read_jsonl(corrections) if c["decision"] in ("accepted", "changed")}
    out = []
    for line, row in rows:
        row = list(row)
        if line in fix:
            row[label_col] = fix[line]
        out.append(row)
    write_csv(out_csv, header, out)
    print(f"{len(fix)} rows relabelled -> {out_csv}")


def score(corrections, flipped_path):
    flipped = {r["line"]: r for r in read_jsonl(flipped_path)}
    listed = read_jsonl(corrections)
    hits = [c for c in listed if c["line"] in flipped]
    right = [c for c in hits if c.get("suggested_label") == flipped[c["line"]]["label"]]
    return {"listed": len(listed), "hits": len(hits), "flipped": len(flipped),
            "precision": len(hits) / len(listed) if listed else 0.0,
            "recall": len(hits) / len(flipped) if flipped else 0.0,
            "suggestion_restores_label": len(right)}


def cmd_score(corrections, flipped_path):
    print(json.dumps(score(corrections, flipped_path)))


def accuracy(work, run):
    with open(f"{work}/runs/{run}/training_summary.json", encoding="utf-8") as f:
        return json.load(f)["last_eval"]["eval_accuracy"]


def seed_result(work, s):
    flipped = f"{work}/lists/flipped{s}.jsonl"
    r = {"seed": int(s), "flipped": len(read_jsonl(flipped)), "clean": accuracy(work, "clean")}
    r["ours"] = score(f"{work}/lists/suspects{s}.jsonl", flipped)
    r["cl"] = score(f"{work}/lists/cl{s}.jsonl", flipped)
    with open(f"{work}/logs/cl{s}.json", encoding="utf-8") as f:
        r["cl"]["off_diagonal"] = json.load(f)["off_diagonal"]
    with open(f"{work}/logs/suspects{s}.log", encoding="utf-8") as f:
        r["ours"]["found"] = int(f.readline().split()[0])
    r["noisy"], r["fixed"] = accuracy(work, f"noisy{s}"), accuracy(work, f"fixed{s}")
    lost = r["clean"] - r["noisy"]
    r["recovered"] = (r["fixed"] - r["noisy"]) / lost if lost > 0 else None
    for how in ("cl", "oracle"):
        try:
            r[f"{how}_fixed"] = accuracy(work, f"{how}-fixed{s}")
        except FileNotFoundError:
            r[f"{how}_fixed"] = None
    listed = r["ours"]["listed"]  # confident learning's precision at our list's length
    flipped_lines = {x["line"] for x in read_jsonl(flipped)}
    top = read_jsonl(f"{work}/lists/cl{s}.jsonl")[:listed]
    r["cl"]["precision_at_ours"] = sum(c["line"] in flipped_lines for c in top) / len(top) if top else 0.0
    return r


def spread(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    mean = sum(values) / len(values)
    return f"{fmt.format(mean)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def cmd_oracle(flipped_path, out):
    write_jsonl(out, [{"file": r["file"], "line": r["line"], "index": r["index"], "label": r["noisy_label"],
                       "suggested_label": r["label"], "decision": "accepted", "corrected_label": r["label"]}
                      for r in read_jsonl(flipped_path)])


def cmd_review_texts(csv_path, removed, out):
    header, rows = csv_rows(csv_path)
    by_line, text_col = dict(rows), header.index("text")
    removed_rows = read_jsonl(removed)
    missing = [r["line"] for r in removed_rows if r["line"] not in by_line]
    if missing:
        raise SystemExit(f"{removed}: line {missing[0]} is not a data line of {csv_path} "
                         f"({len(missing)} such lines); the corrections must come from a run prepared from this CSV")
    write_jsonl(out, [{"text": by_line[r["line"]][text_col]} for r in removed_rows])


def cmd_review(classified, removed, min_p, flipped_path, out):
    flips = {r["line"] for r in read_jsonl(flipped_path)}
    results, lines = read_jsonl(classified), read_jsonl(removed)
    if len(results) != len(lines):
        raise SystemExit(f"{classified}: {len(results)} results for the {len(lines)} lines of {removed}")
    decided, counts = [], {"relabelled": 0, "relabelled_flipped": 0, "removed": 0, "removed_flipped": 0}
    for c, r in zip(results, lines):
        relabel = c["predicted_label"] == r["suggested_label"] and c["probabilities"][r["suggested_label"]] >= float(min_p)
        kind = "relabelled" if relabel else "removed"
        counts[kind] += 1
        counts[kind + "_flipped"] += r["line"] in flips
        decided.append(dict(r, decision="accepted", corrected_label=r["suggested_label"]) if relabel
                       else dict(r, decision="removed"))
    write_jsonl(out, decided)
    print(json.dumps(counts))


def run_name(run, train_seed, first):
    """The runs of the first training seed carry no suffix; the others end in -t<seed>."""
    return run if train_seed == first else f"{run}-t{train_seed}"


def recovery_table(work, seeds, train_seeds):
    """Eval accuracy per training seed and the recovered share of the means."""
    first = train_seeds[0]
    mean = lambda run: sum(accuracy(work, run_name(run, t, first)) for t in train_seeds) / len(train_seeds)
    accs = lambda run: ", ".join(f"{accuracy(work, run_name(run, t, first)):.4f}" for t in train_seeds)
    print(f"| noise seed | eval acc. clean (training seeds {', '.join(train_seeds)}) | noisy | our top k relabelled "
          "| our top k removed | CL's top k relabelled | recovered: ours relabelled | ours removed | CL relabelled |")
    print("|---|---|---|---|---|---|---|---|---|")
    rec = {"ours": [], "pruned": [], "cl": []}
    clean = mean("clean")
    for s in seeds:
        noisy, ours, pruned, cl = mean(f"noisy{s}"), mean(f"fixed{s}"), mean(f"pruned{s}"), mean(f"cl-fixed{s}")
        for key, value in (("ours", ours), ("pruned", pruned), ("cl", cl)):
            rec[key].append((value - noisy) / (clean - noisy))
        print(f"| {s} | {accs('clean')} (mean {clean:.4f}) | {accs(f'noisy{s}')} (mean {noisy:.4f}) "
              f"| {accs(f'fixed{s}')} (mean {ours:.4f}) | {accs(f'pruned{s}')} (mean {pruned:.4f}) "
              f"| {accs(f'cl-fixed{s}')} (mean {cl:.4f}) "
              f"| {100 * rec['ours'][-1]:.0f} % | {100 * rec['pruned'][-1]:.0f} % | {100 * rec['cl'][-1]:.0f} % |")
    print(f"| mean (range) | | | | | | {spread(rec['ours'], '{:.2f}')} | {spread(rec['pruned'], '{:.2f}')} "
          f"| {spread(rec['cl'], '{:.2f}')} |")


def cmd_table(work, seeds, train_seeds):
    res = [seed_result(work, s) for s in seeds.split()]
    with open(f"{work}/results.json", "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    pct = lambda v: "-" if v is None else f"{100 * v:.0f} %"
    print("| noise seed | flipped (k) | our suspects: found, listed | precision@k | confident learning: "
          "off-diagonal, listed | precision@k | eval acc. clean | noisy | after corrections | recovered |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in res:
        o, c = r["ours"], r["cl"]
        print(f"| {r['seed']} | {r['flipped']} | {o['found']}, {o['listed']} | {o['precision']:.3f} "
              f"({o['hits']} flipped) | {c['off_diagonal']}, {c['listed']} | {c['precision']:.3f} ({c['hits']} flipped) "
              f"| {r['clean']:.4f} | {r['noisy']:.4f} | {r['fixed']:.4f} | {pct(r['recovered'])} |")
    col = lambda f: [f(r) for r in res]
    print(f"| mean (range) | | | {spread(col(lambda r: r['ours']['precision']), '{:.3f}')} | "
          f"| {spread(col(lambda r: r['cl']['precision']), '{:.3f}')} | {res[0]['clean']:.4f} "
          f"| {spread(col(lambda r: r['noisy']), '{:.4f}')} | {spread(col(lambda r: r['fixed']), '{:.4f}')} "
          f"| {spread(col(lambda r: r['recovered']), '{:.2f}')} |")
    print()
    print("| noise seed | our hits / k | CL hits / k | CL precision at our list's length | eval acc. after "
          "CL's top k accepted | after every flip undone (ceiling) |")
    print("|---|---|---|---|---|---|")
    fmt = lambda v: "-" if v is None else f"{v:.4f}"
    for r in res:
        o, c = r["ours"], r["cl"]
        print(f"| {r['seed']} | {o['hits']} / {r['flipped']} = {o['hits'] / r['flipped']:.3f} "
              f"| {c['hits']} / {r['flipped']} = {c['hits'] / r['flipped']:.3f} | {c['precision_at_ours']:.3f} "
              f"| {fmt(r['cl_fixed'])} | {fmt(r['oracle_fixed'])} |")
    if len(train_seeds.split()) > 1:
        print()
        recovery_table(work, seeds.split(), train_seeds.split())


COMMANDS = {"flip": (cmd_flip, 6), "folds": (cmd_folds, 4), "oof": (cmd_oof, 5), "cl": (cmd_cl, 3),
            "dynamics": (cmd_dynamics, 4), "apply": (cmd_apply, 3), "score": (cmd_score, 2),
            "table": (cmd_table, 3), "oracle": (cmd_oracle, 2), "review_texts": (cmd_review_texts, 3),
            "review": (cmd_review, 5)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS or len(sys.argv) - 2 != COMMANDS[sys.argv[1]][1]:
        sys.stderr.write(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]][0](*sys.argv[2:])
