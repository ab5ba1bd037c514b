#!/usr/bin/env python3
"""check_minimal.py REPORT CAIRND CONFIG PLUGINS -- CMD... : checks, apart
from cairn judge's own code, that every failing input `cairn judge --json`
reported (REPORT) is a failure and 1-minimal: the candidate (CMD) answers
it wrong, and answers right every legal input made by removing one value
or moving one value one step toward 0.  Legal and right are what the
real cairnd --filter says.  Exit 0 when so, 1 with what is not."""
import json
import subprocess
import sys

report_file, cairnd, config, plugins, dash, *cmd = sys.argv[1:]
assert dash == "--"
report = json.load(open(report_file))
variant = report["variant"]
options = {"limits": "extended"} if report["limits"] == "extended" else {}


def neighbours(inp):
    keys = list(inp)
    out = []
    if isinstance(inp[keys[0]], list):
        n = len(inp[keys[0]])
        for i in range(n):  # one value (a column, in every array) removed
            out.append({k: inp[k][:i] + inp[k][i + 1:] for k in keys})
    for k in keys:  # one value one step toward 0
        vals = inp[k] if isinstance(inp[k], list) else [inp[k]]
        for i, v in enumerate(vals):
            if v == 0:
                continue
            moved = list(vals)
            moved[i] = v - 1 if v > 0 else v + 1
            new = dict(inp)
            new[k] = moved if isinstance(inp[k], list) else moved[0]
            out.append(new)
    return out


def cairn_says(inputs):
    lines = "".join(json.dumps({"variant": variant, "input": i, "options": options}) + "\n"
                    for i in inputs)
    res = subprocess.run([cairnd, "--filter", "-c", config, "--plugins", plugins],
                         input=lines, capture_output=True, text=True, check=True)
    return [json.loads(l) for l in res.stdout.splitlines()]


def candidate_says(inputs):
    lines = "".join(json.dumps(i, separators=(",", ":")) + "\n" for i in inputs)
    res = subprocess.run(cmd, input=lines, capture_output=True, text=True, timeout=600)
    return [json.loads(l) for l in res.stdout.splitlines()]


bad = []
failures = report["failures"]
if not failures:
    bad.append("no failures reported")
for f in failures:
    x = f["input"]
    if not f.get("minimal"):
        bad.append(f"{x}: not said to be minimal")
    near = neighbours(x)
    results = cairn_says([x] + near)
    legal = [(i, r) for i, r in zip(near, results[1:]) if r["status"] == "ok"]
    answers = candidate_says([x] + [i for i, _ in legal])
    if results[0]["status"] != "ok":
        bad.append(f"{x}: not legal: {results[0]}")
    elif answers[0] == results[0]["answer"]:
        bad.append(f"{x}: the candidate answers it right ({answers[0]})")
    elif answers[0] != f["given"] or results[0]["answer"] != f["exact"]:
        bad.append(f"{x}: given {answers[0]} exact {results[0]['answer']}, report says {f}")
    for (i, r), a in zip(legal, answers[1:]):
        if a != r["answer"]:
            bad.append(f"{x} is not 1-minimal: {i} fails too (given {a}, exact {r['answer']})")
    print(f"{variant}: {x}: given {answers[0]}, exact {results[0].get('answer')}; "
          f"{len(near)} neighbours, {len(legal)} legal, all answered right"
          if not bad else f"{variant}: {x}: checked")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
