#!/usr/bin/env bash
# Installs what wgk needs to build and test, and nothing that is already there.
# Idempotent: on a machine that has everything it checks and returns in about a second.
#   - Debian packages (compiler, cmake, libraries, Vulkan loader, Mesa >= 25 lavapipe,
#     python3-numpy/onnx for the test oracles, python3-pytest for the Python binding's tests);
#   - Dawn from npm (third_party/dawn, pinned by package-lock.json, integrity-checked by npm ci);
#   - test-only npm packages (tests/oracle: @huggingface/jinja; tests/ort: onnxruntime-node 1.30).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
say() { printf 'bootstrap: %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { say "not root and no sudo: cannot install packages"; exit 1; }
  SUDO="sudo"
fi

packages=(build-essential clang cmake pkg-config libjansson-dev libssl-dev libcurl4-openssl-dev
          libprotobuf-c-dev protobuf-c-compiler libcmocka-dev libvulkan1
          python3 python3-numpy python3-onnx python3-pytest nodejs npm)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

mesa_version_ok() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null) || return 1
  dpkg --compare-versions "$v" ge 25
}

apt_updated=0
apt_update() { [ $apt_updated = 1 ] || { $SUDO apt-get update -qq; apt_updated=1; }; }

debian_codename() { . /etc/os-release; echo "${VERSION_CODENAME:-}"; }

ensure_backports() {
  local codename; codename=$(debian_codename)
  [ "$codename" = bookworm ] || return 0
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding bookworm-backports to apt's sources (Mesa 25 for lavapipe)"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $SUDO tee /etc/apt/sources.list.d/wgk-backports.sources >/dev/null
    apt_updated=0
  fi
}

missing=()
for p in "${packages[@]}"; do
  # node/npm may come from elsewhere (nodesource); accept any working binary.
  case $p in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
  installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  say "installing: ${missing[*]}"
  apt_update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! mesa_version_ok; then
  ensure_backports
  apt_update
  say "installing mesa-vulkan-drivers >= 25 (Dawn refuses older lavapipe)"
  if [ "$(debian_codename)" = bookworm ]; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
  else
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers >/dev/null
  fi
  mesa_version_ok || { say "mesa-vulkan-drivers is still older than 25"; exit 1; }
fi

# npm ci only when the lock changed since the last install (a stamp of the lock's hash in node_modules).
npm_ci() {
  local dir=$1 want have=""
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ -f "$dir/node_modules/.wgk-lock-sha256" ] && have=$(cat "$dir/node_modules/.wgk-lock-sha256")
  if [ "$want" != "$have" ]; then
    say "npm ci in ${dir#$root/}"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$dir/node_modules/.wgk-lock-sha256"
  fi
}

npm_ci "$root/third_party/dawn"
[ -f "$root/third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so" ] || { say "Dawn library missing after npm ci"; exit 1; }
if [ -f "$root/tests/oracle/package.json" ]; then npm_ci "$root/tests/oracle"; fi
# onnxruntime-node: --ignore-scripts skips its install script, which downloads GPU libraries (fails offline).
if [ -f "$root/tests/ort/package.json" ]; then npm_ci "$root/tests/ort"; fi
exit 0
