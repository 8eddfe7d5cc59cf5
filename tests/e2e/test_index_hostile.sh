#!/bin/bash
# The results index against a hostile or broken results root: a symlink, FIFO, directory or
# device planted at the index or its lock is never opened through nor written through, readers
# set it aside or index in memory and never fail or hang; a stats.json edited in place is read
# again; symlink loops in the tree do not multiply the walk; a full disk or an index of other
# tables is no failure.  Every reader runs under `timeout`, so a hang fails instead of hanging.
set -u
. "$(dirname "$0")/../lib.sh"
export SCALEBENCH_SELFTEST=1

R="$WORK/results"
IDX="$R/.scalebench-index.sqlite"
LOCK="$IDX.lock"
getppid_job "$WORK/tiny.yaml" "suite: will-it-scale" "testcase: will-it-scale"
sb run "$WORK/tiny.yaml" --results "$R" --commit c1
sb run "$WORK/tiny.yaml" --results "$R" --commit c2
check "two short real runs, exit 0" [ $rc -eq 0 ]
JOB=$(cd "$R" && ls -d will-it-scale/*/*/*/*/*)
PP=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$JOB")")")")")
STATS=$(ls "$R/$JOB"/c1/0/stats.json)

# tsb SECONDS ARGS...: sb under a timeout (rc 124 when it ran out)
tsb() {
	local t=$1
	shift
	rc=0
	timeout -k 5 "$t" "$SCALEBENCH" "$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
}
sb results --results "$R" --json
cp "$WORK/out" "$WORK/before.json"
# same_results: results --json within 60 s; rc 0 only when it exits 0 with what the tree says
# (rc 3: exit 0, another answer)
same_results() {
	tsb 60 results --results "$R" --json
	[ $rc -ne 0 ] || cmp -s "$WORK/out" "$WORK/before.json" || rc=3
}

# ---- symlink loops in the tree ---------------------------------------------------------------
# Followed, 10 links make 11^7 walks of the tree (minutes); not followed, one.
for i in 0 1 2 3 4 5 6 7 8 9; do ln -s . "$R/loop$i"; done
ln -s ../.. "$R/will-it-scale/$PP/up"
start=$SECONDS
tsb 20 results --results "$R" --json
check "10 'loopN -> .' links in the root and one '../..': results within 20 s (rc $rc, $((SECONDS - start)) s)" \
	[ $rc -eq 0 ]
check "symlink loops: results --json the same as without them" cmp -s "$WORK/out" "$WORK/before.json"
tsb 20 compare --results "$R" --commits c1,c2 --json
check "symlink loops: compare --commits c1,c2 within 20 s, one job compared" bash -c \
	"[ $rc -ne 124 ] && [ $rc -ne 2 ] && grep -c '\"job\": ' $WORK/out | grep -qx 1"
rm -f "$R"/loop? "$R/will-it-scale/$PP/up"

# ---- a run's stats.json edited by hand, in place ---------------------------------------------
tsb 60 index --results "$R"
# c1's headline rewritten in place to a number of the same length, the file's and the run
# directory's mtimes put back: only the file's ctime tells (and, for the second edit, its size).
edit_stats() { # NEW-VALUE: c1/0's per_process_ops rewritten in place, mtimes kept
	python3 - "$STATS" "$1" <<'PY'
import os, re, sys
p, new = sys.argv[1], sys.argv[2]
d = os.path.dirname(p)
st, dst = os.stat(p), os.stat(d)
s = open(p).read()
old = re.search(r'"will-it-scale.per_process_ops": ([0-9.e+-]+)', s).group(1)
if new == "same-length":
    new = "1" * len(old)
s = s.replace(f'"will-it-scale.per_process_ops": {old}', f'"will-it-scale.per_process_ops": {new}')
with open(p, "r+") as f:
    f.write(s)
    f.truncate()
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
os.utime(d, ns=(dst.st_atime_ns, dst.st_mtime_ns))
print(new)
PY
}
c1_mean() { # the trend's mean of c1 (one run: its value)
	tsb 60 trend --results "$R" --job "$PP" --json
	json "$WORK/out" "[p['mean'] for p in d['points'] if p['commit'] == 'c1'][0]"
}
new=$(edit_stats same-length)
got=$(c1_mean)
check "stats.json rewritten in place, same size and mtime: trend reads the new value ($new, got $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got') - float('$new')) > 1e-6 * float('$new'))"
new=$(edit_stats 7)
tsb 60 index --results "$R"
check "edited in place: the update reads that run alone (runs added: 1)" grep -qx 'runs added: 1' "$WORK/out"
got=$(c1_mean)
check "stats.json rewritten in place, shorter, same mtime: trend reads the new value ($new, got $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got') - float('$new')) > 1e-6)"
tsb 60 compare --results "$R" --commits c1,c2 --json
got_cmp=$(json "$WORK/out" "stats(d['jobs'][0])['will-it-scale.per_process_ops']['groups'][0]['summary']['mean']" 2>&1)
check "edited in place: compare and trend agree ($got_cmp, $got)" \
	python3 -c "import sys; sys.exit(abs(float('$got_cmp') - float('$got')) > 1e-6)"
tsb 60 index --results "$R"
check "edited in place, next update: nothing read" grep -qx 'runs added: 0' "$WORK/out"

# ---- things planted at the index's paths ------------------------------------------------------
# Each reader within 60 s gives what the tree says, whatever is planted; nothing outside the
# results root is opened for writing, created or changed.
sb results --results "$R" --json
cp "$WORK/out" "$WORK/before.json"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE precious(x)'); c.execute('INSERT INTO precious VALUES (42)'); c.commit()" "$WORK/victim.db"
sum_victim() { sha256sum "$WORK/victim.db" | cut -d' ' -f1; }
victim_tables() {
	python3 -c "import sqlite3, sys; print(' '.join(r[0] for r in sqlite3.connect(sys.argv[1]).execute('SELECT name FROM sqlite_master')))" "$WORK/victim.db"
}
victim=$(sum_victim)
clean_index() { rm -rf "$IDX" "$IDX"-journal "$IDX".aside-* "$IDX".sum "$LOCK"; }

clean_index
ln -s "$WORK/victim.db" "$IDX"
same_results
check "symlink at the index to another database: results the same" [ $rc -eq 0 ]
check "symlink at the index: the database it points to untouched (its tables: $(victim_tables))" \
	bash -c "[ '$(sum_victim)' = '$victim' ] && [ '$(victim_tables)' = precious ]"
check "symlink at the index: set aside, said, a real index in its place" bash -c \
	"[ -L $IDX.aside-1 ] && [ -f $IDX ] && [ ! -L $IDX ] && grep -q 'was a symbolic link, not an index: renamed to' $WORK/err"

clean_index
ln "$WORK/victim.db" "$IDX"
same_results
check "hard link at the index to another database: results the same, that database untouched" \
	bash -c "[ $rc -eq 0 ] && [ '$(sum_victim)' = '$victim' ] && [ '$(victim_tables)' = precious ]"

clean_index
cp "$WORK/victim.db" "$IDX"
cp "$WORK/victim.db" "$WORK/copy.db"
same_results
check "someone's database (other tables, no mark of the index) at the index: results the same, set aside whole" \
	bash -c "[ $rc -eq 0 ] && cmp -s $IDX.aside-1 $WORK/copy.db"

clean_index
ln -s "$WORK/outside.lock" "$LOCK"
same_results
check "symlink at the lock: results the same, nothing created outside the root" \
	bash -c "[ $rc -eq 0 ] && [ ! -e $WORK/outside.lock ]"
check "symlink at the lock: said once, the tree indexed in memory" bash -c \
	"[ \$(grep -c 'lock is a symbolic link, not a lock file (remove it): indexing the tree in memory' $WORK/err) = 1 ]"
clean_index
echo keep >"$WORK/outside.journal"
ln -s "$WORK/outside.journal" "$IDX-journal"
same_results
check "symlink at the journal: results the same, its target untouched" \
	bash -c "[ $rc -eq 0 ] && [ \"\$(cat $WORK/outside.journal)\" = keep ]"

for kind in fifo dir devzero lockdir; do
	clean_index
	case $kind in
	fifo) mkfifo "$IDX" ;;
	dir) mkdir "$IDX" && echo mine >"$IDX/file" ;;
	devzero) ln -s /dev/zero "$IDX" ;;
	lockdir) mkdir "$LOCK" ;;
	esac
	start=$SECONDS
	same_results
	check "$kind at the index's path: results within 60 s, exit 0, the same (rc $rc, $((SECONDS - start)) s)" [ $rc -eq 0 ]
	check "$kind at the index's path: no disk I/O error" bash -c "! grep -q 'disk I/O error' $WORK/err"
	if [ $kind = dir ]; then
		check "a directory at the index: set aside with what it held" grep -qx mine "$IDX.aside-1/file"
	fi
done

clean_index
mkfifo "$IDX"
tsb 60 index --results "$R"
check "FIFO at the index: scalebench index says it rebuilt it and why" \
	grep -qx "$IDX: rebuilt (a FIFO was there, set aside)" "$WORK/out"
clean_index

# A reader that cannot write the root must not block on a FIFO opening it for reading.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$WORK"
	mkfifo "$IDX"
	rc=0
	timeout -k 5 30 setpriv --reuid=nobody --regid=nogroup --clear-groups "$SCALEBENCH" results \
		--results "$R" --json >"$WORK/out" 2>"$WORK/err" || rc=$?
	check "not writable, a FIFO at the index: no hang, the tree indexed in memory, results the same (rc $rc)" \
		bash -c "[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/before.json"
	chmod 700 "$WORK"
	clean_index
else
	pass "not writable, a FIFO at the index: not checked (needs root and setpriv)"
fi

# ---- an index of the right version and the wrong tables ---------------------------------------
clean_index
sb index --results "$R"
V=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA user_version').fetchone()[0])" "$IDX")
clean_index
python3 - "$IDX" "$V" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""CREATE TABLE jobs(id INTEGER PRIMARY KEY, key TEXT); CREATE TABLE runs(id, job_id);
CREATE TABLE stats(id, name); CREATE TABLE job_stats(job_id, stat_id); CREATE TABLE vals(a, b, c, d);
CREATE TABLE run_vals(a, b);""")
c.execute(f"PRAGMA user_version = {sys.argv[2]}")
c.commit()
PY
same_results
check "user_version $V, the index's table names, other columns: results the same (rc $rc)" [ $rc -eq 0 ]
tsb 60 index --results "$R"
check "other columns: scalebench index rebuilt it, or it was already" bash -c \
	"[ $rc -eq 0 ] && grep -q ': updated$\|: rebuilt (tables not of this schema)' $WORK/out"
clean_index
python3 - "$IDX" "$V" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""CREATE TABLE jobs(id INTEGER PRIMARY KEY, key TEXT); CREATE TABLE runs(id, job_id);
CREATE TABLE stats(id, name); CREATE TABLE job_stats(job_id, stat_id); CREATE TABLE vals(a, b, c, d);
CREATE TABLE run_vals(a, b);""")
c.execute(f"PRAGMA user_version = {sys.argv[2]}")
c.commit()
PY
tsb 60 index --results "$R"
check "other columns: scalebench index says rebuilt (tables not of this schema)" \
	grep -qx "$IDX: rebuilt (tables not of this schema)" "$WORK/out"
# NULL where the index has NOT NULL (a stat without a name, a job without a key), and a new run
# to add, so that the update reads them.
clean_index
sb index --results "$R"
python3 - "$IDX" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""ALTER TABLE stats RENAME TO old_stats; CREATE TABLE stats(id INTEGER PRIMARY KEY, name TEXT UNIQUE);
INSERT INTO stats SELECT * FROM old_stats; DROP TABLE old_stats; INSERT INTO stats VALUES (99999, NULL);
ALTER TABLE jobs RENAME TO old_jobs; CREATE TABLE jobs(id INTEGER PRIMARY KEY, key TEXT UNIQUE, testcase TEXT, path_params TEXT, tbox_group TEXT, rootfs TEXT, kconfig TEXT, compiler TEXT);
INSERT INTO jobs SELECT * FROM old_jobs; DROP TABLE old_jobs; INSERT INTO jobs(id, key) VALUES (99999, NULL);""")
c.commit()
PY
cp -a "$R/$JOB/c1" "$R/$JOB/c4"
tsb 60 results --results "$R" --json
check "NULL in NOT NULL columns, a run to add: results exit 0, no crash, the three commits (rc $rc)" bash -c \
	"[ $rc -eq 0 ] && [ \"\$(grep -c '\"commit\": ' $WORK/out)\" = 3 ] && ! grep -q 'Sanitizer\|runtime error' $WORK/err"
rm -rf "$R/$JOB/c4"
clean_index

# ---- bytes changed under the index ----------------------------------------------------------
# A byte flipped in the jobs table's page (a path_params) or in a value of vals: the schema and
# the structure are as they were (PRAGMA quick_check sees nothing), the answers are not.  The
# index's sum (INDEX_SUM_FILE) is not the file's any more: rebuilt before it is read.
STATS2=$(ls "$R/$JOB"/c2/0/stats.json)
sb index --results "$R"
sb results --results "$R" --json
cp "$WORK/out" "$WORK/before.json"
tsb 60 trend --results "$R" --job "$PP" --json
cp "$WORK/out" "$WORK/trend-before.json"
flip() { # jobs|value: one byte of the index changed in place (the path_params column of the
	# jobs table's page; c2's headline in vals, its second byte: some 6% of the value)
	python3 - "$IDX" "$1" "$PP" "$STATS2" <<'PY'
import json, sqlite3, struct, sys
idx, what, pp, stats = sys.argv[1:]
c = sqlite3.connect(idx)
psize = c.execute("PRAGMA page_size").fetchone()[0]
root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'jobs'").fetchone()[0]
c.close()
data = open(idx, "rb").read()
if what == "jobs":  # the row's testcase then path_params
    page = (root - 1) * psize
    at = data.index(b"will-it-scale" + pp.encode(), page, page + psize) + len("will-it-scale")
    bit = 0x20
else:
    v = struct.pack(">d", json.load(open(stats))["will-it-scale.per_process_ops"])
    at, bit = data.index(v) + 1, 0x01
with open(idx, "r+b") as f:  # every copy (a free page may hold an old one)
    while at > 0:
        f.seek(at)
        f.write(bytes([data[at] ^ bit]))
        at = data.find(v, at) + 1 if what == "value" else 0
c = sqlite3.connect(idx)
print(c.execute("PRAGMA quick_check").fetchone()[0])
PY
}
same_trend() { # the same for trend --json of the job's headline
	tsb 60 trend --results "$R" --job "$PP" --json
	[ $rc -ne 0 ] || cmp -s "$WORK/out" "$WORK/trend-before.json" || rc=3
}
qc=$(flip jobs)
tsb 60 index --results "$R"
check "a byte of the jobs table flipped (quick_check: $qc): scalebench index rebuilds it, saying why" \
	grep -qx "$IDX: rebuilt (changed since scalebench wrote it)" "$WORK/out"
flip jobs >/dev/null
same_results
check "a byte of the jobs table flipped: results the same as from the tree (rc $rc)" [ $rc -eq 0 ]
flip jobs >/dev/null
same_trend
check "a byte of the jobs table flipped: trend the same as from the tree (rc $rc)" [ $rc -eq 0 ]
sb index --results "$R" --rebuild # (for a scalebench that kept the flipped byte)
qc=$(flip value)
same_trend
check "a value's byte flipped (quick_check: $qc): trend's mean the tree's (rc $rc)" [ $rc -eq 0 ]
tsb 60 index --results "$R"
check "after the rebuild: the index trusted again, not rebuilt" grep -qx "$IDX: updated" "$WORK/out"
rm -rf "$WORK/copy"
cp -a "$R" "$WORK/copy"
tsb 60 index --results "$WORK/copy"
check "a copy of the root (the same bytes, a new file): updated, not rebuilt" \
	grep -qx "$WORK/copy/.scalebench-index.sqlite: updated" "$WORK/out"
rm -rf "$WORK/copy"
# A directory at the sum's path would keep every sum from being written (and every reader
# rebuilding): set aside like anything planted at the index's paths; a symlink there is
# replaced, its target never written.
rm -f "$IDX.sum"
mkdir "$IDX.sum"
tsb 60 index --results "$R"
tsb 60 index --results "$R"
check "a directory at the index's sum: set aside, the next update not a rebuild" \
	bash -c "[ $rc -eq 0 ] && grep -qx '$IDX: updated' $WORK/out && [ -d $IDX.sum.aside-1 ] && [ -f $IDX.sum ]"
rm -rf "$IDX.sum" "$IDX.sum.aside-1"
ln -s "$WORK/outside.sum" "$IDX.sum"
same_results
check "a symlink at the index's sum: results the same, nothing written through it" \
	bash -c "[ $rc -eq 0 ] && [ ! -e $WORK/outside.sum ] && [ -f $IDX.sum ] && [ ! -L $IDX.sum ]"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	flip value >/dev/null
	chmod 755 "$WORK"
	rc=0
	timeout -k 5 60 setpriv --reuid=nobody --regid=nogroup --clear-groups "$SCALEBENCH" trend \
		--results "$R" --job "$PP" --json >"$WORK/out" 2>"$WORK/err" || rc=$?
	chmod 700 "$WORK"
	check "not writable, a value's byte flipped: trend the tree's, indexed in memory, said (rc $rc)" \
		bash -c "[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/trend-before.json && grep -q 'changed since scalebench wrote it: indexing the tree in memory' $WORK/err"
else
	pass "not writable, a value's byte flipped: not checked (needs root and setpriv)"
fi
clean_index

# ---- a full disk ------------------------------------------------------------------------------
# The index is a cache: a reader on a full disk reads the tree (in memory), says so once.
FULL=$WORK/full
mkdir "$FULL"
if mount -t tmpfs -o size=1m tmpfs "$FULL"; then
	trap 'umount "$FULL" 2>/dev/null; json_later_run; work_remove' EXIT
	cp -a "$R/." "$FULL/"
	rm -f "$FULL/.scalebench-index.sqlite"*
	sb index --results "$FULL"
	cp -a "$FULL/$JOB/c1" "$FULL/$JOB/c3"
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	tsb 60 results --results "$FULL" --json
	cp "$WORK/out" "$WORK/full.json"
	check "full disk, a new run to index: results exit 0, the three commits (rc $rc)" bash -c \
		"[ $rc -eq 0 ] && [ \"\$(grep -c '\"commit\": ' $WORK/full.json)\" = 3 ]"
	check "full disk: said once, the tree indexed in memory" bash -c \
		"[ \$(grep -c 'indexing the tree in memory' $WORK/err) = 1 ] && ! grep -q 'database or disk is full.*indexing.*indexing' $WORK/err"
	tsb 60 trend --results "$FULL" --job "$PP" --json
	check "full disk: trend exit 0, the three commits (rc $rc)" bash -c \
		"[ $rc -eq 0 ] && [ \"\$(grep -c '\"commit\": ' $WORK/out)\" = 3 ]"
	rm -f "$FULL/filler"
	tsb 60 results --results "$FULL" --json
	check "space again: the index updated, results as on the full disk" bash -c \
		"[ $rc -eq 0 ] && cmp -s $WORK/out $WORK/full.json && ! grep -q 'in memory' $WORK/err"
	umount "$FULL"
else
	fail "full disk: cannot mount a tmpfs (tests run as root)"
fi
