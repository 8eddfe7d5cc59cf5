#!/bin/bash
# The layer rule (README, Layout): builtin -> {runner, analyze} -> {store, core, monitors,
# testcases} -> lib, checked by scripts/check-layers.sh before every build.
set -u
. "$(dirname "$0")/../lib.sh"

check "the tree keeps the layer rule" ./scripts/check-layers.sh

# A copy of the layer directories' headers and sources with one forbidden include added.
mk_tree() {
	rm -rf "$WORK/tree"
	mkdir -p "$WORK/tree/scripts"
	cp scripts/check-layers.sh "$WORK/tree/scripts/"
	for d in builtin runner analyze store core testcases monitors lib; do
		mkdir -p "$WORK/tree/$d"
		cp "$d"/*.[ch] "$WORK/tree/$d/"
	done
}
mk_tree
sed -i '1i #include "../runner/job.h"' "$WORK/tree/analyze/compare.c"
rc=0
"$WORK/tree/scripts/check-layers.sh" 2>"$WORK/err" || rc=$?
check "analyze including runner: refused, file, line and rule named" bash -c \
	"[ $rc -ne 0 ] && grep -q 'analyze/compare.c:1: analyze/ may not include runner/' $WORK/err"
mk_tree
sed -i '1i #include "../monitors/monitor.h"' "$WORK/tree/store/layout.c"
rc=0
"$WORK/tree/scripts/check-layers.sh" 2>"$WORK/err" || rc=$?
check "store including monitors: refused" bash -c \
	"[ $rc -ne 0 ] && grep -q 'store/layout.c:1: store/ may not include monitors/' $WORK/err"
mk_tree
sed -i '1i #include "../analyze/stats.h"' "$WORK/tree/lib/num.c"
rc=0
"$WORK/tree/scripts/check-layers.sh" 2>"$WORK/err" || rc=$?
check "lib including analyze: refused" bash -c "[ $rc -ne 0 ] && grep -q 'lib/num.c:1:' $WORK/err"

# The analyzer's archive needs nothing of libpfm, libelf or hwloc, nor of the runner.
if [ -f build/libanalyze.a ]; then
	undef=$(nm -u build/libanalyze.a 2>/dev/null | grep -E ' (pfm_|elf_|hwloc_|job_load|monitor_|core_run)' || true)
	check "libanalyze.a calls nothing in libpfm, libelf, hwloc, runner, monitors or core" \
		[ -z "$undef" ]
fi
