# Shared by the end-to-end tests: sourced, not run.
# Each check prints "ok" or "FAIL" with its name; counts go to $RESULTS (one line per check).

SCALEBENCH=${SCALEBENCH:-build/asan/scalebench}
RESULTS=${RESULTS:-/dev/null}
WORK=$(mktemp -d /tmp/scalebench-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

pass() {
	echo "ok   $1"
	echo pass >>"$RESULTS"
}

fail() {
	echo "FAIL $1"
	shift
	for line in "$@"; do echo "     $line"; done
	echo fail >>"$RESULTS"
}

# check NAME CONDITION-COMMAND...: pass when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "condition failed: $*"; fi
}

# sb ARGS...: run scalebench, capturing stdout/stderr/exit status in $WORK/{out,err} and $rc.
sb() {
	rc=0
	"$SCALEBENCH" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}

# json FILE EXPR: evaluate a Python expression over the parsed JSON document `d`;
# stats(job) is a compare job's stats by name (compare --json lists them in table order).
json() {
	python3 -c 'import gzip,json,sys; d=json.load((gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt")); stats=lambda job: {s["name"]: s for s in job["stats"]}; print(eval(sys.argv[2]))' "$1" "$2"
}

# json_true FILE EXPR: succeed when the expression is true.
json_true() {
	[ "$(json "$1" "bool($2)" 2>&1)" = "True" ]
}

err_has() {
	grep -q -- "$1" "$WORK/err"
}

out_has() {
	grep -q -- "$1" "$WORK/out"
}

# no_procs PATTERN: no process's command line matches (pgrep excludes itself; run it
# directly, not through bash -c, whose own command line would match).
no_procs() {
	! pgrep -f -- "$1" >/dev/null
}
