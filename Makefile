# kfsck build. `make` builds ./kfsck and libkfsck.a; `make check` runs the
# tests in three builds: normal (every test, including tests/api and
# tests/tools), ASan+UBSan (all but those two) and ThreadSanitizer (all but
# those two, with the reader forced to threads and tiny reads); `make demo`
# runs verify on the bundled sample data dir; `make deps` installs what is
# missing; `make bench` measures speed and memory (tools/bench/bench.sh). The
# version is KFSCK_VERSION in include/kfsck/kfsck.h: `make install` puts it
# into the library's file name, kfsck.pc and the man page's title line.
# Packages for hosts with no compiler: `make deb` (Debian packages kfsck,
# libkfsck0, libkfsck-dev from debian/, into dist/), `make static`
# (dist/kfsck-static, linked statically against every library), `make
# deb-test` (installs the packages into a fresh Debian root and uses them).

CC      ?= cc
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
# Shell completion: bash-completion's and zsh's directories under PREFIX.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=
SAN     ?= 0
PYTHON  ?= /usr/bin/python3

ifeq ($(SAN),1)
BUILD    ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(SAN),thread)
BUILD    ?= build-tsan
SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else
BUILD    ?= build
SANFLAGS :=
endif

# Libraries for headers (PKGS) and for linking (LINK_PKGS). Not linked:
# xxhash, compiled in from its header (XXH_INLINE_ALL), and snappy, which
# is C++ and loaded only when a snappy batch needs it (src/bytes/codec_load.c:
# linked, it and libstdc++ were most of every run's start-up); the soname
# to load is the installed library's.
PKGS    := zlib liblz4 libzstd snappy libxxhash libisal jansson
LINK_PKGS := zlib liblz4 libzstd libisal jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null || echo -lz -llz4 -lzstd -lisal -ljansson)
SNAPPY_SONAME := $(shell objdump -p "$$(pkg-config --variable=libdir snappy 2>/dev/null)/libsnappy.so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
SNAPPY_SONAME := $(if $(SNAPPY_SONAME),$(SNAPPY_SONAME),libsnappy.so.1)
SNAPPY_LIBS := $(shell pkg-config --libs snappy 2>/dev/null || echo -lsnappy)

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
# -fPIC: the same objects make libkfsck.a and libkfsck.so.
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DKF_SNAPPY_SONAME='"$(SNAPPY_SONAME)"' $(CPPFLAGS) $(CFLAGS) $(WARN) $(SANFLAGS) -fPIC -Iinclude -Isrc $(PKG_CFLAGS) -MMD -MP
LDLIBS  := $(PKG_LIBS) -lpthread
# the unit tests make their inputs with libsnappy and libxxhash
TEST_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka) $(SNAPPY_LIBS) \
             $(shell pkg-config --libs libxxhash 2>/dev/null || echo -lxxhash)

# The library, by layer (docs/architecture.md): bytes/ codecs and checksums,
# format/ Kafka files and the streaming reader, records/ internal-topic
# records, kraft/ the KRaft metadata image and its replay, jobs/ what the
# commands do, a room (folder) per job family. cli/ is the command-line tool.
LIB_DIRS := bytes format records kraft jobs/*
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(BUILD)/fuzz/replay_%)

VERSION := $(shell sed -n 's/^\#define KFSCK_VERSION "\(.*\)"/\1/p' include/kfsck/kfsck.h)
LIB := $(BUILD)/libkfsck.a
SONAME := libkfsck.so.0
SHLIB := $(BUILD)/libkfsck.so.$(VERSION)
BIN := $(BUILD)/kfsck

.PHONY: all deps demo check check-broker test test-bin test-threads bench fuzz fuzz-smoke fuzz-long install clean fixtures deb deb-test static

all: kfsck libkfsck.a

ifeq ($(SAN),0)
all: $(SHLIB)
kfsck: $(BIN)
	cp $(BIN) $@.tmp && mv -f $@.tmp $@
libkfsck.a: $(LIB)
	cp $(LIB) $@.tmp && mv -f $@.tmp $@
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The shared library exports the public API only (tools/build/exports.sh).
$(BUILD)/kfsck.map: include/kfsck/*.h include/kfsck/sys/*.h tools/build/exports.sh
	@mkdir -p $(dir $@)
	sh tools/build/exports.sh include/kfsck/*.h include/kfsck/sys/*.h > $@

$(SHLIB): $(LIB_OBJ) $(BUILD)/kfsck.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/kfsck.map $(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h tests/unit/bytebuf.h tests/unit/mkbatch.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Itests/unit -o $@ $< $(LIB) $(TEST_LIBS) $(LDLIBS)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< tests/fuzz/replay.c $(LIB) $(LDLIBS)

deps:
	@sh tools/build/deps.sh

test-bin: $(BIN) $(UNIT_BIN) $(REPLAY_BIN)
# tests/api/run.sh, which links the shared library, runs for the normal build only.
ifeq ($(SAN),0)
test-bin: $(SHLIB)
endif

# Runs unit tests, fuzz-corpus replays and end-to-end tests for one build.
test: test-bin
	@sh tests/run.sh $(BUILD)

# The tests in a normal and an ASan+UBSan build, then in a ThreadSanitizer
# build with the reader forced to threads and tiny reads, so the pipeline and
# every chunk boundary run on the fixtures too (tests/api and tests/tools in
# the normal build only); then a few seconds of each libFuzzer target on its
# corpus (fuzz-smoke), when clang has libFuzzer.
check: deps
	$(MAKE) test
	$(MAKE) test SAN=1
	$(MAKE) test-threads SAN=thread
	@if sh tests/fuzz/smoke.sh --probe $(FUZZ_CC); then $(MAKE) fuzz-smoke; \
	  else echo "check: $(FUZZ_CC) with libFuzzer not found: fuzz smoke runs skipped (make deps installs it)"; fi
	@if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then $(MAKE) --no-print-directory check-broker; \
	  else echo "check: java or mvn not found: broker comparisons skipped (make deps installs them)"; fi

# kfsck against a real Apache Kafka (tests/broker/: the release pinned in its
# pom.xml, fetched by Maven into tests/broker/.m2repo): brokers started,
# stopped and crashed on loopback, Kafka's tools' output and the broker's own
# start-up compared with kfsck's. Last line: "broker: N passed, M failed".
check-broker: all
	@timeout -k 10 1500 $(PYTHON) tests/broker/run.py

test-threads: test-bin
	@KFSCK_THREADS=4 KFSCK_CHUNK_BYTES=200 sh tests/run.sh $(BUILD)

demo: deps all
	./kfsck verify fixtures/datadir || [ $$? -eq 1 ]

# Benchmark (issue 7's figures); BENCH_SCALE=0.1 for a quick run.
bench:
	@sh tools/build/deps.sh --bench
	@$(MAKE) --no-print-directory all
	@sh tools/bench/bench.sh

# libFuzzer targets (clang): build/fuzz-lf/fuzz_<name>, one per
# tests/fuzz/fuzz_<name>.c. The library is compiled once with the fuzzer's
# coverage and ASan+UBSan (objects under build/fuzz-lf/obj/, one archive
# build/fuzz-lf/libkfsck-fuzz.a) and every target is linked against it, so a
# rebuild recompiles only what changed. `make fuzz-smoke` runs each target a
# few seconds on its committed corpus (tests/fuzz/smoke.sh; `make check` does
# when clang has libFuzzer); `make fuzz-long FUZZ_SECONDS=N [FUZZ_JOBS=J]`
# runs each N seconds on a copy of its corpus, crashes kept in
# build/fuzz-lf/crashes/<name>/, and prints a table (tests/fuzz/long.sh).
FUZZ_CC      ?= clang
FUZZ_DIR     := build/fuzz-lf
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -O1 -g $(FUZZ_SAN) -Iinclude -Isrc $(PKG_CFLAGS) -MMD -MP
FUZZ_OBJ     := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB     := $(FUZZ_DIR)/libkfsck-fuzz.a
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 1

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJ)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(PKG_LIBS) -lpthread

fuzz: $(FUZZ_BIN)

fuzz-smoke: fuzz
	@sh tests/fuzz/smoke.sh $(FUZZ_DIR)

fuzz-long: fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/long.sh $(FUZZ_DIR)

fixtures:
	$(PYTHON) tools/gen/gen_fixtures.py fixtures

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/kfsck/sys $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 kfsck $(DESTDIR)$(PREFIX)/bin/kfsck
	install -m 644 libkfsck.a $(DESTDIR)$(LIBDIR)/libkfsck.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libkfsck.so.$(VERSION)
	ln -sf libkfsck.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libkfsck.so
	install -m 644 include/kfsck/*.h $(DESTDIR)$(PREFIX)/include/kfsck/
	install -m 644 include/kfsck/sys/*.h $(DESTDIR)$(PREFIX)/include/kfsck/sys/
	sed '/^\.TH /s/"kfsck [^"]*"/"kfsck $(VERSION)"/' docs/kfsck.1 > $(DESTDIR)$(PREFIX)/share/man/man1/kfsck.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/kfsck.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|' \
	  kfsck.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/kfsck.pc
	install -m 644 contrib/completion/kfsck.bash $(DESTDIR)$(BASHCOMPDIR)/kfsck
	install -m 644 contrib/completion/_kfsck $(DESTDIR)$(ZSHCOMPDIR)/_kfsck

# Debian packages from debian/ into dist/, built with dpkg-buildpackage in a
# copy of the tree (build/deb/), so the build's own `make clean` leaves this
# one alone, then checked by lintian (any error fails); the -dbgsym packages
# stay in build/deb/. The version is debian/changelog's, which must be
# KFSCK_VERSION.
deb:
	@sh tools/build/deps.sh --package
	@cv=$$(dpkg-parsechangelog -S Version); [ "$$cv" = "$(VERSION)" ] || \
	  { echo "deb: debian/changelog is at $$cv, KFSCK_VERSION is $(VERSION)" >&2; exit 1; }
	rm -rf build/deb && mkdir -p build/deb/kfsck-$(VERSION) dist
	{ git ls-files -co --exclude-standard 2>/dev/null || find . -path ./build -prune -o -path ./dist -prune -o \
	  -path ./bench-data -prune -o -path ./.git -prune -o -type f -print; } | \
	  tar -cf - -T - | tar -xf - -C build/deb/kfsck-$(VERSION)
	cd build/deb/kfsck-$(VERSION) && dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
	  { tail -40 ../build.log; exit 1; }
	rm -f dist/*.deb
	cp build/deb/kfsck_$(VERSION)_*.deb build/deb/libkfsck0_$(VERSION)_*.deb \
	  build/deb/libkfsck-dev_$(VERSION)_*.deb dist/
	lintian --fail-on error --tag-display-limit 0 build/deb/kfsck_$(VERSION)_*.changes
	@ls dist/*.deb

# Installs dist/*.deb into a fresh minimal Debian root and uses them there,
# and runs dist/kfsck-static alone in an empty root (as root; minutes, so
# not part of `make check`): tools/build/deb_test.sh.
deb-test: deb static
	sh tools/build/deb_test.sh

# dist/kfsck-static: the same objects linked with -static against every
# library; ISA-L's static archive, which Debian does not ship, is built from
# Debian's source of the installed libisal (tools/build/isal_static.sh).
# libsnappy is linked in (-u: codec_load.c's weak references find it), so
# the linker's warning about dlopen in a static program is about a
# fallback this program never takes.
STATIC_DIR := build/static
static: dist/kfsck-static

dist/kfsck-static: $(CLI_OBJ) $(LIB) tools/build/isal_static.sh
	@sh tools/build/deps.sh --package
	sh tools/build/isal_static.sh $(STATIC_DIR)
	@mkdir -p dist
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -static -o $@.tmp $(CLI_OBJ) $(LIB) -L$(STATIC_DIR) \
	  -Wl,-u,snappy_uncompress -Wl,-u,snappy_uncompressed_length \
	  -lz -llz4 -lzstd -lsnappy -lisal -ljansson -lstdc++ -lm -lpthread
	@if readelf -l $@.tmp | grep -q INTERP; then echo "static: $@ needs a dynamic loader" >&2; exit 1; fi
	mv -f $@.tmp $@

clean:
	rm -rf build build-san build-tsan kfsck libkfsck.a dist

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(REPLAY_BIN:=.d) $(FUZZ_OBJ:.o=.d) $(FUZZ_BIN:=.d)
