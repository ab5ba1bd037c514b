#!/bin/sh
# test_names_once.sh SRCDIR - every name cairn gives a file or folder on
# disk is spelled once, in core/common/layout.h (the suffixes and folders)
# and core/common/names.c (the names built from them), for the daemon
# and the client alike: renaming a suffix there then renames it for
# `cairnd`, `cairn wait` and `cairn results` at once.  Renames nothing:
# reads the string literals of every C file under core/ and client/ (all
# their folders; comments skipped) and fails naming FILE:LINE of each
# literal that spells one of those names itself.
# Exit 0 pass, 1 fail.
set -u
src=$1
status=0

# Each string literal of the C files given, one a line, as FILE:LINE:TEXT
# (without its quotes).  Comments, character constants and preprocessor
# lines (#include "status.h" names a header, not a folder) are skipped.
literals() {
    awk '
    FNR == 1 { incomment = 0 }
    {
        line = $0
        if (!incomment && line ~ /^[ \t]*#/)
            next
        n = length(line); i = 1
        while (i <= n) {
            c = substr(line, i, 1); d = substr(line, i, 2)
            if (incomment) {
                if (d == "*/") { incomment = 0; i += 2 } else i++
                continue
            }
            if (d == "/*") { incomment = 1; i += 2; continue }
            if (d == "//") break
            if (c == "\047") {          # a character constant: skip it
                i++
                while (i <= n && substr(line, i, 1) != "\047")
                    i += substr(line, i, 1) == "\\" ? 2 : 1
                i++
                continue
            }
            if (c == "\"") {
                s = ""; i++
                while (i <= n && substr(line, i, 1) != "\"") {
                    s = s substr(line, i, 1 + (substr(line, i, 1) == "\\"))
                    i += substr(line, i, 1) == "\\" ? 2 : 1
                }
                i++
                print FILENAME ":" FNR ":" s
                continue
            }
            i++
        }
    }' "$@"
}

files=$(find "$src/core" "$src/client" -name '*.[ch]' ! -path '*/core/common/layout.h' \
    ! -path '*/core/common/names.c' | sort)
if [ -z "$files" ]; then
    echo "FAIL: no C file under $src/core or $src/client"
    exit 1
fi

# The outputs' suffixes; the state folder .cairn, alone or as a path's
# piece; its folders as a path's piece (active/, /done, ...); a job's
# file name made by hand (%s.jsonl).
names='\.(summary\.json|results\.jsonl|reason\.json)|(^|[^A-Za-z0-9_.-])\.cairn(/|$)|'
names=$names'(^|[^A-Za-z0-9_.-])(active|done|failed|status)/|'
names=$names'/(active|done|failed|status)([^A-Za-z0-9_.-]|$)|%s\.jsonl'
# shellcheck disable=SC2086 # the file names hold no blanks
# (each TEXT follows a ":", which stands for the literal's start)
hits=$(literals $files | grep -E "^[^:]*:[0-9]+.*($names)" | sed "s|^$src/||")
if [ -n "$hits" ]; then
    echo "FAIL: on-disk names spelled outside core/common/layout.h and names.c" \
        "(use their macros and functions):"
    printf '%s\n' "$hits" | sed 's/^/  /'
    status=1
else
    echo "ok: every on-disk name is spelled in layout.h and names.c alone"
fi
exit $status
