#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The results table of the distillation benchmarks (bench/distil_bench.sh,
bench/distil_smaller_student.sh; docs/benchmarks.md, "Distillation"): for each run name, the
last evaluation's metric of RUNS/<name>-<seed> for every seed, their mean and spread, and the
mean agreement with the teacher where the run has one. Markdown on standard output.

    distil_table.py RUNS "SEEDS" METRIC NAME=LABEL [NAME=LABEL ...]

METRIC: a key of metrics.jsonl's eval lines (eval_accuracy, eval_micro_f1), or "auto":
eval_micro_f1 when the first run has it, else eval_accuracy.
"""
import json
import statistics
import sys


def last_eval(run_dir):
    last = None
    with open(f"{run_dir}/metrics.jsonl") as f:
        for line in f:
            j = json.loads(line)
            if j.get("kind") == "eval":
                last = j
    if last is None:
        sys.exit(f"distil_table.py: {run_dir}/metrics.jsonl has no eval line: did the run finish?")
    return last


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__)
    root, seeds, metric = argv[1], argv[2].split(), argv[3]
    rows = [arg.split("=", 1) for arg in argv[4:]]
    if metric == "auto":
        first = last_eval(f"{root}/{rows[0][0]}-{seeds[0]}")
        metric = "eval_micro_f1" if "eval_micro_f1" in first else "eval_accuracy"
    print(f"| run | {metric} by seed ({', '.join(seeds)}) | mean ± sd | agreement with the teacher |")
    print("|---|---|---|---|")
    for name, label in rows:
        evals = [last_eval(f"{root}/{name}-{s}") for s in seeds]
        values = [e[metric] for e in evals]
        agree = [e["eval_teacher_agreement"] for e in evals if "eval_teacher_agreement" in e]
        sd = f" ± {statistics.stdev(values) * 100:.1f}" if len(values) > 1 else ""
        by_seed = " / ".join(f"{v * 100:.1f}" for v in values)
        print(f"| {label} | {by_seed} | **{statistics.mean(values) * 100:.1f}{sd}** | "
              + (f"{statistics.mean(agree) * 100:.1f}" if agree else "-") + " |")


if __name__ == "__main__":
    main(sys.argv)
