/*
 * util.h - small helpers with no context: full-length pread/pwrite,
 * number parsing, endian loads, alignment.
 */
#ifndef MDF_UTIL_H
#define MDF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MDF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MDF_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline uint64_t align_down(uint64_t x, uint64_t a) { return x & ~(a - 1); }
static inline uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }
static inline uint64_t div_round_up(uint64_t x, uint64_t d) { return (x + d - 1) / d; }
/* Does the 64-bit count @n fit in size_t (a 32-bit host's memory)? */
static inline bool size_fits(uint64_t n) { return n == (uint64_t)(size_t)n; }

/**
 * Read exactly @len bytes at @off, retrying short reads and EINTR.
 * *@got receives the byte count actually read (less than @len only at end
 * of file).  Returns MDF_ERR_IO on a read error, with errno in @err.
 */
enum mdf_status util_pread_full(int fd, void *buf, size_t len, uint64_t off,
				size_t *got, struct mdf_err *err) MDF_MUST_CHECK;

/** Write all of @buf at @off (pwrite), retrying short writes and EINTR. */
enum mdf_status util_pwrite_full(int fd, const void *buf, size_t len,
				 uint64_t off, struct mdf_err *err) MDF_MUST_CHECK;

/** Write all of @buf at the current position (for pipes). */
enum mdf_status util_write_full(int fd, const void *buf, size_t len,
				struct mdf_err *err) MDF_MUST_CHECK;

/** Parse an unsigned number, base 0 rules ("0x" hex, "0" octal). */
bool util_parse_u64(const char *s, uint64_t *ret);
/** Parse a number in the given base, whole string. */
bool util_parse_u64_base(const char *s, int base, uint64_t *ret);
/** Parse a signed decimal (or 0x hex) number, whole string. */
bool util_parse_s64(const char *s, int64_t *ret);

/* The host's byte order, for data that is in the target's (the dump's). */
#define MDF_HOST_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static inline uint16_t load_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | b[1] << 8);
}
static inline uint32_t load_le32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}
static inline uint64_t load_le64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)load_le32(b) | (uint64_t)load_le32(b + 4) << 32;
}
static inline uint32_t load_be32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[0] << 24;
}
static inline uint64_t load_be64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)load_be32(b) << 32 | (uint64_t)load_be32(b + 4);
}
static inline uint16_t load_be16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[1] | b[0] << 8);
}
/* Target data: in the dump's byte order, @big when big-endian. */
static inline uint16_t load_t16(const void *p, bool big)
{
	return big ? load_be16(p) : load_le16(p);
}
static inline uint32_t load_t32(const void *p, bool big)
{
	return big ? load_be32(p) : load_le32(p);
}
static inline uint64_t load_t64(const void *p, bool big)
{
	return big ? load_be64(p) : load_le64(p);
}
/* A target word (unsigned long, pointer) of @word bytes, 4 or 8. */
static inline uint64_t load_tword(const void *p, unsigned word, bool big)
{
	return word == 4 ? load_t32(p, big) : load_t64(p, big);
}
static inline void store_be64(void *p, uint64_t v)
{
	uint8_t *b = p;
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}
static inline void store_le64(void *p, uint64_t v)
{
	uint8_t *b = p;
	for (int i = 0; i < 8; i++, v >>= 8)
		b[i] = (uint8_t)v;
}
static inline void store_be32(void *p, uint32_t v)
{
	uint8_t *b = p;
	for (int i = 3; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}
static inline void store_le32(void *p, uint32_t v)
{
	uint8_t *b = p;
	for (int i = 0; i < 4; i++, v >>= 8)
		b[i] = (uint8_t)v;
}

/** True when @path names the file open as @fd (the same device and inode:
 *  another name or a hard link of it too).  False when @path does not
 *  exist. */
bool util_same_file(int fd, const char *path);

/** True if all @len bytes at @p are zero (any length, any alignment). */
bool util_is_zero(const void *p, size_t len);

/** KERNEL_VERSION(a, b, c) as the kernel packs it (c clamped to 255). */
static inline unsigned util_kver(unsigned a, unsigned b, unsigned c)
{
	return (a << 16) + (b << 8) + (c > 255 ? 255 : c);
}

/** Parse an OSRELEASE such as "6.12.117+deb13-amd64" into
 * KERNEL_VERSION(6,12,117); 0 when it does not start "MAJOR.MINOR". */
unsigned util_parse_kver(const char *osrelease);

#endif
