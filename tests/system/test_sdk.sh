#!/bin/sh
# test_sdk.sh BUILD_DIR SOURCE_DIR - the out-of-tree plugin SDK, end to end.
#
# Also: building the example against the build tree's uninstalled .pc,
# and a user's plugin directory listed beside the shipped one (plugin_dir
# and --plugins as lists, duplicates across them, SIGHUP rescanning all).
#
# Installs cairn with `meson install --destdir` into a temporary tree,
# builds examples/plugin/ there with nothing but its Makefile and the
# installed cairn-plugin.pc, and runs the installed cairnd on the result.
# Exit 0 pass, 77 skip (a tool is missing), 1 fail.
#
# `meson install` rebuilds first, like a plain `meson install` does; set
# CAIRN_SDK_NO_REBUILD=1 to pass --no-rebuild (the build must be current).

if [ $# -ne 2 ] || [ ! -f "$1/build.ninja" ] || [ ! -d "$2/examples/plugin" ]; then
    echo "usage: sh tests/system/test_sdk.sh BUILD_DIR SOURCE_DIR (a configured meson build dir and the source tree)" >&2
    exit 1
fi
build=$(cd "$1" && pwd) || exit 1
src=$(cd "$2" && pwd) || exit 1

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

meson=${MESON:-meson}
for tool in "$meson" make pkg-config nm cc; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-test-sdk-XXXXXX") || fail "mktemp -d"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
# Files this script makes (plugin directory and file) must not depend on
# the caller's umask; the `make install` check sets its own on purpose.
umask 022
# The Makefile's own defaults are under test, not the caller's.
unset CFLAGS CPPFLAGS LDFLAGS MAKEFLAGS MFLAGS MAKELEVEL PKG_CONFIG

# 1. Install into a temporary tree.
echo "# meson install -C $build --destdir $tmp/dest"
no_rebuild=
[ -n "${CAIRN_SDK_NO_REBUILD:-}" ] && no_rebuild=--no-rebuild
if ! "$meson" install -C "$build" --destdir "$tmp/dest" --quiet $no_rebuild >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    fail "meson install failed"
fi
ok "meson install --destdir"

pc=$(find "$tmp/dest" -type f -name cairn-plugin.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no cairn-plugin.pc under $tmp/dest"
ok "installed ${pc#"$tmp/dest"}"
# The rest of the install tree, where a Debian admin looks for it.
for want in '*/bin/cairnd' '*/cairn/plugins/stone-game.so' '*/cairn/plugins/stone-game-ii.so' \
    '*/cairn/plugins/stone-game-iii.so' '*/cairn/plugins/stone-game-viii.so' \
    '*/cairn/plugins/predict-the-winner.so' '*/etc/cairn/cairn.json' '*/man8/cairnd.8' \
    '*/systemd/system/cairn.service' '*/sysusers.d/cairn.conf' '*/tmpfiles.d/cairn.conf'; do
    got=$(find "$tmp/dest" -path "$want" | head -n 1)
    [ -n "$got" ] || fail "nothing installed matches $want"
    ok "installed ${got#"$tmp/dest"}"
done
hdr=$(find "$tmp/dest" -type f -path '*/include/cairn/plugin.h' | head -n 1)
[ -n "$hdr" ] || fail "no include/cairn/plugin.h under $tmp/dest"
ok "installed ${hdr#"$tmp/dest"}"

# 2. Point pkg-config at the installed .pc, and only at it.  The .pc says
# prefix=/usr/local (the configured prefix), so its -I would name the real
# /usr/local/include.  PKG_CONFIG_SYSROOT_DIR makes pkg-config (pkgconf
# 1.8 on Debian 12) prefix -I paths and variables with the destdir.
# --define-prefix does not work here: it derives the prefix by stripping
# "lib/pkgconfig" from the .pc's directory, and this one is in
# lib/<multiarch>/pkgconfig, so it yields prefix=.../usr/local/lib.
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH
PKG_CONFIG_SYSROOT_DIR=$tmp/dest
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

flags=$(pkg-config --cflags --libs cairn-plugin) || fail "pkg-config --cflags --libs cairn-plugin failed"
echo "# pkg-config --cflags --libs cairn-plugin: $flags"
case " $flags " in
    *" -I$tmp/dest/"*) ;;
    *) fail "the -I flag does not point inside the destdir: $flags" ;;
esac
case " $flags " in
    *" -fvisibility=hidden "*) ;;
    *) fail "-fvisibility=hidden missing from the flags: $flags" ;;
esac
incdir=$(echo " $flags " | sed -n 's/.* -I\([^ ]*\) .*/\1/p')
[ -f "$incdir/cairn/plugin.h" ] || fail "$incdir/cairn/plugin.h does not exist"
ok "pkg-config gives -I$incdir (holds cairn/plugin.h) and -fvisibility=hidden"
# The ABI the .pc announces is the header's.
for part in MAJOR MINOR; do
    want=$(sed -n "s/^#define CAIRN_PLUGIN_ABI_$part \([0-9]*\).*/\1/p" "$incdir/cairn/plugin.h")
    got=$(pkg-config --variable="abi_$(echo $part | tr A-Z a-z)" cairn-plugin)
    [ -n "$want" ] && [ "$got" = "$want" ] ||
        fail "cairn-plugin.pc says abi_$(echo $part | tr A-Z a-z)=$got, plugin.h says $want"
done
ok "cairn-plugin.pc's abi_major and abi_minor are plugin.h's"

# 3. Build the example out of tree, with only its Makefile.
cp -R "$src/examples/plugin" "$tmp/work" || fail "cannot copy examples/plugin"
rm -f "$tmp/work"/*.so # a stale build from the source tree must not count
if ! make -C "$tmp/work" >"$tmp/make.log" 2>&1; then
    cat "$tmp/make.log"
    fail "make failed"
fi
cat "$tmp/make.log"
if grep -i 'warning:' "$tmp/make.log" >/dev/null; then
    fail "the example does not compile warning-free"
fi
so=$tmp/work/digit-game.so
[ -f "$so" ] || fail "make did not produce digit-game.so"
ok "make builds digit-game.so without warnings"

syms=$(nm -D --defined-only "$so" | awk '{ printf "%s%s", sep, $NF; sep = " " }')
echo "# nm -D --defined-only: $syms"
[ "$syms" = "cairn_plugin_entry" ] || fail "exported symbols are not exactly cairn_plugin_entry: $syms"
ok "the only exported symbol is cairn_plugin_entry"

# 4. A fresh plugin directory holding only the new plugin.
plugins=$tmp/plugins
mkdir "$plugins" || fail "cannot make $plugins"
chmod 0755 "$plugins" || fail "cannot chmod $plugins"
cp "$so" "$plugins/" || fail "cannot copy the plugin"
chmod 0644 "$plugins/digit-game.so" || fail "cannot chmod the plugin"
[ "$(ls -A "$plugins")" = "digit-game.so" ] || fail "$plugins holds more than the plugin"

cairnd=$(find "$tmp/dest" -type f -path '*/bin/cairnd' | head -n 1)
if [ -n "$cairnd" ]; then
    echo "# using the installed ${cairnd#"$tmp/dest"} (from the destdir)"
else
    cairnd=$build/core/cairnd
    echo "# no installed cairnd; using $cairnd"
fi
[ -x "$cairnd" ] || fail "$cairnd is not executable"
conf=$tmp/empty.json
echo '{}' >"$conf"

# 5. --list-plugins names it and its alias.
if ! "$cairnd" --list-plugins --plugins "$plugins" -c "$conf" >"$tmp/list.out" 2>&1; then
    cat "$tmp/list.out"
    fail "cairnd --list-plugins failed"
fi
cat "$tmp/list.out"
grep -F 'digit-game' "$tmp/list.out" >/dev/null || fail "--list-plugins does not name digit-game"
grep -F 'aliases: 3232' "$tmp/list.out" >/dev/null || fail "--list-plugins does not show alias 3232"
ok "cairnd --list-plugins lists digit-game, alias 3232"

# 6. --filter solves LeetCode 3232's three examples, by alias and by name,
# the last with its one move (Alice takes the two-digit numbers).
printf '%s\n' \
    '{"variant":"3232","input":{"nums":[1,2,3,4,10]}}' \
    '{"variant":"digit-game","input":{"nums":[1,2,3,4,5,14]}}' \
    '{"variant":"digit-game","input":{"nums":[5,5,5,25]},"options":{"moves":true}}' |
    "$cairnd" --filter --plugins "$plugins" -c "$conf" >"$tmp/filter.out" 2>"$tmp/filter.err"
rc=$?
cat "$tmp/filter.out" "$tmp/filter.err"
[ $rc -eq 0 ] || fail "cairnd --filter exited $rc"
[ "$(wc -l <"$tmp/filter.out")" -eq 3 ] || fail "expected 3 result lines"
sed -n 1p "$tmp/filter.out" | grep -F '"variant":"digit-game","status":"ok","answer":false,"alice":10,"bob":10' >/dev/null ||
    fail "[1,2,3,4,10] should answer false (alice 10, bob 10)"
ok "[1,2,3,4,10] via alias 3232: false"
sed -n 2p "$tmp/filter.out" | grep -F '"variant":"digit-game","status":"ok","answer":true,"alice":15,"bob":14' >/dev/null ||
    fail "[1,2,3,4,5,14] should answer true (alice 15, bob 14)"
ok "[1,2,3,4,5,14] via digit-game: true"
sed -n 3p "$tmp/filter.out" | grep -F '"answer":true,"alice":25,"bob":15' >/dev/null &&
    sed -n 3p "$tmp/filter.out" | grep -F '"moves":[2]' >/dev/null ||
    fail "[5,5,5,25] should answer true (alice 25, bob 15), moves [2]"
ok "[5,5,5,25] via digit-game: true, moves [2]"

# 7. make install: into DESTDIR + plugindir, mode 0644, and a directory
# cairnd accepts even under a group-writable umask.  Without the sysroot,
# so plugindir is the real one and DESTDIR alone relocates it.
pdir=$(unset PKG_CONFIG_SYSROOT_DIR; pkg-config --variable=plugindir cairn-plugin)
[ -n "$pdir" ] || fail "pkg-config --variable=plugindir cairn-plugin is empty"
if ! (unset PKG_CONFIG_SYSROOT_DIR; umask 002; make -C "$tmp/work" install DESTDIR="$tmp/inst") >"$tmp/install2.log" 2>&1; then
    cat "$tmp/install2.log"
    fail "make install failed"
fi
cat "$tmp/install2.log"
inst=$tmp/inst$pdir
[ -n "$(find "$inst/digit-game.so" -prune -type f -perm 644)" ] ||
    fail "$inst/digit-game.so missing or not mode 0644"
[ -z "$(find "$inst" -prune \( -perm -020 -o -perm -002 \))" ] ||
    fail "$inst is writable by group or others"
[ "$(ls -A "$inst")" = "digit-game.so" ] || fail "make install left other files in $inst"
"$cairnd" --list-plugins --plugins "$inst" -c "$conf" >"$tmp/list2.out" 2>&1 ||
    { cat "$tmp/list2.out"; fail "cairnd refuses the directory make install made"; }
ok "make install DESTDIR=... puts it in ${pdir} (0644, directory not group/world-writable)"

# 8. Without installing: the build tree's uninstalled .pc, as examples/plugin/README.md
# says (PKG_CONFIG_PATH=$PWD/build/meson-uninstalled make -C examples/plugin).
# pkg-config prefers cairn-plugin-uninstalled.pc when it is on the path.
upc=$build/meson-uninstalled/cairn-plugin-uninstalled.pc
[ -f "$upc" ] || fail "meson did not generate $upc"
cp -R "$src/examples/plugin" "$tmp/work2" || fail "cannot copy examples/plugin"
rm -f "$tmp/work2"/*.so
(
    unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
    PKG_CONFIG_PATH=$build/meson-uninstalled
    export PKG_CONFIG_PATH
    uflags=$(pkg-config --cflags cairn-plugin) || exit 1
    echo "# uninstalled pkg-config --cflags cairn-plugin: $uflags"
    case " $uflags " in
        *" -I$src/include "*) ;;
        *) echo "the uninstalled -I is not the source tree's include/: $uflags"; exit 1 ;;
    esac
    [ "$(pkg-config --variable=plugindir cairn-plugin)" = "$build/plugins" ] ||
        { echo "uninstalled plugindir is not $build/plugins"; exit 1; }
    make -C "$tmp/work2"
) >"$tmp/make2.log" 2>&1 || { cat "$tmp/make2.log"; fail "building against the uninstalled .pc failed"; }
grep -i 'warning:' "$tmp/make2.log" >/dev/null && { cat "$tmp/make2.log"; fail "warnings building against the uninstalled .pc"; }
[ -f "$tmp/work2/digit-game.so" ] || fail "no digit-game.so from the uninstalled build"
ok "make against build/meson-uninstalled (no install) builds digit-game.so"

# 9. A user's plugin beside the shipped ones: plugin_dir and --plugins take
# a list of directories (colon-separated, or a JSON array in the file).
bcairnd=$build/core/cairnd
mine=$tmp/mine
mkdir -m 0755 "$mine" && cp "$tmp/work2/digit-game.so" "$mine/" && chmod 0644 "$mine/digit-game.so" ||
    fail "cannot make $mine"
"$bcairnd" --check --plugins "$build/plugins:$mine" -c "$conf" >"$tmp/check.out" 2>&1 ||
    { cat "$tmp/check.out"; fail "--check with --plugins DIR:DIR failed"; }
grep -F "plugin_dir=$build/plugins:$mine " "$tmp/check.out" >/dev/null ||
    fail "--check does not show both directories: $(head -1 "$tmp/check.out")"
grep -F "file: $mine/digit-game.so" "$tmp/check.out" >/dev/null &&
    grep -F "file: $build/plugins/stone-game.so" "$tmp/check.out" >/dev/null ||
    fail "--check does not show each plugin's directory: $(cat "$tmp/check.out")"
ok "--check --plugins SHIPPED:MINE loads both, each file with its directory"
printf '{"plugin_dir": ["%s", "%s"]}\n' "$build/plugins" "$mine" >"$tmp/list.json"
printf '%s\n' '{"variant":"3232","input":{"nums":[1,2,3,4,5,14]}}' \
    '{"variant":"877","input":{"piles":[5,3,4,5]}}' |
    "$bcairnd" --filter -c "$tmp/list.json" >"$tmp/both.out" 2>"$tmp/both.err" ||
    fail "--filter with plugin_dir as an array failed: $(cat "$tmp/both.err")"
grep -c '"status":"ok"' "$tmp/both.out" | grep -qx 2 ||
    fail "not both plugins answered: $(cat "$tmp/both.out")"
ok "plugin_dir as a JSON array: the user's and a shipped plugin both answer"
# A duplicate across directories is refused, naming both files.
cp "$build/plugins/stone-game.so" "$mine/" && chmod 0644 "$mine/stone-game.so" || fail "cannot copy"
"$bcairnd" --check --plugins "$build/plugins:$mine" -c "$conf" >"$tmp/dup.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a duplicate across directories: --check exited $rc"
grep -F "$mine/stone-game.so" "$tmp/dup.out" | grep -F "$build/plugins/stone-game.so" >/dev/null ||
    fail "the refusal does not name both files: $(cat "$tmp/dup.out")"
rm -f "$mine/stone-game.so"
ok "a name in two directories is refused naming both files"
for bad in "$build/plugins:" ":$mine" "$build/plugins::$mine"; do
    "$bcairnd" --check --plugins "$bad" -c "$conf" >"$tmp/bad.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -F plugin_dir "$tmp/bad.out" >/dev/null ||
        fail "--plugins '$bad' (an empty entry): exit $rc, $(cat "$tmp/bad.out")"
done
ok "an empty entry in the list is refused naming plugin_dir"

# 10. SIGHUP rescans every directory: a plugin added to the second one is
# served after a reload.
rm -f "$mine/digit-game.so"
mkdir "$tmp/in" "$tmp/out" || fail "mkdir"
printf '{"min_age_ms": 0, "rescan_interval_s": 1, "plugin_dir": ["%s", "%s"]}\n' "$build/plugins" "$mine" >"$tmp/d.json"
"$bcairnd" -c "$tmp/d.json" --input "$tmp/in" --output "$tmp/out" 2>"$tmp/d.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null; rm -rf "$tmp"' EXIT
job() { # NAME: drop a digit-game job, wait for its summary
    printf '{"variant":"3232","input":{"nums":[1,2,3,4,5,14]}}\n' >"$tmp/.$1.tmp" && mv "$tmp/.$1.tmp" "$tmp/in/$1.jsonl"
    i=0
    while [ ! -f "$tmp/out/$1.summary.json" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -f "$tmp/out/$1.summary.json" ] || fail "no summary for $1: $(cat "$tmp/d.log")"
}
job before
grep -F '"code":"unknown_variant"' "$tmp/out/before.results.jsonl" >/dev/null ||
    fail "digit-game answered before it was installed: $(cat "$tmp/out/before.results.jsonl")"
cp "$tmp/work2/digit-game.so" "$mine/" && chmod 0644 "$mine/digit-game.so" || fail "cannot copy"
kill -HUP $daemon
i=0
while ! grep -F 'reloaded: ' "$tmp/d.log" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -F "reloaded: " "$tmp/d.log" >/dev/null || fail "no reload: $(cat "$tmp/d.log")"
job after
grep -F '"status":"ok","answer":true' "$tmp/out/after.results.jsonl" >/dev/null ||
    fail "digit-game not served after SIGHUP: $(cat "$tmp/out/after.results.jsonl") $(cat "$tmp/d.log")"
kill $daemon
wait $daemon
ok "SIGHUP rescans every directory of plugin_dir"

echo "PASS: plugin SDK"
exit 0
