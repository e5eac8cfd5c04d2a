#!/bin/bash
# Hostile inputs, round 3: impossible metadata is not taken as truth, and
# every message says what is wrong with which file.
#
#  - VMCOREINFO values no kernel can have (a page type of -1, the
#    _mapcount of every unmapped page, made every such page free: 0 pages
#    kept, exit 0, no word), from the note and from -i FILE: one line
#    "FILE: VMCOREINFO line N: KEY=VALUE is no ...", exit 1, no output;
#    every real kernel's values are taken;
#  - a key given twice with two values: both lines named; the same value
#    twice is taken;
#  - keys that contradict each other (OFFSET(S.m) past SIZE(S), two page
#    types with one value), in one text or across -i and the note;
#  - more pages excluded as free than the kernel's counters say were free:
#    a warning naming the dump and both numbers (the counters poked low in
#    a copy of each real vmcore), and no warning on the real vmcores as
#    they are, at -d 16 and -d 31;
#  - an ELF header in the other byte order, a reserved e_shnum, PN_XNUM
#    with no section header 0: named, not "past end of file";
#  - SYMBOL(mem_section) without SIZE(mem_section) (or the other keys
#    reading it takes): the missing key named.
. "$(dirname "$0")/../lib/lib.sh"
GEN="$MDF_BUILD/tests/gen/mkvmcore"

base61="kernel 6.1
ram 0x100000 0x4000000
pages 0x2000+64 anon random
pages 0x3000+256 free order=8"
base612="kernel 6.12
ram 0x100000 0x4000000
pages 0x2000+64 anon random
pages 0x3000+256 free order=8"

# gen DIR SPEC: DIR/vmcore from SPEC (false with a line when it fails).
gen() {
	mkdir -p "$1"
	printf '%s\n' "$2" >"$1/spec"
	"$GEN" "$1/spec" "$1/vmcore" >"$1/gen.log" 2>&1
}

# crashed FILE: a sanitizer report or a signal in FILE.
crashed() { grep -qE 'Sanitizer|runtime error|Segmentation|Aborted' "$1"; }

# refused NAME FILE PHRASE DIR ARGS...: makedumpfile ARGS DIR/out fails
# with exit status 1 and one line "makedumpfile: FILE: ..." holding
# PHRASE; DIR/out is not written.
refused() {
	local name=$1 file=$2 phrase=$3 d=$4; shift 4
	rm -f "$d/out"
	"$MDF" "$@" "$d/out" >"$d/stdout.$name" 2>"$d/stderr.$name"
	local rc=$? msg
	msg=$(grep '^makedumpfile: ' "$d/stderr.$name")
	if [ $rc -ne 1 ]; then notok "$name" "exit status $rc, want 1: $(tail -n 2 "$d/stderr.$name" | tr '\n' ' ')"
	elif [ "$(printf '%s\n' "$msg" | grep -c .)" -ne 1 ]; then notok "$name" "want one error line, got: $(cat "$d/stderr.$name")"
	elif [[ "$msg" != "makedumpfile: $file: "* ]]; then notok "$name" "the line does not start with $file: $msg"
	elif [[ "$msg" != *"$phrase"* ]]; then notok "$name" "no '$phrase' in: $msg"
	elif [ -e "$d/out" ]; then notok "$name" "an output file was written"
	elif crashed "$d/stderr.$name"; then notok "$name" "crash: $(head -n 3 "$d/stderr.$name")"
	else ok "$name"; fi
}

# taken NAME DIR ARGS...: makedumpfile --dry-run ARGS exits 0, no error
# line, no crash, and no "excluded as free" warning.
taken() {
	local name=$1 d=$2; shift 2
	"$MDF" --dry-run "$@" >"$d/stdout.$name" 2>&1
	local rc=$?
	if [ $rc -ne 0 ]; then notok "$name" "exit status $rc: $(grep '^makedumpfile: ' "$d/stdout.$name")"
	elif crashed "$d/stdout.$name"; then notok "$name" "crash: $(head -n 3 "$d/stdout.$name")"
	elif grep -q 'excluded as free' "$d/stdout.$name"; then notok "$name" "$(grep 'excluded as free' "$d/stdout.$name")"
	else ok "$name"; fi
}

# note_case NAME BASE EXTRA LEVEL PHRASE: a synthetic dump whose note has
# EXTRA (vmcoreinfo set/del lines) is refused at LEVEL with PHRASE.
note_case() {
	local d="$T/$1"
	if ! gen "$d" "$2
$3"; then notok "$1" "mkvmcore: $(cat "$d/gen.log")"; return; fi
	refused "$1" "$d/vmcore" "$5" "$d" -l -d "$4" "$d/vmcore"
}

# ---- impossible values in the note ---------------------------------------
note_case note-buddy-minus-1 "$base61" "vmcoreinfo set NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1" 31 \
	"VMCOREINFO line 93: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1 is no page type (-128 before Linux 4.18"
note_case note-buddy-minus-1-d1 "$base61" "vmcoreinfo set NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1" 1 \
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1 is no page type"
note_case note-buddy-zero-612 "$base612" "vmcoreinfo set NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0" 16 \
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=0 is no page type"
note_case note-offline-small-612 "$base612" "vmcoreinfo set NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=5" 1 \
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=5 is no page type"
note_case note-slab-underflow-612 "$base612" "vmcoreinfo set NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-2" 31 \
	"NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-2 is no page type"
note_case note-hugetlb-mapcount-byte-612 "$base612" "vmcoreinfo set NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-16777216" 8 \
	"NUMBER(PAGE_HUGETLB_MAPCOUNT_VALUE)=-16777216 is no page type"
note_case note-offline-overflow-61 "$base61" "vmcoreinfo set NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-2147483648" 31 \
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-2147483648 is no page type"
note_case note-pagesize "$base61" "vmcoreinfo set PAGESIZE=12288" 31 \
	"PAGESIZE=12288 is no page size (a power of two from 4096 to 262144)"
note_case note-pagesize-tiny "$base61" "vmcoreinfo set PAGESIZE=512" 1 \
	"PAGESIZE=512 is no page size"
note_case note-pg-lru "$base61" "vmcoreinfo set NUMBER(PG_lru)=64" 31 \
	"NUMBER(PG_lru)=64 is no page flag bit (0 to 63)"
note_case note-pg-hwpoison-negative "$base612" "vmcoreinfo set NUMBER(PG_hwpoison)=-3" 1 \
	"NUMBER(PG_hwpoison)=-3 is no page flag bit (0 to 63)"
note_case note-head-mask "$base61" "vmcoreinfo set NUMBER(PG_head_mask)=3" 31 \
	"NUMBER(PG_head_mask)=3 is no page flag mask (one bit set)"
note_case note-section-bits "$base61" "vmcoreinfo set NUMBER(SECTION_SIZE_BITS)=3" 31 \
	"NUMBER(SECTION_SIZE_BITS)=3 is no memory section size (20 to 40 bits)"
note_case note-physmem-bits "$base61" "vmcoreinfo set NUMBER(MAX_PHYSMEM_BITS)=99" 31 \
	"NUMBER(MAX_PHYSMEM_BITS)=99 is no physical address width (32 to 64 bits)"
note_case note-section-above-physmem "$base61" "vmcoreinfo set NUMBER(MAX_PHYSMEM_BITS)=36
vmcoreinfo set NUMBER(SECTION_SIZE_BITS)=36" 31 \
	"NUMBER(SECTION_SIZE_BITS)=36 is not below NUMBER(MAX_PHYSMEM_BITS)=36"
note_case note-dtor-zero "$base61" "vmcoreinfo set NUMBER(HUGETLB_PAGE_DTOR)=0" 8 \
	"NUMBER(HUGETLB_PAGE_DTOR)=0 is no compound page destructor (1 to 255)"
note_case note-mem-section-size "$base61" "vmcoreinfo set SIZE(mem_section)=12" 31 \
	"SIZE(mem_section)=12 is no struct mem_section size"
note_case note-symbol-zero "$base61" "vmcoreinfo set SYMBOL(mem_section)=0" 31 \
	"SYMBOL(mem_section)=0 is no kernel address"
note_case note-free-orders "$base61" "vmcoreinfo set LENGTH(zone.free_area)=0" 16 \
	"LENGTH(zone.free_area)=0 is no number of buddy orders (1 to 64)"
# OFFSET(S.m) past SIZE(S): it was read as absent, without a word.
note_case note-offset-zone "$base61" "vmcoreinfo set OFFSET(zone.vm_stat)=99999" 31 \
	"OFFSET(zone.vm_stat)=99999 lies outside SIZE(zone)=1536 (line 18)"
note_case note-offset-compound-order "$base61" "vmcoreinfo set OFFSET(page.compound_order)=64" 8 \
	"OFFSET(page.compound_order)=64 lies outside SIZE(page)=64 (line 16)"
note_case note-offset-list-head "$base612" "vmcoreinfo set OFFSET(list_head.prev)=16" 16 \
	"OFFSET(list_head.prev)=16 lies outside SIZE(list_head)=16"
note_case note-offset-mem-section "$base61" "vmcoreinfo set OFFSET(mem_section.section_mem_map)=32" 1 \
	"OFFSET(mem_section.section_mem_map)=32 lies outside SIZE(mem_section)=32"
# Two page types with one value: one rule would take the other's pages.
note_case note-types-equal-61 "$base61" "vmcoreinfo set NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129" 1 \
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129 is also NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129"
note_case note-types-equal-612 "$base612" "vmcoreinfo set NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-268435456" 31 \
	"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-268435456 is also NUMBER(PAGE_SLAB_MAPCOUNT_VALUE)=-268435456 (line 87): a page has one type"
note_case note-head-mask-bit "$base612" "vmcoreinfo set NUMBER(PG_head)=16" 8 \
	"NUMBER(PG_head_mask)=64 is not 1 << NUMBER(PG_head)=16"

# Every real kernel's page types are taken: -128 (2.6.38 to 4.17), ~PG_x
# (4.18 to 6.11), PGTY << 24 (6.12 on, 7.x), and their 32 bits in hex.
for v in -128 -2049 -4097 0xffffff7f -150994944 0xf8000000; do
	d="$T/type$v"
	gen "$d" "$base61
vmcoreinfo set NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=$v" && taken "note-type-taken$v" "$d" -d 31 "$d/vmcore"
done
for k in 6.1 6.12 7.1 5.10; do
	d="$T/preset-$k"
	gen "$d" "kernel $k
ram 0x100000 0x4000000
pages 0x2000+64 anon random
pages 0x3000+256 free order=8" && taken "preset-taken-$k" "$d" -d 31 "$d/vmcore"
done

# ---- -i FILE --------------------------------------------------------------
d="$T/vi"
gen "$d" "$base61
vmcoreinfo del NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)
vmcoreinfo del NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)
vmcoreinfo del NUMBER(PG_lru)
vmcoreinfo del OFFSET(zone.vm_stat)"
printf 'NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1\n' >"$d/buddy"
refused i-buddy-minus-1 "$d/buddy" \
	"VMCOREINFO line 1: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-1 is no page type" \
	"$d" -l -d 31 -i "$d/buddy" "$d/vmcore"
printf 'NUMBER(PG_lru)=4\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=1\n' >"$d/buddy1"
refused i-buddy-plus-1 "$d/buddy1" \
	"VMCOREINFO line 2: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=1 is no page type" \
	"$d" -l -d 16 -i "$d/buddy1" "$d/vmcore"
printf 'NUMBER(PG_lru)=99\n' >"$d/lru"
refused i-pg-lru "$d/lru" "VMCOREINFO line 1: NUMBER(PG_lru)=99 is no page flag bit" \
	"$d" -l -d 31 -i "$d/lru" "$d/vmcore"
# A bad line of -i is refused even where the note has the key (it wins).
printf 'SIZE(page)=20\n' >"$d/size"
refused i-size-page "$d/size" "VMCOREINFO line 1: SIZE(page)=20 is no struct page size" \
	"$d" -l -d 31 -i "$d/size" "$d/vmcore"
printf 'NUMBER(PG_lru)=4\nSIZE(page)=64\nNUMBER(PG_lru)=5\n' >"$d/dup"
refused i-duplicate-conflict "$d/dup" \
	"VMCOREINFO line 3: NUMBER(PG_lru)=5 conflicts with line 1: NUMBER(PG_lru)=4" \
	"$d" -l -d 31 -i "$d/dup" "$d/vmcore"
printf 'SYMBOL(mem_section)=ffff888000100000\nPAGESIZE=4096\nSYMBOL(mem_section)=0xffff888000200000\n' >"$d/dupsym"
refused i-duplicate-symbol "$d/dupsym" \
	"VMCOREINFO line 3: SYMBOL(mem_section)=0xffff888000200000 conflicts with line 1" \
	"$d" -l -d 1 -i "$d/dupsym" "$d/vmcore"
printf 'NUMBER(PG_lru)=4\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\nNUMBER(PG_lru)=4\n' >"$d/same"
taken i-duplicate-same "$d" -d 31 -i "$d/same" "$d/vmcore"
# Across the files: each key named by where it came from.
printf 'NUMBER(PG_lru)=4\nNUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-257\n' >"$d/types"
refused i-types-equal "$d/types" \
	"VMCOREINFO line 3: NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-257 is also NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257 (line 2)" \
	"$d" -l -d 31 -i "$d/types" "$d/vmcore"
printf 'NUMBER(PG_lru)=4\nOFFSET(zone.vm_stat)=4096\n' >"$d/zone"
refused i-offset-across-files "$d/zone" \
	"VMCOREINFO line 2: OFFSET(zone.vm_stat)=4096 lies outside SIZE(zone)=1536 ($d/vmcore: VMCOREINFO line" \
	"$d" -l -d 31 -i "$d/zone" "$d/vmcore"
d2="$T/vi2"
gen "$d2" "$base61
vmcoreinfo del NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)"
printf 'NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129\n' >"$d2/offline"
refused i-types-equal-note "$d2/offline" \
	"VMCOREINFO line 1: NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-129 is also NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129 ($d2/vmcore: VMCOREINFO line" \
	"$d2" -l -d 1 -i "$d2/offline" "$d2/vmcore"
printf 'NUMBER(PG_lru)=4\nNUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\nNUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\nOFFSET(zone.vm_stat)=1344\n' >"$d/good"
taken i-real-values "$d" -d 31 -i "$d/good" "$d/vmcore"

# ---- a key twice in the note ------------------------------------------
# note_line VMCORE OLD NEW: replace the note line OLD by NEW and lines of
# an unknown key, to the same length (the note cannot grow).
note_line() {
	python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
f = open(path, "r+b"); head = f.read(1 << 20)
i = head.find(b"\n" + old + b"\n")
assert i > 0, old
pad = len(old) - len(new) - 1
assert pad >= 3
f.seek(i + 1); f.write(new + b"\n" + b"Z" * (pad - 2) + b"=1")
PY
}
d="$T/dup-note"
gen "$d" "$base61"
cp "$d/vmcore" "$d/same.elf"
note_line "$d/same.elf" "NUMBER(KERNEL_IMAGE_SIZE)=1073741824" "SIZE(page)=64"
taken note-duplicate-same "$d" -d 31 "$d/same.elf"
for kv in "SIZE(page)=72" "PAGESIZE=65536" "NUMBER(SECTION_SIZE_BITS)=28" "SYMBOL(mem_section)=1000" \
	"NUMBER(PG_lru)=5" "OSRELEASE=6.1.0-99-amd64"; do
	cp "$d/vmcore" "$d/k.elf"
	note_line "$d/k.elf" "NUMBER(KERNEL_IMAGE_SIZE)=1073741824" "${kv}"
	refused "note-duplicate-${kv%%=*}" "$d/k.elf" "${kv} conflicts with line" "$d" -l -d 31 "$d/k.elf"
done

# ---- missing keys named -----------------------------------------------
for k in "SIZE(mem_section)" "OFFSET(mem_section.section_mem_map)"; do
	note_case "missing-$k" "$base61" "vmcoreinfo del $k" 31 \
		"cannot find struct pages: VMCOREINFO has SYMBOL(mem_section) but no $k"
done
note_case missing-two-mem-section-keys "$base61" "vmcoreinfo del SIZE(mem_section)
vmcoreinfo del OFFSET(mem_section.section_mem_map)" 31 \
	"VMCOREINFO has SYMBOL(mem_section) but no SIZE(mem_section), OFFSET(mem_section.section_mem_map)"
# x86_64's SECTION_SIZE_BITS is 27 whatever the note says, and kernels
# before 5.13 do not write it (nor makedumpfile's note of a sadump dump):
# the architecture's constant, as upstream, and the same pages.
d="$T/missing-ssb"
gen "$d/base" "$base61" && gen "$d" "$base61
vmcoreinfo del NUMBER(SECTION_SIZE_BITS)" && taken missing-section-size-bits-x86_64 "$d" -d 31 "$d/vmcore" &&
	"$MDF" --dry-run -d 31 "$d/base/vmcore" >"$d/base.out" 2>&1
check "missing-section-size-bits-x86_64-same-pages" \
	diff <(grep -E '^ *(Excluded|Remaining) pages' "$d/base.out") <(grep -E '^ *(Excluded|Remaining) pages' "$d/stdout.missing-section-size-bits-x86_64")
note_case missing-size-page "$base61" "vmcoreinfo del SIZE(page)" 31 \
	"dump level 31 needs struct page information, but VMCOREINFO has no SIZE(page)"
# 6.12 also gives SYMBOL(vmemmap): its struct pages are found without.
d="$T/missing-612"
gen "$d" "$base612
vmcoreinfo del SIZE(mem_section)" && taken missing-size-mem-section-vmemmap "$d" -d 31 "$d/vmcore"
# Warnings name the dump too.
d="$T/no-struct-pages"
if gen "$d" "$base61
struct_pages no"; then
	"$MDF" --dry-run -d 31 "$d/vmcore" >"$d/out" 2>&1
	if grep -q "^$d/vmcore: [0-9]* pages kept: their struct pages could not be read" "$d/out"; then
		ok warning-names-dump
	else notok warning-names-dump "$(grep -i kept "$d/out")"; fi
fi

# ---- ELF headers ------------------------------------------------------
d="$T/elf"
gen "$d" "$base61"
gen "$T/elf-s390x" "arch s390x
kernel 6.1
ram 0x100000 0x4000000
pages 0x2000+64 anon random"
# elf_edit IN OUT PY: OUT is IN with the python statements PY applied to
# its bytes d (struct is imported).
elf_edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
exec(sys.argv[3])
open(sys.argv[2], "wb").write(d)
PY
}
elf_edit "$d/vmcore" "$d/swapped" "d[5] = 2"
refused elf-byte-swapped "$d/swapped" \
	"byte order: EI_DATA 2 says big-endian, but the ELF header is little-endian" "$d" -l -d 31 "$d/swapped"
elf_edit "$T/elf-s390x/vmcore" "$d/swapped-be" "d[5] = 1"
refused elf-byte-swapped-s390x "$d/swapped-be" \
	"byte order: EI_DATA 1 says little-endian, but the ELF header is big-endian" "$d" -l -d 1 "$d/swapped-be"
elf_edit "$d/vmcore" "$d/swapped-type" "d[5] = 2; d[16:18] = b'\\x00\\x04'"
refused elf-byte-swapped-but-e-type "$d/swapped-type" "byte order: EI_DATA 2 says big-endian" \
	"$d" -l -d 31 "$d/swapped-type"
elf_edit "$d/vmcore" "$d/shnum" "struct.pack_into('<H', d, 60, 0xffff)"
refused elf-shnum-ffff "$d/shnum" "e_shnum 0xffff is a reserved value" "$d" -l -d 31 "$d/shnum"
elf_edit "$d/vmcore" "$d/shnum2" "struct.pack_into('<QHH', d, 40, 0x1000, 0, 0); struct.pack_into('<HH', d, 58, 64, 0xff00)"
refused elf-shnum-ff00 "$d/shnum2" "e_shnum 0xff00 is a reserved value" "$d" -l -d 1 "$d/shnum2"
elf_edit "$d/vmcore" "$d/xnum" "struct.pack_into('<H', d, 56, 0xffff)"
refused elf-phnum-xnum "$d/xnum" "e_phnum 0xffff (PN_XNUM) says section header 0 holds the program header count, but there is none" \
	"$d" -l -d 31 "$d/xnum"
elf_edit "$d/vmcore" "$d/xnum2" "struct.pack_into('<H', d, 56, 0xffff); struct.pack_into('<Q', d, 40, 1 << 40); struct.pack_into('<HH', d, 58, 64, 1)"
refused elf-phnum-xnum-past-eof "$d/xnum2" "section header 0, which holds the count, at 0x10000000000 lies past the end of the file" \
	"$d" -l -d 31 "$d/xnum2"

# ---- the real vmcores -------------------------------------------------
# zone_counters VMCORE TOTAL: the zones' vm_stat[NR_FREE_PAGES] of the
# dump's memory set to say TOTAL pages were free.
zone_counters() {
	python3 - "$1" "$2" <<'PY'
import re, struct, sys
path, total = sys.argv[1], int(sys.argv[2])
f = open(path, "r+b"); head = f.read(1 << 20)
phoff, = struct.unpack_from("<Q", head, 32); phn, = struct.unpack_from("<H", head, 56)
loads, note = [], None
for i in range(phn):
    t, _, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", head, phoff + 56 * i)
    if t == 1: loads.append((va, off, fsz))
    if t == 4: note = (off, fsz)
vi = head[note[0]:note[0] + note[1]]
def key(k, conv):
    return conv(re.search(rb"\n" + re.escape(k.encode()) + rb"=([^\n]*)", vi).group(1).decode())
node_data = key("SYMBOL(node_data)", lambda s: int(s, 16))
zsize, nzo = key("SIZE(zone)", int), key("OFFSET(pglist_data.nr_zones)", int)
zo, spo = key("OFFSET(pglist_data.node_zones)", int), key("OFFSET(zone.spanned_pages)", int)
vso = key("OFFSET(zone.vm_stat)", int) + 8 * key("NUMBER(NR_FREE_PAGES)", int)
def off(va):
    for v, o, sz in loads:
        if v <= va < v + sz: return o + va - v
    sys.exit("0x%x is not in the dump" % va)
def rd(va, n):
    f.seek(off(va)); return f.read(n)
left = total
for i in range(key("LENGTH(node_data)", int)):
    pg, = struct.unpack("<Q", rd(node_data + 8 * i, 8))
    if not pg: continue
    nz, = struct.unpack("<i", rd(pg + nzo, 4))
    for z in range(nz):
        zone = pg + zo + z * zsize
        if not struct.unpack("<Q", rd(zone + spo, 8))[0]: continue
        f.seek(off(zone + vso)); f.write(struct.pack("<q", left)); left = 0
PY
}
for name in fx-v61-512m fx-v612-512m; do
	vm=$(vmcore "$name") || { skip "real-free-count-$name" "no ../shared/vmcores/$name.elf.zst (or zstd)"; continue; }
	d="$T/$name"; mkdir -p "$d"
	# As they are: the free pages excluded equal the counters' sum.
	for l in 16 31; do
		"$MDF" --dry-run -D -d $l "$vm" >"$d/as-is.$l" 2>&1
		if [ $? -eq 0 ] && ! grep -q 'excluded as free' "$d/as-is.$l" &&
			grep -q "^free page counters: \([0-9]*\) pages in [0-9]* zones; the scan's free pages: \1\$" "$d/as-is.$l"; then
			ok "real-no-free-warning-$name-d$l"
		else notok "real-no-free-warning-$name-d$l" "$(grep -i 'free\|makedumpfile:' "$d/as-is.$l" | head -3 | tr '\n' ' ')"; fi
	done
	# Counters that say 2000 pages were free: the warning, the pages
	# still excluded as the marker says (a warning only).
	cp "$vm" "$d/vm.elf" && chmod u+w "$d/vm.elf" && zone_counters "$d/vm.elf" 2000
	for l in 16 31; do
		"$MDF" --dry-run -d $l "$d/vm.elf" >"$d/low.$l" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -q "^$d/vm.elf: [0-9]* pages excluded as free, but the kernel's counters (zone vm_stat NR_FREE_PAGES) say 2000 were free: is PAGE_BUDDY_MAPCOUNT_VALUE right?" "$d/low.$l"; then
			ok "real-free-warning-$name-d$l"
		else notok "real-free-warning-$name-d$l" "rc=$rc $(grep -i 'free\|makedumpfile:' "$d/low.$l" | head -3 | tr '\n' ' ')"; fi
	done
	# Below the level that drops free pages nothing is said.
	"$MDF" --dry-run -d 8 "$d/vm.elf" >"$d/low.8" 2>&1
	if ! grep -q 'excluded as free' "$d/low.8"; then ok "real-free-warning-$name-d8-silent"
	else notok "real-free-warning-$name-d8-silent" "$(grep 'excluded as free' "$d/low.8")"; fi
	# A page type of -1 written in the note's place: refused.
	if [ "$name" = fx-v61-512m ]; then
		note_line "$d/vm.elf" "NUMBER(KERNEL_IMAGE_SIZE)=1073741824" "NUMBER(PG_lru)=5"
		refused "real-note-duplicate-$name" "$d/vm.elf" "NUMBER(PG_lru)=5 conflicts with line" \
			"$d" -l -d 31 "$d/vm.elf"
		python3 - "$d/vm.elf" <<'PY'
import sys
f = open(sys.argv[1], "r+b"); head = f.read(1 << 20)
k = b"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n"
i = head.find(k); assert i > 0
f.seek(i); f.write(b"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-001\n")
PY
		refused "real-note-buddy-minus-1-$name" "$d/vm.elf" \
			"NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-001 is no page type" "$d" -l -d 31 "$d/vm.elf"
	fi
	rm -f "$d/vm.elf"
done
