#!/usr/bin/env bash
# Installs what wgk needs, and nothing that is already there.
#   scripts/bootstrap.sh [runtime|test|fuzz] [--dry-run]
#     runtime  what building and running the library and the `wgk` command need (make build, make demo,
#              make install): compiler, CMake, jansson, OpenSSL, curl, protobuf-c, the Vulkan loader, Mesa >= 25
#              lavapipe, Node's npm, and Dawn from npm (third_party/dawn, pinned and integrity-checked by npm ci).
#     test     runtime, and the test toolchain (make test): cmocka, python3-numpy/onnx/pytest/matplotlib, the npm test
#              oracles (tests/oracle: @huggingface/jinja; tests/ort: onnxruntime-node, about 290 MB). Default.
#     fuzz     runtime, and clang (scripts/fuzz.sh).
#     --dry-run  print the plan and change nothing.
# It first decides what is missing, then prints the plan (every system change with its reason) before doing
# anything. Root (or sudo) is needed only when a Debian package is missing: with everything present it needs no
# root, runs no sudo and changes nothing (tests/bootstrap checks it as an ordinary user).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
say() { printf 'bootstrap: %s\n' "$*"; }

set_name=test dry_run=0
for a in "$@"; do
  case $a in
    runtime|test|fuzz) set_name=$a ;;
    --dry-run|-n) dry_run=1 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument '$a' (usage: scripts/bootstrap.sh [runtime|test|fuzz] [--dry-run])"; exit 2 ;;
  esac
done

runtime_packages=(build-essential cmake pkg-config libjansson-dev libssl-dev libcurl4-openssl-dev
                  libprotobuf-c-dev protobuf-c-compiler libvulkan1 nodejs npm)
test_packages=(libcmocka-dev python3 python3-numpy python3-onnx python3-pytest python3-matplotlib clang-format)
fuzz_packages=(clang)
packages=("${runtime_packages[@]}")
npm_dirs=(third_party/dawn)
case $set_name in
  test) packages+=("${test_packages[@]}"); npm_dirs+=(tests/oracle tests/ort) ;;
  fuzz) packages+=("${fuzz_packages[@]}") ;;
esac

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
mesa_version() { dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true; }
mesa_version_ok() {
  local v; v=$(mesa_version)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 25
}
debian_codename() { . /etc/os-release; echo "${VERSION_CODENAME:-}"; }
has_backports() { grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; }
lock_hash() { sha256sum "$root/$1/package-lock.json" | cut -d' ' -f1; }
# npm ci only when the lock changed since the last install (a stamp of the lock's hash in node_modules).
npm_current() {
  local stamp="$root/$1/node_modules/.wgk-lock-sha256"
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(lock_hash "$1")" ]
}
npm_what() {
  case $1 in
    third_party/dawn) echo "Dawn (bun-webgpu-linux-x64, about 20 MB), the WebGPU implementation wgk runs on" ;;
    tests/oracle) echo "@huggingface/jinja, the template oracle of the tests (under 1 MB)" ;;
    tests/ort) echo "onnxruntime-node, the reference the tests compare against (about 290 MB)" ;;
  esac
}

# 1. What is missing.
missing=()
for p in "${packages[@]}"; do
  # node/npm may come from elsewhere (nodesource); accept any working binary.
  case $p in nodejs) command -v node >/dev/null && continue ;; npm) command -v npm >/dev/null && continue ;; esac
  installed "$p" || missing+=("$p")
done
mesa_upgrade=0 add_backports=0
if ! mesa_version_ok; then
  mesa_upgrade=1
  if [ "$(debian_codename)" = bookworm ] && ! has_backports; then add_backports=1; fi
fi
npm_todo=()
for d in "${npm_dirs[@]}"; do
  [ -f "$root/$d/package-lock.json" ] || continue
  npm_current "$d" || npm_todo+=("$d")
done

# 2. The plan, before any change.
if [ ${#missing[@]} -eq 0 ] && [ $mesa_upgrade = 0 ] && [ ${#npm_todo[@]} -eq 0 ]; then
  say "nothing to install: the '$set_name' set is complete (${#packages[@]} Debian packages, Mesa $(mesa_version), ${npm_dirs[*]})"
  exit 0
fi
say "plan for the '$set_name' set:"
step=0
if [ ${#missing[@]} -gt 0 ]; then
  step=$((step + 1)); say "  $step. apt-get install ${missing[*]}  (not installed; needs root)"
fi
if [ $add_backports = 1 ]; then
  step=$((step + 1))
  say "  $step. add the apt source bookworm-backports (/etc/apt/sources.list.d/wgk-backports.sources), because"
  say "     Debian 12's Mesa is older than 25 and Dawn refuses older lavapipe (the CPU WebGPU adapter); needs root"
fi
if [ $mesa_upgrade = 1 ]; then
  v=$(mesa_version)
  step=$((step + 1))
  say "  $step. install mesa-vulkan-drivers >= 25${v:+ (now $v)}$([ "$(debian_codename)" = bookworm ] && echo ' from bookworm-backports'),"
  say "     because Dawn refuses lavapipe older than 25; this upgrades the system's Vulkan drivers; needs root"
fi
for d in ${npm_todo[@]+"${npm_todo[@]}"}; do
  step=$((step + 1)); say "  $step. npm ci in $d: $(npm_what "$d")  (into the checkout; no root)"
done
if [ $dry_run = 1 ]; then
  say "dry run: nothing changed"
  exit 0
fi

# 3. Root only for the Debian steps.
SUDO=""
if { [ ${#missing[@]} -gt 0 ] || [ $mesa_upgrade = 1 ]; } && [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || {
    say "not root and no sudo: ask an administrator to run 'scripts/bootstrap.sh $set_name' once (the Debian steps above)"
    exit 1
  }
  SUDO="sudo"
fi
apt_install() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }

if [ ${#missing[@]} -gt 0 ] || [ $mesa_upgrade = 1 ]; then
  if [ $add_backports = 1 ]; then
    say "adding bookworm-backports to apt's sources"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $SUDO tee /etc/apt/sources.list.d/wgk-backports.sources >/dev/null
  fi
  say "apt-get update"
  $SUDO apt-get update -q
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing: ${missing[*]}"
  apt_install "${missing[@]}"
fi
if [ $mesa_upgrade = 1 ]; then
  say "installing mesa-vulkan-drivers >= 25"
  if [ "$(debian_codename)" = bookworm ]; then
    apt_install -t bookworm-backports mesa-vulkan-drivers libvulkan1
  else
    apt_install mesa-vulkan-drivers
  fi
  mesa_version_ok || { say "mesa-vulkan-drivers is still older than 25 ($(mesa_version))"; exit 1; }
fi

# --loglevel=http: one line per download, so a long one is seen to progress. --ignore-scripts: onnxruntime-node's
# install script downloads GPU libraries (and fails offline).
for d in ${npm_todo[@]+"${npm_todo[@]}"}; do
  say "npm ci in $d"
  (cd "$root/$d" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=http)
  lock_hash "$d" >"$root/$d/node_modules/.wgk-lock-sha256"
done
[ -f "$root/third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so" ] || { say "Dawn library missing after npm ci"; exit 1; }
say "done"
exit 0
