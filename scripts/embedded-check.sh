#!/usr/bin/env bash
# Compiles ForceCore as Embedded Swift with -no-allocations: any heap
# allocation in the core is a compile error, so this proves the frame path
# of the core allocation-free.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swiftc -enable-experimental-feature Embedded -wmo -parse-as-library \
  -Xfrontend -no-allocations -module-name ForceCore \
  -c Sources/ForceCore/*.swift -o "$out/ForceCore.o"
echo "ForceCore: Embedded Swift with -no-allocations: ok ($(wc -c <"$out/ForceCore.o") bytes of object code)" >&2
