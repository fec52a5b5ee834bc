/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hook of fatal.h: the slot of kill() in the QEMU executable's global
 * offset table is pointed at hooked_kill, found through the executable's
 * dynamic section (relocations of kind JUMP_SLOT or GLOB_DAT whose
 * symbol is "kill"). Install time only; the hook itself runs once.
 */
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fatal.h"

typedef int (*kill_fn)(pid_t pid, int sig);

static kill_fn real_kill;
static fatal_fn on_fatal_cb;
static atomic_bool fired;

/* Signals whose default action does not end the process. */
static bool ends_process(int sig)
{
    switch (sig) {
    case 0:
    case SIGCHLD:
    case SIGCONT:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
    case SIGURG:
    case SIGWINCH:
        return false;
    default:
        return true;
    }
}

/*
 * QEMU sends itself the guest's fatal signal after setting its action to
 * SIG_DFL; any other kill() passes straight through.
 */
static int hooked_kill(pid_t pid, int sig)
{
    struct sigaction act;

    if (pid == getpid() && ends_process(sig) &&
        sigaction(sig, NULL, &act) == 0 && act.sa_handler == SIG_DFL &&
        !atomic_exchange(&fired, true)) {
        on_fatal_cb(sig);
    }
    return real_kill(pid, sig);
}

/* The executable's dynamic tables, from dl_iterate_phdr. */
struct dyn_tables {
    uintptr_t base;                 /* load bias */
    const ElfW(Phdr) *phdr;
    size_t n_phdr;
    const ElfW(Rela) *rela[2];      /* RELA and JMPREL */
    size_t rela_bytes[2];
    const ElfW(Sym) *symtab;
    const char *strtab;
};

/*
 * glibc relocates most d_ptr values in place, some ports do not: an
 * address below the load bias is still relative.
 */
static uintptr_t dyn_addr(const struct dyn_tables *t, ElfW(Addr) p)
{
    return p < t->base ? t->base + p : p;
}

static void read_dynamic(struct dyn_tables *t, const ElfW(Dyn) *d)
{
    for (; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_RELA:
            t->rela[0] = (const void *)dyn_addr(t, d->d_un.d_ptr);
            break;
        case DT_RELASZ:
            t->rela_bytes[0] = d->d_un.d_val;
            break;
        case DT_JMPREL:
            t->rela[1] = (const void *)dyn_addr(t, d->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            t->rela_bytes[1] = d->d_un.d_val;
            break;
        case DT_SYMTAB:
            t->symtab = (const void *)dyn_addr(t, d->d_un.d_ptr);
            break;
        case DT_STRTAB:
            t->strtab = (const void *)dyn_addr(t, d->d_un.d_ptr);
            break;
        default:
            break;
        }
    }
}

/* The first object dl_iterate_phdr reports is the executable. */
static int take_executable(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct dyn_tables *t = arg;
    size_t i;

    (void)size;
    t->base = info->dlpi_addr;
    t->phdr = info->dlpi_phdr;
    t->n_phdr = info->dlpi_phnum;
    for (i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            read_dynamic(t, (const void *)(t->base +
                                           info->dlpi_phdr[i].p_vaddr));
        }
    }
    return 1;
}

static bool is_kill_slot(const struct dyn_tables *t, const ElfW(Rela) *r)
{
#if defined(__x86_64__)
    const unsigned long jump = R_X86_64_JUMP_SLOT, glob = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
    const unsigned long jump = R_AARCH64_JUMP_SLOT, glob = R_AARCH64_GLOB_DAT;
#else
    const unsigned long jump = ~0ul, glob = ~0ul;
#endif
    unsigned long type = ELF64_R_TYPE(r->r_info);

    return (type == jump || type == glob) &&
           strcmp(t->strtab + t->symtab[ELF64_R_SYM(r->r_info)].st_name,
                  "kill") == 0;
}

/* Whether addr lies in the part RELRO made read-only after relocation. */
static bool in_relro(const struct dyn_tables *t, uintptr_t addr)
{
    size_t i;

    for (i = 0; i < t->n_phdr; i++) {
        const ElfW(Phdr) *ph = &t->phdr[i];

        if (ph->p_type == PT_GNU_RELRO && addr >= t->base + ph->p_vaddr &&
            addr < t->base + ph->p_vaddr + ph->p_memsz) {
            return true;
        }
    }
    return false;
}

/* Write one pointer into a slot that RELRO may have made read-only. */
static bool patch_slot(const struct dyn_tables *t, kill_fn *slot,
                       kill_fn value)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)slot & ~(uintptr_t)(page - 1);
    bool relro = in_relro(t, (uintptr_t)slot);

    if (relro &&
        mprotect((void *)start, (size_t)page, PROT_READ | PROT_WRITE) < 0) {
        return false;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (relro) {
        /* Read-only again, as the loader left it. */
        mprotect((void *)start, (size_t)page, PROT_READ);
    }
    return true;
}

bool fatal_hook_install(fatal_fn on_fatal)
{
    struct dyn_tables t;
    bool patched = false;
    size_t i, j;

    memset(&t, 0, sizeof(t));
    if (sizeof(void *) != 8) {
        return false;       /* the 64-bit ELF types above only */
    }
    dl_iterate_phdr(take_executable, &t);
    if (!t.symtab || !t.strtab) {
        return false;
    }
    on_fatal_cb = on_fatal;
    for (i = 0; i < 2; i++) {
        for (j = 0; t.rela[i] && j < t.rela_bytes[i] / sizeof(ElfW(Rela));
             j++) {
            const ElfW(Rela) *r = &t.rela[i][j];
            kill_fn *slot = (kill_fn *)(t.base + r->r_offset);

            if (!is_kill_slot(&t, r) || *slot == hooked_kill) {
                continue;
            }
            if (!real_kill) {
                real_kill = *slot;
            }
            patched |= patch_slot(&t, slot, hooked_kill);
        }
    }
    return patched && real_kill;
}
