/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ELF header and program header reader for the image map (elf-load.h).
 * Field offsets are those of the System V gABI for ELFCLASS32 and
 * ELFCLASS64; values are read in the file's own byte order.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf-load.h"

struct elf_file {
    int fd;
    bool is64;
    bool big;                   /* ELFDATA2MSB */
};

static uint64_t get(const struct elf_file *ef, const uint8_t *p,
                    unsigned int size)
{
    uint64_t v = 0;
    unsigned int i;

    for (i = 0; i < size; i++) {
        unsigned int shift = ef->big ? 8 * (size - 1 - i) : 8 * i;

        v |= (uint64_t)p[i] << shift;
    }
    return v;
}

static int read_at(const struct elf_file *ef, void *buf, size_t len,
                   uint64_t off)
{
    ssize_t n = pread(ef->fd, buf, len, (off_t)off);

    if (n < 0) {
        return -errno;
    }
    return (size_t)n == len ? 0 : -ENOEXEC;
}

/* One program header: keep PT_LOAD segments and the PT_INTERP path. */
static int read_phdr(const struct elf_file *ef, const uint8_t *ph,
                     struct elf_load *out)
{
    uint32_t type = (uint32_t)get(ef, ph, 4);
    uint64_t offset, vaddr, filesz, memsz;
    uint32_t flags;

    if (ef->is64) {
        flags = (uint32_t)get(ef, ph + 4, 4);
        offset = get(ef, ph + 8, 8);
        vaddr = get(ef, ph + 16, 8);
        filesz = get(ef, ph + 32, 8);
        memsz = get(ef, ph + 40, 8);
    } else {
        offset = get(ef, ph + 4, 4);
        vaddr = get(ef, ph + 8, 4);
        filesz = get(ef, ph + 16, 4);
        memsz = get(ef, ph + 20, 4);
        flags = (uint32_t)get(ef, ph + 24, 4);
    }
    if (type == PT_LOAD && out->n_segs < ELF_LOAD_MAX_SEGS) {
        out->segs[out->n_segs].vaddr = vaddr;
        out->segs[out->n_segs].memsz = memsz;
        out->segs[out->n_segs].offset = offset;
        out->segs[out->n_segs].flags = flags;
        out->n_segs++;
    } else if (type == PT_INTERP) {
        if (filesz == 0 || filesz > sizeof(out->interp)) {
            return -ENOEXEC;
        }
        if (read_at(ef, out->interp, filesz, offset) < 0) {
            return -ENOEXEC;
        }
        out->interp[filesz - 1] = '\0';
    }
    return 0;
}

static int read_headers(struct elf_file *ef, struct elf_load *out,
                        struct qtrace_err *err, const char *path)
{
    uint8_t eh[64], ph[64];
    uint64_t phoff;
    unsigned int phentsize, phnum, i;
    int ret = read_at(ef, eh, sizeof(eh), 0);

    if (ret < 0 || memcmp(eh, ELFMAG, SELFMAG) != 0 ||
        (eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
        (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB)) {
        qtrace_err_set(err, "%s: not an ELF file", path);
        return -ENOEXEC;
    }
    ef->is64 = eh[EI_CLASS] == ELFCLASS64;
    ef->big = eh[EI_DATA] == ELFDATA2MSB;
    out->is_dyn = get(ef, eh + 16, 2) == ET_DYN;
    out->entry = get(ef, eh + 24, ef->is64 ? 8 : 4);
    phoff = ef->is64 ? get(ef, eh + 32, 8) : get(ef, eh + 28, 4);
    phentsize = (unsigned int)get(ef, eh + (ef->is64 ? 54 : 42), 2);
    phnum = (unsigned int)get(ef, eh + (ef->is64 ? 56 : 44), 2);
    if (phentsize < (ef->is64 ? 56u : 32u) || phentsize > sizeof(ph)) {
        qtrace_err_set(err, "%s: bad program header size %u", path,
                       phentsize);
        return -ENOEXEC;
    }
    for (i = 0; i < phnum; i++) {
        if (read_at(ef, ph, phentsize, phoff + (uint64_t)i * phentsize) < 0 ||
            read_phdr(ef, ph, out) < 0) {
            qtrace_err_set(err, "%s: program header %u unreadable", path, i);
            return -ENOEXEC;
        }
    }
    return 0;
}

int elf_load_read(const char *path, struct elf_load *out,
                  struct qtrace_err *err)
{
    struct elf_file ef = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
    int ret;

    memset(out, 0, sizeof(*out));
    if (ef.fd < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", path, strerror(-ret));
        return ret;
    }
    ret = read_headers(&ef, out, err, path);
    close(ef.fd);
    return ret;
}
