# Makefile for makedumpfile (a makedumpfile-compatible dump filter).
#
#   make                      build ./makedumpfile (dynamically linked)
#   make STATIC=1             static binary for kdump initramfs images
#   make DEVELOPER=1          add -Werror (and more warnings)
#   make SANITIZE=address,undefined check
#   make check                build and run every test
#   make demo                 generate a sample vmcore and filter it
#   make deps                 apt-get install the build dependencies (as root)
#   make bench                compare against the installed makedumpfile
#   make lab                  every real-kernel test in full (hours, as root)
#   make install              PREFIX=/usr/local DESTDIR=
#   make deb                  Debian package (debian/) into build/deb/
#
# Optional libraries are probed with pkg-config; override with
# HAVE_ZSTD=0/1, HAVE_SNAPPY=0/1, HAVE_LIBDEFLATE=0/1.  Objects go to
# build/<flavour>/ so that sanitizer, static and plain builds never mix.

PROG       := makedumpfile
CC         ?= cc
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
VERSION    := 0.1.0

HAVE_ZSTD   ?= $(shell $(PKG_CONFIG) --exists libzstd 2>/dev/null && echo 1 || echo 0)
HAVE_SNAPPY ?= $(shell $(PKG_CONFIG) --exists snappy 2>/dev/null && echo 1 || echo 0)
HAVE_LIBDEFLATE ?= $(shell $(PKG_CONFIG) --exists libdeflate 2>/dev/null && echo 1 || echo 0)
# libbpf (Debian's libbpf-dev) reads the kernel's BTF out of the dump
# (kernel/btf.c); without it that says so
HAVE_LIBBPF ?= $(shell $(PKG_CONFIG) --exists libbpf 2>/dev/null && echo 1 || echo 0)

# --extension FILE.so (filter/extension.c) loads with dlopen(): not from
# a static binary.  The installed samples and the search path's last
# directory: EXTDIR.
ifeq ($(STATIC),1)
HAVE_EXTENSIONS ?= 0
else
HAVE_EXTENSIONS ?= 1
endif
EXTDIR     ?= $(PREFIX)/lib/makedumpfile/extensions
INCLUDEDIR ?= $(PREFIX)/include

PKGS := zlib lzo2 libelf libdw
ifeq ($(HAVE_ZSTD),1)
PKGS += libzstd
endif
ifeq ($(HAVE_SNAPPY),1)
PKGS += snappy
endif
ifeq ($(HAVE_LIBDEFLATE),1)
PKGS += libdeflate
endif
ifeq ($(HAVE_LIBBPF),1)
PKGS += libbpf
endif

# Build flavour: one object directory per set of flags.
comma := ,
FLAVOUR := default
ifdef SANITIZE
FLAVOUR := san-$(subst $(comma),-,$(SANITIZE))
endif
ifeq ($(STATIC),1)
FLAVOUR := static
endif
# HAVE_LIBBPF=0 given: a build without libbpf, beside the others
# (tests/e2e/btf_keys.sh checks what it says)
ifeq ($(origin HAVE_LIBBPF)$(HAVE_LIBBPF),command line0)
FLAVOUR := $(FLAVOUR)-nobpf
endif
B := build/$(FLAVOUR)

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wvla -Wwrite-strings -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEVELOPER),1)
WARN     += -Werror
endif
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
ifeq ($(STATIC),1)
PKG_LIBS := $(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null)
LDSTATIC := -static
# libsnappy is C++ and snappy.pc does not name its runtime.
ifeq ($(HAVE_SNAPPY),1)
PKG_LIBS += -lstdc++ -lm
endif
else
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
endif
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 $(WARN) -I. \
	      -DMDF_VERSION='"$(VERSION)"' \
	      -DHAVE_ZSTD=$(HAVE_ZSTD) -DHAVE_SNAPPY=$(HAVE_SNAPPY) -DHAVE_LIBDEFLATE=$(HAVE_LIBDEFLATE) \
	      -DHAVE_LIBBPF=$(HAVE_LIBBPF) -DHAVE_EXTENSIONS=$(HAVE_EXTENSIONS) \
	      -DMDF_EXTDIR='"$(EXTDIR)"' -Iinclude $(PKG_CFLAGS) -pthread $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS := -pthread $(LDSTATIC) $(LDFLAGS)
LIBS := $(PKG_LIBS) -lpthread
ifeq ($(HAVE_EXTENSIONS),1)
LIBS += -ldl
endif

ifdef SANITIZE
ALL_CFLAGS  += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

# Sources: every .c at the top (the input layer and the run) and in the
# stage folders is part of the program; optional codecs only when their
# library was found.
STAGES := arch kernel filter compress write
OPTIONAL_SRCS := compress/zstd.c compress/snappy.c compress/deflate.c
LIB_SRCS := $(filter-out $(PROG).c $(OPTIONAL_SRCS),$(wildcard *.c $(STAGES:%=%/*.c)))
ifeq ($(HAVE_ZSTD),1)
LIB_SRCS += $(wildcard compress/zstd.c)
endif
ifeq ($(HAVE_SNAPPY),1)
LIB_SRCS += $(wildcard compress/snappy.c)
endif
ifeq ($(HAVE_LIBDEFLATE),1)
LIB_SRCS += $(wildcard compress/deflate.c)
endif
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
MAIN_OBJ := $(B)/$(PROG).o
LIBMDF   := $(B)/libmdf.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:%.c=$(B)/%)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:%.c=$(B)/%)
# Hand-written DWARF whose types loop (tests/gen/kobj/cycle.S), one per loop.
CYCLE_NAMES := anon ring typedef array sibling spec origin config
GEN_BINS  := $(B)/tests/gen/mkvmcore $(B)/tests/gen/kobj $(B)/tests/gen/kobj-other \
	     $(B)/tests/gen/kobj-sadump \
	     $(CYCLE_NAMES:%=$(B)/tests/gen/cycle-%)
# The generator without its main(): fuzz_pipeline builds dumps with it.
GEN_LIB_SRCS := $(filter-out tests/gen/mkvmcore.c,$(wildcard tests/gen/*.c))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:%.c=$(B)/%)
# The sample extensions (extensions/*.c) and the tests' own (tests/ext/).
EXT_SRCS := $(wildcard extensions/*.c tests/ext/*.c)
EXT_BINS := $(EXT_SRCS:%.c=$(B)/%.so)
TEST_BINS := $(UNIT_BINS) $(FUZZ_BINS) $(GEN_BINS) $(TOOL_BINS) $(EXT_BINS)

.PHONY: test-bins all check demo deps bench lab install deb clean fuzz tsan-check FORCE
.DEFAULT_GOAL := all

all: $(B)/$(PROG)
# ./makedumpfile is the last plain or static build (copied every time, so
# switching between the two always leaves the one asked for).
ifneq ($(filter default static,$(FLAVOUR)),)
all: $(PROG)
$(PROG): $(B)/$(PROG) FORCE
	@cmp -s $< $@ || cp $< $@
endif

$(B)/$(PROG): $(MAIN_OBJ) $(LIBMDF)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(LIBMDF): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/unit/%: tests/unit/%.c $(LIBMDF) tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Itests/lib -MMD -MP -o $@ $< $(LIBMDF) $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/driver.c $(LIBMDF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Itests/lib -o $@ $< tests/fuzz/driver.c $(LIBMDF) $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/fuzz/fuzz_pipeline: tests/fuzz/fuzz_pipeline.c tests/fuzz/driver.c \
		$(GEN_LIB_SRCS) $(wildcard tests/gen/*.h) $(LIBMDF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Itests/lib -o $@ $< tests/fuzz/driver.c $(GEN_LIB_SRCS) \
		$(LIBMDF) $(ALL_LDFLAGS) $(LIBS)

$(B)/tests/gen/mkvmcore: $(wildcard tests/gen/*.c tests/gen/*.h) $(LIBMDF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Itests/lib -o $@ $(wildcard tests/gen/*.c) $(LIBMDF) $(ALL_LDFLAGS) $(LIBS)

# The synthetic kernel object (tests/gen/kobj/kobj.h): a -g executable
# standing in for a debug vmlinux, with the build-id of the generator's
# 6.1 note; kobj-other is another release and build of it, with 6.12's
# enum pagetype.
KOBJ_CFLAGS := -g -O0 -fno-eliminate-unused-debug-types
$(B)/tests/gen/kobj: tests/gen/kobj/kobj.c tests/gen/kobj/kobj.h
	@mkdir -p $(dir $@)
	$(CC) $(KOBJ_CFLAGS) -Wl,--build-id=0x6a2b4ac77585b8cf102cba771300e573c8489b69 -o $@ $<

$(B)/tests/gen/kobj-other: tests/gen/kobj/kobj.c tests/gen/kobj/kobj.h
	@mkdir -p $(dir $@)
	$(CC) $(KOBJ_CFLAGS) -DKOBJ_RELEASE='"6.1.0-99-amd64"' -DKOBJ_PGTY \
		-Wl,--build-id=0x00112233445566778899aabbccddeeff00112233 -o $@ $<

# kobj-sadump: kobj as 6.1 is, without 6.10's enum pagetype (upstream's
# -x would take its PG_buddy for a flag bit); tests/e2e/sadump_oracle.sh
# gives it the symbols of a generated machine (mkvmcore --symbols).
$(B)/tests/gen/kobj-sadump: tests/gen/kobj/kobj.c tests/gen/kobj/kobj.h
	@mkdir -p $(dir $@)
	$(CC) $(KOBJ_CFLAGS) -DKOBJ_NO_PAGETYPE \
		-Wl,--build-id=0x6a2b4ac77585b8cf102cba771300e573c8489b69 -o $@ $<

# A hostile debug vmlinux: the types of cycle.S loop (-DCYCLE_NAME says
# where); kobj's release and build-id, so that -x gets as far as the types.
$(B)/tests/gen/cycle-%: tests/gen/kobj/cycle.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -DCYCLE_$* \
		-Wl,--build-id=0x6a2b4ac77585b8cf102cba771300e573c8489b69 -o $@ $<

# An extension is built as its authors would: the one installed header.
$(B)/%.so: %.c include/makedumpfile/extension.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -Iinclude -fPIC -shared $(CFLAGS) -o $@ $<

$(B)/tests/tools/%: tests/tools/%.c $(LIBMDF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Itests/lib -o $@ $< $(LIBMDF) $(ALL_LDFLAGS) $(LIBS)

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_BINS:=.d)

# The program and every test program, built but not run (tests/cross.sh).
test-bins: $(B)/$(PROG) $(TEST_BINS)

# Run every test; ends with "N passed, N failed, N skipped".
check: $(B)/$(PROG) $(TEST_BINS)
	@MDF_OBJS="$(LIB_OBJS) $(MAIN_OBJ)" MDF_FLAVOUR=$(FLAVOUR) bash tests/run.sh $(B)

# Threaded tests under ThreadSanitizer.
tsan-check:
	$(MAKE) SANITIZE=thread check TESTS=thread

# Real coverage-guided fuzzers (clang + libFuzzer); make check replays corpora.
# The library is compiled once for them (build/fuzz/, clang with
# -fsanitize=fuzzer-no-link,address,undefined) and each target links it:
# `make -j2 fuzz` in parallel; FUZZ_TARGETS="pipeline config" builds those.
FUZZ_TARGETS ?= $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FZ := build/fuzz
FZ_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 -I. -Itests -Itests/lib $(PKG_CFLAGS) \
	-DMDF_VERSION='"$(VERSION)"' -DHAVE_ZSTD=$(HAVE_ZSTD) -DHAVE_SNAPPY=$(HAVE_SNAPPY) \
	-DHAVE_LIBDEFLATE=$(HAVE_LIBDEFLATE) -DHAVE_LIBBPF=$(HAVE_LIBBPF) -DHAVE_EXTENSIONS=1 \
	-DMDF_EXTDIR='"$(EXTDIR)"' -Iinclude -pthread -g -O1
FZ_LIB := $(FZ)/libmdf-fuzz.a
FZ_GEN_OBJS := $(GEN_LIB_SRCS:%.c=$(FZ)/%.o)
fuzz: $(FUZZ_TARGETS:%=build/fuzz_%)
	@for n in $(FUZZ_TARGETS); do echo "built build/fuzz_$$n (run: build/fuzz_$$n tests/fuzz/corpus/$$n)"; done

$(FZ)/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

$(FZ_LIB): $(LIB_SRCS:%.c=$(FZ)/%.o)
	@rm -f $@
	ar rcs $@ $^

build/fuzz_%: tests/fuzz/fuzz_%.c $(FZ_LIB)
	clang $(FZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FZ_LIB) $(PKG_LIBS) -lpthread -ldl

build/fuzz_pipeline: tests/fuzz/fuzz_pipeline.c $(FZ_GEN_OBJS) $(FZ_LIB)
	clang $(FZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(FZ_GEN_OBJS) $(FZ_LIB) \
		$(PKG_LIBS) -lpthread -ldl

-include $(wildcard $(FZ)/*.d $(FZ)/*/*.d $(FZ)/*/*/*.d)

DEPS_APT := build-essential pkg-config zlib1g-dev liblzo2-dev libelf-dev libdw-dev \
	    libzstd-dev libsnappy-dev libdeflate-dev libbpf-dev zstd
deps:
	@missing=""; for p in $(DEPS_APT); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" -ne 0 ]; then echo "make deps: missing packages:$$missing (run as root)"; exit 1; fi; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

demo: deps
	$(MAKE) all $(GEN_BINS)
	bash tests/demo.sh $(B)

bench: all $(GEN_BINS) $(B)/tests/tools/codecfloor
	bash tests/bench.sh $(B)

# Every real-kernel test in full, the tier CI runs a daily slice of
# (tests/lab/all.sh, hours; as root): refreshes the README's lab section.
lab: all $(TEST_BINS)
	bash tests/lab/all.sh

INSTALL_EXTS := $(if $(filter 1,$(HAVE_EXTENSIONS)),$(B)/extensions/sample.so $(B)/extensions/erase_sample.so)
install: all $(INSTALL_EXTS)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(B)/$(PROG) $(DESTDIR)$(SBINDIR)/$(PROG)
	install -m 0644 $(PROG).8 $(DESTDIR)$(MANDIR)/man8/$(PROG).8
	install -d $(DESTDIR)$(INCLUDEDIR)/makedumpfile
	install -m 0644 include/makedumpfile/extension.h $(DESTDIR)$(INCLUDEDIR)/makedumpfile/
	$(if $(INSTALL_EXTS),install -d $(DESTDIR)$(EXTDIR) && install -m 0644 $(INSTALL_EXTS) $(DESTDIR)$(EXTDIR)/)

# The Debian package (debian/, built by debian/rules through this Makefile
# with B=build/deb/obj): build/deb/ gets the .deb, its -dbgsym, .buildinfo
# and .changes; nothing is written to ../.  DEB_BUILD_OPTIONS=nocheck skips
# the unit tests run during the build.
DEB_OUT  := build/deb
DEB_JOBS ?= auto
deb:
	@for t in dpkg-buildpackage dh; do command -v $$t >/dev/null || { \
		echo "make deb: $$t missing (apt-get install dpkg-dev debhelper)"; exit 1; }; done
	@v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(VERSION)" ] || { \
		echo "make deb: debian/changelog says $$v, the Makefile $(VERSION)"; exit 1; }
	@mkdir -p $(DEB_OUT)
	rm -f $(DEB_OUT)/*.deb $(DEB_OUT)/*.buildinfo $(DEB_OUT)/*.changes
	out=$(CURDIR)/$(DEB_OUT); \
	base=$$(dpkg-parsechangelog -S Source)_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH); \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL MDF_DEB_OUT=$$out dpkg-buildpackage -b -us -uc -J$(DEB_JOBS) \
		--buildinfo-option=-u$$out --buildinfo-file=$$out/$$base.buildinfo \
		--changes-option=-u$$out --changes-file=$$out/$$base.changes
	@ls -l $(DEB_OUT)/*.deb

clean:
	rm -rf build $(PROG)
