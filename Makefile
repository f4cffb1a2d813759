# kfsck build. `make` builds ./kfsck and libkfsck.a; `make check` runs the
# tests in three builds: normal (every test, including tests/api and
# tests/tools), ASan+UBSan (all but those two) and ThreadSanitizer (all but
# those two, with the reader forced to threads and tiny reads); `make demo`
# runs verify on the bundled sample data dir; `make deps` installs what is
# missing; `make bench` measures speed and memory (tools/bench/bench.sh). The
# version is KFSCK_VERSION in include/kfsck/kfsck.h: `make install` puts it
# into the library's file name, kfsck.pc and the man page's title line.

CC      ?= cc
PREFIX  ?= /usr/local
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

PKGS    := zlib liblz4 libzstd snappy libxxhash libisal
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz -llz4 -lzstd -lsnappy -lxxhash -lisal)

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
# -fPIC: the same objects make libkfsck.a and libkfsck.so.
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(CFLAGS) $(WARN) $(SANFLAGS) -fPIC -Iinclude -Isrc $(PKG_CFLAGS) -MMD -MP
LDLIBS  := $(PKG_LIBS) -lpthread
TEST_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# The library, by layer (docs/architecture.md): bytes/ codecs and checksums,
# format/ Kafka files and the streaming reader, records/ internal-topic
# records, jobs/ what the commands do. cli/ is the command-line tool.
LIB_DIRS := bytes format records jobs
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

.PHONY: all deps demo check test test-bin test-threads bench fuzz install clean fixtures

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
$(BUILD)/kfsck.map: include/kfsck/*.h tools/build/exports.sh
	@mkdir -p $(dir $@)
	sh tools/build/exports.sh include/kfsck/*.h > $@

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
# the normal build only).
check: deps
	$(MAKE) test
	$(MAKE) test SAN=1
	$(MAKE) test-threads SAN=thread

test-threads: test-bin
	@KFSCK_THREADS=4 KFSCK_CHUNK_BYTES=200 sh tests/run.sh $(BUILD)

demo: deps all
	./kfsck verify fixtures/datadir || [ $$? -eq 1 ]

# Benchmark (issue 7's figures); BENCH_SCALE=0.1 for a quick run.
bench:
	@sh tools/build/deps.sh --bench
	@$(MAKE) --no-print-directory all
	@sh tools/bench/bench.sh

# libFuzzer targets (clang): build/fuzz-lf/fuzz_*
fuzz:
	@mkdir -p build/fuzz-lf
	for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
	    -o build/fuzz-lf/$$n $$f $(LIB_SRC) $(PKG_LIBS) || exit 1; done

fixtures:
	$(PYTHON) tools/gen/gen_fixtures.py fixtures

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/kfsck $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 kfsck $(DESTDIR)$(PREFIX)/bin/kfsck
	install -m 644 libkfsck.a $(DESTDIR)$(PREFIX)/lib/libkfsck.a
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/libkfsck.so.$(VERSION)
	ln -sf libkfsck.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libkfsck.so
	install -m 644 include/kfsck/*.h $(DESTDIR)$(PREFIX)/include/kfsck/
	sed '/^\.TH /s/"kfsck [^"]*"/"kfsck $(VERSION)"/' docs/kfsck.1 > $(DESTDIR)$(PREFIX)/share/man/man1/kfsck.1
	chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/kfsck.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|' \
	  kfsck.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/kfsck.pc

clean:
	rm -rf build build-san build-tsan kfsck libkfsck.a

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
