/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Choosing the plugin API version at load time and calling the functions
 * whose prototype changed between QEMU releases (see qemu-compat.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qemu-compat.h"

/*
 * QEMU 7.2-8.2 accept versions 0-1, 9.0 and later 2 up to their current
 * one; no single constant loads on both. Constructors run during dlopen,
 * before QEMU reads this variable, so it is set there from the presence of
 * a symbol that only 9.0+ exports.
 */
__attribute__((visibility("default")))
int qemu_plugin_version = 1;

static int api_in_use = 1;

__attribute__((constructor))
static void qc_choose_version(void)
{
    qemu_plugin_version = qemu_plugin_scoreboard_new ? 2 : 1;
}

int qc_init(const qemu_info_t *info, char *msg, size_t msg_len)
{
    api_in_use = info->version.cur;
    if (api_in_use < 1) {
        snprintf(msg, msg_len, "QEMU plugin API %d is too old (need 1)",
                 api_in_use);
        return -1;
    }
    if (api_in_use > QC_API_KNOWN_MAX) {
        /* Probably fine (APIs grow); said once so a failure is explained. */
        snprintf(msg, msg_len, "QEMU plugin API %d is newer than the %d "
                 "this qtrace knows", api_in_use, QC_API_KNOWN_MAX);
    }
    return 0;
}

int qc_api(void)
{
    return api_in_use;
}

size_t qc_insn_bytes(const struct qemu_plugin_insn *insn, void *dest,
                     size_t len)
{
    size_t size = qemu_plugin_insn_size(insn);

    /*
     * API 3 (QEMU 9.1) turned insn_data into a copying call without
     * raising the minimum version; only info->version.cur tells them apart.
     */
    if (api_in_use >= 3) {
        qemu_plugin_insn_data_v3_fn copy =
            (qemu_plugin_insn_data_v3_fn)qemu_plugin_insn_data_any;
        return copy(insn, dest, len);
    } else {
        qemu_plugin_insn_data_v1_fn data =
            (qemu_plugin_insn_data_v1_fn)qemu_plugin_insn_data_any;
        const void *p = data(insn);

        if (size > len) {
            size = len;
        }
        if (!p) {
            return 0;
        }
        memcpy(dest, p, size);
        return size;
    }
}

int qc_count_tb(struct qemu_plugin_tb *tb, uint64_t *count,
                struct qemu_plugin_scoreboard **sb)
{
    /* 9.0 removed the raw form: a scoreboard per block instead. */
    if (api_in_use >= 2 && qemu_plugin_scoreboard_new &&
        qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu) {
        qemu_plugin_u64 entry;

        *sb = qemu_plugin_scoreboard_new(sizeof(uint64_t));
        if (!*sb) {
            return -1;
        }
        entry.score = *sb;
        entry.offset = 0;
        qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
            tb, QEMU_PLUGIN_INLINE_ADD_U64, entry, 1);
        return 0;
    }
    if (qemu_plugin_register_vcpu_tb_exec_inline) {
        qemu_plugin_register_vcpu_tb_exec_inline(
            tb, QEMU_PLUGIN_INLINE_ADD_U64, count, 1);
        return 0;
    }
    return -1;
}

uint64_t qc_count_take(uint64_t *count, struct qemu_plugin_scoreboard *sb)
{
    uint64_t total;

    if (sb) {
        qemu_plugin_u64 entry = { sb, 0 };
        int i, n = qemu_plugin_num_vcpus();

        total = qemu_plugin_u64_sum(entry);
        for (i = 0; i < n; i++) {
            qemu_plugin_u64_set(entry, (unsigned int)i, 0);
        }
        return total;
    }
    total = *count;
    *count = 0;
    return total;
}

/*
 * The plugin API has no version query, but QEMU's --version text sits in
 * its binary: "QEMU emulator version X" (system) or "qemu-TARGET version
 * X" (user). Finding it in the mapped executable takes a few
 * milliseconds, where running "QEMU --version" took tens.
 */
const char *qc_qemu_version(const char *target)
{
    static char version[160];
    char user_key[64];
    const char *keys[2] = { "QEMU emulator version ", user_key };
    struct stat st;
    const char *map, *hit = NULL;
    size_t i, n = 0;
    int fd;

    if (version[0]) {
        return version;
    }
    snprintf(version, sizeof(version), "unknown");
    snprintf(user_key, sizeof(user_key), "qemu-%s version ", target);
    fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return version;
    }
    if (fstat(fd, &st) < 0 || st.st_size <= 0) {
        close(fd);
        return version;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        return version;
    }
    for (i = 0; i < 2 && !hit; i++) {
        hit = memmem(map, (size_t)st.st_size, keys[i], strlen(keys[i]));
        if (hit) {
            hit += strlen(keys[i]);
        }
    }
    /* The version runs to the end of its line (or string). */
    while (hit && hit + n < map + st.st_size && n < sizeof(version) - 1 &&
           (unsigned char)hit[n] >= 0x20) {
        n++;
    }
    if (hit && n > 0) {
        memcpy(version, hit, n);
        version[n] = '\0';
    }
    munmap((void *)map, (size_t)st.st_size);
    return version;
}
