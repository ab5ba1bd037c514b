#!/bin/sh
# test_layers.sh NM SRCDIR LIB... - core/'s folders are layers (bottom
# first, as LIB... are given): each library may use only the cairn_
# symbols it or a library below it defines (every global symbol of the
# libraries is a cairn_ one).  Meson compiles each folder with the headers
# of the folders below it only, so an include that runs up does not
# build; this checks the symbols, which a declaration written by hand or
# a macro could still reach up for.  It also checks that every source
# file of core/ sits in one of the folders.
set -u
nm=$1 src=$2
shift 2
defined=$(mktemp) status=0
trap 'rm -f "$defined"' EXIT
for lib in "$@"; do
    name=$(basename "$lib" .a)
    "$nm" --defined-only -g "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' >>"$defined"
    sort -u -o "$defined" "$defined"
    up=$("$nm" -u "$lib" 2>/dev/null | awk '{ print $NF }' | grep '^cairn_' | sort -u |
        comm -23 - "$defined")
    if [ -n "$up" ]; then
        echo "FAIL: $name uses symbols of a layer above it: $(echo $up)"
        status=1
    else
        echo "ok: $name uses only its own layer and those below"
    fi
done
stray=$(find "$src/core" -maxdepth 1 -name '*.[ch]')
if [ -n "$stray" ]; then
    echo "FAIL: sources at the top of core/, in no layer: $stray"
    status=1
else
    echo "ok: every source of core/ is in a layer's folder"
fi
exit $status
