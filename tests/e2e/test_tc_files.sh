#!/bin/bash
# The file testcases (group "files"): what they leave behind, however the run ends; the
# O_DIRECT skip; and that each loop does what its name says.
set -u
. "$(dirname "$0")/../lib.sh"
# The JSON checks (json_later, per_op) print at the end, all from one python start.

# "Leaves nothing" and "gone" are waited for (wait_until): the run directory's janitor removes
# it just after the copy host dies, which may be just after scalebench exits.

empty() {
	[ -z "$(ls -A "$1")" ]
}

# ---- by-name testcases: a run directory that a janitor removes ---------------------------

# A normal end: nothing left in --tmpdir, and no janitor either.
for spec in "open1 process" "open2 thread" "open3 process" "unlink1 thread" "unlink2 process"; do
	set -- $spec
	tmp="$WORK/tmp-$1-$2"
	mkdir "$tmp"
	sb bench $1 -m $2 -t 2 -s 0.5 -w 0 --interval 0.25 -q --tmpdir "$tmp" --json "$WORK/$1.json"
	json_later "$1 $2: runs at 2 copies" "$WORK/$1.json" \
		"[r['status'] for r in d['runs']] == ['ok'] and min(d['runs'][0]['per_copy_ops']) > 0"
	check "$1 $2: leaves nothing in --tmpdir" wait_until 2 empty "$tmp"
	check "$1 $2: its janitor is gone" wait_until 2 no_procs "--tmpdir $tmp"
done

# The names the loop uses exist during the run (so "nothing left" above means removed, not
# never made), and are gone after SIGINT or SIGKILL of scalebench.
# stop_mid_run TESTCASE MODE SIG GLOB...: every GLOB (under the run directory) exists mid-run.
stop_mid_run() {
	local t=$1 mode=$2 sig=$3 pid rc=0 name="$1 $2 SIG$3"
	local tmp="$WORK/stop-$t-$mode"
	shift 3
	mkdir "$tmp"
	"$SCALEBENCH" bench $t -m $mode -t 2 -s 60 -w 0 --interval 0.25 --tmpdir "$tmp" \
		>"$WORK/stop.out" 2>&1 &
	pid=$!
	for g in "$@"; do
		check "$name: $g exists mid-run" wait_until 10 bash -c "ls -d $tmp/scalebench-$t.*/$g >/dev/null 2>&1"
	done
	# Stopped in the loop: once an interval's line says the slowest copy made progress.
	wait_until 30 grep -q '^min:[1-9]' "$WORK/stop.out"
	kill -$sig $pid
	wait $pid 2>/dev/null || rc=$?
	check "$name: exit status $((128 + $(kill -l $sig)))" [ $rc -eq $((128 + $(kill -l $sig))) ]
	check "$name: --tmpdir empty within 2 s" wait_until 2 empty "$tmp"
	check "$name: no process left" wait_until 2 no_procs "--tmpdir $tmp"
}

stop_mid_run open2 process INT copy0/file copy1/file
stop_mid_run open1 thread KILL copy0 copy1
stop_mid_run open3 process KILL shared
stop_mid_run unlink1 process KILL .
stop_mid_run unlink2 thread INT copy0 copy1

# ---- O_DIRECT ----------------------------------------------------------------------------

# A filesystem without O_DIRECT: ramfs (tmpfs has had it since Linux 6.6).
nodirect=""
if mkdir "$WORK/ramfs" && mount -t ramfs ramfs "$WORK/ramfs" 2>/dev/null; then
	nodirect="$WORK/ramfs"
fi
if [ -n "$nodirect" ]; then
	# read3 finds out in each copy's prepare, read4 once in global_prepare.
	for t in read3 read4; do
		sb bench $t -m both -t 1 -s 0.25 -w 0 --interval 0.25 -q --tmpdir "$nodirect" \
			--json "$WORK/$t-skip.json"
		check "$t without O_DIRECT: exit 0" [ $rc -eq 0 ]
		json_later "$t without O_DIRECT: every run skipped" "$WORK/$t-skip.json" \
			"[r['status'] for r in d['runs']] == ['skipped', 'skipped'] and d['status'] == 'ok'"
		json_later "$t without O_DIRECT: the reason names O_DIRECT and the directory" \
			"$WORK/$t-skip.json" \
			"all('O_DIRECT not supported on $nodirect' in r['failure'] for r in d['runs'])"
		check "$t without O_DIRECT: says so on stderr" err_has "$t: skipped: O_DIRECT not supported"
		check "$t without O_DIRECT: leaves nothing" empty "$nodirect"
	done
	umount "$WORK/ramfs"
else
	echo "     (no ramfs mount: O_DIRECT skip not checked)"
fi

# On a block filesystem an O_DIRECT read waits for the device: the copy sleeps, one context switch per
# read, where a page-cache read has none.  Half a second is hundreds of reads even on a busy
# machine (the ratio is over the copy's own reads).
fstype=$(stat -f -c %T "$WORK")
sb bench read3 -m process -t 1 -s 0.5 -w 0.25 --interval 0.25 -q --tmpdir "$WORK" \
	--json "$WORK/read3.json"
if [ "$fstype" != tmpfs ] && json_true "$WORK/read3.json" "d['runs'][0]['status'] == 'ok'"; then
	per_op_json "read3 on $fstype: O_DIRECT reads sleep on the device" "$WORK/read3.json" \
		"cs >= 0.3"
else
	json_later "read3 on $fstype: runs or skips naming O_DIRECT" "$WORK/read3.json" \
		"d['runs'][0]['status'] == 'ok' or 'O_DIRECT' in d['runs'][0]['failure']"
fi

# ---- what the loops do -------------------------------------------------------------------

# read1 reads the page cache through read(): no page faults (tens of thousands of reads in
# the half second; the loop itself faults none once warm).
per_op "read1: no page faults per read" "$WORK/read1.json" "pf < 0.001" read1 -t 1 -s 0.5 \
	-w 0.25 --interval 0.25 -q

# Lock and unlock count one op each, as in will-it-scale: every copy's count moves by pairs.
for t in lock1 lock2; do
	sb bench $t -m both -t 2 -s 0.5 -w 0 --interval 0.25 -q --json "$WORK/$t.json"
	json_later "$t: process and thread mode ok at 2 copies" "$WORK/$t.json" \
		"[(r['mode'], r['status']) for r in d['runs']] == [('process', 'ok'), ('thread', 'ok')] and all(min(r['per_copy_ops']) > 0 for r in d['runs'])"
	json_later "$t: ops counted in lock+unlock pairs" "$WORK/$t.json" \
		"all(x % 2 == 0 for r in d['runs'] for s in r['samples'] for x in s['deltas'])"
done

# open_fds TMPDIR NAME: the /proc/PID/fd/N links to the open (deleted) files called
# scalebench-NAME.* of every process of the run using TMPDIR.
open_fds() {
	local pid fd
	for pid in $(pgrep -f -- "--tmpdir $1"); do
		for fd in /proc/$pid/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in
			*"/scalebench-$2."*) echo "$fd" ;;
			esac
		done
	done
}

# open_sizes TMPDIR NAME: the sizes of those files.
open_sizes() {
	local fd
	for fd in $(open_fds "$1" "$2"); do stat -L -c %s "$fd" 2>/dev/null; done | sort -u
}

# open_pos TMPDIR NAME: their file offsets.
open_pos() {
	local fd
	for fd in $(open_fds "$1" "$2"); do
		awk '$1 == "pos:" { print $2 }' "${fd%/fd/*}/fdinfo/${fd##*/}" 2>/dev/null
	done
}

# second_lap_wrapped TMPDIR: write1's file has reached 1 MiB (the first lap is done) and its
# offset has since gone back (below one seen after that): a later lap is done too.
w1_after=""
second_lap_wrapped() {
	local size pos
	size=$(open_sizes "$1" file)
	pos=$(open_pos "$1" file)
	[ -n "$pos" ] && [ "${size:-0}" -ge 1048576 ] 2>/dev/null || return 1
	if [ -z "$w1_after" ] || [ "$pos" -ge 1048576 ]; then
		[ "$pos" -lt 1048576 ] && w1_after=$pos
		return 1
	fi
	[ "$pos" -lt "$w1_after" ] || { w1_after=$pos; return 1; }
}

# write1 wraps at 1 MiB: its file is exactly 1 MiB once the first lap is done, and stays so
# through the next.
mkdir "$WORK/w1"
"$SCALEBENCH" bench write1 -t 1 -s 60 -w 0 -q --tmpdir "$WORK/w1" >/dev/null 2>&1 &
pid=$!
wait_until 30 second_lap_wrapped "$WORK/w1"
sizes=$(open_sizes "$WORK/w1" file)
kill -INT $pid
wait $pid
check "write1: the file stays at 1 MiB (saw: ${sizes:-none})" [ "$sizes" = 1048576 ]

# copy_opened_shared TMPDIR: a process of the run has two fds of pread3's shared file (the
# host's, inherited, and its own).
copy_opened_shared() {
	local pid fd n
	for pid in $(pgrep -f -- "--tmpdir $1"); do
		n=0
		for fd in /proc/$pid/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in *"/scalebench-shared."*) n=$((n + 1)) ;; esac
		done
		[ $n -ge 2 ] && return 0
	done
	return 1
}

# pread3's shared file holds one page per copy, each copy reading its own.
mkdir "$WORK/p3"
"$SCALEBENCH" bench pread3 -t 2 -s 60 -w 0 -q --tmpdir "$WORK/p3" >/dev/null 2>&1 &
pid=$!
# Read once a copy holds its own fd of the file: the host filled it before forking them.
wait_until 30 copy_opened_shared "$WORK/p3"
sizes=$(open_sizes "$WORK/p3" shared)
kill -INT $pid
wait $pid
check "pread3: the shared file is one page per copy (saw: ${sizes:-none})" \
	[ "$sizes" = $((2 * $(getconf PAGESIZE))) ]
