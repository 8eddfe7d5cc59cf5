#!/bin/sh
# The sorted list of every check a test run made, from its output (tests/run.sh prints it and
# keeps it in build/test-log), one line per check, to compare two runs (comm -13 OLD NEW lists
# what only the new one has):
#   unit:  BINARY: CASE            every cmocka "[ RUN      ] CASE" of build/asan/tests/BINARY
#   e2e:   FILE.sh: NAME           every "ok   NAME" / "FAIL NAME" line of tests/e2e/FILE.sh
#   fuzz:  fuzz_NAME: replay       every harness run (its "== fuzz: build/fuzz/fuzz_NAME" header)
# Names are normalized so that two runs give the same list: a trailing parenthesised part is
# dropped (per_op_json's "(pf 0.0012 cs ...)", "(exit 0 or 1, got 0)"), temp paths
# (/tmp/scalebench-e2e.XXXXXX and the like) become TMP, and every digit run becomes N.  A check
# repeated in a file is listed as often as it ran.  The runner's own "FAIL FILE exited with
# status N" / "ran no check" lines are not checks.
#
#   scripts/list-checks.sh [LOG]        (default build/test-log; - for stdin)
set -eu
log=${1:-build/test-log}
[ "$log" = - ] && log=/dev/stdin
awk '
function norm(s) {
	sub(/[ \t]+$/, "", s)
	while (s ~ /\([^()]*\)$/) {
		sub(/ *\([^()]*\)$/, "", s)
		sub(/[ \t]+$/, "", s)
	}
	gsub(/\/(tmp|dev\/shm)\/[A-Za-z0-9_.-]*\.[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]/, "TMP", s)
	gsub(/[0-9]+/, "N", s)
	return s
}
/^== [a-z0-9]+: / {
	file = $3
	n = split(file, p, "/")
	base = p[n]
	kind = $2
	sub(/:$/, "", kind)
	if (kind == "fuzz")
		print base ": replay"
	next
}
file == "" { next }
kind == "unit" && /^\[ RUN      \] / {
	s = $0
	sub(/^\[ RUN      \] /, "", s)
	print base ": " norm(s)
	next
}
(kind == "e2e" || kind == "browser") && /^(ok   |FAIL )/ {
	s = substr($0, 6)
	if (index(s, file " exited with status ") == 1 || s == file " ran no check")
		next
	print base ": " norm(s)
}' "$log" | LC_ALL=C sort
