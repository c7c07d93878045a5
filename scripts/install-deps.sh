#!/bin/sh
# Installs the Debian 12 packages BERT Workbench needs to build, test and run.
# Installs nothing when everything is present; uses sudo when not root.
set -eu
PKGS="g++ make cmake ccache pkg-config
qt6-base-dev libqcustomplot-dev nlohmann-json3-dev
libtorch-dev libgloo-dev libopenblas0-pthread libdnnl-dev
protobuf-compiler libprotobuf-dev libonnx-dev zlib1g-dev libutf8proc-dev libcli11-dev libssl-dev libarchive-dev libcurl4-openssl-dev liblinear-dev
xvfb xauth fonts-dejavu-core
chromium"
[ "${WB_WITH_BENCH:-0}" = 1 ] && PKGS="$PKGS python3-torch"
# The example data comes from the npm registry (npm pack); any Node.js with npm will do,
# so Debian's packages are only added when no npm is on the PATH.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "Installing missing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends $missing
