# Sourced by the bisect e2e tests: the git history they bisect.  A plug-in testcase (counter1,
# suite "plugin") whose op waits 1 ms, and from one commit on, the culprit, 4 ms (four waits),
# among NCOMMITS linear commits on main; optionally one commit that does not build.  Not a test
# itself (tests/run.sh runs test_*.sh only).  (An op that waits, not one that computes: its rate
# is the clock's, not the copy's share of a CPU, which the other test files beside it decide;
# a spinning copy's rate moved by more than 60% between runs on a loaded machine, and burnt
# its whole window in each of the suite's ~400 bisect runs.  The waits are to absolute
# deadlines, 1 ms apart, so a late wake-up is caught up rather than added to every op: with
# relative 1 ms sleeps the rate was 810-900 ops/s idle and ~500 under load, where the runs
# spread so far that 4 v 4 could not confirm a 4.7x change (test_bisect_reboot's endpoints:
# -76.7% [-96.0%, +34.3%], inconclusive, 2026-12-04).  The earlier models: 16 locked adds per op, a factor whatever the
# scheduling but a CPU-share rate; a lock the copies shared, which made the change ride on
# whether they ran at once.)
#
#   . "$(dirname "$0")/bisect_history.sh"
#   bisect_history NCOMMITS GUILTY_AT [BROKEN_AT]
#       $WORK/include/scalebench/testcase.h, the repository REPO=$WORK/repo with commits
#       C1..CNCOMMITS of counter.c: from GUILTY_AT on each op waits 4 ms, not 1 (subject
#       $GUILTY_SUBJECT, "counter: four waits per op"); BROKEN_AT (0 or absent: none) does not build
#       (subject "counter: tidy the return (does not build)"); the others "docs: revision i".
#       Sets C1..CN, GOOD (C1), BAD (CN), GUILTY (C<GUILTY_AT>), BROKEN (C<BROKEN_AT> or empty)
#       and g (git -C $REPO, quiet).
#   bisect_job FILE
#       the job file the bisections run: counter1, 1 thread, no warmup, a 0.25 s window (the
#       waits cost a factor, not a few %: one sample tells the commits apart).
#   PLUGIN_CC
#       the compiler command line that builds counter.c into a plug-in: $PLUGIN_CC -o OUT SRC
export GUILTY_SUBJECT="counter: four waits per op"
PLUGIN_CC="cc -std=c11 -O2 -I$WORK/include -shared -fPIC"

g() { git -C "$REPO" "$@" >/dev/null 2>&1; }

bisect_write_plugin() { # $1: 1 = four waits per op, $2: 1 = a syntax error
	cat >"$REPO/counter.c" <<C
#define _POSIX_C_SOURCE 200809L
#include <scalebench/testcase.h>
#include <time.h>

static int counter_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct timespec t;

	(void)copy;
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (;;) {
		for (int k = 0; k < ($1 ? 4 : 1); k++) {
			t.tv_nsec += 1000000;
			if (t.tv_nsec >= 1000000000) {
				t.tv_nsec -= 1000000000;
				t.tv_sec++;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		}
		(*iterations)++;
	}
	return 0$([ "$2" = 1 ] && echo ' +');
}

static const struct testcase tc_counter = {
	.name = "counter1", .description = "per-copy counter", .suite = "plugin",
	.run = counter_run,
};
SCALEBENCH_PLUGIN(&tc_counter);
C
}

bisect_history() { # NCOMMITS GUILTY_AT [BROKEN_AT]
	local n=$1 guilty_at=$2 broken_at=${3:-0} i shared broken msg
	mkdir -p "$WORK/include/scalebench"
	cp testcases/testcase.h "$WORK/include/scalebench/"
	REPO=$WORK/repo
	mkdir -p "$REPO"
	g init -q -b main
	g config user.email robot@example.com
	g config user.name "Test Robot"
	for i in $(seq 1 "$n"); do
		shared=0
		broken=0
		[ "$i" -ge "$guilty_at" ] && shared=1
		[ "$i" -eq "$broken_at" ] && broken=1
		bisect_write_plugin $shared $broken
		echo "/* revision $i */" >>"$REPO/counter.c"
		if [ "$i" -eq "$guilty_at" ]; then
			msg=$GUILTY_SUBJECT
		elif [ "$i" -eq "$broken_at" ]; then
			msg="counter: tidy the return (does not build)"
		else
			msg="docs: revision $i"
		fi
		g add counter.c
		g commit -q -m "$msg"
		eval "C$i=\$(git -C \"\$REPO\" rev-parse HEAD)"
	done
	GOOD=$C1
	BAD=$(git -C "$REPO" rev-parse HEAD)
	eval "GUILTY=\$C$guilty_at"
	BROKEN=
	[ "$broken_at" -gt 0 ] && eval "BROKEN=\$C$broken_at"
	return 0
}

bisect_job() { # FILE
	cat >"$1" <<'Y'
suite: will-it-scale
testcase: will-it-scale
interval: 0.25s
runtime: 0.25s
warmup: 0
nr_task: 1
will-it-scale:
  mode: thread
  test: counter1
Y
}
