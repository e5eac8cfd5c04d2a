"""The kernel in a 32-bit (i386, arm) ELF vmcore, read without the program
(tests/e2e/gen_x86.sh, gen_arm.sh).  The arch's script walks its own page
tables; given that walk (va -> pa, or None) this reads what the 32-bit
FLATMEM kernels share: the struct page array, contig_page_data's free
lists and the lockless printk ring in 32-bit longs.  Every check that
fails adds a line to Core.bad.

Core(path)                  the file: d, loads, vmi, prs (vmcore_layout),
                            rpa/u32/u64 (physical), sym, and once .walk is
                            set r32 (a word at a va)
Core.need(cond, msg)        collect msg when cond is false
Core.report(leaves, nfree, nlines)
                            print the failures, or the summary line the
                            scripts' callers look for ("leaves ...")
FlatMem(core, size, pfn0, zone_of)
                            mem_map: SYMBOL(mem_map) holds the address of
                            the struct page (size bytes) of pfn0
                            (ARCH_PFN_OFFSET); zone_of(pfn) is its zone
FlatMem.kinds(checks, thp_order)
                            each (pfn, kind) of checks: its zone in flags'
                            top 2 bits and the marks of its kind (6.1)
FlatMem.free_lists(layout, top, max_order_pages, nr_zones)
                            contig_page_data against the buddy heads of the
                            whole array; returns how many are listed
printk_lines(core, want, clear_val)
                            the records of the ring (against want, the
                            lines --dump-dmesg prints) and clear_seq (1),
                            whose val[] is at clear_val; returns how many
pfn_checks(text)            "PFN=KIND,..." -> [(pfn, kind)]
"""
import struct

from vmcore_layout import read_vmcore


class Core:
    def __init__(self, path):
        self.d, self.loads, self.vmi, self.prs = read_vmcore(path)
        self.bad = []
        self.walk = None

    def need(self, cond, msg):
        if not cond:
            self.bad.append(msg)

    def rpa(self, pa, n):
        for va, p, fs, off in self.loads:
            if p <= pa and pa + n <= p + fs:
                return self.d[off + pa - p:off + pa - p + n]
        raise SystemExit("paddr %#x not in a PT_LOAD" % pa)

    def u32(self, pa):
        return struct.unpack("<I", self.rpa(pa, 4))[0]

    def u64(self, pa):
        return struct.unpack("<Q", self.rpa(pa, 8))[0]

    def sym(self, key):
        return int(self.vmi[key], 16)

    def r32(self, va):
        return self.u32(self.walk(va))

    def report(self, leaves, nfree, nlines):
        print("; ".join(self.bad) if self.bad else
              "leaves %s, %d free blocks on lists, %d log lines" %
              (" ".join(sorted(leaves)), nfree, nlines))


def pfn_checks(text):
    return [(int(a, 0), b) for a, b in (x.split("=") for x in text.split(","))]


class FlatMem:
    def __init__(self, core, size, pfn0, zone_of):
        self.c, self.size, self.pfn0, self.zone_of = core, size, pfn0, zone_of
        self.mem_map = core.r32(core.sym("SYMBOL(mem_map)"))
        core.need(self.mem_map >= 0xc0000000, "mem_map %#x" % self.mem_map)

    def va(self, pfn):
        return self.mem_map + self.size * (pfn - self.pfn0)

    def page(self, pfn):
        pa = self.c.walk(self.va(pfn))
        self.c.need(pa is not None, "struct page of %#x not mapped" % pfn)
        n = self.size // 4
        return struct.unpack("<%dI" % n, self.c.rpa(pa, 4 * n)) if pa is not None else (0,) * n

    def kinds(self, checks, thp_order):
        """flags 0, lru/compound_head 4, page[1]'s dtor and order at 8 and
        9, mapping 12, private 20, _mapcount 24; 6.1's page flags."""
        for pfn, kind in checks:
            p = self.page(pfn)
            flags, mapping = p[0], p[3]
            mapcount = struct.unpack("<i", struct.pack("<I", p[6]))[0]
            zone = self.zone_of(pfn)
            self.c.need(flags >> 30 == zone, "pfn %#x: zone %d, want %d" % (pfn, flags >> 30, zone))
            tail = self.page(pfn + 1) if kind in ("thp", "hugetlb") else None
            ok = {"anon": flags >> 4 & 1 and mapping & 1 and mapcount == 0,
                  "cache": flags >> 4 & 1 and mapping and not mapping & 1,
                  "slab": flags >> 9 & 1,
                  "hwpoison": flags >> 23 & 1,
                  "offline": mapcount == -257,
                  "free": mapcount == -129 and p[5] <= 11,
                  "kernel": flags >> 12 & 1,
                  "thp": tail and flags >> 16 & 1 and mapping & 1 and tail[1] == self.va(pfn) + 1
                         and tail[2] & 0xffff == 3 | thp_order << 8,
                  "hugetlb": tail and flags >> 16 & 1 and tail[2] & 0xff == 2,
                  }[kind]
            self.c.need(ok, "pfn %#x: not %s: %s" % (pfn, kind, " ".join("%#x" % x for x in p)))

    def free_lists(self, layout, top, max_order_pages, nr_zones):
        """layout: the offsets of pglist_data's nr_zones (node_mem_map
        follows, node_start_pfn 8 further), the sizes of a zone and a
        free_area, the free_area count and MIGRATE_TYPES.  node_mem_map is
        the first RAM pfn's struct page; the free lists (free_area at 128
        of a zone, through page.lru at 4, MIGRATE_MOVABLE's only, nr_free
        after the lists) hold exactly the buddy heads of the array, each
        with its order in private."""
        c = self.c
        nr_off, zone, fa_size, orders, mtypes = layout
        pgdat = c.sym("SYMBOL(contig_page_data)")
        first = min(pa for va, pa, fs, off in c.loads) >> 12
        start = c.r32(pgdat + nr_off + 12)
        c.need(start == first, "node_start_pfn %#x, want %#x" % (start, first))
        c.need(c.r32(pgdat + nr_off + 4) == self.va(start), "node_mem_map %#x" % c.r32(pgdat + nr_off + 4))
        c.need(c.r32(pgdat + nr_off) == nr_zones, "nr_zones %d, want %d" % (c.r32(pgdat + nr_off), nr_zones))
        npfn = ((top >> 12) + max_order_pages - 1 & ~(max_order_pages - 1)) - self.pfn0
        arr = c.rpa(c.walk(self.mem_map), self.size * npfn)
        heads = {self.pfn0 + p: struct.unpack_from("<I", arr, self.size * p + 20)[0]
                 for p in range(npfn) if struct.unpack_from("<i", arr, self.size * p + 24)[0] == -129}
        listed = {}
        for z in range(4):
            for o in range(orders):
                fa = pgdat + zone * z + 128 + fa_size * o
                for m in range(mtypes):
                    lh, n = fa + 8 * m, 0
                    e = c.r32(lh)
                    while e != lh and n < 1 << 20:
                        c.need(m == 1, "zone %d order %d: a page on list %d" % (z, o, m))
                        listed[self.pfn0 + (e - 4 - self.mem_map) // self.size] = o
                        n += 1
                        e = c.r32(e)
                    c.need(c.r32(c.r32(lh) + 4) == lh, "zone %d order %d list %d: first's prev" % (z, o, m))
                nr_free = c.r32(fa + 8 * mtypes)
                c.need(nr_free == sum(1 for p, q in listed.items() if q == o and self.zone_of(p) == z),
                       "zone %d order %d: nr_free %d" % (z, o, nr_free))
        c.need(listed == heads and len(heads) > 0,
               "free lists: %d listed, %d buddy heads" % (len(listed), len(heads)))
        return listed


def printk_lines(c, want, clear_val):
    """prb -> printk_ringbuffer (desc_ring count_bits, descs, infos,
    head_id, tail_id at 0-16, text_data_ring size_bits, data at 24, 28),
    12-byte prb_desc (state_var with the state in bits 31:30,
    text_blk_lpos), 88-byte printk_info, data blocks of a 4-byte id and the
    text; clear_seq: latch, then val[2]."""
    r32, walk = c.r32, c.walk
    rb = r32(c.sym("SYMBOL(prb)"))
    count, descs, infos = 1 << r32(rb), r32(rb + 4), r32(rb + 8)
    head, tail = r32(rb + 12), r32(rb + 16)
    size, data = 1 << r32(rb + 24), r32(rb + 28)
    mask = (1 << 30) - 1
    lines = []
    for i in range((head - tail & mask) + 1):
        rid = tail + i & mask
        slot = rid & count - 1
        sv = r32(descs + 12 * slot)
        if sv & mask != rid or sv >> 30 not in (1, 2):
            continue
        begin = r32(descs + 12 * slot + 4)
        info = walk(infos + 88 * slot)
        seq, ts, tlen = struct.unpack("<QQH", c.rpa(info, 18))
        fl = c.rpa(info + 19, 1)[0]
        c.need(fl >> 5 == 6 and fl & 31 == 2, "record %d: flags/level byte %#x" % (seq, fl))
        blk = data + (begin & size - 1)
        c.need(r32(blk) == rid, "record %d: block id %#x, want %#x" % (seq, r32(blk), rid))
        lines.append("[%5d.%06d] %s" % (ts // 10**9, ts % 10**9 // 1000,
                                        c.rpa(walk(blk) + 4, tlen).decode()))
    c.need(lines == want, "log %s" % lines[:2])
    cs = walk(c.sym("SYMBOL(clear_seq)"))
    c.need(c.u64(cs + clear_val + 8 * (c.u32(cs) & 1)) == 1, "clear_seq")
    return len(lines)
