# hilbench - hardware-in-the-loop benchmarks for Linux network-driver patches.
# `make help` lists the targets: the text after each target's `##`.

CC       ?= gcc
# The DUT agent per Debian architecture of the boards (boards/*.yaml).
AGENT_CC_armhf ?= arm-linux-gnueabihf-gcc
AGENT_CC_arm64 ?= aarch64-linux-gnu-gcc
B        := build
PKGS     := libcjson yaml-0.1 sqlite3 libcrypto libpcap libnl-route-3.0 libcurl
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 \
            -Iharness/src -Iharness/agent $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Read when make parses this file: on a fresh machine that is before `make
# deps` installed the -dev packages, so every target that runs deps first
# builds in a second make (see compare), and the link says what is missing.
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS   := $(PKG_LIBS) -liperf -lpthread -lm
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The agent's protocol code is shared: the host decodes what the agent encodes.
# The commands' shared option parsing is library code, so unit tests reach it.
LIB_SRC  := $(sort $(filter-out harness/src/cmd/%,$(wildcard harness/src/*/*.c))) \
            harness/src/cmd/options.c harness/agent/agent_proto.c
CMD_SRC  := $(sort $(filter-out harness/src/cmd/options.c,$(wildcard harness/src/cmd/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(B)/obj/%.o)
SAN_OBJ  := $(LIB_SRC:%.c=$(B)/san/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HDR := $(wildcard tests/unit/*.h)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
# Monte Carlo of thousands of gates: 12 s under ASan, some 400 s under
# valgrind, of steps test_gate runs under both; valgrind leaves it to ASan.
UNIT_NO_VG := test_gate_sim
VG_BIN   := $(filter-out $(UNIT_NO_VG:%=$(B)/unit-vg/%),$(UNIT_SRC:tests/unit/%.c=$(B)/unit-vg/%))
AGENT_ARCHES := armhf arm64
AGENTS   := $(AGENT_ARCHES:%=$(B)/%/hb-agent)
# libFuzzer needs clang (clang-14 is what make deps installs). The library
# objects get the fuzzer's coverage instrumentation without its main();
# only the targets link the fuzzer.
FUZZ_CC  ?= clang-14
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer \
            -fno-sanitize-recover=all -Iharness/src -Iharness/agent \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_SAN := address,undefined
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_OBJ := $(LIB_SRC:%.c=$(B)/fuzz/obj/%.o)
FUZZ_TIME ?= 10
# make check's parts, and the integration scripts, print their wall time
# (tests/timed.sh); make check gathers the lines in CHECK_TIMES.
TIMED       := bash tests/timed.sh
# The unit tests, their valgrind runs and the fuzz targets are
# single-threaded: one at a time a core (tests/each.sh).
CHECK_JOBS  ?= $(shell nproc)
CHECK_TIMES := $(abspath $(B))/check-times
# Each target's seed corpus, $(B)/fuzz/corpus/<target>/, is built from its
# own seeds in tests/fuzz/corpus/<target>/ (inputs no other test reads,
# crash reproducers) and the tree's files of the kind it parses, so each
# file is in the tree once. FUZZ_SEEDS_<target>: those files, copied as
# their path with / turned into - (tests-data-bad-missing-key.yaml).
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_CORPORA := $(FUZZ_NAMES:%=$(B)/fuzz/corpus/%)
FUZZ_SEEDS_config   := $(wildcard boards/*.yaml workloads/*.yaml plans/*.yaml settings/*.yaml drivers/*.yaml \
                       tests/data/bad/*.yaml tests/data/boards/*.yaml \
                       tests/data/workloads/*.yaml tests/data/plans/*.yaml)
FUZZ_SEEDS_patchset := $(wildcard tests/data/patches/*.patch)
# FUZZ_PREFIXED_<target>: OCTAL:FILE, the file behind one byte. fuzz_profile's
# first byte picks the parser (its low 2 bits) and the output array's size
# (the high 6): 200 fprof_parse, 201 perf_report_parse, 202 perf_stat_parse,
# each with 32 entries.
# fuzz_insn's first byte is its output array's size: 100 (octal) is 64 entries.
FUZZ_PREFIXED_insn := 100:tests/data/profile/insn-profile.txt
FUZZ_PREFIXED_profile := 200:tests/data/profile/function-profile.txt \
                         201:tests/data/profile/perf-report.txt \
                         202:tests/data/profile/perf-stat.csv
FUZZ_SEED_FILES := $(sort $(wildcard tests/fuzz/corpus/*/*) \
                   $(foreach n,$(FUZZ_NAMES),$(FUZZ_SEEDS_$(n)) \
                     $(foreach p,$(FUZZ_PREFIXED_$(n)),$(lastword $(subst :, ,$(p))))))

# make install (GNU's names; FHS paths under prefix). The binary finds the
# rest from its own path (harness/src/util/paths.h): <prefix>/bin/hilbench
# beside <prefix>/share/hilbench, so a DESTDIR tree runs as installed.
prefix     ?= /usr/local
bindir     ?= $(prefix)/bin
datadir    ?= $(prefix)/share
libdir     ?= $(prefix)/lib
mandir     ?= $(datadir)/man
bashcompdir ?= $(datadir)/bash-completion/completions
# The data an installed hilbench searches by default (share/hilbench/).
DATA_DIRS  := boards workloads plans settings drivers emulators emulator-patches \
              driver-patches lava
# Manual pages: scdoc sources, one per command plus hilbench(1) and
# hilbench-files(5); tests/man-pages.sh keeps them and --help together.
MAN_SRC    := $(sort $(wildcard docs/man/*.scd))
MAN_PAGES  := $(MAN_SRC:docs/man/%.scd=$(B)/man/%)
.PHONY: all help deps emulator check check-unit check-agent check-lava check-lava-local \
	check-lava-server check-lava-workers check-cross check-boards check-integration valgrind fuzz fuzz-check \
	compare check-fresh check-starve bench clean man install check-install check-package
all: $(B)/hilbench $(AGENTS) ## build the host program (build/hilbench) and the DUT agents

help: ## this list
	@awk -F ':.*## ' '/^[a-z][a-z-]*:.*## / { printf "  make %-18s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))

# CPPFLAGS and LDFLAGS: empty here; a package build passes its own
# (dpkg-buildflags: fortify, relro, bindnow).
$(B)/hilbench: $(CMD_OBJ) $(LIB_OBJ)
	@[ -n "$(PKG_LIBS)" ] || { echo "make: pkg-config finds none of $(PKGS): run make deps" >&2; exit 1; }
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Pattern prerequisites are intermediate, which make deletes after each
# link: keep them, or every check-unit compiles the library again.
.SECONDARY: $(SAN_OBJ) $(FUZZ_OBJ)
$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

# The agent runs on the DUT: static, no host libraries.
$(B)/%/hb-agent: $(wildcard harness/agent/*.c harness/agent/*.h)
	@mkdir -p $(@D)
	$(AGENT_CC_$*) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
		-o $@ $(filter %.c,$^)

# tests/unit/*.h: what some tests share: test doubles (run_double.h), built frames (frames.h).
$(B)/unit/%: tests/unit/%.c $(UNIT_HDR) $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -o $@ $(filter-out %.h,$^) $(LDLIBS) -lcmocka

$(B)/unit-vg/%: tests/unit/%.c $(UNIT_HDR) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS) -lcmocka

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -MMD -MP -c -o $@ $<

# A static pattern rule: its objects count as named, so make keeps them.
$(FUZZ_BIN): $(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $(filter %.c %.o,$^) $(LDLIBS)

# Rebuilt whole when a seed or this file changes; make clean removes them.
$(FUZZ_CORPORA): $(B)/fuzz/corpus/%: $(FUZZ_SEED_FILES) Makefile
	@rm -rf $@ && mkdir -p $@
	@cp tests/fuzz/corpus/$*/* $@/
	@$(foreach f,$(FUZZ_SEEDS_$*),cp $(f) $@/$(subst /,-,$(f)) &&) true
	@$(foreach p,$(FUZZ_PREFIXED_$*),{ printf '\$(firstword $(subst :, ,$(p)))' && \
		cat $(lastword $(subst :, ,$(p))); } >$@/$(notdir $(lastword $(subst :, ,$(p)))) &&) true

$(B)/man/%: docs/man/%.scd
	@mkdir -p $(@D)
	scdoc <$< >$@.tmp && mv $@.tmp $@

man: $(MAN_PAGES) ## the manual pages (scdoc): build/man/, read by `hilbench help CMD` in a clone

# DESTDIR=DIR prefix=/usr for a package. The emulator's TCG plugin is
# installed as source: hilbench compiles it against the emulator it builds
# (build/insn_plugin.c), so its header matches.
install: all man ## install hilbench under prefix (/usr/local; DESTDIR, prefix, bindir, ...)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)/hilbench \
		$(DESTDIR)$(libdir)/hilbench/scripts $(DESTDIR)$(libdir)/hilbench/agent \
		$(DESTDIR)$(libdir)/hilbench/plugin \
		$(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5 $(DESTDIR)$(bashcompdir)
	install -m 0755 $(B)/hilbench $(DESTDIR)$(bindir)/hilbench
	cp -R --no-preserve=ownership $(DATA_DIRS) $(DESTDIR)$(datadir)/hilbench/
	install -m 0755 harness/scripts/*.sh $(DESTDIR)$(libdir)/hilbench/scripts/
	install -m 0644 harness/agent/lava-report.awk $(DESTDIR)$(libdir)/hilbench/agent/
	@# stripped by the board's own binutils (the host's strip does not know them)
	$(foreach a,$(AGENT_ARCHES),install -D -m 0755 $(B)/$(a)/hb-agent \
		$(DESTDIR)$(libdir)/hilbench/agent/$(a)/hb-agent && \
		$(patsubst %gcc,%strip,$(AGENT_CC_$(a))) -R .comment $(DESTDIR)$(libdir)/hilbench/agent/$(a)/hb-agent &&) true
	install -m 0644 harness/plugin/hb-insn.c $(DESTDIR)$(libdir)/hilbench/plugin/
	@# What built it, for --version and each run's provenance: this clone's
	@# commit (-dirty when changed), else debian/changelog's version.
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		v=$$(git rev-parse --short=12 HEAD); \
		! git status --porcelain --untracked-files=no | grep -q . || v=$$v-dirty; \
	else v=$$(dpkg-parsechangelog -S Version 2>/dev/null || echo unknown); fi; \
		echo "$$v" >$(DESTDIR)$(libdir)/hilbench/VERSION
	install -m 0644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(mandir)/man1/
	install -m 0644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(mandir)/man5/
	install -m 0644 harness/completion/hilbench.bash $(DESTDIR)$(bashcompdir)/hilbench

# SERIES="6.1 6.12": the kernel sources to install (default 6.1; 6.12 is
# for boards with kernel.min_series 6.12).
deps: ## install what hilbench needs from Debian (its tests and LAVA's tools too), then build its emulator (cached)
	bash harness/scripts/deps.sh $(SERIES)
	$(MAKE) emulator

emulator: all ## build the emulators of emulators/ from Debian's source (cached)
	$(B)/hilbench emulator

check-unit: $(UNIT_BIN) $(B)/hilbench ## fast unit tests under ASan/UBSan, make help's list, make check's timing and its runner, the layers' includes, the man pages
	bash tests/make-help.sh
	bash tests/check-times.sh
	bash tests/check-each.sh
	bash tests/layering.sh
	bash tests/man-pages.sh $(B)/hilbench
	@bash tests/each.sh $(CHECK_JOBS) env HILBENCH_HOME=$(CURDIR) UBSAN_OPTIONS=print_stacktrace=1 \
		-- $(UNIT_BIN)

valgrind: $(VG_BIN) ## the unit tests under valgrind
	@bash tests/each.sh $(CHECK_JOBS) env HILBENCH_HOME=$(CURDIR) valgrind -q \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=1 -- $(VG_BIN)

# tests/fuzz/check-one.sh runs a target on its seed corpus, $(B)/fuzz/corpus/<target>;
# tests/fuzz/corpus only changes by hand (crash reproducers). A crash, leak
# or sanitizer report fails the run and leaves the input as
# $(B)/fuzz/<target>-crash-*; the full log is $(B)/fuzz/<target>.log.
fuzz-check: $(FUZZ_BIN) $(FUZZ_CORPORA) ## libFuzzer on every parser, 10 s each (docs/fuzzing.md)
	@bash tests/each.sh $(CHECK_JOBS) bash tests/fuzz/check-one.sh $(FUZZ_TIME) $(B) -- $(FUZZ_BIN)

fuzz: ## libFuzzer on every parser, 300 s each
	$(MAKE) fuzz-check FUZZ_TIME=300

# Builds its own agent (static, host gcc): no build/hilbench needed.
check-agent: ## the DUT agent on the host: unit tests, one-shot runs against iperf3
	bash tests/agent/run.sh

check-lava: $(B)/hilbench ## rendered LAVA jobs against LAVA's schema, REST client error paths
	bash tests/lava/validate.sh $(B)/hilbench
	bash tests/lava/rest-errors.sh $(B)/hilbench

check-lava-local: all ## runs through LAVA's lava-run (the lava-local backend; a lab's job from its artifact host)
	$(TIMED) bash tests/lava/local.sh
	$(TIMED) bash tests/lava/lab-job.sh

check-lava-server: all ## a real LAVA server on loopback (not in make check: 3-5 min cold)
	bash tests/lava/server.sh

check-lava-workers: all ## a LAVA server and two workers, one plan fanned out (not in make check: ~10 min)
	bash tests/lava/workers.sh

check-cross: $(B)/hilbench ## every 6.1 strategy's stmmac objects for the real boards' configs
	bash tests/boards/cross-build.sh $(B)/hilbench

check-boards: all ## full kernels and boot files for the real boards (slow; docs/boards.md)
	bash tests/boards/images.sh $(B)/hilbench

# faults.sh mounts a small tmpfs (a full disk) and so wants root, as QEMU's
# network namespace does. tests/lava/plan-errors.sh (a fake LAVA server
# failing under `hilbench run`) boots the emulated board too, in a network
# namespace of its own: here rather than in check-lava.
check-integration: all ## the agent on the host; real kernels booted in the emulator: runs, faults, bisect, knobs
	$(TIMED) bash tests/agent/run.sh
	$(TIMED) bash tests/integration/run.sh
	$(TIMED) bash tests/integration/model.sh
	$(TIMED) bash tests/integration/insn.sh
	$(TIMED) bash tests/integration/concurrent.sh
	$(TIMED) bash tests/integration/faults.sh
	$(TIMED) bash tests/lava/plan-errors.sh
	$(TIMED) bash tests/integration/bisect.sh
	$(TIMED) bash tests/integration/knobs.sh

# Each part a make of its own, deps first: the later ones read pkg-config
# after deps ran. Every part's wall time is printed at the end, failing or
# not (tests/timed.sh).
CHECK_PARTS := deps check-unit check-install fuzz-check check-lava check-cross valgrind \
	check-integration check-lava-local
check: ## all tests (the README's test command; .ci/run)
	@mkdir -p $(B) && : >$(CHECK_TIMES)
	@rc=0; for t in $(CHECK_PARTS); do HB_CHECK_TIMES=$(CHECK_TIMES) $(TIMED) $(MAKE) $$t || \
		{ rc=$$?; break; }; done; echo "make check: the wall time of each part"; cat $(CHECK_TIMES); exit $$rc

# Only the packages the emulated boards need (deps.sh --compare; make deps
# adds the tests' and LAVA's), then a second make: it reads pkg-config
# after they are installed.
# PLAN=NAME|FILE: another plan than plans/default.yaml (`hilbench list plans`).
PLAN ?=
compare: ## the main job: compare the strategies on the emulated board, write a report
	bash harness/scripts/deps.sh --compare $(SERIES)
	$(MAKE) emulator
	$(B)/hilbench compare $(PLAN)

# Not in make check: 12-20 min cold. Run it before resolving any issue that
# touches install steps (README, deps, the emulator, the userland).
check-fresh: ## the README's commands in a fresh debootstrapped Debian 12 root (12-20 min)
	bash tests/fresh/check-fresh.sh

# A staged install (DESTDIR, no root) run outside the clone: data search
# path, lab directories, man pages, completion. Seconds.
check-install: all man ## make install into a temporary DESTDIR, run from there: list, check, --data-dir, help, completion
	bash tests/install/check-install.sh

# Not in make check: 15-25 min cold (a package build, a debootstrap, the
# emulator and a kernel built in the root).
check-package: ## the Debian package: build, lintian, install into a fresh Debian 12 root, gate the emulated board there
	bash tests/install/check-package.sh

# Not in make check: it loads every host core for 10-40 min.
check-starve: all ## a starved host: the default plan's workloads under stress-ng on every core (10-40 min)
	bash tests/integration/starve.sh

# The host's counting path on its own, for tests/bench.sh.
$(B)/bench/capture-count: tests/bench/capture_count.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bench: all $(B)/bench/capture-count ## speed measurements (build, boot, run, the main job both ways): numbers, not tests
	bash tests/bench.sh
	bash tests/bench-main.sh

clean: ## remove build/ (the caches outside the clone stay)
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
