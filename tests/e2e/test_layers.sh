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

# One set of exit statuses, enum sb_exit (lib/exit.h), named where a command returns one.
# exit_defs ROOT: a definition of exit meanings outside lib/exit.h (another enum sb_exit, an
# EXIT_ or SB_EXIT_ macro, an SB_EXIT_ constant given a value).
exit_defs() {
	grep -rnE --include='*.[ch]' 'enum sb_exit *(\{|$)|#[ \t]*define[ \t]+(SB_)?EXIT_[A-Z]|\bSB_EXIT_[A-Z_]+ *= *[0-9]' "$1" |
		grep -v "^$1/build/" | grep -v "^$1/lib/exit.h:"
}
# cmd_returns ROOT: "return N;" (0 to 3) in a command's body (builtin/'s cmd_*, main.c's
# dispatch and main: from the function's first line to the "}" at column 0 that ends it).
cmd_returns() {
	awk '/^(static )?int (cmd_[a-z0-9_]*|dispatch|main)\(/ { body = 1 }
	     body && /return [0-3];/ { print FILENAME ":" FNR ": " $0 }
	     /^}/ { body = 0 }' "$1"/builtin/*.c "$1"/main.c
}
# none_found COMMAND...: true when it prints nothing; what it found is shown, named by it.
none_found() {
	local found
	found=$("$@")
	[ -z "$found" ] || { sed "s|^|     $1: |" <<<"$found"; return 1; }
}
# One out-of-memory policy: process-level code (builtin/, workflow/, main.c) allocates through
# lib/xalloc.h, which says "out of memory" and exits; the library layers return the error.
# oom_literals ROOT: an "out of memory" string of its own there.  bare_allocs ROOT: malloc,
# calloc, realloc, strdup, strndup or asprintf called there, not its x* form.
oom_literals() {
	grep -rniE --include='*.[ch]' '"[^"]*out of memory' "$1"/builtin "$1"/workflow "$1"/main.c
}
bare_allocs() {
	grep -rnE --include='*.[ch]' '\b(malloc|calloc|realloc|reallocarray|strn?dup|v?asprintf)\(' \
		"$1"/builtin "$1"/workflow "$1"/main.c
}
check "one out-of-memory message, xalloc_die's: none of its own in builtin/, workflow/, main.c" \
	none_found oom_literals .
check "builtin/, workflow/ and main.c allocate through lib/xalloc.h (xmalloc, not malloc)" \
	none_found bare_allocs .
check "one definition of the exit statuses: enum sb_exit (lib/exit.h) only" none_found exit_defs .
check "commands return exit statuses by name: no 'return 0-3;' in a cmd_* body or main.c" \
	none_found cmd_returns .

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

# The checks above can fail: each on a copy of the tree with one violation planted.
mk_tree
cp main.c "$WORK/tree/"
sed -i '/^int cmd_list(/,/^}/ s/return SB_EXIT_OK;/return 0;/' "$WORK/tree/builtin/list.c"
check "a planted 'return 0;' in cmd_list: found" \
	grep -q '/builtin/list.c:[0-9]*: .*return 0;' <(cmd_returns "$WORK/tree")
sed -i '1i #define EXIT_USAGE 2' "$WORK/tree/builtin/plot.c"
printf 'enum sb_exit {\n\tSB_EXIT_REGRESSION = 1,\n};\n' >>"$WORK/tree/workflow/bisect.h"
exit_defs "$WORK/tree" >"$WORK/found"
check "a planted '#define EXIT_', second enum sb_exit and SB_EXIT_ value: each found" bash -c \
	"grep -q '/builtin/plot.c:1:#define EXIT_USAGE' $WORK/found &&
	 grep -q '/workflow/bisect.h:[0-9]*:enum sb_exit {' $WORK/found &&
	 grep -q '/workflow/bisect.h:[0-9]*:.SB_EXIT_REGRESSION = 1' $WORK/found"
sed -i '/^int cmd_report(/a\	sb_error("Out of memory");' "$WORK/tree/builtin/report.c"
check "a planted \"Out of memory\" message in builtin/report.c: found" \
	grep -q '/builtin/report.c:[0-9]*:.*sb_error("Out of memory");' <(oom_literals "$WORK/tree")
sed -i 's/xcalloc(nruns + 1/calloc(nruns + 1/' "$WORK/tree/workflow/batch.c"
check "a planted calloc in workflow/batch.c: found" \
	grep -q '/workflow/batch.c:[0-9]*:.*= calloc(nruns + 1' <(bare_allocs "$WORK/tree")

# The analyzer's archive needs nothing of libpfm, libelf or hwloc, nor of the runner.
if [ -f build/libanalyze.a ]; then
	undef=$(nm -u build/libanalyze.a 2>/dev/null | grep -E ' (pfm_|elf_|hwloc_|job_load|monitor_|core_run)' || true)
	check "libanalyze.a calls nothing in libpfm, libelf, hwloc, runner, monitors or core" \
		[ -z "$undef" ]
fi
