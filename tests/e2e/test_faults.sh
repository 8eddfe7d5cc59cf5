#!/bin/bash
# Fault injection through the real binary, each part asserting what survives: a results root
# that fills up mid-run and mid-plot, concurrent runners on one tree, a monitor whose /proc file
# vanishes mid-run, and copies that crash, hang, or leave a grandchild that ignores SIGTERM.
set -u
. "$(dirname "$0")/../lib.sh"

# Nothing of ours may outlive the script: mounts by path, processes by pid or by our marker.
MNT=()
PIDS=()
MARK="sbf-$$"
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	pkill -KILL -x "$MARK" 2>/dev/null
	for m in "${MNT[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	work_remove
}
trap cleanup EXIT

# tree_sum DIR: one line per file under DIR, its content's hash and its path.
tree_sum() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

# half_runs DIR: the temp run directories and the numbered runs without stats.json or
# meta.json under DIR (empty when every run is whole).
half_runs() {
	find "$1" -name '.tmp-run-*'
	find "$1" -type d -regex '.*/[0-9]+' | while read -r d; do
		[ -s "$d/stats.json" ] && [ -s "$d/meta.json" ] || echo "$d"
	done
}

# checkv NAME FILE CONDITION...: check, and on failure show the head of FILE (stderr, failures).
checkv() {
	local name=$1 info=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "condition failed: $*" "$(head -c 2000 "$info")"
	fi
}

# ---- 1. a results root that fills up mid-run and mid-plot ------------------------------------

FULL=$WORK/full
mkdir "$FULL"
if mount -t tmpfs -o size=1m tmpfs "$FULL"; then
	MNT+=("$FULL")
	cat >"$WORK/m.yaml" <<YAML
runtime: 1s
warmup: 0
nr_task: 1
will-it-scale: {mode: process, test: getppid1}
meminfo:
proc-vmstat:
interrupts:
YAML
	# (interrupts: a run must take more than the 24 KiB the last case leaves, now that stats
	# that read 0 throughout are left out of stats.json)
	sb run "$WORK/m.yaml" --results "$FULL" --commit c1 -r 2 -q
	check "full disk: two runs stored while there is room" [ $rc -eq 0 ]
	commit_dir=$(dirname "$(ls -d "$FULL"/will-it-scale/*/*/*/*/*/c1/0)")
	tree_sum "$FULL" >"$WORK/before.sum"
	discarded="No space left on device; the run was discarded"
	# Full before the run: refused at its first file, before anything is measured.
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	start=$SECONDS
	# (runtime 30s names its own results directory: path_params has the runtime)
	sed 's/^runtime: 1s/runtime: 30s/' "$WORK/m.yaml" >"$WORK/m30.yaml"
	sb run "$WORK/m30.yaml" --results "$FULL" --commit c1 -r 2 -q
	checkv "full disk before the run: exit 1 at job.yaml, naming ENOSPC, nothing measured" \
		"$WORK/err" bash -c "[ $rc -eq 1 ] && [ $((SECONDS - start)) -lt 10 ] &&
		grep -q 'cannot write ${commit_dir/-1s-/-30s-}/.tmp-run-[^/]*/job.yaml: $discarded' $WORK/err"
	check "full disk before the run: no temp run, no half run" [ -z "$(half_runs "$FULL")" ]
	rm -f "$FULL/filler"
	# Fill the disk once the run has begun, leaving FREE KiB: the store fails at the output,
	# a monitor's raw file, meta.json or stats.json depending on how much.
	for free in 0 8 16 24; do
		"$SCALEBENCH" run "$WORK/m.yaml" --results "$FULL" --commit c1 -q \
			>"$WORK/out" 2>"$WORK/err" &
		pid=$!
		PIDS+=("$pid")
		for _ in $(seq 1 200); do
			ls -d "$commit_dir"/.tmp-run-* >/dev/null 2>&1 && break
			sleep 0.02
		done
		dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
		truncate -s "-${free}K" "$FULL/filler"
		rc=0
		wait $pid || rc=$?
		checkv "full disk ($free KiB left): exit 1, naming the run's file and ENOSPC" \
			"$WORK/err" bash -c "[ $rc -eq 1 ] &&
			grep -q 'cannot write $commit_dir/.tmp-run-[^/]*/[^ ]*: $discarded' $WORK/err"
		check "full disk ($free KiB left): no temp run, no half run" [ -z "$(half_runs "$FULL")" ]
		check "full disk ($free KiB left): only the earlier runs" \
			[ "$(ls -A "$commit_dir" | grep -vx matrix.json | tr '\n' ' ')" = "0 1 " ]
		check "full disk ($free KiB left): no sanitizer report" \
			bash -c "! grep -q Sanitizer $WORK/err"
		rm -f "$FULL/filler"
	done
	tree_sum "$FULL" >"$WORK/after.sum"
	check "full disk: the earlier runs are intact, byte for byte" \
		cmp -s "$WORK/before.sum" "$WORK/after.sum"
	sb run "$WORK/m.yaml" --results "$FULL" --commit c2 -r 2 -q
	check "full disk: once space is freed, runs are stored" bash -c \
		"[ $rc -eq 0 ] && [ -z \"\$(find $FULL -name '.tmp-run-*')\" ] &&
		 ls -d $FULL/will-it-scale/*/*/*/*/*/c2/1 >/dev/null"
	sb compare --results "$FULL" --commits c1,c2 --json
	check "full disk: compare reads every run (2 and 2)" json_true "$WORK/out" \
		"[g['runs'] for g in d['jobs'][0]['groups']] == [2, 2]"

	# Mid-plot, with nothing or a few KiB left (gnuplot used to write the file itself, and a
	# truncated image replaced the old one with exit 0): the new file is not written at all,
	# the old one is kept.
	for fmt in png svg; do
		plot=$FULL/plot.$fmt
		sb plot "$commit_dir" "${commit_dir%/c1}/c2" --$fmt "$plot"
		check "plot --$fmt with room: written" bash -c "[ $rc -eq 0 ] && [ -s $plot ]"
		old=$(sha256sum <"$plot")
		for free in 0 8; do
			dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
			truncate -s "-${free}K" "$FULL/filler"
			sb plot "$commit_dir" "${commit_dir%/c1}/c2" --$fmt "$plot"
			check "plot --$fmt, $free KiB left: fails, naming the file and ENOSPC" bash -c \
				"[ $rc -ne 0 ] && grep -q 'cannot write $plot: No space left on device' $WORK/err"
			check "plot --$fmt, $free KiB left: the old file intact, no temp file" bash -c \
				"[ \"\$(sha256sum <$plot)\" = '$old' ] && [ -z \"\$(ls $FULL | grep '\.tmp\.')\" ]"
			rm -f "$FULL/filler"
		done
	done
	umount "$FULL"
else
	fail "full disk: cannot mount a tmpfs (tests run as root)"
fi

# ---- 2. concurrent runners on one results tree -------------------------------------------------

getppid_job "$WORK/c.yaml"
for n in 2 4; do
	pids=()
	for i in $(seq 1 $n); do
		"$SCALEBENCH" run "$WORK/c.yaml" --results "$WORK/rc" --commit "c$n" -r 3 \
			--no-monitors -q >"$WORK/out.$n.$i" 2>"$WORK/err.$n.$i" &
		pids+=($!)
		PIDS+=($!)
	done
	bad=0
	for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
	dir=$(ls -d "$WORK"/rc/will-it-scale/*/*/*/*/*/c$n)
	cat "$WORK"/err.$n.* >"$WORK/err.$n"
	grep -h '"failure"' "$dir"/*/meta.json >>"$WORK/err.$n"
	checkv "$n concurrent runners: all exit 0" "$WORK/err.$n" [ $bad -eq 0 ]
	check "$n concurrent runners: runs 0..$((3 * n - 1)), each number once" \
		[ "$(ls "$dir" | grep -vx matrix.json | sort -n | tr '\n' ' ')" = "$(seq -s ' ' 0 $((3 * n - 1))) " ]
	check "$n concurrent runners: every run complete, no temp run" [ -z "$(half_runs "$WORK/rc")" ]
	check "$n concurrent runners: every run ok" bash -c \
		"[ \$(grep -l '\"status\": \"ok\"' $dir/*/meta.json | wc -l) -eq $((3 * n)) ]"
	check "$n concurrent runners: no sanitizer report" bash -c "! grep -q Sanitizer $WORK/err.$n"
done
sb compare --results "$WORK/rc" --commits c2,c4 --json
check "concurrent runners: compare reads them all (6 and 12 runs)" json_true "$WORK/out" \
	"[g['runs'] for g in d['jobs'][0]['groups']] == [6, 12]"

# ---- 3. a monitor whose /proc file vanishes mid-run ---------------------------------------------

# SCALEBENCH_PROCFS re-roots the procfs monitors: meminfo and vmstat are copies the test owns.
# On a tmpfs with strictatime, every read of a file shows in its access time: the test acts
# after the monitor has read meminfo twice (at the window's start and once more), however long
# the run takes to get there on a busy machine.
PROCFS=$WORK/procfs
mkdir "$PROCFS"
mount -t tmpfs -o size=4m,strictatime tmpfs "$PROCFS" && MNT+=("$PROCFS")
# wait_reads N FILE: until FILE has been read N times (30 s at most).
wait_reads() {
	local n=$1 seen=0 last cur
	last=$(stat -c %x "$2")
	for _ in $(seq 1 3000); do
		cur=$(stat -c %x "$2")
		if [ "$cur" != "$last" ]; then
			last=$cur
			seen=$((seen + 1))
			[ $seen -ge "$n" ] && return 0
		fi
		sleep 0.01
	done
	return 1
}
cat >"$WORK/v.yaml" <<YAML
runtime: 3s
warmup: 0
nr_task: 1
will-it-scale: {mode: process, test: getppid1}
meminfo: {interval: 0.2s}
proc-vmstat: {interval: 0.2s}
YAML
# vanish HOW: run with the fixture files, and once the window is under way do HOW to meminfo.
# One measurement (--starved-tries 1): a run measured again because other work starved its
# copy would be measured after the change, not across it.
vanish() {
	local how=$1 pid start
	cp /proc/meminfo /proc/vmstat "$PROCFS/"
	start=$SECONDS
	SCALEBENCH_PROCFS=$PROCFS "$SCALEBENCH" run "$WORK/v.yaml" --results "$WORK/rv" \
		--commit "$how" --starved-tries 1 -q >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	PIDS+=("$pid")
	wait_reads 2 "$PROCFS/meminfo"
	case $how in
	deleted) rm "$PROCFS/meminfo" ;;
	fifo) rm "$PROCFS/meminfo" && mkfifo "$PROCFS/meminfo" ;;
	back) mv "$PROCFS/meminfo" "$PROCFS/meminfo.away" && sleep 0.6 &&
		mv "$PROCFS/meminfo.away" "$PROCFS/meminfo" ;;
	garbage) printf 'this is not\x00meminfo\n' >"$PROCFS/meminfo" ;;
	esac
	rc=0
	timeout 60 tail --pid=$pid -f /dev/null
	wait $pid || rc=$?
	secs=$((SECONDS - start))
	meta=$(ls "$WORK"/rv/*/*/*/*/*/*/"$how"/0/meta.json 2>/dev/null)
	rm -rf "${PROCFS:?}"/*
}
for how in back deleted fifo garbage; do
	vanish $how
	checkv "meminfo $how mid-run: the run is stored, exit 0, within 60 s" "$WORK/err" bash -c \
		"[ $rc -eq 0 ] && [ -n '$meta' ] && [ $secs -lt 60 ] && ! grep -q Sanitizer $WORK/err"
	stats=$(dirname "$meta")/stats.json
	[ -n "${FAULTS_DEBUG:-}" ] && json "$meta" "d['monitors']" && cat "$WORK/err"
	check "meminfo $how mid-run: the run itself is ok, proc-vmstat whole" json_true "$meta" \
		"d['status'] == 'ok' and d['monitors']['proc-vmstat']['status'] == 'ok'"
	[ $how = garbage ] && break
	if [ $how = back ]; then
		check "meminfo gone for a while: still ok, the note counts the failed readings" \
			json_true "$meta" "d['monitors']['meminfo']['status'] == 'ok' and
			'$PROCFS/meminfo' in d['monitors']['meminfo']['note'] and
			'failed, the first' in d['monitors']['meminfo']['note']"
		check "meminfo gone for a while: its stats are in stats.json" json_true "$stats" \
			"d['meminfo.MemTotal'] > 0"
		check "meminfo gone for a while: said on stderr" grep -q 'monitor meminfo: ' "$WORK/err"
		continue
	fi
	check "meminfo $how mid-run: marked incomplete, the note says what and when" \
		json_true "$meta" "d['monitors']['meminfo']['status'] == 'incomplete' and
		'$PROCFS/meminfo' in d['monitors']['meminfo']['note'] and
		__import__('re').search(r's into the 3[.0-9]* s window', d['monitors']['meminfo']['note']) and
		'not provided' not in d['monitors']['meminfo']['note']"
	check "meminfo $how mid-run: its stats before are kept aside in meta.json" json_true "$meta" \
		"d['monitors']['meminfo']['partial_stats']['meminfo.MemTotal'] > 0"
	check "meminfo $how mid-run: none of them in stats.json, proc-vmstat's are" json_true "$stats" \
		"not [k for k in d if k.startswith('meminfo.')] and d['proc-vmstat.pgfault'] >= 0"
	check "meminfo $how mid-run: said once on stderr" bash -c \
		"[ \$(grep -c 'monitor meminfo incomplete: .*partial_stats' $WORK/err) -eq 1 ]"
	check "meminfo $how mid-run: its readings up to then are kept" json_true \
		"$(dirname "$meta")/meminfo.samples.json" "len(d) >= 2"
done
check "meminfo with garbage mid-run: the bad lines are counted in the note" json_true "$meta" \
	"d['monitors']['meminfo']['skipped_lines'] > 0 and 'malformed' in d['monitors']['meminfo']['note']"

# ---- 4. copies that crash, hang, or leave a grandchild behind -------------------------------

mkdir -p "$WORK/include/scalebench"
cp testcases/testcase.h "$WORK/include/scalebench/"
cat >"$WORK/faulty.c" <<'C'
#define _GNU_SOURCE
#include <scalebench/testcase.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

static int segv_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	for (int i = 0; i < 1000; i++)
		(*iterations)++;
	usleep(300000);
	raise(SIGSEGV);
	return 0;
}

/* Hangs at once (counting first could spill into the window on a busy machine). */
static int hang_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	(void)iterations;
	for (;;)
		pause();
	return 0;
}

/* A grandchild that ignores SIGTERM, named so the test can find it; with leave, it also
 * leaves the copies' process group and session, as a daemon would. */
static void grandchild(int leave)
{
	pid_t pid = fork();

	if (pid != 0)
		return;
	if (leave)
		setsid();
	/* Proof that it was born: the test checks it is gone, not that it never was. */
	if (getenv("SBFAULT_BORN"))
		close(open(getenv("SBFAULT_BORN"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	prctl(PR_SET_NAME, getenv("SBFAULT_MARK") ? getenv("SBFAULT_MARK") : "sbf-unnamed");
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (;;)
		pause();
}

static int fork_ignore_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	grandchild(0);
	for (;;)
		(*iterations)++;
	return 0;
}

static int fork_escape_run(struct tc_copy *copy, volatile uint64_t *iterations)
{
	(void)copy;
	grandchild(1);
	for (;;)
		(*iterations)++;
	return 0;
}

static const struct testcase tc_segv = {
	.name = "segv", .description = "segfaults", .suite = "plugin", .run = segv_run,
};
static const struct testcase tc_hang = {
	.name = "hang", .description = "stops counting", .suite = "plugin", .run = hang_run,
};
static const struct testcase tc_fork_ignore = {
	.name = "fork_ignore", .description = "a grandchild ignoring SIGTERM", .suite = "plugin",
	.run = fork_ignore_run,
};
static const struct testcase tc_fork_escape = {
	.name = "fork_escape", .description = "a daemonized grandchild ignoring SIGTERM",
	.suite = "plugin", .run = fork_escape_run,
};
SCALEBENCH_PLUGIN(&tc_segv, &tc_hang, &tc_fork_ignore, &tc_fork_escape);
C
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$WORK/include" -shared -fPIC -o "$WORK/faulty.so" \
	"$WORK/faulty.c" 2>"$WORK/cc.err"
check "fault plug-in builds" [ -f "$WORK/faulty.so" ]

# fault_run TEST MODE [RUNTIME]: one run of the faulty testcase into $WORK/rf (after a 0.5 s
# warmup, a RUNTIME window, 0.25s unless given); $rc, $secs, $run set.
fault_run() {
	local t=$1 mode=$2 runtime=${3:-0.25s} start=$SECONDS
	rm -f "$WORK/born"
	getppid_job "$WORK/f.yaml" "warmup: 0.5s" "runtime: $runtime" \
		"will-it-scale: {mode: $mode, test: $t}"
	rc=0
	# A SIGSEGV is the testcase's own: ASan's handler would turn it into an exit status.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 \
		SBFAULT_MARK=$MARK SBFAULT_BORN=$WORK/born \
		timeout -s KILL 60 "$SCALEBENCH" run "$WORK/f.yaml" \
		--plugin "$WORK/faulty.so" --results "$WORK/rf" --commit c --no-monitors \
		--tmpdir "$WORK/tmp" -q >"$WORK/out" 2>"$WORK/err" || rc=$?
	secs=$((SECONDS - start))
	run=$(ls -d "$WORK"/rf/*/"$mode-1-$runtime-$t"/*/*/*/*/c/0 2>/dev/null)
}
mkdir -p "$WORK/tmp"
for mode in process thread; do
	# (segv raises its signal 0.3 s after it starts: a 1 s window after the warmup leaves a
	# busy machine the time to get there before the window ends.)
	fault_run segv $mode 1s
	check "segv ($mode): exit 1 within 30 s, stored as failed" bash -c \
		"[ $rc -eq 1 ] && [ $secs -le 30 ] && [ -n '$run' ]"
	check "segv ($mode): the failure names signal 11" json_true "$run/meta.json" \
		"d['status'] == 'failed' and 'signal 11' in d['failure'] and d['failure_stats']"
	fault_run hang $mode
	check "hang ($mode): exit 1 within 30 s, stored as failed" bash -c \
		"[ $rc -eq 1 ] && [ $secs -le 30 ] && [ -n '$run' ]"
	check "hang ($mode): the failure says no progress" json_true "$run/meta.json" \
		"d['status'] == 'failed' and 'no progress' in d['failure']"
	fault_run fork_ignore $mode
	check "fork_ignore ($mode): stored within 30 s" bash -c \
		"[ $rc -eq 0 ] && [ $secs -le 30 ] && [ -n '$run' ]"
	check "fork_ignore ($mode): the grandchild was born, and is gone" bash -c \
		"[ -e $WORK/born ] && ! pgrep -x $MARK >/dev/null"
	pkill -KILL -x "$MARK"
done
# A grandchild that left the group and ignores SIGTERM is killed after the grace (5 s).
fault_run fork_escape process
check "fork_escape: stored within 30 s" bash -c "[ $rc -eq 0 ] && [ $secs -le 30 ] && [ -n '$run' ]"
check "fork_escape: the grandchild was born, and is gone" bash -c \
	"[ -e $WORK/born ] && ! pgrep -x $MARK >/dev/null"
pkill -KILL -x "$MARK"
check "faulty copies: no temp files left" [ -z "$(ls -A "$WORK/tmp")" ]
check "faulty copies: no half runs" [ -z "$(half_runs "$WORK/rf")" ]
fault_run fork_ignore process
check "after the faulty copies, the next run on the tree works" bash -c \
	"[ $rc -eq 0 ] && [ -s $WORK/rf/plugin/process-1-0.25s-fork_ignore/*/*/*/*/c/1/stats.json ]"
