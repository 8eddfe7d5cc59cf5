#!/bin/bash
# serial: a TCG guest keeps host CPUs busy while it runs (it took CPUs from the tests beside it
# that measure); at nice 19 beside them it starved instead (at -j 3 no console line in 120 s)
# run --kernel BZIMAGE: a job run in a QEMU guest booting that kernel (KVM where it works, else TCG),
# this machine's / shared read-only, over the guest's own sshd.  The kernel is Debian's generic
# one that make setup unpacks (its 9p and virtio drivers are modules: they load from the
# initramfs run --kernel makes).  A run comes back whole and says what the VM was; a kernel that
# panics, one that never answers and a SIGTERM mid-run each end with the console's tail or exit
# 143, and nothing is left behind: no QEMU, no private directory.
set -u
. "$(dirname "$0")/../lib.sh"

KDIR=$(ls -d /var/cache/scalebench/kernel/linux-image-*/ 2>/dev/null | head -1)
KERNEL=$(ls "$KDIR"boot/vmlinuz-* 2>/dev/null | head -1)
if [ -z "$KERNEL" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	fail "premise: make setup unpacked Debian's kernel and installed QEMU" \
		"kernel: ${KERNEL:-none in /var/cache/scalebench/kernel}"
	exit 0
fi
RELEASE=${KERNEL##*/vmlinuz-}
MODULES=$KDIR/lib/modules/$RELEASE
# The guest's private directories go under a TMPDIR of this test's own: what another test
# leaves in /tmp is not counted as ours.
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
VMV=(--kernel "$KERNEL" --vm-modules "$MODULES" --no-monitors)
VM=("${VMV[@]}" -q)
getppid_job "$WORK/job.yaml" "runtime: 1s" "interval: 0.5s"
R=$WORK/r

nothing_left() { # [TMPDIR]: nothing in that TMPDIR (default ours), none of its QEMUs running
	local t=${1:-$TMPDIR}
	[ -z "$(ls -A "$t")" ] && no_procs "qemu-system-x86_64 .*$t/scalebench-vm"
}

# Bad input: exit 2, nothing started.
sb run "$WORK/job.yaml" --results "$R" --kernel /etc/passwd
check "--kernel that is not a bzImage: exit 2, says so" bash -c \
	"[ $rc = 2 ] && grep -q \"'/etc/passwd': not a bzImage\" '$WORK/err'"
sb run "$WORK/job.yaml" --results "$R" --vm-cpus 2
check "--vm-cpus without --kernel: exit 2" bash -c "[ $rc = 2 ] && grep -q 'go with --kernel' '$WORK/err'"
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-cpus 2 --vm-max-cpus 1
check "--vm-max-cpus below --vm-cpus: exit 2" bash -c "[ $rc = 2 ] && grep -q 'at least --vm-cpus' '$WORK/err'"
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --target ssh://localhost
check "--kernel with --target: exit 2" bash -c "[ $rc = 2 ] && grep -q 'the guest is the target' '$WORK/err'"
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-append "$(printf 'a\nb')"
check "--vm-append with a newline: exit 2" bash -c "[ $rc = 2 ] && grep -q 'printable ASCII' '$WORK/err'"
sb bisect --kernel-tree --prepare make --good a --bad b --job "$WORK/job.yaml" --stat x
check "bisect --kernel-tree with --prepare: exit 2, the build is its prepare step" bash -c \
	"[ $rc = 2 ] && grep -q -- '--kernel-tree and --prepare' '$WORK/err'"
sb bisect --vm-max-cpus 8 --prepare make --good a --bad b --job "$WORK/job.yaml" --stat x
check "bisect --vm-max-cpus without --kernel-tree: exit 2" bash -c \
	"[ $rc = 2 ] && grep -q -- '--vm-max-cpus needs --kernel-tree' '$WORK/err'"
sb bisect --qemu-arg -name --prepare make --good a --bad b --job "$WORK/job.yaml" --stat x
check "bisect --qemu-arg without --kernel-tree: exit 2" bash -c \
	"[ $rc = 2 ] && grep -q -- '--qemu-arg needs --kernel-tree' '$WORK/err'"
# Whether KVM works here, asked as run's auto does: QEMU under KVM reaching a stopped machine.
# Machines of this kind have had no /dev/kvm, or one that QEMU aborts on ("failed to set MSR
# 0x10a"): opening it is not enough.
kvm_works() {
	[ -w /dev/kvm ] && printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"quit"}' |
		timeout 20 qemu-system-x86_64 -accel kvm -cpu host -nodefaults -display none \
			-no-reboot -S -qmp stdio >/dev/null 2>&1
}
if kvm_works; then ACCEL=kvm; else ACCEL=tcg; fi
SHAPE=vm-$ACCEL-1cpu-2max-1024M
if [ $ACCEL = kvm ]; then
	echo "     KVM works here"
elif [ -e /dev/kvm ]; then
	echo "     KVM does not work here, though /dev/kvm is here"
else
	echo "     KVM does not work here: no /dev/kvm"
fi
# --vm-accel kvm where KVM does not work: QEMU's own refusal (or abort), exit 2 (not a guest
# that did not come up), at once; auto falls back to TCG (the run below).
if [ $ACCEL = tcg ]; then
	sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-accel kvm
	check "--vm-accel kvm where KVM does not work: exit 2 with QEMU's words" bash -c \
		"[ $rc = 2 ] && grep -qi 'kvm' '$WORK/err' && grep -q 'QEMU ended' '$WORK/err'" ||
		echo "     $(head -3 "$WORK/err")"
fi
sb bisect --kernel-tree --vm-append "$(printf 'a\nb')" --good a --bad b --job "$WORK/job.yaml" --stat x
check "bisect --kernel-tree --vm-append with a newline: exit 2 before any build" bash -c \
	"[ $rc = 2 ] && grep -q 'printable ASCII' '$WORK/err'"
no_results() { ! find "$R" -name stats.json 2>/dev/null | grep -q .; }
check "bad input: nothing started" nothing_left
check "bad input: nothing stored" no_results

# SIGTERM while the guest runs the job (below): its guest boots now, beside the cases that
# follow, under a TMPDIR and a results root of its own.
TERM_TMP=$WORK/tmp.term
RT=$WORK/r.term
mkdir -p "$TERM_TMP"
getppid_job "$WORK/long.yaml" "runtime: 600s"
TMPDIR=$TERM_TMP "$SCALEBENCH" run "$WORK/long.yaml" --results "$RT" --commit term "${VMV[@]}" \
	>"$WORK/out.term" 2>"$WORK/err.term" &
term_pid=$!
# Ended with this test however it ends (lib.sh's own exit trap kept).
trap 'kill -TERM $term_pid 2>/dev/null; json_later_run; work_remove' EXIT

# A run in the guest: stored under the VM's shape, the guest's release as the commit.
start=$SECONDS
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-max-cpus 2 --vm-memory 1024
echo "     run in the guest: $((SECONDS - start)) s"
run_dir=$(find "$R" -name meta.json -path "*/$SHAPE/*/$RELEASE/0/*" -printf '%h\n')
check "a run in the guest: exit 0, stored under the VM's shape and the guest's release" \
	bash -c "[ $rc = 0 ] && [ -n '$run_dir' ] && [ -s '$run_dir/stats.json' ]" ||
	echo "     $(cat "$WORK/err")"
json_checks "${run_dir:-/nonexistent}/meta.json" <<EOF
meta.json: vm: $ACCEL (auto), not icount, 1 CPU online of 2 possible, 1024 MiB	d['vm']['accelerator'] == '$ACCEL' and d['vm']['icount'] is False and d['vm']['cpus_online'] == '0' and d['vm']['cpus_possible'] == '0-1' and d['vm']['memory_mib'] == 1024
meta.json: vm: the QEMU command and the kernel command line	d['vm']['qemu'][0] == 'qemu-system-x86_64' and '-kernel' in d['vm']['qemu'] and d['vm']['guest_cmdline'].startswith('console=ttyS0')
meta.json: the machine is the guest: its hostname, its kernel	d['machine']['hostname'] == '$SHAPE' and d['machine']['kernel'] == d['vm']['kernel_release']
meta.json: vm: why not KVM, said when not	('kvm_unusable' in d['vm']) == ('$ACCEL' == 'tcg')
EOF
# /dev/kvm there and KVM failing (seen on this machine kind): TCG, and a line saying why.
if [ $ACCEL = tcg ] && [ -e /dev/kvm ]; then
	check "/dev/kvm here, KVM not working: the run says so and runs under TCG" \
		grep -q '/dev/kvm is here but KVM does not work (.*): the guest runs under TCG' "$WORK/err"
fi
json_checks "${run_dir:-/nonexistent}/stats.json" <<'EOF'
stats.json: the guest's getppid1 made ops	d['will-it-scale.per_process_ops'] > 0
EOF
check "a run in the guest: no QEMU, no private directory left" nothing_left

# A kernel that panics (no init in its initramfs): exit 3 with the console's tail, at once;
# --vm-console keeps the whole console.
start=$SECONDS
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-append "rdinit=/nonexistent" --boot-timeout 120 \
	--vm-console "$WORK/panic.console"
check "a kernel that panics: exit 3, said with the console's last lines" bash -c \
	"[ $rc = 3 ] && grep -q 'the guest stopped before it answered ssh' '$WORK/err' && grep -q '  | .*Kernel panic' '$WORK/err'" ||
	echo "     $(tail -5 "$WORK/err")"
check "a kernel that panics: reported before the boot timeout" [ $((SECONDS - start)) -lt 100 ]
check "a kernel that panics: --vm-console kept the console" grep -q "Kernel panic" "$WORK/panic.console"
check "a kernel that panics: nothing left" nothing_left

# A guest that never answers (its init sleeps instead of starting sshd): exit 3 at
# --boot-timeout.
start=$SECONDS
sb run "$WORK/job.yaml" --results "$R" "${VM[@]}" --vm-append "rdinit=/bin/busybox sleep 600" \
	--boot-timeout 8
check "a guest that never answers: exit 3 after --boot-timeout, with the console" bash -c \
	"[ $rc = 3 ] && grep -q 'did not answer ssh within 8 s (--boot-timeout)' '$WORK/err' && grep -q '  | ' '$WORK/err'"
check "a guest that never answers: given up within a few seconds of the timeout" \
	[ $((SECONDS - start)) -lt 30 ]
check "a guest that never answers: QEMU ended, nothing left" nothing_left

# SIGTERM while the guest runs the job: exit 143, nothing of the run stored, the guest ended.
wait_until 180 grep -q 'run 1/1' "$WORK/out.term"
check "premise: the SIGTERM case's guest runs the job" grep -q 'run 1/1' "$WORK/out.term" ||
	echo "     $(tail -3 "$WORK/err.term")"
kill -TERM $term_pid
rc=0
wait $term_pid || rc=$?
check "SIGTERM mid-run: exit 143" [ $rc = 143 ] || echo "     $(tail -3 "$WORK/err.term")"
check "SIGTERM mid-run: nothing of the run stored" bash -c "! find '$RT' -path '*/term/*' | grep -q ."
check "SIGTERM mid-run: QEMU ended, nothing left" nothing_left "$TERM_TMP"
pgrep -f "qemu-system-x86_64 .*$TERM_TMP/scalebench-vm" | xargs -r kill -KILL # only when a check failed
pgrep -f "qemu-system-x86_64 .*$TMPDIR/scalebench-vm" | xargs -r kill -KILL # only when a check failed
