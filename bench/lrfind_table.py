#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One row of the learning-rate finder's table (bench/lrfind_real_data.sh): the finder's
verdict and suggestion (find1/lr_find.json, find2/ when a second test ran), and the trained
run's last evaluation from train/eval_examples.jsonl: accuracy, macro-F1, MCC (Gorodkin's
multi-class form; Matthews' for 2 labels), the majority share, and whether every eval
example got the same prediction (a constant classifier). Prints one JSON line.

  lrfind_table.py NAME RUN_DIR HOW LR SETTINGS
"""
import json
import math
import os
import sys


def finder(path):
    if not os.path.exists(path):
        return None
    j = json.load(open(path))
    losses = [x for x in j["smoothed"] if x is not None]
    return {"steps": len(j["learning_rates"]), "verdict": j["verdict"], "suggestion": j["suggestion"],
            "steep": j["steep"], "min_loss_lr": j["min_loss_lr"], "min_over_10": j["min_over_10"],
            "smoothed_first": round(losses[0], 4) if losses else None,
            "smoothed_min": round(min(losses), 4) if losses else None}


def scores(rows):
    labels = sorted({r["true_label_id"] for r in rows} | {r["predicted_label_id"] for r in rows})
    n = len(rows)
    k = {a: {b: 0 for b in labels} for a in labels}
    for r in rows:
        k[r["true_label_id"]][r["predicted_label_id"]] += 1
    correct = sum(k[a][a] for a in labels)
    f1s = []
    truth = sorted({r["true_label_id"] for r in rows})
    for a in truth:
        tp = k[a][a]
        fp = sum(k[b][a] for b in labels) - tp
        fn = sum(k[a][b] for b in labels) - tp
        f1s.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    t = {a: sum(k[a].values()) for a in labels}
    p = {a: sum(k[b][a] for b in labels) for a in labels}
    num = correct * n - sum(t[a] * p[a] for a in labels)
    den = math.sqrt((n * n - sum(p[a] ** 2 for a in labels)) * (n * n - sum(t[a] ** 2 for a in labels)))
    return {"eval_examples": n, "accuracy": round(correct / n, 3), "macro_f1": round(sum(f1s) / len(f1s), 3),
            "mcc": round(num / den, 3) if den else 0.0, "majority": round(max(t.values()) / n, 3),
            "constant": len({r["predicted_label_id"] for r in rows}) == 1}


def main(argv):
    name, run, how, lr, settings = argv[1:6]
    out = {"set": name, "settings": settings, "find1": finder(os.path.join(run, "find1", "lr_find.json")),
           "find2": finder(os.path.join(run, "find2", "lr_find.json")), "trained_with": how,
           "learning_rate": float(lr)}
    ex = os.path.join(run, "train", "eval_examples.jsonl")
    if os.path.exists(ex):
        out.update(scores([json.loads(line) for line in open(ex) if line.strip()]))
    else:
        out["error"] = "no eval_examples.jsonl (see " + os.path.join(run, "train.txt") + ")"
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
