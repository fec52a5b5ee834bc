/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The etrace sink: Xilinx etrace records (docs/etrace.md) to a file or to
 * a unix socket peer, converted on the writer thread from the records of
 * each chunk by the shared encoder (src/convert/etrace-enc.c). A socket
 * is non-blocking: a peer that goes away or takes nothing for
 * etrace-stall= seconds is dropped with one message (or, with
 * etrace-peer-lost=stop, QEMU stops), never waited for forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "qtrace-events.h"
#include "../../convert/etrace-enc.h"
#include "../../format/etrace.h"
#include "sink.h"
#include "sink-records.h"
#include "../core/tbtab.h"
#include "../buffer/writer.h"

#define UNIX_PREFIX "unix:"

struct sink_etrace {
    struct sink base;
    int fd;
    bool is_socket;
    bool stop_on_loss;              /* etrace-peer-lost=stop */
    int stall_ms;                   /* etrace-stall=, in ms */
    struct etrace_enc *enc;
    struct sink_records recs;
    char why[128];                  /* why the last write failed */
};

/*
 * A forked guest child runs untraced (writer.c) but would hold the socket
 * open, so that the peer would not see the end of the stream until the
 * child exits too: the child closes it.
 */
static int fork_child_fd = -1;

/* ---- writing ---- */

static int file_write(void *ctx, const void *buf, size_t len)
{
    struct sink_etrace *et = ctx;
    const uint8_t *p = buf;

    while (len > 0) {
        ssize_t n = write(et->fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;

            snprintf(et->why, sizeof(et->why), "%s", strerror(e));
            return -e;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/*
 * Wait for room in the socket; a peer that takes nothing for stall_ms is
 * as good as gone (a vCPU may be waiting for this writer).
 */
static int wait_writable(struct sink_etrace *et)
{
    struct pollfd pfd = { .fd = et->fd, .events = POLLOUT };
    int n;

    do {
        n = poll(&pfd, 1, et->stall_ms);
    } while (n < 0 && errno == EINTR);
    if (n == 0) {
        snprintf(et->why, sizeof(et->why), "peer stalled (took no data "
                 "for %d s)", et->stall_ms / 1000);
        return -ETIMEDOUT;
    }
    return 0;       /* POLLHUP and POLLERR show in the next send */
}

static int sock_write(void *ctx, const void *buf, size_t len)
{
    struct sink_etrace *et = ctx;
    const uint8_t *p = buf;

    while (len > 0) {
        /* MSG_NOSIGNAL: a closed peer must not SIGPIPE QEMU. */
        ssize_t n = send(et->fd, p, len, MSG_NOSIGNAL);

        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int ret = wait_writable(et);

            if (ret < 0) {
                return ret;
            }
        } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            snprintf(et->why, sizeof(et->why), "peer disconnected");
            return -EPIPE;
        } else {
            int e = n < 0 ? errno : EIO;

            snprintf(et->why, sizeof(et->why), "%s", strerror(e));
            return -e;
        }
    }
    return 0;
}

static int out_write(void *ctx, const void *buf, size_t len)
{
    const struct sink_etrace *et = ctx;

    return et->is_socket ? sock_write(ctx, buf, len) :
                           file_write(ctx, buf, len);
}

/* A write failed: report it once, or stop QEMU if the user asked to. */
static void fail_write(struct sink_etrace *et)
{
    if (et->is_socket && et->stop_on_loss) {
        char msg[256];

        snprintf(msg, sizeof(msg), "%s; stopping QEMU "
                 "(etrace-peer-lost=stop)", et->why);
        writer_abort(&et->base, msg, "etrace-peer-lost");
    }
    sink_fail(&et->base, et->why);
}

/* ---- records ---- */

static void put_record(struct sink_etrace *et, uint16_t unit,
                       const struct qtrace_rec *r)
{
    const uint8_t *base = (const uint8_t *)r;

    switch (r->id) {
    case QTRACE_EV_TB_TRANS: {
        const struct qtrace_ev_tb_trans *t = (const void *)r;

        etrace_enc_tb(et->enc, t->pc, base + QTRACE_EV_TB_TRANS_FIXED,
                      t->code_len);
        break;
    }
    case QTRACE_EV_EXEC_TB: {
        const struct qtrace_ev_exec_tb *x = (const void *)r;
        const struct tb_info *tb = tbtab_get(x->tb);

        if (tb) {
            etrace_enc_block(et->enc, unit, r->time, x->pc,
                             x->pc + tb->size, tb->n_insns);
        }
        break;
    }
    case QTRACE_EV_MEM_ACCESS: {
        const struct qtrace_ev_mem_access *m = (const void *)r;

        etrace_enc_access(et->enc, unit, r->time, m->vaddr, m->paddr,
                          m->value,
                          m->size, m->flags,
                          (const char *)base + QTRACE_EV_MEM_ACCESS_FIXED,
                          m->device_len);
        break;
    }
    case QTRACE_EV_ORDER: {
        const struct qtrace_ev_order *o = (const void *)r;

        etrace_enc_order(et->enc, unit, o->seq);
        break;
    }
    case QTRACE_EV_VCPU_INIT:
    case QTRACE_EV_VCPU_EXIT:
        etrace_enc_vcpu(et->enc, unit, r->time,
                        r->id == QTRACE_EV_VCPU_INIT);
        break;
    case QTRACE_EV_SYSCALL: {
        const struct qtrace_ev_syscall *sc = (const void *)r;
        const uint64_t args[6] = { sc->a1, sc->a2, sc->a3, sc->a4, sc->a5,
                                   sc->a6 };

        etrace_enc_syscall(et->enc, unit, r->time, sc->num, args);
        break;
    }
    case QTRACE_EV_SYSCALL_RET: {
        const struct qtrace_ev_syscall_ret *sr = (const void *)r;

        etrace_enc_syscall_ret(et->enc, unit, r->time, sr->num, sr->ret);
        break;
    }
    default:
        break;
    }
}

static int etrace_record(void *arg, const struct chunk *c,
                         const struct qtrace_rec *r)
{
    /* Translations belong to no vCPU: unit 0, as the original's CPU 0. */
    put_record(arg, c->vcpu == QTRACE_VCPU_NONE ? 0 : (uint16_t)c->vcpu, r);
    return 0;
}

static int etrace_chunk(struct sink *s, const struct chunk *c)
{
    struct sink_etrace *et = (struct sink_etrace *)s;
    char why[160];

    if (sink_records_each(&et->recs, c, etrace_record, et, why,
                          sizeof(why)) < 0) {
        sink_fail(s, why);
        return -EIO;
    }
    /* Whole chunks go to the peer as they come: it sees the run live. */
    if (etrace_enc_sync(et->enc) < 0) {
        fail_write(et);
        return -EIO;
    }
    return 0;
}

static int etrace_close(struct sink *s, const char *end)
{
    struct sink_etrace *et = (struct sink_etrace *)s;
    int ret = 0;

    (void)end;
    if (!s->failed && etrace_enc_end(et->enc) < 0) {
        fail_write(et);
        ret = -EIO;
    }
    if (fork_child_fd == et->fd) {
        fork_child_fd = -1;
    }
    if (et->fd >= 0 && close(et->fd) < 0 && ret == 0 && !s->failed) {
        sink_fail(s, strerror(errno));
        ret = -EIO;
    }
    et->fd = -1;
    return ret;
}

static void etrace_free(struct sink *s)
{
    struct sink_etrace *et = (struct sink_etrace *)s;

    if (et->fd >= 0) {
        if (fork_child_fd == et->fd) {
            fork_child_fd = -1;
        }
        close(et->fd);
    }
    etrace_enc_free(et->enc);
    sink_records_fini(&et->recs);
    free(s->target);
    free(et);
}

static const struct sink_ops sink_etrace_ops = {
    .kind = "etrace",
    .chunk = etrace_chunk,
    .close = etrace_close,
    .free = etrace_free,
};

static void close_in_fork_child(void)
{
    if (fork_child_fd >= 0) {
        close(fork_child_fd);
        fork_child_fd = -1;
    }
}

/* ---- opening: a file, or a unix socket as the original does ---- */

/*
 * Nobody listens at path: listen there, owner-only, and wait for one
 * peer (QEMU's start waits, as the original's does). A stale socket left
 * by an earlier run is replaced; any other file is not touched.
 */
static int sock_listen(const struct sockaddr_un *sa, int wait_s,
                       struct qtrace_err *err)
{
    const char *path = sa->sun_path;
    struct pollfd pfd = { .events = POLLIN };
    struct stat st;
    int lfd, fd, n;

    if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        unlink(path);
    }
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
        qtrace_err_set(err, "%s", strerror(errno));
        if (lfd >= 0) {
            close(lfd);
        }
        return -1;
    }
    /* Bound but not listening yet: nobody can connect before the chmod. */
    if (chmod(path, 0600) < 0 || listen(lfd, 1) < 0) {
        qtrace_err_set(err, "%s", strerror(errno));
        close(lfd);
        unlink(path);
        return -1;
    }
    fprintf(stderr, "qtrace: etrace=unix:%s: no peer listening; waiting "
            "for one to connect\n", path);
    pfd.fd = lfd;
    do {
        n = poll(&pfd, 1, wait_s > 0 ? wait_s * 1000 : -1);
    } while (n < 0 && errno == EINTR);
    fd = n > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
    if (n == 0) {
        qtrace_err_set(err, "no peer connected within %d s", wait_s);
    } else if (fd < 0) {
        qtrace_err_set(err, "%s", strerror(errno));
    }
    close(lfd);
    unlink(path);
    return fd;
}

static int sock_open(const char *path, int wait_s, struct qtrace_err *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (!*path) {
        qtrace_err_set(err, "empty socket path");
        return -1;
    }
    if (strlen(path) >= sizeof(sa.sun_path)) {
        qtrace_err_set(err, "socket path longer than %zu bytes",
                       sizeof(sa.sun_path) - 1);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        qtrace_err_set(err, "%s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
        return fd;
    }
    if (errno != ENOENT && errno != ECONNREFUSED) {
        qtrace_err_set(err, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return sock_listen(&sa, wait_s, err);
}

static int open_output(struct sink_etrace *et, const char *target,
                       int wait_s, struct qtrace_err *err)
{
    if (strncmp(target, UNIX_PREFIX, strlen(UNIX_PREFIX)) == 0) {
        et->is_socket = true;
        et->fd = sock_open(target + strlen(UNIX_PREFIX), wait_s, err);
        if (et->fd >= 0 &&
            fcntl(et->fd, F_SETFL, fcntl(et->fd, F_GETFL) | O_NONBLOCK) < 0) {
            qtrace_err_set(err, "%s", strerror(errno));
            return -1;
        }
    } else {
        et->fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (et->fd < 0) {
            qtrace_err_set(err, "%s", strerror(errno));
        }
    }
    return et->fd < 0 ? -1 : 0;
}

struct sink *sink_etrace_new(const struct sink_etrace_cfg *cfg,
                             struct qtrace_err *err)
{
    struct sink_etrace *et = calloc(1, sizeof(*et));
    struct etrace_enc_cfg ecfg = {
        .arch = cfg->arch, .flags = cfg->flags, .write = out_write,
        .ctx = et,
    };
    struct qtrace_err why = { "" };

    if (!et || sink_records_init(&et->recs, cfg->cat) < 0) {
        qtrace_err_set(err, "%s: %s", cfg->target, strerror(ENOMEM));
        free(et);
        return NULL;
    }
    et->fd = -1;
    et->stop_on_loss = cfg->stop_on_loss;
    et->stall_ms = cfg->stall_s * 1000;
    et->base.ops = &sink_etrace_ops;
    et->base.target = strdup(cfg->target);
    /* The arch is checked before a peer is waited for. */
    if (etrace_enc_new(&et->enc, &ecfg, &why) < 0 ||
        open_output(et, cfg->target, cfg->wait_s, &why) < 0) {
        qtrace_err_set(err, "%s: %s", cfg->target, why.msg);
        etrace_free(&et->base);
        return NULL;
    }
    if (et->is_socket) {
        fork_child_fd = et->fd;
        pthread_atfork(NULL, NULL, close_in_fork_child);
    }
    if (etrace_enc_begin(et->enc) < 0) {
        qtrace_err_set(err, "%s: %s", cfg->target, et->why);
        etrace_free(&et->base);
        return NULL;
    }
    return &et->base;
}
