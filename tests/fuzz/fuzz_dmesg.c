/*
 * tests/fuzz/fuzz_dmesg.c - fuzz the kernel-log walkers (dmesg.c) with
 * raw ring-buffer bytes.
 *
 * Input: byte 0 picks the walker (0 printk_ringbuffer, 1 printk_log,
 * 2 legacy log_buf, 3 detect from all three sets of symbols); byte 1 bit 0
 * asks for --partial-dmesg, bit 1 makes clear_seq a plain u64 (5.10 -
 * 5.12) instead of a latched_seq, bit 2 reads the ring as a big-endian
 * kernel's (s390x).  The rest is kernel memory from BASE on;
 * reads outside it fail, as reads of pages not in a dump do.  The symbols
 * and struct layouts are fixed (the 6.1 x86_64 VMCOREINFO values for the
 * ringbuffer, a 16-byte printk_log header), so every pointer, index,
 * count and length the walkers follow comes from the fuzzed bytes.
 *
 * Checked besides memory safety: the text of the record formats holds
 * only printable bytes, tabs, CR/LF/VT/FF (everything else is \xNN), and
 * every record ends with a newline.
 *
 * Seed corpus tests/fuzz/corpus/dmesg/: made by a Python script that lays
 * out the same rings as tests/unit/test_dmesg.c at the addresses below:
 * prb-basic (wrapping block, stale/reserved/data-less descriptors,
 * truncated text), prb-partial (latched clear_seq), prb-partial-u64,
 * prb-bad-count-bits, prb-head-far, log-basic (wrap marker),
 * log-partial (clear_idx), log-short-record, legacy-wrapped, detect;
 * prb-unreadable-head is a libFuzzer find (a record whose text is not in
 * the dump used to leave a stale error status behind).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmesg.h"
#include "kernel/vmcoreinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0xffffffff81000000ULL

/* printk_ringbuffer symbols (inside the image) */
#define PRB_SYM (BASE + 0x00)
#define CLEAR_SYM (BASE + 0x70)
/* printk_log / legacy symbols */
#define LOG_SYM (BASE + 0x08)
#define LOG_LEN_SYM (BASE + 0x90)
#define FIRST_SYM (BASE + 0x94)
#define NEXT_SYM (BASE + 0x98)
#define CLEAR_IDX_SYM (BASE + 0x9c)
#define LOG_END_SYM (BASE + 0xa0)

struct image {
	const unsigned char *p;
	size_t len;
};

struct sink {
	unsigned char last;
	int records_fmt;   /* text must be escaped */
};

static enum mdf_status img_read(void *arg, uint64_t va, void *buf, size_t len,
				struct mdf_err *err)
{
	const struct image *im = arg;

	if (va < BASE || va - BASE > im->len || len > im->len - (va - BASE))
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not in the dump",
				   (unsigned long long)va);
	memcpy(buf, im->p + (va - BASE), len);
	return MDF_OK;
}

static enum mdf_status sink_write(void *arg, const void *buf, size_t len,
				  struct mdf_err *err)
{
	struct sink *s = arg;
	const unsigned char *b = buf;

	(void)err;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = b[i];

		if (s->records_fmt && !((c >= 0x20 && c <= 0x7e) ||
					(c >= '\t' && c <= '\r')))
			abort();
	}
	if (len)
		s->last = b[len - 1];
	return MDF_OK;
}

#define SET(field, val) do { (field).v = (val); (field).set = true; } while (0)

static void lockless_kinfo(struct kinfo *ki, bool latched)
{
	SET(ki->sym.prb, PRB_SYM);
	SET(ki->sym.clear_seq, CLEAR_SYM);
	SET(ki->off.printk_ringbuffer_desc_ring, 0);
	SET(ki->off.printk_ringbuffer_text_data_ring, 48);
	SET(ki->off.prb_desc_ring_count_bits, 0);
	SET(ki->off.prb_desc_ring_descs, 8);
	SET(ki->off.prb_desc_ring_infos, 16);
	SET(ki->off.prb_desc_ring_head_id, 24);
	SET(ki->off.prb_desc_ring_tail_id, 32);
	SET(ki->size.prb_desc, 24);
	SET(ki->off.prb_desc_state_var, 0);
	SET(ki->off.prb_desc_text_blk_lpos, 8);
	SET(ki->off.prb_data_blk_lpos_begin, 0);
	SET(ki->off.prb_data_blk_lpos_next, 8);
	SET(ki->size.printk_info, 88);
	SET(ki->off.printk_info_seq, 0);
	SET(ki->off.printk_info_ts_nsec, 8);
	SET(ki->off.printk_info_text_len, 16);
	SET(ki->off.prb_data_ring_size_bits, 0);
	SET(ki->off.prb_data_ring_data, 8);
	SET(ki->size.atomic_long_t, 8);
	SET(ki->off.atomic_long_t_counter, 0);
	if (latched) {
		SET(ki->size.latched_seq, 24);
		SET(ki->off.latched_seq_val, 8);
	}
}

static void log_kinfo(struct kinfo *ki)
{
	SET(ki->sym.log_buf, LOG_SYM);
	SET(ki->sym.log_buf_len, LOG_LEN_SYM);
	SET(ki->sym.log_first_idx, FIRST_SYM);
	SET(ki->sym.log_next_idx, NEXT_SYM);
	SET(ki->sym.clear_idx, CLEAR_IDX_SYM);
	SET(ki->size.printk_log, 16);
	SET(ki->off.printk_log_ts_nsec, 0);
	SET(ki->off.printk_log_len, 8);
	SET(ki->off.printk_log_text_len, 10);
}

static void legacy_kinfo(struct kinfo *ki)
{
	SET(ki->sym.log_buf, LOG_SYM);
	SET(ki->sym.log_buf_len, LOG_LEN_SYM);
	SET(ki->sym.log_end, LOG_END_SYM);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kinfo ki;
	struct image im;
	struct sink s = { 0 };
	struct dmesg_mem mem = { .read = img_read, .arg = &im };
	struct dmesg_out *out;
	struct dmesg_stats stats;
	struct mdf_err err;
	unsigned char *copy;
	bool partial, latched;
	enum mdf_status st = MDF_OK;
	unsigned which;

	if (size < 2)
		return 0;
	which = data[0] & 3;
	partial = data[1] & 1;
	latched = !(data[1] & 2);
	mem.big_endian = (data[1] & 4) != 0;  /* a big-endian kernel's ring */
	/* An exact-size copy, so a read past the end trips ASan. */
	im.len = size - 2;
	copy = malloc(im.len ? im.len : 1);
	out = calloc(1, sizeof(*out));
	if (!copy || !out) {
		free(copy);
		free(out);
		return 0;
	}
	memcpy(copy, data + 2, im.len);
	im.p = copy;
	out->write = sink_write;
	out->arg = &s;
	s.records_fmt = which != 2;
	kinfo_init(&ki);
	mdf_err_clear(&err);
	switch (which) {
	case 0:
		lockless_kinfo(&ki, latched);
		st = dmesg_lockless(&ki, &mem, partial, out, &stats, &err);
		break;
	case 1:
		log_kinfo(&ki);
		st = dmesg_printk_log(&ki, &mem, partial, out, &stats, &err);
		break;
	case 2:
		legacy_kinfo(&ki);
		st = dmesg_legacy(&ki, &mem, out, &stats, &err);
		break;
	default:
		lockless_kinfo(&ki, latched);
		log_kinfo(&ki);
		legacy_kinfo(&ki);
		st = dmesg_extract(&ki, &mem, partial, out, &stats, &err);
		s.records_fmt = 1;
		break;
	}
	if (st == MDF_OK && s.records_fmt && out->total && s.last != '\n')
		abort();
	if (st != MDF_OK && err.msg[0] == '\0')
		abort();
	free(out);
	free(copy);
	return 0;
}
