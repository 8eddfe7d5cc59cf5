#!/bin/sh
# make-history.sh DIR [NCOMMITS [GUILTY]]: a git repository to bisect in two minutes.
#
# DIR becomes a repository of NCOMMITS (default 12) linear commits of a plug-in testcase,
# counter1 (suite "plugin"), whose loop counts ops on its copy's own cache line.  From commit
# GUILTY on (default 8) each op also takes 16 locked adds: per_thread_ops falls by a factor
# whatever the machine.  The other commits change a comment.  Tags: demo-good (the first
# commit), demo-bad (the last).  Each commit holds a Makefile (`make` builds counter.so
# against scalebench's plug-in header) and counter.yaml, the one atomic job to bisect with.
#
# The header comes from the source tree this script sits in, else from an installed
# scalebench (PREFIX/include/scalebench/testcase.h).
set -eu
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: $0 DIR [NCOMMITS [GUILTY]]" >&2; exit 2; }
dir=$1 n=${2:-12} guilty=${3:-8}
case $n$guilty in *[!0-9]*) echo "$0: NCOMMITS and GUILTY are numbers" >&2; exit 2 ;; esac
[ "$n" -ge 2 ] && [ "$guilty" -ge 2 ] && [ "$guilty" -le "$n" ] ||
	{ echo "$0: need 2 <= GUILTY <= NCOMMITS (got $guilty of $n)" >&2; exit 2; }
[ ! -e "$dir" ] || { echo "$0: $dir exists; give a new directory" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
header=
for h in "$here/../../testcases/testcase.h" "$here/../../../include/scalebench/testcase.h" \
	/usr/local/include/scalebench/testcase.h /usr/include/scalebench/testcase.h; do
	[ -f "$h" ] && { header=$h; break; }
done
[ -n "$header" ] || { echo "$0: scalebench's testcase.h not found (build or install scalebench)" >&2; exit 2; }

mkdir -p "$dir/include/scalebench"
cp "$header" "$dir/include/scalebench/testcase.h"
cd "$dir"
git init -q -b main
git config user.email demo@example.com
git config user.name "Demo Author"

cat >Makefile <<'MK'
counter.so: counter.c include/scalebench/testcase.h
	$(CC) -std=c11 -O2 -Iinclude -shared -fPIC -o $@ counter.c
MK
cat >counter.yaml <<'YAML'
# One atomic job: one thread of counter1 for 0.5 s windows, no warmup.
suite: will-it-scale
testcase: will-it-scale
interval: 0.25s
runtime: 0.5s
warmup: 0
nr_task: 1
will-it-scale:
  mode: thread
  test: counter1
YAML
printf 'counter.so\n' >.gitignore

write_counter() { # $1: 1 = 16 locked adds per op; $2: revision
	cat >counter.c <<C
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
	return 0;
}

static const struct testcase tc_counter = {
	.name = "counter1", .description = "per-copy counter", .suite = "plugin",
	.op = "count", .prepare = counter_prepare, .run = counter_run,
};
SCALEBENCH_PLUGIN(&tc_counter); /* revision $2 */
C
}

i=1
while [ "$i" -le "$n" ]; do
	if [ "$i" -ge "$guilty" ]; then write_counter 1 "$i"; else write_counter 0 "$i"; fi
	if [ "$i" -eq "$guilty" ]; then msg="counter: a locked add per op"; else msg="docs: revision $i"; fi
	git add -A
	git commit -q -m "$msg"
	[ "$i" -eq 1 ] && git tag demo-good
	i=$((i + 1))
done
git tag demo-bad
echo "$dir: $n commits, demo-good..demo-bad; the culprit is commit $guilty," \
	"$(git log --format="%h (\"%s\")" -1 "HEAD~$((n - guilty))")"
