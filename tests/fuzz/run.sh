#!/bin/bash
# Run libFuzzer harnesses on a copy of their seed corpus tests/fuzz/corpus/NAME (the
# checked-in corpus never grows; its crash-* files are the regression inputs, inputs that once
# crashed), with ASan+UBSan and leak detection, in one of two modes:
#
#   tests/fuzz/run.sh build/fuzz/fuzz_job ...            explore: FUZZ_TIME seconds each
#                                                        (default 30), FUZZ_JOBS at a time
#                                                        (default nproc) -- make fuzz
#   tests/fuzz/run.sh --replay build/fuzz/fuzz_job ...   replay: every input once (-runs=0),
#                                                        a few seconds -- make check
#
# Any crash, leak, timeout (FUZZ_TIMEOUT seconds for one input) or memory blow-up
# (FUZZ_RSS_MB) fails: the input that did it is kept under build/fuzz/artifacts/NAME/ and its
# path (in replay, the corpus file it is) and the sanitizer's report are printed.  The
# fuzzer's own output goes to build/fuzz/logs/NAME.log (NAME-replay.log in replay).
# FUZZ_CORPUS and FUZZ_OUT move the corpora and build/fuzz's logs and artifacts (the e2e test
# of this script uses them).
set -u
cd "$(dirname "$0")/../.."

replay=false
if [ "${1:-}" = --replay ]; then
	replay=true
	shift
fi
FUZZ_TIME=${FUZZ_TIME:-30}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-5}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
FUZZ_CORPUS=${FUZZ_CORPUS:-tests/fuzz/corpus}
FUZZ_OUT=${FUZZ_OUT:-build/fuzz}
LOGS=$FUZZ_OUT/logs
ARTIFACTS=$FUZZ_OUT/artifacts

if [ $# -eq 0 ]; then
	echo "usage: $0 [--replay] build/fuzz/fuzz_NAME..." >&2
	exit 2
fi
mkdir -p "$LOGS"
# Scratch space the harnesses' files go to; tmpfs when there is one (the tree harness writes
# files for every input).
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$base/scalebench-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

# fuzz_one BIN: run one harness; what it says goes to stdout, exit status 1 when it failed.
fuzz_one() {
	local bin=$1 name log corpus status runs cov a what sum f first
	name=$(basename "$bin")
	name=${name#fuzz_}
	log=$LOGS/$name.log
	$replay && log=$LOGS/$name-replay.log
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		echo "FAIL fuzz $name: $bin is not a built harness (make fuzz-build)"
		return 1
	fi
	corpus=$WORK/$name/corpus
	mkdir -p "$corpus" "$WORK/$name/tmp" "$WORK/$name/artifacts"
	if [ -d "$FUZZ_CORPUS/$name" ]; then
		cp -r "$FUZZ_CORPUS/$name/." "$corpus/"
	fi
	local how=(-max_total_time="$FUZZ_TIME")
	$replay && how=(-runs=0)
	[ -f "tests/fuzz/$name.dict" ] && how+=(-dict="tests/fuzz/$name.dict")
	# Sanitizer reports abort the input (ASan's and UBSan's, built without recovery).
	TMPDIR=$WORK/$name/tmp \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" "${how[@]}" -timeout="$FUZZ_TIMEOUT" \
		-rss_limit_mb="$FUZZ_RSS_MB" -detect_leaks=1 -print_final_stats=1 \
		-artifact_prefix="$WORK/$name/artifacts/" "$corpus" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ $status -eq 0 ] && $replay; then
		echo "fuzz $name: ok, replayed $(find "$corpus" -type f | wc -l) inputs, ${cov:-cov: ?} ($log)"
		return 0
	elif [ $status -eq 0 ]; then
		echo "fuzz $name: ok, ${runs:-?} inputs in ${FUZZ_TIME} s, ${cov:-cov: ?} ($log)"
		return 0
	fi
	echo "FAIL fuzz $name: exit status $status (log: $log)"
	rm -rf "${ARTIFACTS:?}/$name"
	mkdir -p "$ARTIFACTS/$name"
	for a in "$WORK/$name/artifacts"/*; do
		[ -e "$a" ] || continue
		cp "$a" "$ARTIFACTS/$name/"
		a=$ARTIFACTS/$name/$(basename "$a")
		# libFuzzer names an artifact after its input's SHA-1: in replay, that is a file of
		# the corpus (or the empty input libFuzzer tries first).
		what=
		if $replay; then
			sum=$(sha1sum <"$a" | cut -d' ' -f1)
			for f in "$FUZZ_CORPUS/$name"/*; do
				[ -f "$f" ] && [ "$(sha1sum <"$f" | cut -d' ' -f1)" = "$sum" ] &&
					what=" = $f" && break
			done
			[ -n "$what" ] || [ -s "$a" ] || what=" = the empty input"
		fi
		echo "  input: $a (reproduce: $bin $a)$what"
	done
	# The report: from a few lines before the first error line (a harness's own check says
	# what it found, then aborts) to the sanitizer's or libFuzzer's summary.
	first=$(grep -n -m1 '^==[0-9]*== *ERROR\|runtime error:\|ALARM: working on the last Unit' \
		"$log" | cut -d: -f1)
	[ -n "$first" ] || first=$(($(wc -l <"$log") - 40))
	[ "$first" -gt 4 ] && first=$((first - 4)) || first=1
	sed -n "$first,/^SUMMARY/p" "$log" | grep -v '^#[0-9]' | head -80 | sed 's/^/  /'
	return 1
}

if [ $# -eq 1 ]; then
	fuzz_one "$1"
	exit
fi

# Several harnesses: FUZZ_JOBS at a time, each one's lines printed whole when it ends.
failed=0
declare -A running=()
reap() {
	local pid
	wait -n
	for pid in "${!running[@]}"; do
		[ -e "$WORK/${running[$pid]}.done" ] || continue
		wait "$pid" || failed=1
		cat "$WORK/${running[$pid]}.out"
		unset "running[$pid]"
	done
}
i=0
for bin in "$@"; do
	while [ ${#running[@]} -ge "$FUZZ_JOBS" ]; do reap; done
	(
		fuzz_one "$bin" >"$WORK/$i.out" 2>&1
		status=$?
		: >"$WORK/$i.done"
		exit $status
	) &
	running[$!]=$i
	i=$((i + 1))
done
while [ ${#running[@]} -gt 0 ]; do reap; done
exit $failed
