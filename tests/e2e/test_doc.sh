#!/bin/bash
# The code blocks of the README and of the man pages' sources (Documentation/*.txt): each one
# is run (a doctest), is a usage block (test_cli matches it to --help), or says why it is not
# run; every doctest passes, on the small settings its marker gives (tests/doctest.py says how
# blocks are marked and run).
set -u
. "$(dirname "$0")/../lib.sh"

SRC=$(pwd)
SB=$(realpath "$SCALEBENCH")
DOCS=(README.md Documentation/*.txt)

if python3 tests/doctest.py check "${DOCS[@]}" >"$WORK/blocks" 2>&1; then
	pass "README, man pages: every code block is run, a usage block, or says why it is not run"
else
	fail "README, man pages: every code block is run, a usage block, or says why it is not run" \
		"$(grep -v ' usage \| doctest \| file \| not-run ' "$WORK/blocks" | head -10)"
fi
check "README: the tutorials are doctests" bash -c \
	"grep -q ' doctest tutorial-compare$' $WORK/blocks && grep -q ' doctest tutorial-bisect$' $WORK/blocks"

mkdir -p "$WORK/doc"
python3 tests/doctest.py extract "$WORK/doc" "${DOCS[@]}" >"$WORK/extract" 2>&1 ||
	fail "doctests extracted" "$(head -5 "$WORK/extract")"

# Each doctest in a scratch directory laid out like the source tree, HOME a scratch home,
# the plug-in header on the compiler's path as `make install` puts it.
mkdir -p "$WORK/include/scalebench"
cp testcases/testcase.h "$WORK/include/scalebench/"
for sh in "$WORK"/doc/*.sh; do
	[ -e "$sh" ] || break
	name=$(basename "$sh" .sh)
	where=$(cat "$WORK/doc/$name.where")
	d=$WORK/run/$name
	mkdir -p "$d/build" "$d/home"
	ln -s "$SB" "$d/build/scalebench"
	ln -s "$SRC/examples" "$d/examples"
	ln -s "$SRC/jobs" "$d/jobs"
	[ -d "$WORK/doc/files" ] && cp "$WORK/doc/files/"* "$d/"
	start=$(date +%s.%N)
	(cd "$d" && HOME=$d/home PATH=$d/build:$PATH CPATH=$WORK/include \
		timeout -k 5 300 bash -e -o pipefail "$sh" >"$d.out" 2>"$d.err")
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	if [[ " $(cat "$WORK/doc/$name.exit") " == *" $rc "* ]]; then
		pass "doctest $name ($where): exit $rc, $(printf '%.1f' "$secs") s"
	else
		fail "doctest $name ($where): exit $rc, expected $(cat "$WORK/doc/$name.exit")" \
			"$(tail -15 "$d.err")" "$(tail -5 "$d.out")"
	fi
done

# The bisect examples that are not run (they need your repository, a kernel tree, a target)
# still give bisect what it takes: their --job with its --set, --nr-task and --runtime is one
# atomic job, as bisect requires (all three examples were refused when copied, once).
python3 - "$SB" >"$WORK/bisect-jobs" 2>&1 <<'PY'
import re, shlex, subprocess, sys
sys.path.insert(0, "tests")
import doctest
text = "".join(b[4] for b in doctest.blocks("README.md"))
n = bad = 0
for cmd in re.findall(r"scalebench bisect (?:[^\n]*\\\n)*[^\n]*", text):
    try:
        words = shlex.split(cmd.replace("\\\n", " ").replace("$", ""), comments=True)
    except ValueError:  # a quote that spans lines (a unit file's ExecStart): no --job there
        continue
    job, args = None, []
    for i, w in enumerate(words[:-1]):
        if w == "--job":
            job = words[i + 1]
        elif w in ("--set", "--nr-task", "--runtime"):
            args += [w, words[i + 1]]
    if not job or not job.startswith("jobs/"):
        continue
    args.insert(0, job)
    n += 1
    out = subprocess.run([sys.argv[1], "run", "--dry-run"] + args, capture_output=True, text=True)
    jobs = [l for l in out.stdout.splitlines() if " -> " in l]
    if out.returncode or len(jobs) != 1:
        bad += 1
        print("%s: %d atomic jobs, exit %d %s" % (" ".join(args), len(jobs), out.returncode, out.stderr))
print("%d examples" % n)
sys.exit(1 if bad or n < 3 else 0)
PY
check "README's bisect examples name one atomic job (run --dry-run of their job options)" \
	[ $? -eq 0 ] || cat "$WORK/bisect-jobs"
