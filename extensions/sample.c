/*
 * extensions/sample.c - the smallest extension: it looks up what it needs
 * in the crashed kernel (a symbol, a struct's size, a member's offset and
 * size, whether a member exists) and says what it found; its page()
 * decides nothing, so the dump level decides every page.
 *
 *   cc -shared -fPIC -o sample.so sample.c
 *   makedumpfile --extension sample.so -l -d 31 VMCORE DUMPFILE
 */
#include <inttypes.h>
#include <stdio.h>

#include <makedumpfile/extension.h>

static int init(const struct mdf_ext_host *h, void **state)
{
	uint64_t init_task, size, off, msize;
	char line[160];

	(void)state;
	/* what every kernel has: without them, the extension does not run */
	if (h->symbol(h->ctx, "init_task", &init_task) != 0 ||
	    h->type_size(h->ctx, "task_struct", &size) != 0 ||
	    h->member(h->ctx, "task_struct", "mm", &off, &msize) != 0) {
		h->message(h->ctx, "no init_task or task_struct.mm in this kernel");
		return -1;
	}
	snprintf(line, sizeof(line), "init_task is at 0x%" PRIx64, init_task);
	h->message(h->ctx, line);
	snprintf(line, sizeof(line), "struct task_struct is %" PRIu64 " bytes", size);
	h->message(h->ctx, line);
	snprintf(line, sizeof(line), "task_struct.mm is at offset %" PRIu64 ", %" PRIu64 " bytes",
		 off, msize);
	h->message(h->ctx, line);
	/* what depends on the kernel's version: mm_struct's VMAs are a maple
	 * tree since 6.1, an rbtree before */
	if (h->member(h->ctx, "mm_struct", "mm_mt", NULL, NULL) == 0)
		h->message(h->ctx, "this kernel keeps its VMAs in a maple tree (mm_struct.mm_mt)");
	else if (h->member(h->ctx, "mm_struct", "mm_rb", NULL, NULL) == 0)
		h->message(h->ctx, "this kernel keeps its VMAs in an rbtree (mm_struct.mm_rb)");
	return 0;
}

static enum mdf_ext_page page(void *state, uint64_t pfn, const void *struct_page)
{
	(void)state;
	(void)pfn;
	(void)struct_page;
	return MDF_EXT_UNDECIDED;
}

const struct mdf_extension mdf_extension = {
	.abi = MDF_EXTENSION_ABI,
	.name = "sample",
	.init = init,
	.page = page,
};
