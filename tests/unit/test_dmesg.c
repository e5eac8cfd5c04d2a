/*
 * tests/unit/test_dmesg.c - the kernel-log extractor on hand-built rings.
 *
 * Each case lays a ring out in a fake kernel memory (one flat image at
 * BASE, read through the dmesg_mem callback; anything outside it is "not
 * in the dump"), with the VMCOREINFO layout of the real 6.1 x86_64
 * vmcore for the printk_ringbuffer, and compares the text byte for byte.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dmesg.h"
#include "tap.h"
#include "util.h"
#include "kernel/vmcoreinfo.h"

#define BASE 0xffffffff81000000ULL
#define IMG_SIZE 0x4000

static unsigned char img[IMG_SIZE];
static char text[1 << 16];
static size_t text_len;
static int fail_writes;      /* make the writer fail after this many calls */
static struct kinfo ki;
static struct dmesg_stats stats;
static struct mdf_err err;

static struct dmesg_mem mem;

static enum mdf_status fake_read(void *arg, uint64_t va, void *buf, size_t len,
				 struct mdf_err *e)
{
	(void)arg;
	/* an i386 kernel's pointers: the image at BASE's low 32 bits */
	if (mem.word_size == 4 && va <= UINT32_MAX)
		va |= BASE & ~(uint64_t)UINT32_MAX;
	if (va < BASE || va - BASE > IMG_SIZE || len > IMG_SIZE - (va - BASE))
		return mdf_err_set(e, MDF_ERR_NODATA,
				   "virtual address 0x%llx is not in the dump",
				   (unsigned long long)va);
	memcpy(buf, img + (va - BASE), len);
	return MDF_OK;
}

static enum mdf_status collect(void *arg, const void *buf, size_t len,
			       struct mdf_err *e)
{
	(void)arg;
	if (fail_writes > 0 && --fail_writes == 0)
		return mdf_err_set(e, MDF_ERR_NOSPC, "disk full");
	if (len > sizeof(text) - 1 - text_len)
		return mdf_err_set(e, MDF_ERR_INTERNAL, "test buffer full");
	memcpy(text + text_len, buf, len);
	text_len += len;
	text[text_len] = '\0';
	return MDF_OK;
}

/* .big_endian: the image of a big-endian kernel (s390x), see big_endian() */
static struct dmesg_mem mem = { .read = fake_read };
static struct dmesg_out out;

static void reset(void)
{
	memset(img, 0, sizeof(img));
	memset(&out, 0, sizeof(out));
	out.write = collect;
	text_len = 0;
	text[0] = '\0';
	fail_writes = 0;
	kinfo_init(&ki);
	memset(&stats, 0, sizeof(stats));
	mdf_err_clear(&err);
}

static void put64(uint64_t va, uint64_t v)
{
	if (mem.big_endian)
		store_be64(img + (va - BASE), v);
	else
		store_le64(img + (va - BASE), v);
}
static void put32(uint64_t va, uint32_t v)
{
	if (mem.big_endian)
		store_be32(img + (va - BASE), v);
	else
		store_le32(img + (va - BASE), v);
}
static void put16(uint64_t va, uint16_t v)
{
	unsigned hi = mem.big_endian ? 0 : 1;

	img[va - BASE + hi] = (uint8_t)(v >> 8);
	img[va - BASE + !hi] = (uint8_t)v;
}

/* Short stringified arguments keep tap.h's messages within bounds. */
#define OKC(call) do { enum mdf_status s_ = (call); T_OK(s_, &err); } while (0)
#define EQS(a, b) do { const char *got_ = (a), *want_ = (b); T_EQ_STR(got_, want_); } while (0)
#define STATUS(call, want) do { enum mdf_status s_ = (call); T_EQ_U64(s_, want); } while (0)

#define SET(field, val) do { (field).v = (val); (field).set = true; } while (0)

/* ---- printk_ringbuffer ------------------------------------------- */

/* Addresses inside the image. */
#define PRB_SYM (BASE + 0x0000)
#define PRB (BASE + 0x0100)
#define CLEAR (BASE + 0x0200)
#define DESCS (BASE + 0x0400)
#define INFOS (BASE + 0x0800)
#define DATA (BASE + 0x1000)
#define CBITS 3                /* 8 descriptors */
#define SBITS 7                /* 128-byte data ring */
#define DSIZE (1ULL << SBITS)

/* The 6.1 x86_64 VMCOREINFO layout. */
static void prb_kinfo(void)
{
	SET(ki.sym.prb, PRB_SYM);
	SET(ki.sym.clear_seq, CLEAR);
	SET(ki.size.printk_ringbuffer, 88);
	SET(ki.off.printk_ringbuffer_desc_ring, 0);
	SET(ki.off.printk_ringbuffer_text_data_ring, 48);
	SET(ki.size.prb_desc_ring, 48);
	SET(ki.off.prb_desc_ring_count_bits, 0);
	SET(ki.off.prb_desc_ring_descs, 8);
	SET(ki.off.prb_desc_ring_infos, 16);
	SET(ki.off.prb_desc_ring_head_id, 24);
	SET(ki.off.prb_desc_ring_tail_id, 32);
	SET(ki.size.prb_desc, 24);
	SET(ki.off.prb_desc_state_var, 0);
	SET(ki.off.prb_desc_text_blk_lpos, 8);
	SET(ki.size.prb_data_blk_lpos, 16);
	SET(ki.off.prb_data_blk_lpos_begin, 0);
	SET(ki.off.prb_data_blk_lpos_next, 8);
	SET(ki.size.printk_info, 88);
	SET(ki.off.printk_info_seq, 0);
	SET(ki.off.printk_info_ts_nsec, 8);
	SET(ki.off.printk_info_text_len, 16);
	SET(ki.off.printk_info_caller_id, 20);
	SET(ki.off.printk_info_dev_info, 24);
	SET(ki.size.prb_data_ring, 32);
	SET(ki.off.prb_data_ring_size_bits, 0);
	SET(ki.off.prb_data_ring_data, 8);
	SET(ki.off.prb_data_ring_head_lpos, 16);
	SET(ki.off.prb_data_ring_tail_lpos, 24);
	SET(ki.size.atomic_long_t, 8);
	SET(ki.off.atomic_long_t_counter, 0);
	SET(ki.size.latched_seq, 24);
	SET(ki.off.latched_seq_val, 8);
}

static void prb_ring(uint64_t tail_id, uint64_t head_id)
{
	put64(PRB_SYM, PRB);
	put32(PRB + 0, CBITS);
	put64(PRB + 8, DESCS);
	put64(PRB + 16, INFOS);
	put64(PRB + 24, head_id);
	put64(PRB + 32, tail_id);
	put32(PRB + 48, SBITS);
	put64(PRB + 56, DATA);
}

/* A data block for @id holding @s, from logical position @begin; returns
 * the block's next lpos.  A block that does not fit before the end of the
 * ring goes to its start, as the kernel's data_alloc() does. */
static uint64_t prb_block(uint64_t begin, uint64_t id, const char *s, size_t n)
{
	uint64_t size = align_up(8 + n, 8);
	uint64_t off = begin & (DSIZE - 1), next = begin + size;

	if (off + size > DSIZE) {
		off = 0;
		next = (begin | (DSIZE - 1)) + 1 + size;
	}
	put64(DATA + off, id);
	memcpy(img + (DATA + off + 8 - BASE), s, n);
	return next;
}

static void prb_desc(uint64_t id, unsigned state, uint64_t sv_id, uint64_t begin,
		     uint64_t next, uint64_t seq, uint64_t ts, uint16_t len)
{
	uint64_t slot = id & ((1 << CBITS) - 1);

	put64(DESCS + slot * 24, (uint64_t)state << 62 | sv_id);
	put64(DESCS + slot * 24 + 8, begin);
	put64(DESCS + slot * 24 + 16, next);
	put64(INFOS + slot * 88, seq);
	put64(INFOS + slot * 88 + 8, ts);
	put16(INFOS + slot * 88 + 16, len);
}

/* A record with its text in a block at @begin; returns next lpos. */
static uint64_t prb_rec(uint64_t id, unsigned state, uint64_t begin, uint64_t seq,
			uint64_t ts, const char *s)
{
	uint64_t next = prb_block(begin, id, s, strlen(s));

	prb_desc(id, state, id, begin, next, seq, ts, (uint16_t)strlen(s));
	return next;
}

/*
 * tail id 13 .. head id 19 (slots 5 6 7 0 1 2 3):
 *   13 finalized "first"                  seq 5
 *   14 slot holds an older id (6)         -> skipped
 *   15 committed, two lines               seq 7
 *   16 reserved (being written)           -> skipped
 *   17 data-less (FAILED_LPOS)            -> skipped
 *   18 finalized, block wraps to offset 0 seq 10
 *   19 finalized, text_len past its block seq 11 (cut to the block)
 */
static void prb_standard(void)
{
	uint64_t w = 5 * DSIZE;  /* lpos of the 5th wrap */

	prb_kinfo();
	prb_ring(13, 19);
	prb_rec(13, 2, w + 40, 5, 0, "first");
	prb_desc(14, 2, 6, w + 56, w + 56, 6, 1, 0);
	prb_rec(15, 1, w + 56, 7, 1234567891, "two\nlines");
	prb_desc(16, 0, 16, w + 80, w + 80, 8, 2, 0);
	prb_desc(17, 2, 17, 1, 1, 9, 3, 0);
	prb_rec(18, 2, w + 112, 10, 98765432109876ULL, "wrap me around");
	prb_rec(19, 2, w + DSIZE + 24, 11, 123456789000000000ULL, "cut");
	put16(INFOS + 3 * 88 + 16, 100);
}

static const char prb_expected[] =
	"[    0.000000] first\n"
	"[    1.234567] two\n"
	"               lines\n"
	"[98765.432109] wrap me around\n"
	"[123456789.000000] cut\\x00\\x00\\x00\\x00\\x00\n";

static void emit_format(void)
{
	static const unsigned char t[] = { 'a', '\t', 'b', 1, 0x7f, 0xc3, 0xa9, '\n',
					   'c', '\r', ' ', '~' };

	reset();
	OKC(dmesg_emit_record(&out, 1000000000ULL * 42 + 999999, t, sizeof(t), &err));
	OKC(dmesg_emit_record(&out, 999, (const unsigned char *)"", 0, &err));
	OKC(dmesg_emit_record(&out, 1000000000ULL * 123456 + 1000,
			       (const unsigned char *)"x\ny", 3, &err));
	OKC(dmesg_out_flush(&out, &err));
	EQS(text, "[   42.000999] a\tb\\x01\\x7f\\xc3\\xa9\n"
		 "               c\r ~\n"
		 "[    0.000000] \n"
		 "[123456.000001] x\n"
		 "                y\n");
	T_EQ_U64(out.total, text_len);
}

static void out_buffering(void)
{
	static unsigned char big[30000];

	reset();
	memset(big, 'q', sizeof(big));
	OKC(dmesg_emit_record(&out, 0, big, sizeof(big), &err));
	OKC(dmesg_out_flush(&out, &err));
	T_EQ_U64(text_len, 15 + sizeof(big) + 1);
	T_ASSERT(text[15] == 'q' && text[15 + sizeof(big) - 1] == 'q');
	T_ASSERT(text[text_len - 1] == '\n');

	/* A failing writer stops everything with its error. */
	reset();
	fail_writes = 2;
	STATUS(dmesg_emit_record(&out, 0, big, sizeof(big), &err), MDF_ERR_NOSPC);
	EQS(err.msg, "disk full");
}

static void detect(void)
{
	enum dmesg_format f;

	reset();
	STATUS(dmesg_detect(&ki, &f, &err), MDF_ERR_NODATA);
	EQS(err.msg, "VMCOREINFO describes no kernel log: it has none of "
		 "SYMBOL(prb), SYMBOL(log_first_idx), SYMBOL(log_end)");
	SET(ki.sym.log_end, 1);
	OKC(dmesg_detect(&ki, &f, &err));
	T_EQ_U64(f, DMESG_FMT_LEGACY);
	SET(ki.sym.log_first_idx, 1);
	OKC(dmesg_detect(&ki, &f, &err));
	T_EQ_U64(f, DMESG_FMT_PRINTK_LOG);
	SET(ki.sym.prb, 1);
	OKC(dmesg_detect(&ki, &f, &err));
	T_EQ_U64(f, DMESG_FMT_LOCKLESS);
	EQS(dmesg_format_name(f), "printk_ringbuffer");
}

static void prb_basic(void)
{
	reset();
	prb_standard();
	OKC(dmesg_extract(&ki, &mem, false, &out, &stats, &err));
	EQS(text, prb_expected);
	T_EQ_U64(stats.format, DMESG_FMT_LOCKLESS);
	T_EQ_U64(stats.records, 4);
	T_EQ_U64(stats.bad, 0);
	T_EQ_U64(stats.cleared, 0);

	/* --partial-dmesg with clear_seq 0 changes nothing */
	reset();
	prb_standard();
	OKC(dmesg_extract(&ki, &mem, true, &out, &stats, &err));
	EQS(text, prb_expected);
}

static void prb_partial(void)
{
	/* latched_seq: latch sequence 3 -> val[1] is current */
	reset();
	prb_standard();
	put32(CLEAR, 3);
	put64(CLEAR + 8, 1);
	put64(CLEAR + 16, 8);
	OKC(dmesg_lockless(&ki, &mem, true, &out, &stats, &err));
	EQS(text, "[98765.432109] wrap me around\n"
		 "[123456789.000000] cut\\x00\\x00\\x00\\x00\\x00\n");
	T_EQ_U64(stats.cleared, 2);
	T_EQ_U64(stats.records, 2);

	/* without --partial-dmesg clear_seq is not even read */
	reset();
	prb_standard();
	put32(CLEAR, 3);
	put64(CLEAR + 16, 8);
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(stats.records, 4);

	/* 5.10 - 5.12: a plain u64 */
	reset();
	prb_standard();
	ki.size.latched_seq.set = false;
	ki.off.latched_seq_val.set = false;
	put64(CLEAR, 7);
	OKC(dmesg_lockless(&ki, &mem, true, &out, &stats, &err));
	T_EQ_U64(stats.cleared, 1);
	T_EQ_U64(stats.records, 3);

	/* no SYMBOL(clear_seq): everything */
	reset();
	prb_standard();
	ki.sym.clear_seq.set = false;
	OKC(dmesg_lockless(&ki, &mem, true, &out, &stats, &err));
	EQS(text, prb_expected);

	/* clear_seq unreadable */
	reset();
	prb_standard();
	SET(ki.sym.clear_seq, BASE + IMG_SIZE);
	STATUS(dmesg_lockless(&ki, &mem, true, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "clear_seq at 0xffffffff81004000: virtual address "
		 "0xffffffff81004000 is not in the dump");
}

static void prb_ids_wrap(void)
{
	/* ids run through the top of the 62-bit id space */
	uint64_t top = (1ULL << 62) - 2;

	reset();
	prb_kinfo();
	prb_ring(top, 1);   /* top, top+1, 0, 1 */
	prb_rec(top, 2, 0, 100, 1000, "a");
	prb_rec(top + 1, 2, 16, 101, 2000, "b");
	prb_rec(0, 2, 32, 102, 3000, "c");
	prb_rec(1, 1, 48, 103, 4000, "d");
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    0.000001] a\n[    0.000002] b\n"
		 "[    0.000003] c\n[    0.000004] d\n");

	/* a single record: tail == head */
	reset();
	prb_kinfo();
	prb_ring(5, 5);
	prb_rec(5, 2, 0, 0, 0, "only");
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    0.000000] only\n");
}

static void prb_bad_records(void)
{
	uint64_t w = 5 * DSIZE;

	/* malformed lpos pairs are left out and counted */
	reset();
	prb_standard();
	prb_desc(13, 2, 13, w + 40, w + 3 * DSIZE, 5, 0, 5);   /* spans 3 wraps */
	prb_desc(15, 1, 15, w + 60, w + 84, 7, 0, 9);          /* unaligned */
	prb_desc(19, 2, 19, w + DSIZE + 24, w + DSIZE + 28, 11, 0, 3); /* < id */
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[98765.432109] wrap me around\n");
	T_EQ_U64(stats.bad, 3);
	EQS(stats.problem, "printk_ringbuffer: record 5 (id 0xd): text block "
		 "0x2a8..0x400 is not a block of the 128-byte data ring");

	/* text outside the dump: left out */
	reset();
	prb_standard();
	put64(PRB + 56, BASE + IMG_SIZE - 64);
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(stats.records, 3);   /* the block at offset 56 is past the end */
	T_EQ_U64(stats.bad, 1);
	EQS(stats.problem, "printk_ringbuffer: record 7: text unreadable: virtual "
	    "address 0xffffffff81004000 is not in the dump");
	/* counted apart too: --dump-dmesg refuses a log not read whole */
	T_EQ_U64(stats.unreadable, 1);
	EQS(stats.lost, stats.problem);

	/* ... also when it is the last record (head) */
	reset();
	prb_standard();
	put64(PRB + 56, BASE + IMG_SIZE - 30);
	OKC(dmesg_lockless(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(stats.records, 1);
	T_EQ_U64(stats.bad, 3);
}

static void prb_bad_ring(void)
{
	reset();
	prb_standard();
	put32(PRB, 40);
	STATUS(dmesg_lockless(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_ringbuffer at 0xffffffff81000100: "
		 "desc_ring.count_bits 40 out of range (0-31)");

	reset();
	prb_standard();
	put32(PRB + 48, 2);
	STATUS(dmesg_lockless(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_ringbuffer at 0xffffffff81000100: "
		 "text_data_ring.size_bits 2 out of range (3-31)");

	reset();
	prb_standard();
	put64(PRB + 24, 21);   /* head 21 - tail 13 = 8 descriptors apart */
	STATUS(dmesg_lockless(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_ringbuffer at 0xffffffff81000100: tail_id 0xd to "
		 "head_id 0x15 spans more than the ring's 8 descriptors");

	reset();
	prb_standard();
	put64(PRB_SYM, BASE + IMG_SIZE - 8);
	STATUS(dmesg_lockless(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "printk_ringbuffer at 0xffffffff81003ff8: virtual address "
		 "0xffffffff81004000 is not in the dump");

	reset();
	prb_standard();
	put64(PRB + 8, BASE + IMG_SIZE);
	STATUS(dmesg_lockless(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "printk_ringbuffer: descriptor 5 at 0xffffffff81004078: "
		 "virtual address 0xffffffff81004078 is not in the dump");

	reset();
	prb_standard();
	ki.off.prb_desc_state_var.set = false;
	STATUS(dmesg_extract(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "printk_ringbuffer: VMCOREINFO has no OFFSET(prb_desc.state_var)");

	reset();
	prb_standard();
	SET(ki.off.printk_info_text_len, 87);
	STATUS(dmesg_extract(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_ringbuffer: VMCOREINFO: OFFSET(printk_info.text_len) "
		 "87 + 2 is past the end of the struct (size 88)");

	reset();
	prb_standard();
	SET(ki.size.atomic_long_t, 4);
	STATUS(dmesg_extract(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_ringbuffer: SIZE(atomic_long_t)=4 is not the kernel's long (8 bytes)");
}

/*
 * The ring of an i386 kernel (Debian's 6.1 686, from its DWARF): longs and
 * pointers of 4 bytes, so state_var's state in bits 31..30, lpos and ids
 * 4 bytes, data blocks 4-byte aligned and led by a 4-byte id; seq and
 * ts_nsec stay u64 (printk_info as on x86_64), latched_seq.val at 4.
 */
static void prb_i386(void)
{
	const uint64_t w = 3 * DSIZE;
	struct {
		uint64_t id, begin, seq, ts;
		unsigned state;
		const char *s;
	} recs[] = {
		{ 0x3ffffffe, w + 0, 3, 1500000000ULL, 2, "i386" },
		{ 0x3fffffff, w + 12, 4, 2000001000ULL, 1, "six" },
		{ 0x00000000, w + 24, 5, 3000000000ULL, 3, "reusable, skipped" },
		{ 0x00000001, w + 24, 6, 4000000000ULL, 2, "seven" },
	};

	reset();
	mem.word_size = 4;
	SET(ki.sym.prb, PRB_SYM & UINT32_MAX);
	SET(ki.sym.clear_seq, CLEAR & UINT32_MAX);
	SET(ki.size.printk_ringbuffer, 44);
	SET(ki.off.printk_ringbuffer_desc_ring, 0);
	SET(ki.off.printk_ringbuffer_text_data_ring, 24);
	SET(ki.size.prb_desc_ring, 24);
	SET(ki.off.prb_desc_ring_count_bits, 0);
	SET(ki.off.prb_desc_ring_descs, 4);
	SET(ki.off.prb_desc_ring_infos, 8);
	SET(ki.off.prb_desc_ring_head_id, 12);
	SET(ki.off.prb_desc_ring_tail_id, 16);
	SET(ki.size.prb_desc, 12);
	SET(ki.off.prb_desc_state_var, 0);
	SET(ki.off.prb_desc_text_blk_lpos, 4);
	SET(ki.size.prb_data_blk_lpos, 8);
	SET(ki.off.prb_data_blk_lpos_begin, 0);
	SET(ki.off.prb_data_blk_lpos_next, 4);
	SET(ki.size.printk_info, 88);
	SET(ki.off.printk_info_seq, 0);
	SET(ki.off.printk_info_ts_nsec, 8);
	SET(ki.off.printk_info_text_len, 16);
	SET(ki.size.prb_data_ring, 16);
	SET(ki.off.prb_data_ring_size_bits, 0);
	SET(ki.off.prb_data_ring_data, 4);
	SET(ki.size.atomic_long_t, 4);
	SET(ki.off.atomic_long_t_counter, 0);
	SET(ki.size.latched_seq, 20);
	SET(ki.off.latched_seq_val, 4);

	/* ids wrap at 2^30 */
	put32(PRB_SYM, (uint32_t)PRB);
	put32(PRB + 0, CBITS);
	put32(PRB + 4, (uint32_t)DESCS);
	put32(PRB + 8, (uint32_t)INFOS);
	put32(PRB + 12, 1);              /* head_id */
	put32(PRB + 16, 0x3ffffffe);     /* tail_id */
	put32(PRB + 24, SBITS);
	put32(PRB + 28, (uint32_t)DATA);
	for (size_t i = 0; i < ARRAY_SIZE(recs); i++) {
		uint64_t slot = recs[i].id & 7, n = strlen(recs[i].s);
		uint64_t off = recs[i].begin & (DSIZE - 1), next = recs[i].begin + align_up(4 + n, 4);

		put32(DATA + off, (uint32_t)recs[i].id);
		memcpy(img + (DATA + off + 4 - BASE), recs[i].s, n);
		put32(DESCS + slot * 12, (uint32_t)(recs[i].state << 30 | recs[i].id));
		put32(DESCS + slot * 12 + 4, (uint32_t)recs[i].begin);
		put32(DESCS + slot * 12 + 8, (uint32_t)next);
		put64(INFOS + slot * 88, recs[i].seq);
		put64(INFOS + slot * 88 + 8, recs[i].ts);
		put16(INFOS + slot * 88 + 16, (uint16_t)n);
	}
	OKC(dmesg_extract(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    1.500000] i386\n"
		 "[    2.000001] six\n"
		 "[    4.000000] seven\n");
	T_EQ_U64(stats.records, 3);
	T_EQ_U64(stats.bad, 0);

	/* --partial-dmesg: clear_seq is latched_seq.val[latch & 1] at 4 */
	memset(&out, 0, sizeof(out));
	out.write = collect;
	text_len = 0;
	text[0] = '\0';
	put32(CLEAR, 1);
	put64(CLEAR + 4 + 8, 4);
	OKC(dmesg_extract(&ki, &mem, true, &out, &stats, &err));
	EQS(text, "[    2.000001] six\n"
		 "[    4.000000] seven\n");
	T_EQ_U64(stats.cleared, 1);
	mem.word_size = 0;
}

/* ---- struct printk_log ------------------------------------------- */

#define LOG_SYM (BASE + 0x0000)     /* char *log_buf */
#define LOG_LEN_SYM (BASE + 0x0010) /* u32 log_buf_len */
#define FIRST_SYM (BASE + 0x0020)
#define NEXT_SYM (BASE + 0x0030)
#define CLEAR_IDX_SYM (BASE + 0x0040)
#define LOG_END_SYM (BASE + 0x0050)
#define LOGBUF (BASE + 0x0100)

static void log_kinfo(uint32_t len, uint32_t first, uint32_t next)
{
	SET(ki.sym.log_buf, LOG_SYM);
	SET(ki.sym.log_buf_len, LOG_LEN_SYM);
	SET(ki.sym.log_first_idx, FIRST_SYM);
	SET(ki.sym.log_next_idx, NEXT_SYM);
	SET(ki.sym.clear_idx, CLEAR_IDX_SYM);
	SET(ki.size.printk_log, 16);
	SET(ki.off.printk_log_ts_nsec, 0);
	SET(ki.off.printk_log_len, 8);
	SET(ki.off.printk_log_text_len, 10);
	put64(LOG_SYM, LOGBUF);
	put32(LOG_LEN_SYM, len);
	put32(FIRST_SYM, first);
	put32(NEXT_SYM, next);
}

static void log_rec(uint32_t idx, uint16_t len, uint64_t ts, const char *s)
{
	put64(LOGBUF + idx, ts);
	put16(LOGBUF + idx + 8, len);
	put16(LOGBUF + idx + 10, (uint16_t)strlen(s));
	memcpy(img + (LOGBUF + idx + 16 - BASE), s, strlen(s));
}

/* 160-byte log_buf: A at 64, B at 88, wrap marker at 120, C at 0. */
static void log_standard(void)
{
	log_kinfo(160, 64, 24);
	put32(CLEAR_IDX_SYM, 88);
	log_rec(64, 24, 5000, "hello");
	log_rec(88, 32, 6000000, "multi\nline");
	log_rec(120, 0, 0, "");
	log_rec(0, 24, 7000000000ULL, "wrapped");
}

static void printk_log_basic(void)
{
	reset();
	log_standard();
	OKC(dmesg_extract(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    0.000005] hello\n"
		 "[    0.006000] multi\n"
		 "               line\n"
		 "[    7.000000] wrapped\n");
	T_EQ_U64(stats.format, DMESG_FMT_PRINTK_LOG);
	T_EQ_U64(stats.records, 3);

	reset();
	log_standard();
	OKC(dmesg_printk_log(&ki, &mem, true, &out, &stats, &err));
	EQS(text, "[    0.006000] multi\n"
		 "               line\n"
		 "[    7.000000] wrapped\n");

	/* empty log */
	reset();
	log_standard();
	put32(NEXT_SYM, 64);
	OKC(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(text_len, 0);
}

/* Kernels 3.5-3.10: the same records, VMCOREINFO names the struct `log`. */
static void printk_log_old_name(void)
{
	reset();
	log_standard();
	memset(&ki.size.printk_log, 0, sizeof(ki.size.printk_log));
	memset(&ki.off.printk_log_ts_nsec, 0, sizeof(ki.off.printk_log_ts_nsec));
	memset(&ki.off.printk_log_len, 0, sizeof(ki.off.printk_log_len));
	memset(&ki.off.printk_log_text_len, 0, sizeof(ki.off.printk_log_text_len));
	SET(ki.size.log, 16);
	SET(ki.off.log_ts_nsec, 0);
	SET(ki.off.log_len, 8);
	SET(ki.off.log_text_len, 10);
	OKC(dmesg_extract(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    0.000005] hello\n"
		 "[    0.006000] multi\n"
		 "               line\n"
		 "[    7.000000] wrapped\n");
	T_EQ_U64(stats.format, DMESG_FMT_PRINTK_LOG);

	/* A missing key is named as the kernel spells it. */
	reset();
	log_standard();
	memset(&ki.size.printk_log, 0, sizeof(ki.size.printk_log));
	SET(ki.size.log, 16);
	SET(ki.off.log_ts_nsec, 0);
	SET(ki.off.log_len, 8);
	T_EQ_U64(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	T_EQ_STR(err.msg, "log: VMCOREINFO has no OFFSET(log.text_len)");
	/* And a field past the struct's end too. */
	SET(ki.off.log_text_len, 15);
	T_EQ_U64(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	T_ASSERT(strstr(err.msg, "OFFSET(log.text_len) 15 + 2") != NULL);
}

static void printk_log_bad(void)
{
	/* a record shorter than its header stops the walk */
	reset();
	log_standard();
	put16(LOGBUF + 88 + 8, 4);
	OKC(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "[    0.000005] hello\n");
	T_EQ_U64(stats.bad, 1);
	EQS(stats.problem, "printk_log: record at index 88: length 4 (header 16, "
		 "log_buf 160 bytes) is impossible");

	/* text_len longer than the record: cut */
	reset();
	log_standard();
	put16(LOGBUF + 64 + 10, 200);
	OKC(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err));
	T_ASSERT(strncmp(text, "[    0.000005] hello\\x00\\x00\\x00\n", 32) == 0);
	T_EQ_U64(stats.bad, 1);

	/* a chain that wraps twice */
	reset();
	log_standard();
	put16(LOGBUF + 8, 0);
	OKC(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(stats.records, 2);
	EQS(stats.problem, "printk_log: second end-of-buffer record (index 0) "
		 "before log_next_idx 24");

	/* a record running past the end of log_buf */
	reset();
	log_standard();
	put16(LOGBUF + 120 + 8, 48);
	OKC(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err));
	T_EQ_U64(stats.records, 2);
	T_EQ_U64(stats.bad, 1);

	/* indexes past the buffer */
	reset();
	log_standard();
	put32(NEXT_SYM, 160);
	STATUS(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_log: log_next_idx 160 is past the end of log_buf (160 bytes)");
	reset();
	log_standard();
	put32(CLEAR_IDX_SYM, 0xffffffff);
	STATUS(dmesg_printk_log(&ki, &mem, true, &out, &stats, &err), MDF_ERR_FORMAT);

	reset();
	log_standard();
	put32(LOG_LEN_SYM, 0);
	STATUS(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "printk_log: log_buf_len 0 out of range (1-2147483648)");

	reset();
	log_standard();
	put64(LOG_SYM, BASE + IMG_SIZE - 70);
	STATUS(dmesg_printk_log(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "printk_log: record at index 64: virtual address "
		 "0xffffffff81003ffa is not in the dump");

	reset();
	log_standard();
	ki.size.printk_log.set = false;
	STATUS(dmesg_extract(&ki, &mem, false, &out, &stats, &err), MDF_ERR_NODATA);
	EQS(err.msg, "printk_log: VMCOREINFO has no SIZE(printk_log)");
}

/* ---- the legacy character ring ----------------------------------- */

static void legacy(void)
{
	reset();
	SET(ki.sym.log_buf, LOG_SYM);
	SET(ki.sym.log_buf_len, LOG_LEN_SYM);
	SET(ki.sym.log_end, LOG_END_SYM);
	put64(LOG_SYM, LOGBUF);
	put32(LOG_LEN_SYM, 16);
	memcpy(img + (LOGBUF - BASE), "0123456789abcdef", 16);
	put32(LOG_END_SYM, 5);
	OKC(dmesg_extract(&ki, &mem, false, &out, &stats, &err));
	EQS(text, "01234");
	T_EQ_U64(stats.format, DMESG_FMT_LEGACY);

	text_len = 0;
	memset(&out, 0, sizeof(out));
	out.write = collect;
	put32(LOG_END_SYM, 16 * 7 + 5);
	OKC(dmesg_extract(&ki, &mem, true, &out, &stats, &err));
	EQS(text, "56789abcdef01234");

	put32(LOG_LEN_SYM, 24);
	STATUS(dmesg_legacy(&ki, &mem, &out, &stats, &err), MDF_ERR_FORMAT);
	EQS(err.msg, "log_buf: log_buf_len 24 is not a power of two");

	put32(LOG_LEN_SYM, 1 << 20);   /* far past the image */
	put32(LOG_END_SYM, (1 << 20) + 5);
	STATUS(dmesg_legacy(&ki, &mem, &out, &stats, &err), MDF_ERR_NODATA);
}

int main(void)
{
	T_RUN(emit_format);
	T_RUN(out_buffering);
	T_RUN(detect);
	T_RUN(prb_basic);
	T_RUN(prb_partial);
	T_RUN(prb_ids_wrap);
	T_RUN(prb_bad_records);
	T_RUN(prb_bad_ring);
	T_RUN(prb_i386);
	T_RUN(printk_log_basic);
	T_RUN(printk_log_old_name);
	T_RUN(printk_log_bad);
	T_RUN(legacy);
	/* The same rings of a big-endian kernel. */
	mem.big_endian = true;
	T_RUN(prb_basic);
	T_RUN(prb_ids_wrap);
	T_RUN(prb_bad_records);
	T_RUN(printk_log_basic);
	T_RUN(legacy);
	mem.big_endian = false;
	return t_done();
}
