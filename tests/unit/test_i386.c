/*
 * tests/unit/test_i386.c - the whole program on a hand-made vmcore of a
 * 32-bit x86 kernel: ELF32 EM_386 as kexec-tools writes it (lowmem at
 * va = pa + 0xC0000000, highmem at p_vaddr -1), the VMCOREINFO of a
 * Debian 686 / 686-pae 6.1 kernel (FLATMEM: SYMBOL(mem_map); 40-byte
 * struct pages of 4-byte words; CONFIG_X86_PAE=y for PAE), its page tables
 * (2 levels of 4 MiB PSE leaves without PAE, a PDPT and 2 MiB leaves with
 * it), and a few pages of each class.  build/<flavour>/makedumpfile
 * (found next to this binary) filters it at -d 31 to the kdump format,
 * whose ILP32 headers the reader must take back, to ELF (-E: ELF32), and
 * refilters its own output; and the same with SPARSEMEM (4-byte
 * section_mem_map words) and with free pages found by walking the free lists.
 *
 * MDF_I386_CORES=DIR writes the FLATMEM vmcores (nopae.elf, pae.elf,
 * walk.elf) into DIR instead, for tests/e2e/i386_oracle.sh, which checks
 * our output against Debian's makedumpfile 1.7.2 built for i386.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "diskdump.h"
#include "diskdump_read.h"
#include "error.h"
#include "tap.h"
#include "util.h"

#define PO 0xC0000000u
#define PS 4096u
#define LOWMEM (8u << 20)
#define HIGHMEM (1u << 20)
#define RAM (LOWMEM + HIGHMEM)
#define NPFN (RAM / PS)
#define HDR 0x1000u

/* physical layout */
#define SWAPPER 0x100000u   /* swapper_pg_dir (PAE: the PDPT) */
#define MEM_MAP_VAR 0x101000u
#define UTS 0x102000u       /* init_uts_ns */
#define PRB_VAR 0x103000u   /* prb, then the printk ring's parts */
#define PRB 0x103100u
#define DESCS 0x103200u
#define INFOS 0x103300u
#define DATA 0x103800u
#define MEM_SECTION 0x106000u /* SPARSEMEM: mem_section[64], 8 bytes each */
#define NODE_STATES 0x107000u /* node_states[]: nodemask_t (4 bytes) each */
#define CONTIG 0x104000u    /* contig_page_data: zone 0 at its start */
#define PAE_PMD 0x105000u
#define MEM_MAP 0x200000u   /* struct page[NPFN], 40 bytes each */
#define SPS 40u

/* pages of each class */
#define PFN_KERNEL 0x500u   /* kept */
#define PFN_BUDDY 0x600u    /* 8 free pages (order 3) */
#define PFN_ANON 0x610u     /* user data */
#define PFN_CACHE 0x620u    /* page cache */
#define PFN_ZERO 0x700u     /* a zero kernel page */

static unsigned char mem[RAM];
static char tmpdir[64], mdf_bin[PATH_MAX + 64];
static bool have_bin;

static const char *tpath(const char *name)
{
	static char buf[8][PATH_MAX];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static void put16(unsigned char *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void pattern(uint32_t pfn)
{
	for (uint32_t i = 0; i < PS; i++)
		mem[pfn * PS + i] = (unsigned char)(pfn * 7 + i * 13 + 1);
}

static void page_struct(uint32_t pfn, uint32_t flags, uint32_t mapping, uint32_t priv,
			int32_t mapcount)
{
	unsigned char *p = mem + MEM_MAP + pfn * SPS;

	store_le32(p + 0, flags);
	store_le32(p + 12, mapping);
	store_le32(p + 20, priv);
	store_le32(p + 24, (uint32_t)mapcount);
	store_le32(p + 28, mapcount == -129 ? 0 : 1);  /* _refcount */
}

static void build_memory(bool pae)
{
	memset(mem, 0, sizeof(mem));
	if (pae) {
		store_le64(mem + SWAPPER + 3 * 8, PAE_PMD | 0x1);
		for (uint32_t i = 0; i < LOWMEM >> 21; i++)
			store_le64(mem + PAE_PMD + i * 8, ((uint64_t)i << 21) | 0xe3);
	} else {
		for (uint32_t i = 0; i < LOWMEM >> 22; i++)
			store_le32(mem + SWAPPER + ((PO >> 22) + i) * 4, (i << 22) | 0xe3);
	}
	store_le32(mem + MEM_MAP_VAR, PO + MEM_MAP);
	/* the same array as SPARSEMEM's section 0 (present, has a mem_map) */
	store_le32(mem + MEM_SECTION, (PO + MEM_MAP) | 0x3);
	strcpy((char *)mem + UTS + 0 * 65, "Linux");
	strcpy((char *)mem + UTS + 2 * 65, pae ? "6.1.0-57-686-pae" : "6.1.0-57-686");
	strcpy((char *)mem + UTS + 4 * 65, "i686");
	/* the printk ring (i386 6.1 layout): one finalized record */
	store_le32(mem + PRB_VAR, PO + PRB);
	store_le32(mem + PRB + 0, 2);               /* desc_ring.count_bits */
	store_le32(mem + PRB + 4, PO + DESCS);
	store_le32(mem + PRB + 8, PO + INFOS);
	store_le32(mem + PRB + 12, 0);              /* head_id */
	store_le32(mem + PRB + 16, 0);              /* tail_id */
	store_le32(mem + PRB + 24, 8);              /* text_data_ring.size_bits */
	store_le32(mem + PRB + 28, PO + DATA);
	store_le32(mem + DESCS + 0, 2u << 30);      /* finalized, id 0 */
	store_le32(mem + DESCS + 4, 0);             /* text_blk_lpos.begin */
	store_le32(mem + DESCS + 8, 16);            /* .next */
	store_le64(mem + INFOS + 0, 0);             /* seq */
	store_le64(mem + INFOS + 8, 1500000000ULL); /* ts_nsec */
	put16(mem + INFOS + 16, 10);                /* text_len */
	memcpy(mem + DATA + 4, "hello i386", 10);
	for (uint32_t pfn = 0; pfn < NPFN; pfn++)
		page_struct(pfn, 0, 0, 0, -1);
	/* one node, one zone spanning every pfn, 8 pages free by its
	 * counter; 4 orders of 3 free lists (4-byte list_heads), empty but
	 * for order 3's first, which holds the buddy block's page.lru */
	store_le32(mem + NODE_STATES + 1 * 4, 1);             /* [N_ONLINE]: node 0 */
	store_le32(mem + CONTIG + 0x600, 1);                 /* nr_zones */
	store_le32(mem + CONTIG + 0x10, NPFN);               /* spanned_pages */
	store_le32(mem + CONTIG + 0x180, 8);                 /* vm_stat[NR_FREE_PAGES] */
	for (uint32_t o = 0; o < 4; o++)
		for (uint32_t mt = 0; mt < 3; mt++) {
			uint32_t h = CONTIG + 0x40 + o * 0x20 + mt * 8;
			uint32_t to = o == 3 && mt == 0 ? PO + MEM_MAP + PFN_BUDDY * SPS + 4 : PO + h;

			store_le32(mem + h, to);
			store_le32(mem + h + 4, to);
			if (to != PO + h) {
				store_le32(mem + MEM_MAP + PFN_BUDDY * SPS + 4, PO + h);
				store_le32(mem + MEM_MAP + PFN_BUDDY * SPS + 8, PO + h);
			}
		}
	pattern(PFN_KERNEL);
	for (uint32_t i = 0; i < 8; i++)
		pattern(PFN_BUDDY + i);
	page_struct(PFN_BUDDY, 0, 0, 3, -129);          /* PAGE_BUDDY_MAPCOUNT_VALUE */
	pattern(PFN_ANON);
	page_struct(PFN_ANON, 1u << 4, PO + 0x300001u, 0, 0);   /* PG_lru, anon */
	pattern(PFN_CACHE);
	page_struct(PFN_CACHE, 1u << 4, PO + 0x300100u, 0, 0);  /* PG_lru, file */
}

static const char vmcoreinfo_fmt[] =
	"OSRELEASE=%s\n"
	"PAGESIZE=4096\n"
	"SYMBOL(init_uts_ns)=%x\n"
	"OFFSET(uts_namespace.name)=0\n"
	"SYMBOL(swapper_pg_dir)=%x\n"
	"SYMBOL(_stext)=c1000000\n"
	"%s"
	"SIZE(page)=40\n"
	"OFFSET(page.flags)=0\n"
	"OFFSET(page._refcount)=28\n"
	"OFFSET(page.mapping)=12\n"
	"OFFSET(page.lru)=4\n"
	"OFFSET(page._mapcount)=24\n"
	"OFFSET(page.private)=20\n"
	"OFFSET(page.compound_dtor)=8\n"
	"OFFSET(page.compound_order)=9\n"
	"OFFSET(page.compound_head)=4\n"
	"NUMBER(PG_lru)=4\n"
	"NUMBER(PG_private)=13\n"
	"NUMBER(PG_swapcache)=10\n"
	"NUMBER(PG_swapbacked)=19\n"
	"NUMBER(PG_slab)=9\n"
	"NUMBER(PG_head_mask)=65536\n"
	"NUMBER(HUGETLB_PAGE_DTOR)=2\n"
	"NUMBER(PAGE_OFFLINE_MAPCOUNT_VALUE)=-257\n"
	"SYMBOL(contig_page_data)=c0104000\n"
	"SYMBOL(node_states)=c0107000\n"
	"SIZE(nodemask_t)=4\n"
	"NUMBER(N_ONLINE)=1\n"
	"SIZE(pglist_data)=2048\n"
	"SIZE(zone)=512\n"
	"SIZE(free_area)=32\n"
	"SIZE(list_head)=8\n"
	"OFFSET(pglist_data.node_zones)=0\n"
	"OFFSET(pglist_data.nr_zones)=1536\n"
	"OFFSET(zone.free_area)=64\n"
	"OFFSET(zone.spanned_pages)=16\n"
	"OFFSET(zone.vm_stat)=384\n"
	"OFFSET(free_area.free_list)=0\n"
	"OFFSET(list_head.next)=0\n"
	"OFFSET(list_head.prev)=4\n"
	"LENGTH(zone.free_area)=4\n"
	"LENGTH(free_area.free_list)=3\n"
	"NUMBER(NR_FREE_PAGES)=0\n"
	"SYMBOL(prb)=c0103000\n"
	"SIZE(printk_ringbuffer)=44\n"
	"OFFSET(printk_ringbuffer.desc_ring)=0\n"
	"OFFSET(printk_ringbuffer.text_data_ring)=24\n"
	"OFFSET(printk_ringbuffer.fail)=40\n"
	"SIZE(prb_desc_ring)=24\n"
	"OFFSET(prb_desc_ring.count_bits)=0\n"
	"OFFSET(prb_desc_ring.descs)=4\n"
	"OFFSET(prb_desc_ring.infos)=8\n"
	"OFFSET(prb_desc_ring.head_id)=12\n"
	"OFFSET(prb_desc_ring.tail_id)=16\n"
	"SIZE(prb_desc)=12\n"
	"OFFSET(prb_desc.state_var)=0\n"
	"OFFSET(prb_desc.text_blk_lpos)=4\n"
	"SIZE(prb_data_blk_lpos)=8\n"
	"OFFSET(prb_data_blk_lpos.begin)=0\n"
	"OFFSET(prb_data_blk_lpos.next)=4\n"
	"SIZE(printk_info)=88\n"
	"OFFSET(printk_info.seq)=0\n"
	"OFFSET(printk_info.ts_nsec)=8\n"
	"OFFSET(printk_info.text_len)=16\n"
	"OFFSET(printk_info.caller_id)=20\n"
	"OFFSET(printk_info.dev_info)=24\n"
	"SIZE(prb_data_ring)=16\n"
	"OFFSET(prb_data_ring.size_bits)=0\n"
	"OFFSET(prb_data_ring.data)=4\n"
	"OFFSET(prb_data_ring.head_lpos)=8\n"
	"OFFSET(prb_data_ring.tail_lpos)=12\n"
	"SIZE(atomic_long_t)=4\n"
	"OFFSET(atomic_long_t.counter)=0\n"
	"%s%s";


/* The ELF32 vmcore: a header page (Ehdr, PT_NOTE, two PT_LOADs, the
 * VMCOREINFO note), then RAM. */
/* @walk: no PAGE_BUDDY_MAPCOUNT_VALUE, so free pages come from a walk of
 * the free lists.  @sparse: SPARSEMEM (x86_32's static mem_section of
 * 64 sections of 64 MiB) instead of FLATMEM. */
static bool write_core(const char *path, bool pae, bool walk, bool sparse)
{
	unsigned char hdr[HDR];
	char text[4096], model[256];
	int tl;

	if (sparse)
		snprintf(model, sizeof(model),
			 "SYMBOL(mem_section)=%x\nLENGTH(mem_section)=64\nSIZE(mem_section)=8\n"
			 "OFFSET(mem_section.section_mem_map)=0\nNUMBER(SECTION_SIZE_BITS)=26\n"
			 "NUMBER(MAX_PHYSMEM_BITS)=32\n", PO + MEM_SECTION);
	else
		snprintf(model, sizeof(model), "SYMBOL(mem_map)=%x\n", PO + MEM_MAP_VAR);
	tl = snprintf(text, sizeof(text), vmcoreinfo_fmt,
			  pae ? "6.1.0-57-686-pae" : "6.1.0-57-686", PO + UTS, PO + SWAPPER,
			  model, pae ? "CONFIG_X86_PAE=y\n" : "",
			  walk ? "" : "NUMBER(PAGE_BUDDY_MAPCOUNT_VALUE)=-129\n");
	uint32_t note_len = 24 + (((uint32_t)tl + 3) & ~3u);
	unsigned char *ph;
	FILE *f;
	bool ok;

	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, ELFMAG, SELFMAG);
	hdr[EI_CLASS] = ELFCLASS32;
	hdr[EI_DATA] = ELFDATA2LSB;
	hdr[EI_VERSION] = EV_CURRENT;
	put16(hdr + 16, ET_CORE);
	put16(hdr + 18, EM_386);
	store_le32(hdr + 20, EV_CURRENT);
	store_le32(hdr + 28, 52);          /* e_phoff */
	put16(hdr + 40, 52);               /* e_ehsize */
	put16(hdr + 42, 32);               /* e_phentsize */
	put16(hdr + 44, 3);                /* e_phnum */
	ph = hdr + 52;
	store_le32(ph + 0, PT_NOTE);
	store_le32(ph + 4, 0x200);
	store_le32(ph + 16, note_len);
	store_le32(ph + 20, note_len);
	ph += 32;
	store_le32(ph + 0, PT_LOAD);
	store_le32(ph + 4, HDR);           /* p_offset */
	store_le32(ph + 8, PO);            /* p_vaddr */
	store_le32(ph + 12, 0);            /* p_paddr */
	store_le32(ph + 16, LOWMEM);
	store_le32(ph + 20, LOWMEM);
	store_le32(ph + 24, PF_R | PF_W | PF_X);
	ph += 32;
	store_le32(ph + 0, PT_LOAD);
	store_le32(ph + 4, HDR + LOWMEM);
	store_le32(ph + 8, 0xffffffffu);   /* highmem: no virtual address */
	store_le32(ph + 12, LOWMEM);
	store_le32(ph + 16, HIGHMEM);
	store_le32(ph + 20, HIGHMEM);
	store_le32(ph + 24, PF_R | PF_W | PF_X);
	store_le32(hdr + 0x200, 11);
	store_le32(hdr + 0x204, (uint32_t)tl);
	memcpy(hdr + 0x20c, "VMCOREINFO", 11);
	memcpy(hdr + 0x218, text, (size_t)tl);

	f = fopen(path, "wb");
	if (!f)
		return false;
	ok = fwrite(hdr, 1, sizeof(hdr), f) == sizeof(hdr) &&
	     fwrite(mem, 1, sizeof(mem), f) == sizeof(mem);
	return fclose(f) == 0 && ok;
}

static bool mdf(const char *opts, const char *in, const char *out)
{
	char cmd[3 * PATH_MAX + 256];

	unlink(out);
	snprintf(cmd, sizeof(cmd), "'%s' %s '%s' '%s' >'%s/log' 2>&1", mdf_bin, opts, in, out,
		 tmpdir);
	if (system(cmd) == 0)
		return true;
	snprintf(cmd, sizeof(cmd), "cat '%s/log' >&2", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "(no log)\n");
	return false;
}

/* The kdump file @path: ILP32 headers of an i686 dump, and the pages
 * each class leaves. */
static void check_kdump(const char *path, const char *release)
{
	struct cache_config cfg = { .nentries = 6, .policy = CACHE_MMAP_TRY };
	struct diskdump_info di;
	struct cache cache;
	struct mdf_err err;
	unsigned char page[PS];
	int fd = open(path, O_RDONLY);

	T_ASSERT(fd >= 0);
	if (fd < 0)
		return;
	mdf_err_clear(&err);
	T_OK(cache_init(&cache, fd, path, &cfg, &err), &err);
	if (diskdump_open(&di, fd, path, &cache, &err) != MDF_OK) {
		T_OK(err.status, &err);
		cache_release(&cache);
		close(fd);
		return;
	}
	T_EQ_U64(di.abi, KDUMP_ABI_ILP32);
	T_EQ_STR(di.header.utsname.machine, "i686");
	T_EQ_STR(di.header.utsname.release, release);
	T_EQ_U64(di.block_size, PS);
	T_EQ_U64(di.max_mapnr, NPFN);
	T_EQ_U64(di.dump_level, 31);
	T_ASSERT(di.vmcoreinfo && strstr(di.vmcoreinfo, "SYMBOL(swapper_pg_dir)=c0100000"));
	/* the raw file: header_version, then block_size at ILP32's 416 */
	{
		unsigned char h[452];
		size_t got;

		T_OK(util_pread_full(fd, h, sizeof(h), 0, &got, &err), &err);
		T_EQ_U64(load_le32(h + 416), PS);
		T_EQ_U64(load_le32(h + 420), di.header.sub_hdr_size);
	}
	T_ASSERT(diskdump_dumpable(&di, PFN_KERNEL));
	T_OK(diskdump_read_page(&di, &cache, PFN_KERNEL, page, &err), &err);
	T_ASSERT(memcmp(page, mem + PFN_KERNEL * PS, PS) == 0);
	T_ASSERT(diskdump_dumpable(&di, SWAPPER / PS));       /* page tables */
	T_ASSERT(diskdump_dumpable(&di, MEM_MAP / PS));       /* struct pages */
	for (uint32_t i = 0; i < 8; i++)
		T_ASSERT(!diskdump_dumpable(&di, PFN_BUDDY + i)); /* free */
	T_ASSERT(!diskdump_dumpable(&di, PFN_ANON));            /* user data */
	T_ASSERT(!diskdump_dumpable(&di, PFN_CACHE));           /* cache */
	/* zero pages: left out, or (as upstream's cyclic writer stores
	 * them) the one shared zero page */
	for (uint32_t pfn = PFN_ZERO; pfn < NPFN; pfn += LOWMEM / PS + 5 - PFN_ZERO) {
		T_ASSERT(diskdump_present(&di, pfn));
		if (diskdump_dumpable(&di, pfn)) {
			T_OK(diskdump_read_page(&di, &cache, pfn, page, &err), &err);
			T_ASSERT(page[0] == 0 && memcmp(page, page + 1, PS - 1) == 0);
		}
	}
	diskdump_close(&di);
	cache_release(&cache);
	close(fd);
}

static void run_mode(bool pae, bool walk, bool sparse)
{
	const char *name = sparse ? "sparse" : walk ? "walk" : pae ? "pae" : "nopae";
	char fn[64];
	const char *core, *kd, *re, *el;

	snprintf(fn, sizeof(fn), "%s.elf", name);
	core = tpath(fn);
	snprintf(fn, sizeof(fn), "%s.kdump", name);
	kd = tpath(fn);
	snprintf(fn, sizeof(fn), "%s-re.kdump", name);
	re = tpath(fn);
	snprintf(fn, sizeof(fn), "%s-E.elf", name);
	el = tpath(fn);
	const char *rel = pae ? "6.1.0-57-686-pae" : "6.1.0-57-686";
	unsigned char eh[52];
	FILE *f;

	if (!have_bin) {
		t_skip("build/<flavour>/makedumpfile not found next to the test");
		return;
	}
	build_memory(pae);
	T_ASSERT(write_core(core, pae, walk, sparse));
	/* the kdump format, and a refilter of it */
	T_ASSERT(mdf("-d 31", core, kd));
	check_kdump(kd, rel);
	T_ASSERT(mdf("-d 31", kd, re));
	check_kdump(re, rel);
	/* ELF: the class of the input */
	T_ASSERT(mdf("-E -d 31", core, el));
	f = fopen(el, "rb");
	T_ASSERT(f && fread(eh, 1, sizeof(eh), f) == sizeof(eh));
	if (f)
		fclose(f);
	T_EQ_U64(eh[EI_CLASS], ELFCLASS32);
	T_EQ_U64(eh[18] | eh[19] << 8, EM_386);
	/* the kernel log, from the vmcore and from the kdump file */
	for (int i = 0; i < 2; i++) {
		const char *log = tpath("dmesg.txt");
		char text[256] = "";
		size_t n = 0;

		T_ASSERT(mdf("--dump-dmesg", i ? kd : core, log));
		f = fopen(log, "rb");
		if (f) {
			n = fread(text, 1, sizeof(text) - 1, f);
			fclose(f);
		}
		text[n] = '\0';
		T_EQ_STR(text, "[    1.500000] hello i386\n");
	}
}

static void t_nopae(void)
{
	run_mode(false, false, false);
}

static void t_pae(void)
{
	run_mode(true, false, false);
}

/* free pages by the free lists' walk (4-byte list_heads and longs) */
static void t_walk(void)
{
	run_mode(false, true, false);
}

/* SPARSEMEM: mem_section's 4-byte section_mem_map */
static void t_sparse(void)
{
	run_mode(false, false, true);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], *slash, cmd[128];
	int rc;

	(void)argc;
	if (getenv("MDF_I386_CORES")) {
		static const struct { const char *name; bool pae, walk; } cores[] = {
			{ "nopae.elf", false, false }, { "pae.elf", true, false },
			{ "walk.elf", false, true },
		};
		char p[PATH_MAX];

		for (size_t i = 0; i < ARRAY_SIZE(cores); i++) {
			build_memory(cores[i].pae);
			snprintf(p, sizeof(p), "%s/%s", getenv("MDF_I386_CORES"), cores[i].name);
			if (!write_core(p, cores[i].pae, cores[i].walk, false)) {
				fprintf(stderr, "cannot write %s\n", p);
				return 1;
			}
		}
		return 0;
	}
	if (realpath(argv[0], self) && (slash = strrchr(self, '/'))) {
		*slash = '\0';
		snprintf(mdf_bin, sizeof(mdf_bin), "%s/../../makedumpfile", self);
		have_bin = access(mdf_bin, X_OK) == 0;
	}
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mdf-i386.XXXXXX");
	if (!mkdtemp(tmpdir))
		have_bin = false;
	T_RUN(t_nopae);
	T_RUN(t_pae);
	T_RUN(t_walk);
	T_RUN(t_sparse);
	rc = t_done();
	if (getenv("MDF_KEEP_TMP"))
		return rc;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (tmpdir[0] && system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	return rc;
}
