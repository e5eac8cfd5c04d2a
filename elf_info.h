/*
 * elf_info.h - ELF vmcore input (/proc/vmcore or a file), through libelf.
 *
 * Opens ELF32/ELF64 cores of either byte order, validates every program
 * header against the file size, and builds:
 *  - the PT_LOAD table in program-header order,
 *  - a sorted table of disjoint physical ranges for paddr -> file offset
 *    lookups by binary search.  Where segments alias the same physical
 *    memory (the kernel-text PT_LOAD of every x86_64 /proc/vmcore lies
 *    inside a RAM segment), each address has exactly one owner: the
 *    segment that starts lowest, ties broken by program-header order.
 *  - a copy of the PT_NOTE contents, the VMCOREINFO text and the number of
 *    NT_PRSTATUS notes (CPUs).
 *
 * It never parses the VMCOREINFO text: vmcoreinfo.c does.
 */
#ifndef MDF_ELF_INFO_H
#define MDF_ELF_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "error.h"
#include "input.h"

struct elf_load {
	unsigned phdr_index;  /* index in the program header table */
	uint64_t paddr, vaddr;
	uint64_t offset;      /* file offset of the segment */
	uint64_t filesz, memsz;
};

/* A piece of physical memory owned by one segment. */
struct elf_range {
	uint64_t pstart, pend;        /* physical [pstart, pend) */
	const struct elf_load *load;  /* owner */
};

/* Where a physical address lives. */
struct elf_loc {
	bool in_file;          /* false: past p_filesz, reads as zeros */
	uint64_t off;          /* file offset (if in_file) */
	uint64_t avail;        /* bytes from paddr to the end of this kind of
				  backing within the owner range: to the end of
				  file data if in_file, else to the end of the
				  zero tail */
	struct cache_span span; /* for cache_get(), if in_file */
};

/* e_flags bit 0: the ELF dump is incomplete (upstream's -E and ours). */
#define ELF_INFO_EF_INCOMPLETE 1u

struct elf_info {
	const char *path;       /* for messages, not owned */
	int fd;                 /* not owned */
	void *elf;              /* Elf * */
	uint64_t file_size;     /* 0 and size_known false for /proc/vmcore-like
				   files whose st_size is unreliable */
	bool size_known;
	int ei_class;           /* ELFCLASS32 / ELFCLASS64 */
	int ei_data;            /* ELFDATA2LSB / ELFDATA2MSB */
	uint16_t e_machine;
	uint32_t e_flags;        /* ELF_INFO_EF_INCOMPLETE: an -E dump cut short */
	size_t host_page_size;

	struct elf_load *loads; /* PT_LOADs in program-header order, zero-sized
				   ones included (they own no range) */
	size_t nloads;
	struct elf_range *ranges; /* sorted by pstart, disjoint */
	size_t nranges;

	unsigned char *notes;   /* concatenated PT_NOTE contents (copy) */
	size_t notes_len;
	const char *vmcoreinfo; /* points into notes (descriptor), or NULL */
	size_t vmcoreinfo_len;  /* text length, without trailing NULs */
	size_t vmcoreinfo_off;  /* offset of the descriptor within notes */
	size_t vmcoreinfo_descsz; /* the note's n_descsz */
	/* VMCOREINFO read from memory (elf_info_vmcoreinfo_from_memory()),
	 * not from a note of the file: vmcoreinfo points here, and
	 * vmcoreinfo_off means nothing. */
	unsigned char *vmcoreinfo_mem;
	unsigned open_flags;    /* ELF_INFO_* given to elf_info_open_flags() */
	unsigned nr_cpus;       /* NT_PRSTATUS notes */
	unsigned nophys_loads;  /* PT_LOADs with p_paddr -1, left out of
				   loads: /proc/kcore's shape (kcore.h) */
};

/**
 * Read and check the ELF headers of @fd.  Every failure names @path and the
 * problem, e.g. "vmcore: PT_LOAD 3: file offset 0x5000+0x3000 past end of
 * file (size 0x6000)" (the number is the program-header index).  Missing
 * VMCOREINFO is an error (MDF_ERR_FORMAT).  On failure @ei is left closed;
 * elf_info_close() on it is harmless.
 */
enum mdf_status elf_info_open(struct elf_info *ei, int fd, const char *path,
			      struct mdf_err *err) MDF_MUST_CHECK;

/** The message for a /proc/kcore-shaped file without VMCOREINFO (the
 * note came in Linux 4.19, commit 23c85094fe18, "proc/kcore: add
 * vmcoreinfo note to /proc/kcore"). */
#define ELF_INFO_NO_KCORE_VMCOREINFO \
	"no VMCOREINFO note (/proc/kcore has one from Linux 4.19 on)"

/** With elf_info_open_flags(): a missing VMCOREINFO note is not an error
 * (vmcoreinfo stays NULL; the caller finds it elsewhere or fails). */
#define ELF_INFO_VMCOREINFO_LATER 1u

/** elf_info_open() with ELF_INFO_* @flags. */
enum mdf_status elf_info_open_flags(struct elf_info *ei, int fd, const char *path,
				    unsigned flags, struct mdf_err *err) MDF_MUST_CHECK;

/**
 * Take VMCOREINFO from the ELF note of @size bytes (at most 1 MiB) at
 * physical address @paddr, read through @cache: what a live kernel's
 * /sys/kernel/vmcoreinfo names.  The note must be named "VMCOREINFO".
 */
enum mdf_status elf_info_vmcoreinfo_from_memory(struct elf_info *ei,
						struct cache *cache,
						uint64_t paddr, uint64_t size,
						struct mdf_err *err) MDF_MUST_CHECK;
void elf_info_close(struct elf_info *ei);

/** Locate @paddr: MDF_ERR_NODATA if no segment covers it (a hole). */
enum mdf_status elf_info_locate(const struct elf_info *ei, uint64_t paddr,
				struct elf_loc *ret);

/** Highest physical address + 1 over all PT_LOADs (p_memsz). */
uint64_t elf_info_max_paddr(const struct elf_info *ei);

/**
 * Read @len bytes of physical memory at @paddr into @buf through @cache,
 * crossing segment boundaries and zero-filling past p_filesz.  A hole is
 * MDF_ERR_NODATA.
 */
enum mdf_status elf_info_read_paddr(const struct elf_info *ei,
				    struct cache *cache, uint64_t paddr,
				    void *buf, size_t len,
				    struct mdf_err *err) MDF_MUST_CHECK;

/** The ELF input's ops (input.h): the object is a struct elf_info. */
extern const struct input_ops elf_input_ops;

#endif
