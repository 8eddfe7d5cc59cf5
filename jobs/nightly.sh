#!/bin/bash
# The nightly loop, start to end: a kernel branch's new head is built and installed (or not),
# the machine rebooted into it (or not), the jobs run with the commit as their label, and
# `scalebench nightly` mails each new change once.  Run it from a systemd timer or cron (the
# README, "scalebench nightly", has both); it is safe to run again at any time: a commit
# job already measured at a commit is not run again, and a change already mailed is not
# mailed again.
#
#   KERNEL=/src/linux BRANCH=mm-unstable TO=linux-mm@example.org jobs/nightly.sh
#
# Every setting has a default; change them here or in the environment.
set -euo pipefail

KERNEL=${KERNEL:-/src/linux}                   # the kernel tree (a git clone)
REMOTE=${REMOTE:-origin}                       # where the branch comes from
BRANCH=${BRANCH:-master}                       # the branch watched
RESULTS=${RESULTS:-/var/lib/scalebench/results} # the results tree (kept between nights)
JOBS=${JOBS:-"page_fault3 fallocate1 exec1"}    # shipped job names or job files
TO=${TO:-}                                     # the list mailed; empty: each culprit's author
FROM=${FROM:-"scalebench robot <scalebench@$(hostname -f 2>/dev/null || hostname)>"}
MAIL=${MAIL:---mbox /var/mail/scalebench}      # or --sendmail to hand the mail to the MTA
BUILD_KERNEL=${BUILD_KERNEL:-1}                # 0: measure the running kernel, build nothing
REBOOT=${REBOOT:-1}                            # 0: install only (a VM booted from outside)
SCALEBENCH=${SCALEBENCH:-scalebench}
RUN_ARGS=${RUN_ARGS:-}                         # more options for each run (--plugin FILE.so)

# 1. The branch's new head.  Measuring the running kernel (BUILD_KERNEL=0) labels the runs
#    with what is running instead: uname -r, or a commit the caller knows.
git -C "$KERNEL" fetch --quiet "$REMOTE" "$BRANCH"
COMMIT=$(git -C "$KERNEL" rev-parse FETCH_HEAD)

# 2. Build and install it, and boot into it: the runs must measure the commit they are
#    labelled with.  After the reboot this script runs again (the timer, or a boot unit) and
#    finds the kernel it built running: `uname -v` holds the build's version string, which
#    ends in the commit (CONFIG_LOCALVERSION_AUTO, "-g<sha12>", in `uname -r`).
if [ "$BUILD_KERNEL" = 1 ]; then
	if ! uname -r | grep -q -- "-g${COMMIT:0:12}"; then
		git -C "$KERNEL" checkout --quiet --detach "$COMMIT"
		make -C "$KERNEL" olddefconfig >/dev/null
		make -C "$KERNEL" -j"$(nproc)" >/dev/null
		make -C "$KERNEL" modules_install install >/dev/null
		if [ "$REBOOT" = 1 ]; then
			systemctl reboot
			exit 0
		fi
		echo "nightly: $COMMIT installed; boot it, then run this again" >&2
		exit 0
	fi
else
	COMMIT=${COMMIT_LABEL:-$(uname -r)}
fi

# 3. Run the jobs at this commit, RUNS runs each at RUNTIME per run (one run is one sample:
#    change points and the previous-commit comparison need a few).  The default night, the
#    3 shipped jobs (6 atomic jobs each: 1 copy, half and all CPUs, process and thread) x 3
#    runs x 30 s + 1 s warmup, is 28 minutes of windows: under an hour on a 2-CPU machine
#    with setup and monitors (the jobs' own 300 s would make it 4.5 hours).
#    Each job is skipped when every one of its commit directories already has a run (the
#    branch did not move, or this night ran it before it was interrupted): `run` would add
#    runs to the same commit.  A job the night did not finish is run again whole.  A failed
#    run is stored as one and left out of the series; the loop goes on.
RUNS=${RUNS:-3}
RUNTIME=${RUNTIME:-30s}
read -r -a run_args <<<"$RUN_ARGS" # split at spaces: options without spaces in them
for job in $JOBS; do
	# The job's commit directories, as its dry run names them ("... -> DIR/"); none (a job
	# that does not parse): run it, and let run say what is wrong.
	dirs=0 measured=0
	while IFS= read -r dir; do
		dirs=$((dirs + 1))
		compgen -G "$dir/*/meta.json" >/dev/null && measured=$((measured + 1))
	done < <("$SCALEBENCH" run "$job" --results "$RESULTS" --commit "$COMMIT" \
		--runtime "$RUNTIME" "${run_args[@]}" --dry-run 2>/dev/null | sed -n 's|.* -> \(.*\)/$|\1|p')
	if [ "$dirs" -gt 0 ] && [ "$measured" = "$dirs" ]; then
		echo "nightly: $job: measured at $COMMIT already" >&2
		continue
	fi
	"$SCALEBENCH" run "$job" --results "$RESULTS" --commit "$COMMIT" -r "$RUNS" \
		--runtime "$RUNTIME" --interleave --quiet "${run_args[@]}" || true
done

# 4. Mail what changed: one email per culprit commit, each change once (the state is
#    $RESULTS/.scalebench-nightly.json).  With --repo the series follow the branch's
#    first-parent history, the order the commits were made in, not the order they ran in.
#    Exit status: 0 nothing new, 1 something mailed, 2 error (a timer marks the unit failed).
#    Labels that are not the branch's commits (BUILD_KERNEL=0) are series in time order.
args=(--results "$RESULTS" --from "$FROM")
[ -n "$TO" ] && args+=(--to "$TO")
# A label that is a commit of the tree (COMMIT_LABEL=$(git rev-parse HEAD) with BUILD_KERNEL=0)
# is ordered and named by it too.
if [ "$BUILD_KERNEL" = 1 ] || git -C "$KERNEL" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
	args+=(--repo "$KERNEL" --branch "$REMOTE/$BRANCH")
fi
# shellcheck disable=SC2086 # MAIL is an option and its value
"$SCALEBENCH" nightly "${args[@]}" $MAIL || [ $? -eq 1 ]
