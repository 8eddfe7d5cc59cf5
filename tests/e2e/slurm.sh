# Sourced by the e2e tests and benchmarks that need a Slurm cluster: a one-node cluster on this
# host, as root -- munged with a key made for the test, slurmctld and slurmd from Debian's
# slurm-wlm with a generated slurm.conf, every state, spool, log and socket file under one temp
# directory -- stopped by pid when the test ends.  Not a test itself (tests/run.sh runs
# test_*.sh only).
#
#   . "$(dirname "$0")/slurm.sh"
#   slurm_start [SLURM.CONF-LINE...] || exit 0
#       sets SL (the cluster's directory), SLURM_CONF (exported: every Slurm command and
#       scalebench's children use this cluster), SLURM_NODE (the node's name)
#   trap slurm_stop EXIT    # also removes $WORK
#
# The node is this host with its CPUs and 90% of its memory (a node reporting less memory
# than slurm.conf says is drained), feature "sbtest".  ProctrackType=proctrack/linuxproc and
# TaskPlugin=task/none: no cgroups, no CPU binding.  SchedulerParameters batch_sched_delay=0
# and sched_min_interval=0 (Slurm's defaults wait 3 s before starting each array task on a
# freed node); KillWait=5 (scancel's SIGTERM to SIGKILL); completed jobs stay in slurmctld's
# memory for 10 minutes (MinJobAge) for scontrol.  No accounting (sacct says it is disabled).

slurm_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

slurm_start() {
	local cmd
	for cmd in munged slurmctld slurmd sbatch squeue scontrol scancel; do
		if ! command -v "$cmd" >/dev/null && [ ! -x "/usr/sbin/$cmd" ]; then
			# CI installs them through scripts/setup.sh (slurm-wlm, munge).
			fail "slurm: needs $cmd (apt-get install slurm-wlm munge)"
			return 1
		fi
	done
	if [ "$(id -u)" -ne 0 ]; then
		fail "slurm: the one-node cluster needs root (SlurmUser=root)"
		return 1
	fi
	SL="$WORK/slurm"
	mkdir -p "$SL/munge" "$SL/state" "$SL/spool"
	chmod 700 "$SL/state" "$SL/spool"
	# munged refuses a key others can read, and a socket directory others cannot enter.
	chmod 755 "$SL" "$SL/munge"
	head -c 1024 /dev/urandom >"$SL/munge/munge.key"
	chmod 600 "$SL/munge/munge.key"
	/usr/sbin/munged -F --force --socket="$SL/munge/socket" --key-file="$SL/munge/munge.key" \
		--pid-file="$SL/munge/munged.pid" --log-file="$SL/munge/munged.log" \
		--seed-file="$SL/munge/munged.seed" 2>"$SL/munge/munged.err" &
	MUNGED_PID=$!
	for _ in $(seq 1 50); do
		[ -S "$SL/munge/socket" ] && break
		sleep 0.1
	done

	SLURM_NODE=$(hostname -s)
	local ctld_port d_port hw mem
	ctld_port=$(slurm_free_port)
	d_port=$(slurm_free_port)
	while [ "$d_port" = "$ctld_port" ]; do d_port=$(slurm_free_port); done
	# "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1
	# RealMemory=24105": the hardware words, memory lowered.
	hw=$(/usr/sbin/slurmd -C | head -1 | cut -d' ' -f2- | sed 's/ *RealMemory=[0-9]*//')
	mem=$(/usr/sbin/slurmd -C | head -1 | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
	mem=$((${mem:-1000} * 9 / 10))
	cat >"$SL/slurm.conf" <<CONF
ClusterName=sbtest
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge/socket
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/slurmctld.log
SlurmdLogFile=$SL/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
KillWait=5
MinJobAge=600
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$SLURM_NODE NodeAddr=127.0.0.1 $hw RealMemory=$mem Features=sbtest State=UNKNOWN
PartitionName=sbtest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
	local line
	for line in "$@"; do # the caller's own slurm.conf lines
		echo "$line" >>"$SL/slurm.conf"
	done
	export SLURM_CONF="$SL/slurm.conf"
	/usr/sbin/slurmctld -D -f "$SLURM_CONF" >"$SL/slurmctld.out" 2>&1 &
	SLURMCTLD_PID=$!
	/usr/sbin/slurmd -D -f "$SLURM_CONF" >"$SL/slurmd.out" 2>&1 &
	SLURMD_PID=$!
	local up=
	for _ in $(seq 1 150); do
		if sinfo -h -N -o '%T' 2>/dev/null | grep -qx 'idle'; then
			up=1
			break
		fi
		sleep 0.2
	done
	if [ -z "$up" ]; then
		fail "slurm: the one-node cluster did not come up in 30 s" \
			"$(tail -5 "$SL/slurmctld.log" "$SL/slurmd.log" "$SL/munge/munged.err" 2>&1)"
		return 1
	fi
	pass "slurm: one-node cluster up ($SLURM_NODE, slurmctld $SLURMCTLD_PID, slurmd $SLURMD_PID)"
}

# Every job cancelled and gone (bounded), then the daemons by pid; the job steps' processes
# (slurmstepd re-parents to init) are found by their cluster's spool directory.
slurm_stop() {
	if [ -n "${SLURMCTLD_PID:-}" ]; then
		scancel --full --signal=KILL -u root >/dev/null 2>&1
		for _ in $(seq 1 50); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.2
		done
		kill "$SLURMD_PID" "$SLURMCTLD_PID" 2>/dev/null
		wait "$SLURMD_PID" "$SLURMCTLD_PID" 2>/dev/null
	fi
	local pid
	for pid in $(pgrep -x slurmstepd 2>/dev/null); do
		if { tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "SLURM_CONF=$SL/slurm.conf" ||
			grep -qF "$SL/" "/proc/$pid/cmdline"; } 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	if [ -n "${MUNGED_PID:-}" ]; then
		kill "$MUNGED_PID" 2>/dev/null
		wait "$MUNGED_PID" 2>/dev/null
	fi
	if declare -F work_remove >/dev/null; then work_remove; else rm -rf "$WORK"; fi
}
