/*
 * arch/arch.c - choose the architecture by ELF machine, supply defaults for
 * the ops an architecture leaves out, and the fast path shared by all.
 */
#include "arch/arch.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Every supported architecture, compiled in whatever the host. */
static const struct arch_ops *const arch_table[] = {
	&arch_x86_64_ops,
	&arch_arm64_ops,
	&arch_riscv64_ops,
	&arch_ppc64_ops,
	&arch_s390x_ops,
	&arch_x86_ops,
	&arch_arm_ops,
	&arch_loongarch64_ops,
	&arch_mips64_ops,
};

/* Names for the error message about an unsupported machine (char arrays,
 * not pointers, so the table needs no relocation and stays in .rodata). */
static const struct {
	uint16_t e_machine;
	char name[14];
} arch_machine_names[] = {
	{ EM_386, "EM_386" },         { EM_MIPS, "EM_MIPS" },
	{ EM_PPC, "EM_PPC" },         { EM_PPC64, "EM_PPC64" },
	{ EM_S390, "EM_S390" },       { EM_ARM, "EM_ARM" },
	{ EM_SPARCV9, "EM_SPARCV9" }, { EM_IA_64, "EM_IA_64" },
	{ EM_X86_64, "EM_X86_64" },   { EM_AARCH64, "EM_AARCH64" },
	{ EM_RISCV, "EM_RISCV" },     { EM_LOONGARCH, "EM_LOONGARCH" },
};

static const char *arch_machine_name(uint16_t e_machine)
{
	for (size_t i = 0; i < ARRAY_SIZE(arch_machine_names); i++)
		if (arch_machine_names[i].e_machine == e_machine)
			return arch_machine_names[i].name;
	return "EM_?";
}

const struct arch_ops *arch_ops_find(uint16_t e_machine)
{
	for (size_t i = 0; i < ARRAY_SIZE(arch_table); i++)
		if (arch_table[i]->e_machine == e_machine)
			return arch_table[i];
	return NULL;
}

unsigned arch_word_size(uint16_t e_machine)
{
	const struct arch_ops *ops = arch_ops_find(e_machine);

	return ops && ops->word_size ? ops->word_size : 8;
}

uint16_t arch_machine_from_uts(const char *uts_machine)
{
	/* 32-bit x86 says i386 to i686, as the kernel's boot CPU is */
	if (uts_machine[0] == 'i' && uts_machine[1] >= '3' && uts_machine[1] <= '6' &&
	    strcmp(uts_machine + 2, "86") == 0)
		return EM_386;
	/* 32-bit arm: "armv" and the architecture (armv7l, armv6l), l or b
	 * for the byte order */
	if (strncmp(uts_machine, "armv", 4) == 0)
		return EM_ARM;
	for (size_t i = 0; i < ARRAY_SIZE(arch_table); i++)
		if (strcmp(arch_table[i]->uts_machine, uts_machine) == 0 ||
		    (arch_table[i]->uts_machine_be &&
		     strcmp(arch_table[i]->uts_machine_be, uts_machine) == 0))
			return arch_table[i]->e_machine;
	return 0;
}

/* Default init: only the page size is known. */
static enum mdf_status arch_default_init(struct arch_state *st,
					 const struct kinfo *ki,
					 struct mdf_err *err)
{
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 4096;

	if (ps == 0 || (ps & (ps - 1)) != 0)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu is not a power of two",
				   (unsigned long long)ps);
	st->page_size = ps;
	st->page_shift = (unsigned)__builtin_ctzll(ps);
	return MDF_OK;
}

enum mdf_status arch_init(struct arch_state *st, uint16_t e_machine,
			  const struct kinfo *ki,
			  const struct arch_seg_hint *segs, size_t nsegs,
			  struct mdf_err *err)
{
	const struct arch_ops *ops = arch_ops_find(e_machine);
	enum mdf_status s;

	memset(st, 0, sizeof(*st));
	if (!ops)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "architecture %s (%u) is not supported",
				   arch_machine_name(e_machine), (unsigned)e_machine);
	st->ops = ops;
	st->e_machine = e_machine;
	st->word_size = ops->word_size ? ops->word_size : 8;
	st->big_endian = ki->big_endian;
	if (ops->init)
		s = ops->init(st, ki, segs, nsegs, err);
	else
		s = arch_default_init(st, ki, err);
	if (s != MDF_OK)
		return mdf_err_push(err, "%s", ops->name);
	return MDF_OK;
}

enum mdf_status arch_init_mem(struct arch_state *st, arch_read_pte_fn rd,
			      void *arg, struct mdf_err *err)
{
	if (!st->ops || !st->ops->init_mem)
		return MDF_OK;
	if (st->ops->init_mem(st, rd, arg, err) != MDF_OK)
		return mdf_err_push(err, "%s", st->ops->name);
	return MDF_OK;
}

void arch_release(struct arch_state *st)
{
	free(st->ppc64_vmemmap.blocks);
	st->ppc64_vmemmap.blocks = NULL;
	st->ppc64_vmemmap.nblocks = 0;
	st->ppc64_vmemmap.have_blocks = false;
}

enum mdf_status arch_page_size_4k(struct arch_state *st, const struct kinfo *ki,
				  struct mdf_err *err)
{
	uint64_t ps = ki->page_size.set ? ki->page_size.v : 4096;

	if (ps != 4096)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "PAGESIZE=%llu in VMCOREINFO, expected 4096",
				   (unsigned long long)ps);
	st->page_size = 4096;
	st->page_shift = 12;
	return MDF_OK;
}

enum mdf_status arch_physmem_bits(struct arch_state *st, const struct kinfo *ki,
				  unsigned dflt, struct mdf_err *err)
{
	int64_t b = ki->num.MAX_PHYSMEM_BITS.v;

	st->max_physmem_bits = dflt;
	if (!ki->num.MAX_PHYSMEM_BITS.set)
		return MDF_OK;
	if (b < 32 || b > MDF_MAX(52, dflt))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "NUMBER(MAX_PHYSMEM_BITS)=%lld out of range 32..%u",
				   (long long)b, MDF_MAX(52, dflt));
	st->max_physmem_bits = (unsigned)b;
	return MDF_OK;
}

void arch_linear_hint(struct arch_linear_hints *lh, const struct arch_seg_hint *h)
{
	uint64_t delta = h->vaddr - h->paddr;

	if (!lh->have) {
		lh->delta = delta;
		lh->have = true;
	} else if (delta != lh->delta) {
		lh->conflict = true;
	}
	lh->ram_start = MDF_MIN(lh->ram_start, h->paddr);
	lh->ram_end = MDF_MAX(lh->ram_end, h->paddr + h->size);
}

void arch_text_hint(struct arch_state *st, const struct arch_seg_hint *h)
{
	if (st->text.valid)
		return;
	st->text.valid = true;
	st->text.vaddr = h->vaddr;
	st->text.size = h->size;
	st->text.paddr = h->paddr;
}

const char *arch_level_name(unsigned levels, unsigned l)
{
	static const char names[][4] = { "PTE", "PMD", "PUD", "P4D" };

	return l + 1 == levels ? "PGD" : names[l];
}

enum mdf_status arch_walk_read(struct arch_walk *walk, const char *level,
			       uint64_t entry_paddr, uint64_t vaddr,
			       arch_read_pte_fn rd, void *arg, uint64_t *entry_ret,
			       struct mdf_err *err)
{
	return arch_walk_read_n(walk, level, entry_paddr, 8, vaddr, rd, arg, entry_ret, err);
}

enum mdf_status arch_walk_read_n(struct arch_walk *walk, const char *level,
				 uint64_t entry_paddr, unsigned size, uint64_t vaddr,
				 arch_read_pte_fn rd, void *arg, uint64_t *entry_ret,
				 struct mdf_err *err)
{
	struct arch_walk_step *step;

	if (walk->nsteps >= ARCH_WALK_MAX_STEPS)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "virtual address 0x%llx: more than %u page-table levels",
				   (unsigned long long)vaddr, ARCH_WALK_MAX_STEPS);
	if (rd(arg, entry_paddr, size, entry_ret, err) != MDF_OK)
		return mdf_err_push(err, "virtual address 0x%llx: %s entry at paddr 0x%llx",
				    (unsigned long long)vaddr, level,
				    (unsigned long long)entry_paddr);
	step = &walk->step[walk->nsteps++];
	step->level = level;
	step->entry_paddr = entry_paddr;
	step->entry = *entry_ret;
	return MDF_OK;
}

/* va - w->vaddr < w->size also rejects va below the window (wrap-around). */
static bool arch_window_lookup(const struct arch_window *w, uint64_t va,
			       uint64_t *paddr_ret)
{
	if (!w->valid || va - w->vaddr >= w->size)
		return false;
	*paddr_ret = va - w->vaddr + w->paddr;
	return true;
}

bool arch_kvtop_fast(const struct arch_state *st, uint64_t vaddr,
		     uint64_t *paddr_ret)
{
	return arch_window_lookup(&st->text, vaddr, paddr_ret) ||
	       arch_window_lookup(&st->direct, vaddr, paddr_ret);
}

bool arch_walk_maps_to(const struct arch_state *st, uint64_t vaddr, uint64_t want,
		       arch_read_pte_fn rd, void *arg)
{
	struct arch_walk w;
	struct mdf_err e;

	mdf_err_clear(&e);
	return arch_walk(st, vaddr, rd, arg, &w, &e) == MDF_OK && w.paddr == want;
}

enum mdf_status arch_walk(const struct arch_state *st, uint64_t vaddr,
			  arch_read_pte_fn rd, void *arg,
			  struct arch_walk *walk, struct mdf_err *err)
{
	memset(walk, 0, sizeof(*walk));
	if (!st->ops)
		return mdf_err_set(err, MDF_ERR_INTERNAL,
				   "arch: translation before arch_init");
	if (!st->ops->walk)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "%s: page-table walk is not implemented (virtual address 0x%llx)",
				   st->ops->name, (unsigned long long)vaddr);
	if (st->ops->walk(st, vaddr, rd, arg, walk, err) != MDF_OK)
		return mdf_err_push(err, "%s", st->ops->name);
	return MDF_OK;
}

/*
 * -e where the ops have no walk of their own (every architecture but
 * x86_64, whose op walks it as upstream does): the vmemmap translated
 * mapping by mapping (arch_walk(): each leaf's size), its physically
 * contiguous stretches made groups.  A group claims only the pfns whose
 * struct pages lie wholly inside it (rep_end the last of them, inside):
 * a run of excluded memory that crosses two groups frees nothing.
 */
/* One group for the stretch of the vmemmap [run_off, end) at run_pa. */
static enum mdf_status walked_group(struct arch_vmemmap_group **g, size_t *n, size_t *cap,
				    uint64_t run_off, uint64_t end, uint64_t run_pa,
				    uint64_t psize, uint64_t ps, struct mdf_err *err)
{
	uint64_t first = div_round_up(run_off, psize), last_end = end / psize;

	if (last_end <= first)
		return MDF_OK;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct arch_vmemmap_group *ng = realloc(*g, c * sizeof(**g));

		if (!ng)
			return mdf_err_set(err, MDF_ERR_NOMEM, "-e: out of memory");
		*g = ng;
		*cap = c;
	}
	(*g)[(*n)++] = (struct arch_vmemmap_group){
		.vmap_pfn_start = (run_pa + (first * psize - run_off)) / ps,
		.vmap_pfn_end = (run_pa + (end - run_off) - 1) / ps,
		.rep_start = first, .rep_end = last_end - 1,
	};
	return MDF_OK;
}

static enum mdf_status vmemmap_groups_walked(const struct arch_state *st, uint64_t vstart,
					     uint64_t max_pfn, uint64_t psize,
					     arch_read_pte_fn rd, void *arg,
					     struct arch_vmemmap_group **ret, size_t *nret,
					     struct mdf_err *err)
{
	const uint64_t ps = st->page_size ? st->page_size : 4096;
	uint64_t end_off, off = 0, run_off = 0, run_pa = 0, next_pa = 0;
	struct arch_vmemmap_group *g = NULL;
	size_t n = 0, cap = 0;
	bool in_run = false;
	enum mdf_status s = MDF_OK;

	if (!psize || max_pfn > UINT64_MAX / psize)
		return mdf_err_set(err, MDF_ERR_NODATA, "-e: no SIZE(page)");
	/* a page of struct pages holds whole ones: the runs' pages line up */
	if (ps % psize)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "-e: SIZE(page) %llu does not divide the page size %llu",
				   (unsigned long long)psize, (unsigned long long)ps);
	end_off = align_up(max_pfn * psize, ps);
	while (s == MDF_OK && off < end_off) {
		struct arch_walk w;
		struct mdf_err e;
		uint64_t leaf;

		mdf_err_clear(&e);
		if (arch_walk(st, vstart + off, rd, arg, &w, &e) != MDF_OK) {
			if (e.status != MDF_ERR_NODATA) {
				*err = e;
				s = mdf_err_push(err, "-e: the vmemmap at 0x%llx",
						 (unsigned long long)(vstart + off));
				break;
			}
			/* a hole ends the run */
			if (in_run)
				s = walked_group(&g, &n, &cap, run_off, off, run_pa, psize, ps, err);
			in_run = false;
			off += ps;
			continue;
		}
		if (in_run && w.paddr != next_pa) {
			s = walked_group(&g, &n, &cap, run_off, off, run_pa, psize, ps, err);
			in_run = false;
		}
		if (!in_run) {
			in_run = true;
			run_off = off;
			run_pa = w.paddr;
		}
		/* the rest of this leaf, from here (a walk that does not say
		 * its leaf's size: a page), within the array */
		leaf = w.map_size >= ps ? w.map_size : ps;
		leaf = MDF_MIN(leaf - ((vstart + off) & (leaf - 1)), end_off - off);
		next_pa = w.paddr + leaf;
		off += leaf;
	}
	if (s == MDF_OK && in_run)
		s = walked_group(&g, &n, &cap, run_off, off, run_pa, psize, ps, err);
	if (s != MDF_OK) {
		free(g);
		return s;
	}
	*ret = g;
	*nret = n;
	return MDF_OK;
}

struct leaves {
	const struct arch_state *st;
	struct arch_user_layout ul;
	arch_read_pte_fn rd;
	void *arg;
	arch_leaf_fn cb;
	void *cbarg;
	unsigned tables;
	bool stopped;
};

/* The table of level @l at @table, mapping from @base. */
static enum mdf_status leaves_table(struct leaves *lv, uint64_t table, unsigned l, uint64_t base,
				    struct mdf_err *err)
{
	uint64_t size = 1ULL << (lv->ul.page_shift + l * lv->ul.level_bits);
	unsigned esize = lv->ul.entry_size ? lv->ul.entry_size : 8;

	if (++lv->tables > ARCH_LEAVES_MAX_TABLES)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "more than %u page-table pages under one root: a damaged tree",
				   ARCH_LEAVES_MAX_TABLES);
	if (lv->cb(lv->cbarg, 0, table, 0)) {
		lv->stopped = true;
		return MDF_OK;
	}
	unsigned bits = l + 1 == lv->ul.levels && lv->ul.top_bits ? lv->ul.top_bits
								  : lv->ul.level_bits;

	for (uint64_t i = 0; i < (1ULL << bits) && !lv->stopped; i++) {
		uint64_t va = base + i * size, e, pa = 0;
		enum mdf_status s;

		if (va >= lv->ul.end)
			break;
		s = lv->rd(lv->arg, table + i * esize, esize, &e, err);
		if (s == MDF_ERR_NODATA) { /* a table page the dump lacks */
			mdf_err_clear(err);
			continue;
		}
		if (s != MDF_OK)
			return mdf_err_push(err, "%s entry at paddr 0x%llx",
					    arch_level_name(lv->ul.levels, l),
					    (unsigned long long)(table + i * esize));
		switch (lv->st->ops->user_entry(lv->st, l, e, va, &pa)) {
		case ARCH_ENTRY_NONE:
			break;
		case ARCH_ENTRY_LEAF:
			if (lv->cb(lv->cbarg, va, pa & ~(size - 1), size))
				lv->stopped = true;
			break;
		case ARCH_ENTRY_TABLE:
			if (l == 0)
				break; /* no level below the last */
			s = leaves_table(lv, pa, l - 1, va, err);
			if (s != MDF_OK)
				return s;
			break;
		}
	}
	return MDF_OK;
}

bool arch_table_mode(const struct arch_state *st, arch_read_pte_fn rd, void *arg, uint64_t pa,
		     unsigned n, bool (*is_table)(const struct arch_state *st, uint64_t e),
		     uint64_t *mode, unsigned *count, bool *all_tables)
{
	uint64_t cand = 0, v;
	unsigned votes = 0, same = 0;
	struct mdf_err e;

	*all_tables = true;
	/* Boyer-Moore majority vote, then a count */
	for (unsigned i = 0; i < n; i++) {
		mdf_err_clear(&e);
		if (rd(arg, pa + 8 * i, 8, &v, &e) != MDF_OK)
			return false;
		if (!is_table(st, v))
			*all_tables = false;
		if (!votes)
			cand = v;
		if (v == cand)
			votes++;
		else
			votes--;
	}
	for (unsigned i = 0; i < n; i++) {
		mdf_err_clear(&e);
		if (rd(arg, pa + 8 * i, 8, &v, &e) != MDF_OK)
			return false;
		same += v == cand;
	}
	*mode = cand;
	*count = same;
	return true;
}

enum mdf_status arch_user_leaves(const struct arch_state *st, uint64_t root,
				 arch_read_pte_fn rd, void *arg, arch_leaf_fn cb, void *cbarg,
				 struct mdf_err *err)
{
	struct leaves lv = { .st = st, .rd = rd, .arg = arg, .cb = cb, .cbarg = cbarg };

	if (!st->ops || !st->ops->user_layout || !st->ops->user_entry)
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "the user page tables of %s are not walked yet",
				   st->ops ? st->ops->name : "this architecture");
	st->ops->user_layout(st, &lv.ul);
	if (lv.ul.why_not)
		return mdf_err_set(err, MDF_ERR_NOTSUPP, "the user page tables of %s: %s",
				   st->ops->name, lv.ul.why_not);
	if (!lv.ul.levels || lv.ul.levels > ARCH_WALK_MAX_STEPS || !lv.ul.level_bits ||
	    lv.ul.page_shift + (lv.ul.levels - 1) * lv.ul.level_bits +
			    (lv.ul.top_bits ? lv.ul.top_bits : lv.ul.level_bits) > 64)
		return mdf_err_set(err, MDF_ERR_INTERNAL, "%s: %u page-table levels",
				   st->ops->name, lv.ul.levels);
	if (leaves_table(&lv, root & lv.ul.root_mask, lv.ul.levels - 1, 0, err) != MDF_OK)
		return mdf_err_push(err, "%s", st->ops->name);
	return MDF_OK;
}

enum mdf_status arch_vmemmap_groups(const struct arch_state *st, uint64_t vmemmap_start,
				    uint64_t max_pfn, uint64_t page_struct_size,
				    arch_read_pte_fn rd, void *arg,
				    struct arch_vmemmap_group **ret, size_t *nret,
				    struct mdf_err *err)
{
	enum mdf_status s;

	*ret = NULL;
	*nret = 0;
	if (!st->ops || (!st->ops->vmemmap_groups && !st->ops->walk))
		return mdf_err_set(err, MDF_ERR_NOTSUPP,
				   "-e is not supported on %s: its vmemmap is not walked",
				   st->ops ? st->ops->name : "this architecture");
	s = st->ops->vmemmap_groups ?
		st->ops->vmemmap_groups(st, vmemmap_start, max_pfn, page_struct_size, rd, arg,
					ret, nret, err) :
		vmemmap_groups_walked(st, vmemmap_start, max_pfn, page_struct_size, rd, arg,
				      ret, nret, err);
	if (s != MDF_OK) {
		free(*ret);
		*ret = NULL;
		*nret = 0;
		return mdf_err_push(err, "%s", st->ops->name);
	}
	return MDF_OK;
}

enum mdf_status arch_vtop(const struct arch_state *st, uint64_t vaddr,
			  arch_read_pte_fn rd, void *arg, uint64_t *paddr_ret,
			  struct mdf_err *err)
{
	struct arch_walk walk;
	enum mdf_status s;

	if (arch_kvtop_fast(st, vaddr, paddr_ret))
		return MDF_OK;
	s = arch_walk(st, vaddr, rd, arg, &walk, err);
	if (s != MDF_OK)
		return s;
	*paddr_ret = walk.paddr;
	return MDF_OK;
}

void arch_debuginfo_defaults(uint16_t e_machine, struct kinfo *ki, uint64_t text,
			     const struct arch_seg_hint *segs, size_t nsegs)
{
	const struct arch_ops *ops = arch_ops_find(e_machine);

	if (ops && ops->debuginfo_defaults)
		ops->debuginfo_defaults(ki, text, segs, nsegs);
}
