/*
 * vmcoreinfo.h - VMCOREINFO text <-> struct kinfo.
 *
 * The crashed kernel describes itself in a text note, one "KEY=value"
 * entry per line (kernel/crash_core.c):
 *
 *   OSRELEASE=6.1.0-57-amd64          string, at most 64 bytes
 *   BUILD-ID=6a2b4ac7...              hex digits, at most 128
 *   PAGESIZE=4096                     decimal
 *   KERNELOFFSET=26e00000             hex, no 0x
 *   CRASHTIME=1796083400              decimal seconds
 *   SYMBOL(mem_section)=ffff8ceb...   hex, no 0x
 *   SIZE(page)=64                     decimal
 *   OFFSET(page.compound_head)=8      decimal
 *   LENGTH(mem_section)=4096          decimal
 *   NUMBER(phys_base)=-322961408      signed decimal ("%ld"), or 0x hex
 *   CONFIG_X86_PAE=y
 *   SRCFILE(pud_t)=arch/x86/include/asm/pgtable_types.h   (-g only)
 *
 * The names known inside SYMBOL(), SIZE(), ... and after CONFIG_ are the
 * X-macro lists of kinfo.h; this module generates its tables from them.
 *
 * Pure: no I/O, no allocation, no printing.  The parser is fed untrusted
 * bytes and has a fuzz target (tests/fuzz/fuzz_vmcoreinfo.c).
 */
#ifndef MDF_VMCOREINFO_H
#define MDF_VMCOREINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kinfo.h"

/*
 * An upper bound on the length of vmcoreinfo_format() output for any
 * struct kinfo (NUL included): 512 bytes for the plain keys, plus per
 * listed name its key and 32 bytes for "OFFSET(" ")=" a 20-digit value
 * and the newline.
 */
#define VMCOREINFO_X_LINE_MAX(ident, key) +(sizeof(key) + 32)
#define VMCOREINFO_TEXT_MAX                                          \
	(512 KINFO_SYMBOLS(VMCOREINFO_X_LINE_MAX)                    \
	     KINFO_SIZES(VMCOREINFO_X_LINE_MAX)                      \
	     KINFO_OFFSETS(VMCOREINFO_X_LINE_MAX)                    \
	     KINFO_LENGTHS(VMCOREINFO_X_LINE_MAX)                    \
	     KINFO_NUMBERS(VMCOREINFO_X_LINE_MAX)                    \
	     KINFO_CONFIGS(VMCOREINFO_X_LINE_MAX)                    \
	     KINFO_SRCFILES(VMCOREINFO_SRCFILE_LINE_MAX))
#define VMCOREINFO_SRCFILE_LINE_MAX(ident, key) +(sizeof(key) + 12 + KINFO_SRCFILE_MAX)

/** The number of keys known: the seven plain ones and every listed name. */
#define VMCOREINFO_ONE_KEY(ident, key) +1
#define VMCOREINFO_KEYS                                              \
	(7 KINFO_SYMBOLS(VMCOREINFO_ONE_KEY) KINFO_SIZES(VMCOREINFO_ONE_KEY) \
	   KINFO_OFFSETS(VMCOREINFO_ONE_KEY) KINFO_LENGTHS(VMCOREINFO_ONE_KEY) \
	   KINFO_NUMBERS(VMCOREINFO_ONE_KEY) KINFO_CONFIGS(VMCOREINFO_ONE_KEY) \
	   KINFO_SRCFILES(VMCOREINFO_ONE_KEY))

/** The line (1-based) of a text each known key was on; 0: not there. */
struct vmcoreinfo_lines {
	uint32_t line[VMCOREINFO_KEYS];
};

/** Set every field of @ki to "not present" (all bytes zero). */
void kinfo_init(struct kinfo *ki);

/**
 * Parse @len bytes of VMCOREINFO text into @ret.
 *
 * The text need not be NUL-terminated; it ends at @len or at the first
 * NUL byte, whichever comes first (the note descriptor is padded with
 * NULs).  Lines end with '\n'; the last one may lack it.  Nothing past
 * @len is read.
 *
 * Merge semantics: each known key found sets its field in @ret, fields
 * not mentioned are left as they are.  Call kinfo_init() first for a
 * fresh result; parsing over values from another source (-x vmlinux)
 * lets VMCOREINFO override them.  A key given twice with the same value
 * is taken; with another value it is an error naming both lines:
 * "VMCOREINFO line 40: SIZE(page)=72 conflicts with line 12: SIZE(page)=64".
 *
 * Values no kernel can have are refused, naming the line:
 * "VMCOREINFO line N: KEY=VALUE REASON" (vmcoreinfo_check() below lists
 * them), and so are keys that contradict each other in the text:
 * "VMCOREINFO line N: OFFSET(zone.vm_stat)=2000 lies outside
 * SIZE(zone)=1536 (line M)".
 *
 * Ignored: empty lines, unknown keys, and unknown names inside a known
 * form (SYMBOL(foo) when foo is not in KINFO_SYMBOLS, CONFIG_FOO).
 *
 * Errors, MDF_ERR_FORMAT, message "VMCOREINFO line N: ..." (N 1-based):
 *   - a non-empty line without '=': "no '=' in 'LINE'";
 *   - a known key whose value does not parse: "KEY: bad number 'VALUE'"
 *     (empty, not a number of the key's kind, overflow, trailing bytes
 *     including blanks or '\r'); "OSRELEASE: empty value";
 *     "OSRELEASE: value too long (N bytes, max 64)" (BUILD-ID likewise,
 *     max 128); "BUILD-ID: bad hex string 'VALUE'" (empty or non-hex);
 *     "CONFIG_X: bad value 'VALUE' (want y or n)"; n leaves it false.
 * Quoted text is shortened and non-printable bytes are shown as \xNN.
 * NUMBER() accepts [-]decimal within int64_t, or 0x hex up to 64 bits
 * stored as the same bit pattern (NUMBER(VMALLOC_START)=0xffffcd8c...).
 * Hex keys (SYMBOL, KERNELOFFSET) accept an optional "0x" prefix.
 * On failure @ret holds the lines before the bad one.
 * Not failures: a bad value in a key that filtering does not read
 * (BUILD-ID, CRASHTIME, kallsyms and printk keys) leaves that field
 * unset, and the first such line's key and message go to
 * @ret->ignored_key / ignored_msg (a warning, or the error of the feature
 * that needs the key).  Text after a NUL is padding unless it holds more
 * lines ('=' and '\n'): then "VMCOREINFO line N: NUL byte at offset O,
 * text follows it" names the line the NUL cut.
 * MDF_ERR_ARG if @text is NULL while @len > 0.
 */
enum mdf_status vmcoreinfo_parse(const char *text, size_t len,
				 struct kinfo *ret,
				 struct mdf_err *err) MDF_MUST_CHECK;

/** vmcoreinfo_parse(), and the line of each key the text has in @lines. */
enum mdf_status vmcoreinfo_parse_lines(const char *text, size_t len,
				       struct kinfo *ret,
				       struct vmcoreinfo_lines *lines,
				       struct mdf_err *err) MDF_MUST_CHECK;

/** A text @ki's values came from, for messages. */
struct vmcoreinfo_source {
	const char *name;                     /* the file, or NULL */
	const struct vmcoreinfo_lines *lines; /* its keys; NULL: the keys no
						 source with lines has
						 (-x VMLINUX) */
};

/**
 * Check @ki, put together from several sources (the note over -i FILE
 * over -x VMLINUX), for what no kernel can have; the parser checks each
 * text alone, this the whole.  Each value (keys filtering does not read
 * are left out):
 *   PAGESIZE                     a power of two, 4096 to 262144
 *   NUMBER(PG_x)                 a bit number, 0 to 63
 *   NUMBER(PG_head_mask)         one bit set
 *   NUMBER(PAGE_x_MAPCOUNT_VALUE) a page type: -128 (2.6.38 to 4.17),
 *                                ~(1 << N) for N 7 to 30 (4.18 to 6.11),
 *                                T << 24 for T 0xf0 to 0xfe (6.12 on),
 *                                sign-extended or as 32 bits
 *   NUMBER(HUGETLB_PAGE_DTOR)    1 to 255
 *   NUMBER(SECTION_SIZE_BITS)    20 to 40
 *   NUMBER(MAX_PHYSMEM_BITS)     32 to 64
 *   NUMBER(NR_FREE_PAGES)        0 to 255
 *   LENGTH(zone.free_area)       1 to 64; LENGTH(free_area.free_list) too
 *   SIZE(mem_section)            a multiple of 8, 8 to 256
 *   SYMBOL(x)                    not 0
 * and together: OFFSET(S.m) below SIZE(S) whenever both are known, the
 * five page types all different, PG_head_mask = 1 << PG_head,
 * SECTION_SIZE_BITS below MAX_PHYSMEM_BITS.
 * MDF_ERR_FORMAT naming the key's source by @src (the first with a line
 * for it, else the one without lines): "FILE: VMCOREINFO line N: KEY=V
 * REASON", "VMLINUX: KEY=V REASON", or "VMCOREINFO: ..." when no source
 * is known; a second key in parentheses, "(line M)" in the same text.
 */
enum mdf_status vmcoreinfo_check(const struct kinfo *ki,
				 const struct vmcoreinfo_source *src, size_t nsrc,
				 struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Write every present field of @ki as VMCOREINFO lines ("KEY=value\n"),
 * in the order of kinfo.h (plain keys, SYMBOL, SIZE, OFFSET, LENGTH,
 * NUMBER, CONFIG), as -g does.  NUMBER() values are written in signed
 * decimal, hex fields without 0x.  vmcoreinfo_parse() of the output into
 * a kinfo_init()ed struct gives a struct equal to @ki (memcmp) when @ki
 * was itself built by kinfo_init() + vmcoreinfo_parse().
 *
 * @buf receives the text and a terminating NUL; *@len_ret the text length
 * without the NUL.  If @cap is too small (VMCOREINFO_TEXT_MAX always
 * suffices): MDF_ERR_NOSPC, @buf holds a truncated NUL-terminated prefix
 * (if @cap > 0) and *@len_ret the length that would have been written,
 * so @buf may be NULL with @cap 0 to ask for the size.
 * MDF_ERR_ARG if osrelease is not NUL-terminated within its array or
 * holds a newline, or build_id is not a string of hex digits: such a
 * value would not re-parse.
 */
enum mdf_status vmcoreinfo_format(const struct kinfo *ki, char *buf,
				  size_t cap, size_t *len_ret,
				  struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Look up one numeric field by its VMCOREINFO key, spelled as in the text:
 * "PAGESIZE", "KERNELOFFSET", "CRASHTIME", "SYMBOL(mem_section)",
 * "SIZE(page)", "OFFSET(page.flags)", "LENGTH(zone.free_area)",
 * "NUMBER(phys_base)" (returned as the int64_t bit pattern; cast back),
 * "CONFIG_X86_PAE" (1 when y).  @key is NUL-terminated.
 * Returns false if the key is unknown, is a string key (OSRELEASE,
 * BUILD-ID: read the struct), or the field is not present.
 */
bool vmcoreinfo_lookup(const struct kinfo *ki, const char *key,
		       uint64_t *ret);

/**
 * Set one numeric field by its key, spelled as for vmcoreinfo_lookup()
 * (NUMBER() takes the int64_t bit pattern).  False if the key is unknown
 * or a string key.
 */
bool vmcoreinfo_set(struct kinfo *ki, const char *key, uint64_t v);

/**
 * Every field present in @src overwrites its field in @dst; the rest of
 * @dst stays.  How a second source is laid under the note: merge the
 * note over it.
 */
void vmcoreinfo_merge(struct kinfo *dst, const struct kinfo *src);

/**
 * Number of present fields in @ki: numeric fields with .set, non-empty
 * osrelease and build_id, configs that are y.  Equals the number of lines
 * vmcoreinfo_format() writes.
 */
size_t vmcoreinfo_count_set(const struct kinfo *ki);

/**
 * Parse /sys/kernel/vmcoreinfo ("%pa %x": the physical address of the
 * running kernel's VMCOREINFO note, then its size, both hex, e.g.
 * "0x0000000100c66000 1024").  False unless it is exactly that.
 */
bool vmcoreinfo_sysfs_parse(const char *text, size_t len, uint64_t *paddr_ret,
			    uint64_t *size_ret);

#endif
