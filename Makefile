# scalebench — build, test, run, install.
#
#   make setup      install the Debian packages the project needs (root or sudo)
#   make            build build/scalebench, its helper binaries and the man pages (build/man)
#   make run        the main job (jobs/default.yaml): page_fault3, fallocate1, exec1 at 1 and
#                   nproc copies, both modes, with the default monitors, into ./results
#   make check      build with ASan+UBSan and run every test (unit, end-to-end, and each fuzzer
#                   replaying its corpus once), nproc files at a time
#   make setup-kernel  also what building kernels needs (linux-source-6.1, build tools, ccache)
#   make check-kernel  the kernel lab: build, boot, bisect a planted kernel regression
#   make fuzz       build the libFuzzer harnesses (clang) and explore with each for FUZZ_TIME
#                   seconds, nproc harnesses at a time
#   make bench      the benchmarks in bench/ (harness, monitors, analyzer)
#   make plugin-example  build/examples/uname_plugin.so, the example plug-in
#   make install    PREFIX=/usr/local DESTDIR= (the man pages into MANDIR, PREFIX/share/man;
#                   their HTML into DOCDIR/html)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/scalebench
DATADIR    ?= $(PREFIX)/share/scalebench
INCLUDEDIR ?= $(PREFIX)/include
# scalebench help CMD finds its page as bin/../share/man/man1/scalebench-CMD.1.
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/scalebench

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror
ALL_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -pthread -MMD -MP -I$(B)/gen \
	     -DSCALEBENCH_LIBEXECDIR='"$(LIBEXECDIR)"' -DSCALEBENCH_DATADIR='"$(DATADIR)"' $(CFLAGS)
LIBS     = -lsqlite3 -ljansson -lyaml -lpfm -lhwloc -lelf -lz -lRmath -lm -ldl -pthread
# Plug-ins call back into these; nothing else of the binary is exported.
EXPORTS  = -Wl,--dynamic-list=testcases/plugin-exports.list
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The sanitizer build compiles at -O1 with line tables only (what a sanitizer's report needs:
# function, file and line), half the compile time of -O2 -g; the plain build is the one to
# debug and measure.
ASAN_OPT = -O1 -g1
# The sanitizer binary is linked as a fixed-address executable: its ASan and UBSan metadata
# hold ~86,000 pointers that a PIE relocates at every start (~8% of the 0.085 s a start costs;
# the e2e tests start it ~2,000 times).  It is never installed.
ASAN_LINK = -no-pie

# Layers, each a static archive; a layer may use only the layers below it (README, Layout):
#   builtin -> workflow -> {runner, analyze} -> {store, core, monitors} -> lib; core -> testcases
# (the link order below is this order)
# scripts/check-layers.sh refuses an include that goes the wrong way, and the analyzer's unit
# tests link against analyze + store + lib alone, so a forbidden call fails the build too.
LAYERS   = builtin workflow runner analyze monitors core testcases store lib
layer_src = $(wildcard $(1)/*.c)
LIB_SRC  = $(foreach l,$(LAYERS),$(call layer_src,$(l)))
MAIN_SRC = main.c
UNIT_SRC = $(wildcard tests/unit/test_*.c)
# Unit tests of these layers link only the archives named here (and lib); test_num,
# test_options, test_run_command, test_file, test_mail, test_xalloc and test_untar test lib alone.
ANALYZE_UNITS = test_stats test_series test_select test_verdicts test_plot test_plot_trend test_changepoint test_bisect test_sweep test_jsonw test_roles test_profile_report test_lkp \
		test_num test_options test_run_command test_file test_mail test_nightly_state test_xalloc test_untar

B  = build
BA = build/asan
BF = build/fuzz
BC = build/clang

ARCHIVES  = $(LAYERS:%=$(B)/lib%.a)
ARCHIVESA = $(LAYERS:%=$(BA)/lib%.a)
ANALYZE_ARCHIVESA = $(BA)/libanalyze.a $(BA)/libstore.a $(BA)/liblib.a
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BA)/tests/%)

# Fuzzing: every tests/fuzz/fuzz_NAME.c is a libFuzzer harness.  The layers are built a third
# time, by clang with coverage and ASan+UBSan, into archives each harness links against, so a
# new harness needs no rule and no list of sources.  FUZZ_TIME: seconds per harness in make fuzz
# (make check only replays each corpus).
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 30
FUZZ_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -pthread -MMD -MP -I$(B)/gen \
	      -DSCALEBENCH_LIBEXECDIR='"$(LIBEXECDIR)"' -DSCALEBENCH_DATADIR='"$(DATADIR)"' -gline-tables-only -O1 $(SANITIZE)
ARCHIVESF   = $(LAYERS:%=$(BF)/lib%.a)
FUZZ_SRC    = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN    = $(FUZZ_SRC:tests/fuzz/%.c=$(BF)/%)
# What make check replays: each harness linked by gcc with tests/fuzz/replay.c (libFuzzer's
# -runs=0 without libFuzzer) against the sanitizer build's archives, so make check needs no
# third build of the layers.  (gcc's -Wformat-truncation, which clang does not have, is off
# for the harnesses: their paths are scratch directories of known length.)
FUZZ_REPLAY = $(FUZZ_SRC:tests/fuzz/%.c=$(BA)/fuzz/%)
CLANG_OK    = $(patsubst %.c,$(BC)/%.ok,$(LIB_SRC) $(MAIN_SRC) $(FUZZ_SRC))

.PHONY: all setup setup-kernel run check check-kernel check-build unit e2e bench install \
	uninstall clean format \
	plugin-example fuzz fuzz-build

HELPERS = scalebench-exec-helper scalebench-exec-helper-dyn
# Beside the helpers (found as they are: next to the binary, or in LIBEXECDIR): bisect
# --kernel-tree's build step and the guest's config fragment it builds with by default.
KERNEL_FILES = scalebench-kernel-build kernel-guest.config
HELPERS_ALL = $(HELPERS) $(KERNEL_FILES)
# uPlot, the charting library of html's interactive trend plots: npm ci into site-assets/ by
# make setup (scripts/setup.sh), installed into DATADIR/uplot.
UPLOT_DIST = site-assets/node_modules/uplot/dist

all: $(B)/scalebench $(HELPERS_ALL:%=$(B)/%) $(B)/man/pages.stamp

setup:
	./scripts/setup.sh

# What building kernels needs too (linux-source-6.1, the build tools, ccache): the kernel lab.
setup-kernel:
	./scripts/setup.sh --kernel

# The layer rule, checked on every build: an include across layers the wrong way fails it.
$(B)/layers.ok: scripts/check-layers.sh $(LIB_SRC) $(wildcard */*.h)
	@mkdir -p $(B)
	./scripts/check-layers.sh
	@touch $@

$(B)/%.o: %.c | $(B)/layers.ok
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BA)/%.o: %.c | $(B)/layers.ok
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ASAN_OPT) $(SANITIZE) -c -o $@ $<

$(BF)/%.o: %.c | $(B)/layers.ok
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# clang's warnings on every source, without code (about 7 s of CPU for the tree): the fuzz
# build is clang's, and gcc does not warn where clang does (a {ENUMERATOR} initializer that
# leaves fields out), so make check fails on them at its start, not after the suite, in make fuzz.
$(BC)/%.ok: %.c | $(B)/layers.ok
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 $(WARN) -D_GNU_SOURCE -I$(B)/gen -DSCALEBENCH_LIBEXECDIR='"$(LIBEXECDIR)"' \
		-DSCALEBENCH_DATADIR='"$(DATADIR)"' -fsyntax-only -MMD -MP -MF $(@:.ok=.d) -MT $@ $< && touch $@

# One archive per layer; objects are pulled in only when a layer above calls them.
define layer_archive
$(1)/lib$(2).a: $$(patsubst %.c,$(1)/%.o,$$(wildcard $(2)/*.c))
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_archive,$(B),$(l))))
$(foreach l,$(LAYERS),$(eval $(call layer_archive,$(BA),$(l))))
$(foreach l,$(LAYERS),$(eval $(call layer_archive,$(BF),$(l))))

# The built-in testcases: every `const struct testcase tc_<name>` in testcases/.
TC_SRC = $(filter-out testcases/registry.c testcases/api.c, $(wildcard testcases/*.c))
$(B)/gen/testcases.inc: $(TC_SRC)
	@mkdir -p $(dir $@)
	grep -ho '^const struct testcase tc_[a-z0-9_]*' $(TC_SRC) | sed 's/.* //' | sort | \
		sed 's/.*/TESTCASE(&)/' >$@.tmp && mv $@.tmp $@
$(B)/testcases/registry.o $(BA)/testcases/registry.o $(BF)/testcases/registry.o $(BC)/testcases/registry.ok: \
	$(B)/gen/testcases.inc

# The job pages' interactive trend plot, analyze/site_trend.js, as a C string for site.c
# (escaped: backslashes, quotes, and '?' against trigraphs).
$(B)/gen/site_trend.inc: analyze/site_trend.js
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/.*/"&\\n"/' $< >$@.tmp && mv $@.tmp $@
$(B)/analyze/site.o $(BA)/analyze/site.o $(BF)/analyze/site.o $(BC)/analyze/site.ok: \
	$(B)/gen/site_trend.inc

# The monitors, likewise: every `const struct monitor mon_<name>` in monitors/.
MON_SRC = $(filter-out monitors/monitor.c, $(wildcard monitors/*.c))
$(B)/gen/monitors.inc: $(MON_SRC)
	@mkdir -p $(dir $@)
	grep -ho '^const struct monitor mon_[a-z0-9_]*' /dev/null $(MON_SRC) | sed 's/.* //' | \
		sort | sed 's/.*/MONITOR(&)/' >$@.tmp && mv $@.tmp $@
$(B)/monitors/monitor.o $(BA)/monitors/monitor.o $(BF)/monitors/monitor.o \
	$(BC)/monitors/monitor.ok: $(B)/gen/monitors.inc

# The man pages (Documentation/): each page's prose from its .txt, its NAME, SYNOPSIS and
# OPTIONS generated from the binary's tables (Documentation/gen.sh), rendered by Debian's
# asciidoctor into build/man/man{1,5,7} and an HTML copy in build/man/html, in one run of
# each backend (each run is a Ruby start, ~0.5 s).  The generated parts are rewritten only when
# they change, so a relinked binary with the same tables renders nothing again.
DOC_TXT  = $(wildcard Documentation/scalebench*.txt)
MAN_GEN  = $(B)/man/gen
ADOC     = asciidoctor -a mansource=scalebench -a manmanual='Scalebench Manual' -a gen=$(CURDIR)/$(MAN_GEN)
$(B)/man/gen.stamp: $(B)/scalebench Documentation/gen.sh Documentation/testcases.py $(DOC_TXT)
	./Documentation/gen.sh $(B)/scalebench $(MAN_GEN)
	@touch $@
$(MAN_GEN)/ALL: $(B)/man/gen.stamp ;
$(B)/man/pages.stamp: $(DOC_TXT) $(MAN_GEN)/ALL
	@command -v asciidoctor >/dev/null || { echo "make: asciidoctor is missing (make setup installs it)" >&2; exit 1; }
	@rm -rf $(B)/man/roff $(B)/man/man1 $(B)/man/man5 $(B)/man/man7 $(B)/man/html
	$(ADOC) -b manpage -D $(B)/man/roff $(DOC_TXT)
	$(ADOC) -b html5 -D $(B)/man/html $(DOC_TXT)
	@# A break point (\:, invisible) after each '/' of the text: a long path then wraps at 80
	@# columns instead of overflowing the line (groff: "can't break line").
	@sed -i "/^[.']/!s,/,/\\\\:,g" $(B)/man/roff/*
	@for f in $(B)/man/roff/*; do s=$${f##*.}; mkdir -p $(B)/man/man$$s && mv $$f $(B)/man/man$$s/; done
	@# In the HTML copy, each page named as *scalebench-X*(N) links to its file.
	@sed -i -E 's,<strong>(scalebench(-[a-z-]+)?)</strong>\(1\),<a href="\1.html"><strong>\1</strong>(1)</a>,g; s,<strong>(scalebench-[a-z-]+)</strong>\(([57])\),<a href="\1.\2.html"><strong>\1</strong>(\2)</a>,g' $(B)/man/html/*.html
	@rmdir $(B)/man/roff
	@touch $@

$(B)/scalebench: $(B)/main.o $(ARCHIVES)
	$(CC) $(ALL_CFLAGS) $(EXPORTS) -o $@ $(B)/main.o $(ARCHIVES) $(LIBS)

$(BA)/scalebench: $(BA)/main.o $(ARCHIVESA)
	$(CC) $(ALL_CFLAGS) $(SANITIZE) $(ASAN_LINK) $(EXPORTS) -o $@ $(BA)/main.o $(ARCHIVESA) $(LIBS)

# Static on purpose: exec1 measures the kernel's exec path, not the dynamic loader.
$(B)/scalebench-kernel-build $(BA)/scalebench-kernel-build: scripts/kernel-build.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(B)/kernel-guest.config $(BA)/kernel-guest.config: jobs/kernel/guest.config
	@mkdir -p $(dir $@)
	install -m 644 $< $@

$(B)/scalebench-exec-helper $(BA)/scalebench-exec-helper: helpers/exec_helper.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -static -o $@ $<

# exec2 wants the opposite: one dynamically linked binary that every copy shares.
$(B)/scalebench-exec-helper-dyn $(BA)/scalebench-exec-helper-dyn: helpers/exec_helper.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -o $@ $<

$(BA)/tests/%: tests/unit/%.c $(ARCHIVESA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ASAN_OPT) $(SANITIZE) $(EXPORTS) -o $@ $< $(ARCHIVESA) -lcmocka $(LIBS)

# The analyzer's tests: analyze + store + lib only (no libpfm, libelf, hwloc).  An analyzer
# that called into runner, monitors or core would not link here.
ANALYZE_LIBS = -lsqlite3 -ljansson -lyaml -lz -lRmath -lm -pthread
$(ANALYZE_UNITS:%=$(BA)/tests/%): $(BA)/tests/%: tests/unit/%.c $(ANALYZE_ARCHIVESA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ASAN_OPT) $(SANITIZE) -o $@ $< $(ANALYZE_ARCHIVESA) -lcmocka $(ANALYZE_LIBS)

$(BA)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(ARCHIVESA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ASAN_OPT) -Wno-format-truncation $(SANITIZE) -o $@ $< tests/fuzz/replay.c \
		$(ARCHIVESA) $(LIBS)

$(BF)/fuzz_%: tests/fuzz/fuzz_%.c $(ARCHIVESF)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(ARCHIVESF) $(LIBS)

$(B)/bench/bare_getppid: bench/bare_getppid.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

# The index benchmark: the tree generator, and the parse and query timings (bench/index.sh).
$(B)/bench/gen_tree: bench/gen_tree.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -o $@ $< -lm

$(B)/bench/index_bench: bench/index_bench.c $(B)/libanalyze.a $(B)/libstore.a $(B)/liblib.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libanalyze.a $(B)/libstore.a $(B)/liblib.a $(ANALYZE_LIBS)

$(B)/bench/bare_sampling: bench/bare_sampling.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

# Change points on synthetic series (bench/trend.sh): the analyzer's archives only.
$(B)/bench/trend_sim: bench/trend_sim.c $(B)/libanalyze.a $(B)/libstore.a $(B)/liblib.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(B)/libanalyze.a $(B)/libstore.a $(B)/liblib.a $(ANALYZE_LIBS)

# The plug-in header as users include it (<scalebench/testcase.h>), and the example plug-in.
$(B)/include/scalebench/testcase.h: testcases/testcase.h
	@mkdir -p $(dir $@)
	cp $< $@

PLUGIN_EXAMPLE = $(B)/examples/uname_plugin.so
$(PLUGIN_EXAMPLE): examples/plugin/uname_plugin.c $(B)/include/scalebench/testcase.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -g -I$(B)/include -shared -fPIC -o $@ $<

plugin-example: $(PLUGIN_EXAMPLE)

# The main job: jobs/default.yaml into ./results, ending in its scalability table.
run: all
	$(B)/scalebench run jobs/default.yaml

# Everything the tests need, built; `./tests/run.sh NAME` then runs the tests whose name has NAME.
check-build: all $(BA)/scalebench $(HELPERS_ALL:%=$(BA)/%) $(UNIT_BIN) $(PLUGIN_EXAMPLE) $(FUZZ_REPLAY) \
	     $(CLANG_OK)

# The two builds (plain, ASan) on every CPU unless make was given its own -j: a serial
# build from a clean clone is minutes of the suite's ten.  (A sub-make, so that `make setup
# check` still installs before it builds.)
NPROC := $(shell nproc 2>/dev/null || echo 1)
check:
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) check-build
	./tests/run.sh

# The kernel lab end to end (tests/kernel/test_kernel_lab.sh): Debian's linux-source-6.1 in an
# 8-commit history with a planted regression, built, booted in QEMU, bisected.  Not part of
# make check: its first run builds a kernel (~23 min on 2 CPUs beside other work); later ones
# reuse the lab in $$SCALEBENCH_KERNEL_LAB (default /var/tmp/scalebench-kernel-lab).
check-kernel:
	$(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) check-build
	./tests/run.sh tests/kernel/test_kernel_lab.sh

fuzz-build: $(FUZZ_BIN)

# Each harness on a copy of its corpus (tests/fuzz/corpus/NAME) for FUZZ_TIME seconds, nproc
# at a time (FUZZ_JOBS); any crash, leak or timeout fails it, naming the input and printing the
# sanitizer's report (tests/fuzz/run.sh).
fuzz: fuzz-build
	FUZZ_TIME=$(FUZZ_TIME) ./tests/fuzz/run.sh $(FUZZ_BIN)

# Both run even when the first misses its target; make fails if either does.
bench: all $(B)/bench/bare_getppid $(B)/bench/bare_sampling $(B)/bench/gen_tree $(B)/bench/index_bench \
		$(B)/bench/trend_sim
	status=0; ./bench/overhead.sh || status=1; ./bench/monitors.sh || status=1; \
		./bench/profile.sh || status=1; ./bench/analyze.sh || status=1; \
		./bench/bisect_sim.sh || status=1; ./bench/index.sh || status=1; \
		./bench/trend.sh || status=1; ./bench/html.sh || status=1; ./bench/nightly.sh || status=1; \
		./bench/scale_count.sh || status=1; \
		./bench/slurm.sh || status=1; exit $$status

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/jobs \
		$(DESTDIR)$(INCLUDEDIR)/scalebench
	install -m 755 $(B)/scalebench $(DESTDIR)$(BINDIR)/scalebench
	install -m 755 $(HELPERS:%=$(B)/%) $(B)/scalebench-kernel-build $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 $(B)/kernel-guest.config $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 jobs/*.yaml $(DESTDIR)$(DATADIR)/jobs/
	install -m 644 testcases/testcase.h $(DESTDIR)$(INCLUDEDIR)/scalebench/testcase.h
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(DOCDIR)/html
	install -m 644 $(B)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(B)/man/man5/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 $(B)/man/man7/*.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 644 $(B)/man/html/*.html $(DESTDIR)$(DOCDIR)/html/
	@# uPlot for html's interactive plots, as make setup installed it (site-assets/)
	if [ -f $(UPLOT_DIST)/uPlot.iife.min.js ]; then \
		install -d $(DESTDIR)$(DATADIR)/uplot && \
		install -m 644 $(UPLOT_DIST)/uPlot.iife.min.js $(UPLOT_DIST)/uPlot.min.css \
			$(UPLOT_DIST)/../LICENSE $(DESTDIR)$(DATADIR)/uplot/; \
	else \
		echo "install: $(UPLOT_DIST) has no uPlot (run make setup): html will draw SVG trend plots only" >&2; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scalebench $(HELPERS_ALL:%=$(DESTDIR)$(LIBEXECDIR)/%)
	rm -rf $(DESTDIR)$(DATADIR)/jobs $(DESTDIR)$(DATADIR)/uplot $(DESTDIR)$(INCLUDEDIR)/scalebench
	rm -f $(DESTDIR)$(MANDIR)/man[157]/scalebench.1 $(DESTDIR)$(MANDIR)/man[157]/scalebench-*.[157]
	rm -rf $(DESTDIR)$(DOCDIR)/html

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)
