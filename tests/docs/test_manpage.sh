#!/bin/sh
# test_manpage.sh SRCDIR CAIRND - docs/cairnd.8 renders cleanly and documents
# every option, configuration key and metric.
#
#   SRCDIR  the source tree (holds docs/cairnd.8 and config/cairn.json)
#   CAIRND  the built cairnd binary (its --help lists the options)
#
# Exit status: 0 pass, 1 fail, 77 skip (groff is not installed; on Debian it
# comes with the groff-base package).

srcdir=$1
cairnd=$2
page=$srcdir/docs/cairnd.8
config=$srcdir/config/cairn.json
failed=0

fail() {
    echo "FAIL: $*" >&2
    failed=1
}

if [ -z "$srcdir" ] || [ -z "$cairnd" ]; then
    echo "usage: $0 SRCDIR CAIRND" >&2
    exit 1
fi
for f in "$page" "$config"; do
    if [ ! -r "$f" ]; then
        echo "FAIL: cannot read $f" >&2
        exit 1
    fi
done
if [ ! -x "$cairnd" ]; then
    echo "FAIL: $cairnd is not an executable" >&2
    exit 1
fi
if ! command -v groff >/dev/null 2>&1; then
    echo "SKIP: groff not found (Debian: apt-get install groff-base)"
    exit 77
fi

tmp=${TMPDIR:-/tmp}/test_manpage.$$
mkdir "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# 1. It renders without a single warning (-ww: all warnings; -z: no output).
#    Some groff builds print warnings only for a given device, so try the
#    two that man(1) uses.
for dev in utf8 ascii; do
    LC_ALL=C groff -man -ww -z -T"$dev" "$page" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
        fail "groff -man -ww -z -T$dev $page (exit $rc):"
        sed 's/^/    /' "$tmp/err" >&2
    fi
done

# 2. The page source as plain text: "\-" becomes "-", and font and
#    non-printing escapes are dropped, so "\fB\-\-once\fR" reads "--once".
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(CW//g' -e 's/\\&//g' \
    -e 's/\\%//g' -e 's/\\~/ /g' "$page" >"$tmp/page"

# documented WORD: WORD occurs in the page, not as part of a longer name.
documented() {
    grep -E -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$tmp/page" >/dev/null
}

# 3. Every option cairnd --help lists: long ones (--once) and short ones (-c).
if ! "$cairnd" --help >"$tmp/help" 2>&1; then
    fail "$cairnd --help failed"
fi
grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u >"$tmp/long"
grep -o -E -- '(^|[[ ,])-[A-Za-z]([] ,]|$)' "$tmp/help" |
    sed -e 's/^[[ ,]*//' -e 's/[] ,]*$//' | sort -u >"$tmp/short"
if [ "$(wc -l <"$tmp/long")" -lt 10 ]; then
    fail "found only $(wc -l <"$tmp/long") long options in $cairnd --help"
fi
n_options=0
# shellcheck disable=SC2013 # one option per line, no spaces
for opt in $(cat "$tmp/long" "$tmp/short"); do
    n_options=$((n_options + 1))
    documented "$opt" || fail "option $opt (from cairnd --help) is not in $page"
done

# 4. Every key of the shipped configuration ("key": value, one per line),
#    and the keys it leaves at their defaults or unset: default_variant,
#    plugin_dir, umask, metrics_labels.
sed -n 's/^[[:space:]]*"\([a-z_][a-z0-9_]*\)"[[:space:]]*:.*/\1/p' "$config" | sort -u >"$tmp/keys"
if [ "$(wc -l <"$tmp/keys")" -lt 10 ]; then
    fail "found only $(wc -l <"$tmp/keys") keys in $config"
fi
n_keys=0
for key in $(cat "$tmp/keys") default_variant plugin_dir umask metrics_labels; do
    n_keys=$((n_keys + 1))
    documented "$key" || fail "configuration key $key is not in $page"
done

# 5. Every metric of the contract.
n_metrics=0
for metric in cairn_jobs_total cairn_records_total cairn_record_errors_total \
    cairn_solve_seconds cairn_job_seconds cairn_jobs_active cairn_jobs_queued \
    cairn_bytes_read_total cairn_plugin_info cairn_build_info; do
    n_metrics=$((n_metrics + 1))
    documented "$metric" || fail "metric $metric is not in $page"
done

# 6. The sections a reader looks for.
for section in NAME SYNOPSIS DESCRIPTION OPTIONS CONFIGURATION SIGNALS \
    "EXIT STATUS" ENVIRONMENT FILES "SEE ALSO"; do
    grep -E "^\.SH \"?$section\"?\$" "$page" >/dev/null || fail "no section $section in $page"
done

if [ "$failed" -ne 0 ]; then
    exit 1
fi
echo "ok: $page renders cleanly; $n_options options, $n_keys keys, $n_metrics metrics documented"
exit 0
