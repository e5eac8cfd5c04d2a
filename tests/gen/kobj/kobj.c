/*
 * tests/gen/kobj/kobj.c - the synthetic kernel object's variables (kobj.h).
 * KOBJ_RELEASE is the release in init_uts_ns (another one makes the
 * "wrong vmlinux" object).
 */
#include "kobj.h"

#ifndef KOBJ_RELEASE
#define KOBJ_RELEASE "6.1.0-57-amd64"
#endif

struct uts_namespace init_uts_ns = {
	.name = { .sysname = "Linux", .nodename = "(none)", .release = KOBJ_RELEASE,
		  .version = "#1 SMP", .machine = "x86_64" },
};
struct mem_section **mem_section;
struct pglist_data *node_data[1024];
nodemask_t node_states[NR_NODE_STATES];
struct list_head vmap_area_list;
unsigned long init_top_pgt[512] __attribute__((aligned(4096)));
pud_t kobj_pud;
struct page kobj_page;
struct vmap_area kobj_va;
enum pageflags kobj_pf;
enum compound_dtor_id kobj_dtor;
enum zone_stat_item kobj_zsi;
#ifndef KOBJ_NO_PAGETYPE
enum pagetype kobj_pt;
#endif
unsigned long __per_cpu_offset[KOBJ_NR_CPUS];
struct cpumask __cpu_online_mask;
struct elf_prstatus kobj_prstatus;

void _stext(void);
void _stext(void)
{
}

int main(void)
{
	_stext();
	return init_uts_ns.name.release[0] == 0;
}
