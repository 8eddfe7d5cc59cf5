#!/usr/bin/env python3
"""scalebench list --json on stdin, as the testcase list of scalebench-testcases(7) (AsciiDoc)."""
import json
import sys


def text(s):
    """s shown as it is: AsciiDoc's pass:c[] (only <, > and & escaped), ']' escaped."""
    return "pass:c[%s]" % s.replace("]", "\\]")


for tc in json.load(sys.stdin):
    better = "lower" if tc["lower_is_better"] else "higher"
    stat = tc.get("cost_stat") or "per_process_ops, per_thread_ops"
    print("*%s*::" % text(tc["name"]))
    print("%s." % text(tc["description"]))
    print("Suite %s, op %s; modes: %s; headline stat %s, %s is better." % (
        text(tc["suite"]), text(tc["op"]), text(", ".join(tc["modes"])), text(stat), better))
    print()
