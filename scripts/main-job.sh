#!/bin/bash
# The main job (the README's first command): page_fault3, fallocate1 and exec1 at 1..nproc
# copies, in process and thread mode, each ending in its scalability table.
# Short by default; SECONDS_PER_RUN and WARMUP change the window.
set -eu
SCALEBENCH=${1:-build/scalebench}
window=${SECONDS_PER_RUN:-3}
warmup=${WARMUP:-1}
status=0
for t in page_fault3 fallocate1 exec1; do
	for mode in process thread; do
		echo "=== $t, $mode mode, 1..$(nproc) copies, ${warmup} s warmup + ${window} s each"
		"$SCALEBENCH" bench "$t" -m "$mode" -t "1-100%" -s "$window" -w "$warmup" -q || status=$?
		echo
		# Interrupted: stop here with the signal's status.
		[ $status -lt 128 ] || exit $status
	done
done
exit $status
