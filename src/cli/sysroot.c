/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding the cross sysroot (see sysroot.h): the program's PT_INTERP,
 * the host's architecture from qtrace's own ELF header, and a table of
 * Debian's cross triples and the packages that fill them.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sysroot.h"

struct cross {
    const char *arch;               /* QEMU target name */
    const char *triple;             /* directory under /usr */
    const char *package;            /* Debian package holding the loader */
    const char *loader;             /* the loader's file name, or NULL for
                                       any (when one arch has two ABIs) */
};

/* Debian's multiarch triples; the first match per arch is preferred. */
static const struct cross crosses[] = {
    { "aarch64", "aarch64-linux-gnu", "libc6-arm64-cross", NULL },
    { "arm", "arm-linux-gnueabihf", "libc6-armhf-cross",
      "ld-linux-armhf.so.3" },
    { "arm", "arm-linux-gnueabi", "libc6-armel-cross", NULL },
    { "riscv64", "riscv64-linux-gnu", "libc6-riscv64-cross", NULL },
    { "x86_64", "x86_64-linux-gnu", "libc6-amd64-cross", NULL },
    { "i386", "i686-linux-gnu", "libc6-i386-cross", NULL },
    { "ppc64le", "powerpc64le-linux-gnu", "libc6-ppc64el-cross", NULL },
    { "ppc64", "powerpc64-linux-gnu", "libc6-ppc64-cross", NULL },
    { "ppc", "powerpc-linux-gnu", "libc6-powerpc-cross", NULL },
    { "s390x", "s390x-linux-gnu", "libc6-s390x-cross", NULL },
    { "mips", "mips-linux-gnu", "libc6-mips-cross", NULL },
    { "mipsel", "mipsel-linux-gnu", "libc6-mipsel-cross", NULL },
    { "mips64", "mips64-linux-gnuabi64", "libc6-mips64-cross", NULL },
    { "mips64el", "mips64el-linux-gnuabi64", "libc6-mips64el-cross", NULL },
    { "sparc64", "sparc64-linux-gnu", "libc6-sparc64-cross", NULL },
    { "loongarch64", "loongarch64-linux-gnu", "libc6-loong64-cross", NULL },
};

#define N_CROSSES (sizeof(crosses) / sizeof(crosses[0]))

/* The ELF interpreter of the file at path (malloc'd), or NULL if none. */
static char *read_interp(const char *path)
{
    char *interp = NULL;
    size_t i, n_phdr, size;
    const char *raw;
    Elf *elf;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return NULL;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    raw = elf ? elf_rawfile(elf, &size) : NULL;
    if (raw && elf_getphdrnum(elf, &n_phdr) == 0) {
        for (i = 0; i < n_phdr && !interp; i++) {
            GElf_Phdr ph;

            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP &&
                ph.p_filesz > 1 && ph.p_offset <= size &&
                ph.p_filesz <= size - ph.p_offset) {
                interp = strndup(raw + ph.p_offset, ph.p_filesz);
            }
        }
    }
    elf_end(elf);
    close(fd);
    return interp;
}

/* The architecture qtrace itself was built for: the host's. */
static const struct qtrace_arch *host_arch(void)
{
    const struct qtrace_arch *arch = NULL;
    GElf_Ehdr eh;
    Elf *elf;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return NULL;
    }
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (elf && gelf_getehdr(elf, &eh)) {
        arch = qtrace_arch_by_elf(eh.e_machine,
                                  eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32,
                                  eh.e_ident[EI_DATA] == ELFDATA2MSB);
    }
    elf_end(elf);
    close(fd);
    return arch;
}

static bool loader_matches(const struct cross *c, const char *interp)
{
    const char *base = strrchr(interp, '/');

    return !c->loader || strcmp(base ? base + 1 : interp, c->loader) == 0;
}

/* The first /usr/<triple> of arch holding interp, malloc'd, or NULL. */
static char *search_crosses(const struct qtrace_arch *arch, const char *interp)
{
    char *dir, *loader;
    size_t i;

    for (i = 0; i < N_CROSSES; i++) {
        if (strcmp(crosses[i].arch, arch->name) != 0) {
            continue;
        }
        if (asprintf(&dir, "/usr/%s", crosses[i].triple) < 0) {
            return NULL;
        }
        if (asprintf(&loader, "%s%s", dir, interp) < 0) {
            free(dir);
            return NULL;
        }
        if (access(loader, R_OK) == 0) {
            free(loader);
            return dir;
        }
        free(loader);
        free(dir);
    }
    return NULL;
}

/* The package to suggest for arch's loader interp, or NULL if unknown. */
static const struct cross *suggest(const struct qtrace_arch *arch,
                                   const char *interp)
{
    size_t i;

    for (i = 0; i < N_CROSSES; i++) {
        if (strcmp(crosses[i].arch, arch->name) == 0 &&
            loader_matches(&crosses[i], interp)) {
            return &crosses[i];
        }
    }
    return NULL;
}

int sysroot_find(const char *cmd, const char *path,
                 const struct qtrace_arch *arch, char **dir)
{
    const struct cross *c;
    char *interp;

    *dir = NULL;
    if (arch == host_arch()) {
        return CLI_OK;
    }
    interp = read_interp(path);
    if (!interp) {
        return CLI_OK;      /* static: nothing to load */
    }
    *dir = search_crosses(arch, interp);
    /* A multiarch host has the foreign loader at its own path. */
    if (*dir || (interp[0] == '/' && access(interp, R_OK) == 0)) {
        free(interp);
        return CLI_OK;
    }
    c = suggest(arch, interp);
    if (c) {
        cli_error(cmd, "%s: %s loader %s not found in /usr/%s (install "
                  "the Debian package %s, or set QEMU_LD_PREFIX)", path,
                  arch->name, interp, c->triple, c->package);
    } else {
        cli_error(cmd, "%s: %s loader %s not found (set QEMU_LD_PREFIX to "
                  "a %s sysroot)", path, arch->name, interp, arch->name);
    }
    free(interp);
    return CLI_FAIL;
}
