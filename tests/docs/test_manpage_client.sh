#!/bin/sh
# test_manpage_client.sh SRCDIR CAIRN - docs/cairn.1 renders cleanly and
# documents every command and option `cairn --help` lists, and every exit
# status.
#
# Exit status: 0 pass, 1 fail, 77 skip (groff is not installed; on Debian it
# comes with the groff-base package).

srcdir=$1
cairn=$2
page=$srcdir/docs/cairn.1
failed=0

fail() {
    echo "FAIL: $*" >&2
    failed=1
}

if [ -z "$srcdir" ] || [ -z "$cairn" ] || [ ! -r "$page" ] || [ ! -x "$cairn" ]; then
    echo "FAIL: usage: $0 SRCDIR CAIRN (with SRCDIR/docs/cairn.1 and CAIRN executable)" >&2
    exit 1
fi
if ! command -v groff >/dev/null 2>&1; then
    echo "SKIP: groff not found (Debian: apt-get install groff-base)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_manpage_client.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# 1. No warning at all (-ww), for both devices man(1) uses.
for dev in utf8 ascii; do
    LC_ALL=C groff -man -ww -z -T"$dev" "$page" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
        fail "groff -man -ww -z -T$dev $page (exit $rc):"
        sed 's/^/    /' "$tmp/err" >&2
    fi
done

# 2. The source as plain text ("\-" is "-", font escapes dropped).
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\%//g' "$page" >"$tmp/page"
documented() {
    grep -E -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$tmp/page" >/dev/null
}

# 3. Every option and command of cairn --help.
"$cairn" --help >"$tmp/help" 2>&1 || fail "$cairn --help failed"
grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u >"$tmp/long"
grep -o -E -- '(^|[[ ,])-[A-Za-z]([] ,]|$)' "$tmp/help" |
    sed -e 's/^[[ ,]*//' -e 's/[] ,]*$//' | sort -u >"$tmp/short"
sed -n 's/^  cairn \([a-z][a-z]*\) .*/\1/p' "$tmp/help" | sort -u >"$tmp/commands"
[ "$(wc -l <"$tmp/long")" -ge 12 ] || fail "only $(wc -l <"$tmp/long") long options in --help"
[ "$(wc -l <"$tmp/commands")" -eq 8 ] || fail "expected 8 commands in --help, got: $(cat "$tmp/commands")"
n=0
# shellcheck disable=SC2013 # one word per line
for word in $(cat "$tmp/long" "$tmp/short" "$tmp/commands"); do
    n=$((n + 1))
    documented "$word" || fail "$word (from cairn --help) is not in $page"
done

# 4. Sections, and each exit status.
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES "SEE ALSO"; do
    grep -E "^\.SH \"?$section\"?\$" "$page" >/dev/null || fail "no section $section in $page"
done
for code in 0 1 2 3 4; do
    sed -n '/^\.SH "EXIT STATUS"/,/^\.SH /p' "$page" | grep -qx "\.B $code" ||
        fail "exit status $code is not in EXIT STATUS"
done

[ "$failed" -eq 0 ] || exit 1
echo "ok: $page renders cleanly; $n commands and options documented"
