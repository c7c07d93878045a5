#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compares bench_tokenizer's ids (IDS.jsonl, one line per file of FILES.txt) with the Python
reference port on every STEP-th file. Usage: compare_tokenizer_ids.py VOCAB FILES.txt IDS.jsonl [STEP]"""
import json
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from bert_tokenization_reference import load_vocab, tokenize  # noqa: E402

vocab = load_vocab(sys.argv[1])
files = open(sys.argv[2]).read().splitlines()
ids = open(sys.argv[3]).read().splitlines()
step = int(sys.argv[4]) if len(sys.argv) > 4 else 1
same = total = nbytes = 0
t0 = time.time()
for i in range(0, len(files), step):
    raw = open(files[i], "rb").read()
    nbytes += len(raw)
    ref = [vocab[t] for t in tokenize(raw.decode("utf-8", "ignore"), vocab)]
    total += 1
    if ref == json.loads(ids[i]):
        same += 1
    elif total - same <= 5:
        print("differs:", files[i], file=sys.stderr)
dt = time.time() - t0
print(json.dumps({"bench": "tokenizer_parity_python", "files": total, "identical": same,
                  "share": same / max(total, 1), "python_mb_per_s": nbytes / 1e6 / dt}))
