#!/usr/bin/env bash
# The README's contract, checked the way a newcomer meets it: clone the committed HEAD
# into an empty temp directory and run `npm install && npm test` there, nothing else
# installed first (no bench/node_modules, no dist/). Removes the clone afterwards.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/loopchart-fresh-XXXXXX")"
trap 'rm -rf "$dir"' EXIT
git clone --quiet "$src" "$dir/loopchart"
cd "$dir/loopchart"
npm install --no-audit --no-fund
npm test
