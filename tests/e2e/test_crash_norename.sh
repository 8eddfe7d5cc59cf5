#!/bin/bash
# test_crash.sh again with the store's NFS fallback forced (SCALEBENCH_STORE_NO_RENAMEAT2=1:
# renameat2(RENAME_NOREPLACE) taken as refused, runs published by a plain rename): SIGKILL at
# 20 points leaves no half run, run numbers stay dense and unique, concurrent runners both
# store their runs.
export SCALEBENCH_STORE_NO_RENAMEAT2=1
. "$(dirname "$0")/test_crash.sh"
