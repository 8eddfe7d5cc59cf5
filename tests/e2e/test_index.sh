#!/bin/bash
# scalebench index: the results index is a cache of the tree.  A new run is added alone,
# deleting the index loses nothing, a garbage, truncated or other-schema index is rebuilt, two
# updates at once both succeed, and an update killed midway leaves an index that works.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

R="$WORK/results"
IDX="$R/.scalebench-index.sqlite"
getppid_job "$WORK/tiny.yaml" "suite: will-it-scale" "testcase: will-it-scale"

field() { # NAME: the value of "NAME: value" in the last output
	sed -n "s/^$1: //p" "$WORK/out"
}

umask 022
sb run "$WORK/tiny.yaml" --results "$R" --commit base
check "a short real run, exit 0" [ $rc -eq 0 ]
# The tree honours the umask, as other tools do: a web server running as another user reads it.
modes() { # ROOT: the distinct modes of its directories, then of its files
	echo "$(find "$1" -mindepth 1 -type d -printf '%m\n' | sort -u | tr '\n' ' ')/ $(find "$1" -type f ! -name '.scalebench-index*' -printf '%m\n' | sort -u | tr '\n' ' ')"
}
got=$(modes "$R")
check "umask 022: every directory 755, every file 644 (got $got)" [ "$got" = "755 / 644 " ]
(umask 077; "$SCALEBENCH" run "$WORK/tiny.yaml" --results "$WORK/private" --commit base >/dev/null 2>&1)
got=$(modes "$WORK/private")
check "umask 077: every directory 700, every file 600 (got $got)" [ "$got" = "700 / 600 " ]
sb index --results "$R"
check "first index: rebuilt (missing), 1 run added" bash -c \
	"[ $rc -eq 0 ] && grep -qx '$R/.scalebench-index.sqlite: rebuilt (missing)' $WORK/out && [ '$(field 'runs added')' = 1 ] && [ '$(field 'runs in all')' = 1 ]"
sb index --results "$R"
check "up to date: nothing read" bash -c "[ $rc -eq 0 ] && grep -q ': updated$' $WORK/out && [ '$(field 'runs added')' = 0 ]"

sb run "$WORK/tiny.yaml" --results "$R" --commit head
check "another real run, exit 0" [ $rc -eq 0 ]
sb index --results "$R"
check "after scalebench run: one run read and added, 2 in all" bash -c \
	"[ $rc -eq 0 ] && grep -q ': updated$' $WORK/out && [ '$(field 'runs added')' = 1 ] && [ '$(field 'runs removed')' = 0 ] && [ '$(field 'runs in all')' = 2 ]"

# The tree is the truth: whatever happens to the index, `results --json` stays the same.
sb results --results "$R" --json
cp "$WORK/out" "$WORK/before.json"
check "results --json lists both commits" json_true "$WORK/before.json" \
	"[c['commit'] for c in d['jobs'][0]['commits']] == ['base', 'head']"
same_results() {
	sb results --results "$R" --json
	[ $rc -eq 0 ] && cmp -s "$WORK/out" "$WORK/before.json"
}

rm -f "$IDX"
check "index deleted: results --json the same (nothing lost)" same_results

head -c 3000 /dev/urandom >"$IDX"
sb index --results "$R"
check "garbage index: rebuilt (corrupt)" bash -c "[ $rc -eq 0 ] && grep -q 'rebuilt (corrupt)' $WORK/out"
check "garbage index: results the same" same_results

size=$(stat -c %s "$IDX")
truncate -s $((size / 2)) "$IDX"
sb index --results "$R"
check "truncated index ($size bytes cut to half): rebuilt (corrupt)" bash -c \
	"[ $rc -eq 0 ] && grep -q 'rebuilt (corrupt)' $WORK/out && [ '$(field 'runs in all')' = 2 ]"
check "truncated index: results the same" same_results

python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = 99'); c.commit()" "$IDX"
sb index --results "$R"
check "another schema: rebuilt, saying which" bash -c "[ $rc -eq 0 ] && grep -q 'rebuilt (schema 99, this scalebench has [0-9]*)' $WORK/out"
check "another schema: results the same" same_results

# An incomplete run (no stats.json) and a corrupt one: skipped, named with -v, retried.
cdir=$(dirname "$(ls -d "$R"/will-it-scale/*/*/*/*/*/head/0)")
mkdir "$cdir/7" "$cdir/8"
echo '{"a": tru' >"$cdir/8/stats.json"
sb index --results "$R" -v
check "incomplete and corrupt runs skipped and named at -v" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs skipped')' = 2 ] && grep -q '^skipped: .*/head/7/stats.json: missing' $WORK/out && grep -q '^skipped: .*/head/8/stats.json: ' $WORK/out"
sb index --results "$R"
check "without -v: a note on stderr" err_has "2 runs skipped"
rm -rf "$cdir/7" "$cdir/8"
# A corrupt meta.json: its skip line names the file once (it said the path twice).
cp -r "$cdir/0" "$cdir/9"
echo '{bad' >"$cdir/9/meta.json"
sb index --results "$R" -v
check "-v: a corrupt meta.json's skip line names the file once" bash -c \
	"grep -q '^skipped: .*/head/9/meta.json: ' $WORK/out && [ \$(grep '^skipped: .*/head/9/meta.json' $WORK/out | grep -o 'head/9/meta.json' | wc -l) -eq 1 ]"
rm -rf "$cdir/9"

# A reader that cannot write the root (a web server's user): the index as it is, or the tree
# indexed in memory, said once; never a failure.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$WORK"
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$SCALEBENCH" "$@"; }
	rc=0; as_nobody results --results "$R" --json >"$WORK/out" 2>"$WORK/err" || rc=$?
	check "not writable, an index there: results the same, said once" bash -c \
		"[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/before.json && [ \$(grep -c 'reading it as it was last updated' $WORK/err) = 1 ]"
	rm -f "$IDX"
	rc=0; as_nobody results --results "$R" --json >"$WORK/out" 2>"$WORK/err" || rc=$?
	check "not writable, no index: the tree indexed in memory, results the same, said once" bash -c \
		"[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/before.json && [ \$(grep -c 'indexing the tree in memory' $WORK/err) = 1 ]"
	check "not writable: no index file left behind" [ ! -e "$IDX" ]
	rc=0; as_nobody index --results "$R" >"$WORK/out" 2>"$WORK/err" || rc=$?
	check "not writable: scalebench index says so" bash -c "[ $rc -eq 0 ] && grep -q 'not writable here, the tree indexed in memory' $WORK/out"
	chmod 700 "$WORK"
else
	pass "not writable: not checked (needs root and setpriv)"
fi

# A bigger hand-made tree for the concurrency checks: 300 commits x 2 runs x 400 stats.
BIG="$WORK/big"
mk_tree() { # ROOT FIRST COUNT
	python3 - "$@" <<'PY'
import json, os, sys
root, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for c in range(first, first + count):
    for r in range(2):
        d = f"{root}/will-it-scale/process-1-page_fault3/box/debian/defconfig/gcc-12/c{c:04d}/{r}"
        os.makedirs(d)
        stats = {"will-it-scale.per_process_ops": 1000 + c + r}
        stats.update({f"proc-vmstat.s{i}": i * 1.5 + c for i in range(400)})
        json.dump(stats, open(f"{d}/stats.json", "w"))
        json.dump({"started": f"2026-01-01T00:{c // 60 % 60:02d}:{c % 60:02d}+0000", "status": "ok"},
                  open(f"{d}/meta.json", "w"))
PY
}
mk_tree "$BIG" 0 300
SB=$(realpath "$SCALEBENCH")
( "$SB" index --results "$BIG" >"$WORK/a.out" 2>&1; echo $? >"$WORK/a.rc" ) &
pa=$!
( "$SB" index --results "$BIG" >"$WORK/b.out" 2>&1; echo $? >"$WORK/b.rc" ) &
pb=$!
wait $pa $pb
check "two scalebench index at once: both succeed" bash -c "[ \$(cat $WORK/a.rc) = 0 ] && [ \$(cat $WORK/b.rc) = 0 ]"
check "two at once: both see all 600 runs, one of them built them" bash -c \
	"grep -qx 'runs in all: 600' $WORK/a.out && grep -qx 'runs in all: 600' $WORK/b.out && [ \$(cat $WORK/a.out $WORK/b.out | grep -cx 'runs added: 600') = 1 ]"
sb results --results "$BIG" --json
cp "$WORK/out" "$WORK/big.json"
sb index --results "$BIG" --rebuild
sb results --results "$BIG" --json
check "two at once: the index is what a rebuild makes" cmp -s "$WORK/out" "$WORK/big.json"

# Killed in its transaction: the index it started from is still there, and works.
mk_tree "$BIG" 300 300
"$SB" index --results "$BIG" >/dev/null 2>&1 &
pk=$!
for _ in $(seq 1 3000); do
	[ -e "$BIG/.scalebench-index.sqlite-journal" ] && break
	kill -0 $pk 2>/dev/null || break
	sleep 0.01
done
if kill -9 $pk 2>/dev/null; then
	wait $pk 2>/dev/null
	n=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM runs').fetchone()[0])" "$BIG/.scalebench-index.sqlite")
	check "killed midway (SIGKILL): the old index is intact (600 runs, got $n)" [ "$n" = 600 ]
else
	wait $pk
	pass "killed midway: the update finished before the kill (nothing to check)"
fi
sb index --results "$BIG"
check "after the kill: the next update adds the 600 new runs" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs in all')' = 1200 ]"

# A rebuild killed midway likewise.
"$SB" index --results "$BIG" --rebuild >/dev/null 2>&1 &
pk=$!
for _ in $(seq 1 3000); do
	[ -e "$BIG/.scalebench-index.sqlite-journal" ] && break
	kill -0 $pk 2>/dev/null || break
	sleep 0.01
done
kill -9 $pk 2>/dev/null
wait $pk 2>/dev/null
sb index --results "$BIG"
check "a killed rebuild leaves a usable index (1200 runs)" bash -c "[ $rc -eq 0 ] && [ '$(field 'runs in all')' = 1200 ]"

sb index --results "$WORK/nonexistent"
check "no results directory: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q 'nonexistent: no such results directory' $WORK/err"
sb index --results "$R" extra
check "an operand: exit 2" [ $rc -eq 2 ]

# The quick update (nightly's and html's, `index --quick`): only commit directories whose mtime
# changed are read again.  A stats.json edited in place in a directory left alone is not seen
# by it (that is what makes it quick), and is by the next plain update.
Q="$WORK/quick"
mk_tree "$Q" 0 20
QJ="$Q/will-it-scale/process-1-page_fault3/box/debian/defconfig/gcc-12"
find "$Q" -mindepth 1 -type d -exec touch -d '1 hour ago' {} +
sb index --results "$Q"
check "quick: the first full update indexes the 40 runs" bash -c "[ $rc -eq 0 ] && [ '$(field 'runs in all')' = 40 ]"
sb index --results "$Q" --quick
check "quick, nothing changed: nothing read, 40 in all" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs added')' = 0 ] && [ '$(field 'runs removed')' = 0 ] && [ '$(field 'runs in all')' = 40 ]"
sed -i 's/"will-it-scale.per_process_ops": 1001/"will-it-scale.per_process_ops": 7777/' "$QJ/c0001/0/stats.json"
sb index --results "$Q" --quick
check "quick: a stats.json edited in place, its directories left alone, is not read" \
	bash -c "[ $rc -eq 0 ] && [ '$(field 'runs added')' = 0 ]"
cp -a "$QJ/c0002/1" "$QJ/c0002/2"
rm -rf "$QJ/c0003/1" "$QJ/c0004"
sb index --results "$Q" --quick
check "quick: a run added, a run and a commit directory removed: 1 added, 3 removed, 38 in all" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs added')' = 1 ] && [ '$(field 'runs removed')' = 3 ] && [ '$(field 'runs in all')' = 38 ]"
sb index --results "$Q"
check "after quick: the plain update reads the run edited in place alone" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs added')' = 1 ] && [ '$(field 'runs removed')' = 1 ] && [ '$(field 'runs in all')' = 38 ]"
sb trend --results "$Q" --job process-1-page_fault3 --json
cp "$WORK/out" "$WORK/quick.json"
sb index --results "$Q" --rebuild
check "after quick updates: a rebuild finds the same 38 runs" bash -c "[ $rc -eq 0 ] && [ '$(field 'runs in all')' = 38 ]"
sb trend --results "$Q" --job process-1-page_fault3 --json
check "after quick updates: the trend is a rebuild's, the edit in it" bash -c \
	"[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/quick.json && grep -q '\"commit\": \"c0001\"' $WORK/out"
# A directory changed within the last seconds may change again in the same clock tick: it is
# read again by the next quick update (whose edit in place is then seen).
cp -a "$QJ/c0005/1" "$QJ/c0005/2"
sb index --results "$Q" --quick
sed -i 's/"will-it-scale.per_process_ops": 1005/"will-it-scale.per_process_ops": 5555/' "$QJ/c0005/0/stats.json"
sb index --results "$Q" --quick
check "quick: a commit directory changed just now is read again next time" bash -c \
	"[ $rc -eq 0 ] && [ '$(field 'runs added')' = 1 ] && [ '$(field 'runs removed')' = 1 ] && [ '$(field 'runs in all')' = 39 ]"
sb index --results "$Q" --quick --rebuild
check "--quick and --rebuild: exit 2" [ $rc -eq 2 ]
