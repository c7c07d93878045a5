#!/bin/sh
# `make run`: opens the GUI with the spam-detection example (obtained and prepared on first
# use into ~/.cache/bert-workbench). Without a display, the same example trains offscreen
# and the final loss plot is written as PNG next to the run.
set -eu
BUILD_DIR=${1:-build}
GUI="$BUILD_DIR/app/gui/bert-workbench"
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$GUI" --example
fi
echo "No display found: training the example offscreen (a few minutes on 2 cores; Ctrl-C stops)."
"$BUILD_DIR/app/cli/bert-workbench-cli" example
PNG="${XDG_CACHE_HOME:-$HOME/.cache}/bert-workbench/example-spam/loss-plot.png"
QT_QPA_PLATFORM=offscreen "$GUI" --example --train --screenshot-when-finished "$PNG"
echo "Loss plot written to $PNG"
