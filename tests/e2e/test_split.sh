#!/bin/bash
# split through the real binary: the shipped main job and an LKP job file expand to the right
# atomic jobs, -o writes them (all or none), the files split back to themselves, and bad job
# files are refused with file:line and nothing written.
set -u
. "$(dirname "$0")/../lib.sh"

FIX=tests/fixtures/jobs

sb split --help
check "split --help: usage, exit 0" bash -c "[ $rc -eq 0 ] && grep -q '^usage: scalebench split' $WORK/out"
sb --help
check "scalebench --help lists split" grep -q '^  split ' "$WORK/out"

# The main job: nr_task [1, 100%] x mode [process, thread] x test [3 testcases] = 12.
sb split jobs/default.yaml
check "default.yaml: exit 0" [ $rc -eq 0 ]
grep '^# ' "$WORK/out" | sed 's/^# //' >"$WORK/names"
for nr in 1 100%; do
	for mode in process thread; do
		for t in page_fault3 fallocate1 exec1; do
			echo "default-$mode-$nr-3s-$t.yaml"
		done
	done
done >"$WORK/want"
check "default.yaml: the 12 atomic jobs, by name" bash -c "[ \"\$(sort $WORK/names)\" = \"\$(sort $WORK/want)\" ]"
check "default.yaml: jobs separated by ---" [ "$(grep -c '^---$' "$WORK/out")" -eq 11 ]
check "default.yaml: each job sets one mode, test and nr_task" bash -c \
	"[ \$(grep -c '^  mode: \(process\|thread\)$' $WORK/out) -eq 12 ] && [ \$(grep -c '^  test: ' $WORK/out) -eq 12 ] && [ \$(grep -c '^nr_task: \(1\|100%\)$' $WORK/out) -eq 12 ]"
check "default.yaml: no note on itself (category: benchmark is LKP's, known)" bash -c "! grep -q 'note:' $WORK/err"

cat >"$WORK/want.yaml" <<'EOF'
suite: will-it-scale
testcase: will-it-scale
category: benchmark
runtime: 3s
nr_task: 100%
will-it-scale:
  mode: thread
  test: exec1
EOF
awk '/^# default-thread-100%-3s-exec1.yaml$/ {on = 1; next} /^---$/ {on = 0} on' "$WORK/out" >"$WORK/one.yaml"
check "default.yaml: an atomic job's YAML, exactly" cmp -s "$WORK/want.yaml" "$WORK/one.yaml"

# -o: one file per atomic job, DIR created, the paths printed.
sb split jobs/default.yaml -o "$WORK/split/default"
check "-o: exit 0" [ $rc -eq 0 ]
check "-o: 12 files, named <job>-<path_params>.yaml" bash -c \
	"[ \"\$(cd $WORK/split/default && ls | sort)\" = \"\$(sort $WORK/want)\" ]"
check "-o: prints the paths written" bash -c "[ \$(wc -l <$WORK/out) -eq 12 ] && grep -qx '$WORK/split/default/default-process-1-3s-page_fault3.yaml' $WORK/out"
check "-o: the file is the printed YAML" cmp -s "$WORK/want.yaml" "$WORK/split/default/default-thread-100%-3s-exec1.yaml"

# Round trip: an atomic job file splits to itself, same name and same bytes.
roundtrip_ok=true
for f in "$WORK"/split/default/*.yaml; do
	rm -rf "$WORK/re"
	"$SCALEBENCH" split "$f" -o "$WORK/re" >/dev/null 2>&1 || roundtrip_ok=false
	[ "$(ls "$WORK/re" 2>/dev/null)" = "$(basename "$f")" ] || roundtrip_ok=false
	cmp -s "$f" "$WORK/re/$(basename "$f")" || roundtrip_ok=false
done
check "default.yaml: every split file re-splits to itself" $roundtrip_ok

# An LKP job file as LKP writes them.
sb split "$FIX/lkp-will-it-scale.yaml" -o "$WORK/lkp"
check "LKP job: exit 0" [ $rc -eq 0 ]
check "LKP job: 2 modes x 2 tests at nr_task 100%" bash -c "[ \"\$(ls $WORK/lkp | tr '\n' ' ')\" = 'lkp-will-it-scale-process-100%-fallocate1.yaml lkp-will-it-scale-process-100%-page_fault3.yaml lkp-will-it-scale-thread-100%-fallocate1.yaml lkp-will-it-scale-thread-100%-page_fault3.yaml ' ]"
check "LKP job: neither category (LKP's benchmark) nor kconfig (the kconfig axis) noted" bash -c "! grep -q \"category\" $WORK/err && ! grep -q \"key 'kconfig'\" $WORK/err"
check "LKP job: the atomic file keeps the LKP keys and the bare monitors" bash -c \
	"f=$WORK/lkp/lkp-will-it-scale-thread-100%-page_fault3.yaml; grep -qx 'kconfig: x86_64-rhel-8.3' \$f && grep -qx 'perf-stat:' \$f && grep -qx 'proc-vmstat:' \$f && grep -qx 'nr_task: 100%' \$f && grep -qx '  mode: thread' \$f"
roundtrip_ok=true
for f in "$WORK"/lkp/*.yaml; do
	rc=0
	"$SCALEBENCH" split "$f" >"$WORK/re.out" 2>/dev/null || rc=$?
	[ $rc -eq 0 ] || roundtrip_ok=false
	[ "$(head -n 1 "$WORK/re.out")" = "# $(basename "$f")" ] || roundtrip_ok=false
	tail -n +2 "$WORK/re.out" | cmp -s - "$f" || roundtrip_ok=false
done
check "LKP job: every split file re-splits to itself (stdout)" $roundtrip_ok

sb split "$FIX/three-dims.yaml"
check "3 dimensions: 12 atomic jobs" [ "$(grep -c '^# ' "$WORK/out")" -eq 12 ]

# Bad job files: exit 2, one line naming file:line (and column for syntax), nothing on stdout.
bad() {
	local name=$1 file=$2 msg=$3
	sb split "$file"
	check "$name: exit 2" [ $rc -eq 2 ]
	check "$name: one-line message" bash -c "[ \$(wc -l <$WORK/err) -eq 1 ] && grep -qF -- \"$msg\" $WORK/err"
	check "$name: nothing on stdout" [ ! -s "$WORK/out" ]
	sb split "$file" -o "$WORK/never"
	check "$name: -o creates nothing" bash -c "[ $rc -eq 2 ] && [ ! -e $WORK/never ]"
}
bad "syntax error" "$FIX/bad-syntax.yaml" "scalebench split: $FIX/bad-syntax.yaml:4:8: mapping values are not allowed in this context"
bad "ERB" "$FIX/erb.yaml" "scalebench split: $FIX/erb.yaml:3: ERB templates"
bad "unknown testcase" "$FIX/unknown-test.yaml" "$FIX/unknown-test.yaml:6: will-it-scale.test 'no_such_test': unknown testcase; 'scalebench list' shows the names"
bad "nr_task 0" "$FIX/nr-task-zero.yaml" "$FIX/nr-task-zero.yaml:5: nr_task '0': expected at least 1 task"
bad "runtime abc" "$FIX/runtime-abc.yaml" "$FIX/runtime-abc.yaml:1: runtime 'abc': expected a duration"
bad "missing file" "$WORK/nope.yaml" "cannot read $WORK/nope.yaml: No such file or directory"

sb split
check "no job file: exit 2" bash -c "[ $rc -eq 2 ] && grep -q 'which job file' $WORK/err"
sb split jobs/default.yaml jobs/exec1.yaml
check "two job files: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"unexpected argument 'jobs/exec1.yaml'\" $WORK/err"
sb split jobs/default.yaml --frobnicate
check "unknown option: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"unknown option '--frobnicate'\" $WORK/err"
sb split jobs/default.yaml -o
check "-o without a value: exit 2" bash -c "[ $rc -eq 2 ] && grep -q \"'-o' needs a value\" $WORK/err"

# Unwritable -o: refused before anything is written.
touch "$WORK/afile"
sb split jobs/default.yaml -o "$WORK/afile/sub"
check "-o under a file: exit 2, named" bash -c "[ $rc -eq 2 ] && grep -q \"cannot create directory '$WORK/afile/sub': Not a directory\" $WORK/err"
check "-o under a file: nothing on stdout" [ ! -s "$WORK/out" ]
mkdir -p "$WORK/newparent"
sb split jobs/default.yaml -o "$WORK/newparent/a/b/c/deep"
check "-o: missing parents are created" bash -c "[ $rc -eq 0 ] && [ \$(ls $WORK/newparent/a/b/c/deep | wc -l) -eq 12 ]"
# A failed split removes every directory it made, however many (it used to remember 32): 40
# new levels whose files' paths come out too long once the job names are added.
mkdir "$WORK/made"
deep=$(python3 -c "import sys; d = sys.argv[1]
while len(d) < 3980: d += '/' + 'd' * 99
print(d + '/' + 'e' * (4080 - len(d) - 1))" "$WORK/made")
sb split jobs/default.yaml -o "$deep"
check "-o whose file paths are too long: exit 1, the directories it made removed" bash -c \
	"[ $rc -ne 0 ] && grep -q 'path too long' $WORK/err && [ -z \"\$(ls -A $WORK/made)\" ]"
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$WORK/ro" && chmod 555 "$WORK/ro"
	sb split jobs/default.yaml -o "$WORK/ro"
	check "-o read-only dir: exit 2, nothing written" bash -c "[ $rc -eq 2 ] && grep -q 'cannot write $WORK/ro/' $WORK/err && [ -z \"\$(ls $WORK/ro)\" ]"
	chmod 755 "$WORK/ro"
fi

# Whole or nothing: the last file cannot be put in place (a directory has its name), so the
# eleven already renamed are taken back and no temp file is left.
mkdir -p "$WORK/half/default-thread-100%-3s-exec1.yaml"
sb split jobs/default.yaml -o "$WORK/half"
check "failed commit: exit 1, named" bash -c "[ $rc -eq 1 ] && grep -q \"cannot rename .* to $WORK/half/default-thread-100%-3s-exec1.yaml\" $WORK/err"
check "failed commit: no file left behind" bash -c "[ \"\$(ls -A $WORK/half)\" = 'default-thread-100%-3s-exec1.yaml' ]"
check "failed commit: nothing on stdout" [ ! -s "$WORK/out" ]

# A job file from a pipe (`<(generate-job)`) is read to its end; a directory is refused.
getppid_job "$WORK/piped.yaml" "nr_task: [1, 2]" "will-it-scale: {test: getppid1}"
rc=0
"$SCALEBENCH" split <(cat "$WORK/piped.yaml") >"$WORK/out" 2>"$WORK/err" || rc=$?
check "split <(...): a job file from a pipe" bash -c "[ $rc -eq 0 ] && [ \$(grep -c '^nr_task:' $WORK/out) -eq 2 ]"
sb split "$WORK"
check "split DIR: refused, naming it" bash -c "[ $rc -eq 2 ] && grep -q \"cannot read $WORK: a directory\" $WORK/err"
