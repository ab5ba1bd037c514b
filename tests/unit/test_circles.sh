#!/bin/sh
# test_circles.sh NM NINJA SRCDIR BUILDDIR [KNOWN] - no two source files of core/
# or client/ (in any folder below them) depend on each other, directly or
# through others.  A file depends on another when its object uses a
# symbol the other's object defines (nm on the build's objects), or when
# it includes a header the other owns (X.h belongs to X.c; the compiler's
# own list of included files, as ninja keeps it, so a header of no .c
# passes on what it includes).  Fails naming the files of every circle
# (a strongly connected component of more than one file) and why each of
# its files depends on the next.  KNOWN lists circles not yet undone, one
# a line (its files sorted, space separated; '#' starts a comment): those
# are reported and allowed, and one that is gone fails until its line is
# removed, so the list only shrinks.
set -u
nm=$1 ninja=$2 src=$3 build=$4 known=${5:-/dev/null}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The prefix the compiler's paths to the sources carry, seen from the
# build directory (meson gives them relative to it).
rel=$(realpath --relative-to="$build" "$src")
abs=$(realpath "$src")

# objects: "OBJECT SOURCE", and includes: "SOURCE HEADER", for every
# object compiled from a .c under core/ or client/.
"$ninja" -C "$build" -t deps | awk -v rel="$rel/" -v abs="$abs/" -v tmp="$tmp" '
    function norm(p) {
        if (index(p, rel) == 1) return substr(p, length(rel) + 1)
        if (index(p, abs) == 1) return substr(p, length(abs) + 1)
        return ""
    }
    /^[^ ]/ { obj = $1; sub(/:$/, "", obj); srcf = ""; first = 1; next }
    /^ / {
        p = norm($1)
        if (first) {
            first = 0
            if (p ~ /^(core|client)\/.*\.c$/) {
                srcf = p
                print obj, srcf > (tmp "/objects")
            }
            next
        }
        if (srcf != "" && p ~ /^(core|client)\/.*\.h$/) print srcf, p > (tmp "/includes")
    }'
if [ ! -s "$tmp/objects" ]; then
    echo "FAIL: no object of core/ or client/ in $build (ninja -t deps lists none: not built?)"
    exit 1
fi
touch "$tmp/includes"
cat "$known" >"$tmp/known"

# symbols: "SOURCE d SYMBOL" for each global symbol an object defines,
# "SOURCE u SYMBOL" for each it uses.
# One nm over them all (a process each is slow on a busy machine).
(cd "$build" && awk '{ print $1 }' "$tmp/objects" | xargs "$nm" -A -g -P) | awk -v tmp="$tmp" '
    FILENAME == (tmp "/objects") { src[$1 ":"] = $2; next }
    ($1 in src) && NF >= 3 { print src[$1], ($3 == "U" || $3 == "w" ? "u" : "d"), $2 }
' "$tmp/objects" - >"$tmp/symbols"

# The edges, "FROM TO WHY", then the circles.
awk -v tmp="$tmp" '
    FILENAME ~ /objects$/ { node[$2] = 1; next }
    FILENAME ~ /symbols$/ {
        if ($2 == "d") { owner[$3] = $1 } else { uses[++nu] = $1 " " $3 }
        next
    }
    FILENAME ~ /includes$/ { inc[++ni] = $1 " " $2; next }
    FILENAME ~ /known$/ {
        sub(/#.*/, "")
        if (NF) { line = $1; for (i = 2; i <= NF; i++) line = line " " $i; known[line] = 1 }
        next
    }
    function add(a, b, why) {
        if (a == b) return
        if (!((a, b) in edge)) { edge[a, b] = why; out[a] = out[a] " " b }
        else if (index(" " edge[a, b] ", ", " " why ", ") == 0 && length(edge[a, b]) < 200)
            edge[a, b] = edge[a, b] ", " why
    }
    # Every file that reaches a through edges, marked in seen[].
    function reach(a, n, i, k, stack, top, cur, list) {
        top = 0; stack[++top] = a
        while (top > 0) {
            cur = stack[top--]
            n = split(out[cur], list, " ")
            for (i = 1; i <= n; i++)
                if (!((a, list[i]) in seen)) { seen[a, list[i]] = 1; stack[++top] = list[i] }
        }
    }
    END {
        for (i = 1; i <= nu; i++) {
            split(uses[i], f, " ")
            if (f[2] in owner) add(f[1], owner[f[2]], f[2])
        }
        for (i = 1; i <= ni; i++) {
            split(inc[i], f, " ")
            c = f[2]; sub(/\.h$/, ".c", c)
            if (c in node) { h = f[2]; sub(/.*\//, "", h); add(f[1], c, "#include " h) }
        }
        for (a in node) reach(a)
        status = 0
        for (a in node) {
            if (a in done) continue
            members = a
            for (b in node)
                if (b != a && ((a, b) in seen) && ((b, a) in seen)) { members = members " " b; done[b] = 1 }
            done[a] = 1
            if (members == a) continue
            n = split(members, m, " ")
            # Sorted, so the message is the same from run to run.
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && m[j - 1] > m[j]; j--) { t = m[j]; m[j] = m[j - 1]; m[j - 1] = t }
            line = m[1]
            for (i = 2; i <= n; i++) line = line " " m[i]
            if (line in known) {
                print "known: a circle of " n " files, not yet undone: " line
                found[line] = 1
                continue
            }
            print "FAIL: a circle of " n " files: " line
            for (i = 1; i <= n; i++)
                for (j = 1; j <= n; j++)
                    if ((m[i], m[j]) in edge) print "  " m[i] " -> " m[j] ": " edge[m[i], m[j]]
            status = 1
        }
        for (line in known)
            if (!(line in found)) {
                print "FAIL: the known circle " line " is gone (or changed): remove its line from the list"
                status = 1
            }
        if (!status) {
            k = 0; for (a in node) k++
            print "ok: no circle among the " k " source files of core/ and client/, but those listed as known"
        }
        exit status
    }' "$tmp/objects" "$tmp/symbols" "$tmp/includes" "$tmp/known"
