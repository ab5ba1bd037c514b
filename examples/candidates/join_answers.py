#!/usr/bin/env python3
"""join_answers.py CORPUS ANSWERS: a candidate's answers joined to the
records of a corpus, ready for cairn: record I gets answer I as its
"expected" (the *given* answer the report compares with cairn's exact
one).  An answer line is what `cairn judge` reads from a candidate: a JSON
value, or {"answer": A, "play": [m1, m2, ...]}, whose line of play goes
into the record's options.play for cairn to grade move by move.

Stops with a message naming the file and line when the two files do not
line up or a line is not JSON."""
import json
import sys


def fail(msg):
    sys.exit("join_answers.py: " + msg)


def main(argv):
    n = 0
    if len(argv) != 3:
        fail("usage: join_answers.py CORPUS ANSWERS > RECORDS")
    corpus_path, answers_path = argv[1], argv[2]
    with open(corpus_path, encoding="utf-8") as corpus, \
            open(answers_path, encoding="utf-8") as answers:
        for n, (rec_line, ans_line) in enumerate(zip(corpus, answers), 1):
            try:
                rec = json.loads(rec_line)
            except ValueError as e:
                fail(f"{corpus_path}:{n}: not JSON: {e}")
            try:
                ans = json.loads(ans_line)
            except ValueError as e:
                fail(f"{answers_path}:{n}: not JSON: {e}")
            if isinstance(ans, dict):
                if "answer" not in ans:
                    fail(f"{answers_path}:{n}: an object without \"answer\"")
                if "play" in ans:
                    rec.setdefault("options", {})["play"] = ans["play"]
                ans = ans["answer"]
            rec["expected"] = ans
            print(json.dumps(rec, separators=(",", ":")))
        extra_rec, extra_ans = corpus.readline(), answers.readline()
        if extra_rec or extra_ans:
            longer = corpus_path if extra_rec else answers_path
            fail(f"{longer} has more lines than the other file (from line {n + 1})")


main(sys.argv)
