/*
 * tests/lib/corefile.h - a small ELF64 little-endian x86_64 core in a
 * memfd, for unit tests that need a real input without a fixture: one
 * header page (ELF header, program headers, a VMCOREINFO note at 0x100),
 * then the memory of one PT_LOAD.  Header-only (static inline).
 */
#ifndef MDF_TESTS_COREFILE_H
#define MDF_TESTS_COREFILE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define T_CORE_HDR 0x1000
#define T_CORE_NOTE_OFF 0x100

static inline void t_core_put(unsigned char *p, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * @mem (@len bytes) at physical 0 and virtual @vaddr, VMCOREINFO @text;
 * the memfd is named @name.  Returns the fd or -1.
 */
static inline int t_core_memfd(const char *name, const char *text,
			       uint64_t vaddr, const void *mem, uint64_t len)
{
	unsigned char hdr[T_CORE_HDR];
	size_t tl = strlen(text);
	size_t note_len = 12 + 12 + ((tl + 3) & ~(size_t)3);
	unsigned char *p;
	int fd;

	if (T_CORE_NOTE_OFF + note_len > sizeof(hdr))
		return -1;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, ELFMAG, SELFMAG);
	hdr[EI_CLASS] = ELFCLASS64;
	hdr[EI_DATA] = ELFDATA2LSB;
	hdr[EI_VERSION] = EV_CURRENT;
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_type), 2, ET_CORE);
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_machine), 2, EM_X86_64);
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_version), 4, EV_CURRENT);
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_phoff), 8, sizeof(Elf64_Ehdr));
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_ehsize), 2, sizeof(Elf64_Ehdr));
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_phentsize), 2, sizeof(Elf64_Phdr));
	t_core_put(hdr + offsetof(Elf64_Ehdr, e_phnum), 2, 2);
	p = hdr + sizeof(Elf64_Ehdr);
	t_core_put(p + offsetof(Elf64_Phdr, p_type), 4, PT_NOTE);
	t_core_put(p + offsetof(Elf64_Phdr, p_offset), 8, T_CORE_NOTE_OFF);
	t_core_put(p + offsetof(Elf64_Phdr, p_filesz), 8, note_len);
	p += sizeof(Elf64_Phdr);
	t_core_put(p + offsetof(Elf64_Phdr, p_type), 4, PT_LOAD);
	t_core_put(p + offsetof(Elf64_Phdr, p_flags), 4, PF_R | PF_W | PF_X);
	t_core_put(p + offsetof(Elf64_Phdr, p_offset), 8, sizeof(hdr));
	t_core_put(p + offsetof(Elf64_Phdr, p_vaddr), 8, vaddr);
	t_core_put(p + offsetof(Elf64_Phdr, p_paddr), 8, 0);
	t_core_put(p + offsetof(Elf64_Phdr, p_filesz), 8, len);
	t_core_put(p + offsetof(Elf64_Phdr, p_memsz), 8, len);
	p = hdr + T_CORE_NOTE_OFF;
	t_core_put(p, 4, sizeof("VMCOREINFO"));
	t_core_put(p + 4, 4, tl);
	memcpy(p + 12, "VMCOREINFO", sizeof("VMCOREINFO"));
	memcpy(p + 24, text, tl);

	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    pwrite(fd, mem, len, sizeof(hdr)) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif
