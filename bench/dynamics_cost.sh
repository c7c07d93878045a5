#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What recording the training dynamics costs (issue 46; docs/data-map.md, "What recording
# costs"): the spam example's data (`bert-workbench-cli example` prepares it), BERT-Tiny, the
# same run with --record_training_dynamics=true and =false, alternating, PAIRS pairs; prints
# each run's CPU time (user + sys) and wall time of `train` (process start to end: training,
# evaluations, checkpoints and the file's writes) and the ratios of the medians. The CPU time is
# the figure to read on a machine others load; the wall time on a quiet one.
#
#   bench/dynamics_cost.sh [CLI] [EXAMPLE_DIR]
#
# Environment: PAIRS (3), EPOCHS (1), THREADS (1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$here/build/app/cli/bert-workbench-cli}
data=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/bert-workbench/example-spam}
pairs=${PAIRS:-3}
epochs=${EPOCHS:-1}
threads=${THREADS:-1}
[ -f "$data/train.tf_record" ] || "$cli" example >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # run NAME true|false: prints "wall cpu" in seconds
    local TIMEFORMAT='%R %U %S'
    { time "$cli" train --distribution_strategy=one_device --bert_config_file="$data/bert_config.json" \
        --input_meta_data_path="$data/input_meta_data.json" --train_data_path="$data/train.tf_record" \
        --eval_data_path="$data/eval.tf_record" --model_dir="$work/$1" --train_batch_size=32 \
        --learning_rate=5e-4 --num_train_epochs="$epochs" --seed=42 --num_threads="$threads" \
        --save_embeddings=false --record_training_dynamics="$2" >"$work/$1.log" 2>&1; } 2>&1 |
        awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }'
}
on=() off=()
for k in $(seq 1 "$pairs"); do
    off+=("$(run "off$k" false)")
    on+=("$(run "on$k" true)")
    echo "pair $k: without ${off[-1]} s, with ${on[-1]} s (wall, CPU)"
done
[ -f "$work/on1/training_dynamics.jsonl" ] && [ ! -f "$work/off1/training_dynamics.jsonl" ]
rows=$(wc -l <"$work/on1/training_dynamics.jsonl")
python3 - "$rows" "${off[*]}" "${on[*]}" "$(uptime)" <<'PY'
import statistics, sys
rows = int(sys.argv[1])
off = [float(x) for x in sys.argv[2].split()]
on = [float(x) for x in sys.argv[3].split()]
for name, k in (("wall", 0), ("CPU", 1)):
    a, b = off[k::2], on[k::2]
    ma, mb = statistics.median(a), statistics.median(b)
    print("training dynamics, %s time: %d training examples recorded; median %.2f s without, %.2f s with: %+.1f%% "
          "(goal <= +5%%); pairs: %s" % (name, rows, ma, mb, 100 * (mb / ma - 1),
                                        ", ".join("%+.1f%%" % (100 * (y / x - 1)) for x, y in zip(a, b))))
print("load at the end:", sys.argv[4].strip())
PY
