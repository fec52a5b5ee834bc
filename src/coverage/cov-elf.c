/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ELF headers and anchors for coverage, with libelf (cov-elf.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cov-elf.h"

#define PAGE 4096u

int cov_open_file(const char *path, struct qtrace_err *err)
{
    struct statfs fs;
    struct stat st;
    int fd, e;

    /* O_NONBLOCK: a FIFO planted at a traced path must not hang us. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        e = errno;
        qtrace_err_set(err, "%s: %s", path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        qtrace_err_set(err, "%s: not a regular file, not read", path);
        close(fd);
        return -EINVAL;
    }
    if (fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC) {
        qtrace_err_set(err, "%s: a file of /proc, not read", path);
        close(fd);
        return -EINVAL;
    }
    return fd;
}

static int read_loads(Elf *elf, struct cov_elf *e)
{
    size_t n, i;

    if (elf_getphdrnum(elf, &n) != 0) {
        return -EINVAL;
    }
    e->loads = calloc(n ? n : 1, sizeof(*e->loads));
    if (!e->loads) {
        return -ENOMEM;
    }
    for (i = 0; i < n; i++) {
        GElf_Phdr ph;

        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD) {
            continue;
        }
        e->loads[e->n_loads++] = (struct cov_load){
            .offset = ph.p_offset, .vaddr = ph.p_vaddr,
            .filesz = ph.p_filesz, .memsz = ph.p_memsz,
            .exec = (ph.p_flags & PF_X) != 0,
        };
    }
    return 0;
}

/* _text, else _stext, from the symbol table. */
static void read_anchor(Elf *elf, struct cov_elf *e)
{
    Elf_Scn *scn = NULL;
    bool have_stext = false;
    uint64_t stext = 0;

    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t i, n;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
            sh.sh_entsize == 0 || !(data = elf_getdata(scn, NULL))) {
            continue;
        }
        n = sh.sh_size / sh.sh_entsize;
        for (i = 0; i < n; i++) {
            GElf_Sym sym;
            const char *name;

            if (!gelf_getsym(data, (int)i, &sym) ||
                sym.st_shndx == SHN_UNDEF ||
                !(name = elf_strptr(elf, sh.sh_link, sym.st_name))) {
                continue;
            }
            if (strcmp(name, "_text") == 0) {
                e->has_anchor = true;
                e->anchor = sym.st_value;
                return;
            }
            if (strcmp(name, "_stext") == 0) {
                have_stext = true;
                stext = sym.st_value;
            }
        }
    }
    e->has_anchor = have_stext;
    e->anchor = stext;
}

int cov_elf_read(const char *path, bool symbols, struct cov_elf *e,
                 struct qtrace_err *err)
{
    GElf_Ehdr eh;
    Elf *elf;
    int fd, ret;

    memset(e, 0, sizeof(*e));
    elf_version(EV_CURRENT);
    fd = cov_open_file(path, err);
    if (fd < 0) {
        return fd;
    }
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        qtrace_err_set(err, "%s: not an ELF file", path);
        elf_end(elf);
        close(fd);
        return -ENOEXEC;
    }
    e->entry = eh.e_entry;
    ret = read_loads(elf, e);
    if (ret == 0 && e->n_loads == 0) {
        ret = -EINVAL;
    }
    if (ret == 0 && symbols) {
        read_anchor(elf, e);
    }
    elf_end(elf);
    close(fd);
    if (ret < 0) {
        qtrace_err_set(err, "%s: %s", path, ret == -ENOMEM ?
                       strerror(ENOMEM) : "an ELF file without PT_LOAD "
                       "segments (a relocatable object?)");
        cov_elf_fini(e);
    }
    return ret;
}

void cov_elf_fini(struct cov_elf *e)
{
    free(e->loads);
    memset(e, 0, sizeof(*e));
}

bool cov_elf_bias(const struct cov_elf *e, uint64_t start, uint64_t offset,
                  uint64_t *bias)
{
    size_t i;

    for (i = 0; i < e->n_loads; i++) {
        const struct cov_load *l = &e->loads[i];
        uint64_t first = l->offset & ~(uint64_t)(PAGE - 1);

        if (offset >= first && offset < l->offset + l->filesz + PAGE) {
            /* The ELF address of offset: the segment's, moved as far. */
            *bias = start - (l->vaddr - (l->offset - offset));
            return true;
        }
    }
    return false;
}
