/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the dynamic linker reads of an ELF file: class, byte order,
 * machine, PT_INTERP and the dynamic section (DT_NEEDED, DT_RPATH,
 * DT_RUNPATH, DT_SONAME, DF_1_NODEFLIB), 32- and 64-bit, either byte
 * order.  The file is mapped read-only and checked against its size at
 * every offset: a truncated or hostile file is an error, never a crash.
 */
#define _GNU_SOURCE
#include <byteswap.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "which.h"

/*
 * Our libpapi's perf_event component reads this variable; stock PAPI
 * never names it.  PAPI builds with -fvisibility=hidden, so ours exports
 * the same dynamic symbols as stock: the component's own text is the mark.
 */
#define WH_OURS_MARK "LOPE_NO_RDPMC"

/* The mapped file and how to read its numbers. */
struct img {
	const unsigned char *p;
	size_t size;
	int is64;
	int swap;
};

/* Program header, dynamic entry and section header, either class. */
struct phdr {
	uint64_t type, offset, vaddr, filesz;
};

struct shdr {
	uint64_t type, flags, offset, size;
};

static uint16_t rd16(const struct img *m, uint64_t off)
{
	uint16_t v;

	memcpy(&v, m->p + off, sizeof(v));
	return m->swap ? bswap_16(v) : v;
}

static uint32_t rd32(const struct img *m, uint64_t off)
{
	uint32_t v;

	memcpy(&v, m->p + off, sizeof(v));
	return m->swap ? bswap_32(v) : v;
}

static uint64_t rd64(const struct img *m, uint64_t off)
{
	uint64_t v;

	memcpy(&v, m->p + off, sizeof(v));
	return m->swap ? bswap_64(v) : v;
}

/* A word: 8 bytes in a 64-bit file, 4 in a 32-bit one. */
static uint64_t rdw(const struct img *m, uint64_t off)
{
	return m->is64 ? rd64(m, off) : rd32(m, off);
}

/* Whether [@off, @off + @n) lies inside the file. */
static int inside(const struct img *m, uint64_t off, uint64_t n)
{
	return off <= m->size && n <= m->size - off;
}

static int phdr_get(const struct img *m, uint64_t off, struct phdr *ph)
{
	if (!inside(m, off, m->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return -EINVAL;
	ph->type = rd32(m, off);
	if (m->is64) {
		ph->offset = rd64(m, off + offsetof(Elf64_Phdr, p_offset));
		ph->vaddr = rd64(m, off + offsetof(Elf64_Phdr, p_vaddr));
		ph->filesz = rd64(m, off + offsetof(Elf64_Phdr, p_filesz));
	} else {
		ph->offset = rd32(m, off + offsetof(Elf32_Phdr, p_offset));
		ph->vaddr = rd32(m, off + offsetof(Elf32_Phdr, p_vaddr));
		ph->filesz = rd32(m, off + offsetof(Elf32_Phdr, p_filesz));
	}
	return 0;
}

/* The file offset of address @addr, from the PT_LOAD segments. */
static int vaddr_off(const struct img *m, const struct phdr *ph, int n,
		     uint64_t addr, uint64_t *off)
{
	int i;

	for (i = 0; i < n; i++)
		if (ph[i].type == PT_LOAD && addr >= ph[i].vaddr &&
		    addr - ph[i].vaddr < ph[i].filesz) {
			*off = ph[i].offset + (addr - ph[i].vaddr);
			return inside(m, *off, 1) ? 0 : -EINVAL;
		}
	return -EINVAL;
}

/* A copy of the NUL-terminated string at @off, or NULL if it runs off
 * the end of the file. */
static char *str_at(const struct img *m, uint64_t off)
{
	const void *end;

	if (!inside(m, off, 1))
		return NULL;
	end = memchr(m->p + off, 0, m->size - off);
	return end ? wh_strdup((const char *)m->p + off) : NULL;
}

static void set_why(char *why, size_t len, const char *path, const char *s)
{
	snprintf(why, len, "%s: %s", path, s);
}

/* The identification bytes: class and byte order, or -ENOEXEC. */
static int check_ident(struct img *m, struct wh_elf *e, char *why, size_t len)
{
	const unsigned char *id = m->p;
	int host_lsb = __BYTE_ORDER == __LITTLE_ENDIAN;

	if (m->size < EI_NIDENT || memcmp(id, ELFMAG, SELFMAG) != 0) {
		set_why(why, len, e->path, "not an ELF file");
		return -ENOEXEC;
	}
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64) {
		set_why(why, len, e->path, "unknown ELF class");
		return -ENOEXEC;
	}
	if (id[EI_DATA] != ELFDATA2LSB && id[EI_DATA] != ELFDATA2MSB) {
		set_why(why, len, e->path, "unknown ELF byte order");
		return -ENOEXEC;
	}
	e->elf_class = id[EI_CLASS];
	e->data = id[EI_DATA];
	m->is64 = e->elf_class == ELFCLASS64;
	m->swap = (e->data == ELFDATA2LSB) != host_lsb;
	if (!inside(m, 0, m->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
		set_why(why, len, e->path, "truncated ELF header");
		return -ENOEXEC;
	}
	return 0;
}

/* Read the dynamic entries at @dyn (@size bytes) into @e. */
static int read_dynamic(const struct img *m, const struct phdr *ph, int n,
			uint64_t dyn, uint64_t size, struct wh_elf *e)
{
	uint64_t ent = m->is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t strtab = 0, o, tag, val, soname = 0, rpath = 0, runpath = 0;
	int have_str = 0, have_soname = 0, have_rpath = 0, have_runpath = 0;
	int i, nr = 0;

	for (o = dyn; o + ent <= dyn + size && inside(m, o, ent); o += ent) {
		tag = rdw(m, o);
		val = rdw(m, o + ent / 2);
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB && !vaddr_off(m, ph, n, val, &strtab))
			have_str = 1;
		if (tag == DT_NEEDED)
			nr++;
		if (tag == DT_SONAME)
			soname = val, have_soname = 1;
		if (tag == DT_RPATH)
			rpath = val, have_rpath = 1;
		if (tag == DT_RUNPATH)
			runpath = val, have_runpath = 1;
		if (tag == DT_FLAGS_1 && (val & DF_1_NODEFLIB))
			e->nodeflib = 1;
	}
	if (!have_str)
		return nr || have_soname || have_rpath || have_runpath ?
			       -EINVAL :
			       0;
	e->needed = calloc(nr ? nr : 1, sizeof(*e->needed));
	if (!e->needed)
		return -ENOMEM;
	for (o = dyn, i = 0; i < nr && inside(m, o, ent); o += ent) {
		if (rdw(m, o) != DT_NEEDED)
			continue;
		e->needed[i] = str_at(m, strtab + rdw(m, o + ent / 2));
		if (!e->needed[i++])
			return -EINVAL;
		e->nr_needed = i;
	}
	/* The loader ignores DT_RPATH where DT_RUNPATH is present. */
	if (have_rpath && !have_runpath &&
	    !(e->rpath = str_at(m, strtab + rpath)))
		return -EINVAL;
	if (have_runpath && !(e->runpath = str_at(m, strtab + runpath)))
		return -EINVAL;
	if (have_soname && !(e->soname = str_at(m, strtab + soname)))
		return -EINVAL;
	return 0;
}

/* The program headers: PT_INTERP and PT_DYNAMIC. */
static int read_segments(const struct img *m, struct wh_elf *e, char *why,
			 size_t len)
{
	uint64_t phoff = m->is64 ? rd64(m, offsetof(Elf64_Ehdr, e_phoff)) :
				   rd32(m, offsetof(Elf32_Ehdr, e_phoff));
	int phnum = rd16(m, m->is64 ? offsetof(Elf64_Ehdr, e_phnum) :
				      offsetof(Elf32_Ehdr, e_phnum));
	int phsz = rd16(m, m->is64 ? offsetof(Elf64_Ehdr, e_phentsize) :
				     offsetof(Elf32_Ehdr, e_phentsize));
	struct phdr ph[64];
	int i, err = 0;

	if (phnum > (int)(sizeof(ph) / sizeof(ph[0])) ||
	    (phnum && phsz != (m->is64 ? (int)sizeof(Elf64_Phdr) :
					 (int)sizeof(Elf32_Phdr)))) {
		set_why(why, len, e->path, "bad program header table");
		return -ENOEXEC;
	}
	for (i = 0; i < phnum; i++)
		if (phdr_get(m, phoff + (uint64_t)i * phsz, &ph[i])) {
			set_why(why, len, e->path, "truncated program headers");
			return -ENOEXEC;
		}
	for (i = 0; i < phnum && !err; i++) {
		if (ph[i].type == PT_INTERP && !e->interp &&
		    (!inside(m, ph[i].offset, ph[i].filesz) ||
		     !(e->interp = str_at(m, ph[i].offset))))
			err = -EINVAL;
		if (ph[i].type == PT_DYNAMIC && !e->dynamic) {
			e->dynamic = 1;
			err = read_dynamic(m, ph, phnum, ph[i].offset,
					   ph[i].filesz, e);
		}
	}
	if (err)
		set_why(why, len, e->path,
			err == -ENOMEM ? "out of memory" :
					 "bad dynamic section or PT_INTERP");
	return err == -EINVAL ? -ENOEXEC : err;
}

static int shdr_get(const struct img *m, uint64_t off, struct shdr *sh)
{
	if (!inside(m, off, m->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return -EINVAL;
	sh->type = rd32(m, off + 4);
	sh->flags = rdw(m, off + 8);
	if (m->is64) {
		sh->offset = rd64(m, off + offsetof(Elf64_Shdr, sh_offset));
		sh->size = rd64(m, off + offsetof(Elf64_Shdr, sh_size));
	} else {
		sh->offset = rd32(m, off + offsetof(Elf32_Shdr, sh_offset));
		sh->size = rd32(m, off + offsetof(Elf32_Shdr, sh_size));
	}
	return 0;
}

/* Whether @s (with its NUL) stands in a loaded read-only data section. */
static int has_string(const struct img *m, const char *s)
{
	uint64_t shoff = m->is64 ? rd64(m, offsetof(Elf64_Ehdr, e_shoff)) :
				   rd32(m, offsetof(Elf32_Ehdr, e_shoff));
	int shnum = rd16(m, m->is64 ? offsetof(Elf64_Ehdr, e_shnum) :
				      offsetof(Elf32_Ehdr, e_shnum));
	int shsz = rd16(m, m->is64 ? offsetof(Elf64_Ehdr, e_shentsize) :
				     offsetof(Elf32_Ehdr, e_shentsize));
	size_t n = strlen(s) + 1;
	struct shdr sh;
	int i;

	for (i = 0; i < shnum; i++) {
		if (shdr_get(m, shoff + (uint64_t)i * shsz, &sh))
			return 0;
		if (sh.type != SHT_PROGBITS || !(sh.flags & SHF_ALLOC) ||
		    (sh.flags & (SHF_WRITE | SHF_EXECINSTR)) ||
		    !inside(m, sh.offset, sh.size))
			continue;
		if (memmem(m->p + sh.offset, sh.size, s, n))
			return 1;
	}
	return 0;
}

static int parse(struct img *m, struct wh_elf *e, char *why, size_t len)
{
	int err = check_ident(m, e, why, len);
	int type;

	if (err)
		return err;
	type = rd16(m, offsetof(Elf64_Ehdr, e_type));
	e->machine = rd16(m, offsetof(Elf64_Ehdr, e_machine));
	if (type != ET_EXEC && type != ET_DYN) {
		set_why(why, len, e->path,
			"an ELF file the loader does not run (not an "
			"executable or a shared object)");
		return -ENOEXEC;
	}
	err = read_segments(m, e, why, len);
	if (!err)
		e->ours = has_string(m, WH_OURS_MARK);
	return err;
}

/* Open and map @path: 0, or -errno with why. */
static int map_file(const char *path, struct img *m, char *why, size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		set_why(why, len, path, "is a directory, not a program");
	} else if (!S_ISREG(st.st_mode)) {
		err = -ENOEXEC;
		set_why(why, len, path, "not a regular file");
	} else if (st.st_size == 0) {
		err = -ENOEXEC;
		set_why(why, len, path, "not an ELF file (empty)");
	} else {
		m->size = st.st_size;
		m->p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->p == MAP_FAILED) {
			err = -errno;
			snprintf(why, len, "%s: %s", path, strerror(errno));
		}
	}
	if (fd >= 0)
		close(fd);
	return err;
}

int wh_elf__new(struct wh_elf **out, const char *path, char *why, size_t len)
{
	struct img m = { 0 };
	struct wh_elf *e;
	int err;

	*out = NULL;
	err = map_file(path, &m, why, len);
	if (err)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e) {
		munmap((void *)m.p, m.size);
		return -ENOMEM;
	}
	e->path = wh_strdup(path);
	err = parse(&m, e, why, len);
	munmap((void *)m.p, m.size);
	if (err) {
		wh_elf__delete(e);
		return err;
	}
	*out = e;
	return 0;
}

void wh_elf__delete(struct wh_elf *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < e->nr_needed; i++)
		free(e->needed[i]);
	free(e->needed);
	free(e->path);
	free(e->interp);
	free(e->rpath);
	free(e->runpath);
	free(e->soname);
	free(e);
}

int wh_elf__compatible(const struct wh_elf *a, const struct wh_elf *b)
{
	return a->elf_class == b->elf_class && a->data == b->data &&
	       a->machine == b->machine;
}

static const char *machine_name(int machine)
{
	switch (machine) {
	case EM_X86_64:
		return "x86-64";
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "aarch64";
	case EM_ARM:
		return "arm";
	case EM_RISCV:
		return "riscv";
	case EM_PPC64:
		return "ppc64";
	case EM_S390:
		return "s390";
	default:
		return NULL;
	}
}

void wh_elf__describe(const struct wh_elf *e, char *buf, size_t len)
{
	const char *mach = machine_name(e->machine);

	if (mach)
		snprintf(buf, len, "ELF %d-bit %s %s",
			 e->elf_class == ELFCLASS64 ? 64 : 32,
			 e->data == ELFDATA2LSB ? "LSB" : "MSB", mach);
	else
		snprintf(buf, len, "ELF %d-bit %s machine %d",
			 e->elf_class == ELFCLASS64 ? 64 : 32,
			 e->data == ELFDATA2LSB ? "LSB" : "MSB", e->machine);
}
