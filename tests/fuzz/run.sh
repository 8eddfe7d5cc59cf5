#!/bin/bash
# Run libFuzzer harnesses, each for FUZZ_TIME seconds (default 30) on a copy of its seed corpus
# tests/fuzz/corpus/NAME (the checked-in corpus never grows), with ASan+UBSan and leak
# detection.  Any crash, leak, timeout (FUZZ_TIMEOUT seconds for one input) or memory blow-up
# (FUZZ_RSS_MB) fails: the input that did it is kept under build/fuzz/artifacts/NAME/ and its
# path and the sanitizer's report are printed.  The fuzzer's own output goes to
# build/fuzz/logs/NAME.log.  FUZZ_CORPUS and FUZZ_OUT move the corpora and build/fuzz's
# logs and artifacts (the e2e test of this script uses them).
#
#   tests/fuzz/run.sh build/fuzz/fuzz_job ...
set -u
cd "$(dirname "$0")/../.."

FUZZ_TIME=${FUZZ_TIME:-30}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-5}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_CORPUS=${FUZZ_CORPUS:-tests/fuzz/corpus}
FUZZ_OUT=${FUZZ_OUT:-build/fuzz}
LOGS=$FUZZ_OUT/logs
ARTIFACTS=$FUZZ_OUT/artifacts

if [ $# -eq 0 ]; then
	echo "usage: $0 build/fuzz/fuzz_NAME..." >&2
	exit 2
fi
mkdir -p "$LOGS"
# Scratch space the harnesses' files go to; tmpfs when there is one (the tree harness writes
# files for every input).
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
WORK=$(mktemp -d "$base/scalebench-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT

failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	name=${name#fuzz_}
	log=$LOGS/$name.log
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		echo "FAIL fuzz $name: $bin is not a built harness (make fuzz-build)"
		failed=1
		continue
	fi
	corpus=$WORK/$name/corpus
	mkdir -p "$corpus" "$WORK/$name/tmp" "$WORK/$name/artifacts"
	if [ -d "$FUZZ_CORPUS/$name" ]; then
		cp -r "$FUZZ_CORPUS/$name/." "$corpus/"
	fi
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	# Sanitizer reports abort the input (ASan's and UBSan's, built without recovery).
	TMPDIR=$WORK/$name/tmp \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$FUZZ_TIME" -timeout="$FUZZ_TIMEOUT" \
		-rss_limit_mb="$FUZZ_RSS_MB" -detect_leaks=1 -print_final_stats=1 \
		-artifact_prefix="$WORK/$name/artifacts/" "${dict[@]}" "$corpus" >"$log" 2>&1
	status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ $status -eq 0 ]; then
		echo "fuzz $name: ok, ${runs:-?} inputs in ${FUZZ_TIME} s, ${cov:-cov: ?} ($log)"
		continue
	fi
	failed=1
	echo "FAIL fuzz $name: exit status $status (log: $log)"
	rm -rf "${ARTIFACTS:?}/$name"
	mkdir -p "$ARTIFACTS/$name"
	for a in "$WORK/$name/artifacts"/*; do
		[ -e "$a" ] || continue
		cp "$a" "$ARTIFACTS/$name/"
		echo "  input: $ARTIFACTS/$name/$(basename "$a")" \
			"(reproduce: $bin $ARTIFACTS/$name/$(basename "$a"))"
	done
	# The report: from a few lines before the first error line (a harness's own check says
	# what it found, then aborts) to the sanitizer's or libFuzzer's summary.
	first=$(grep -n -m1 '^==[0-9]*== *ERROR\|runtime error:\|ALARM: working on the last Unit' \
		"$log" | cut -d: -f1)
	[ -n "$first" ] || first=$(($(wc -l <"$log") - 40))
	[ "$first" -gt 4 ] && first=$((first - 4)) || first=1
	sed -n "$first,/^SUMMARY/p" "$log" | grep -v '^#[0-9]' | head -80 | sed 's/^/  /'
done
exit $failed
