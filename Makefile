# schedfarm - build, test, lint, install.
#
#   make                 controller/schedfarm and agent/schedfarm-agent
#   make deps            install the Debian packages the project needs
#   make check           the whole suite (unit + integration) built with ASan+UBSan
#   make check-unit      cmocka unit tests only
#   make check-integration  TAP integration tests only
#   make check-faults    the long fault tests (tests/faults/: kill -9 at
#                        every phase, 10 000 jobs under two controllers)
#   make lint            clang-format --dry-run and cppcheck
#   make fuzz            libFuzzer targets (clang), each FUZZ_SECONDS, or
#                        FUZZ_RUNS=10000000 executions each
#   make bench           the bench/ scripts; lists the ones skipped here
#   make install         PREFIX=/usr/local (binaries, man page, plans, and the
#                        systemd unit in $(PREFIX)/lib/systemd/system)
#
# Objects go under $(B)/ (build/ normally, build-san/ for the sanitized
# suite).  New sources are picked up by wildcard: controller/*.c and
# controller/<folder>/*.c, agent/*.c, common/*.c, tests/unit/test-*.c.
# Header dependencies are the compiler's own (-MMD -MP, the .d files).

PREFIX   ?= /usr/local
B        ?= build
SAN      ?= 0
CC       ?= gcc
OPT      ?= -O2 -g
PKG_CONFIG ?= pkg-config
V ?= 0
ifeq ($(V),1)
Q :=
quiet = 
else
Q := @
quiet = @echo '  $(1) $@';
endif

WARN := -std=gnu17 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla -Wwrite-strings \
	-Wimplicit-fallthrough -fno-common
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

# The libraries, by pkg-config name, with the Debian package that has each.
# PKGS_LOADED are compiled against (their headers) but not linked: their
# wrappers load them on first use (controller/dynlib.h), so a process that
# never boots a libvirt guest or sends a mail does not pay for loading
# them and the dozens of libraries they pull in.
PKGS := libpq yaml-0.1 libssh libvirt gsl libcurl gmime-3.0
PKGS_LOADED := libvirt libcurl gmime-3.0
PKG_DEB.libpq    := libpq-dev
PKG_DEB.yaml-0.1 := libyaml-dev
PKG_DEB.libssh   := libssh-dev
PKG_DEB.libvirt  := libvirt-dev
PKG_DEB.gsl      := libgsl-dev
PKG_DEB.libcurl  := libcurl4-openssl-dev
PKG_DEB.gmime-3.0 := libgmime-3.0-dev
# The flags are asked for when a recipe first needs them, not when the
# Makefile is read: `make deps all` on a fresh machine reads this file
# before `deps` has installed anything.  A module pkg-config cannot find
# stops the build, naming it and its package, instead of compiling
# without its flags.
pkg_missing = $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) \
	2>/dev/null && echo y),,$(p))))
pkg_query = $(if $(pkg_missing),$(error $(PKG_CONFIG) cannot find \
	$(foreach p,$(pkg_missing),$(p) (package $(PKG_DEB.$(p))))$(if \
	$(shell command -v $(PKG_CONFIG)),, ($(PKG_CONFIG) itself is missing: package \
	pkg-config)): run 'make deps' as root),$(shell $(PKG_CONFIG) $(1) $(2)))
PKG_CFLAGS = $(eval PKG_CFLAGS := $(call pkg_query,--cflags,$(PKGS)))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(call pkg_query,--libs,$(filter-out \
	$(PKGS_LOADED),$(PKGS))))$(PKG_LIBS)

BASE_CFLAGS := $(WARN) $(OPT) -MMD -MP -Icommon -D_GNU_SOURCE $(EXTRA_CFLAGS)
ifeq ($(SAN),1)
BASE_CFLAGS += $(SANFLAGS)
BASE_LDFLAGS += $(SANFLAGS)
# ASan finds the real functions it wraps when the process starts; those of
# a library loaded later stay null, and its first call through the wrapper
# jumps to 0.  Of the libraries libvirt and libcurl pull in, libtirpc (the
# xdr_* of libvirt's RPC) and libstdc++ have such functions: a sanitized
# build loads them at start, and still loads libvirt and libcurl on first
# use, as the plain build does.
SAN_PRELOAD := -Wl,--push-state,--no-as-needed -l:libtirpc.so.3 \
	-l:libstdc++.so.6 -Wl,--pop-state
endif
CTL_CFLAGS  = $(BASE_CFLAGS) -Icontroller -I$(B) $(PKG_CFLAGS)
CTL_LIBS    = $(PKG_LIBS) -lm -lpthread -ldl $(SAN_PRELOAD)
# The agent is static and libc only: never sanitized, its own objects.
AGENT_CFLAGS := $(WARN) $(OPT) -MMD -MP -Icommon -Iagent -D_GNU_SOURCE $(EXTRA_CFLAGS)
AGENT_LDFLAGS := -static -pthread

COMMON_SRC := $(sort $(wildcard common/*.c))
CTL_SRC    := $(sort $(wildcard controller/*.c controller/*/*.c))
AGENT_SRC  := $(sort $(wildcard agent/*.c))
SCHEMA_SQL := $(sort $(wildcard schema/[0-9][0-9][0-9]_*.sql))
UNIT_SRC   := $(sort $(wildcard tests/unit/test-*.c))

COMMON_OBJ := $(COMMON_SRC:%.c=$(B)/%.o)
CTL_OBJ    := $(CTL_SRC:%.c=$(B)/%.o) $(B)/schema-embed.o
# main.c goes into the library too, its main() renamed, so unit tests can
# check the verb table.
CTL_LIB_OBJ := $(filter-out $(B)/controller/main.o,$(CTL_OBJ)) $(B)/controller/main-lib.o
AGENT_OBJ  := $(AGENT_SRC:%.c=$(B)/agent-static/%.o) \
	      $(COMMON_SRC:%.c=$(B)/agent-static/%.o)
# Agent code for unit tests: compiled like the controller (sanitizers on).
AGENT_LIB_OBJ := $(filter-out $(B)/agent/main.o,$(AGENT_SRC:%.c=$(B)/%.o))
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)

# The sanitized build of a tree: `make check B=build-x` uses build-x-san.
SANB ?= $(B)-san
ifeq ($(B),build)
CTL_BIN   := controller/schedfarm
AGENT_BIN := agent/schedfarm-agent
else
CTL_BIN   := $(B)/schedfarm
AGENT_BIN := $(B)/schedfarm-agent
endif

.PHONY: all deps check check-layers check-unit check-integration check-kernel check-faults \
	lint fuzz bench install clean demo kernel-demo unit-bins unit

all: $(CTL_BIN) $(AGENT_BIN)

# INSTALL_DEPS: tests/integration/t0004 puts a stand-in here to check
# that nothing compiles before deps has run.
INSTALL_DEPS ?= sh tools/install-deps.sh
deps:
	$(INSTALL_DEPS)

# `make deps all` (and -j): nothing compiles before deps has run.
DEPS_FIRST := $(filter deps,$(MAKECMDGOALS))

$(B)/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(CTL_CFLAGS) -c $< -o $@

$(B)/agent-static/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(AGENT_CFLAGS) -c $< -o $@

$(B)/controller/main-lib.o: controller/main.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(CTL_CFLAGS) -Dmain=schedfarm_main -c $< -o $@

$(B)/schema-embed.c: $(SCHEMA_SQL) tools/embed-schema.sh
	@mkdir -p $(B)
	sh tools/embed-schema.sh $(SCHEMA_SQL) > $@.tmp && mv $@.tmp $@

$(B)/schema-embed.o: $(B)/schema-embed.c
	$(call quiet,CC)$(CC) $(CTL_CFLAGS) -c $< -o $@

$(B)/libcommon.a: $(COMMON_OBJ)
	$(call quiet,AR)rm -f $@ && ar rcs $@ $^
$(B)/libcontroller.a: $(CTL_LIB_OBJ)
	$(call quiet,AR)rm -f $@ && ar rcs $@ $^
$(B)/libagent.a: $(AGENT_LIB_OBJ)
	$(call quiet,AR)rm -f $@ && ar rcs $@ $^

$(CTL_BIN): $(B)/controller/main.o $(B)/libcontroller.a $(B)/libcommon.a
	$(call quiet,CC)$(CC) $(BASE_LDFLAGS) -o $@ $^ $(CTL_LIBS)

$(AGENT_BIN): $(AGENT_OBJ)
	$(call quiet,CC)$(CC) $(AGENT_LDFLAGS) -o $@ $^ -lm

# Unit tests: test-agent-*.c link the agent's code, the others the controller's.
$(B)/tests/unit/test-agent-%: tests/unit/test-agent-%.c $(B)/libagent.a $(B)/libcommon.a
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(CTL_CFLAGS) -Iagent -o $@ $(filter %.c %.a,$^) $(BASE_LDFLAGS) -lcmocka -lm -lpthread
$(B)/tests/unit/test-%: tests/unit/test-%.c $(B)/libcontroller.a $(B)/libcommon.a
	@mkdir -p $(dir $@)
	$(call quiet,CC)$(CC) $(CTL_CFLAGS) -o $@ $(filter %.c %.a,$^) $(BASE_LDFLAGS) -lcmocka $(CTL_LIBS)

unit-bins: $(UNIT_BIN)

# The suite runs the sanitized controller against the static agent of $(B).
TEST_ENV = SCHEDFARM_BUILD=$(SANB) SCHEDFARM_AGENT=$(abspath $(AGENT_BIN))

# doc/DESIGN.md's layering, checked on the includes and SQL strings of the
# tree (tools/check-layers): first, since it takes a second.
check-layers:
	python3 tools/check-layers

check: check-layers
	$(MAKE) B=$(B) all
	$(MAKE) B=$(SANB) SAN=1 $(SANB)/schedfarm unit-bins
	$(TEST_ENV) sh tests/run-tests.sh

check-unit:
	$(MAKE) B=$(SANB) SAN=1 unit-bins
	$(TEST_ENV) sh tests/run-tests.sh unit

check-integration:
	$(MAKE) B=$(B) all
	$(MAKE) B=$(SANB) SAN=1 $(SANB)/schedfarm
	$(TEST_ENV) sh tests/run-tests.sh integration

check-kernel: all
	SCHEDFARM_BUILD=$(B) SCHEDFARM_AGENT=$(abspath $(AGENT_BIN)) sh tests/run-tests.sh kernel

# Long (an hour or more on 2 cores): not part of `check`.  Unsanitized, so
# that the figures they print are the farm's, not ASan's.
check-faults: all
	SCHEDFARM_BUILD=$(B) SCHEDFARM_AGENT=$(abspath $(AGENT_BIN)) sh tests/run-tests.sh faults

lint:
	clang-format --dry-run --Werror $(COMMON_SRC) $(CTL_SRC) $(AGENT_SRC) \
		$(wildcard common/*.h controller/*.h controller/*/*.h agent/*.h) $(UNIT_SRC)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--inline-suppr --std=c11 -Icommon -Icontroller -Iagent \
		--suppress=missingIncludeSystem common controller agent

# FUZZ_SECONDS per target (60 by default), or FUZZ_RUNS executions each
# (then FUZZ_SECONDS is only a cap): tests/fuzz/run-fuzz.sh
FUZZ_SECONDS ?=
FUZZ_RUNS ?=
fuzz:
	FUZZ_RUNS=$(FUZZ_RUNS) sh tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# Each bench that cannot run here (not root, a tool missing) says why and
# is skipped; the end lists those (bench/lib.sh, tools/run-benches.sh).
bench: all
	@sh tools/run-benches.sh

demo: all
	sh tools/demo.sh

kernel-demo: all
	sh tools/kernel-demo.sh

# The systemd unit names the installed binary: BINDIR is filled in.
BINDIR  ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
# Written every time: BINDIR is not a file make could compare.
unit:
	@mkdir -p $(B)
	sed 's|@BINDIR@|$(BINDIR)|g' tools/systemd/schedfarm.service.in \
		>$(B)/schedfarm.service

install: all unit
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/schedfarm $(DESTDIR)$(UNITDIR)
	install -m 755 $(CTL_BIN) $(AGENT_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(B)/schedfarm.service $(DESTDIR)$(UNITDIR)/
	install -m 644 doc/schedfarm.1 doc/schedfarm-agent.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	cp -r web-static plans kernels $(DESTDIR)$(PREFIX)/share/schedfarm/

clean:
	rm -rf build build-san build-* controller/schedfarm agent/schedfarm-agent

# The compiler's own header dependencies (-MMD -MP).
-include $(wildcard $(B)/*.d $(B)/*/*.d $(B)/*/*/*.d $(B)/*/*/*/*.d \
	$(SANB)/*.d $(SANB)/*/*.d $(SANB)/*/*/*.d $(SANB)/*/*/*/*.d)
