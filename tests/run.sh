#!/bin/bash
# Run every test: the unit tests (cmocka, built with ASan+UBSan), the end-to-end tests (the
# real binary, sanitizer build, plus valgrind on the plain build) and the fuzzers.  Ends with
# the line CI reads: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."

RESULTS=$(mktemp /tmp/scalebench-results.XXXXXX)
trap 'rm -f "$RESULTS"' EXIT
export RESULTS
export SCALEBENCH=${SCALEBENCH:-build/asan/scalebench}
export SCALEBENCH_PLAIN=${SCALEBENCH_PLAIN:-build/scalebench}
# Sanitizer reports fail the process; leaks are checked at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

only=${1:-}

for t in build/asan/tests/test_*; do
	[ -x "$t" ] || continue
	[ -z "$only" ] || [[ "$t" == *"$only"* ]] || continue
	echo "== unit: $t"
	out=$("$t" 2>&1)
	status=$?
	echo "$out"
	ok=$(grep -c '^\[       OK \]' <<<"$out")
	bad=$(grep -c '^\[  FAILED  \] [a-z]' <<<"$out")
	if [ $status -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1 # crashed before cmocka could say which test
		echo "FAIL $t exited with status $status"
	fi
	for _ in $(seq 1 "$ok"); do echo pass >>"$RESULTS"; done
	for _ in $(seq 1 "$bad"); do echo fail >>"$RESULTS"; done
done

for t in tests/e2e/test_*.sh; do
	[ -z "$only" ] || [[ "$t" == *"$only"* ]] || continue
	echo "== e2e: $t"
	before=$(wc -l <"$RESULTS")
	bash "$t"
	status=$?
	if [ $status -ne 0 ]; then
		echo "FAIL $t exited with status $status"
		echo fail >>"$RESULTS"
	elif [ "$(wc -l <"$RESULTS")" -eq "$before" ]; then
		echo "FAIL $t ran no check"
		echo fail >>"$RESULTS"
	fi
done

# The libFuzzer harnesses (build/fuzz, from tests/fuzz/fuzz_*.c): each runs FUZZ_TIME seconds
# (default 30) on a copy of its corpus; a crash, leak or timeout fails it (tests/fuzz/run.sh).
for t in build/fuzz/fuzz_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	[ -z "$only" ] || [[ "$t" == *"$only"* ]] || continue
	echo "== fuzz: $t"
	if tests/fuzz/run.sh "$t"; then
		echo pass >>"$RESULTS"
	else
		echo fail >>"$RESULTS"
	fi
done

passed=$(grep -c '^pass$' "$RESULTS")
failed=$(grep -c '^fail$' "$RESULTS")
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
