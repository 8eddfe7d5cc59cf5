#!/bin/sh
# make-history.sh DIR: the kernel lab's git history in DIR/linux (made once; reused when its
# last commit is there): Debian's linux-source-6.1 imported, then nine small commits:
#   - the fifth after the import plants a regression of the reference reports' shape: a
#     per-cpu counter summed over every *possible* CPU in getppid's path (getppid_calls_sum, a
#     for_each_possible_cpu loop), so getppid1 slows with the guest's possible CPUs (-smp
#     1,maxcpus=N) while one CPU online runs it;
#   - the sixth does not build (a stray word in fs/open.c), the seventh builds again but panics
#     at boot (a late initcall), the eighth boots again: git's first midpoint is the planted
#     commit's parent and its next two are these two, so the bisection meets a build failure
#     and a boot failure before it names the planted commit;
#   - the others touch files the build compiles (kernel/sys.c, mm/memory.c, fs/open.c), so
#     every step is a real incremental build.
# Dates and authors are fixed: the shas are the same on every machine.  LAB_VERSION names this
# layout: a lab made by another version of this script is made again.
set -eu
dir=$1
src=/usr/src/linux-source-6.1.tar.xz
[ -f "$src" ] || {
	echo "make-history.sh: $src missing: make setup-kernel installs linux-source-6.1" >&2
	exit 2
}
mkdir -p "$dir"
repo=$dir/linux
LAB_VERSION=2
if [ "$(cat "$repo/.git/lab-complete" 2>/dev/null)" = "$LAB_VERSION" ]; then
	# A lab run killed mid-bisection leaves the work tree on some commit, maybe bisecting:
	# back on master, clean, before anyone reads the history.
	git -C "$repo" bisect reset -q >/dev/null 2>&1 || true
	git -C "$repo" checkout -q -f master && git -C "$repo" clean -q -fdx ||
		{ echo "make-history.sh: $repo: cannot get back to master" >&2; exit 2; }
	echo "make-history.sh: $repo is there"
	exit 0
fi
rm -rf "$repo" "$repo.tmp"
mkdir -p "$repo.tmp"
tar xf "$src" -C "$repo.tmp"
mv "$repo.tmp/linux-source-6.1" "$repo"
rmdir "$repo.tmp"
cd "$repo"
export GIT_AUTHOR_NAME="scalebench lab" GIT_AUTHOR_EMAIL="lab@scalebench.invalid"
export GIT_COMMITTER_NAME="scalebench lab" GIT_COMMITTER_EMAIL="lab@scalebench.invalid"
n=0
commit() {
	n=$((n + 1))
	d=$(printf '2026-01-%02d 12:00:00 +0000' $n)
	export GIT_AUTHOR_DATE="$d" GIT_COMMITTER_DATE="$d"
	git add -A
	git commit -q -m "$1"
}
# Debian's source package ends the top .gitignore with "ignore everything at the top level"
# (its packaging repository's rule): the lab's history is of the source itself.
python3 - .gitignore <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
cut = s.find("#\n# Debian packaging")
open(p, "w").write(s[:cut] if cut >= 0 else s)
PY
git init -q -b master
git config core.autocrlf false
git config gc.auto 0
commit "Import Debian's linux-source-6.1"

# A comment in a file the kernel builds: an incremental build's step.
touch_c() {
	printf '\n/* %s */\n' "$2" >>"$1"
}
touch_c mm/memory.c "lab: a note on page faults"
commit "mm: a note on page faults"
touch_c fs/open.c "lab: a note on open"
commit "fs: a note on open"
touch_c kernel/sys.c "lab: a note on the uid syscalls"
commit "kernel/sys: a note on the uid syscalls"
touch_c mm/memory.c "lab: a second note on page faults"
commit "mm: a second note on page faults"

# The planted regression: getppid counts its calls per CPU and sums the counter over every
# possible CPU on each call.
python3 - kernel/sys.c <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = """SYSCALL_DEFINE0(getppid)
{
	int pid;
"""
new = """static DEFINE_PER_CPU(unsigned long, getppid_calls);

/* How many times getppid was called, on every CPU that could ever be online. */
static noinline unsigned long getppid_calls_sum(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(getppid_calls, cpu);
	return sum;
}

SYSCALL_DEFINE0(getppid)
{
	int pid;

	this_cpu_inc(getppid_calls);
	if (unlikely(getppid_calls_sum() == ULONG_MAX))
		pr_info_once("getppid: the call counter wrapped\\n");
"""
assert s.count(old) == 1
open(p, "w").write(s.replace(old, new))
PY
commit "kernel/sys: count getppid calls per CPU"

# A commit that does not build, one that builds again but panics at boot, one that boots.
printf '\n/* lab: a second note on open */\nlab_does_not_build\n' >>fs/open.c
commit "fs: a second note on open (does not build)"
python3 - fs/open.c kernel/sys.c <<'PY'
import sys
o, k = sys.argv[1], sys.argv[2]
s = open(o).read()
assert s.endswith("lab_does_not_build\n")
open(o, "w").write(s[: -len("lab_does_not_build\n")])
open(k, "a").write("""
/* lab: this commit does not boot */
#include <linux/init.h>
static int __init lab_does_not_boot(void)
{
	panic("lab: this commit does not boot");
	return 0;
}
late_initcall(lab_does_not_boot);
""")
PY
commit "fs: the note builds again; kernel/sys: panic at boot (does not boot)"
python3 - kernel/sys.c <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
open(p, "w").write(s[: s.index("\n/* lab: this commit does not boot */")])
PY
commit "kernel/sys: boot again"
touch_c kernel/sys.c "lab: a note on sethostname"
commit "kernel/sys: a note on sethostname"
echo "$LAB_VERSION" >.git/lab-complete
git log --oneline
