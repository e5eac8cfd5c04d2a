/*
 * tests/ext/keep_drop.c - a page hook for tests/e2e/extension.sh: keeps
 * every page whose pfn is a multiple of 97 and drops every other multiple
 * of 89, and counts the pages it was asked about (a multiple of 1, so
 * --num-threads runs it at once from several threads).
 */
#include <stdatomic.h>
#include <stdio.h>

#include <makedumpfile/extension.h>

static atomic_ulong asked;
static const struct mdf_ext_host *host;

static int init(const struct mdf_ext_host *h, void **state)
{
	(void)state;
	host = h;
	h->message(h->ctx, "keeps pfn % 97 == 0, drops pfn % 89 == 0");
	return 0;
}

static enum mdf_ext_page page(void *state, uint64_t pfn, const void *struct_page)
{
	(void)state;
	(void)struct_page;
	atomic_fetch_add(&asked, 1);
	if (pfn % 97 == 0)
		return MDF_EXT_KEEP;
	return pfn % 89 == 0 ? MDF_EXT_DROP : MDF_EXT_UNDECIDED;
}

static void cleanup(void *state)
{
	char line[64];

	(void)state;
	snprintf(line, sizeof(line), "asked about %lu pages", (unsigned long)atomic_load(&asked));
	host->message(host->ctx, line);
}

const struct mdf_extension mdf_extension = {
	.abi = MDF_EXTENSION_ABI,
	.name = "keep_drop",
	.init = init,
	.page = page,
	.cleanup = cleanup,
};
