#!/bin/sh
# test_packages.sh SRCDIR - building and running need only scripts/packages:
# the test tools are in scripts/packages-test, which scripts/demo never
# installs and CI always does, and the build configures without Check.
set -u
src=$1
fail() { echo "FAIL: $*"; exit 1; }
build_pkgs=$(cat "$src/scripts/packages")
test_pkgs=$(cat "$src/scripts/packages-test")

for p in $build_pkgs; do
    for q in $test_pkgs; do
        [ "$p" != "$q" ] || fail "$p is in both scripts/packages and scripts/packages-test"
    done
done
for tool in check valgrind prometheus parallel chromium groff-base slurmctld munge mmdebstrap debhelper; do
    case " $build_pkgs " in
        *" $tool "*) fail "$tool (a test tool) is in scripts/packages, which scripts/demo installs" ;;
    esac
    case " $test_pkgs " in
        *" $tool "*) ;;
        *) fail "$tool is not in scripts/packages-test" ;;
    esac
done
grep -q 'cat scripts/packages scripts/packages-test' "$src/.ci/run" ||
    fail ".ci/run does not install both package lists"
grep -q -- '--test' "$src/scripts/demo" && fail "scripts/demo asks for the test packages"
grep -q '^scripts/build --test$' "$src/scripts/test" || fail "scripts/test does not build the suite"

# Configuring without the suite needs no Check, and still builds both commands.
tmp=$(mktemp -d /tmp/cairn-test-packages-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
meson setup "$tmp/b" "$src" -Dtests=disabled >"$tmp/log" 2>&1 || fail "meson setup -Dtests=disabled: $(tail -5 "$tmp/log")"
meson introspect "$tmp/b" --targets >"$tmp/targets" || fail "meson introspect"
for t in '"name": "cairnd"' '"name": "cairn"'; do
    grep -q "$t" "$tmp/targets" || fail "no target $t without the suite"
done
grep -q '"name": "test_' "$tmp/targets" && fail "test programs are built with -Dtests=disabled"
echo "ok: $(echo $build_pkgs | wc -w) build packages, $(echo $test_pkgs | wc -w) test packages; builds without Check"
