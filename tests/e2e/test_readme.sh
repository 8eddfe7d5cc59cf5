#!/bin/bash
# The README opens with the two commands, and its testcase table is the one the descriptors
# generate (scripts/readme-testcases.sh --update rewrites it).
set -u
. "$(dirname "$0")/../lib.sh"

check "README opens with the main-job command" bash -c "grep -m1 '^make ' README.md | grep -q '^make setup run'"
check "README's second command is the test command" bash -c "grep '^make ' README.md | sed -n 2p | grep -q '^make setup check'"
check ".ci/run runs the README's test command" grep -q "^make setup check$" .ci/run

scripts/readme-testcases.sh "$SCALEBENCH" >"$WORK/table"
python3 - "$WORK/table" >"$WORK/readme-table" <<'PY'
import sys
text = open("README.md").read()
begin, end = "<!-- testcases:begin -->", "<!-- testcases:end -->"
print(text[text.index(begin) + len(begin):text.index(end)].strip())
PY
if diff -u "$WORK/readme-table" "$WORK/table" >"$WORK/diff"; then
	pass "README testcase table matches scalebench list"
else
	fail "README testcase table matches scalebench list (run scripts/readme-testcases.sh --update)" "$(head -20 "$WORK/diff")"
fi
check "README table has every listed testcase" bash -c \
	"[ \$(grep -c '^| \`' $WORK/readme-table) -eq \$($SCALEBENCH list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') ]"

# jobs/will-it-scale.yaml runs the whole catalogue: every listed testcase, both modes.
"$SCALEBENCH" split jobs/will-it-scale.yaml >"$WORK/split" 2>/dev/null
check "jobs/will-it-scale.yaml: every catalogue testcase in both modes at 100%" bash -c \
	"[ \"\$(grep '^# ' $WORK/split | sort | tr '\n' ' ')\" = \"\$($SCALEBENCH list --json | python3 -c 'import json,sys; print(\" \".join(sorted(\"# will-it-scale-%s-100%%-%s.yaml\" % (m, t[\"name\"]) for t in json.load(sys.stdin) for m in t[\"modes\"])))') \" ]"
