#!/usr/bin/env bash
# scripts/node-lts.sh MAJOR: prints the bin directory of an official Node.js MAJOR binary, for
# `PATH="$(scripts/node-lts.sh 24):$PATH" npm test`. The binary comes from the npm registry
# package node-<os>-<arch> (the official build, published by the Node.js project's tooling), so
# the registry npm already reaches is enough: no nvm, no download site. It is installed once into
# ${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/node-MAJOR and reused; delete that folder to take
# the newest release of the line. The folder holds `node` only: npm and npx on PATH are the
# machine's, and run under whichever node comes first on PATH.
set -euo pipefail

major=${1:-}
if [[ ! $major =~ ^[0-9]+$ ]]; then
  echo "usage: $0 MAJOR   (e.g. $0 24): prints the bin directory of Node.js MAJOR" >&2
  exit 2
fi

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "node-lts: no registry package for $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-lts: no registry package for $(uname -m)" >&2; exit 1 ;;
esac
package="node-$os-$arch"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/switchboard"
dir="$cache/node-$major"
bin="$dir/node_modules/$package/bin"

usable() { [[ -x $1/node ]] && [[ $("$1/node" --version 2>/dev/null) == "v$major."* ]]; }

if ! usable "$bin"; then
  mkdir -p "$cache"
  # Installed beside the target and moved into place, so a concurrent run never sees half a
  # binary and an interrupted install leaves nothing behind.
  tmp=$(mktemp -d "$cache/.node-$major.XXXXXX")
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  echo "node-lts: installing $package@$major into $dir" >&2
  npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$package@$major" >&2
  if ! usable "$tmp/node_modules/$package/bin"; then
    echo "node-lts: $package@$major did not give a runnable Node.js $major" >&2
    exit 1
  fi
  rm -rf "$dir"
  # A rename fails when another run has just put its own copy there: that copy is used.
  if ! { [[ ! -e $dir ]] && mv "$tmp" "$dir" 2>/dev/null; } && ! usable "$bin"; then
    echo "node-lts: could not move Node.js $major into $dir" >&2
    exit 1
  fi
fi

echo "$bin"
