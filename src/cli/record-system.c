/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qtrace record --system (see record-system.h). A kernel's architecture
 * comes from its ELF header (libelf) or from the magic of the boot image
 * formats QEMU's -kernel takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record-system.h"

/* Boot image magics: where they sit, what they say. */
static const struct image_magic {
    size_t offset;
    const char magic[4];
    const char *kind;
    const char *arch;
} image_magics[] = {
    /* Documentation/arch/x86/boot.rst: the setup header's signature. */
    { 0x202, { 'H', 'd', 'r', 'S' }, "bzImage", "x86_64" },
    /* Documentation/arch/arm64/booting.rst: the Image header's magic. */
    { 0x38, { 'A', 'R', 'M', 0x64 }, "arm64 Image", "aarch64" },
    /* Documentation/arch/riscv/boot-image-header.rst: magic2. */
    { 0x38, { 'R', 'S', 'C', 0x05 }, "RISC-V Image", "riscv64" },
};

const char *record_system_image_kind(const char *path, const char **arch)
{
    unsigned char head[0x206];
    ssize_t n;
    size_t i;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0) {
        return NULL;
    }
    n = pread(fd, head, sizeof(head), 0);
    close(fd);
    for (i = 0; n > 0 && i < sizeof(image_magics) / sizeof(*image_magics);
         i++) {
        const struct image_magic *m = &image_magics[i];

        if ((size_t)n >= m->offset + 4 &&
            memcmp(head + m->offset, m->magic, 4) == 0) {
            if (arch) {
                *arch = m->arch;
            }
            return m->kind;
        }
    }
    return NULL;
}

/* An ELF kernel's architecture: CLI_OK with *arch, or CLI_FAIL said. */
static int elf_kernel_arch(const char *path, int fd,
                           const struct qtrace_arch **arch)
{
    Elf *elf;
    GElf_Ehdr eh;
    int ret = CLI_FAIL;

    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh)) {
        *arch = qtrace_arch_by_elf(eh.e_machine,
                                   eh.e_ident[EI_CLASS] == ELFCLASS64 ?
                                   64 : 32,
                                   eh.e_ident[EI_DATA] == ELFDATA2MSB);
        if (*arch) {
            ret = CLI_OK;
        } else {
            cli_error("record", "--kernel %s: unsupported architecture (ELF "
                      "machine %u); say which with --arch", path,
                      (unsigned)eh.e_machine);
        }
    } else {
        cli_error("record", "--kernel %s: neither ELF nor a known kernel "
                  "image; say its architecture with --arch", path);
    }
    elf_end(elf);
    return ret;
}

/* The kernel's architecture, from its content. */
static int kernel_arch(const char *path, const struct qtrace_arch **arch)
{
    const char *name = NULL;
    int fd, ret;

    if (record_system_image_kind(path, &name)) {
        *arch = qtrace_arch_by_name(name);
        return CLI_OK;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        cli_error("record", "--kernel %s: %s", path, strerror(errno));
        return CLI_FAIL;
    }
    ret = elf_kernel_arch(path, fd, arch);
    close(fd);
    return ret;
}

int record_system_arch(const struct record_system *sys,
                       const struct qtrace_arch **arch)
{
    if (sys->arch) {
        *arch = qtrace_arch_by_name(sys->arch);
        if (!*arch) {
            return cli_usage("record", "--arch %s: unknown architecture",
                             sys->arch);
        }
        return CLI_OK;
    }
    if (sys->kernel) {
        return kernel_arch(sys->kernel, arch);
    }
    /* A firmware given with -bios says nothing: the pc machine's arch. */
    *arch = qtrace_arch_by_name("x86_64");
    return CLI_OK;
}

/* Append "-flag value" when value is set. */
static void put_pair(char **argv, size_t *k, char *flag, const char *value)
{
    if (value) {
        argv[(*k)++] = flag;
        argv[(*k)++] = (char *)value;
    }
}

char **record_system_argv(char *qemu, char *plugin_arg,
                          const struct record_system *sys,
                          char *const *words, size_t n_words,
                          char *const *args)
{
    size_t n_args = 0, i, k = 0;
    char **argv;

    while (args && args[n_args]) {
        n_args++;
    }
    argv = calloc(n_words + n_args + 12, sizeof(*argv));
    if (!argv) {
        return NULL;
    }
    argv[k++] = qemu;
    put_pair(argv, &k, "-machine", sys->machine);
    put_pair(argv, &k, "-kernel", sys->kernel);
    put_pair(argv, &k, "-initrd", sys->initrd);
    put_pair(argv, &k, "-append", sys->append);
    for (i = 0; i < n_words; i++) {
        argv[k++] = words[i];
    }
    argv[k++] = "-plugin";
    argv[k++] = plugin_arg;
    for (i = 0; i < n_args; i++) {
        argv[k++] = args[i];
    }
    return argv;
}
