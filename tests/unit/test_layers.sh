#!/bin/sh
# test_layers.sh NM SRCDIR LIB... [-- LIB=SEEN:SEEN... ...] - core/'s
# folders are layers (bottom first, as LIB... are given): each library may
# use only the cairn_ symbols it or a library below it defines (every
# global symbol of the libraries is a cairn_ one).  client/'s folders,
# after "--", are each given with the libraries it may see (LIB=SEEN:...,
# client/meson.build's client_layers): each may use only the cairn_
# symbols it or one of those defines, so client/report, which sees base/,
# common/ and lib/, cannot call into the plugin host.  Meson compiles each
# folder with the headers of what it may see only, so an include outside
# does not build; this checks the symbols, which a declaration written by
# hand or a macro could still reach for.  It also checks that every source
# file of core/ and client/ sits in one of the folders.
set -u
nm=$1 src=$2
shift 2
tmp=$(mktemp -d) status=0
defined=$tmp/defined
trap 'rm -rf "$tmp"' EXIT

# The global symbols library $1 defines (read once: the client's libraries
# name the same ones again and again).
defines() {
    key=$tmp/$(echo "$1" | tr / _)
    [ -f "$key" ] || "$nm" --defined-only -g "$1" 2>/dev/null | awk 'NF == 3 { print $3 }' >"$key"
    cat "$key"
}

# The cairn_ symbols library $1 uses that $defined does not hold.
foreign() {
    "$nm" -u "$1" 2>/dev/null | awk '{ print $NF }' | grep '^cairn_' | sort -u |
        comm -23 - "$defined"
}

while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    lib=$1
    shift
    name=$(basename "$lib" .a)
    defines "$lib" >>"$defined"
    sort -u -o "$defined" "$defined"
    up=$(foreign "$lib")
    if [ -n "$up" ]; then
        echo "FAIL: $name uses symbols of a layer above it: $(echo $up)"
        status=1
    else
        echo "ok: $name uses only its own layer and those below"
    fi
done
[ $# -gt 0 ] && shift

for spec in "$@"; do
    lib=${spec%%=*}
    name=$(basename "$lib" .a)
    seen="" shown=""
    defines "$lib" >"$defined"
    rest=${spec#*=}
    while [ -n "$rest" ]; do
        s=${rest%%:*}
        defines "$s" >>"$defined"
        shown="$shown $(basename "$s" .a)"
        [ "$rest" = "$s" ] && rest="" || rest=${rest#*:}
    done
    sort -u -o "$defined" "$defined"
    out=$(foreign "$lib")
    if [ -n "$out" ]; then
        echo "FAIL: $name uses symbols of libraries it may not see (it sees$shown): $(echo $out)"
        status=1
    else
        echo "ok: $name uses only its own symbols and those of$shown"
    fi
done

for dir in core client; do
    stray=$(find "$src/$dir" -maxdepth 1 -name '*.[ch]')
    if [ -n "$stray" ]; then
        echo "FAIL: sources at the top of $dir/, in no folder: $stray"
        status=1
    else
        echo "ok: every source of $dir/ is in a folder"
    fi
done
exit $status
