#!/bin/sh
# test_no_outside_refs.sh SRCDIR - no file of the tree sends its reader to
# a document outside it: a new engineer has the repository and nothing
# else.  Fails, naming file:line, on a mention of the old contract draft
# or the variants notes by name (the contract is docs/contract.md, the
# games' facts docs/games.md), on a numbered issue (say what it asked
# instead), or on an absolute path of someone's machine (a build
# machine's work folder, a home folder).  Looks at the files git tracks or would track (scratch output
# is ignored), or at every file when SRCDIR is not a git tree.
set -u
src=$1
cd "$src" || exit 1

# Spelled in pieces, so that this file does not find itself.
doc1='SP''EC' doc2='VARI''ANTS' work='/wo''rk/' home='/ho''me/'
pattern="\\b$doc1\\b|\\b$doc2\\b|[Ii]ssues? #?[0-9]|(^|[][[:space:]\"'\`(=:<>,])($work|$home)"

files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard
    else
        find . \( -path ./.git -o -path './build*' -o -path './obj-*' \) -prune -o -type f -print0
    fi
}

hits=$(files | xargs -0 grep -InE "$pattern" -- 2>/dev/null | sed 's|^\./||')
# A numbered issue whose number went to the next line of a comment.
split=$(files | xargs -0 awk 'FNR == 1 { prev = "" }
    prev ~ /[Ii]ssues?[ ,(]*$/ && $0 ~ /^[[:space:]#*\/"-]*#?[0-9]/ { print FILENAME ":" FNR - 1 ":" prev }
    { prev = $0 }' 2>/dev/null | sed 's|^\./||')
hits=$(printf '%s\n%s' "$hits" "$split" | sed '/^$/d')
if [ -n "$hits" ]; then
    echo "FAIL: references to documents outside the repository (file:line):"
    printf '%s\n' "$hits" | sed 's/^/    /'
    exit 1
fi
echo "ok: no reference to a document outside the repository"
