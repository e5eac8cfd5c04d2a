#!/bin/bash
# s390x dumps from the synthetic generator (tests/gen, "arch s390x": Debian
# 6.1 s390x, big-endian, 4 KiB pages, 256 MiB sections, the kernel in the
# identity map): the generator's own shape (ELF64 MSB EM_S390, its notes,
# VMCOREINFO, an independent walk in python of the big-endian DAT tables
# from swapper_pg_dir through region, segment and page tables to struct
# pages, the printk ring), then the program on it: dry-run bitmaps equal
# the reference at every level with a region-second (default),
# region-third and region-first table on top and with the vmemmap in
# 4 KiB pages, the -l and -c dumps' pages equal the ELF and do not depend
# on threads, -E keeps the byte order and the data, refiltering,
# --dump-dmesg (and --partial-dmesg, and out of our own -d 31 dump) gives
# the spec's log lines, and --mem-usage rows equal what the spec declares.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# 3 GiB in three ranges: 512 MiB from 0 (the lowcore and the image, moved
# by KASLR to 0x2100000), a crashkernel hole with struct pages, a range
# whose end is not 1 MiB aligned (identity-mapped by 4 KiB pages there),
# and 2 GiB at 2 GiB (one 2 GiB region-third leaf).  thp and hugetlb
# without order= are 1 MiB (order 8, a segment).  No hwpoison: the kernel
# has no PG_hwpoison.
cat >"$T/spec" <<'SPEC'
arch s390x
cpus 2
kaslr 0x2000000
crashkernel 0x20000000 0x8000000
ram 0 +512M
ram 0x28000000 +0x180ff000
ram 0x80000000 +2G
pages 0x4000+512 anon random
pages 0x4200+256 cache text 3
pages 0x4300+256 cache_private byte 0x5a
pages 0x4400+64 swapcache random 9
pages 0x4600+512 thp random
pages 0x4800+256 hugetlb text
pages 0x4900+16 slab random
pages 0x4914+4 offline
pages 0x5000+256 free order=8
fill 0x6000+256 zero
pages 0x6100+1 anon zero
pages 0x28100+64 kernel random 4
pages 0x29000+512 cache text 5
pages 0x2a000+512 thp order=9 random 6
pages 0x2b000+128 anon random 7
pages 0x80000+1024 anon random 8
dmesg Linux version 6.1.0-57-s390x (mkvmcore) 1 SMP Debian 6.1.158-1
dmesg setup: Linux is running as a z/VM guest operating system in 64-bit mode
dmesg Kernel command line: root=/dev/dasda1 crashkernel=196M
dmesg LAB-MARKER s390x big-endian printk ring
dmesg_clear 1
SPEC
# What the spec declares, as --mem-usage counts it.
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 512)) PRI_CACHE=256 USER=$((512 + 512 + 256 + 1 + 512 + 128 + 1024))"
# The log as --dump-dmesg prints it: record i at (i + 1) * 0.1 s + i us.
awk '$1 == "dmesg" { sub(/^dmesg /, ""); us = (n + 1) * 100000 + n++
	printf "[%5d.%06d] %s\n", int(us / 1000000), us % 1000000, $0 }' \
	"$T/spec" >"$T/dmesg.want"

genarch_make s390x 'IBM S/390' big || exit 0

# The generator's s390x shape, read without the program: the notes,
# VMCOREINFO lines, PT_LOADs, the DAT tables from swapper_pg_dir (every
# entry big-endian, unused ones holding their invalid value), the identity
# map, mem_section, struct pages and the printk ring.  Arguments: vmcore,
# levels, kaslr, the vmemmap, number of RAM ranges, pfns whose PG_lru is
# set, NAME=PFN of other kinds to check (or -), the expected log (or -).
cat >"$T/layout.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore, byte_order
d, loads, vmi, prs = read_vmcore(sys.argv[1])
levels, kaslr, vmemmap, nram = int(sys.argv[2]), int(sys.argv[3], 0), int(sys.argv[4], 0), int(sys.argv[5])
lru_pfns = [int(x, 0) for x in sys.argv[6].split(",")]
kinds = dict((k, int(v, 0)) for k, v in (x.split("=") for x in sys.argv[7].split(","))) \
    if sys.argv[7] != "-" else {}
bad = []
def need(cond, msg):
    if not cond: bad.append(msg)
def rpa(pa, n):
    for va, p, fs, off in loads:
        if p <= pa and pa + n <= p + fs:
            return d[off + pa - p:off + pa - p + n]
    raise SystemExit("paddr %#x not in a PT_LOAD" % pa)
be64 = lambda pa: struct.unpack(">Q", rpa(pa, 8))[0]
be32 = lambda pa: struct.unpack(">I", rpa(pa, 4))[0]
sym = lambda k: int(vmi[k], 16)

# ELF header, program headers and notes, all big-endian.
e_machine, = struct.unpack_from(">H", d, 18); e_flags, = struct.unpack_from(">I", d, 48)
need(byte_order(d) == ">" and e_machine == 22 and e_flags == 0,
     "ELF data %d, e_machine %d, e_flags %d: want MSB, EM_S390 (22), 0" % (d[5], e_machine, e_flags))
phoff, = struct.unpack_from(">Q", d, 32); phnum, = struct.unpack_from(">H", d, 56)
notes, aligns = [], []
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from(">IIQQQQQQ", d, phoff + 56 * i)
    if t == 1:
        aligns.append(al)
    if t != 4:
        continue
    p = off
    while p < off + fs:
        nn, dn, ty = struct.unpack_from(">III", d, p)
        name = bytes(d[p + 12:p + 11 + nn]).decode()
        p += 12 + (nn + 3) // 4 * 4
        notes.append((name, ty, dn, p))
        p += (dn + 3) // 4 * 4
cpus = len(prs)
per_cpu = [("CORE", 1, 336), ("CORE", 2, 136), ("LINUX", 0x301, 8), ("LINUX", 0x302, 8),
           ("LINUX", 0x303, 4), ("LINUX", 0x304, 128), ("LINUX", 0x305, 4),
           ("LINUX", 0x309, 128), ("LINUX", 0x30a, 256)]
want_notes = [("CORE", 3, 136)] + per_cpu * cpus
need(cpus >= 1 and [n[:3] for n in notes[:-1]] == want_notes and notes[-1][:2] == ("VMCOREINFO", 0),
     "notes %s" % [n[:3] for n in notes][:12])
pids = [struct.unpack_from(">I", d, n[3] + 32)[0] for n in notes if n[:2] == ("CORE", 1)]
need(pids == list(range(1, cpus + 1)), "pr_pid %s: want 1..%d big-endian" % (pids, cpus))

want = {"OSRELEASE": "6.1.0-57-s390x", "PAGESIZE": "4096",
        "NUMBER(SECTION_SIZE_BITS)": "28", "NUMBER(MAX_PHYSMEM_BITS)": "46",
        "LENGTH(mem_section)": "2048", "SIZE(mem_section)": "32", "SIZE(page)": "64",
        "LENGTH(zone.free_area)": "11", "NUMBER(PG_lru)": "4", "NUMBER(PG_slab)": "9",
        "NUMBER(PG_head_mask)": "65536", "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)": "-129",
        "NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)": "-257", "LENGTH(lowcore_ptr)": "256",
        "SYMBOL(_stext)": "%x" % (0x100000 + kaslr), "KERNELOFFSET": "%x" % kaslr}
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("SYMBOL(lowcore_ptr)", "SYMBOL(high_memory)", "SAMODE31", "EAMODE31", "SYMBOL(prb)",
          "SYMBOL(swapper_pg_dir)", "SYMBOL(mem_section)", "SYMBOL(init_uts_ns)"):
    need(k in vmi, "no %s" % k)
for k in ("NUMBER(PG_hwpoison)", "NUMBER(phys_base)", "SYMBOL(init_top_pgt)", "SYMBOL(vmemmap)",
          "NUMBER(pgtable_l5_enabled)", "NUMBER(KERNEL_IMAGE_SIZE)", "NUMBER(sme_mask)",
          "NUMBER(VA_BITS)", "NUMBER(kimage_voffset)", "NUMBER(PHYS_OFFSET)", "SYMBOL(node_data)",
          "NUMBER(VMALLOC_START)", "NUMBER(phys_ram_base)", "SYMBOL(mem_map)"):
    need(k not in vmi, "foreign line %s" % k)
need(len(loads) == nram and all(va == pa for va, pa, fs, off in loads) and
     all(a == 4096 for a in aligns), "%d PT_LOADs, aligns %s: want %d identity ranges, p_align 4096"
     % (len(loads), aligns, nram))

# DAT: table types from the top: 4 region-first, 3 second, 2 third, 1 segment, 0 page.
SHIFT = {4: 53, 3: 42, 2: 31, 1: 20, 0: 12}
top = levels - 1
tt = lambda typ: (typ - 1) << 2 if typ >= 2 else 0
pgd = sym("SYMBOL(swapper_pg_dir)")
need(pgd % 16384 == 0, "swapper_pg_dir %#x not 16 KiB aligned" % pgd)
tables, leaf_sizes = {}, set()
def walk(va):
    need(levels == 5 or va >> (SHIFT[top] + 11) == 0, "va %#x beyond the tables" % va)
    t, typ = pgd, top
    while True:
        tables[t] = typ
        e = be64(t + 8 * (va >> SHIFT[typ] & ((1 << (8 if typ == 0 else 11)) - 1)))
        if typ == 0:
            if e & 0x400:
                raise SystemExit("va %#x: invalid page-table entry %#x" % (va, e))
            need(e & 0xfff == 0x13d, "pte %#x: want PAGE_KERNEL 0x13d" % e)
            leaf_sizes.add(12)
            return e & ~0xfff | va & 0xfff
        if e & 0x20:
            raise SystemExit("va %#x: invalid entry %#x in a table of type %d" % (va, e, typ))
        need(e & 0xc == tt(typ), "entry %#x: TT %#x in a table of type %d" % (e, e & 0xc, typ))
        if e & 0x400:   # FC: a 1 MiB segment or a 2 GiB region-third leaf
            size = 1 << SHIFT[typ]
            need(typ in (1, 2) and e & size - 1 == (0x3503 if typ == 1 else 0x3507),
                 "large entry %#x in a table of type %d" % (e, typ))
            leaf_sizes.add(SHIFT[typ])
            return e & ~(size - 1) | va & size - 1
        if typ >= 2:
            need(e & 0xfff == tt(typ) | 3, "region entry %#x: want TT|TL 3" % e)
            t = e & ~0xfff
        else:
            need(e & 0x7ff == 0, "segment entry %#x" % e)
            t = e & ~0x7ff
        typ -= 1
# The identity map: every range's edges and middle.
for va, pa, fs, off in loads:
    for a in (pa, pa + fs // 2 & ~7, pa + fs - 8):
        need(walk(a) == a, "identity map at %#x" % a)
# mem_section and the struct pages through the vmemmap.
def page(pfn):
    sec = pfn >> 16
    root = be64(sym("SYMBOL(mem_section)") + 8 * (sec // 128))
    smm = be64(root + 32 * (sec % 128))
    need(smm & ~0x1f == vmemmap and smm & 0xf == 0xf, "section_mem_map %#x" % smm)
    return rpa(walk((smm & ~0x1f) + 64 * pfn), 64)
flags = lambda b: struct.unpack_from(">Q", b)[0]
for pfn in lru_pfns:
    need(flags(page(pfn)) >> 4 & 1, "pfn %#x: no PG_lru" % pfn)
if "buddy" in kinds:
    b = page(kinds["buddy"]); t1 = page(kinds["buddy"] + 1)
    need(struct.unpack_from(">i", b, 48)[0] == -129 and struct.unpack_from(">Q", b, 40)[0] == 8,
         "buddy head: _mapcount %d private %d" % (struct.unpack_from(">i", b, 48)[0],
                                                  struct.unpack_from(">Q", b, 40)[0]))
    # LIST_POISON2 without a poison delta (no CONFIG_ILLEGAL_POINTER_VALUE)
    need(struct.unpack_from(">Q", t1, 16)[0] == 0x122 and struct.unpack_from(">i", t1, 48)[0] == -1,
         "buddy tail %s" % t1[16:24].hex())
if "thp" in kinds:
    h = kinds["thp"]; hp, tp = page(h), page(h + 1)
    need(flags(hp) & 65536 and struct.unpack_from(">Q", tp, 8)[0] == vmemmap + 64 * h | 1 and
         tp[16] == 3 and tp[17] == 8, "thp: head flags %#x, tail %s" % (flags(hp), tp[8:18].hex()))
if "slab" in kinds:
    need(flags(page(kinds["slab"])) >> 9 & 1, "slab: no PG_slab")
if "offline" in kinds:
    need(struct.unpack_from(">i", page(kinds["offline"]), 48)[0] == -257, "offline _mapcount")
# Every table reached: each entry either used or the kernel's empty value.
empty = 0
half = sum(1 for t, typ in tables.items() if typ == 0 and t % 4096 == 2048)
for t, typ in tables.items():
    for j in range(256 if typ == 0 else 2048):
        e = be64(t + 8 * j)
        if e == (0x400 if typ == 0 else 0x20 | tt(typ)):
            empty += 1
        elif (typ == 0 and e & 0x400) or (typ and (e & 0x20 or e & 0xc != tt(typ))):
            bad.append("table %#x (type %d) entry %d: %#x" % (t, typ, j, e)); break
uts = rpa(sym("SYMBOL(init_uts_ns)"), 390)
need(uts[4 * 65:4 * 65 + 6] == b"s390x\0" and uts[130:144] == b"6.1.0-57-s390x",
     "utsname %r %r" % (uts[260:268], uts[130:146]))
need(be64(sym("SYMBOL(high_memory)")) == max(pa + fs for va, pa, fs, off in loads),
     "high_memory %#x" % be64(sym("SYMBOL(high_memory)")))
# The printk ring, read as the kernel left it (big-endian words; flags:5
# level:3 from the top of their byte).
lines = []
if sys.argv[8] != "-":
    rb = be64(sym("SYMBOL(prb)"))
    count, descs, infos = 1 << be32(rb), be64(rb + 8), be64(rb + 16)
    head, tail = be64(rb + 24), be64(rb + 32)
    size, data = 1 << be32(rb + 48), be64(rb + 56)
    mask = (1 << 62) - 1
    for i in range((head - tail & mask) + 1):
        rid = tail + i & mask; slot = rid & count - 1
        sv = be64(descs + 24 * slot)
        if sv & mask != rid or sv >> 62 not in (1, 2):
            continue
        begin = be64(descs + 24 * slot + 8)
        seq, ts, tlen = struct.unpack(">QQH", rpa(infos + 88 * slot, 18))
        fl = rpa(infos + 88 * slot + 19, 1)[0]
        need(fl >> 3 == 2 and fl & 7 == 6, "record %d: flags/level byte %#x" % (seq, fl))
        blk = data + (begin & size - 1)
        need(be64(blk) == rid, "record %d: block id %#x, want %#x" % (seq, be64(blk), rid))
        lines.append("[%5d.%06d] %s" % (ts // 10**9, ts % 10**9 // 1000, rpa(blk + 8, tlen).decode()))
    need(lines == open(sys.argv[8]).read().splitlines(), "log %s" % lines[:2])
    cs = sym("SYMBOL(clear_seq)")
    need(be64(cs + 8 + 8 * (be32(cs) & 1)) == 1, "clear_seq")
names = {12: "4K", 20: "1M", 31: "2G"}
print("; ".join(bad) if bad else "leaves %s, %d tables (%d empty entries, %d page tables in an upper half), %d log lines" %
      (" ".join(names[s] for s in sorted(leaf_sizes)), len(tables), empty, half, len(lines)))
PY
layout() { # NAME VMCORE LEVELS KASLR VMEMMAP NRAM LRU-PFNS KINDS LOG
	if [ -z "$HAVE_PY" ]; then skip "$1" "no python3"; return; fi
	local why
	why=$(python3 "$T/layout.py" "${@:2}" 2>&1)
	if [[ "$why" == leaves* ]]; then ok "$1 ($why)"; else notok "$1" "$why"; fi
}
# The vmemmap where 6.1 puts it: 64 TiB (MAX_PHYSMEM_BITS) under a
# region-second table, 3528 GiB under a region-third one (below 4 TiB: the
# top page, the lowcores, 2 GiB of modules, 510 GiB of vmalloc, the struct
# pages of all below, rounded down to 2 GiB).
VM4=0x400000000000 VM3=0x37200000000
LRU=0x4000,0x4200,0x4300,0x29000,0x2b000,0x80000
KINDS=buddy=0x5000,thp=0x4600,slab=0x4900,offline=0x4914
layout gen-s390x-layout "$V" 4 0x2000000 $VM4 3 $LRU $KINDS "$T/dmesg.want"

# Bad specs: a kernel with no s390x preset, the s390x words elsewhere, what
# s390x fixes, a vmemmap over the identity map or out of the tables'
# reach, hwpoison pages the kernel cannot flag, a log without a kernel.
genarch_spec_errors s390x 'arch s390x\nkernel 6.12\nram 0 +64M|arch s390x has no kernel' \
	'levels 4\nram 0 1G|s390x only' 'arch s390x\nlevels 6\nram 0 +64M|levels is 3, 4 or 5' \
	'arch s390x\npage_offset 0x40000000\nram 0 +64M|identity map is at 0' \
	'arch s390x\nphys_base 0x100000\nram 0 +64M|phys_base' \
	'arch s390x\nkcore\nram 0 +64M|kcore' \
	'arch s390x\nvmemmap_pte 64k\nram 0 +64M|ppc64 only' \
	'arch s390x\nvmemmap 0x40000000\nram 0 +64M|above the identity map' \
	'arch s390x\nlevels 3\nvmemmap 0x40000000000\nram 0 +64M|reach' \
	'arch s390x\nram 0 +64M\npages 0x1000+4 hwpoison|PG_hwpoison' \
	'arch s390x\nram 0 +64M\npages 0x1000+16 thp|whole blocks' \
	'arch s390x\nkernel none\nram 0 +64M\ndmesg hello|dmesg needs a kernel'

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "s390x-dry-run-d$l" "$V" "$T/ref" $l
done

# The variants: their layout, then their bitmaps at a few levels.  A
# region-third table on top (what 6.1 picks when identity map, vmemmap,
# vmalloc and modules fit in 4 TiB), a region-first one (with the
# vmemmap at 8 PiB, so that its index is not 0), and the vmemmap in
# 4 KiB pages (page tables two to a page).  Smaller machines: 512 MiB.
cat >"$T/spec.small" <<'SPEC'
arch s390x
ram 0 +256M
ram 0x10000000 +256M
pages 0x4000+512 anon random
pages 0x4200+256 cache text 3
pages 0x5000+256 free order=8
pages 0x10000+256 thp random 2
pages 0x11000+64 cache_private random 3
SPEC
variant() { # NAME EXTRA-SPEC-LINES LEVELS VMEMMAP
	local name=$1
	{ cat "$T/spec.small"; printf '%b\n' "$2"; } >"$T/spec.$name"
	if ! "$GEN" "$T/spec.$name" "$T/v.$name" --ref "$T/ref.$name" >"$T/gen.$name.log" 2>&1; then
		notok "gen-s390x-$name" "mkvmcore failed: $(tail -n1 "$T/gen.$name.log")"; return
	fi
	layout "gen-s390x-$name-layout" "$T/v.$name" "$3" 0 "$4" 2 0x4000,0x4200,0x10000,0x11000 \
		buddy=0x5000,thp=0x10000 -
	genarch_bitmaps "s390x-$name-dry-run" "$T/v.$name" "$T/ref.$name" 0 8 31
}
variant levels3 'levels 3' 3 $VM3
variant levels5 'levels 5\nvmemmap 0x20000000000000' 5 0x20000000000000
variant pte4k 'vmemmap_pte 4k' 4 $VM4
if [ -f "$T/v.pte4k" ] && [ -n "$HAVE_PY" ]; then
	# -l -d 31 through the 4 KiB vmemmap too.
	if "$MDF" -l -d 31 --message-level 0 "$T/v.pte4k" "$T/p31" >"$T/p.log" 2>&1 &&
		out=$(genarch_pages "$T/p31" "$T/v.pte4k" 2>&1) && [[ "$out" == *" 0 differ"* ]]; then
		ok "s390x-pte4k-l-d31-pages ($out)"
	else notok "s390x-pte4k-l-d31-pages" "$(tail -n1 "$T/p.log") $out"; fi
fi
rm -f "$T"/v.* "$T/p31"

# -l -d 31 (pages, utsname, threads, refiltering), -E -d 31, --mem-usage
# (tests/lib/genarch.sh).
genarch_l_d31 s390x "$V" s390x

# -c -d 31: zlib pages equal the ELF's.
if [ -z "$HAVE_PY" ]; then skip "s390x-c-d31-pages" "no python3"
elif "$MDF" -c -d 31 --message-level 0 "$V" "$T/c31" >"$T/c.log" 2>&1 &&
	out=$(genarch_pages "$T/c31" "$V" 2>&1) && [[ "$out" == *" 0 differ"* ]]; then
	ok "s390x-c-d31-pages ($out)"
else notok "s390x-c-d31-pages" "$(tail -n1 "$T/c.log") $out"; fi

# Refiltering: a -l -d 0 dump refiltered at -d 31 keeps exactly the pages
# of the reference's d31 bitmap.
if "$MDF" -l -d 0 --message-level 0 "$V" "$T/d0" >"$T/d0.log" 2>&1 &&
	"$MDF" -f --dry-run --message-level 0 -d 31 --debug-bitmap "$T/r31.b2" "$T/d0" >"$T/r.log" 2>&1 &&
	cmp -s "$T/r31.b2" "$T/ref/d31.bitmap2"; then ok "s390x-refilter-d0-to-d31"
else notok "s390x-refilter-d0-to-d31" "$(tail -n1 "$T/d0.log") $(tail -n1 "$T/r.log") $(cmp "$T/r31.b2" "$T/ref/d31.bitmap2" 2>&1 | head -n1)"; fi
rm -f "$T/d0" "$T/r31.b2"

genarch_E_d31 s390x "$V" "IBM S/390"

genarch_mem_usage s390x "$V" "$WANT_ROWS"

# -x with an s390x vmlinux (kobj cross-built, the dump's release and
# build-id): the dump stays big-endian.  -x once copied a kinfo made
# from DWARF over the note's and lost the byte order: --config erase
# wrote the kdump header little-endian (header_version 06 00 00 00),
# which libkdumpfile refused, and --keep-task read the task list
# byte-swapped (the readers' gate on the lab's s390x kdump).
if command -v s390x-linux-gnu-gcc >/dev/null; then
	rel=$(strings -n 8 "$V" | sed -n 's/^OSRELEASE=//p' | head -n 1)
	bid=$(strings -n 8 "$V" | sed -n 's/^BUILD-ID=//p' | head -n 1)
	printf 'erase init_uts_ns.name.nodename\n' >"$T/n.conf"
	rm -f "$T/xe.l"
	if ! s390x-linux-gnu-gcc -g -O0 -fno-eliminate-unused-debug-types -nostdlib -Wl,-e,0 \
		-DKOBJ_RELEASE="\"$rel\"" ${bid:+-Wl,--build-id=0x$bid} -o "$T/kobj-s390x" \
		"$MDF_SRC/tests/gen/kobj/kobj.c" >"$T/xe.log" 2>&1; then
		notok "s390x-x-byte-order" "kobj cross build: $(tail -n 1 "$T/xe.log")"
	elif ! "$MDF" -l -d 31 -x "$T/kobj-s390x" --config "$T/n.conf" "$V" "$T/xe.l" >"$T/xe.log" 2>&1; then
		notok "s390x-x-byte-order" "$(grep -m 1 'makedumpfile: ' "$T/xe.log")"
	elif [ "$(od -An -tx1 -j 8 -N 4 "$T/xe.l" | tr -d ' ')" = 00000006 ]; then
		ok "s390x-x-byte-order (-x --config: a big-endian kdump header)"
	else notok "s390x-x-byte-order" "header_version bytes $(od -An -tx1 -j 8 -N 4 "$T/xe.l")"; fi
else
	skip "s390x-x-byte-order" "no s390x-linux-gnu-gcc (apt-get install gcc-s390x-linux-gnu)"
fi

# --dump-dmesg: the spec's lines, all of them and those from clear_seq
# (1) on, out of the ELF and out of our own -l -d 31 dump.
dmesg_case() { # NAME INPUT WANT [--partial-dmesg]
	rm -f "$T/dm.out"
	if ! "$MDF" --dump-dmesg $4 "$2" "$T/dm.out" >"$T/dm.log" 2>&1; then
		notok "$1" "$(grep -v '^$' "$T/dm.log" | tail -n2 | tr '\n' ' ')"
	elif cmp -s "$T/dm.out" "$3"; then ok "$1 ($(wc -l <"$3") lines)"
	else notok "$1" "$(diff "$3" "$T/dm.out" | head -n4 | tr '\n' ' ')"; fi
}
dmesg_case s390x-dump-dmesg "$V" "$T/dmesg.want"
tail -n +2 "$T/dmesg.want" >"$T/dmesg.partial"
dmesg_case s390x-dump-dmesg-partial "$V" "$T/dmesg.partial" --partial-dmesg
if [ -f "$T/d31" ]; then dmesg_case s390x-dump-dmesg-from-kdump "$T/d31" "$T/dmesg.want"
else notok "s390x-dump-dmesg-from-kdump" "no -l -d 31 dump"; fi
exit 0
