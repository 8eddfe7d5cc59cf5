#!/usr/bin/env python3
"""The code blocks of the project's Markdown files, for tests/e2e/test_doc.sh.

Every fenced block (```) must say what it is, on the line just before its opening fence:

    <!-- doctest: NAME [exit=0,3] [sed=EXPR]... -->   run by test_doc.sh (see below)
    <!-- file: NAME -->                               a file's contents, written as NAME
                                                      beside every doctest of its document
    <!-- not run: REASON -->                          shown, not run, and why

or be a usage block: the first block after a "### scalebench CMD" heading, which test_cli
checks against `CMD --help`.  The man pages' sources (Documentation/*.txt, AsciiDoc) say the
same on a comment line just before a listing (----) or literal (....) block (or before its
[source,LANG] line):

    // doctest: NAME [exit=0,3] [sed=EXPR]...
    // file: NAME
    // not run: REASON
  A block that says nothing is an error, so a new example is
either run or says why it cannot be; an unclosed fence shows up the same way (the fences
after it pair up wrongly).

A doctest runs with `bash -e -o pipefail` in a scratch directory laid out like the source
tree (build/scalebench, examples/, jobs/), HOME set to a scratch home: it passes when its
exit status is one of `exit=` (default 0).  Each `sed=EXPR` is applied to the block first
(`sed -e EXPR`), to run it on small settings (shorter windows, fewer runs); the README shows
the settings a user would run.

    doctest.py check FILE...          one line per block (FILE:LINE KIND NAME); exit 1 on
                                      a block that says nothing or a bad marker
    doctest.py extract DIR FILE...    DIR/NAME.sh (the block, sed applied), DIR/NAME.exit
                                      (its exit statuses), DIR/NAME.where (FILE:LINE), and
                                      DIR/files/NAME of each file block
"""
import os
import re
import shlex
import subprocess
import sys

MARK = re.compile(r"^<!-- (doctest|file|not run): (.*) -->$")
ADOC_MARK = re.compile(r"^// (doctest|file|not run): (.*)$")
ADOC_FENCES = ("----", "....")
FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def blocks(path):
    """Yield (line, kind, name, options, text) per fenced block; kind None: unmarked."""
    lines = open(path, encoding="utf-8").read().split("\n")
    adoc = path.endswith(".txt")
    mark = ADOC_MARK if adoc else MARK
    i = 0
    while i < len(lines):
        if not (lines[i] in ADOC_FENCES if adoc else lines[i].startswith("```")):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not (lines[j] == lines[start] if adoc
                                      else lines[j].startswith("```")):
            j += 1
        if j == len(lines):
            yield start + 1, "unclosed", "", {}, ""
            return
        text = "\n".join(lines[start + 1:j]) + "\n"
        prev = lines[start - 1] if start else ""
        if adoc and prev.startswith("[source") and start >= 2:
            prev = lines[start - 2]  # the marker, then the block's [source,LANG] line
        heading = lines[start - 2] if start >= 2 else ""
        m = mark.match(prev)
        if m and m.group(1) == "doctest":
            words = shlex.split(m.group(2))
            opts = {"exit": "0", "sed": []}
            name = words[0] if words else ""
            for w in words[1:]:
                k, _, v = w.partition("=")
                if k == "sed":
                    opts["sed"].append(v)
                elif k == "exit" and re.fullmatch(r"\d+(,\d+)*", v):
                    opts["exit"] = v
                else:
                    name = ""  # a bad marker: reported as such
            yield start + 1, "doctest" if NAME.match(name) else "bad", name, opts, text
        elif m and m.group(1) == "file":
            yield start + 1, "file" if FILE.match(m.group(2)) else "bad", m.group(2), {}, text
        elif m:
            yield start + 1, "not-run", m.group(2), {}, text
        elif not adoc and prev == "" and re.match(r"^### scalebench [a-z-]+$", heading):
            yield start + 1, "usage", heading[4:], {}, text
        else:
            yield start + 1, None, "", {}, text
        i = j + 1


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "extract"):
        sys.stderr.write(__doc__)
        return 2
    out = argv[2] if argv[1] == "extract" else None
    files = argv[3:] if out else argv[2:]
    bad = 0
    seen = {}
    for path in files:
        for line, kind, name, opts, text in blocks(path):
            where = "%s:%d" % (path, line)
            if kind in (None, "bad", "unclosed"):
                bad += 1
                why = {None: "a code block that says nothing: precede its fence with "
                             "<!-- doctest: NAME --> or <!-- not run: REASON --> "
                             "(in AsciiDoc: // doctest: NAME or // not run: REASON)",
                       "bad": "a marker that is not 'doctest: NAME [exit=N,...] [sed=EXPR]...' "
                              "(NAME: lower-case letters, digits, '-') or 'file: NAME' (a "
                              "file name, no '/')",
                       "unclosed": "a fence that is never closed"}[kind]
                print("%s: %s" % (where, why))
                continue
            if kind == "doctest":
                if name in seen:
                    bad += 1
                    print("%s: doctest %s is also at %s" % (where, name, seen[name]))
                    continue
                seen[name] = where
            if out is None:
                print("%s %s %s" % (where, kind, name))
                continue
            if kind == "file":
                os.makedirs(os.path.join(out, "files"), exist_ok=True)
                with open(os.path.join(out, "files", name), "w") as f:
                    f.write(text)
            if kind != "doctest":
                continue
            for expr in opts["sed"]:
                r = subprocess.run(["sed", "-e", expr], input=text, capture_output=True,
                                   text=True)
                if r.returncode or r.stdout == text:
                    bad += 1
                    print("%s: sed=%s %s" % (where, expr,
                                             r.stderr.strip() or "changed nothing"))
                text = r.stdout
            with open(os.path.join(out, name + ".sh"), "w") as f:
                f.write(text)
            with open(os.path.join(out, name + ".exit"), "w") as f:
                f.write(opts["exit"].replace(",", " ") + "\n")
            with open(os.path.join(out, name + ".where"), "w") as f:
                f.write(where + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
