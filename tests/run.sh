#!/bin/bash
# Run the tests, each test file one job, as many at a time as fill N CPUs: the unit tests (cmocka, built with
# ASan+UBSan), the end-to-end tests (the real binary, sanitizer build, plus valgrind on the
# plain build), the browser test, and every fuzz harness replaying its corpus and regression
# inputs once (timed exploration is `make fuzz`).  A job's output is kept until it ends and then
# printed whole, with its wall time; the end is a table of the slowest files and the line CI
# reads: "N passed, N failed".  The whole output also goes to build/test-log, and each file's
# wall and CPU time to build/test-times, which the next run reads to start the slowest files
# first and to know each file's load: its CPU seconds per wall second.  Files start while the
# loads of those running, with its own, fit in N CPUs (a file that mostly waits, at 0.3, leaves
# room for others beside it), at most N + 2 files at once; a file never timed counts as 1.
#
# Markers, in an e2e file's first 10 lines (a unit test's: "// serial: WHY" in its .c file):
# "# serial: WHY" runs it alone, after the parallel
# batch, with nothing else running; "# lock: NAME: WHY" keeps files of the same NAME from running
# at the same time (they still run beside the others); "# waits: WHY" (a file that mostly waits,
# on Slurm's scheduling pass for one) does not take one of the -j slots: one such file at a time
# runs beside them; "# kind: browser" makes its kind browser.
set -u
cd "$(dirname "$0")/.."

usage() {
	cat <<'EOF'
usage: tests/run.sh [-j N] [-q] [--kind unit|e2e|browser|fuzz] [--times FILE] [--log FILE]
                    [--list] [PATTERN|FILE...]

  -j N         fill N CPUs (default: nproc): files start while the loads (CPU s per wall s,
               from build/test-times) of the running ones fit in N, at most N + 2 at once;
               -j 1 runs one file at a time.  Files marked "# serial" run alone, files marked
               "# lock: NAME" one NAME at a time, and one file marked "# waits" beside the rest
  -q           print one line per file, and the output of failed files only
  --kind KIND  only files of that kind: unit (build/asan/tests/test_*), e2e (tests/e2e/test_*.sh),
               browser (e2e files marked "# kind: browser"), fuzz (build/asan/fuzz/fuzz_*: replay)
  --times FILE the times to read and update instead of build/test-times (and of
               tests/test-times, the clean clone's)
  --log FILE   the whole output's copy instead of build/test-log
  --list       print the files that would run, in order (kind, serial or waits, lock, last
               wall time, load), and exit
  PATTERN      only files whose path contains PATTERN; a path runs that one file

Every run writes its whole output to build/test-log and each file's wall and CPU time to
build/test-times (the next run starts the slowest first and knows each file's load).
EOF
}

jobs=$(nproc)
times_file=
log_file=
kind=
list=false
quiet=false
sel=()
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	-j*) jobs=${1#-j}; shift ;;
	--kind) kind=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--kind=*) kind=${1#--kind=}; shift ;;
	--list) list=true; shift ;;
	--times) times_file=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--times=*) times_file=${1#--times=}; shift ;;
	--log) log_file=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--log=*) log_file=${1#--log=}; shift ;;
	-q | --quiet) quiet=true; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; sel+=("$@"); break ;;
	-*) echo "tests/run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	*) sel+=("$1"); shift ;;
	esac
done
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
	echo "tests/run.sh: -j '$jobs': expected a positive number" >&2
	exit 2
fi
case $kind in
'' | unit | e2e | browser | fuzz) ;;
*) echo "tests/run.sh: --kind '$kind': expected unit, e2e, browser or fuzz" >&2; exit 2 ;;
esac

export SCALEBENCH=${SCALEBENCH:-build/asan/scalebench}
export SCALEBENCH_PLAIN=${SCALEBENCH_PLAIN:-build/scalebench}
# Sanitizer reports fail the process; leaks are checked at exit (README, "what make check runs
# under ASan": the other options only make each start cheaper).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# marked FILE WORD: FILE is an e2e script with "# WORD" or "# WORD: why" near its top.
# A unit binary build/asan/tests/NAME: "// WORD: why" near the top of tests/unit/NAME.c.
marked() {
	case $1 in
	*.sh) head -10 "$1" | grep -Eq "^# $2(:|$)" ;;
	build/asan/tests/*) head -10 "tests/unit/${1##*/}.c" 2>/dev/null | grep -Eq "^// $2(:|$)" ;;
	*) false ;;
	esac
}

# lock_of FILE: the NAME of its "# lock: NAME: why" line, if any.
lock_of() {
	[[ "$1" == *.sh ]] && head -10 "$1" | sed -n 's/^# lock: \([a-z0-9_-]*\).*/\1/p' | head -1
}

kind_of() {
	case $1 in
	build/asan/tests/test_*) echo unit ;;
	build/asan/fuzz/fuzz_*) echo fuzz ;;
	*) if marked "$1" "kind: browser"; then echo browser; else echo e2e; fi ;;
	esac
}

# Every test file, in the static order (the long e2e files first).
all_files() {
	local t
	for t in tests/e2e/test_*.sh; do [ -f "$t" ] && echo "$t"; done
	for t in build/asan/fuzz/fuzz_* build/asan/tests/test_*; do
		[ -f "$t" ] && [ -x "$t" ] && echo "$t"
	done
}

# The files selected by the arguments, each once.
files=()
declare -A seen=()
add() {
	[ -n "${seen[$1]:-}" ] && return
	[ -z "$kind" ] || [ "$(kind_of "$1")" = "$kind" ] || return
	seen[$1]=1
	files+=("$1")
}
mapfile -t everything < <(all_files)
if [ ${#sel[@]} -eq 0 ]; then
	for t in "${everything[@]}"; do add "$t"; done
else
	for s in "${sel[@]}"; do
		# matched: a file this argument names, though an earlier one may have added it
		matched=
		if [ -f "$s" ]; then
			add "$(realpath --relative-to=. "$s")"
			matched=1
		else
			for t in "${everything[@]}"; do
				[[ "$t" == *"$s"* ]] || continue
				[ -z "$kind" ] || [ "$(kind_of "$t")" = "$kind" ] || continue
				add "$t"
				matched=1
			done
		fi
		if [ -z "$matched" ]; then
			echo "tests/run.sh: no test file${kind:+ of kind $kind} matches '$s'" >&2
			exit 2
		fi
	done
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "tests/run.sh: no test file to run (make check-build builds them)" >&2
	exit 2
fi

# Each file's time in the previous runs (build/test-times: "WALL FILE CPU" lines, in seconds;
# an older file's "WALL FILE" lines still read); on a clean clone (CI's case), the times checked
# in as tests/test-times (a copy of one run's), so that the longest files start first there too
# and the loads are known.
TIMES=${times_file:-build/test-times}
# load FILE: its CPU seconds per wall second, in thousandths, between 0.15 and 2 CPUs (a file
# never timed, or timed without its CPU: 1); of the clean clone's idle run and the last run
# here, the larger.
declare -A prev=() prevcpu=() load=()
if [ -n "$times_file" ]; then sources=("$times_file"); else sources=(tests/test-times "$TIMES"); fi
existing=()
for f in "${sources[@]}"; do [ -f "$f" ] && existing+=("$f"); done
# One pass over the files: "FILE WALL CPU LOAD" per file, the last file's times and the larger
# load (a CPU-bound file measured beside too many others got only its share of a CPU, and would
# be packed tighter still on that figure); a bad line named on stderr and ignored.
while read -r t s c l; do
	prev[$t]=$s
	[ "$c" = - ] && c=
	prevcpu[$t]=$c
	load[$t]=$l
done < <([ ${#existing[@]} -eq 0 ] || awk '
	function num(x) { return x ~ /^[0-9]+(\.[0-9]*)?$/ }
	!num($1) || $2 == "" || NF > 3 || (NF == 3 && !num($3)) {
		printf "tests/run.sh: %s: line '\''%s'\'': expected '\''WALL FILE [CPU]'\'' in seconds; ignored\n",
			FILENAME, $0 > "/dev/stderr"
		next
	}
	{
		l = (NF < 3 || $1 <= 0) ? 1000 : int(1000 * $3 / $1)
		if (l < 150) l = 150
		if (l > 2000) l = 2000
		if (!($2 in wall)) order[++n] = $2
		wall[$2] = $1
		cpu[$2] = NF == 3 ? $3 : "-"
		if (!($2 in load) || l > load[$2]) load[$2] = l
	}
	END { for (i = 1; i <= n; i++) print order[i], wall[order[i]], cpu[order[i]], load[order[i]] }
' "${existing[@]}")
# The order: files never timed first, in the static order; then the slowest first.
order=()
for f in "${files[@]}"; do [ -z "${prev[$f]:-}" ] && order+=("$f"); done
while read -r _ f; do
	[ -n "$f" ] && order+=("$f")
done < <(for f in "${files[@]}"; do [ -n "${prev[$f]:-}" ] && echo "${prev[$f]} $f"; done |
	sort -k1,1 -g -r)

if $list; then
	for f in "${order[@]}"; do
		marked "$f" serial && s=serial || s=
		marked "$f" waits && s=waits
		l=$(lock_of "$f")
		printf '%-8s %-7s %-20s %5s s %4s %s\n' "$(kind_of "$f")" "$s" "${l:+lock:$l}" \
			"${prev[$f]:-?}" "$(cl=$(((${load[$f]:-1000} + 5) / 10)); printf '%d.%02d' $((cl / 100)) $((cl % 100)))" "$f"
	done
	exit 0
fi

TMP=$(mktemp -d /tmp/scalebench-run.XXXXXX) || exit 1
# python3 resolved once, Debian's first (the tests use its standard library only): where the
# first python3 in PATH is a version manager's shim (pyenv), every call of it costs ~0.7 s of
# CPU to find the interpreter, and the tests call it ~1,800 times; pyenv's interpreter itself
# starts in 0.06 s here (its site imports certifi), Debian's in 0.035 s.
py=/usr/bin/python3
if [ -x "$py" ] || { py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; }; then
	mkdir -p "$TMP/bin" && ln -s "$py" "$TMP/bin/python3" && export PATH="$TMP/bin:$PATH"
fi
LOG=${log_file:-build/test-log}
mkdir -p build
: >"$LOG"
say() {
	printf '%s\n' "$@"
	printf '%s\n' "$@" >>"$LOG"
}

# Every test starts with the default signal dispositions, however the runner was started: a
# shell ignores SIGINT and SIGQUIT in what it starts in the background (`make check &`, a CI
# step), bash cannot undo a disposition ignored on entry, and the tests that interrupt a run
# 0 ms into it would see it ignore the signal and exit 0 (coreutils' env resets them).
DEFAULT_SIGNALS="env --default-signal=INT,QUIT,TERM"
$DEFAULT_SIGNALS true 2>/dev/null || DEFAULT_SIGNALS=

# run_job I FILE KIND: run one file, its output in $TMP/I.out, its counts in $TMP/I.res
# ("pass"/"fail" lines), its wall time in $TMP/I.time; $TMP/I.done last.
run_job() {
	local i=$1 t=$2 k=$3 out=$TMP/$1.out res=$TMP/$1.res start=$EPOCHREALTIME status ok bad
	: >"$res"
	case $k in
	unit)
		$DEFAULT_SIGNALS "$t" >"$out" 2>&1
		status=$?
		ok=$(grep -c '^\[       OK \]' "$out")
		bad=$(grep '^\[  FAILED  \] [a-z]' "$out" | sort -u | wc -l) # cmocka names a failure twice
		if [ $status -ne 0 ] && [ "$bad" -eq 0 ]; then
			bad=1 # crashed before cmocka could say which test
			echo "FAIL $t exited with status $status" >>"$out"
		fi
		yes pass | head -n "$ok" >>"$res"
		yes fail | head -n "$bad" >>"$res"
		;;
	e2e | browser)
		RESULTS=$res $DEFAULT_SIGNALS bash "$t" >"$out" 2>&1
		status=$?
		if [ $status -ne 0 ]; then
			echo "FAIL $t exited with status $status" >>"$out"
			echo fail >>"$res"
		elif [ ! -s "$res" ]; then
			echo "FAIL $t ran no check" >>"$out"
			echo fail >>"$res"
		fi
		;;
	fuzz)
		# One check per harness: every input of its corpus and regressions, once.
		if tests/fuzz/run.sh --replay "$t" >"$out" 2>&1; then
			echo pass >>"$res"
		else
			echo fail >>"$res"
		fi
		;;
	esac
	echo "$start $EPOCHREALTIME" | awk '{ printf "%.1f\n", $2 - $1 }' >"$TMP/$i.time"
	# CPU seconds (user + system) of everything the file ran and waited for.
	times >"$TMP/$i.times" # not in a pipe: that would be a new process, with no children yet
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); c += a[1] * 60 + a[2] }
		printf "%.1f\n", c }' "$TMP/$i.times" >"$TMP/$i.cpu"
	: >"$TMP/$i.done"
}

total=${#order[@]}
reported=0
declare -A kinds=() secs=() cpus=()
# report I FILE: print a finished job's output whole, then its line.
report() {
	local i=$1 t=$2 k=${kinds[$2]} s c p f verdict
	s=$(cat "$TMP/$i.time")
	c=$(cat "$TMP/$i.cpu" 2>/dev/null || echo 0.0)
	secs[$t]=$s
	cpus[$t]=$c
	p=$(grep -c '^pass$' "$TMP/$i.res")
	f=$(grep -c '^fail$' "$TMP/$i.res")
	[ "$f" -eq 0 ] && verdict="ok  " || verdict=FAIL
	reported=$((reported + 1))
	{
		echo "== $k: $t ($s s)"
		cat "$TMP/$i.out"
	} >"$TMP/$i.whole"
	cat "$TMP/$i.whole" >>"$LOG"
	if ! $quiet || [ "$f" -ne 0 ]; then cat "$TMP/$i.whole"; fi
	say "[$reported/$total] $verdict $t: $p passed, $f failed, $s s ($c s CPU)"
	cat "$TMP/$i.res" >>"$TMP/results"
}

# Jobs run with job control on: each in its own process group (so an interrupt can end its
# whole tree) and with SIGINT not ignored, as in a foreground run (a script's background
# jobs would otherwise start with it ignored, and tests that send SIGINT rely on it).
set -m
declare -A running=()
stop() {
	local pid
	for pid in "${!running[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
	rm -rf "$TMP"
	exit 130
}
trap stop INT TERM
trap 'rm -rf "$TMP"' EXIT
: >"$TMP/results"

# reap: report every job that has ended; wait for one when none has.
reap() {
	local pid i found=false
	for pid in "${!running[@]}"; do
		i=${running[$pid]}
		if [ -e "$TMP/$i.done" ]; then
			wait "$pid" 2>/dev/null
			unset "running[$pid]"
			report "$i" "${name[$i]}"
			found=true
		fi
	done
	$found && return
	wait -n 2>/dev/null && return
	[ $? -ne 127 ] && return
	# No child left, yet some never finished: killed from outside.
	for pid in "${!running[@]}"; do
		i=${running[$pid]}
		unset "running[$pid]"
		echo "FAIL ${name[$i]}: the job was killed" >>"$TMP/$i.out"
		echo fail >>"$TMP/$i.res"
		echo 0.0 >"$TMP/$i.time"
		report "$i" "${name[$i]}"
	done
}

declare -A name=()
start_job() {
	local i=$1 t=$2
	name[$i]=$t
	kinds[$t]=$(kind_of "$t")
	run_job "$i" "$t" "${kinds[$t]}" </dev/null &
	running[$!]=$i
}

# free FILE: no running job holds FILE's lock.
free() {
	local l=${lock[$1]} pid
	[ -z "$l" ] && return 0
	for pid in "${!running[@]}"; do
		[ "${lock[${name[${running[$pid]}]}]}" = "$l" ] && return 1
	done
	return 0
}

wall_start=$EPOCHREALTIME
serial=()
pending=()
declare -A lock=() waits=()
for t in "${order[@]}"; do
	lock[$t]=$(lock_of "$t")
	waits[$t]=
	marked "$t" waits && waits[$t]=1
	if marked "$t" serial; then serial+=("$t"); else pending+=("$t"); fi
done
# can_start FILE: there is room for it: for a file that waits, its one slot; for the others,
# nothing else runs, or (with -j above 1) fewer than N + 2 run and their loads with its own fit
# in the N CPUs (with a fifth of a CPU to spare: the loads were measured beside other files).
can_start() {
	local pid t n=0 others=0 used=0
	for pid in "${!running[@]}"; do
		t=${name[${running[$pid]}]}
		if [ -n "${waits[$t]}" ]; then
			n=$((n + 1))
		else
			others=$((others + 1))
			used=$((used + ${load[$t]:-1000}))
		fi
	done
	if [ -n "${waits[$1]}" ]; then
		[ "$n" -eq 0 ]
	elif [ "$others" -eq 0 ]; then
		true
	elif [ "$jobs" -eq 1 ] || [ "$others" -ge $((jobs + 2)) ]; then
		false
	else
		[ $((used + ${load[$1]:-1000})) -le $((jobs * 1000 + 200)) ]
	fi
}

i=0
# The parallel batch: the first pending file whose lock is free, whenever a slot is.
while [ ${#pending[@]} -gt 0 ]; do
	picked=
	for k in "${!pending[@]}"; do
		if can_start "${pending[$k]}" && free "${pending[$k]}"; then picked=$k; break; fi
	done
	if [ -z "$picked" ]; then reap; continue; fi
	start_job $i "${pending[$picked]}"
	unset "pending[$picked]"
	pending=("${pending[@]}")
	i=$((i + 1))
done
while [ ${#running[@]} -gt 0 ]; do reap; done
for t in "${serial[@]}"; do
	start_job $i "$t"
	i=$((i + 1))
	while [ ${#running[@]} -gt 0 ]; do reap; done
done
wall=$(echo "$wall_start $EPOCHREALTIME" | awk '{ printf "%.1f", $2 - $1 }')

# This run's times over the previous ones'.
if [ -n "$times_file" ] || [ -d build ]; then
	for t in "${!secs[@]}"; do
		prev[$t]=${secs[$t]}
		prevcpu[$t]=${cpus[$t]}
	done
	for t in "${!prev[@]}"; do echo "${prev[$t]} $t ${prevcpu[$t]:-}"; done | sed 's/ $//' |
		sort -k1,1 -g -r >"$TIMES.tmp" && mv "$TIMES.tmp" "$TIMES"
fi

sum=$(for t in "${!secs[@]}"; do echo "${secs[$t]}"; done | awk '{ s += $1 } END { printf "%.1f", s }')
cpu=$(for t in "${!cpus[@]}"; do echo "${cpus[$t]}"; done | awk '{ s += $1 } END { printf "%.1f", s }')
say "" "slowest files (wall time, CPU time; every file's times in $TIMES):"
while read -r s t; do
	say "$(printf '%8s s %8s s CPU  %-8s %s' "$s" "${cpus[$t]}" "${kinds[$t]}" "$t")"
done < <(for t in "${!secs[@]}"; do echo "${secs[$t]} $t"; done | sort -k1,1 -g -r | head -15)
say "$(printf '%8s s %8s s CPU  in all, %d files, in %s s of wall time at -j %d (%d serial)' \
	"$sum" "$cpu" "${#secs[@]}" "$wall" "$jobs" "${#serial[@]}")"

passed=$(grep -c '^pass$' "$TMP/results")
failed=$(grep -c '^fail$' "$TMP/results")
say "" "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
