#!/bin/bash
# kind: browser: drives headless Chromium (tests/browser/check_site.mjs)
# scalebench html: the site of a results tree with a known step, opened page by page in
# headless Chromium (tests/browser/check_site.mjs); incremental regeneration, escaping of
# labels and stat names, permissions.
set -u
. "$(dirname "$0")/../lib.sh"

TREE=tests/fixtures/html/make-tree.py
SITE=$WORK/site
J1=$SITE/jobs/process-1-page_fault3
J2=$SITE/jobs/process-2-page_fault3

# browse NAME EXPECT.json: every page of $SITE checked in Chromium; screenshots in $WORK/shots.
browse() {
	local out
	out=$(node tests/browser/check_site.mjs "$SITE" --expect "$2" --screenshots "$WORK/shots" 2>&1)
	if [ $? -eq 0 ]; then
		pass "$1 ($(tail -1 <<<"$out"))"
	else
		fail "$1" "$out"
	fi
}

# mtimes: every file of the site with its modification time, sorted by name.
mtimes() {
	(cd "$SITE" && find . -type f -printf '%p %T@\n' | sort)
}

sb html --help
check "html --help: synopsis and options" bash -c "[ $rc -eq 0 ] && grep -q 'usage: scalebench html' $WORK/out && grep -q -- '--output SITE' $WORK/out"
sb html --results "$WORK/none"
check "html without -o: exit 2, names the option" bash -c "[ $rc -eq 2 ] && grep -q -- '--output' $WORK/err"
sb html --results "$WORK/none" -o "$WORK/x" --branch main
check "html --branch without --repo: exit 2" bash -c "[ $rc -eq 2 ] && grep -q -- '--branch needs --repo' $WORK/err"

# The browser is part of the test, never skipped: without it, say how to get it.
if [ ! -x /usr/bin/chromium ] || [ ! -d tests/browser/node_modules/playwright-core ] ||
	! command -v node >/dev/null; then
	fail "html: the browser test needs Debian's chromium (/usr/bin/chromium), node and tests/browser/node_modules (playwright-core): run make setup (CI installs them)"
	exit 1
fi

# 8 commits x 3 runs at 1 and 2 tasks, 10% slower from c005 on; the last commit's label and a
# headline stat's name carry HTML; the last two commits of the first job have profiles.
python3 $TREE "$WORK/r" --evil --profile tests/fixtures/profile/diff
EVIL_LABEL="v<script>alert(1)&\"'"
EVIL_STAT="will-it-scale.<script>alert(2)</script>&\"'"

mkdir -p "$WORK/notsite" && echo keep >"$WORK/notsite/mine.txt"
rc=0
SCALEBENCH_GNUPLOT=/nonexistent/gnuplot "$SCALEBENCH" html --results "$WORK/r" -o "$WORK/nognuplot" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "html without gnuplot: exit 2, says what to install, writes nothing" bash -c \
	"[ $rc -eq 2 ] && grep -q 'gnuplot-nox' $WORK/err && [ ! -e $WORK/nognuplot ]"
sb html --results "$WORK/r" -o "$WORK/notsite"
check "html into a directory with other files and no manifest: exit 2, left alone" bash -c \
	"[ $rc -eq 2 ] && grep -q 'not a site scalebench wrote' $WORK/err && [ \"\$(ls $WORK/notsite)\" = mine.txt ]"

rc=0
(umask 022 && "$SCALEBENCH" html --results "$WORK/r" -o "$SITE" >"$WORK/out" 2>"$WORK/err") || rc=$?
# (the two jobs share their 8 commits: counted once)
check "html: exit 0, the summary line" bash -c \
	"[ $rc -eq 0 ] && grep -q 'index.html: 2 jobs, 8 commits, 4 comparisons' $WORK/out"
[ $rc -eq 0 ] || cat "$WORK/err"
# Every change, for people (regressions.html, and the index's open ones first) and for bots
# (changes.json): the step at c005 in both jobs, its range, its comparison page.
check "changes.json: the step of each job at c005, its range holding it, its comparison page" \
	python3 -c "
import json, os, sys
d = json.load(open(sys.argv[1] + '/changes.json'))
c = d['changes']
assert d['version'] == 1 and len(c) == 2, c
for e in c:
    assert e['commit'] == 'c005' and e['base'] == 'c004' and 'c005' in e['range'], e
    assert e['verdict'] == 'regression' and -12 < e['change_pct'] < -8 and e['open'], e
    assert os.path.isfile(sys.argv[1] + '/' + e['comparison']) and os.path.isfile(sys.argv[1] + '/' + e['page']), e
assert sorted(e['path_params'] for e in c) == ['process-1-page_fault3', 'process-2-page_fault3']
" "$SITE"
check "regressions.html and the index's open changes: both jobs' step, linked to its comparison" bash -c \
	"[ \$(grep -c 'href=\"jobs/process-[12]-page_fault3/c-c005.html\"' $SITE/regressions.html) -eq 2 ] &&
	 grep -q '<h2>Open changes</h2>' $SITE/index.html &&
	 [ \$(sed -n '/id=\"open-changes\"/,/<\/table>/p' $SITE/index.html | grep -c 'c-c005.html') -eq 2 ]"
check "umask 022: every file 0644, every directory 0755" bash -c \
	"[ -z \"\$(find $SITE -type f ! -perm 0644)\" ] && [ -z \"\$(find $SITE -type d ! -perm 0755)\" ] && [ -n \"\$(find $SITE -type f)\" ]"
check "html: no inline script and no event attribute in any page, only the scripts uPlot.iife.min.js and trend.js" bash -c \
	"! grep -rqi -e ' on[a-z]*=' --include='*.html' $SITE && grep -rq '<script' --include='*.html' $SITE &&
	 ! grep -rhoi '<script[^>]*>' --include='*.html' $SITE | grep -v -x -e '<script src=\"../../uPlot.iife.min.js\">' -e '<script src=\"../../trend.js\">'"
# The interactive trend plot: uPlot (make setup's site-assets/) copied once, at the root.
UPLOT=site-assets/node_modules/uplot/dist
check "html: uPlot's script and style sheet and trend.js copied into the site once" bash -c \
	"cmp $UPLOT/uPlot.iife.min.js $SITE/uPlot.iife.min.js && cmp $UPLOT/uPlot.min.css $SITE/uPlot.min.css &&
	 [ -s $SITE/trend.js ] && [ \$(find $SITE -name 'uPlot*' -o -name 'trend.js' | wc -l) -eq 3 ]"
# Each stat of a job: its series for the plot (data/s-STAT.js, JSON handed to a function) and
# its CSV, the same numbers; the picker lists them all; the hostile stat's name intact.
check "html: every stat of each job has its series data and its CSV, the same rows, in the picker" python3 -c "
import csv, glob, html, json, os, re, sys
site, evil = sys.argv[1:]
for job in ('process-1-page_fault3', 'process-2-page_fault3'):
    d = f'{site}/jobs/{job}'
    page = open(d + '/index.html').read()
    opts = [html.unescape(o) for o in re.findall(r'<option value=\"[^\"]*\"(?: selected)?>([^<]*)</option>', page)]
    assert len(opts) == 5 and opts[0] == 'will-it-scale.per_process_ops' and evil in opts and 'proc-vmstat.pgfault' in opts, opts
    commits = json.loads(re.fullmatch(r'scalebenchCommits\((.*)\);\n', open(d + '/data/commits.js').read(), re.S).group(1))
    assert commits['labels'][:2] == ['c001', 'c002'] and len(commits['labels']) == 8, commits
    files = sorted(glob.glob(d + '/data/s-*.js'))
    assert len(files) == 5, files
    names = set()
    for f in files:
        s = json.loads(re.fullmatch(r'scalebenchSeries\((.*)\);\n', open(f).read(), re.S).group(1))
        names.add(s['stat'])
        rows = list(csv.reader(open(f[:-3] + '.csv')))
        assert rows[0] == 'commit runs mean stddev min max'.split(), rows[0]
        want = [(l, n, m) for l, n, m in zip(commits['labels'], s['runs'], s['mean']) if m is not None]
        assert [(r[0], int(r[1]), float(r[2])) for r in rows[1:]] == want, (f, rows, want)
        if s['followed']:
            assert s['stat'] == 'will-it-scale.per_process_ops' and [c['commit'] for c in s['change_points']] == ['c005'], s
            assert [(g['from'], g['to']) for g in s['segments']] == [(0, 3), (4, 7)], s['segments']
    assert names == set(opts), (names, opts)
" "$SITE" "$EVIL_STAT"
check "html: the label and the stat name reach the pages escaped" bash -c \
	"grep -q 'v&lt;script&gt;alert(1)&amp;&quot;&#39;' $SITE/index.html &&
	 grep -rq 'will-it-scale.&lt;script&gt;alert(2)&lt;/script&gt;&amp;&quot;&#39;' $J1/"
check "html: file names from labels are safe" bash -c \
	"[ -z \"\$(cd $SITE && find . -name '*[<>\"&'\\'']*' -o -name '.?*' ! -name .scalebench-site.json ! -name .)\" ]"

EVIL_PAGE=$(cd "$SITE" && ls jobs/process-1-page_fault3/c-v_script*.html)
python3 - "$WORK/expect.json" "$EVIL_PAGE" "$EVIL_LABEL" "$EVIL_STAT" <<'PY'
import json, sys
out, evil, label, stat = sys.argv[1:]
j = lambda n: f"jobs/process-{n}-page_fault3"
pages = {"index.html": {"tables": {"jobs": 2}, "contains": [label, "process-1-page_fault3"], "min_plots": 2}}
for n in (1, 2):
    pages[f"{j(n)}/index.html"] = {"tables": {"commits": 8, "change-points": 1}, "contains": ["c005", label], "min_plots": 1}
    pages[f"{j(n)}/c-c005.html"] = {"tables": {"groups": 2}, "contains": ["regression", "c004"], "min_plots": 2}
pages[evil] = {"tables": {"groups": 2}, "contains": [label, stat, "perf-profile.self.cpu-clock"], "min_plots": 2}
# The interactive plot: hover the step's commit, drag to zoom, pick the hostile stat, download
# its CSV (the label carrying HTML is the last commit: its row is in the CSV).
pages[f"{j(1)}/index.html"]["trend"] = {"hover": {"commit": "c005", "contains": ["c005", "will-it-scale.per_process_ops: mean ", "3 runs", "stddev"]},
                                        "zoom": True, "switch_to": stat, "csv": True}
pages[f"{j(2)}/index.html"]["trend"] = {"hover": {"commit": label, "contains": [label]}, "switch_to": "proc-vmstat.pgfault", "csv": True}
json.dump({"pages": pages, "pages_min": 7,
           "forbid_selectors": ["script:not([src])", "iframe", "[onerror]", "[onload]", "[onclick]"]},
          open(out, "w"), indent=1)
PY
browse "html: every page loads in Chromium with its rows, plots and links" "$WORK/expect.json"
check "html: the comparison at the step shows the robot table and the scalability plot" bash -c \
	"grep -q 'id=\"robot\"' $J1/c-c005.html && grep -q '%change' $J1/c-c005.html && [ -s $J1/c-c005/scalability.svg ]"

# Nothing new: nothing rewritten, not even the manifest.  (The site's files dated back first:
# a file rewritten now shows a new time however coarse the file system's clock.)
find "$SITE" -type f -exec touch -d '2000-01-01 00:00:00' {} +
mtimes >"$WORK/m1"
sb html --results "$WORK/r" -o "$SITE"
mtimes >"$WORK/m2"
check "html again, nothing new: no file rewritten" bash -c \
	"[ $rc -eq 0 ] && grep -q ' 0 files written' $WORK/out && diff $WORK/m1 $WORK/m2 >/dev/null"

# One new night for the first job: only its pages, the index and the manifest change.
python3 $TREE "$WORK/r" --commits 9 --only 9 --jobs 1
sb html --results "$WORK/r" -o "$SITE"
mtimes >"$WORK/m3"
changed=$(diff "$WORK/m2" "$WORK/m3" | grep '^[<>]' | awk '{print $2}' | sort -u)
# (changes.json and regressions.html list every job's changes: they may change too)
check "html after one new commit: only that job's pages, the index, the changes and the manifest change" bash -c \
	"[ $rc -eq 0 ] && ! grep -v -e '^./jobs/process-1-page_fault3/' -e '^./index.html$' -e '^./.scalebench-site.json$' -e '^./changes.json$' -e '^./regressions.html$' <<<'$changed' &&
	 grep -q '^./index.html$' <<<'$changed' && grep -q 'process-1-page_fault3/c-c009.html' <<<'$changed' &&
	 grep -q 'process-1-page_fault3/index.html' <<<'$changed'"
check "html after one new commit: the step's comparison kept, the old latest removed" bash -c \
	"! grep -q 'c-c005' <<<'$changed' && [ ! -e '$SITE/$EVIL_PAGE' ] && grep -q ' [1-9][0-9]* removed' $WORK/out"
python3 - "$WORK/expect.json" "$WORK/expect2.json" "$EVIL_PAGE" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
del e["pages"][sys.argv[3]]
e["pages"]["jobs/process-1-page_fault3/index.html"]["tables"]["commits"] = 9
e["pages"]["jobs/process-1-page_fault3/c-c009.html"] = {"tables": {"groups": 2}}
json.dump(e, open(sys.argv[2], "w"))
PY
browse "html after one new commit: every page still checks out" "$WORK/expect2.json"

# A stat named on the command line is followed instead of the headline.
# (and --commit-url: the hostile label percent-encoded in the link, its text escaped)
sb html --results "$WORK/r" -o "$WORK/site-stat" --stat proc-vmstat.pgfault --job process-2-page_fault3 \
	--commit-url 'https://git.example.org/c/%s'
check "html --stat --job: one job, that stat" bash -c \
	"[ $rc -eq 0 ] && grep -q '1 job,' $WORK/out && grep -q 'proc-vmstat.pgfault' $WORK/site-stat/index.html &&
	 ! grep -q 'process-1-page_fault3' $WORK/site-stat/index.html"
check "html --commit-url: a label carrying HTML is percent-encoded in its link, escaped in its text" bash -c \
	"grep -qF '<a class=\"commit\" href=\"https://git.example.org/c/v%3Cscript%3Ealert%281%29%26%22%27\">v&lt;script&gt;alert(1)&amp;&quot;&#39;</a>' \
	 $WORK/site-stat/jobs/process-2-page_fault3/index.html"
for bad in 'javascript:alert(1)//%s' 'https://git.example.org/c/' 'https://%s.example.org/' 'https://git.example.org/%s/%s' 'https://git.example.org/c/%s"x'; do
	sb html --results "$WORK/r" -o "$WORK/site-badurl" --commit-url "$bad"
	check "html --commit-url '$bad': exit 2, named, nothing written" bash -c \
		"[ $rc -eq 2 ] && grep -q -- '--commit-url: commit URL template' $WORK/err && [ ! -e $WORK/site-badurl ]"
done

# The same night for the second job: the first job's comparison at c009 now has a sweep to
# plot, so it is made again though the first job's own runs did not change.
python3 $TREE "$WORK/r" --commits 9 --only 9 --jobs 2
mtimes >"$WORK/m4"
sb html --results "$WORK/r" -o "$SITE"
mtimes >"$WORK/m5"
changed=$(diff "$WORK/m4" "$WORK/m5" | grep '^[<>]' | awk '{print $2}' | sort -u)
check "html after the sweep's other job ran: its pages and the sweep's comparison change" bash -c \
	"[ $rc -eq 0 ] && grep -q 'process-2-page_fault3/c-c009.html' <<<'$changed' &&
	 grep -q 'process-1-page_fault3/c-c009.html' <<<'$changed' && [ -s $J1/c-c009/scalability.svg ] &&
	 ! grep -q 'process-1-page_fault3/index.html' <<<'$changed'"

# Runs that declare no headline stat: the job is listed, its page says why it has no trend.
# (The second job's task count is LKP's 100%: its page's path spells it pct, no hash.)
for job in process-1-x process-100%-x; do
	N=$WORK/nohead/x/$job/box/debian-12-x86_64/defconfig/gcc-12
	for c in a b; do
		mkdir -p "$N/$c/0" && echo '{"x.y": 1}' >"$N/$c/0/stats.json"
		echo "{\"status\": \"ok\", \"started\": \"2027-01-0${c/a/1}T00:00:00+0000\"}" | sed 's/0b/02/' >"$N/$c/0/meta.json"
	done
done
SITE=$WORK/site-nohead
sb html --results "$WORK/nohead" -o "$SITE"
check "html, no headline declared: exit 0, said, the job page says why" bash -c \
	"[ $rc -eq 0 ] && grep -q 'no stat to follow' $WORK/err && grep -q 'No stat to follow' $SITE/jobs/process-1-x/index.html"
check "html: a job's page path is its parameters, readable (100% as 100pct), no hash" bash -c \
	"[ \"\$(cd $SITE/jobs && LC_ALL=C ls -d *)\" = \"\$(printf 'process-1-x\nprocess-100pct-x')\" ] &&
	 grep -q 'href=\"jobs/process-100pct-x/index.html\"' $SITE/index.html"
echo '{"pages": {"index.html": {"tables": {"jobs": 2}}, "jobs/process-1-x/index.html": {"tables": {"commits": 2, "change-points": 0}}, "jobs/process-100pct-x/index.html": {"tables": {"commits": 2}}}}' >"$WORK/expect3.json"
browse "html, no headline declared: the pages check out" "$WORK/expect3.json"

# --repo/--branch: commits in the branch's first-parent order, not their runs' time order;
# a label not on the branch left out.
R=$WORK/repo
git init -q -b main "$R"
for i in 1 2 3 4 5 6; do git -C "$R" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "c$i"; done
git -C "$R" log --first-parent --format=%H main >"$WORK/labels" # newest first: time order reversed
git -C "$R" checkout -q -b side && git -C "$R" -c user.name=t -c user.email=t@t commit -q --allow-empty -m side
git -C "$R" rev-parse HEAD >>"$WORK/labels" && git -C "$R" checkout -q main
python3 $TREE "$WORK/rb" --commits 7 --labels "$WORK/labels" --step-at 99 --jobs 1
SITE=$WORK/site-branch
sb html --results "$WORK/rb" -o "$SITE" --repo "$R" --branch main
head=$(git -C "$R" rev-parse main)
first=$(grep -o 'id="commit-[^"]*"' "$SITE/jobs/process-1-page_fault3/index.html" | head -1)
check "html --repo --branch: the branch's commits only, its head first" bash -c \
	"[ $rc -eq 0 ] && [ '$first' = 'id=\"commit-$head\"' ] && grep -q ', branch main' $SITE/index.html"
# With --repo, a change names its commit's subject, author and date (8 commits, the step at
# the fifth: the change points' permutation test needs that many).
R2=$WORK/repo-step
git init -q -b main "$R2"
# (the last commit's subject carries HTML: the interactive plot's hover shows it as text)
EVIL_SUBJECT="c8 <img src=x onerror=alert(3)>&\"'</script>"
for i in 1 2 3 4 5 6 7 8; do
	msg=c$i
	[ $i -eq 8 ] && msg=$EVIL_SUBJECT
	git -C "$R2" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "$msg"
done
git -C "$R2" log --reverse --format=%H main >"$WORK/labels-step"
python3 $TREE "$WORK/rbs" --commits 8 --labels "$WORK/labels-step" --step-at 5 --jobs 1
sb html --results "$WORK/rbs" -o "$WORK/site-branch-step" --repo "$R2" --branch main \
	--commit-url 'https://git.example.org/linux/c/%s?h=main&x=1'
check "html --repo: a change names its commit's subject and author" python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['changes']
assert len(c) == 1 and c[0]['subject'] == 'c5' and c[0]['author'] == 't' and c[0]['date'], c
" "$WORK/site-branch-step/changes.json"
check "html --commit-url: every commit shown links to its page, the template's & escaped" python3 -c "
import re, sys
site, labels = sys.argv[1:]
l = open(labels).read().split()
href = lambda c: f'<a class=\"commit\" href=\"https://git.example.org/linux/c/{c}?h=main&amp;x=1\">{c}</a>'
job = open(site + '/jobs/process-1-page_fault3/index.html').read()
commits = job[job.index('id=\"commits\"'):]
assert all(href(c) in commits for c in l), 'a commit of the commits table without its link'
assert href(l[4]) in job[job.index('id=\"change-points\"'):job.index('id=\"commits\"')], 'the change point without its link'
cmp = open(f'{site}/jobs/process-1-page_fault3/c-{l[4]}.html').read()
assert href(l[3]) in cmp and href(l[4]) in cmp, 'the comparison page without links to base and head'
for page in ('index.html', 'regressions.html'):
    assert href(l[4]) in open(f'{site}/{page}').read(), page + ': the change without its link'
" "$WORK/site-branch-step" "$WORK/labels-step"
echo '{"pages": {"index.html": {"tables": {"jobs": 1}}, "jobs/process-1-page_fault3/index.html": {"tables": {"commits": 6}}}}' >"$WORK/expect4.json"
browse "html --repo --branch: the pages check out, 6 commits" "$WORK/expect4.json"
python3 - "$WORK/expect6.json" "$WORK/labels-step" "$EVIL_SUBJECT" <<'PY'
import json, sys
out, labels, subject = sys.argv[1:]
l = open(labels).read().split()
json.dump({"pages": {"jobs/process-1-page_fault3/index.html": {"tables": {"commits": 8}, "external_links_min": 11, "trend": {
    "hover": {"commit": l[4], "contains": [l[4] + " c5", "t, 20", "mean "]}}},
                     "index.html": {"external_links_min": 3}, "regressions.html": {"external_links_min": 1},
                     f"jobs/process-1-page_fault3/c-{l[4]}.html": {"external_links_min": 4}},
           "external_links": ["https://git.example.org/linux/c/"],
           "forbid_selectors": ["script:not([src])", "img[onerror]", "[onerror]"]}, open(out, "w"))
json.dump({"pages": {"jobs/process-1-page_fault3/index.html": {"tables": {"commits": 8}, "trend": {
    "hover": {"commit": l[7], "contains": [l[7] + " " + subject]}, "csv": True}}},
           "external_links": ["https://git.example.org/linux/c/"],
           "forbid_selectors": ["script:not([src])", "img[onerror]", "[onerror]"]}, open(out + ".evil", "w"))
PY
SITE=$WORK/site-branch-step
browse "html --repo --commit-url: hovering a commit of the interactive plot shows its sha, subject, author and date; commit links on every page" "$WORK/expect6.json"
browse "html --repo: a commit subject carrying HTML shows as text in the hover, runs nothing" "$WORK/expect6.json.evil"

# Without uPlot (not installed, or SCALEBENCH_UPLOT naming a directory without it): said, and
# the site is whole with its SVG plots, no series data and no script.
SITE=$WORK/site-nouplot
rc=0
SCALEBENCH_UPLOT=$WORK/nouplot "$SCALEBENCH" html --results "$WORK/r" -o "$SITE" >"$WORK/out" 2>"$WORK/err" || rc=$?
check "html without uPlot: exit 0, a note naming it, SVG plots only, no script" bash -c \
	"[ $rc -eq 0 ] && grep -q 'nouplot/uPlot.iife.min.js' $WORK/err && grep -q 'keep their SVG trend plots' $WORK/err &&
	 [ ! -e $SITE/uPlot.iife.min.js ] && [ ! -e $SITE/jobs/process-1-page_fault3/data ] &&
	 ! grep -rq --include='*.html' '<script' $SITE && [ -s $SITE/jobs/process-1-page_fault3/trend.svg ]"
echo '{"pages": {"index.html": {"tables": {"jobs": 2}, "min_plots": 2}, "jobs/process-1-page_fault3/index.html": {"tables": {"commits": 9}, "min_plots": 1}}, "pages_min": 7}' >"$WORK/expect7.json"
browse "html without uPlot: every page checks out with its SVG plots" "$WORK/expect7.json"

# SIGTERM or SIGINT while the site is written: exit 128+N (or 0 when it was done), no temp
# file left, every file whole, and the next run completes the site: byte for byte the site
# of an uninterrupted run, which is checked in Chromium (the output is deterministic).
# (the latest night: a kernel warning in the first job's runs, one of them failed; the last
# job's runs measured on a busy machine)
python3 $TREE "$WORK/rs" --commits 40 --step-at 20 --jobs 1,2,4 --warn-at 40 --busy-at 40
SITE=$WORK/site-whole
sb html --results "$WORK/rs" -o "$SITE"
WARN=dmesg.WARNING:at_mm/memory.c:1234_do_fault
check "html: the index lists the new failure first, each job's flags in its row" python3 -c "
import html, re, sys
page = open(sys.argv[1] + '/index.html').read()
assert page.index('<h2>Failures</h2>') < page.index('<h2>Open changes</h2>') < page.index('<h2>Jobs</h2>'), 'summaries not first'
fails = page[page.index('id=\"open-failures\"'):].split('</table>')[0]
rows = re.findall(r'<tr class=\"open\">(.*?)</tr>', fails)
assert len(rows) == 1 and sys.argv[2] in rows[0] and 'c040' in rows[0] and '3:3' in rows[0] and 'still: 3:3' in rows[0], fails
jobs = {re.search(r'jobs/([^/]*)/index.html', r).group(1): r for r in page.split('id=\"jobs\"')[1].split('<tr>')[2:]}
flags = {j: html.unescape(re.sub('<[^>]*>', '', re.search(r'<td class=\"flags\">(.*?)</td>', r).group(1))).strip() for j, r in jobs.items()}
assert flags == {'process-1-page_fault3': '1 failure 1 of 3 runs failed', 'process-2-page_fault3': '',
                 'process-4-page_fault3': '3 of 3 runs on a busy machine (runnable tasks 3.2 on 2 CPUs)'}, flags
" "$SITE" "$WARN"
cat >"$WORK/expect5.json" <<EOF
{"pages": {"index.html": {"tables": {"jobs": 3, "open-failures": 1, "open-changes": 3},
                          "contains": ["$WARN", "1 failure", "1 of 3 runs failed", "3 of 3 runs on a busy machine (runnable tasks 3.2 on 2 CPUs)"]},
           "jobs/process-4-page_fault3/index.html": {"contains": ["3 of 3 runs on a busy machine"]},
           "jobs/process-4-page_fault3/c-c040.html": {"tables": {"groups": 2}, "contains": ["3 of 3 runs on a busy machine of head"]}},
 "pages_min": 7}
EOF
browse "html, 3 jobs x 40 commits: the site checks out, the failure and the busy runs flagged on the index and the pages" "$WORK/expect5.json"
for sig in TERM INT; do
	SITE=$WORK/site-sig-$sig
	"$SCALEBENCH" html --results "$WORK/rs" -o "$SITE" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	sleep 0.$((RANDOM % 5 + 3))
	kill -$sig $pid 2>/dev/null
	rc=0
	wait $pid || rc=$?
	want=$((128 + $(kill -l $sig)))
	check "html, SIG$sig while writing: exit $want or 0 (got $rc), no temp file left" bash -c \
		"[ $rc -eq $want -o $rc -eq 0 ] && [ -z \"\$(find $SITE -name '*.tmp.*')\" ]"
	sb html --results "$WORK/rs" -o "$SITE"
	check "html after SIG$sig, run again: the site is complete" bash -c \
		"[ $rc -eq 0 ] && diff -r $WORK/site-whole $SITE"
done

# A signal while gnuplot draws a page's third plot (a gnuplot that draws two, then waits):
# the page that lost its plots is not kept, so the next run draws them and the site is again
# the uninterrupted run's.
cat >"$WORK/slow-gnuplot" <<EOF
#!/bin/sh
n=\$(cat "$WORK/gp-calls" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$WORK/gp-calls"
[ "\$n" -lt 2 ] && exec "$(command -v gnuplot)" "\$@"
touch "$WORK/gp-started"
exec sleep 30
EOF
chmod +x "$WORK/slow-gnuplot"
SITE=$WORK/site-sig-plot
SCALEBENCH_GNUPLOT=$WORK/slow-gnuplot "$SCALEBENCH" html --results "$WORK/rs" -o "$SITE" >"$WORK/out" 2>"$WORK/err" &
pid=$!
wait_until 20 test -e "$WORK/gp-started"
kill -TERM $pid 2>/dev/null
rc=0
wait $pid || rc=$?
killed=$rc
sb html --results "$WORK/rs" -o "$SITE"
check "html, SIGTERM while gnuplot draws: exit 143, the next run draws the plots" bash -c \
	"[ -e $WORK/gp-started ] && [ $killed -eq 143 ] && [ $rc -eq 0 ] && diff -r $WORK/site-whole $SITE"

# The checker itself: a plot that renders blank fails the page, named (a site without uPlot:
# its SVG trend plot is the one shown).
cp -r "$WORK/site-nouplot" "$WORK/site-blank"
echo '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="420"><rect width="900" height="420" fill="#fff"/></svg>' \
	>"$WORK/site-blank/jobs/process-1-page_fault3/trend.svg"
rc=0
out=$(node tests/browser/check_site.mjs "$WORK/site-blank" 2>&1) || rc=$?
check "check_site.mjs: a blank plot fails its page, named" bash -c \
	"[ $rc -eq 1 ] && grep -q 'trend.svg: renders blank' <<<'$out'"

# The umask is honoured, not only 022's result: under 027 nothing is readable by others.
SITE=$WORK/site-027
rc=0
(umask 027 && "$SCALEBENCH" html --results "$WORK/r" -o "$SITE" >"$WORK/out" 2>"$WORK/err") || rc=$?
check "umask 027: every file 0640, every directory 0750" bash -c \
	"[ $rc -eq 0 ] && [ -z \"\$(find $SITE -type f ! -perm 0640)\" ] && [ -z \"\$(find $SITE -type d ! -perm 0750)\" ]"

# A symbolic link planted in the site where a directory belongs: html writes nothing through it
# and removes nothing through it (pages of a new commit, stale files of a job gone), says
# which, exit 2; what the link points to stays as it was, byte for byte and time for time.
tree_state() { (cd "$1" && find . -printf '%p %y %s %T@\n' | sort); }
python3 $TREE "$WORK/rl" --commits 8
SITE=$WORK/site-link
sb html --results "$WORK/rl" -o "$SITE"
mv "$SITE/jobs/process-1-page_fault3" "$WORK/outside1"
ln -s "$WORK/outside1" "$SITE/jobs/process-1-page_fault3"
tree_state "$WORK/outside1" >"$WORK/outside1.before"
python3 $TREE "$WORK/rl" --commits 9 --only 9 --jobs 1
sb html --results "$WORK/rl" -o "$SITE"
check "html, a symlink planted at jobs/J, a new commit: exit 2 naming it, nothing written or removed through it" bash -c \
	"[ $rc -eq 2 ] && grep -q 'jobs/process-1-page_fault3: a symbolic link in the site where a directory belongs' $WORK/err &&
	 tree_state() { (cd \"\$1\" && find . -printf '%p %y %s %T@\n' | sort); }; tree_state $WORK/outside1 | cmp -s - $WORK/outside1.before"
rm "$SITE/jobs/process-1-page_fault3" && mv "$WORK/outside1" "$SITE/jobs/process-1-page_fault3"
sb html --results "$WORK/rl" -o "$SITE"
check "html, the link replaced by the directory again: exit 0, the new commit's page" bash -c \
	"[ $rc -eq 0 ] && [ -s $SITE/jobs/process-1-page_fault3/c-c009.html ]"
rm -rf "$WORK/rl/will-it-scale/process-2-page_fault3"
mv "$SITE/jobs/process-2-page_fault3" "$WORK/outside2"
ln -s "$WORK/outside2" "$SITE/jobs/process-2-page_fault3"
tree_state "$WORK/outside2" >"$WORK/outside2.before"
sb html --results "$WORK/rl" -o "$SITE"
check "html, a job gone, a symlink at its directory: exit 2 naming it, no stale file removed through it" bash -c \
	"[ $rc -eq 2 ] && grep -q 'jobs/process-2-page_fault3: a symbolic link in the site' $WORK/err &&
	 grep -q 'not removed through a symbolic link' $WORK/err && [ -s $WORK/outside2/index.html ] &&
	 tree_state() { (cd \"\$1\" && find . -printf '%p %y %s %T@\n' | sort); }; tree_state $WORK/outside2 | cmp -s - $WORK/outside2.before"

# A plot that cannot be written (its directory on a full tmpfs) is not recorded as written:
# exit 1 naming it, the page that shows it out of the manifest's fresh files, and the next
# html once there is space draws it.
python3 $TREE "$WORK/rf" --commits 8 --jobs 1
SITE=$WORK/site-full
sb html --results "$WORK/rf" -o "$SITE"
python3 $TREE "$WORK/rf" --commits 9 --only 9 --jobs 1
FULLDIR=$SITE/jobs/process-1-page_fault3/c-c009
mkdir "$FULLDIR"
if mount -t tmpfs -o size=64k tmpfs "$FULLDIR"; then
	trap 'umount "$FULLDIR" 2>/dev/null; json_later_run; work_remove' EXIT
	dd if=/dev/zero of="$FULLDIR/filler" bs=4k 2>/dev/null
	sb html --results "$WORK/rf" -o "$SITE"
	check "html, the comparison's plots on a full disk: exit 1, the site incomplete, the plot named" bash -c \
		"[ $rc -eq 1 ] && grep -q 'the site is incomplete: [0-9]* plots\\? could not be written (jobs/process-1-page_fault3/c-c009/s-' $WORK/err &&
		 grep -q 'No space left on device' $WORK/err && [ -s $SITE/jobs/process-1-page_fault3/c-c009.html ]"
	check "html, full disk: no plot of c009 in the manifest, its page marked incomplete" python3 -c "
import json, sys
f = json.load(open(sys.argv[1] + '/.scalebench-site.json'))['files']
assert not [k for k in f if '/c-c009/' in k], f.keys()
assert f['jobs/process-1-page_fault3/c-c009.html'].get('incomplete') is True, f['jobs/process-1-page_fault3/c-c009.html']
" "$SITE"
	rm -f "$FULLDIR/filler"
	sb html --results "$WORK/rf" -o "$SITE"
	check "html, space again: exit 0, the missing plots drawn and shown" bash -c \
		"[ $rc -eq 0 ] && ls $FULLDIR/s-*.svg >/dev/null && grep -q 'src=\"c-c009/s-' $SITE/jobs/process-1-page_fault3/c-c009.html"
	umount "$FULLDIR"
else
	fail "html, full disk: cannot mount a tmpfs (tests run as root)"
fi
