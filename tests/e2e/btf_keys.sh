#!/bin/bash
# The VMCOREINFO keys a note lacks, from the dump's own BTF and kallsyms
# (issue 27; kernel/btf_kinfo.c), on the real 6.1 and 6.12 fixtures:
#  - with nine keys that -d 31 needs knocked out of the note (SIZE(page),
#    OFFSET(page.mapping), OFFSET(page.compound_head), NUMBER(PG_lru),
#    NUMBER(PG_swapcache), NUMBER(PG_head_mask), LENGTH(zone.free_area),
#    NUMBER(NR_FREE_PAGES), SYMBOL(node_data)), the dump is the one the
#    whole note gives, page for page, and one line names the keys taken;
#  - the whole note reads no BTF (nothing is said);
#  - -g FILE VMCORE (no -x): the keys from BTF and kallsyms with the
#    note's, marked by a GENERATED-FROM line; given as -i to the note with
#    keys knocked out, the same dump again;
#  - the same note with the dump's BTF damaged: a warning that names the
#    BTF and -x, then the error of the missing SIZE(page), exit 1, no
#    output file, and -g from it one error line; never a crash;
#  - a build without libbpf (HAVE_LIBBPF=0, built here) on the note with
#    keys knocked out: a warning that the dump's BTF could give them and
#    names -x, then the same error.
. "$(dirname "$0")/../lib/lib.sh"
KEYS="NUMBER(PG_lru)= OFFSET(page.mapping)= NUMBER(PG_head_mask)= OFFSET(page.compound_head)=
      NUMBER(PG_swapcache)= SIZE(page)= LENGTH(zone.free_area)= SYMBOL(node_data)= NUMBER(NR_FREE_PAGES)="
knock() { # SRC DST [btf]: a copy with KEYS renamed in the note (and the BTF's magic broken)
	cp "$1" "$2" && python3 - "$2" "${3:-}" $KEYS <<-'PY'
	import mmap, struct, sys
	path, btf, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
	with open(path, "r+b") as f:
	    m = mmap.mmap(f.fileno(), 0)
	    for k in keys:
	        i = m.find(k.encode(), 0, 64 << 20)
	        assert i >= 0, k
	        m[i] = ord("X")               # an unknown key: the line is ignored
	    # the vmlinux's BTF (the dump holds copies of it: each, by its size)
	    i, n = 0, 0
	    while btf:
	        i = m.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00", i)
	        if i < 0:
	            break
	        _, _, tl, _, sl = struct.unpack("<IIIII", m[i + 4:i + 24])
	        if tl + sl > 1 << 20:
	            m[i:i + 2] = b"\x00\x00"
	            n += 1
	        i += 8
	    assert n or not btf, "no BTF header"
	    m.flush()
	PY
}
# the build without libbpf, once for the suites that run side by side
NOBPF="$MDF_SRC/build/default-nobpf/makedumpfile"
flock "$MDF_SRC/build/.nobpf.lock" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$MDF_SRC" -j2 DEVELOPER=1 HAVE_LIBBPF=0 \
	build/default-nobpf/makedumpfile >"$T/nobpf.log" 2>&1 ||
	notok "btf-keys-nobpf-build" "$(tail -n 3 "$T/nobpf.log" | tr '\n' ' ')"
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "btf-keys-$name" "no fixture"; continue; }
	rm -f "$T"/*.l
	"$MDF" -l -d 31 "$vm" "$T/full.l" >"$T/full.log" 2>&1 ||
		{ notok "btf-keys-$name-full" "$(tail -n 1 "$T/full.log")"; continue; }
	if grep -q "BTF" "$T/full.log"; then notok "btf-keys-$name-whole-note-quiet" "$(grep BTF "$T/full.log")"
	else ok "btf-keys-$name-whole-note-quiet"; fi
	knock "$vm" "$T/lack.elf" || { notok "btf-keys-$name-knock" "could not edit the copy"; continue; }
	if "$MDF" -l -d 31 "$T/lack.elf" "$T/lack.l" >"$T/lack.log" 2>&1; then
		line=$(grep -F "VMCOREINFO keys from the dump's BTF and kallsyms: " "$T/lack.log")
		miss=""
		for k in $KEYS; do
			[[ "$line" == *"${k%=}"* ]] || miss="$miss ${k%=}"
		done
		if [ -n "$line" ] && [ -z "$miss" ]; then ok "btf-keys-$name-said ($(echo "${line#*: }" | cut -c1-120)...)"
		else notok "btf-keys-$name-said" "missing:$miss in '$line'"; fi
		same=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/full.l" "$T/lack.l" 2>&1) &&
			ok "btf-keys-$name-same-dump ($same)" || notok "btf-keys-$name-same-dump" "$same"
	else
		notok "btf-keys-$name-filled" "$(tr '\n' ' ' <"$T/lack.log" | cut -c1-300)"
	fi
	rm -f "$T/lack.l"
	if [ -x "$NOBPF" ]; then
		"$NOBPF" -l -d 31 "$T/lack.elf" "$T/lack.l" >"$T/nobpf.log" 2>&1
		rc=$?
		if [ $rc = 1 ] && [ ! -e "$T/lack.l" ] &&
			grep -qx "$T/lack.elf: VMCOREINFO lacks what dump level 31 needs; the dump's BTF could give it, but this makedumpfile was built without libbpf; -x VMLINUX can." "$T/nobpf.log" &&
			grep -qx "makedumpfile: $T/lack.elf: dump level 31 needs struct page information, but VMCOREINFO has no SIZE(page)" "$T/nobpf.log"; then
			ok "btf-keys-$name-nobpf-says-btf"
		else notok "btf-keys-$name-nobpf-says-btf" "rc=$rc $(tr '\n' ' ' <"$T/nobpf.log" | cut -c1-300)"; fi
	fi
	# -g FILE VMCORE: the keys from BTF and kallsyms, marked; as -i it
	# gives the knocked-out note what it lacks
	rm -f "$T/g.txt"
	if "$MDF" -g "$T/g.txt" "$vm" >"$T/g.log" 2>&1 &&
		head -n 1 "$T/g.txt" | grep -q "^GENERATED-FROM=the dump's BTF and kallsyms ([0-9]* keys), and its VMCOREINFO note$" &&
		grep -q "^SIZE(page)=" "$T/g.txt" && grep -q "^OSRELEASE=" "$T/g.txt" &&
		"$MDF" -l -d 31 -i "$T/g.txt" "$T/lack.elf" "$T/gi.l" >"$T/gi.log" 2>&1 &&
		! grep -q "from the dump's BTF" "$T/gi.log" &&
		same=$(python3 "$MDF_SRC/tests/tools/kdump_same.py" --ignore-headers "$T/full.l" "$T/gi.l" 2>&1); then
		ok "btf-keys-$name-g-from-dump ($(head -n 1 "$T/g.txt" | sed 's/^GENERATED-FROM=//'); as -i: $same)"
	else notok "btf-keys-$name-g-from-dump" "$(tr '\n' ' ' <"$T/g.log" | cut -c1-200) $(tr '\n' ' ' <"$T/gi.log" 2>/dev/null | cut -c1-200)"; fi
	rm -f "$T/gi.l"
	knock "$vm" "$T/bad.elf" btf || { notok "btf-keys-$name-knock-btf" "could not edit the copy"; continue; }
	rm -f "$T/lack.elf"
	"$MDF" -l -d 31 "$T/bad.elf" "$T/bad.l" >"$T/bad.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ ! -e "$T/bad.l" ] &&
		grep -q "^$T/bad.elf: VMCOREINFO lacks what dump level 31 needs, and the dump cannot give it: BTF at 0x[0-9a-f]* (0x[0-9a-f]* bytes): libbpf cannot parse it: .*; -x VMLINUX can\.$" "$T/bad.log" &&
		grep -q "^makedumpfile: $T/bad.elf: dump level 31 needs struct page information, but VMCOREINFO has no SIZE(page)$" "$T/bad.log"; then
		ok "btf-keys-$name-damaged-btf"
	else notok "btf-keys-$name-damaged-btf" "rc=$rc $(tr '\n' ' ' <"$T/bad.log" | cut -c1-400)"; fi
	rm -f "$T/g2.txt"
	"$MDF" -g "$T/g2.txt" "$T/bad.elf" >"$T/g2.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ ! -e "$T/g2.txt" ] &&
		grep -q "^makedumpfile: $T/bad.elf: -g without -x VMLINUX takes the kernel's symbols and types from the dump: BTF at 0x[0-9a-f]* (0x[0-9a-f]* bytes): libbpf cannot parse it: " "$T/g2.log"; then
		ok "btf-keys-$name-g-damaged-btf"
	else notok "btf-keys-$name-g-damaged-btf" "rc=$rc $(tr '\n' ' ' <"$T/g2.log" | cut -c1-300)"; fi
	rm -f "$T/bad.elf" "$T"/*.l
done
exit 0
