#!/bin/bash
# tests/fuzz/run.sh, make fuzz's exploration and make check's replay: a harness that crashes,
# trips UBSan, leaks or hangs fails it, with the input kept and named and the sanitizer's report
# printed; a clean one passes; the checked-in corpus is used by copy and never grows.  The replay
# runs every corpus input once, not FUZZ_TIME seconds, and a regression input that crashes
# again fails it, named.
set -u
. "$(dirname "$0")/../lib.sh"

if ! command -v clang >/dev/null; then
	fail "clang is installed (make setup)"
	exit 0
fi

# One harness, its misdeed chosen by SELFTEST for every input.
cat >"$WORK/fuzz_selftest.c" <<'C'
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *mode = getenv("SELFTEST");
	if (!mode)
		return 0;
	if (!strcmp(mode, "asan")) {
		char *p = malloc(4);
		p[4 + size % 2] = 1;
		free(p);
	} else if (!strcmp(mode, "ubsan")) {
		volatile int x = INT_MAX;
		x += (int)size + 1;
	} else if (!strcmp(mode, "leak")) {
		char *volatile lost = malloc(16);

		lost[0] = 1;
		lost = NULL;
	} else if (!strcmp(mode, "planted") && size >= 5 && !memcmp(data, "crash", 5)) {
		char *volatile p = malloc(4);

		free(p);
		p[0] = 1;
	} else if (!strcmp(mode, "hang")) {
		for (;;)
			pause();
	}
	(void)data;
	return 0;
}
C
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-o "$WORK/fuzz_selftest" "$WORK/fuzz_selftest.c" 2>"$WORK/cc"; then
	fail "selftest harness builds (clang, libclang-rt-14-dev)" "$(head -5 "$WORK/cc")"
	exit 0
fi
mkdir -p "$WORK/corpus/selftest"
printf 'seed' >"$WORK/corpus/selftest/seed"

# selftest MODE [VAR=VALUE...]: run the harness through run.sh; output in $WORK/run, $rc.
selftest() {
	local mode=$1
	shift
	rc=0
	env SELFTEST="$mode" FUZZ_TIME=3 FUZZ_TIMEOUT=2 FUZZ_CORPUS="$WORK/corpus" \
		FUZZ_OUT="$WORK/out-$mode" "$@" tests/fuzz/run.sh "$WORK/fuzz_selftest" \
		>"$WORK/run" 2>&1 || rc=$?
}
run_has() {
	grep -q -- "$1" "$WORK/run"
}
# input_kept MODE KIND: the input named in the output is kept under FUZZ_OUT (libFuzzer runs
# the empty input first, so it may be empty).
input_kept() {
	local path
	path=$(sed -n 's/^  input: \([^ ]*\) .*/\1/p' "$WORK/run" | head -1)
	[ -n "$path" ] && [[ "$path" == "$WORK/out-$1/artifacts/selftest/$2"* ]] && [ -f "$path" ]
}

selftest none
check "a clean harness passes" [ "$rc" -eq 0 ]
check "a clean harness reports its inputs and coverage" run_has "fuzz selftest: ok, [0-9]* inputs"
check "the fuzzer's output goes to its log" \
	grep -q "Done [0-9]* runs" "$WORK/out-none/logs/selftest.log"
check "the checked-in corpus does not grow" \
	bash -c "[ \"\$(ls '$WORK/corpus/selftest')\" = seed ]"

selftest asan
check "an ASan report fails the run" [ "$rc" -ne 0 ]
check "an ASan failure names its input" input_kept asan crash-
check "an ASan failure prints the report" run_has "ERROR: AddressSanitizer: heap-buffer-overflow"
check "an ASan failure says how to reproduce" run_has "reproduce: $WORK/fuzz_selftest "

selftest ubsan
check "a UBSan report fails the run" [ "$rc" -ne 0 ]
check "a UBSan failure names its input" input_kept ubsan crash-
check "a UBSan failure prints the report" run_has "runtime error: signed integer overflow"

selftest leak
check "a leak fails the run" [ "$rc" -ne 0 ]
check "a leak names its input" input_kept leak leak-
check "a leak prints the report" run_has "ERROR: LeakSanitizer: detected memory leaks"

selftest hang
check "an input over FUZZ_TIMEOUT fails the run" [ "$rc" -ne 0 ]
check "a timeout names its input" input_kept hang timeout-
check "a timeout prints the report" run_has "ERROR: libFuzzer: timeout"

rc=0
FUZZ_OUT="$WORK/out-missing" tests/fuzz/run.sh "$WORK/fuzz_missing" >"$WORK/run" 2>&1 || rc=$?
check "a harness that is not built fails the run" [ "$rc" -ne 0 ]

# Several harnesses at once (make fuzz): each one's lines whole, the run failed when one is.
cp "$WORK/fuzz_selftest" "$WORK/fuzz_other"
mkdir -p "$WORK/corpus/other"
printf 'seed' >"$WORK/corpus/other/seed"
rc=0
env SELFTEST=none FUZZ_TIME=3 FUZZ_JOBS=2 FUZZ_CORPUS="$WORK/corpus" FUZZ_OUT="$WORK/out-two" \
	tests/fuzz/run.sh "$WORK/fuzz_selftest" "$WORK/fuzz_other" >"$WORK/run" 2>&1 || rc=$?
check "two harnesses at a time: both pass" bash -c \
	"[ $rc -eq 0 ] && grep -q '^fuzz selftest: ok' $WORK/run && grep -q '^fuzz other: ok' $WORK/run"
rc=0
env SELFTEST=asan FUZZ_TIME=3 FUZZ_TIMEOUT=2 FUZZ_JOBS=2 FUZZ_CORPUS="$WORK/corpus" \
	FUZZ_OUT="$WORK/out-two" tests/fuzz/run.sh "$WORK/fuzz_selftest" "$WORK/fuzz_other" \
	>"$WORK/run" 2>&1 || rc=$?
check "two harnesses at a time: a failing one fails the run, each named" bash -c \
	"[ $rc -ne 0 ] && grep -q '^FAIL fuzz selftest' $WORK/run && grep -q '^FAIL fuzz other' $WORK/run"

# --replay (make check): every input once; FUZZ_TIME does not apply (600 s would time out).
# replay MODE [BIN OUT]: BIN (the libFuzzer build) replays, its files in $WORK/OUT-MODE (out-replay).
replay() {
	local mode=$1 bin=${2:-$WORK/fuzz_selftest} out=${3:-out-replay}
	rc=0
	env SELFTEST="$mode" FUZZ_TIME=600 FUZZ_TIMEOUT=2 FUZZ_CORPUS="$WORK/corpus" \
		FUZZ_OUT="$WORK/$out-$mode" timeout 120 tests/fuzz/run.sh --replay \
		"$bin" >"$WORK/run" 2>&1 || rc=$?
}
printf 'crash!' >"$WORK/corpus/selftest/crash-planted"
replay none
check "replay: a clean harness passes, every input once" bash -c \
	"[ $rc -eq 0 ] && grep -q '^fuzz selftest: ok, replayed 2 inputs' $WORK/run"
check "replay: its own log" grep -q "Done [0-9]* runs" "$WORK/out-replay-none/logs/selftest-replay.log"
replay planted
check "replay: a regression input that crashes again fails it" bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
check "replay: the failure names the corpus file" \
	run_has "^  input: .* = $WORK/corpus/selftest/crash-planted$"
check "replay: the failure prints the report" run_has "ERROR: AddressSanitizer: heap-use-after-free"
check "replay: the checked-in corpus is unchanged" \
	bash -c "[ \"\$(ls '$WORK/corpus/selftest' | tr '\n' ' ')\" = 'crash-planted seed ' ]"

# The replay make check runs: the harness linked by gcc with tests/fuzz/replay.c, no libFuzzer
# (no third build of the layers), through the same run.sh --replay: the same verdicts, the
# input named, the report printed.
# (-O0: at -O1 gcc drops the planted store into freed memory as dead.)
mkdir -p "$WORK/gcc"
if ! cc -std=c11 -O0 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$WORK/gcc/fuzz_selftest" "$WORK/fuzz_selftest.c" tests/fuzz/replay.c 2>"$WORK/cc"; then
	fail "replay driver: the selftest harness builds with gcc" "$(head -5 "$WORK/cc")"
	exit 0
fi
replay_gcc() {
	replay "$1" "$WORK/gcc/fuzz_selftest" out-gcc
}
replay_gcc none
check "replay driver: a clean harness passes, every input once" bash -c \
	"[ $rc -eq 0 ] && grep -q '^fuzz selftest: ok, replayed 2 inputs' $WORK/run &&
	 grep -q '^Done 3 runs' $WORK/out-gcc-none/logs/selftest-replay.log"
replay_gcc planted
check "replay driver: a regression input that crashes again fails it, named" bash -c \
	"[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q '^  input: .* = $WORK/corpus/selftest/crash-planted$' $WORK/run"
check "replay driver: the failure prints the report" run_has "ERROR: AddressSanitizer: heap-use-after-free"
replay_gcc ubsan
check "replay driver: a UBSan report fails it, the input kept" bash -c \
	"[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'runtime error: signed integer overflow' $WORK/run"
check "replay driver: a UBSan failure names its input" input_kept gcc-ubsan crash-
replay_gcc leak
check "replay driver: a leak fails it, the report printed" bash -c \
	"[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'ERROR: LeakSanitizer: detected memory leaks' $WORK/run"
check "replay driver: a leak names its input" input_kept gcc-leak leak-
replay_gcc hang
check "replay driver: an input over FUZZ_TIMEOUT fails it" bash -c "[ $rc -ne 0 ] && [ $rc -ne 124 ]"
check "replay driver: a timeout names its input" input_kept gcc-hang timeout-
check "replay driver: a timeout says so" run_has "ALARM: working on the last Unit"
