#!/bin/bash
# The i386 oracle (issue 29): Debian bookworm's makedumpfile 1.7.2 built for
# i386 (upstream reads i386 dumps only when built for i386), run on this
# x86_64 host through the i386 ld.so, on the hand-made i686 vmcores of
# tests/unit/test_i386.c (ELF32 EM_386 as kexec-tools writes it, a Debian
# 6.1 686 kernel's VMCOREINFO, FLATMEM): without PAE, with PAE, and one
# without a buddy marker (free pages from the free lists).  Our -l at
# -d 1, 16 and 31 and our -E -d 31 must be its bytes (the ILP32 kdump
# headers, the page-table walks, the 4-byte struct page words); our
# -c -d 31 its dump but for the compressed bytes (tests/tools/kdump_same.py:
# libdeflate writes other zlib streams).  1.7.2's -R of our -F stream and
# its --reassemble of our --split set are its own -l file, and its
# --dump-dmesg gives our text.  1.7.2 refilters no i386 kdump
# file, its own either ("Can't convert a virtual address(c0102000)"): ours
# does, and reads the log from it (tests/unit/test_i386.c).
# 1.7.2 and its libraries are fetched with apt-get download into
# MDF_I386_CACHE (default /var/tmp/mdf-i386), never installed, from the
# Debian mirror of this machine's apt sources (tests/lib/apt.sh).
. "$(dirname "$0")/../lib/lib.sh"
. "$MDF_SRC/tests/lib/apt.sh"
CACHE=${MDF_I386_CACHE:-/var/tmp/mdf-i386}
LDSO=/lib/ld-linux.so.2
UPROOT=$CACHE/mdf172/root

stage() {
	local log=$T/apt.log
	# shellcheck disable=SC2034  # apt.sh's functions read it
	DEB_ARCH=i386
	apt_state "$CACHE/apt-bookworm-i386" "$log" bookworm bookworm-security || return 1
	mkdir -p "$CACHE/mdf172/debs" || return 1
	apt_download "$log" "$CACHE/mdf172/debs" makedumpfile libdw1 libelf1 liblzo2-2 zlib1g \
		libbz2-1.0 liblzma5 libzstd1 || return 1
	rm -rf "$UPROOT"
	for d in "$CACHE"/mdf172/debs/*.deb; do dpkg -x "$d" "$UPROOT" 2>>"$log" || return 1; done
	touch "$CACHE/mdf172/staged"
}

if [ ! -x "$LDSO" ]; then needfail "i386-oracle" "no $LDSO (libc6-i386)"; exit 0; fi
if [ ! -f "$CACHE/mdf172/staged" ] && ! stage; then
	needfail "i386-oracle" "makedumpfile:i386 could not be fetched: $(tail -n 2 "$T/apt.log" | tr '\n' ' ')"
	exit 0
fi
up() {
	"$LDSO" --library-path "$UPROOT/lib/i386-linux-gnu:$UPROOT/usr/lib/i386-linux-gnu:/lib32" \
		"$UPROOT/usr/bin/makedumpfile" "$@"
}
if ! up -v 2>/dev/null | grep -q "version 1.7.2"; then
	needfail "i386-oracle" "Debian's i386 makedumpfile does not run here (ia32 emulation?)"
	exit 0
fi
if ! MDF_I386_CORES=$T "$MDF_BUILD/tests/unit/test_i386" >"$T/cores.log" 2>&1; then
	notok "i386-oracle-cores" "$(tail -n 2 "$T/cores.log" | tr '\n' ' ')"
	exit 0
fi
for m in nopae pae walk; do
	for o in "-l -d 1" "-l -d 16" "-l -d 31" "-E -d 31"; do
		name="i386-oracle-$m-$(sed 's/^-//; s/ -/-/g; s/ //g' <<<"$o")"
		rm -f "$T/up" "$T/ours"
		# shellcheck disable=SC2086
		if ! up $o "$T/$m.elf" "$T/up" >"$T/up.log" 2>&1; then
			notok "$name" "1.7.2: $(tail -n 3 "$T/up.log" | tr '\n' ' ')"
		elif ! "$MDF" $o "$T/$m.elf" "$T/ours" >"$T/ours.log" 2>&1; then
			notok "$name" "ours: $(tail -n 3 "$T/ours.log" | tr '\n' ' ')"
		elif why=$(python3 "$MDF_SRC/tests/tools/elf_same.py" "$T/up" "$T/ours" 2>&1); then
			ok "$name ($why)"
		else
			notok "$name" "$why"
		fi
	done
	rm -f "$T/up" "$T/ours"
	name="i386-oracle-$m-c-d31"
	if up -c -d 31 "$T/$m.elf" "$T/up" >"$T/up.log" 2>&1 &&
		"$MDF" -c -d 31 "$T/$m.elf" "$T/ours" >"$T/ours.log" 2>&1 &&
		why=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" "$T/up" "$T/ours" 2>&1)
	then ok "$name ($why)"; else notok "$name" "${why:-$(tail -n 2 "$T/up.log" "$T/ours.log" | tr '\n' ' ')}"; fi
	# 1.7.2 takes our flattened stream (-R) and our split set
	# (--reassemble) back to its own -l file; the kernel log is its text
	rm -f "$T/up" "$T/ours" "$T/p1" "$T/p2"
	up -l -d 31 "$T/$m.elf" "$T/up" >"$T/up.log" 2>&1
	"$MDF" -F -l -d 31 "$T/$m.elf" 2>/dev/null | up -R "$T/ours" >"$T/r.log" 2>&1
	if cmp -s "$T/up" "$T/ours"; then ok "i386-oracle-$m-F-then-R"
	else notok "i386-oracle-$m-F-then-R" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')"; fi
	rm -f "$T/ours"
	"$MDF" --split -l -d 31 "$T/$m.elf" "$T/p1" "$T/p2" >/dev/null 2>&1
	up --reassemble "$T/p1" "$T/p2" "$T/ours" >"$T/r.log" 2>&1
	if cmp -s "$T/up" "$T/ours"; then ok "i386-oracle-$m-split-then-reassemble"
	else notok "i386-oracle-$m-split-then-reassemble" "$(tail -n 2 "$T/r.log" | tr '\n' ' ')"; fi
	rm -f "$T/up" "$T/ours"
	up --dump-dmesg "$T/$m.elf" "$T/up" >/dev/null 2>&1
	"$MDF" --dump-dmesg "$T/$m.elf" "$T/ours" >/dev/null 2>&1
	if [ -s "$T/up" ] && cmp -s "$T/up" "$T/ours"; then ok "i386-oracle-$m-dmesg"
	else notok "i386-oracle-$m-dmesg" "$(diff "$T/up" "$T/ours" 2>&1 | head -n 3 | tr '\n' ' ')"; fi
done
