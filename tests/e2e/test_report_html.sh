#!/bin/sh
# test_report_html.sh CAIRND CAIRN PLUGINS SRCDIR SCREENSHOT
#
# `cairn report --html` in a real headless Chromium: a run of the real
# cairnd over examples/ (and one job with wrong expected answers), then
#   1. the page is self-contained: no script, nothing it could fetch;
#   2. it loads with no console message at all (a control page first
#      proves that this Chromium reports console errors to us);
#   3. the DOM shows the run's numbers, each compared with the summaries
#      and results files read independently here (python3);
#   4. at 1280 px, for evaluators: the smallest failing inputs lead the
#      page, names and ids stay on one line (nowrap, an ellipsis, the whole
#      text in title=), records and long inputs fold (<details>);
#   5. a screenshot 1280 px wide is written to SCREENSHOT (printed at the
#      end).
# Exit status: 0 pass, 1 fail, 77 skip (no Chromium that can run here:
# Debian's package is `chromium`).
set -u
cairnd=$1 cairn=$2 plugins=$3 srcdir=$4 shot=$5
fail() { echo "FAIL: $*"; exit 1; }

browser=""
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
[ -n "$browser" ] || { echo "SKIP: no chromium on PATH (Debian: apt-get install chromium)"; exit 77; }

tmp=$(mktemp -d /tmp/cairn-test-report-html-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# One Chromium run: headless, no sandbox (root in CI), its own profile,
# no name ever resolves (so nothing could reach a network even if the page
# tried), console messages on stderr.
chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --disable-background-networking \
        --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 "$@"
}
console_lines() { grep -E ':CONSOLE[:(]|Refused to|Failed to load' "$1"; }

# ---- can this Chromium run, and does it tell us about console errors?
cat >"$tmp/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>control</title></head>
<body><p id="x">control</p><script>console.error("cairn-control-error");</script></body></html>
EOF
if ! chrome --dump-dom "file://$tmp/control.html" >"$tmp/control.dom" 2>"$tmp/control.err"; then
    echo "SKIP: $browser cannot run here:"; tail -n 5 "$tmp/control.err"; exit 77
fi
grep -q 'id="x">control' "$tmp/control.dom" || {
    echo "SKIP: $browser printed no DOM:"; tail -n 5 "$tmp/control.err"; exit 77; }
console_lines "$tmp/control.err" | grep -q cairn-control-error ||
    fail "$browser does not report console errors with --enable-logging=stderr: the check below would prove nothing"

# ---- a run of the real daemon
mkdir -p "$tmp/in"
cp "$srcdir"/examples/*.jsonl "$tmp/in/"
cat >"$tmp/in/a-job-name-far-longer-than-any-column-of-the-page-should-hold.jsonl" <<'EOF'
{"id":"an-id-far-longer-than-any-column-of-the-page-should-hold-0123456789","variant":"stone-game-vii","input":{"stones":[5,3,1,4,2,7,7,1,9,4,4,2,8,3,3,1,6,5,2,2,9,9,1,4,6,3,8,8,1,2]},"expected":1}
EOF
cat >"$tmp/in/graded.jsonl" <<'EOF'
{"id":"g1","variant":"stone-game-iii","input":{"stoneValue":[1,2,3,7]},"expected":"Alice"}
{"id":"g2","variant":"stone-game-ii","input":{"piles":[1,2,3,4,5]},"expected":9}
{"id":"g3","variant":"stone-game","input":{"piles":[5,3,4,5]},"expected":true}
{"id":"p1","variant":"stone-game-vii","input":{"stones":[5,3,1,4,2]},"options":{"play":["L"]}}
{"id":"p2","variant":"stone-game-vii","input":{"stones":[5,3,1,4,2]},"options":{"play":["R","L","L"]}}
{"id":"p3","variant":"stone-game","input":{"piles":[3,9,1,2]},"options":{"play":["L","L"]}}
EOF
printf '{"min_age_ms": 0, "log_level": "warning", "keep_inputs": true}\n' >"$tmp/c.json"
"$cairnd" --once -c "$tmp/c.json" --input "$tmp/in" --output "$tmp/out" --plugins "$plugins" \
    >"$tmp/cairnd.log" 2>&1 || fail "cairnd --once failed: $(cat "$tmp/cairnd.log")"

"$cairn" -c "$tmp/c.json" --input "$tmp/in" report "$tmp/out" --html "$tmp/report.html" \
    >"$tmp/report.txt" 2>"$tmp/report.err" || fail "cairn report failed: $(cat "$tmp/report.err")"
[ -s "$tmp/report.html" ] || fail "no HTML page written"

# ---- 1. self-contained: the only URL is SVG's namespace, which is a name,
#         never fetched; no script; links and images only as data:.
if grep -o -E '(https?:|ftp:|//)[^" <]*' "$tmp/report.html" | grep -v -x 'http://www.w3.org/2000/svg' |
    grep -q .; then
    fail "the page names a URL: $(grep -o -E '(https?:|//)[^" <]*' "$tmp/report.html" | sort -u | head -3)"
fi
grep -qi '<script' "$tmp/report.html" && fail "the page has a script"
grep -o -E '(src|href)="[^"]*"' "$tmp/report.html" | grep -v -E '="(data:|#rec-[0-9]+-[0-9]+")' | grep -q . &&
    fail "the page links something: $(grep -o -E '(src|href)="[^"]*"' "$tmp/report.html" | head -3)"

# ---- 2. it loads with no console message
chrome --dump-dom "file://$tmp/report.html" >"$tmp/report.dom" 2>"$tmp/report.chrome.err" ||
    fail "$browser --dump-dom failed: $(tail -n 5 "$tmp/report.chrome.err")"
if console_lines "$tmp/report.chrome.err" >"$tmp/console"; then
    fail "console messages while loading the page: $(cat "$tmp/console")"
fi

# ---- 3. the DOM shows the run's numbers
python3 - "$tmp/report.dom" "$tmp/out" <<'PY' || exit 1
import glob, html.parser, json, os, sys
dom_path, out = sys.argv[1], sys.argv[2]

class Dom(html.parser.HTMLParser):
    """Text by element id, and the attributes of every element."""
    def __init__(self):
        super().__init__()
        self.text, self.elements, self.stack = {}, [], []
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag not in self.VOID:
            self.stack.append(a.get("id"))
    def handle_endtag(self, tag):
        if tag not in self.VOID and self.stack:
            self.stack.pop()
    def handle_data(self, data):
        for i in self.stack:
            if i:
                self.text[i] = self.text.get(i, "") + data

dom = Dom()
dom.feed(open(dom_path, encoding="utf-8").read())
def text(i):
    return dom.text.get(i, "").strip()

summaries = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "*.summary.json")))]
want = {
    "jobs": str(len(summaries)),
    "records": str(sum(s["records"] for s in summaries)),
    "ok": str(sum(s["ok"] for s in summaries)),
    "errors": str(sum(s["records"] - s["ok"] for s in summaries)),
    "matches": str(sum(s["matches"] for s in summaries)),
    "mismatches": str(sum(s["mismatches"] for s in summaries)),
}
m, d = int(want["matches"]), int(want["mismatches"])
want["accuracy"] = "%.1f%%" % (100.0 * m / (m + d))
bad = [f"#{k}: page {text(k)!r}, run {v!r}" for k, v in want.items() if text(k) != v]

codes = {}
for s in summaries:
    for k, v in s["errors"].items():
        codes[k] = codes.get(k, 0) + v
page_codes = {a["data-code"]: int(a["data-count"]) for t, a in dom.elements if "data-code" in a}
if page_codes != codes:
    bad.append(f"error codes: page {page_codes}, run {codes}")

checked, matched = {}, {}
for p in glob.glob(os.path.join(out, "*.results.jsonl")):
    for line in open(p):
        r = json.loads(line)
        if "match" in r:
            v = r.get("variant", "none")
            checked[v] = checked.get(v, 0) + 1
            matched[v] = matched.get(v, 0) + (1 if r["match"] else 0)
page_acc = {a["data-variant"]: (int(a["data-checked"]), int(a["data-matches"]))
            for t, a in dom.elements if t == "g" and "data-variant" in a and int(a["data-checked"])}
run_acc = {v: (checked[v], matched[v]) for v in checked}
if page_acc != run_acc:
    bad.append(f"accuracy per variant: page {page_acc}, run {run_acc}")

svgs = [a["id"] for t, a in dom.elements if t == "svg" and "id" in a]  # the bars in tables have none
if sorted(svgs) != ["chart-accuracy", "chart-errors", "chart-solve"]:
    bad.append(f"inline SVG charts: {svgs}")
# Solve times per record: the histogram's bars hold every solve the
# summaries' solve_histogram counted, bucket by bucket.
hist = [0] * 12
for s in summaries:
    for v in s["by_variant"].values():
        hist = [a + b for a, b in zip(hist, v["solve_histogram"])]
page_hist = {int(a["data-bucket"]): int(a["data-count"]) for t, a in dom.elements if "data-bucket" in a}
if any(page_hist.get(b, 0) != n for b, n in enumerate(hist)) or sum(page_hist.values()) != sum(hist):
    bad.append(f"solve-time histogram {page_hist}, summaries {hist}")
bins = sum(page_hist.values())
if bins != sum(s["ok"] for s in summaries):
    bad.append(f"solve-time histogram holds {bins} solves, the run {sum(s['ok'] for s in summaries)}")

# Accuracy by input size: every graded record in the bucket of its input's
# size, computed here from the records themselves.
def bucket(n):
    b = 0
    while b < 18 and n > (1 << b):
        b += 1
    lo = 1 if b == 0 else (1 << (b - 1)) + 1
    return str(lo) if lo == (1 << b) else f"{lo}-{1 << b}"
inputs = {}
for p in glob.glob(os.path.join(os.path.dirname(out), "in", ".cairn", "done", "*.jsonl")):
    job = os.path.basename(p)[:-6]
    for no, line in enumerate(open(p), 1):
        try:
            inputs[(job, no)] = json.loads(line).get("input")
        except (ValueError, AttributeError):
            pass
run_sizes = {}
for p in glob.glob(os.path.join(out, "*.results.jsonl")):
    job = os.path.basename(p)[:-len(".results.jsonl")]
    for line in open(p):
        r = json.loads(line)
        if "match" not in r:
            continue
        i = inputs[(job, r["line"])]
        arrays = [len(v) for v in i.values() if isinstance(v, list)]
        size = max(arrays) if arrays else max(v for v in i.values() if isinstance(v, int))
        k = (r["variant"], bucket(size))
        c, m = run_sizes.get(k, (0, 0))
        run_sizes[k] = (c + 1, m + (1 if r["match"] else 0))
page_sizes = {(a["data-variant"], a["data-size"]): (int(a["data-checked"]), int(a["data-matches"]))
              for t, a in dom.elements if t == "tr" and "data-size" in a}
if page_sizes != run_sizes:
    bad.append(f"accuracy by size: page {page_sizes}, run {run_sizes}")

# Graded play: lines, optimal ones and cost per variant, from the result
# lines' "play"; each blunder links to its record, which the page holds.
run_play = {}
for p in glob.glob(os.path.join(out, "*.results.jsonl")):
    for line in open(p):
        r = json.loads(line)
        if "play" in r:
            g, o, c = run_play.get(r["variant"], (0, 0, 0))
            run_play[r["variant"]] = (g + 1, o + r["play"]["optimal"], c + r["play"].get("cost", 0))
page_play = {a["data-variant"]: (int(a["data-graded"]), int(a["data-optimal"]), float(a["data-cost"]))
             for t, a in dom.elements if t == "tr" and "data-graded" in a}
if page_play != run_play:
    bad.append(f"graded play: page {page_play}, run {run_play}")
ids = {a.get("id") for t, a in dom.elements}
links = [a["href"][1:] for t, a in dom.elements if t == "a" and a.get("href", "").startswith("#")]
if not links or any(l not in ids for l in links):
    bad.append(f"record links {links} without their records on the page")
if '{"piles":[3,9,1,2]}' not in text("blunders-stone-game"):
    bad.append(f"the worst blunder lacks its position: {text('blunders-stone-game')[:300]!r}")
small = text("smallest")
for needle in ('stone-game-iii', '{"stoneValue":[1,2,3,7]}', '"Alice"', '"Bob"', '[3,1]'):
    if needle not in small:
        bad.append(f"the smallest failing inputs lack {needle}: {small[:300]!r}")
mm = text("mismatch-list")
# 4. at 1280 px: names and ids on one line, whole in their tooltip; long
# texts folded; the smallest failing inputs first.
page = open(dom_path, encoding="utf-8").read()
if "td.nw{white-space:nowrap;overflow:hidden;text-overflow:ellipsis" not in page:
    bad.append("no nowrap/ellipsis rule for name cells")
long_job = "a-job-name-far-longer-than-any-column-of-the-page-should-hold"
long_id = '"an-id-far-longer-than-any-column-of-the-page-should-hold-0123456789"'
cells = [a for t, a in dom.elements if t == "td" and a.get("class") == "nw"]
for name in (long_job, long_id):
    if not any(a.get("title") == name for a in cells):
        bad.append(f"no one-line cell with the tooltip {name!r}")
if any(t == "td" and a.get("class") != "nw" and a.get("title") for t, a in dom.elements):
    bad.append("a titled cell that wraps")
if "<details><summary>" not in page or not any(t == "details" for t, a in dom.elements):
    bad.append("records and long inputs are not folded in <details>")
h2 = [i for i, (t, a) in enumerate(dom.elements) if t == "h2"]
first = [i for i, (t, a) in enumerate(dom.elements) if a.get("id") == "smallest"]
if not first or len(h2) < 2 or first[0] > h2[1]:
    bad.append("the smallest failing inputs do not lead the page")
for needle in ('"g1"', '"Alice"', '"Bob"', '"g2"', '{"stoneValue":[1,2,3,7]}', long_id):
    if needle not in mm:
        bad.append(f"the mismatches lack {needle}: {mm[:300]!r}")
if bad:
    print("FAIL: the DOM does not show the run's numbers:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"ok: the DOM shows the run: {want}, {len(page_codes)} error codes, "
      f"accuracy for {len(page_acc)} variants, {bins} solves in the histogram, "
      f"{len(page_sizes)} size buckets, play for {len(page_play)} variants, {len(links)} record links")
PY

# ---- 5. a screenshot at 1280 px, for people
mkdir -p "$(dirname "$shot")"
rm -f "$shot"
chrome --hide-scrollbars --window-size=1280,4400 --screenshot="$shot" "file://$tmp/report.html" \
    >"$tmp/shot.out" 2>"$tmp/shot.err" || fail "screenshot failed: $(tail -n 5 "$tmp/shot.err")"
[ "$(head -c 4 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] ||
    fail "$shot is not a PNG"
[ "$(wc -c <"$shot")" -gt 20000 ] || fail "$shot is suspiciously small ($(wc -c <"$shot") bytes)"
echo "ok: no console messages; screenshot: $shot"
