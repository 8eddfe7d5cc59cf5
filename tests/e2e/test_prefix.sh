#!/bin/bash
# Commits named as git names them: compare --commits and report --base/--head take a sha's
# first hex digits (4 or more) that one label of the selected jobs starts with, and with --repo
# any revision (a tag, a branch, HEAD~1); the table and the mail are those of the full shas.  A
# prefix that starts several labels is an error naming them (exit 2); a label given whole is
# always that label.
set -u
. "$(dirname "$0")/../lib.sh"

FIX=tests/fixtures/compare/results
PP='process-100%-page_fault3'
SUB=will-it-scale/$PP/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12
OTHER=will-it-scale/process-1-page_fault3/lkp-skl-4sp1/debian-12-x86_64/defconfig/gcc-12

# A repository whose two commits the fixture's groups were run at: v1 (the base) and the
# branch topic.  Fixed dates: the same shas every time.
REPO=$WORK/repo
gitc() {
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.org GIT_AUTHOR_DATE='2026-01-01T00:00:00+0000' \
		GIT_COMMITTER_DATE='2026-01-01T00:00:00+0000' git -C "$REPO" "$@"
}
git init -q -b main "$REPO"
gitc commit -q --allow-empty -m "mm: the base"
gitc tag v1
gitc commit -q --allow-empty -m "mm: a change"
gitc branch topic
A=$(git -C "$REPO" rev-parse v1) B=$(git -C "$REPO" rev-parse topic)

# The fixture with the commits' full shas as its labels.
R=$WORK/results
cp -r "$FIX" "$R"
mv "$R/$SUB/base" "$R/$SUB/$A"
mv "$R/$SUB/patched" "$R/$SUB/$B"

sb compare --results "$R" --job "$PP" --commits "$A,$B"
cp "$WORK/out" "$WORK/full.txt"
full_rc=$rc
check "compare --commits with the full shas: the regression (exit 1)" [ $full_rc -eq 1 ]

same_table() { # NAME: $WORK/out and $rc are the full shas' table and status
	if [ $rc -eq $full_rc ] && diff -u "$WORK/full.txt" "$WORK/out" >"$WORK/diff"; then
		pass "$1"
	else
		fail "$1" "exit $rc" "$(head -5 "$WORK/err")" "$(head -10 "$WORK/diff")"
	fi
}

sb compare --results "$R" --job "$PP" --commits "${A:0:7},${B:0:7}"
same_table "compare --commits with 7-digit prefixes: the table of the full shas"
sb compare --results "$R" --commits "${A:0:7},${B:0:7}"
same_table "compare --commits with 7-digit prefixes, every job: the table of the full shas"
sb compare --results "$R" --job "$PP" --commits "${A:0:4},$(tr a-f A-F <<<"${B:0:12}")"
same_table "compare --commits: 4 digits are enough, upper case read as git reads it"
sb compare --json --results "$R" --job "$PP" --commits "${A:0:7},${B:0:7}"
json_later "compare --json with prefixes: the groups are the full labels" "$WORK/out" \
	"[g['commit'] for g in d['jobs'][0]['groups']] == ['$A', '$B']"

sb compare --results "$R" --job "$PP" --repo "$REPO" --commits v1,topic
same_table "compare --repo: a tag and a branch name the commits' labels"
sb compare --results "$R" --repo "$REPO" --commits HEAD~1,HEAD
same_table "compare --repo: HEAD~1,HEAD name the commits' labels"
sb compare --results "$R" --repo "$WORK/no-such-repo" --commits v1,topic
check "compare --repo that is not a repository: exit 2, naming --repo" bash -c \
	"[ $rc -eq 2 ] && grep -q \"^scalebench compare: --repo '$WORK/no-such-repo': \" $WORK/err"
sb compare --results "$R" --job "$PP" --commits v1,topic
check "compare without --repo: a tag is no label (exit 2)" [ $rc -eq 2 ]

# report: the same mail from prefixes as from the full shas (but for its Date and Message-ID).
mail_body() { grep -v -e '^Date: ' -e '^Message-ID: ' "$1"; }
sb report --results "$R" --base "$A" --head "$B"
mail_body "$WORK/out" >"$WORK/full.eml"
check "report --base/--head with the full shas: a mail (exit 0)" \
	bash -c "[ $rc -eq 0 ] && grep -q '^commit: $B' $WORK/full.eml"
sb report --results "$R" --base "${A:0:7}" --head "${B:0:7}"
mail_body "$WORK/out" >"$WORK/prefix.eml"
if [ $rc -eq 0 ] && diff -u "$WORK/full.eml" "$WORK/prefix.eml" >"$WORK/diff"; then
	pass "report --base/--head with 7-digit prefixes: the mail of the full shas"
else
	fail "report --base/--head with 7-digit prefixes: the mail of the full shas" "exit $rc" \
		"$(head -3 "$WORK/err")" "$(head -10 "$WORK/diff")"
fi
sb report --results "$R" --job "$PP" --base "${A:0:7}" --head "$B"
mail_body "$WORK/out" >"$WORK/prefix.eml"
check "report --job with a prefix: the mail of the full shas" \
	bash -c "[ $rc -eq 0 ] && cmp -s $WORK/full.eml $WORK/prefix.eml"

# Another job run at a commit whose sha starts as A's: A's first 8 digits start two labels.
AMB=${A:0:8}$(printf '%032d' 0)
mkdir -p "$R/$OTHER"
cp -r "$R/$SUB/$A" "$R/$OTHER/$AMB"
cp -r "$R/$SUB/$B" "$R/$OTHER/$B"
sb compare --results "$R" --commits "${A:0:8},$B"
check "compare: an ambiguous prefix is an error (exit 2) naming the option and value" bash -c \
	"[ $rc -eq 2 ] && grep -q \"^scalebench compare: --commits '${A:0:8}' is ambiguous\" $WORK/err"
check "compare: the ambiguous prefix's candidates, each with its job" bash -c \
	"grep -q '$A (in $SUB)' $WORK/err && grep -q '$AMB (in $OTHER)' $WORK/err"
check "compare: an ambiguous prefix prints no table" bash -c "! grep -q 'commit:' $WORK/out"
sb compare --results "$R" --job "$PP" --commits "${A:0:8},$B"
same_table "compare --job: a prefix is read among that job's labels alone"
sb report --results "$R" --base "${A:0:8}" --head "$B"
check "report: an ambiguous --base is an error (exit 2) naming its candidates" bash -c \
	"[ $rc -eq 2 ] && grep -q \"^scalebench report: --base '${A:0:8}' is ambiguous\" $WORK/err && grep -q '$AMB (in $OTHER)' $WORK/err && [ ! -s $WORK/out ]"
sb report --results "$R" --base "$A" --head "${B:0:6}"
check "report: a prefix of labels of one commit in several jobs is that commit" [ $rc -eq 0 ]

# A label given whole wins over the labels it starts; fewer than 4 digits are no prefix.
R2=$WORK/exact
cp -r "$FIX" "$R2"
mv "$R2/$SUB/base" "$R2/$SUB/abcd"
mv "$R2/$SUB/patched" "$R2/$SUB/abcd0123456789abcdef0123456789abcdef0123"
sb compare --results "$R2" --commits abcd,abcd0123456789abcdef0123456789abcdef0123
cp "$WORK/out" "$WORK/full.txt"
full_rc=$rc
sb compare --results "$R2" --commits abcd,abcd0
same_table "compare: a label given whole (abcd) wins over the labels it starts"
sb compare --results "$R2" --commits abc,abcd0
check "compare: 3 digits are no prefix (no runs: exit 2)" [ $rc -eq 2 ]
