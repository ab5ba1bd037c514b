#!/bin/sh
# unignored.sh SRCDIR DIR BEFORE - the paths a page's snippets created in
# DIR (its scratch copy of the top of the tree) that git would not ignore
# in SRCDIR, one a line, DIR-relative; nothing when all are ignored.
#
# BEFORE lists, as `find . -mindepth 1 | sort` in DIR printed it, what
# was there before the snippets ran.  Of a new directory only the
# directory itself is checked: a reader who runs the page in a clone
# sees it in `git status` as one line, and ignoring it ignores all in it.
# Prints nothing when SRCDIR is not a git work tree (a release tarball):
# there is no `git status` to keep clean.
set -u
src=$1 dir=$2 before=$3
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 0
(cd "$dir" && find . -mindepth 1 | LC_ALL=C sort) | LC_ALL=C comm -13 "$before" - |
    awk '{
        for (d in top) if (index($0, d "/") == 1) next
        top[$0] = 1; print
    }' | while IFS= read -r p; do
    p=${p#./}
    [ -d "$dir/$p" ] && [ ! -L "$dir/$p" ] && q=$p/ || q=$p
    git -C "$src" check-ignore -q --no-index -- "$q" || echo "$q"
done
