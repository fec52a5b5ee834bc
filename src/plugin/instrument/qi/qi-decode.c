/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An instruction's memory accesses from its disassembly (qi-decode.h),
 * with capstone: memory operands and how each is accessed, plus the
 * stack accesses x86 makes without an operand (push, call, ret ...).
 * One capstone handle per thread and mode: a handle is not thread-safe,
 * and system mode translates on several vCPU threads. Translation only.
 */
#include <capstone.h>
#include <stdio.h>
#include <string.h>

#include "qemu-instr/events.h"
#include "qi-decode.h"

enum decode_arch { ARCH_NONE, ARCH_X86, ARCH_AARCH64 };

/* x86 code runs in one of three modes; the handles follow that order. */
enum x86_mode { X86_64, X86_32, X86_16, X86_MODES };

static enum decode_arch arch;
static enum x86_mode user_mode_x86;    /* the mode of user-mode code */
static bool find_x86_mode;             /* system mode: ask QEMU's text */

static __thread csh handles[X86_MODES];
static __thread bool opened[X86_MODES];
static __thread enum decode_arch opened_arch;  /* what handles decode */

bool qi_decode_setup(const char *target, bool system_mode)
{
    arch = ARCH_NONE;
    if (strcmp(target, "x86_64") == 0 || strcmp(target, "i386") == 0) {
        arch = ARCH_X86;
        user_mode_x86 = strcmp(target, "i386") == 0 ? X86_32 : X86_64;
        find_x86_mode = system_mode;
    } else if (strcmp(target, "aarch64") == 0) {
        arch = ARCH_AARCH64;
    }
    return arch != ARCH_NONE;
}

bool qi_decode_wants_text(void)
{
    return arch == ARCH_X86 && find_x86_mode;
}

static csh *handle_for(unsigned int mode)
{
    static const cs_mode x86_modes[X86_MODES] = {
        CS_MODE_64, CS_MODE_32, CS_MODE_16,
    };
    unsigned int k;
    csh h;

    /* A new setup (tests set up several targets in one thread). */
    if (opened_arch != arch) {
        for (k = 0; k < X86_MODES; k++) {
            if (opened[k]) {
                cs_close(&handles[k]);
                opened[k] = false;
            }
        }
        opened_arch = arch;
    }
    if (opened[mode]) {
        return &handles[mode];
    }
    if (arch == ARCH_X86 ? cs_open(CS_ARCH_X86, x86_modes[mode], &h) :
                           cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h)) {
        return NULL;
    }
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    if (arch == ARCH_X86) {
        /* QEMU prints x86 in AT&T syntax: compared in find_mode. */
        cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    }
    handles[mode] = h;
    opened[mode] = true;
    return &handles[mode];
}

/* log2 of a size in bytes (1 to 16). */
static unsigned int shift_of(unsigned int size)
{
    unsigned int k = 0;

    while (k < 4 && (1u << k) < size) {
        k++;
    }
    return k;
}

static size_t add(uint8_t *infos, size_t n, unsigned int size, bool store,
                  bool sign)
{
    if (n < QI_DECODE_MAX && size > 0) {
        infos[n++] = qi_mem_info_make(shift_of(size), store, sign, false);
    }
    return n;
}

/* ---- x86 ---- */

static const unsigned int stack_bytes[X86_MODES] = { 8, 4, 2 };

/* Stack accesses that no operand shows; the operand's size if it has one. */
static size_t x86_implicit(const cs_insn *in, enum x86_mode mode,
                           uint8_t *infos, size_t n)
{
    const cs_x86 *x = &in->detail->x86;
    unsigned int size = x->op_count ? x->operands[0].size : 0;

    if (size == 0 || size > 8) {
        size = stack_bytes[mode];
    }
    switch (in->id) {
    case X86_INS_PUSH: case X86_INS_PUSHF: case X86_INS_PUSHFD:
    case X86_INS_PUSHFQ:
        return add(infos, n, size, true, false);
    case X86_INS_CALL:
        return add(infos, n, stack_bytes[mode], true, false);
    case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFD:
    case X86_INS_POPFQ:
        return add(infos, n, size, false, false);
    case X86_INS_RET: case X86_INS_LEAVE:
        return add(infos, n, stack_bytes[mode], false, false);
    default:
        return n;
    }
}

/* Instructions whose memory operand is an address, not an access. */
static bool x86_no_access(unsigned int id)
{
    return id == X86_INS_LEA || id == X86_INS_NOP ||
           id == X86_INS_PREFETCH || id == X86_INS_PREFETCHNTA ||
           id == X86_INS_PREFETCHT0 || id == X86_INS_PREFETCHT1 ||
           id == X86_INS_PREFETCHT2 || id == X86_INS_PREFETCHW ||
           id == X86_INS_CLFLUSH;
}

/* mov, movq, movups, vmovdqa ...: copies its source to its destination. */
static bool is_move(const cs_insn *in)
{
    const char *m = in->mnemonic;

    return strncmp(m, "mov", 3) == 0 || strncmp(m, "vmov", 4) == 0;
}

static size_t x86_accesses(const cs_insn *in, enum x86_mode mode,
                           uint8_t *infos)
{
    const cs_x86 *x = &in->detail->x86;
    bool sign = in->id == X86_INS_MOVSX || in->id == X86_INS_MOVSXD;
    size_t n = 0;
    uint8_t i;

    if (x86_no_access(in->id)) {
        return 0;
    }
    /* A push of a memory operand reads it, then stores it. */
    for (i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        /* Capstone leaves access 0 on some operands: it reads them. */
        uint8_t ac = op->access ? op->access : CS_AC_READ;

        if (op->type != X86_OP_MEM) {
            continue;
        }
        /*
         * Capstone 4 marks the destination of SSE moves (movq, movups,
         * movdqa ...) as read; a move's destination, last in AT&T
         * order, is only written.
         */
        if (is_move(in) && i == x->op_count - 1 && x->op_count > 1) {
            ac = CS_AC_WRITE;
        }
        if (ac & CS_AC_READ) {
            n = add(infos, n, op->size, false, sign);
        }
        if (ac & CS_AC_WRITE) {
            n = add(infos, n, op->size, true, false);
        }
    }
    return x86_implicit(in, mode, infos, n);
}

/* AT&T text of in, as QEMU prints it: "mnemonic operands". */
static bool same_text(const cs_insn *in, const char *qemu_text)
{
    char text[sizeof(in->mnemonic) + sizeof(in->op_str) + 1];

    snprintf(text, sizeof(text), "%s %s", in->mnemonic, in->op_str);
    return strcmp(text, qemu_text) == 0;
}

/*
 * The x86 mode to decode in: fixed in user mode; in system mode the one
 * whose disassembly is QEMU's (QEMU knows the CPU's mode and prints with
 * capstone too). No match: 64-bit.
 */
static enum x86_mode find_mode(const uint8_t *code, size_t len, uint64_t pc,
                               const char *qemu_text)
{
    static __thread enum x86_mode last = X86_64;
    unsigned int k;

    if (!find_x86_mode || !qemu_text) {
        return find_x86_mode ? X86_64 : user_mode_x86;
    }
    for (k = 0; k < X86_MODES; k++) {
        enum x86_mode mode = (enum x86_mode)((last + k) % X86_MODES);
        csh *h = handle_for(mode);
        cs_insn *in = NULL;
        bool same;

        if (!h || cs_disasm(*h, code, len, pc, 1, &in) != 1) {
            continue;
        }
        same = in->size == len && same_text(in, qemu_text);
        cs_free(in, 1);
        if (same) {
            last = mode;
            return mode;
        }
    }
    return X86_64;
}

/* ---- AArch64 ---- */

/* Bytes of the register called name ("w3" 4, "x0" 8, "q1" 16 ...). */
static unsigned int a64_reg_bytes(const char *name)
{
    if (!name) {
        return 0;
    }
    if (strcmp(name, "sp") == 0 || strcmp(name, "fp") == 0 ||
        strcmp(name, "lr") == 0 || strcmp(name, "xzr") == 0) {
        return 8;
    }
    switch (name[0]) {
    case 'b': return 1;
    case 'h': return 2;
    case 'w': case 's': return 4;
    case 'x': case 'd': return 8;
    case 'q': return 16;
    default: return 0;
    }
}

static bool ends_with(const char *s, const char *tail)
{
    size_t ls = strlen(s), lt = strlen(tail);

    return ls >= lt && strcmp(s + ls - lt, tail) == 0;
}

/*
 * Loads and stores by mnemonic: ld* loads, st* stores, the size from the
 * b/h/sw suffix or the data register; pairs make two accesses. Atomics
 * (ldadd, cas, swp ...) and vector structure loads (ld1 ...) are not
 * listed.
 */
static size_t a64_accesses(csh h, const cs_insn *in, uint8_t *infos)
{
    const cs_arm64 *a = &in->detail->arm64;
    const char *m = in->mnemonic;
    bool store = m[0] == 's' && m[1] == 't';
    bool load = m[0] == 'l' && m[1] == 'd';
    bool pair = ends_with(m, "p") || strcmp(m, "ldpsw") == 0;
    bool exclusive_store = store && strchr(m, 'x') != NULL;
    unsigned int data, size, k;
    size_t n = 0;

    if (!(load || store) || strchr(m, '1') || strchr(m, '2') ||
        strchr(m, '3') || strchr(m, '4') || strncmp(m, "ldadd", 5) == 0 ||
        strncmp(m, "ldclr", 5) == 0 || strncmp(m, "ldeor", 5) == 0 ||
        strncmp(m, "ldset", 5) == 0 || strncmp(m, "ldsm", 4) == 0 ||
        strncmp(m, "ldum", 4) == 0) {
        return 0;
    }
    /* stxr/stlxr w_status, x_data, [xn]: the data register is second. */
    data = exclusive_store ? 1 : 0;
    if (a->op_count <= data || a->operands[data].type != ARM64_OP_REG) {
        return 0;
    }
    if (ends_with(m, "b")) {
        size = 1;
    } else if (ends_with(m, "h")) {
        size = 2;
    } else if (ends_with(m, "sw")) {
        size = 4;
    } else {
        size = a64_reg_bytes(cs_reg_name(h, a->operands[data].reg));
    }
    for (k = 0; k < (pair ? 2u : 1u); k++) {
        /* ldrsb, ldursh, ldrsw, ldpsw: sign-extending loads. */
        bool sign = load && (ends_with(m, "sb") || ends_with(m, "sh") ||
                             ends_with(m, "sw"));

        n = add(infos, n, size, store, sign);
    }
    return n;
}

size_t qi_decode_accesses(const uint8_t *code, size_t len, uint64_t pc,
                          const char *qemu_text,
                          uint8_t infos[QI_DECODE_MAX])
{
    enum x86_mode mode = X86_64;
    cs_insn *in = NULL;
    size_t n = 0;
    csh *h;

    if (arch == ARCH_NONE || len == 0) {
        return 0;
    }
    if (arch == ARCH_X86) {
        mode = find_mode(code, len, pc, qemu_text);
    }
    h = handle_for(mode);
    if (!h || cs_disasm(*h, code, len, pc, 1, &in) != 1) {
        return 0;
    }
    n = arch == ARCH_X86 ? x86_accesses(in, mode, infos) :
                           a64_accesses(*h, in, infos);
    cs_free(in, 1);
    return n;
}
