#!/bin/bash
# The layer rule (README, Layout): builtin -> workflow -> {runner, analyze} -> {store, core,
# monitors} -> lib and core -> testcases -> lib, checked by scripts/check-layers.sh before
# every build.
set -u
. "$(dirname "$0")/../lib.sh"

check "the tree keeps the layer rule" ./scripts/check-layers.sh
check "README's copy of the layer table is check-layers.sh's own" bash -c \
	"diff <(./scripts/check-layers.sh --print) <(sed -n '/^\`\`\`layers\$/,/^\`\`\`\$/p' README.md | sed '1d;\$d')"
# One owner per fact: a copy that a grep can tell, come back, fails here.
check "one log mean and variance: log_moments (analyze/stats.c) only" bash -c \
	"[ \"\$(grep -rl --include='*.c' '^[a-z ]*int log_moments(' . | grep -v '^./build/')\" = ./analyze/stats.c ]"
check "one interrupt flag: interrupt_caught (lib/interrupt.c) only" bash -c \
	"[ -z \"\$(grep -rn --include='*.c' 'volatile sig_atomic_t .*\\(interrupt\\|got_signal\\)' . | grep -v '^./build/' | grep -v '^./lib/\\(interrupt\\|run_command\\).c:')\" ]"
check "one Slurm word check: slurm_word_check (runner/slurm_submit.c) only" bash -c \
	"[ \"\$(grep -rl --include='*.c' 'Slurm name or feature expression' . | grep -v '^./build/')\" = ./runner/slurm_submit.c ]"
check "one way to run git: git_run (lib/git.c), no argv of its own elsewhere" bash -c \
	"[ -z \"\$(grep -rl --include='*.c' '{\"git\"' . | grep -v '^./build/' | grep -v '^./tests/')\" ]"
check "one mode name: tc_mode_name (testcases/testcase.h) only" bash -c \
	"[ -z \"\$(grep -rln --include='*.[ch]' 'TC_MODE_PROCESS ? \"process\"' . | grep -v '^./build/' | grep -vx ./testcases/testcase.h)\" ]"
check "one 'did you mean': text_closest_offer (lib/text.c), no closest-name loop of its own" bash -c \
	"[ \"\$(grep -rl --include='*.c' 'text_close(' . | grep -v '^./build/' | grep -v '^./tests/')\" = ./lib/text.c ]"
check "one policy for a job's runs at a commit: select_dirs (analyze/select.c), no results_find" bash -c \
	"[ -z \"\$(grep -rln --include='*.[ch]' 'results_find(' . | grep -v '^./build/')\" ]"

# A copy of the layer directories' headers and sources with one forbidden include added.
mk_tree() {
	rm -rf "$WORK/tree"
	mkdir -p "$WORK/tree/scripts"
	cp scripts/check-layers.sh "$WORK/tree/scripts/"
	for d in builtin workflow runner analyze store core testcases monitors lib; do
		mkdir -p "$WORK/tree/$d"
		cp "$d"/*.[ch] "$WORK/tree/$d/"
	done
}

# refused FILE LAYER NAME: FILE with LAYER's header included on its first line is refused,
# the message naming the file, the line and the rule.
refused() {
	local file=$1 layer=$2 name=$3 hdr
	hdr=$(cd "$layer" && ls *.h | head -1)
	mk_tree
	sed -i "1i #include \"../$layer/$hdr\"" "$WORK/tree/$file"
	rc=0
	"$WORK/tree/scripts/check-layers.sh" 2>"$WORK/err" || rc=$?
	check "$name" bash -c \
		"[ $rc -ne 0 ] && grep -q '$file:1: ${file%%/*}/ may not include $layer/' $WORK/err"
}
refused analyze/compare.c runner "analyze including runner: refused, file, line and rule named"
refused store/layout.c monitors "store including monitors: refused"
refused lib/num.c analyze "lib including analyze: refused"
refused workflow/bisect.c builtin "workflow including builtin: refused"
refused runner/run.c workflow "runner including workflow: refused"
refused analyze/bisect.c workflow "analyze including workflow: refused"
refused testcases/fileio.c core "testcases including core: refused (the plug-in API has no cycle)"
refused core/core.c runner "core including runner: refused (cgroup.c is the runner's)"

# The analyzer's archive needs nothing of libpfm, libelf or hwloc, nor of the runner.
if [ -f build/libanalyze.a ]; then
	undef=$(nm -u build/libanalyze.a 2>/dev/null | grep -E ' (pfm_|elf_|hwloc_|job_load|monitor_|core_run)' || true)
	check "libanalyze.a calls nothing in libpfm, libelf, hwloc, runner, monitors or core" \
		[ -z "$undef" ]
fi
