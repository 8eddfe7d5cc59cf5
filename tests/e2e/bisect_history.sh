# Sourced by the bisect e2e tests: the git history they bisect.  A plug-in testcase (counter1,
# suite "plugin") whose op costs 16 locked adds from one commit on, the culprit, among
# NCOMMITS linear commits on main; optionally one commit that does not build.  Not a test
# itself (tests/run.sh runs test_*.sh only).  (The adds are on the copy's own line: a factor
# per op whatever the scheduling.  A lock the copies shared made the planted change ride on
# whether they ran at once, which a loaded machine decides (-98% +- 60% between 0.25 s runs,
# too wide for bisect's verification on 3 runs), and glibc's mutex, not being fair, could
# starve a copy for a whole window, which fails the run as a stuck copy.)
#
#   . "$(dirname "$0")/bisect_history.sh"
#   bisect_history NCOMMITS GUILTY_AT [BROKEN_AT]
#       $WORK/include/scalebench/testcase.h, the repository REPO=$WORK/repo with commits
#       C1..CNCOMMITS of counter.c: from GUILTY_AT on each op takes 16 locked adds (subject
#       "counter: a locked add per op"); BROKEN_AT (0 or absent: none) does not build
#       (subject "counter: tidy the return (does not build)"); the others "docs: revision i".
#       Sets C1..CN, GOOD (C1), BAD (CN), GUILTY (C<GUILTY_AT>), BROKEN (C<BROKEN_AT> or empty)
#       and g (git -C $REPO, quiet).
#   bisect_job FILE
#       the job file the bisections run: counter1, 1 thread, no warmup, a 0.25 s window (the
#       locked adds cost a factor, not a few %: one sample tells the commits apart).
#   PLUGIN_CC
#       the compiler command line that builds counter.c into a plug-in: $PLUGIN_CC -o OUT SRC
PLUGIN_CC="cc -std=c11 -O2 -I$WORK/include -shared -fPIC"

g() { git -C "$REPO" "$@" >/dev/null 2>&1; }

bisect_write_plugin() { # $1: 1 = the locked adds, $2: 1 = a syntax error
	cat >"$REPO/counter.c" <<C
#include <scalebench/testcase.h>
#include <stdlib.h>

struct counter { _Alignas(64) volatile uint64_t n; uint64_t locked; };

static int counter_prepare(struct tc_copy *copy)
{
	copy->priv = aligned_alloc(64, sizeof(struct counter));
	return copy->priv ? 0 : tc_error(copy, "no memory");
}

static int counter_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	struct counter *c = copy->priv;

	for (;;) {
		if ($1)
			for (int k = 0; k < 16; k++)
				__atomic_fetch_add(&c->locked, 1, __ATOMIC_SEQ_CST);
		c->n++;
		(*iterations)++;
	}
	return 0$([ "$2" = 1 ] && echo ' +');
}

static const struct testcase tc_counter = {
	.name = "counter1", .description = "per-copy counter", .suite = "plugin",
	.prepare = counter_prepare, .run = counter_run,
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
			msg="counter: a locked add per op"
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
