#!/bin/bash
# tests/e2e/gen_selfcheck.sh - the synthetic vmcore generator checks itself:
# ELF layout with readelf, bytes, VMCOREINFO, the fake kernel (a page-table
# walk to struct pages, in python), reference bitmaps, broken files, spec
# errors, the byte order (a ppc64 and a ppc64be machine from one spec differ
# only in what the kernel stores, word by word swapped); and, when a system
# makedumpfile exists, its bitmaps and its --dump-dmesg of the generator's
# printk ring against ours.
# Prints "ok NAME" / "not ok NAME: why" / "skip NAME: why"; always exits 0.
set -u
B=${MDF_BUILD:?MDF_BUILD not set}
GEN=$B/tests/gen/mkvmcore
if [ ! -x "$GEN" ]; then
	echo "skip gen_selfcheck: $GEN not built"
	exit 0
fi
for tool in readelf python3; do
	if ! command -v $tool >/dev/null; then
		echo "skip gen_selfcheck: $tool not installed"
		exit 0
	fi
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
nok() { echo "not ok $1: $2"; }
# check NAME COMMAND...: ok if the command succeeds, else its last output line.
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else nok "$name" "$(echo "$out" | tail -n1)"; fi
}

# ---- specs ----
cat >"$T/fx61.spec" <<'EOF'
kernel 6.1
cpus 2
seed 7
page_offset 0xffff8ceb00000000
vmemmap 0xfffffab7c0000000
kaslr 0x26e00000
phys_base -322961408
text 0x3430000
crashkernel 0x8000000 0xc000000
ram 0x100000 0x8000000
ram 0x14000000 0x1ffda000
pages 0x2000+512 anon random
pages 0x2200+256 cache text 3
pages 0x2300+256 cache_private byte 0x5a
pages 0x2400+64 swapcache random 9
pages 0x2600+1024 thp order=9 random
pages 0x2a00+512 hugetlb order=9 text
pages 0x2c00+16 slab random
pages 0x2c10+4 hwpoison byte 1
pages 0x2c14+4 offline byte 2
pages 0x3000+256 free order=8 random 5
fill 0x4000+256 zero
fill 0x14b00+4 text 11
EOF
sed -e 's/^kernel 6.1/kernel 6.12/' -e 's/^vmemmap .*/vmemmap 0xfffff12400000000/' \
	"$T/fx61.spec" >"$T/fx612.spec"
cat >"$T/legacy.spec" <<'EOF'
kernel 6.1
vmemmap_pte 4k
text 0x800000
ram 0x1000 +0x9ec00
ram 0x100000 0x8000000 gap=0x800
ram 0x10000000 0x18000000 memsz=0x10000000
pages 0x2000+512 anon random
pages 0x3000+512 free order=9
pages 0x2c10+4 hwpoison
fill 0x9e+2 byte 0x77
vmcoreinfo set OSRELEASE=6.1.0-selfcheck
vmcoreinfo set NUMBER(extra)=42
vmcoreinfo del SYMBOL(vmap_area_list)
EOF

gen() { # gen NAME [extra args]
	local n=$1; shift
	"$GEN" "$T/$n.spec" "$T/$n.elf" --ref "$T/$n.ref" "$@"
}
check gen_fx61 gen fx61
check gen_fx612 gen fx612
check gen_legacy gen legacy
check gen_stdin_deterministic bash -c "'$GEN' - '$T/again.elf' <'$T/fx61.spec' && cmp '$T/fx61.elf' '$T/again.elf'"
rm -f "$T/again.elf"

# ---- ELF layout (readelf) ----
layout_fx61() {
	local h
	h=$(readelf -hlnW "$T/fx61.elf") || return 1
	echo "$h" | grep -q 'Type:.*CORE' || { echo "not a core"; return 1; }
	# first phdr is PT_NOTE, then text, then the two ram ranges
	echo "$h" | awk '/^  (NOTE|LOAD)/{print $1}' | tr '\n' ' ' | grep -qx 'NOTE LOAD LOAD LOAD ' ||
		{ echo "phdr order"; return 1; }
	echo "$h" | grep -Eq '^  LOAD +0x002000 0xffffffffa7e00000 0x0000000014a00000 0x3430000 0x3430000' ||
		{ echo "text PT_LOAD[0] wrong"; return 1; }
	echo "$h" | grep -Eq '^  LOAD +0x3432000 0xffff8ceb00100000 0x0000000000100000 0x7f00000 0x7f00000' ||
		{ echo "ram PT_LOAD[1] wrong"; return 1; }
	echo "$h" | grep -Eq '^  LOAD +0xb332000 0xffff8ceb14000000 0x0000000014000000 0xbfda000 0xbfda000' ||
		{ echo "ram PT_LOAD[2] wrong"; return 1; }
	[ "$(echo "$h" | grep -c 'NT_PRSTATUS')" = 2 ] || { echo "want 2 NT_PRSTATUS"; return 1; }
	echo "$h" | grep -Eq 'CORE +0x00000150' || { echo "prstatus size"; return 1; }
	echo "$h" | grep -Eq 'VMCOREINFO +0x[0-9a-f]+.*Unknown note type: \(0x00000000\)' ||
		{ echo "no VMCOREINFO note"; return 1; }
}
check layout_fx61 layout_fx61

layout_legacy() {
	local h
	h=$(readelf -lW "$T/legacy.elf") || return 1
	echo "$h" | grep -Eq '^  LOAD +0x[0-9a-f]+ 0xffff888000001000 0x0000000000001000 0x09ec00 0x09ec00' ||
		{ echo "no 0x9ec00 segment"; return 1; }
	local off
	off=$(echo "$h" | awk '/^  LOAD/ && $4=="0x0000000000100000" {print $2}')
	[ $((off % 4096)) -ne 0 ] || { echo "offset $off of the 2nd ram range is aligned"; return 1; }
	echo "$h" | grep -Eq '^  LOAD +0x[0-9a-f]+ 0xffff888010000000 0x0000000010000000 0x8000000 0x10000000' ||
		{ echo "no p_memsz > p_filesz segment"; return 1; }
}
check layout_legacy layout_legacy

sparse() {
	printf 'kernel 6.12\nram 0x100000 4G\npages 0x2000+16 anon random\n' >"$T/big.spec"
	"$GEN" "$T/big.spec" "$T/big.elf" || return 1
	local size used
	size=$(stat -c %s "$T/big.elf")
	used=$(($(stat -c %b "$T/big.elf") * $(stat -c %B "$T/big.elf")))
	rm -f "$T/big.elf"
	[ "$size" -gt $((4 << 30)) ] || { echo "size $size"; return 1; }
	[ "$used" -lt $((100 << 20)) ] || { echo "not sparse: $used bytes used"; return 1; }
}
check sparse_4g sparse

# ---- bytes, VMCOREINFO, fake kernel, reference bitmaps (python) ----
cat >"$T/check.py" <<'EOF'
import struct, sys, os

PS = 4096

class Core:
    def __init__(self, path):
        self.f = open(path, 'rb')
        self.size = os.path.getsize(path)
        h = self.f.read(64)
        assert h[:4] == b'\x7fELF' and h[4] == 2 and h[5] in (1, 2), 'not ELF64'
        self.e = e = '<' if h[5] == 1 else '>'   # the file's and the kernel's order
        phoff, = struct.unpack_from(e + 'Q', h, 32)
        n, = struct.unpack_from(e + 'H', h, 56)
        self.loads, self.notes = [], []
        self.f.seek(phoff)
        ph = self.f.read(56 * n)
        for i in range(n):
            t, fl, off, va, pa, fs, ms, al = struct.unpack_from(e + 'IIQQQQQQ', ph, 56 * i)
            if t == 1:
                self.loads.append((va, pa, fs, ms, off))
            elif t == 4:
                self.f.seek(off)
                d = self.f.read(fs)
                p = 0
                while p + 12 <= len(d):
                    nn, dn, ty = struct.unpack_from(e + 'III', d, p)
                    name = d[p + 12:p + 12 + nn - 1]
                    p += 12 + (nn + 3) // 4 * 4
                    self.notes.append((name, ty, d[p:p + dn], dn))
                    p += (dn + 3) // 4 * 4
        self.vmi = {}
        for name, ty, desc, dn in self.notes:
            if name == b'VMCOREINFO':
                for l in desc.decode().splitlines():
                    k, v = l.split('=', 1)
                    self.vmi[k] = v

    def pa_all(self, pa, n):
        """bytes at pa from every segment that covers it"""
        out = []
        for va, p, fs, ms, off in self.loads:
            if p <= pa and pa + n <= p + fs:
                self.f.seek(off + pa - p)
                out.append(self.f.read(n))
        return out

    def rpa(self, pa, n):
        r = self.pa_all(pa, n)
        assert r, 'paddr %x not in the file' % pa
        return r[-1]

    def u64(self, pa):
        return struct.unpack(self.e + 'Q', self.rpa(pa, 8))[0]

    def vtop(self, va):
        pb = int(self.vmi['NUMBER(phys_base)'])
        t = int(self.vmi['SYMBOL(init_top_pgt)'], 16) - 0xffffffff80000000 + pb
        assert int(self.vmi['SYMBOL(swapper_pg_dir)'], 16) == int(self.vmi['SYMBOL(init_top_pgt)'], 16)
        for level, shift in enumerate((39, 30, 21, 12)):
            e = self.u64(t + 8 * ((va >> shift) & 511))
            assert e & 1, 'va %x not present at level %d' % (va, level)
            if level == 3 or (level > 0 and e & 0x80):
                mask = (1 << shift) - 1
                return (e & 0x000ffffffffff000 & ~mask) | (va & mask)
            t = e & 0x000ffffffffff000

def page_struct(c, pfn):
    po = c.loads[1][0] - c.loads[1][1] if c.loads[0][0] >= 0xffffffff80000000 else c.loads[0][0] - c.loads[0][1]
    ms = int(c.vmi['SYMBOL(mem_section)'], 16)
    sec = pfn >> (int(c.vmi['NUMBER(SECTION_SIZE_BITS)']) - 12)
    root = c.u64(ms - po + 8 * (sec // 128))
    assert root, 'no root for section %d' % sec
    smm = c.u64(root - po + 32 * (sec % 128))
    assert smm & 3 == 3, 'section %d not present/has_mem_map: %x' % (sec, smm)
    va = (smm & ~0x1f) + pfn * 64
    if 'SYMBOL(vmemmap)' in c.vmi:
        assert smm & ~0x1f == int(c.vmi['SYMBOL(vmemmap)'], 16), 'vmemmap'
    b = c.rpa(c.vtop(va), 64)
    flags, w8, w16, mapping, index, private = struct.unpack_from(c.e + '6Q', b)
    mapcount, refcount = struct.unpack_from(c.e + 'iI', b, 48)
    return dict(flags=flags, head=w8, w16=w16, mapping=mapping, private=private,
                mapcount=mapcount, refcount=refcount, raw=b)

def bit(b, i):
    return (b[i >> 3] >> (i & 7)) & 1

def fail(msg):
    print(msg)
    sys.exit(1)

def check_kernel(path):
    c = Core(path)
    v = c.vmi
    six12 = 'PAGE_SLAB_MAPCOUNT_VALUE' in ''.join(v)
    num = lambda k: int(v['NUMBER(%s)' % k])
    # the text alias equals the direct map
    for pa in (0x14b00000, 0x14b03000):
        r = c.pa_all(pa, PS)
        if len(r) != 2 or r[0] != r[1]:
            fail('text alias of %x: %d copies, equal=%s' % (pa, len(r), len(r) == 2 and r[0] == r[1]))
    if sum(ch == 0 for ch in c.rpa(0x14b00000, PS)) or not all(32 <= ch < 127 or ch == 10 for ch in c.rpa(0x14b00000, PS)):
        fail('text fill is not printable')
    if c.rpa(0x2300 * PS, PS) != b'\x5a' * PS:
        fail('byte fill')
    if c.rpa(0x2000 * PS, PS) == c.rpa(0x2001 * PS, PS) or c.rpa(0x4000 * PS, PS) != bytes(PS):
        fail('random/zero fill')
    uts = int(v['SYMBOL(init_uts_ns)'], 16) - 0xffffffff80000000 + num('phys_base')
    u = c.rpa(uts, 390)
    if u[:6] != b'Linux\0' or u[130:130 + len(v['OSRELEASE'])] != v['OSRELEASE'].encode():
        fail('init_uts_ns')
    head = num('PG_head_mask')
    p = page_struct(c, 0x2000)
    if not p['mapping'] & 1 or not p['flags'] >> num('PG_lru') & 1:
        fail('anon page %r' % p)
    p = page_struct(c, 0x2200)
    if p['mapping'] & 1 or not p['mapping'] or p['flags'] >> num('PG_private') & 1:
        fail('cache page')
    if not page_struct(c, 0x2300)['flags'] >> num('PG_private') & 1:
        fail('cache_private page')
    f = page_struct(c, 0x2400)['flags']
    if not (f >> num('PG_swapcache') & 1 and f >> num('PG_swapbacked') & 1):
        fail('swapcache page')
    h, t1, t2 = page_struct(c, 0x2600), page_struct(c, 0x2601), page_struct(c, 0x2602)
    hva = (int(v['SYMBOL(vmemmap)'], 16) if six12 else 0xfffffab7c0000000) + 0x2600 * 64
    if not h['flags'] & head or t1['head'] != hva | 1 or t2['head'] != hva | 1:
        fail('thp compound')
    order = (t1['flags'] & 0xff) if six12 else t1['raw'][17]
    if order != 9:
        fail('thp order %d' % order)
    hg = page_struct(c, 0x2a00)
    hg1 = page_struct(c, 0x2a01)
    if six12:
        if hg['mapcount'] != num('PAGE_HUGETLB_MAPCOUNT_VALUE') or hg1['flags'] & 0xff != 9:
            fail('6.12 hugetlb')
    elif hg1['raw'][16] != num('HUGETLB_PAGE_DTOR') or hg1['raw'][17] != 9:
        fail('6.1 hugetlb dtor/order')
    s = page_struct(c, 0x2c00)
    if six12:
        if s['mapcount'] != num('PAGE_SLAB_MAPCOUNT_VALUE') or not s['mapping'] & 1:
            fail('6.12 slab')
    elif not s['flags'] >> num('PG_slab') & 1:
        fail('6.1 slab')
    if not page_struct(c, 0x2c10)['flags'] >> num('PG_hwpoison') & 1:
        fail('hwpoison')
    if page_struct(c, 0x2c14)['mapcount'] != num('PAGE_OFFLINE_MAPCOUNT_VALUE'):
        fail('offline')
    b = page_struct(c, 0x3000)
    if b['mapcount'] != num('PAGE_BUDDY_MAPCOUNT_VALUE') or b['private'] != 8:
        fail('buddy head %r' % b)
    if page_struct(c, 0x3001)['mapcount'] != -1:
        fail('buddy tail')
    if six12 and b['mapcount'] & 0xffffffff != 0xf0000000:
        fail('6.12 buddy value')
    # crashkernel memory: no PT_LOAD, but its section has struct pages
    if c.pa_all(0x9000000, 8) or page_struct(c, 0x9000)['flags'] >> (13 if six12 else 12) & 1 == 0:
        fail('crashkernel range')

def check_ref(path, ref):
    c = Core(path)
    maxpfn = max((pa + ms + PS - 1) // PS for va, pa, fs, ms, off in c.loads)
    want = -(-((maxpfn + 7) // 8) // PS) * PS
    b1 = open(ref + '/bitmap1', 'rb').read()
    bm = {L: open(ref + '/d%d.bitmap2' % L, 'rb').read() for L in (0, 1, 2, 4, 8, 16, 31)}
    if len(b1) != want or any(len(x) != want for x in bm.values()):
        fail('bitmap length %d, want %d' % (len(b1), want))
    for L, x in bm.items():
        if any(a & ~b for a, b in zip(x, b1)):
            fail('d%d.bitmap2 not a subset of bitmap1' % L)
        if any(a & ~b for a, b in zip(bm[31], x)):
            fail('d31 not a subset of d%d' % L)
    if bm[0] != bm[1]:
        fail('level 1 must not clear bits')
    expect = {  # pfn: dumpable at levels 0 2 4 8 16
        0x2000: (1, 1, 1, 0, 1), 0x2200: (1, 0, 0, 1, 1), 0x2300: (1, 1, 0, 1, 1),
        0x2400: (1, 0, 0, 1, 1), 0x27ff: (1, 1, 1, 0, 1), 0x2a05: (1, 1, 1, 0, 1),
        0x2c00: (1, 1, 1, 1, 1), 0x2c10: (0, 0, 0, 0, 0), 0x2c14: (0, 0, 0, 0, 0),
        0x30ff: (1, 1, 1, 1, 0), 0x4000: (1, 1, 1, 1, 0), 0x14a00: (1, 1, 1, 1, 1),
    }
    for pfn, levels in expect.items():
        got = tuple(bit(bm[L], pfn) for L in (0, 2, 4, 8, 16))
        if got != levels:
            fail('pfn %x: dumpable %s, want %s' % (pfn, got, levels))
    for pfn in (0, 0xff, 0x9000, 0x13fff, 0x1ffda):
        if bit(b1, pfn):
            fail('hole pfn %x in bitmap1' % pfn)

def check_legacy(path, ref):
    c = Core(path)
    if c.vmi.get('OSRELEASE') != '6.1.0-selfcheck' or c.vmi.get('NUMBER(extra)') != '42' \
            or 'SYMBOL(vmap_area_list)' in c.vmi:
        fail('vmcoreinfo edits')
    b1 = open(ref + '/bitmap1', 'rb').read()
    b2 = open(ref + '/d0.bitmap2', 'rb').read()
    # 0x9fc00: the partial page is a hole (as in makedumpfile's cyclic mode)
    if bit(b1, 0x9f) or bit(b2, 0x9f) or not bit(b2, 0x9e) or bit(b1, 0xa0):
        fail('partial page 0x9f')
    if not bit(b1, 0x1ffff) or bit(b2, 0x18000) or not bit(b2, 0x17fff):
        fail('p_memsz > p_filesz tail')
    if c.rpa(0x9e * PS, PS) != b'\x77' * PS or c.rpa(0x9f * PS, 0xc00) != b'\x77' * 0xc00:
        fail('fill of the partial page')
    p = page_struct(c, 0x2000)       # through 4 KiB PTEs
    if not p['mapping'] & 1:
        fail('anon via 4k vmemmap')

def check_twins(le_path, be_path):
    # One machine, two byte orders: the RAM of the two files differs only
    # in the kernel's words, each swapped whole (8 bytes) or by halves (a
    # struct page's _mapcount/_refcount, compound_mapcount), and in the
    # utsname strings; the page tables (big-endian on both) and every
    # page's contents are the same bytes.
    a, b = Core(le_path), Core(be_path)
    if a.e != '<' or b.e != '>':
        fail('byte orders %s %s' % (a.e, b.e))
    if [l[:4] for l in a.loads] != [l[:4] for l in b.loads]:
        fail('PT_LOADs differ')
    uts = int(a.vmi['SYMBOL(init_uts_ns)'], 16) - 0xc000000000000000
    if int(b.vmi['SYMBOL(init_uts_ns)'], 16) - 0xc000000000000000 != uts:
        fail('init_uts_ns moved')
    words = swapped = 0
    for va, pa, fs, ms, off in a.loads:
        for p in range(pa, pa + fs, 1 << 20):
            n = min(1 << 20, pa + fs - p)
            x, y = a.rpa(p, n), b.rpa(p, n)
            if x == y:
                continue
            for i in range(0, n, 8):
                if x[i:i + 8] == y[i:i + 8]:
                    continue
                words += 1
                if uts <= p + i < uts + 390:
                    continue
                wx, wy = x[i:i + 8], y[i:i + 8]
                if wx[::-1] == wy or wx[3::-1] + wx[:3:-1] == wy:
                    swapped += 1
                else:
                    fail('paddr %x: %s (LE) vs %s (BE)' % (p + i, wx.hex(), wy.hex()))
    if swapped < 1000:
        fail('only %d swapped words' % swapped)
    print('%d words differ, %d of them swapped' % (words, swapped))

what = sys.argv[1]
if what == 'twins':
    check_twins(sys.argv[2], sys.argv[3])
elif what == 'kernel':
    check_kernel(sys.argv[2])
elif what == 'ref':
    check_ref(sys.argv[2], sys.argv[3])
elif what == 'legacy':
    check_legacy(sys.argv[2], sys.argv[3])
elif what == 'breaks':
    # breaks DIR: check the broken files
    d = sys.argv[2]
    size = os.path.getsize(d + '/truncate.elf')
    if size != 0x5000:
        fail('truncate: size %x' % size)
    if os.path.getsize(d + '/empty.elf') != 0:
        fail('empty')
    h = open(d + '/phoff.elf', 'rb').read(64)
    if struct.unpack_from('<Q', h, 32)[0] < os.path.getsize(d + '/phoff.elf'):
        fail('phoff not past EOF')
    c = Core(d + '/loadeof.elf')
    va, pa, fs, ms, off = c.loads[-1]
    if off + fs <= c.size:
        fail('load_past_eof: last PT_LOAD ends at %x, size %x' % (off + fs, c.size))
    c = Core(d + '/noteovf.elf')
    name, ty, desc, dn = c.notes[-1]
    if name != b'VMCOREINFO' or dn <= len(desc):
        fail('note_overflow: descsz %x within PT_NOTE' % dn)
    c = Core(d + '/novmi.elf')
    if any(n[0] == b'VMCOREINFO' for n in c.notes) or len(c.notes) != 1:
        fail('no_vmcoreinfo')
elif what == 'cmpdump':
    # cmpdump KDUMP REF LEVEL: bitmaps of a kdump-compressed file vs ours
    d = open(sys.argv[2], 'rb').read()
    bs, shs, bmb = struct.unpack_from('<iiI', d, 428)
    half = bmb * bs // 2
    off = (1 + shs) * bs
    r1 = open(sys.argv[3] + '/bitmap1', 'rb').read()
    r2 = open(sys.argv[3] + '/d%s.bitmap2' % sys.argv[4], 'rb').read()
    if d[off:off + half] != r1:
        fail('bitmap1 differs from makedumpfile')
    if d[off + half:off + 2 * half] != r2:
        diff = [i for i in range(len(r2) * 8) if bit(r2, i) != bit(d[off + half:], i)]
        fail('bitmap2 differs at %d pfns, first %x' % (len(diff), diff[0]))
EOF
check fake_kernel_6_1 python3 "$T/check.py" kernel "$T/fx61.elf"
check fake_kernel_6_12 python3 "$T/check.py" kernel "$T/fx612.elf"
check ref_bitmaps_6_1 python3 "$T/check.py" ref "$T/fx61.elf" "$T/fx61.ref"
check ref_bitmaps_6_12 python3 "$T/check.py" ref "$T/fx612.elf" "$T/fx612.ref"
check legacy_bytes_vmcoreinfo_4k python3 "$T/check.py" legacy "$T/legacy.elf" "$T/legacy.ref"

# ppc64 and ppc64be from one spec: the same machine in two byte orders.
twins() {
	printf 'arch ppc64\nram 0 +192M\nram 0x10000000 +64M\npages 0x300+64 anon random\npages 0x400+64 thp random\npages 0x500+256 free order=8\npages 0x600+32 cache text\n' >"$T/le.spec"
	sed 's/^arch ppc64$/arch ppc64be/' "$T/le.spec" >"$T/be.spec"
	"$GEN" "$T/le.spec" "$T/le.elf" && "$GEN" "$T/be.spec" "$T/be.elf" || return 1
	readelf -h "$T/be.elf" | grep -q 'Data:.*big endian' || { echo "ppc64be is not big-endian"; return 1; }
	python3 "$T/check.py" twins "$T/le.elf" "$T/be.elf" >/dev/null || { python3 "$T/check.py" twins "$T/le.elf" "$T/be.elf"; return 1; }
	rm -f "$T/le.elf" "$T/be.elf"
}
check byte_order_twins_ppc64 twins

# the 7.1 rename and kernel none
vmi71() {
	printf 'kernel 7.1\nram 0 256M\n' | "$GEN" - "$T/v71.elf" || return 1
	readelf -nW "$T/v71.elf" >/dev/null || return 1
	grep -aq 'OFFSET(page.compound_info)=8' "$T/v71.elf" || { echo "no compound_info"; return 1; }
	! grep -aq 'OFFSET(page.compound_head)' "$T/v71.elf" || { echo "compound_head present"; return 1; }
	printf 'kernel none\nram 0 64M\n' | "$GEN" - "$T/none.elf" || return 1
	grep -aq 'PAGESIZE=4096' "$T/none.elf" || { echo "kernel none: no PAGESIZE"; return 1; }
	rm -f "$T/v71.elf" "$T/none.elf"
}
check presets_7_1_none vmi71

# ---- broken files ----
breaks() {
	local base='kernel 6.1
ram 0x100000 0x8000000
text 0x400000'
	local n b
	for nb in "truncate:truncate 0x5000" "empty:empty" "phoff:phoff_past_eof" \
		"loadeof:load_past_eof" "noteovf:note_overflow" "novmi:no_vmcoreinfo"; do
		n=${nb%%:*}
		b=${nb#*:}
		printf '%s\nbreak %s\n' "$base" "$b" | "$GEN" - "$T/$n.elf" || return 1
	done
	readelf -lW "$T/phoff.elf" 2>&1 | grep -q 'past end of file' ||
		{ echo "readelf does not see phoff past EOF"; return 1; }
	python3 "$T/check.py" breaks "$T"
}
check broken_files breaks
rm -f "$T"/{truncate,empty,phoff,loadeof,noteovf,novmi}.elf

# ---- spec errors: exit 1 with one line naming the spec line ----
spec_errors() {
	local s out rc
	for s in 'ram 0 1G\nbogus 1' 'kernel 6.2\nram 0 1G' 'ram 0 1G\npages 0x1000+8 anon' \
		'ram 0 1G\npages 0x1001+512 thp' 'ram 0 1G\npages 0x2000+8 anon\npages 0x2004+8 cache' \
		'cpus 1' 'ram 0 1G\nfill 0x2000+4 random\nfill 0x2003+1 text' \
		'ram 0 64M\nfill 0+16384 random' 'ram 0 1G\npages 0x40000+1 anon' 'ram 0 1G\nbreak nope' \
		'arch arm64\nformat sadump single\nram 0 1G' 'kernel none\nformat sadump media\nram 0 1G' \
		'format sadump diskset 1\nram 0 1G' 'format sadump\nram 0 1G' \
		'format sadump single\nbreak no_vmcoreinfo\nram 0 1G'; do
		out=$(printf "$s\n" | "$GEN" - "$T/err.elf" 2>&1)
		rc=$?
		[ $rc -eq 1 ] || { echo "spec '$s': exit $rc"; return 1; }
		[ "$(echo "$out" | wc -l)" -eq 1 ] && [[ "$out" == mkvmcore:* ]] ||
			{ echo "spec '$s': message '$out'"; return 1; }
	done
	"$GEN" >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "usage exit status"; return 1; }
}
check spec_errors spec_errors
rm -f "$T/err.elf"

# ---- the real tool, when installed: its bitmaps must equal ours (6.1) ----
REAL=
for p in /usr/sbin/makedumpfile /usr/bin/makedumpfile /sbin/makedumpfile; do
	[ -x "$p" ] && REAL=$p && break
done
real_tool() {
	local spec L
	for spec in fx61 legacy; do
		for L in 0 2 4 8 16 31; do
			rm -f "$T/dump"
			# --cyclic-buffer keeps it in cyclic mode, a capture
			# kernel's: one cycle (plenty of memory) would count a
			# partial last page as present.
			"$REAL" --cyclic-buffer 1 -l -d $L "$T/$spec.elf" "$T/dump" >/dev/null 2>&1 ||
				{ echo "$REAL -d $L $spec.elf failed"; return 1; }
			python3 "$T/check.py" cmpdump "$T/dump" "$T/$spec.ref" $L ||
				{ echo "$spec level $L"; return 1; }
		done
	done
	rm -f "$T/dump"
}
# The printk ring of "dmesg" lines (a 6.1 kernel's) as the real tool reads
# it: every line, and from clear_seq on with --partial-dmesg.
real_dmesg() {
	local opt
	printf 'kernel 6.1\nram 0x100000 +256M\ndmesg Linux version 6.1.0-57-amd64\ndmesg second: line\ndmesg LAB-MARKER real makedumpfile\ndmesg_clear 1\n' |
		"$GEN" - "$T/log.elf" || return 1
	printf '[    0.100000] Linux version 6.1.0-57-amd64\n[    0.200001] second: line\n[    0.300002] LAB-MARKER real makedumpfile\n' >"$T/log.want"
	tail -n +2 "$T/log.want" >"$T/log.partial"
	for opt in want partial; do
		rm -f "$T/log.got"
		"$REAL" --dump-dmesg $([ $opt = partial ] && echo --partial-dmesg) "$T/log.elf" \
			"$T/log.got" >/dev/null 2>&1 || { echo "$REAL --dump-dmesg ($opt) failed"; return 1; }
		cmp -s "$T/log.got" "$T/log.$opt" || { echo "$opt: $(head -c 200 "$T/log.got")"; return 1; }
	done
	rm -f "$T/log.elf"
}
if [ -n "$REAL" ]; then
	check real_makedumpfile_bitmaps_6_1 real_tool
	check real_makedumpfile_dmesg_ring real_dmesg
else
	echo "skip real_makedumpfile_bitmaps_6_1: no system makedumpfile"
	echo "skip real_makedumpfile_dmesg_ring: no system makedumpfile"
fi
exit 0
