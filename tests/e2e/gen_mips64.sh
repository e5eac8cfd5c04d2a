#!/bin/bash
# mips64el dumps from the synthetic generator (tests/gen, "arch mips64":
# Debian bookworm's 6.1.0-50-loongson-3 on qemu's loongson3-virt memory
# map, as kexec-tools' /proc/vmcore would show it): the generator's own
# shape (ELF machine and notes, VMCOREINFO, kexec-tools' PT_LOAD vaddrs)
# and an independent translation in python (XKPHYS, CKSEG0, the 16 KiB
# 3-level walk of swapper_pg_dir to the vmalloc pages, mem_section to the
# struct pages in XKPHYS, init_uts_ns).  Then the program on it: dry-run
# bitmaps equal the reference at every level, the -l dump's pages equal
# the ELF, -E, --mem-usage, --dump-dmesg and --vtop of a vmalloc address.
# And "arch mips64 4k" (6.1.0-50-5kc-malta on qemu's malta: 4 KiB pages, a
# 2-page PGD, FLATMEM): its layout and walk, bitmaps, -l, dmesg.
# The byte oracle (1.7.2 cross-built for mips64el) is
# tests/e2e/mips64_oracle.sh.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/genarch.sh"

# loongson3-virt's RAM: 256 MiB from 0 and more from 0x80000000; a crash
# kernel's 64 MiB cut out; kexec-tools' backup region (the first MiB) is a
# range of its own.  16 KiB pages: pfn 0x800 is 32 MiB.
cat >"$T/spec" <<'SPEC'
arch mips64
cpus 2
crashkernel 0x8000000 0x4000000
ram 0x0 0x100000
ram 0x100000 0x8000000
ram 0xc000000 0x10000000
ram 0x80000000 0x90000000
pages 0x800+512 anon random
pages 0xa00+256 cache text 3
pages 0xb00+256 cache_private byte 0x5a
pages 0xc00+64 swapcache random 9
pages 0xd00+16 slab random
pages 0xd14+4 offline
pages 0xe00+512 thp order=9 random
pages 0x1000+2048 free order=11
fill 0x1900+64 zero
pages 0x20400+512 anon random 5
pages 0x20800+256 cache text 6
dmesg Linux version 6.1.0-50-loongson-3 (mkvmcore) 1 SMP Debian 6.1.176-1
dmesg LAB-MARKER mips64 printk ring
SPEC
genarch_dmesg_want "$T/spec" "$T/dmesg.want"
WANT_ROWS="NON_PRI_CACHE=$((256 + 64 + 256)) PRI_CACHE=256 USER=$((512 + 512 + 512))"
genarch_make mips64 'MIPS R3000' little || exit 0

# The shape and the translation, read without the program.  Arguments:
# vmcore, PFN=KIND checks of struct pages (anon, cache, free: a buddy
# head of the largest order), 16k (loongson-3: SPARSEMEM) or 4k (5kc-malta:
# FLATMEM, a 2-page PGD).
cat >"$T/layout.py" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore
d, loads, vmi, prs = read_vmcore(sys.argv[1])
bad = []
def need(c, m):
    if not c: bad.append(m)
CKSEG0, KEXEC_BASE, CAC_BASE = 0xffffffff80000000, 0xa800000000000000, 0x9800000000000000
k4 = sys.argv[3] == "4k"
PAGE_SHIFT = 12 if k4 else 14
PFN_SHIFT = PAGE_SHIFT + 2                         # PAGE_SHIFT - 12 + _CACHE_SHIFT 11 + 3
# (name, shift, index bits) from the top: 4 KiB's PGD is two pages
LEVELS = ([("PGD", 30, 10), ("PMD", 21, 9), ("PTE", 12, 9)] if k4 else
          [("PGD", 36, 11), ("PMD", 25, 11), ("PTE", 14, 11)])
e_machine, e_flags = struct.unpack_from("<H", d, 18)[0], struct.unpack_from("<I", d, 48)[0]
need(d[4] == 2 and d[5] == 1 and e_machine == 8 and e_flags == 0,
     "ELF class %d data %d machine %d flags %#x" % (d[4], d[5], e_machine, e_flags))
need(prs == [480, 480], "NT_PRSTATUS sizes %s" % prs)
want = ({"OSRELEASE": "6.1.0-50-5kc-malta", "PAGESIZE": "4096", "SIZE(page)": "64",
         "LENGTH(zone.free_area)": "11", "LENGTH(free_area.free_list)": "4",
         "SIZE(pglist_data)": "7296", "OFFSET(pglist_data.node_mem_map)": "4952"} if k4 else
        {"OSRELEASE": "6.1.0-50-loongson-3", "PAGESIZE": "16384", "SIZE(page)": "64",
         "NUMBER(SECTION_SIZE_BITS)": "28", "NUMBER(MAX_PHYSMEM_BITS)": "48",
         "LENGTH(mem_section)": "1024", "SIZE(mem_section)": "16", "LENGTH(zone.free_area)": "12",
         "LENGTH(free_area.free_list)": "4", "SIZE(pglist_data)": "12352"})
for k, v in want.items():
    need(vmi.get(k) == v, "%s=%s, want %s" % (k, vmi.get(k), v))
for k in ("KERNELOFFSET", "NUMBER(PG_hwpoison)", "SYMBOL(node_data)", "NUMBER(phys_base)",
          "SYMBOL(mem_section)" if k4 else "SYMBOL(mem_map)"):
    need(k not in vmi, "VMCOREINFO has %s" % k)
# kexec-tools: the image at its CKSEG0 address, RAM at 0xa8... + paddr
need(loads[0][0] == CKSEG0 + loads[0][1] == (0xffffffff80100000 if k4 else 0xffffffff80200000),
     "image PT_LOAD %#x" % loads[0][0])
for va, pa, fs, off in loads[1:]:
    need(va == KEXEC_BASE + pa, "RAM PT_LOAD vaddr %#x paddr %#x" % (va, pa))
need(loads[1][1] == 0 and loads[1][2] == 0x100000, "no backup-region PT_LOAD first")
def rpa(pa, n):
    for va, p, fs, off in loads[1:]:
        if p <= pa and pa + n <= p + fs:
            return d[off + pa - p:off + pa - p + n]
    raise SystemExit("paddr %#x not in a RAM PT_LOAD" % pa)
u64 = lambda pa: struct.unpack("<Q", rpa(pa, 8))[0]
i32 = lambda pa: struct.unpack("<i", rpa(pa, 4))[0]
sym = lambda k: int(vmi["SYMBOL(%s)" % k], 16)
kinds = {}
def unmapped(va):
    if va >> 62 == 2:                                  # XKPHYS
        return va & ((1 << 59) - 1)
    if CKSEG0 <= va < CKSEG0 + (1 << 30):              # CKSEG0, CKSEG1
        return (va - CKSEG0) & 0x1fffffff
    return None
def vtop(va):
    pa = unmapped(va)
    if pa is not None:
        kinds["unmapped"] = kinds.get("unmapped", 0) + 1
        return pa
    table = unmapped(sym("swapper_pg_dir"))
    for level, shift, bits in LEVELS:
        e = u64(table + 8 * ((va >> shift) & ((1 << bits) - 1)))
        if level == "PTE" or (level == "PMD" and e & 0x10):
            if not e & 1:
                raise SystemExit("%#x: %s %#x not present" % (va, level, e))
            size = 1 << shift
            kinds[level] = kinds.get(level, 0) + 1
            return ((e >> PFN_SHIFT) << PAGE_SHIFT) & ~(size - 1) | va & (size - 1)
        table = unmapped(e)
        if table is None or e & ((1 << PAGE_SHIFT) - 1):
            raise SystemExit("%#x: %s entry %#x is no table's address" % (va, level, e))
# vmalloc: each page holds its own addresses (MAP_BASE + 2 pages on)
for i in range(4):
    va = 0xc000000000000000 + (2 + i << PAGE_SHIFT)
    need(u64(vtop(va + 8 * i)) == va + 8 * i, "vmalloc page %d" % i)
uts = vtop(sym("init_uts_ns"))
need(rpa(uts, 5) == b"Linux" and rpa(uts + 4 * 65, 7) == b"mips64\0", "init_uts_ns")
# mem_section: roots of 1024 sections (16 bytes), each mem_map in XKPHYS
if k4:                                             # FLATMEM: the variable mem_map
    mem_map = u64(vtop(sym("mem_map")))
    need(mem_map >> 56 == 0x98, "mem_map %#x" % mem_map)
else:
    roots = vtop(sym("mem_section"))
def page(pfn):
    if k4:
        return vtop(mem_map + 64 * pfn)
    sec = pfn >> (28 - PAGE_SHIFT)
    root = u64(roots + 8 * (sec // 1024))
    ms = u64(vtop(root) + 16 * (sec % 1024))
    need(ms & 3 == 3 and (ms & ~0x3f) >> 56 == 0x98, "section %d: %#x" % (sec, ms))
    return vtop((ms & ~0x3f) + 64 * pfn)
for chk in sys.argv[2].split(","):
    pfn, kind = chk.split("=")
    p = page(int(pfn, 0))
    mapping, mapcount, private = u64(p + 24), i32(p + 48), u64(p + 40)
    if kind == "anon":
        need(mapping & 1 == 1, "pfn %s: anon mapping %#x" % (pfn, mapping))
    elif kind == "cache":
        need(mapping and mapping & 3 == 0 and mapping >> 56 == 0x98,
             "pfn %s: cache mapping %#x" % (pfn, mapping))
    elif kind == "free":
        need(mapcount == -129 and private == (10 if k4 else 11),
             "pfn %s: buddy %d order %d" % (pfn, mapcount, private))
if bad:
    print("; ".join(bad))
else:
    print("leaves " + " ".join("%s=%d" % kv for kv in sorted(kinds.items())))
PY
genarch_layout gen-mips64-layout "$T/layout.py" "$V" \
	0x800=anon,0xa00=cache,0x1000=free,0x20400=anon,0x20800=cache 16k

# "arch mips64 4k": 6.1.0-50-5kc-malta on qemu's malta (256 MiB from 0):
# 4 KiB pages, the PGD two pages (1024 entries), FLATMEM from pfn 0.
cat >"$T/spec4k" <<'SPEC'
arch mips64 4k
cpus 2
crashkernel 0x8000000 0x4000000
ram 0x0 0x100000
ram 0x100000 0x8000000
ram 0xc000000 0x10000000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2600+16 slab random
pages 0x2614+4 offline
pages 0x2800+1024 thp order=9 random
pages 0x3000+1024 free order=10
fill 0x3800+64 zero
pages 0xc400+512 anon random 5
dmesg Linux version 6.1.0-50-5kc-malta (mkvmcore) 1 SMP Debian 6.1.176-1
dmesg LAB-MARKER mips64 4k
SPEC
if genarch_variant mips64-4k "$T/spec4k"; then
	genarch_layout gen-mips64-4k-layout "$T/layout.py" "$T/v.mips64-4k" \
		0x2000=anon,0x2200=cache,0x3000=free,0xc400=anon 4k
	genarch_bitmaps "mips64-4k-dry-run" "$T/v.mips64-4k" "$T/ref.mips64-4k" 0 1 2 4 8 16 31
	genarch_l_d31 mips64-4k "$T/v.mips64-4k" mips64
	genarch_dmesg_want "$T/spec4k" "$T/dmesg4k.want"
	if "$MDF" --dump-dmesg "$T/v.mips64-4k" "$T/dm4k.out" >"$T/dm.log" 2>&1 &&
		cmp -s "$T/dm4k.out" "$T/dmesg4k.want"
	then ok "mips64-4k-dump-dmesg"
	else notok "mips64-4k-dump-dmesg" "$(diff "$T/dmesg4k.want" "$T/dm4k.out" 2>&1 | head -n3 | tr '\n' ' ')"; fi
	rm -f "$T/v.mips64-4k"
fi

# Bad specs: what the mips64 layout fixes.
genarch_spec_errors mips64 'arch mips64\nram 0 +64M\nkaslr 0x200000|kaslr' \
	'arch mips64\nram 0 +64M\npage_offset 0x9800000000000000|page_offset' \
	'arch mips64\nram 0 +64M\nvmemmap 0xc000000100000000|vmemmap' \
	'arch mips64\nram 0 +64M\nvmalloc_start 0xffffffffc0000000|vmalloc_start' \
	'arch mips64\nram 0 +64M\npages 0x800+4 hwpoison|PG_hwpoison' \
	'arch mips64 4k\nram 0x10000000 +64M|needs RAM in the first 256 MiB' \
	'arch mips64 4k\nram 0 +64M\npages 0x1000+2048 free order=11|free order must be 0..10'

# Dry-run bitmaps against the reference, level by level.
for l in 0 1 2 4 8 16 31; do
	genarch_bitmaps "mips64-dry-run-d$l" "$V" "$T/ref" $l
done

# --vtop walks the tables to the page python found.
if out=$("$MDF" --vtop 0xc00000000000c018 -f --dry-run -d 1 --message-level 31 "$V" 2>&1) &&
	pa=$(awk '/^c00000000000c018/ { print $2 }' <<<"$out") && [ -n "$pa" ] &&
	[ -n "$HAVE_PY" ] &&
	got=$(python3 - "$V" "$pa" <<'PY'
import os, struct, sys
sys.path.insert(0, os.path.join(os.environ["MDF_SRC"], "tests", "tools"))
from vmcore_layout import read_vmcore
d, loads, vmi, prs = read_vmcore(sys.argv[1])
pa = int(sys.argv[2], 16)
for va, p, fs, off in loads[1:]:
    if p <= pa < p + fs:
        print("%#x" % struct.unpack_from("<Q", d, off + pa - p)[0])
PY
) && [ "$got" = 0xc00000000000c018 ]
then ok "mips64-vtop-vmalloc ($pa)"
else notok "mips64-vtop-vmalloc" "$(tail -n2 <<<"$out" | tr '\n' ' ') ${got:-}"; fi

# -l -d 31, -E -d 31, --mem-usage and --dump-dmesg (tests/lib/genarch.sh).
genarch_l_d31 mips64 "$V" mips64
genarch_E_d31 mips64 "$V" "MIPS R3000"
genarch_mem_usage mips64 "$V" "$WANT_ROWS"
if "$MDF" --dump-dmesg "$V" "$T/dm.out" >"$T/dm.log" 2>&1 && cmp -s "$T/dm.out" "$T/dmesg.want"
then ok "mips64-dump-dmesg"
else notok "mips64-dump-dmesg" "$(diff "$T/dmesg.want" "$T/dm.out" 2>&1 | head -n3 | tr '\n' ' ')"; fi
exit 0
