#!/bin/sh
# Starts the GUI with the example project; without a display, trains it via the CLI.
set -eu
BUILD_DIR=${1:-build}
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$BUILD_DIR/app/gui/bert-workbench" --example
fi
echo "No display found: training the example through the CLI instead."
exec "$BUILD_DIR/app/cli/bert-workbench-cli" example
