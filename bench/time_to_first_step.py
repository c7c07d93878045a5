#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Time from "Start from: BERT-Tiny" to the first training step, the model already cached
(issue 22: goal <= 2 s).

Builds, with the CLI only, a BERT-Tiny-shaped model (L=2, H=128, A=2, vocab 30522) in a
Hugging Face Hub cache laid out as huggingface_hub writes it (blobs/<sha256>, snapshots/<commit>/
links, refs/main), prepares 2,000 synthetic examples, then times
`train --pretrained_model=bench/bert-tiny` with HF_HUB_OFFLINE=1 from the process start to its
first step event (--progress_format=jsonl, --steps_per_loop=1), several rounds.
Usage: time_to_first_step.py <bert-workbench-cli> [rounds=5]. Prints one JSON line.
"""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

CONFIG = {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
          "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
          "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
          "type_vocab_size": 2, "vocab_size": 30522}


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), r.stdout[-2000:], r.stderr[-2000:]))
    return r


def make_model(cli, work):
    vocab = ["[PAD]"] + ["[unused%d]" % k for k in range(99)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += ["w%d" % k for k in range(CONFIG["vocab_size"] - len(vocab))]
    with open(os.path.join(work, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    with open(os.path.join(work, "bert_config.json"), "w") as f:
        json.dump(CONFIG, f)
    rng = random.Random(7)
    with open(os.path.join(work, "data.csv"), "w") as f:
        f.write("text,label\n")
        for k in range(2000):
            label = k % 2
            words = " ".join("w%d" % rng.randrange(label * 500, label * 500 + 2000) for _ in range(60))
            f.write("%s,%d\n" % (words, label))
    run([cli, "prepare", "--input_data_dir=" + os.path.join(work, "data.csv"),
         "--vocab_file=" + os.path.join(work, "vocab.txt"), "--do_lower_case=true",
         "--output_dir=" + os.path.join(work, "data"), "--max_seq_length=128",
         "--classification_task_name=csv"])
    data = os.path.join(work, "data")
    flags = ["--distribution_strategy=one_device", "--bert_config_file=" + os.path.join(work, "bert_config.json"),
             "--input_meta_data_path=" + os.path.join(data, "input_meta_data.json"),
             "--train_data_path=" + os.path.join(data, "train.tf_record"),
             "--eval_data_path=" + os.path.join(data, "eval.tf_record"),
             "--vocab_file=" + os.path.join(work, "vocab.txt"), "--do_lower_case=true",
             "--model_dir=" + os.path.join(work, "scratch"), "--train_data_size=32", "--num_train_epochs=1"]
    run([cli, "train"] + flags)
    export = os.path.join(work, "export")
    run([cli, "export"] + flags + ["--model_export_path=" + export])
    # The Hub cache, as huggingface_hub lays it out.
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = os.path.join(work, "hub", "models--bench--bert-tiny")
    snap = os.path.join(repo, "snapshots", commit)
    os.makedirs(os.path.join(repo, "blobs"))
    os.makedirs(snap)
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    for name in ("config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors"):
        with open(os.path.join(export, name), "rb") as f:
            blob = f.read()
        digest = hashlib.sha256(blob).hexdigest()
        with open(os.path.join(repo, "blobs", digest), "wb") as f:
            f.write(blob)
        os.symlink(os.path.join("..", "..", "blobs", digest), os.path.join(snap, name))
    return data


def first_step_seconds(cli, work, data, k):
    env = dict(os.environ, HF_HUB_CACHE=os.path.join(work, "hub"), HF_HUB_OFFLINE="1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    cmd = [cli, "train", "--pretrained_model=bench/bert-tiny", "--distribution_strategy=one_device",
           "--input_meta_data_path=" + os.path.join(data, "input_meta_data.json"),
           "--train_data_path=" + os.path.join(data, "train.tf_record"),
           "--eval_data_path=" + os.path.join(data, "eval.tf_record"),
           "--model_dir=" + os.path.join(work, "run%d" % k), "--steps_per_loop=1", "--num_threads=1",
           "--progress_format=jsonl"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seconds = None
    for line in p.stdout:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "step":
            seconds = time.monotonic() - t0
            break
    p.kill()
    p.wait()
    if seconds is None:
        sys.exit("no step event from: " + " ".join(cmd) + "\n" + p.stderr.read()[-2000:])
    return seconds


def main():
    cli = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = tempfile.mkdtemp(prefix="wb-first-step-")
    try:
        data = make_model(cli, work)
        times = sorted(first_step_seconds(cli, work, data, k) for k in range(rounds))
        print(json.dumps({"bench": "time_to_first_step", "model": "BERT-Tiny shape, cached, HF_HUB_OFFLINE=1",
                          "rounds": rounds, "best_s": round(times[0], 3), "median_s": round(times[len(times) // 2], 3),
                          "goal_s": 2.0}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
