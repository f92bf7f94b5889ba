/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What papi_which reads of an ELF file, 32- or 64-bit, either byte order:
 * class, machine, PT_INTERP, PT_DYNAMIC, and our component's mark.  Every
 * offset is checked against the file's size: a bad file is an error.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "which.h"

/* Our perf_event component reads this variable and stock PAPI never
 * names it; both export the same symbols, so the text is the mark. */
static const char ours_mark[] = "LOPE_NO_RDPMC";

struct img {
	const unsigned char *p;
	size_t size;
	int is64, msb;
};

/* The @n-byte number at @off, in the file's byte order. */
static uint64_t rd(const struct img *m, uint64_t off, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)m->p[off + (m->msb ? n - 1 - i : i)] << (8 * i);
	return v;
}

/* Field @f of the Elf*_Ehdr or Elf*_Phdr (@T) at @off. */
#define GET(m, off, T, f)                                \
	rd(m,                                            \
	   (off) + ((m)->is64 ? offsetof(Elf64_##T, f) : \
				offsetof(Elf32_##T, f)), \
	   (m)->is64 ? sizeof(((Elf64_##T *)0)->f) :     \
		       sizeof(((Elf32_##T *)0)->f))

static int inside(const struct img *m, uint64_t off, uint64_t n)
{
	return off <= m->size && n <= m->size - off;
}

/* Read the headers into @e: NULL, or what is wrong. */
static const char *parse(struct img *m, struct wh_elf *e)
{
	uint64_t off, num, sz, type, at, n;

	if (m->size < EI_NIDENT || memcmp(m->p, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (m->p[EI_CLASS] != ELFCLASS32 && m->p[EI_CLASS] != ELFCLASS64)
		return "unknown ELF class";
	e->is64 = m->is64 = m->p[EI_CLASS] == ELFCLASS64;
	e->msb = m->msb = m->p[EI_DATA] == ELFDATA2MSB;
	if (!inside(m, 0, m->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return "truncated ELF header";
	type = GET(m, 0, Ehdr, e_type);
	if (type != ET_EXEC && type != ET_DYN)
		return "not an executable or a shared object";
	e->machine = GET(m, 0, Ehdr, e_machine);
	off = GET(m, 0, Ehdr, e_phoff);
	num = GET(m, 0, Ehdr, e_phnum);
	sz = m->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (num && GET(m, 0, Ehdr, e_phentsize) != sz)
		return "bad program header table";
	if (!inside(m, off, num * sz))
		return "truncated program headers";
	for (; num--; off += sz) {
		type = GET(m, off, Phdr, p_type);
		at = GET(m, off, Phdr, p_offset);
		n = GET(m, off, Phdr, p_filesz);
		e->dynamic |= type == PT_DYNAMIC;
		if (type != PT_INTERP || e->interp[0])
			continue;
		if (!inside(m, at, n) || n < 2 || n > sizeof(e->interp) ||
		    m->p[at + n - 1])
			return "bad PT_INTERP";
		memcpy(e->interp, m->p + at, n);
	}
	e->ours = !!memmem(m->p, m->size, ours_mark, sizeof(ours_mark));
	return NULL;
}

int wh_elf__read(const char *path, struct wh_elf *e, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOEXEC;
	struct img m = { 0 };
	const char *bad = NULL;
	struct stat st;

	memset(e, 0, sizeof(*e));
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		bad = strerror(errno);
	} else if (S_ISDIR(st.st_mode)) {
		bad = "is a directory, not a program";
	} else if (!S_ISREG(st.st_mode) || !st.st_size) {
		bad = st.st_size ? "not a regular file" :
				   "not an ELF file (empty)";
	} else {
		m.size = st.st_size;
		m.p = mmap(NULL, m.size, PROT_READ, MAP_PRIVATE, fd, 0);
		bad = m.p == MAP_FAILED ? strerror(errno) : parse(&m, e);
		if (m.p != MAP_FAILED)
			munmap((void *)m.p, m.size);
	}
	if (fd >= 0)
		close(fd);
	if (bad)
		snprintf(why, len, "%s: %s", path, bad);
	return bad ? err : 0;
}

void wh_elf__describe(const struct wh_elf *e, char *buf, size_t len)
{
	const char *mach = e->machine == EM_X86_64  ? "x86-64" :
			   e->machine == EM_AARCH64 ? "aarch64" :
			   e->machine == EM_RISCV   ? "riscv" :
			   e->machine == EM_386     ? "i386" :
						      NULL;

	if (mach)
		snprintf(buf, len, "ELF %d-bit %s %s", e->is64 ? 64 : 32,
			 e->msb ? "MSB" : "LSB", mach);
	else
		snprintf(buf, len, "ELF %d-bit %s machine %d",
			 e->is64 ? 64 : 32, e->msb ? "MSB" : "LSB", e->machine);
}
