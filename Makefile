# hilbench - hardware-in-the-loop benchmarks for Linux network-driver patches.
#
#   make            build the host program (build/hilbench) and the DUT agent
#   make deps       install what the host needs (apt, armhf arch, kernel source)
#   make check      unit + integration tests (builds and boots a real kernel)
#   make check-unit fast unit tests under ASan/UBSan (and valgrind: make valgrind)
#   make check-lava rendered LAVA jobs against LAVA's own schema (docs/lava.md)
#   make compare    the main job: compare strategies on the emulated board
#   make bench      speed measurements (build, boot, run): numbers, not tests

CC       ?= gcc
AGENT_CC ?= arm-linux-gnueabihf-gcc
B        := build
PKGS     := libcjson yaml-0.1 sqlite3 libcrypto libpcap libnl-route-3.0
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 \
            -Iharness/src -Iharness/agent $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liperf -lpthread -lm
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The agent's protocol code is shared: the host decodes what the agent encodes.
LIB_SRC  := $(sort $(filter-out harness/src/cmd/%,$(wildcard harness/src/*/*.c))) \
            harness/agent/agent_proto.c
CMD_SRC  := $(sort $(wildcard harness/src/cmd/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(B)/obj/%.o)
SAN_OBJ  := $(LIB_SRC:%.c=$(B)/san/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/unit/%)
VG_BIN   := $(UNIT_SRC:tests/unit/%.c=$(B)/unit-vg/%)
AGENT    := $(B)/armhf/hb-agent

.PHONY: all deps check check-unit check-lava check-integration valgrind compare bench clean
all: $(B)/hilbench $(AGENT)

$(B)/hilbench: $(CMD_OBJ) $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

# The agent runs on the DUT: static, no host libraries.
$(AGENT): $(wildcard harness/agent/*.c harness/agent/*.h)
	@mkdir -p $(@D)
	$(AGENT_CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
		-o $@ $(filter %.c,$^)

$(B)/unit/%: tests/unit/%.c $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS) -lcmocka

$(B)/unit-vg/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

deps:
	bash harness/scripts/deps.sh

check-unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do \
		HILBENCH_HOME=$(CURDIR) UBSAN_OPTIONS=print_stacktrace=1 $$t; done

valgrind: $(VG_BIN)
	@set -e; for t in $(VG_BIN); do HILBENCH_HOME=$(CURDIR) valgrind -q \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=1 $$t; done

check-lava: $(B)/hilbench
	bash tests/lava/validate.sh $(B)/hilbench

check-integration: all
	bash tests/integration/run.sh

check: deps
	$(MAKE) check-unit
	$(MAKE) check-lava
	$(MAKE) valgrind
	$(MAKE) check-integration

compare: deps all
	$(B)/hilbench compare

bench: all
	bash tests/bench.sh

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
