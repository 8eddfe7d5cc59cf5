# scalebench — build, test, run, install.
#
#   make setup      install the Debian packages the project needs (root or sudo)
#   make            build build/scalebench and its helper binaries
#   make run        the main job (jobs/default.yaml): page_fault3, fallocate1, exec1 at 1 and
#                   nproc copies, both modes, with the default monitors, into ./results
#   make check      build with ASan+UBSan and run every test (unit and end-to-end)
#   make bench      the benchmarks in bench/ (harness, monitors, analyzer)
#   make plugin-example  build/examples/uname_plugin.so, the example plug-in
#   make install    PREFIX=/usr/local DESTDIR=

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/scalebench
DATADIR    ?= $(PREFIX)/share/scalebench
INCLUDEDIR ?= $(PREFIX)/include

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror
ALL_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -pthread -MMD -MP -I$(B)/gen \
	     -DSCALEBENCH_LIBEXECDIR='"$(LIBEXECDIR)"' $(CFLAGS)
LIBS     = -ljansson -lyaml -lpfm -lhwloc -lelf -lz -lRmath -lm -ldl -pthread
# Plug-ins call back into these; nothing else of the binary is exported.
EXPORTS  = -Wl,--dynamic-list=testcases/plugin-exports.list
SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

LIB_SRC  = $(wildcard lib/*.c) $(wildcard testcases/*.c) $(wildcard builtin/*.c) \
	   $(wildcard runner/*.c) $(wildcard analyze/*.c)
MAIN_SRC = main.c
UNIT_SRC = $(wildcard tests/unit/test_*.c)

B  = build
BA = build/asan

LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o)
LIBA_OBJ = $(LIB_SRC:%.c=$(BA)/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BA)/tests/%)

.PHONY: all setup run check unit e2e bench install uninstall clean format plugin-example

HELPERS = scalebench-exec-helper scalebench-exec-helper-dyn

all: $(B)/scalebench $(HELPERS:%=$(B)/%)

setup:
	./scripts/setup.sh

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BA)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANITIZE) -c -o $@ $<

# The built-in testcases: every `const struct testcase tc_<name>` in testcases/.
TC_SRC = $(filter-out testcases/core.c testcases/rates.c testcases/placement.c \
	   testcases/taskspec.c testcases/registry.c, $(wildcard testcases/*.c))
$(B)/gen/testcases.inc: $(TC_SRC)
	@mkdir -p $(dir $@)
	grep -ho '^const struct testcase tc_[a-z0-9_]*' $(TC_SRC) | sed 's/.* //' | sort | \
		sed 's/.*/TESTCASE(&)/' >$@.tmp && mv $@.tmp $@
$(B)/testcases/registry.o $(BA)/testcases/registry.o: $(B)/gen/testcases.inc

# The monitors, likewise: every `const struct monitor mon_<name>` in runner/.
MON_SRC = $(filter-out runner/monitor.c, $(wildcard runner/*.c))
$(B)/gen/monitors.inc: $(MON_SRC)
	@mkdir -p $(dir $@)
	grep -ho '^const struct monitor mon_[a-z0-9_]*' /dev/null $(MON_SRC) | sed 's/.* //' | \
		sort | sed 's/.*/MONITOR(&)/' >$@.tmp && mv $@.tmp $@
$(B)/runner/monitor.o $(BA)/runner/monitor.o: $(B)/gen/monitors.inc

$(B)/scalebench: $(B)/main.o $(LIB_OBJ)
	$(CC) $(ALL_CFLAGS) $(EXPORTS) -o $@ $^ $(LIBS)

$(BA)/scalebench: $(BA)/main.o $(LIBA_OBJ)
	$(CC) $(ALL_CFLAGS) $(SANITIZE) $(EXPORTS) -o $@ $^ $(LIBS)

# Static on purpose: exec1 measures the kernel's exec path, not the dynamic loader.
$(B)/scalebench-exec-helper $(BA)/scalebench-exec-helper: helpers/exec_helper.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -static -o $@ $<

# exec2 wants the opposite: one dynamically linked binary that every copy shares.
$(B)/scalebench-exec-helper-dyn $(BA)/scalebench-exec-helper-dyn: helpers/exec_helper.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -o $@ $<

$(BA)/tests/%: tests/unit/%.c $(LIBA_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SANITIZE) $(EXPORTS) -o $@ $(filter %.c %.o,$^) -lcmocka $(LIBS)

$(B)/bench/bare_getppid: bench/bare_getppid.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

$(B)/bench/bare_sampling: bench/bare_sampling.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -D_GNU_SOURCE -o $@ $<

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

check: all $(BA)/scalebench $(HELPERS:%=$(BA)/%) $(UNIT_BIN) $(PLUGIN_EXAMPLE)
	./tests/run.sh

# Both run even when the first misses its target; make fails if either does.
bench: all $(B)/bench/bare_getppid $(B)/bench/bare_sampling
	status=0; ./bench/overhead.sh || status=1; ./bench/monitors.sh || status=1; \
		./bench/profile.sh || status=1; ./bench/analyze.sh || status=1; \
		./bench/bisect_sim.sh || status=1; exit $$status

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/jobs \
		$(DESTDIR)$(INCLUDEDIR)/scalebench
	install -m 755 $(B)/scalebench $(DESTDIR)$(BINDIR)/scalebench
	install -m 755 $(HELPERS:%=$(B)/%) $(DESTDIR)$(LIBEXECDIR)/
	install -m 644 jobs/*.yaml $(DESTDIR)$(DATADIR)/jobs/
	install -m 644 testcases/testcase.h $(DESTDIR)$(INCLUDEDIR)/scalebench/testcase.h

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scalebench $(HELPERS:%=$(DESTDIR)$(LIBEXECDIR)/%)
	rm -rf $(DESTDIR)$(DATADIR)/jobs $(DESTDIR)$(INCLUDEDIR)/scalebench

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
