#!/bin/bash
# The README opens with the two commands, and its testcase table is the one the descriptors
# generate (scripts/readme-testcases.sh --update rewrites it).
set -u
. "$(dirname "$0")/../lib.sh"

check "README opens with the main-job command" bash -c "grep -m1 '^make ' README.md | grep -q '^make setup run'"
check "README's second command is the test command" bash -c "grep '^make ' README.md | sed -n 2p | grep -q '^make setup check'"
check ".ci/run runs the README's test command" grep -q "^make setup check$" .ci/run

scripts/readme-testcases.sh "$SCALEBENCH" >"$WORK/table"
# From one python start: the README's table, and from `list --json` the number of testcases
# and the names `split jobs/will-it-scale.yaml` should print for them.
"$SCALEBENCH" list --json >"$WORK/list.json"
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
text = open("README.md").read()
begin, end = "<!-- testcases:begin -->", "<!-- testcases:end -->"
open(f"{work}/readme-table", "w").write(text[text.index(begin) + len(begin):text.index(end)].strip() + "\n")
tcs = json.load(open(f"{work}/list.json"))
open(f"{work}/list-count", "w").write(f"{len(tcs)}\n")
open(f"{work}/list-split", "w").write(" ".join(sorted("# will-it-scale-%s-100%%-300s-%s.yaml" % (m, t["name"]) for t in tcs for m in t["modes"])) + "\n")
PY
if diff -u "$WORK/readme-table" "$WORK/table" >"$WORK/diff"; then
	pass "README testcase table matches scalebench list"
else
	fail "README testcase table matches scalebench list (run scripts/readme-testcases.sh --update)" "$(head -20 "$WORK/diff")"
fi
check "README table has every listed testcase" bash -c \
	"[ \$(grep -c '^| \`' $WORK/readme-table) -eq \$(cat $WORK/list-count) ]"

# jobs/will-it-scale.yaml runs the whole catalogue: every listed testcase, both modes.
"$SCALEBENCH" split jobs/will-it-scale.yaml >"$WORK/split" 2>/dev/null
check "jobs/will-it-scale.yaml: every catalogue testcase in both modes at 100%" bash -c \
	"[ \"\$(grep '^# ' $WORK/split | sort | tr '\n' ' ')\" = \"\$(cat $WORK/list-split) \" ]"

# The Guarantees section: every promise names its proof, and every check it names exists (a
# quoted name ending in "…" is a prefix); unit tests are named by binary and function.
if python3 - >"$WORK/guarantees" 2>&1 <<'PY'
import os, re, sys
from functools import lru_cache
sys.setrecursionlimit(20000)  # go() recurses once per character of a name and its key
text = open("README.md").read()
sec = text[text.index("## Guarantees"):]
sec = sec[:sec.index("\n## ", 1)]
rows = [l for l in sec.splitlines() if l.startswith("| ") and not l.startswith("| promise")]
VAR = re.compile(r'\$\(\([^)]*\)\)|\$\{[^}]*\}|\$\w+')

def names(src):
    """The check names of a test script, their shell expansions as wildcards (NUL)."""
    return {VAR.sub("\0", m) for m in re.findall(r'"((?:[^"\\]|\\.)*)"', src)}

def matches(key, name, prefix):
    """key is name (or, with prefix, its beginning; "…" in it leaves a part out), the shell
    expansions standing for at most 20 characters of it in all: "$name: $cond" is not every
    check."""
    @lru_cache(None)
    def go(i, j):  # the fewest key characters the wildcards take, or None
        if i == len(key):
            return 0 if prefix or all(c == "\0" for c in name[j:]) else None
        if key[i] == "…":  # the README leaves out a part
            a = go(i + 1, j)
            b = go(i, j + 1) if j < len(name) else None
            return min((x for x in (a, b) if x is not None), default=None)
        if j == len(name):
            return None
        if name[j] == "\0":
            a, b = go(i, j + 1), go(i + 1, j)
            b = None if b is None else b + 1
            return min((x for x in (a, b) if x is not None), default=None)
        return go(i + 1, j + 1) if name[j] == key[i] else None
    w = go(0, 0)
    return w is not None and w <= 20

bad = []
for row in rows:
    proof = [c.strip() for c in row.strip("|").split(" | ")][-1]
    for part in proof.split("; "):
        m = re.match(r'(test_\w+\.sh|tests/fuzz/|test_\w+(?: \(unit\))?)(?::\s*(.*))?$', part)
        if not m:
            bad.append("unparsed proof: " + part)
            continue
        name, rest = m.group(1), m.group(2) or ""
        path = ("tests/e2e/" + name if name.endswith(".sh") else "tests/fuzz" if
                name == "tests/fuzz/" else "tests/unit/" + name.split()[0] + ".c")
        if not os.path.exists(path):
            bad.append("no such test: " + path)
            continue
        if os.path.isdir(path):
            continue
        src = open(path).read()
        if not name.endswith(".sh"):
            bad += [f"{path}: no function {fn}" for fn in re.findall(r'test_\w+', rest)
                    if fn not in src]
            continue
        checks = names(src)
        for q in re.findall(r'"([^"]+)"', rest):
            prefix = q.endswith("…")
            key = q.rstrip("…").rstrip().replace("\\n", "\\\\n")
            if not any(matches(key, n, prefix) for n in checks):
                bad.append(f"{path}: no check named {q!r}")
print(len(rows), "promises")
for b in bad:
    print(b)
sys.exit(1 if bad or not rows else 0)
PY
then
	pass "README Guarantees: every promise names checks that exist ($(head -1 "$WORK/guarantees"))"
else
	fail "README Guarantees: every promise names checks that exist" "$(cat "$WORK/guarantees")"
fi
