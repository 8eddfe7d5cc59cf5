# Shared by the end-to-end tests: sourced, not run.
# Each check prints "ok" or "FAIL" with its name; counts go to $RESULTS (one line per check).

SCALEBENCH=${SCALEBENCH:-build/asan/scalebench}
RESULTS=${RESULTS:-/dev/null}
WORK=$(mktemp -d /tmp/scalebench-e2e.XXXXXX)
# work_remove: the test's directory goes at its exit, unless SCALEBENCH_TEST_KEEP=1 (then its
# path is said, to read what a failed check saw).
work_remove() {
	if [ "${SCALEBENCH_TEST_KEEP:-}" = 1 ]; then
		echo "     kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
# Checks deferred with json_later that a test did not run itself run at its exit.
trap 'json_later_run; work_remove' EXIT

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

# getppid_job FILE [LINE...]: the logic tests' job, written to FILE: getppid1, one process, no
# warmup, a 0.25 s window sampled once (interval: 0.25s).  Each LINE "key: value" replaces that
# key's default ("runtime: 1s", "nr_task: [1, 2]", "will-it-scale: {mode: thread, test:
# getppid1}") or is added after them ("perf-stat:", "cgroup2: {...}").  Tests about what a run
# measures, not what the runner does with it, use their own jobs with the default 1 s interval.
getppid_job() {
	local file=$1 key line
	shift
	local -a keys=(interval runtime warmup nr_task will-it-scale)
	local -A val=([interval]="0.25s" [runtime]="0.25s" [warmup]="0" [nr_task]="1"
		[will-it-scale]="{mode: process, test: getppid1}")
	local -a extra=()
	for line in "$@"; do
		key=${line%%:*}
		if [ -n "${val[$key]+set}" ]; then
			val[$key]=${line#*:}
			val[$key]=${val[$key]# }
		else
			extra+=("$line")
		fi
	done
	{
		for key in "${keys[@]}"; do
			echo "$key: ${val[$key]}"
		done
		for line in "${extra[@]}"; do
			echo "$line"
		done
	} >"$file"
}

# wait_until SECONDS COMMAND...: poll COMMAND every 0.05 s until it succeeds (0) or SECONDS
# have passed (1): for a condition a test waits for, instead of a fixed sleep that is too short
# on a busy machine and too long on an idle one.
wait_until() {
	local deadline
	deadline=$(($(date +%s%N) + ${1%.*} * 1000000000))
	shift
	until "$@"; do
		[ "$(date +%s%N)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# check NAME CONDITION-COMMAND...: pass when the command succeeds.  Its status is the
# condition's, so that `check ... || show-what-happened` shows it on failure.
check() {
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name" "condition failed: $*"
		return 1
	fi
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

# json_checks FILE: many json_true checks over one document, in one python start.  Each line
# of stdin is "NAME<TAB>EXPR" (EXPR as json_true's, over `d` and stats()); each prints ok or
# FAIL NAME, as check does, a failure with the expression or the exception it raised.
json_checks() {
	local spec line
	spec=$(while IFS= read -r line; do printf '%s\t%s\n' "$1" "$line"; done)
	json_eval "$spec"
}

# json_later NAME FILE EXPR [NOTE]: json_true's check of FILE as it is now (a copy is kept),
# evaluated with every other one deferred so by json_later_run (or at exit): one python start
# for all of a test's documents.  The check prints then, not here; NOTE, an expression too,
# says what was seen: after the name when the check passes, as the failure's detail if not.
json_later_n=0
json_later() {
	mkdir -p "$WORK/later"
	json_later_n=$((json_later_n + 1))
	local copy=$WORK/later/$BASHPID.$json_later_n # unique in a subshell too
	case $2 in *.gz) copy+=.gz ;; esac
	cp "$2" "$copy" 2>/dev/null || : >"$copy"
	printf '%s\t%s\t%s\t%s\n' "$copy" "$1" "$3" "${4:-}" >>"$WORK/later.spec"
}

json_later_run() {
	[ -s "$WORK/later.spec" ] || return 0
	json_eval "$(cat "$WORK/later.spec")"
	rm -f "$WORK/later.spec"
}

# json_eval SPEC: SPEC's lines are "FILE<TAB>NAME<TAB>EXPR[<TAB>NOTE]"; each prints ok or FAIL
# NAME (a document that does not load fails each of its checks, naming the error).  EXPR and
# NOTE see d, stats() and per_op_ok()/per_op_seen() (per_op_json).
json_eval() {
	local status name detail n=0
	while IFS=$'\t' read -r status name detail; do
		n=$((n + 1))
		if [ "$status" = ok ]; then pass "$name"; else fail "$name" "$detail"; fi
	done < <(python3 - "$1" <<'PY' 2>&1
import gzip, json, sys
checks = [(l.split('\t') + [''])[:4] for l in sys.argv[1].splitlines() if l.strip()]
docs = {}
def load(path):
    if path not in docs:
        try:
            docs[path] = (json.load((gzip.open if path.endswith('.gz') else open)(path, 'rt')), None)
        except Exception as e:
            docs[path] = (None, f'{path}: {e}')
    return docs[path]
stats = lambda job: {s['name']: s for s in job['stats']}
def per_op(r, cond):
    t = r.get('tasks')
    if r['status'] != 'ok' or t is None:
        return False, f"{r['mode']} x{r['nr_task']}: {r['status']}, {'no tasks object' if t is None else ''} {r.get('failure', '')}"
    pf, cs = t['pgfault_per_op'], t['ctxt_per_op']
    return bool(eval(cond)), f"{r['mode']} x{r['nr_task']}: pf {pf:.4g} cs {cs:.4g} per op"
per_op_ok = lambda d, cond: bool(d['runs']) and all([per_op(r, cond)[0] for r in d['runs']])
per_op_seen = lambda d: '; '.join(per_op(r, 'True')[1] for r in d['runs'])
for path, name, expr, note in checks:
    d, load_error = load(path)
    if load_error:
        print(f'FAIL\t{name}\t{load_error}')
        continue
    try:
        ok = bool(eval(expr))
        why = f'false: {expr}'
    except Exception as e:
        ok, why = False, f'{type(e).__name__}: {e} in {expr}'
    if note:
        try:
            seen = str(eval(note))
        except Exception as e:
            seen = f'{type(e).__name__}: {e}'
        name, why = (f'{name} ({seen})', why) if ok else (name, f'got: {seen}')
    print(f'ok\t{name}' if ok else f'FAIL\t{name}\t{why}')
PY
	)
	[ "$n" -ge "$(grep -c . <<<"$1")" ] || fail "json checks: only $n answers of $(grep -c . <<<"$1")"
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

# per_op_json NAME JSON EXPR: EXPR holds for every run of a `bench --json` file, over pf and
# cs: page faults and context switches per op of the run's own tasks (its "tasks" object: the
# copy host and everything it started, over the measurement window).  Never the machine's
# counts ("system"): other work on a busy machine faults and switches too.  A json_later
# check: it prints with the others, at json_later_run or exit.
per_op_json() {
	json_later "$1: $3" "$2" "per_op_ok(d, '$3')" "per_op_seen(d)"
}

# per_op NAME JSON EXPR BENCH-ARGS...: run `bench BENCH-ARGS --json JSON` ($rc, $WORK/out,
# $WORK/err as sb sets them) with the plain build (ASan's shadow memory and quarantine fault
# pages of their own), then per_op_json NAME JSON EXPR.
per_op() {
	local name=$1 json=$2 cond=$3
	shift 3
	rc=0
	"${SCALEBENCH_PLAIN:-build/scalebench}" bench "$@" --json "$json" >"$WORK/out" \
		2>"$WORK/err" || rc=$?
	[ $rc -eq 0 ] || cat "$WORK/err"
	per_op_json "$name" "$json" "$cond"
}
