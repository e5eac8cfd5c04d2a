/*
 * dmesg.c - the kernel log out of a dump (--dump-dmesg).
 */
#include "dmesg.h"

#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "context.h"
#include "write/output.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

/* Limits on numbers read from the dump. */
#define RING_BITS_MAX 31               /* 2 GiB data ring, 2^31 descriptors */
#define LOG_BUF_MAX (1ULL << 31)       /* log_buf_len */
#define TEXT_MAX 65535                 /* text_len is a u16 */
#define STRUCT_MAX 65536               /* any SIZE() we index arrays with */

/* printk_ringbuffer descriptor state_var: the top two bits of an unsigned
 * long are the state, the rest is the id (kernel/printk/printk_ringbuffer.h,
 * DESC_SV_BITS = BITS_PER_LONG, DESC_FLAGS_SHIFT = DESC_SV_BITS - 2; 5.10):
 * bit 62 on 64-bit kernels, 30 on i386, where ids, lpos and state_var are
 * 4-byte longs and a data block starts with a 4-byte id. */
static unsigned sv_shift(unsigned word)
{
	return word * 8 - 2;
}
enum { DESC_RESERVED, DESC_COMMITTED, DESC_FINALIZED, DESC_REUSABLE };

const char *dmesg_format_name(enum dmesg_format f)
{
	switch (f) {
	case DMESG_FMT_LOCKLESS: return "printk_ringbuffer";
	case DMESG_FMT_PRINTK_LOG: return "printk_log";
	case DMESG_FMT_LEGACY: return "log_buf";
	}
	return "unknown";
}

/* ---- output ------------------------------------------------------ */

enum mdf_status dmesg_out_flush(struct dmesg_out *out, struct mdf_err *err)
{
	enum mdf_status st;

	if (!out->len)
		return MDF_OK;
	st = out->write(out->arg, out->buf, out->len, err);
	if (st != MDF_OK)
		return st;
	out->total += out->len;
	out->len = 0;
	return MDF_OK;
}

enum mdf_status dmesg_out_put(struct dmesg_out *out, const void *buf,
			      size_t len, struct mdf_err *err)
{
	const unsigned char *p = buf;

	while (len) {
		size_t n = MDF_MIN(len, sizeof(out->buf) - out->len);

		memcpy(out->buf + out->len, p, n);
		out->len += n;
		p += n;
		len -= n;
		if (out->len == sizeof(out->buf)) {
			enum mdf_status st = dmesg_out_flush(out, err);

			if (st != MDF_OK)
				return st;
		}
	}
	return MDF_OK;
}

/* isprint() || isspace() in the C locale, which is what makedumpfile
 * decides with (it never calls setlocale). */
static bool plain_byte(unsigned char c)
{
	return (c >= 0x20 && c <= 0x7e) || (c >= '\t' && c <= '\r');
}

enum mdf_status dmesg_emit_record(struct dmesg_out *out, uint64_t ts_nsec,
				  const unsigned char *text, size_t len,
				  struct mdf_err *err)
{
	static const char hex[] = "0123456789abcdef";
	char prefix[64];
	int plen;
	enum mdf_status st;

	plen = snprintf(prefix, sizeof(prefix), "[%5" PRIu64 ".%06" PRIu64 "] ",
			ts_nsec / 1000000000, ts_nsec % 1000000000 / 1000);
	if (plen < 0 || (size_t)plen >= sizeof(prefix))
		return mdf_err_set(err, MDF_ERR_INTERNAL, "dmesg: timestamp too long");
	st = dmesg_out_put(out, prefix, (size_t)plen, err);
	for (size_t i = 0; i < len && st == MDF_OK; i++) {
		unsigned char c = text[i];

		if (c == '\n') {
			/* a continuation line, indented under the text */
			char nl[sizeof(prefix) + 1];

			nl[0] = '\n';
			memset(nl + 1, ' ', (size_t)plen);
			st = dmesg_out_put(out, nl, (size_t)plen + 1, err);
		} else if (plain_byte(c)) {
			st = dmesg_out_put(out, &c, 1, err);
		} else {
			char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			st = dmesg_out_put(out, esc, sizeof(esc), err);
		}
	}
	if (st == MDF_OK)
		st = dmesg_out_put(out, "\n", 1, err);
	return st;
}

/* ---- reading ----------------------------------------------------- */

static enum mdf_status rd(const struct dmesg_mem *mem, uint64_t va, void *buf,
			  size_t len, struct mdf_err *err)
{
	return mem->read(mem->arg, va, buf, len, err);
}

static enum mdf_status rd_u64(const struct dmesg_mem *mem, uint64_t va,
			      uint64_t *v, struct mdf_err *err)
{
	unsigned char b[8];
	enum mdf_status st = rd(mem, va, b, sizeof(b), err);

	if (st == MDF_OK)
		*v = load_t64(b, mem->big_endian);
	return st;
}

/* An unsigned long or a pointer of the kernel (mem->word_size bytes). */
static unsigned mem_word(const struct dmesg_mem *mem)
{
	return mem->word_size == 4 ? 4 : 8;
}

static enum mdf_status rd_ulong(const struct dmesg_mem *mem, uint64_t va,
				uint64_t *v, struct mdf_err *err)
{
	unsigned char b[8];
	enum mdf_status st = rd(mem, va, b, mem_word(mem), err);

	if (st == MDF_OK)
		*v = load_tword(b, mem_word(mem), mem->big_endian);
	return st;
}

static enum mdf_status rd_u32(const struct dmesg_mem *mem, uint64_t va,
			      uint32_t *v, struct mdf_err *err)
{
	unsigned char b[4];
	enum mdf_status st = rd(mem, va, b, sizeof(b), err);

	if (st == MDF_OK)
		*v = load_t32(b, mem->big_endian);
	return st;
}

/* The VMCOREINFO keys each format needs (spelled as in the text; struct
 * kinfo holds them, vmcoreinfo_lookup() finds them by that name). */
static const char *const lockless_needs[] = {
	"SYMBOL(prb)",
	"OFFSET(printk_ringbuffer.desc_ring)",
	"OFFSET(printk_ringbuffer.text_data_ring)",
	"OFFSET(prb_desc_ring.count_bits)",
	"OFFSET(prb_desc_ring.descs)",
	"OFFSET(prb_desc_ring.infos)",
	"OFFSET(prb_desc_ring.head_id)",
	"OFFSET(prb_desc_ring.tail_id)",
	"SIZE(prb_desc)",
	"OFFSET(prb_desc.state_var)",
	"OFFSET(prb_desc.text_blk_lpos)",
	"OFFSET(prb_data_blk_lpos.begin)",
	"OFFSET(prb_data_blk_lpos.next)",
	"SIZE(printk_info)",
	"OFFSET(printk_info.seq)",
	"OFFSET(printk_info.ts_nsec)",
	"OFFSET(printk_info.text_len)",
	"OFFSET(prb_data_ring.size_bits)",
	"OFFSET(prb_data_ring.data)",
};

static const char *const printk_log_needs[] = {
	"SYMBOL(log_buf)",
	"SYMBOL(log_buf_len)",
	"SYMBOL(log_first_idx)",
	"SYMBOL(log_next_idx)",
	"SIZE(printk_log)",
	"OFFSET(printk_log.ts_nsec)",
	"OFFSET(printk_log.len)",
	"OFFSET(printk_log.text_len)",
};

/* Kernels 3.5-3.10 called the record struct `log`; 3.11 renamed it
 * struct printk_log, and VMCOREINFO's keys with it.  Same layout. */
static const char *const log_needs[] = {
	"SYMBOL(log_buf)",
	"SYMBOL(log_buf_len)",
	"SYMBOL(log_first_idx)",
	"SYMBOL(log_next_idx)",
	"SIZE(log)",
	"OFFSET(log.ts_nsec)",
	"OFFSET(log.len)",
	"OFFSET(log.text_len)",
};

_Static_assert(ARRAY_SIZE(log_needs) == ARRAY_SIZE(printk_log_needs),
	       "the two record struct names need the same keys");

static const char *const legacy_needs[] = {
	"SYMBOL(log_buf)",
	"SYMBOL(log_buf_len)",
	"SYMBOL(log_end)",
};

static enum mdf_status check_needs(const struct kinfo *ki, const char *what,
				   const char *const *keys, size_t count,
				   struct mdf_err *err)
{
	for (size_t i = 0; i < count; i++) {
		uint64_t v;

		if (vmcoreinfo_lookup(ki, keys[i], &v))
			continue;
		/* Absent because its line was bad: name that line. */
		if (strcmp(ki->ignored_key, keys[i]) == 0)
			return mdf_err_set(err, MDF_ERR_FORMAT, "%s: %s", what,
					   ki->ignored_msg);
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: VMCOREINFO has no %s", what, keys[i]);
	}
	return MDF_OK;
}

/* A value of the kinfo, 0 when VMCOREINFO does not give it. */
static uint64_t kv(struct kinfo_u64 f)
{
	return f.set ? f.v : 0;
}

/* A field of @width bytes at @off must lie inside a struct of @size. */
static enum mdf_status check_field(const char *what, const char *name,
				   uint64_t off, uint64_t width, uint64_t size,
				   struct mdf_err *err)
{
	if (off > size || width > size - off)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: VMCOREINFO: %s %" PRIu64 " + %" PRIu64
				   " is past the end of the struct (size %" PRIu64 ")",
				   what, name, off, width, size);
	return MDF_OK;
}

static void note_bad(struct dmesg_stats *stats, const char *fmt, ...)
	MDF_PRINTF(2, 3);

static void note_bad(struct dmesg_stats *stats, const char *fmt, ...)
{
	va_list ap;

	if (stats->bad++ == 0) {
		va_start(ap, fmt);
		vsnprintf(stats->problem, sizeof(stats->problem), fmt, ap);
		va_end(ap);
	}
}

/* A record whose text is not in the dump (also counted as bad). */
static void note_lost(struct dmesg_stats *stats, const char *fmt, ...)
	MDF_PRINTF(2, 3);

static void note_lost(struct dmesg_stats *stats, const char *fmt, ...)
{
	va_list ap;

	if (stats->unreadable++ == 0) {
		va_start(ap, fmt);
		vsnprintf(stats->lost, sizeof(stats->lost), fmt, ap);
		va_end(ap);
	}
}

enum mdf_status dmesg_detect(const struct kinfo *ki, enum dmesg_format *ret,
			     struct mdf_err *err)
{
	if (ki->sym.prb.set)
		*ret = DMESG_FMT_LOCKLESS;
	else if (ki->sym.log_first_idx.set)
		*ret = DMESG_FMT_PRINTK_LOG;
	else if (ki->sym.log_end.set)
		*ret = DMESG_FMT_LEGACY;
	else
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "VMCOREINFO describes no kernel log: it has none of "
				   "SYMBOL(prb), SYMBOL(log_first_idx), SYMBOL(log_end)");
	return MDF_OK;
}

/* ---- lockless printk_ringbuffer (5.10+) ------------------------------ */

struct prb {
	uint64_t descs, infos, data;     /* kernel addresses of the arrays */
	uint64_t count;                  /* descriptors: 1 << count_bits */
	unsigned size_bits;
	uint64_t size;                   /* data ring bytes */
	uint64_t head_id, tail_id;
	uint64_t desc_size, info_size;
	uint64_t sv_off, begin_off, next_off;  /* inside struct prb_desc */
	uint64_t seq_off, ts_off, len_off;     /* inside struct printk_info */
	unsigned word;                   /* unsigned long: 8, 4 on i386 */
	uint64_t id_mask;                /* state_var's id bits */
	unsigned sv_shift;               /* and where its state starts */
};

static enum mdf_status prb_setup(const struct kinfo *ki,
				 const struct dmesg_mem *mem, struct prb *r,
				 struct mdf_err *err)
{
	static const char what[] = "printk_ringbuffer";
	uint64_t counter = kv(ki->off.atomic_long_t_counter);
	uint64_t prb, dr, tr;
	uint32_t cbits, sbits;
	enum mdf_status st;

	st = check_needs(ki, what, lockless_needs, ARRAY_SIZE(lockless_needs), err);
	if (st != MDF_OK)
		return st;
	r->word = mem_word(mem);
	r->sv_shift = sv_shift(r->word);
	r->id_mask = (1ULL << r->sv_shift) - 1;
	if (ki->size.atomic_long_t.set && ki->size.atomic_long_t.v != r->word)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: SIZE(atomic_long_t)=%" PRIu64
				   " is not the kernel's long (%u bytes)",
				   what, ki->size.atomic_long_t.v, r->word);
	r->desc_size = ki->size.prb_desc.v;
	r->info_size = ki->size.printk_info.v;
	if (r->desc_size > STRUCT_MAX || r->info_size > STRUCT_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: VMCOREINFO: SIZE(prb_desc)=%" PRIu64
				   " or SIZE(printk_info)=%" PRIu64 " larger than %d",
				   what, r->desc_size, r->info_size, STRUCT_MAX);
	r->sv_off = ki->off.prb_desc_state_var.v + counter;
	r->begin_off = ki->off.prb_desc_text_blk_lpos.v + ki->off.prb_data_blk_lpos_begin.v;
	r->next_off = ki->off.prb_desc_text_blk_lpos.v + ki->off.prb_data_blk_lpos_next.v;
	r->seq_off = ki->off.printk_info_seq.v;
	r->ts_off = ki->off.printk_info_ts_nsec.v;
	r->len_off = ki->off.printk_info_text_len.v;
	st = check_field(what, "OFFSET(prb_desc.state_var)", r->sv_off, r->word, r->desc_size,
			 err);
	if (st == MDF_OK)
		st = check_field(what, "OFFSET(prb_data_blk_lpos.begin)", r->begin_off, r->word,
				 r->desc_size, err);
	if (st == MDF_OK)
		st = check_field(what, "OFFSET(prb_data_blk_lpos.next)", r->next_off, r->word,
				 r->desc_size, err);
	if (st == MDF_OK)
		st = check_field(what, "OFFSET(printk_info.seq)", r->seq_off, 8,
				 r->info_size, err);
	if (st == MDF_OK)
		st = check_field(what, "OFFSET(printk_info.ts_nsec)", r->ts_off, 8,
				 r->info_size, err);
	if (st == MDF_OK)
		st = check_field(what, "OFFSET(printk_info.text_len)", r->len_off, 2,
				 r->info_size, err);
	if (st != MDF_OK)
		return st;

	/* SYMBOL(prb) is the pointer variable "prb", not the ring itself. */
	st = rd_ulong(mem, ki->sym.prb.v, &prb, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: reading the prb pointer at 0x%" PRIx64,
				    what, ki->sym.prb.v);
	dr = prb + ki->off.printk_ringbuffer_desc_ring.v;
	tr = prb + ki->off.printk_ringbuffer_text_data_ring.v;
	st = rd_u32(mem, dr + ki->off.prb_desc_ring_count_bits.v, &cbits, err);
	if (st == MDF_OK)
		st = rd_ulong(mem, dr + ki->off.prb_desc_ring_descs.v, &r->descs, err);
	if (st == MDF_OK)
		st = rd_ulong(mem, dr + ki->off.prb_desc_ring_infos.v, &r->infos, err);
	if (st == MDF_OK)
		st = rd_ulong(mem, dr + ki->off.prb_desc_ring_head_id.v + counter,
			      &r->head_id, err);
	if (st == MDF_OK)
		st = rd_ulong(mem, dr + ki->off.prb_desc_ring_tail_id.v + counter,
			      &r->tail_id, err);
	if (st == MDF_OK)
		st = rd_u32(mem, tr + ki->off.prb_data_ring_size_bits.v, &sbits, err);
	if (st == MDF_OK)
		st = rd_ulong(mem, tr + ki->off.prb_data_ring_data.v, &r->data, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s at 0x%" PRIx64, what, prb);
	if (cbits > RING_BITS_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s at 0x%" PRIx64 ": desc_ring.count_bits %" PRIu32
				   " out of range (0-%d)", what, prb, cbits, RING_BITS_MAX);
	/* A data block holds at least its id (a long). */
	if (sbits < 3 || sbits > RING_BITS_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s at 0x%" PRIx64 ": text_data_ring.size_bits %" PRIu32
				   " out of range (3-%d)", what, prb, sbits, RING_BITS_MAX);
	r->count = 1ULL << cbits;
	r->size_bits = sbits;
	r->size = 1ULL << sbits;
	r->head_id &= r->id_mask;
	r->tail_id &= r->id_mask;
	if (((r->head_id - r->tail_id) & r->id_mask) >= r->count)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s at 0x%" PRIx64 ": tail_id 0x%" PRIx64 " to head_id 0x%"
				   PRIx64 " spans more than the ring's %" PRIu64 " descriptors",
				   what, prb, r->tail_id, r->head_id, r->count);
	return MDF_OK;
}

/* clear_seq: a plain u64 in 5.10 - 5.12, a struct latched_seq from 5.13
 * on, whose val[latch sequence & 1] is the current value. */
static enum mdf_status prb_clear_seq(const struct kinfo *ki,
				     const struct dmesg_mem *mem, uint64_t *seq,
				     struct mdf_err *err)
{
	uint64_t va = ki->sym.clear_seq.v;
	enum mdf_status st;

	if (ki->size.latched_seq.set) {
		uint32_t latch;

		if (!ki->off.latched_seq_val.set)
			return mdf_err_set(err, MDF_ERR_NODATA,
					   "clear_seq: VMCOREINFO has SIZE(latched_seq) but no OFFSET(latched_seq.val)");
		st = rd_u32(mem, va, &latch, err);
		if (st != MDF_OK)
			return mdf_err_push(err, "clear_seq at 0x%" PRIx64, va);
		va += ki->off.latched_seq_val.v + 8 * (latch & 1);
	}
	st = rd_u64(mem, va, seq, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "clear_seq at 0x%" PRIx64, va);
	return MDF_OK;
}

/*
 * Where the text of a record is in the data ring, from its lpos pair
 * (get_data() in kernel/printk/printk_ringbuffer.c).  false: a data-less
 * record (no text, as makedumpfile skips it) when *bad is false, a
 * malformed pair when *bad is true.
 */
static bool prb_block(const struct prb *r, uint64_t begin, uint64_t next,
		      uint64_t *off, uint64_t *len, bool *bad)
{
	*bad = false;
	if ((begin & 1) || begin == next)
		return false;
	if (begin >> r->size_bits == next >> r->size_bits && begin < next) {
		*off = begin & (r->size - 1);
		*len = next - begin;
	} else if ((begin + r->size) >> r->size_bits == next >> r->size_bits) {
		/* wraps: the block was written at the start of the ring */
		*off = 0;
		*len = next & (r->size - 1);
	} else {
		*bad = true;
		return false;
	}
	/* blocks are aligned to, and start with an id of, a long */
	if ((begin & (r->word - 1)) || (next & (r->word - 1)) || *len < r->word) {
		*bad = true;
		return false;
	}
	return true;
}

enum mdf_status dmesg_lockless(const struct kinfo *ki, const struct dmesg_mem *mem,
			       bool partial, struct dmesg_out *out,
			       struct dmesg_stats *stats, struct mdf_err *err)
{
	struct prb r;
	uint64_t clear_seq = 0, n;
	unsigned char *text = NULL;
	enum mdf_status st;

	memset(stats, 0, sizeof(*stats));
	stats->format = DMESG_FMT_LOCKLESS;
	st = prb_setup(ki, mem, &r, err);
	if (st != MDF_OK)
		return st;
	if (partial && ki->sym.clear_seq.set) {
		st = prb_clear_seq(ki, mem, &clear_seq, err);
		if (st != MDF_OK)
			return st;
	}
	text = malloc(TEXT_MAX);
	if (!text)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");
	/* tail_id .. head_id inclusive: at most r.count records (checked). */
	n = ((r.head_id - r.tail_id) & r.id_mask) + 1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id = (r.tail_id + i) & r.id_mask;
		uint64_t slot = id & (r.count - 1);
		uint64_t dva = r.descs + slot * r.desc_size;
		uint64_t iva = r.infos + slot * r.info_size;
		uint64_t sv, begin, next, seq, ts, off, blen;
		unsigned char l2[2];
		uint32_t state;
		size_t tlen;
		bool bad;

		st = rd_ulong(mem, dva + r.sv_off, &sv, err);
		if (st == MDF_OK)
			st = rd_ulong(mem, dva + r.begin_off, &begin, err);
		if (st == MDF_OK)
			st = rd_ulong(mem, dva + r.next_off, &next, err);
		if (st != MDF_OK) {
			mdf_err_push(err, "printk_ringbuffer: descriptor %" PRIu64
				     " at 0x%" PRIx64, slot, dva);
			break;
		}
		state = (uint32_t)(sv >> r.sv_shift);
		/* Another id: the slot was reused (or not yet used); a state
		 * other than committed/finalized: being written or free. */
		if ((sv & r.id_mask) != id ||
		    (state != DESC_COMMITTED && state != DESC_FINALIZED))
			continue;
		st = rd_u64(mem, iva + r.seq_off, &seq, err);
		if (st == MDF_OK)
			st = rd_u64(mem, iva + r.ts_off, &ts, err);
		if (st == MDF_OK)
			st = rd(mem, iva + r.len_off, l2, sizeof(l2), err);
		if (st != MDF_OK) {
			mdf_err_push(err, "printk_ringbuffer: printk_info %" PRIu64
				     " at 0x%" PRIx64, slot, iva);
			break;
		}
		if (seq < clear_seq) {
			stats->cleared++;
			continue;
		}
		if (!prb_block(&r, begin, next, &off, &blen, &bad)) {
			if (bad)
				note_bad(stats, "printk_ringbuffer: record %" PRIu64
					 " (id 0x%" PRIx64 "): text block 0x%" PRIx64
					 "..0x%" PRIx64 " is not a block of the %" PRIu64
					 "-byte data ring", seq, id, begin, next, r.size);
			continue;
		}
		/* The block starts with the record's id; the text may be cut
		 * short (truncated messages) but never runs past the block. */
		tlen = MDF_MIN((size_t)load_t16(l2, mem->big_endian), (size_t)(blen - r.word));
		st = rd(mem, r.data + off + r.word, text, tlen, err);
		if (st != MDF_OK) {
			note_bad(stats, "printk_ringbuffer: record %" PRIu64
				 ": text unreadable: %s", seq, err->msg);
			note_lost(stats, "printk_ringbuffer: record %" PRIu64
				  ": text unreadable: %s", seq, err->msg);
			mdf_err_clear(err);
			st = MDF_OK;
			continue;
		}
		st = dmesg_emit_record(out, ts, text, tlen, err);
		if (st != MDF_OK)
			break;
		stats->records++;
	}
	free(text);
	if (st == MDF_OK)
		st = dmesg_out_flush(out, err);
	return st;
}

/* ---- struct printk_log records in log_buf (3.5 - 5.9) --------------- */

struct logbuf {
	uint64_t buf;     /* kernel address of the buffer */
	uint32_t len;     /* log_buf_len */
};

static enum mdf_status logbuf_setup(const struct kinfo *ki,
				    const struct dmesg_mem *mem,
				    const char *what, struct logbuf *lb,
				    struct mdf_err *err)
{
	enum mdf_status st;

	/* SYMBOL(log_buf) is the "char *log_buf" variable. */
	st = rd_ulong(mem, ki->sym.log_buf.v, &lb->buf, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: reading the log_buf pointer at 0x%" PRIx64,
				    what, ki->sym.log_buf.v);
	st = rd_u32(mem, ki->sym.log_buf_len.v, &lb->len, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: reading log_buf_len at 0x%" PRIx64,
				    what, ki->sym.log_buf_len.v);
	if (lb->len == 0 || lb->len > LOG_BUF_MAX)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: log_buf_len %" PRIu32 " out of range (1-%llu)",
				   what, lb->len, LOG_BUF_MAX);
	return MDF_OK;
}

static enum mdf_status rd_index(const struct dmesg_mem *mem, const char *what,
				const char *name, uint64_t va, uint32_t limit,
				uint32_t *idx, struct mdf_err *err)
{
	enum mdf_status st = rd_u32(mem, va, idx, err);

	if (st != MDF_OK)
		return mdf_err_push(err, "%s: reading %s at 0x%" PRIx64, what, name, va);
	if (*idx >= limit)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: %s %" PRIu32 " is past the end of log_buf (%" PRIu32 " bytes)",
				   what, name, *idx, limit);
	return MDF_OK;
}

enum mdf_status dmesg_printk_log(const struct kinfo *ki, const struct dmesg_mem *mem,
				 bool partial, struct dmesg_out *out,
				 struct dmesg_stats *stats, struct mdf_err *err)
{
	/* The struct's name in VMCOREINFO: printk_log, or log before 3.11. */
	bool old = !ki->size.printk_log.set && ki->size.log.set;
	const char *what = old ? "log" : "printk_log";
	const char *const *needs = old ? log_needs : printk_log_needs;
	uint64_t hsize = kv(old ? ki->size.log : ki->size.printk_log);
	uint64_t ts_off = kv(old ? ki->off.log_ts_nsec : ki->off.printk_log_ts_nsec);
	uint64_t len_off = kv(old ? ki->off.log_len : ki->off.printk_log_len);
	uint64_t tl_off = kv(old ? ki->off.log_text_len : ki->off.printk_log_text_len);
	char key[48];
	struct logbuf lb;
	uint32_t idx, next, steps;
	unsigned char *rec = NULL;
	bool wrapped = false;
	enum mdf_status st;

	memset(stats, 0, sizeof(*stats));
	stats->format = DMESG_FMT_PRINTK_LOG;
	/* Both lists have the same length. */
	st = check_needs(ki, what, needs, ARRAY_SIZE(printk_log_needs), err);
	if (st == MDF_OK && (hsize == 0 || hsize > TEXT_MAX))
		st = mdf_err_set(err, MDF_ERR_FORMAT,
				 "%s: VMCOREINFO: SIZE(%s)=%" PRIu64 " out of range",
				 what, what, hsize);
	if (st == MDF_OK) {
		snprintf(key, sizeof(key), "OFFSET(%s.ts_nsec)", what);
		st = check_field(what, key, ts_off, 8, hsize, err);
	}
	if (st == MDF_OK) {
		snprintf(key, sizeof(key), "OFFSET(%s.len)", what);
		st = check_field(what, key, len_off, 2, hsize, err);
	}
	if (st == MDF_OK) {
		snprintf(key, sizeof(key), "OFFSET(%s.text_len)", what);
		st = check_field(what, key, tl_off, 2, hsize, err);
	}
	if (st == MDF_OK)
		st = logbuf_setup(ki, mem, what, &lb, err);
	if (st == MDF_OK && lb.len < hsize)
		st = mdf_err_set(err, MDF_ERR_FORMAT,
				 "%s: log_buf_len %" PRIu32 " is smaller than one record header (%"
				 PRIu64 ")", what, lb.len, hsize);
	if (st == MDF_OK)
		st = rd_index(mem, what, "log_next_idx", ki->sym.log_next_idx.v,
			      lb.len, &next, err);
	if (st == MDF_OK) {
		/* Not yet cleared by "dmesg -c": from clear_idx on. */
		if (partial && ki->sym.clear_idx.set)
			st = rd_index(mem, what, "clear_idx", ki->sym.clear_idx.v,
				      lb.len, &idx, err);
		else
			st = rd_index(mem, what, "log_first_idx",
				      ki->sym.log_first_idx.v, lb.len, &idx, err);
	}
	if (st != MDF_OK)
		return st;
	rec = malloc(TEXT_MAX + 1);
	if (!rec)
		return mdf_err_set(err, MDF_ERR_NOMEM, "out of memory");

	/* Each step but one wrap consumes at least hsize bytes. */
	for (steps = 0; idx != next; steps++) {
		uint16_t len, tlen;

		if (steps > lb.len / hsize + 2) {
			note_bad(stats, "%s: the records from log_first_idx do not reach "
				 "log_next_idx %" PRIu32, what, next);
			break;
		}
		if (lb.len - idx < hsize) {
			note_bad(stats, "%s: record header at index %" PRIu32
				 " runs past the end of log_buf (%" PRIu32 " bytes)",
				 what, idx, lb.len);
			break;
		}
		st = rd(mem, lb.buf + idx, rec, (size_t)hsize, err);
		if (st != MDF_OK) {
			mdf_err_push(err, "%s: record at index %" PRIu32, what, idx);
			break;
		}
		len = load_t16(rec + len_off, mem->big_endian);
		if (len == 0) {
			/* The end-of-buffer marker: go on at the start. */
			if (wrapped || idx == 0) {
				note_bad(stats, "%s: second end-of-buffer record (index %"
					 PRIu32 ") before log_next_idx %" PRIu32,
					 what, idx, next);
				break;
			}
			wrapped = true;
			idx = 0;
			continue;
		}
		if (len < hsize || len > lb.len - idx) {
			note_bad(stats, "%s: record at index %" PRIu32 ": length %u "
				 "(header %" PRIu64 ", log_buf %" PRIu32 " bytes) is impossible",
				 what, idx, len, hsize, lb.len);
			break;
		}
		st = rd(mem, lb.buf + idx, rec, len, err);
		if (st != MDF_OK) {
			mdf_err_push(err, "%s: record at index %" PRIu32, what, idx);
			break;
		}
		tlen = load_t16(rec + tl_off, mem->big_endian);
		if (tlen > len - hsize) {
			note_bad(stats, "%s: record at index %" PRIu32 ": text_len %u "
				 "longer than the record (%u bytes)", what, idx, tlen, len);
			tlen = (uint16_t)(len - hsize);
		}
		st = dmesg_emit_record(out, load_t64(rec + ts_off, mem->big_endian), rec + hsize,
				       tlen, err);
		if (st != MDF_OK)
			break;
		stats->records++;
		idx += len;
		if (idx == lb.len && idx != next)
			idx = 0; /* a record ending exactly at the end */
	}
	free(rec);
	if (st == MDF_OK)
		st = dmesg_out_flush(out, err);
	return st;
}

/* ---- character ring (before 3.5) ------------------------------------ */

static enum mdf_status copy_range(const struct dmesg_mem *mem, uint64_t va,
				  uint64_t len, struct dmesg_out *out,
				  struct mdf_err *err)
{
	unsigned char buf[4096];

	while (len) {
		size_t n = (size_t)MDF_MIN(len, sizeof(buf));
		enum mdf_status st = rd(mem, va, buf, n, err);

		if (st != MDF_OK)
			return mdf_err_push(err, "log_buf at 0x%" PRIx64, va);
		st = dmesg_out_put(out, buf, n, err);
		if (st != MDF_OK)
			return st;
		va += n;
		len -= n;
	}
	return MDF_OK;
}

enum mdf_status dmesg_legacy(const struct kinfo *ki, const struct dmesg_mem *mem,
			     struct dmesg_out *out, struct dmesg_stats *stats,
			     struct mdf_err *err)
{
	static const char what[] = "log_buf";
	struct logbuf lb;
	uint32_t end;
	enum mdf_status st;

	memset(stats, 0, sizeof(*stats));
	stats->format = DMESG_FMT_LEGACY;
	st = check_needs(ki, what, legacy_needs, ARRAY_SIZE(legacy_needs), err);
	if (st == MDF_OK)
		st = logbuf_setup(ki, mem, what, &lb, err);
	if (st != MDF_OK)
		return st;
	/* The kernel indexes the ring with log_end & (log_buf_len - 1). */
	if (lb.len & (lb.len - 1))
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: log_buf_len %" PRIu32 " is not a power of two",
				   what, lb.len);
	st = rd_u32(mem, ki->sym.log_end.v, &end, err);
	if (st != MDF_OK)
		return mdf_err_push(err, "%s: reading log_end at 0x%" PRIx64, what,
				    ki->sym.log_end.v);
	if (end < lb.len) {
		/* never wrapped */
		st = copy_range(mem, lb.buf, end, out, err);
	} else {
		uint32_t start = end & (lb.len - 1);

		st = copy_range(mem, lb.buf + start, lb.len - start, out, err);
		if (st == MDF_OK)
			st = copy_range(mem, lb.buf, start, out, err);
	}
	if (st == MDF_OK)
		st = dmesg_out_flush(out, err);
	return st;
}

enum mdf_status dmesg_extract(const struct kinfo *ki, const struct dmesg_mem *mem,
			      bool partial, struct dmesg_out *out,
			      struct dmesg_stats *stats, struct mdf_err *err)
{
	enum dmesg_format f = DMESG_FMT_LEGACY;
	enum mdf_status st = dmesg_detect(ki, &f, err);

	if (st != MDF_OK)
		return st;
	switch (f) {
	case DMESG_FMT_LOCKLESS:
		return dmesg_lockless(ki, mem, partial, out, stats, err);
	case DMESG_FMT_PRINTK_LOG:
		return dmesg_printk_log(ki, mem, partial, out, stats, err);
	case DMESG_FMT_LEGACY:
		return dmesg_legacy(ki, mem, out, stats, err);
	}
	return mdf_err_set(err, MDF_ERR_INTERNAL, "dmesg: unknown log format");
}

/* ---- the run ------------------------------------------------------ */

struct run_sink {
	struct out_sink *o;
	uint64_t off;
	struct mdf_ctx *ctx;
};

/* A stop signal (stop.h). */
static enum mdf_status run_stopped(struct mdf_ctx *ctx, struct mdf_err *err)
{
	return stop_check(&ctx->stop, err);
}

static enum mdf_status run_read(void *arg, uint64_t vaddr, void *buf,
				size_t len, struct mdf_err *err)
{
	return readmem_vaddr(arg, vaddr, buf, len, err);
}

static enum mdf_status run_write(void *arg, const void *buf, size_t len,
				 struct mdf_err *err)
{
	struct run_sink *s = arg;
	enum mdf_status st = run_stopped(s->ctx, err);

	if (st == MDF_OK)
		st = out_write(s->o, s->off, buf, len, err);
	if (st == MDF_OK)
		s->off += len;
	else if (st == MDF_ERR_NOSPC)
		mdf_err_set(err, MDF_ERR_NOSPC, "%s: no space left for the dmesg log",
			    s->o->path);
	return st;
}

/* The dry pass's sink: counts, writes nothing. */
static enum mdf_status discard_write(void *arg, const void *buf, size_t len,
				     struct mdf_err *err)
{
	(void)arg;
	(void)buf;
	(void)len;
	(void)err;
	return MDF_OK;
}

/*
 * Is what was read the whole log?  A text file cannot say it is not, so
 * a log with a record that could not be read (its page lost in an
 * incomplete dump, or not in the dump) is refused, and so is one with
 * no record at all: every record malformed, or a ring that reads as
 * empty (its pages zero: past the end of what the dump holds).  A log
 * that --partial-dmesg finds all cleared is empty and fine.
 */
static enum mdf_status log_whole(const char *in, const struct dmesg_stats *s,
				 uint64_t bytes, struct mdf_err *err)
{
	if (s->unreadable)
		return mdf_err_set(err, MDF_ERR_NODATA,
				   "%s: the kernel log cannot be read whole: %" PRIu64
				   " of %" PRIu64 " records are not in the dump (%s)",
				   in, s->unreadable, s->records + s->bad, s->lost);
	if (s->format == DMESG_FMT_LEGACY ? bytes > 0 : s->records || s->cleared)
		return MDF_OK;
	if (s->bad)
		return mdf_err_set(err, MDF_ERR_FORMAT,
				   "%s: the kernel log cannot be read: none of its %" PRIu64
				   " records is whole (the first: %s)", in, s->bad,
				   s->problem);
	return mdf_err_set(err, MDF_ERR_NODATA,
			   "%s: the kernel log cannot be read: the %s holds no record",
			   in, dmesg_format_name(s->format));
}

enum mdf_status dmesg_run(struct mdf_ctx *ctx)
{
	const char *in = ctx->opts.vmcore, *path = ctx->opts.dumpfile;
	struct dmesg_mem mem = { .read = run_read, .arg = &ctx->k.rm };
	struct dmesg_stats stats;
	struct out_sink o;
	struct run_sink sink = { .o = &o, .off = 0, .ctx = ctx };
	struct dmesg_out *out;
	struct mdf_err cerr;
	uint64_t bytes;
	enum mdf_status st;

	if (ctx->opts.check_params)
		return MDF_OK;
	/* The log needs no struct pages: opts.c refuses -d with
	 * --dump-dmesg, so dump_open() learns the kernel at level 0. */
	st = dump_open(ctx);
	if (st != MDF_OK)
		return st;
	/* Hook for other inputs: all that is used below is ctx->k.ki and
	 * ctx->k.rm with address translation, whatever dump_open() read. */
	if (!ctx->k.have_arch)
		return mdf_err_set(&ctx->err, MDF_ERR_NOTSUPP,
				   "%s: the kernel log needs virtual address translation, "
				   "which is not available for this dump", in);
	mem.big_endian = ctx->k.ki.big_endian;  /* known once the dump is open */
	mem.word_size = kinfo_word_size(&ctx->k.ki);
	out = calloc(1, sizeof(*out));
	if (!out)
		return mdf_err_set(&ctx->err, MDF_ERR_NOMEM, "out of memory");
	if (!path) {
		/* Standard output (-F) cannot be taken back: the log is read
		 * once into nothing first, and written only if it is whole. */
		out->write = discard_write;
		st = dmesg_extract(&ctx->k.ki, &mem, ctx->opts.partial_dmesg, out, &stats,
				   &ctx->err);
		if (st != MDF_OK)
			mdf_err_push(&ctx->err, "%s", in);
		else
			st = log_whole(in, &stats, out->total, &ctx->err);
		if (st != MDF_OK) {
			free(out);
			return st;
		}
		memset(out, 0, sizeof(*out));
	}
	out->write = run_write;
	out->arg = &sink;
	st = path ? out_open_file_tmp(&o, path, ctx->opts.force, 0600,
				      ctx->opts.size_limit, 1 << 16, &ctx->err) :
		    out_open_stream(&o, STDOUT_FILENO, ctx->opts.size_limit, 1 << 16,
				    &ctx->err);
	if (st != MDF_OK) {
		free(out);
		return st;
	}
	if (path)
		stop_note_tmp(&ctx->stop, o.tmp_path);
	st = dmesg_extract(&ctx->k.ki, &mem, ctx->opts.partial_dmesg, out, &stats,
			   &ctx->err);
	bytes = out->total;
	free(out);
	if (st != MDF_OK)
		mdf_err_push(&ctx->err, "%s", in);
	if (st == MDF_OK)
		st = log_whole(in, &stats, bytes, &ctx->err);
	if (st == MDF_OK)
		st = run_stopped(ctx, &ctx->err);
	/* Its name only once all of it is on the disk. */
	if (st == MDF_OK && path) {
		st = out_commit(&o, &ctx->err);
		if (st == MDF_ERR_NOSPC)
			mdf_err_push(&ctx->err, "%s: no space left for the dmesg log", o.path);
	}
	if (out_close(&o, &cerr) != MDF_OK && st == MDF_OK) {
		ctx->err = cerr;
		st = cerr.status;
		if (st == MDF_ERR_NOSPC)
			mdf_err_push(&ctx->err, "%s: no space left for the dmesg log", o.path);
	}
	if (st != MDF_OK)
		out_discard(&o);
	stop_note_tmp(&ctx->stop, NULL);
	if (st != MDF_OK)
		return st;
	pi_debug(&ctx->pr, "dmesg: %s, %" PRIu64 " records, %" PRIu64
		 " cleared, %" PRIu64 " malformed\n", dmesg_format_name(stats.format),
		 stats.records, stats.cleared, stats.bad);
	if (stats.bad)
		pi_warn(&ctx->pr, "%" PRIu64 " malformed log records left out or cut short; "
			"the first: %s\n", stats.bad, stats.problem);
	pi_dmesg_saved(&ctx->pr, o.path);
	pi_completed(&ctx->pr, NULL);
	return MDF_OK;
}
