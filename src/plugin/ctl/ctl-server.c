/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket's thread (see ctl.h): poll on the listening socket,
 * the clients and a wake-up pipe; non-blocking I/O everywhere, bounded
 * buffers per client, a bounded number of clients. A client that sends
 * garbage gets error lines; one that never reads its replies is closed
 * when they pass CTL_OUT_MAX; no client can make a vCPU wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl-cmd.h"
#include "ctl-line.h"
#include "ctl.h"

#define CTL_MAX_CLIENTS 16
/* Replies a client may leave unread before it is dropped. */
#define CTL_OUT_MAX (64u << 10)
#define CTL_READ_BYTES 4096

struct client {
    int fd;
    struct ctl_line line;           /* the command being read */
    char in[CTL_READ_BYTES];        /* read, not yet cut into lines */
    size_t in_off, in_len;
    char out[CTL_OUT_MAX];          /* replies not yet sent */
    size_t out_len;
    struct ctl_reply reply;         /* the command being served */
    bool waiting;                   /* reply.req is with the writer */
    atomic_bool served;             /* set by the writer thread */
    bool eof;                       /* the client sends no more */
};

static struct {
    int listen_fd;
    int wake[2];                    /* writer and ctl_stop -> thread */
    pthread_t thread;
    bool started;
    pid_t owner;                    /* the process that made the socket */
    atomic_bool quit;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char link[PATH_MAX];            /* PID link, "" for none */
    struct client *clients[CTL_MAX_CLIENTS];
} srv = { .listen_fd = -1, .wake = { -1, -1 } };

/* ---- replies ---- */

/* Queue bytes for the client; false when it has let too many pile up. */
static bool queue_out(struct client *c, const char *text, size_t len)
{
    if (c->out_len + len > sizeof(c->out)) {
        return false;
    }
    memcpy(c->out + c->out_len, text, len);
    c->out_len += len;
    return true;
}

/* Send what the socket takes now; false when the client is gone. */
static bool send_out(struct client *c)
{
    while (c->out_len > 0) {
        ssize_t n = send(c->fd, c->out, c->out_len,
                         MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0) {
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        }
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    return true;
}

/* The reply's lines, then "ok" or "error: MESSAGE". */
static bool queue_reply(struct client *c, const struct ctl_reply *r)
{
    char last[600];
    int n;

    if (r->err[0]) {
        n = snprintf(last, sizeof(last), "error: %s\n", r->err);
    } else {
        n = snprintf(last, sizeof(last), "ok\n");
    }
    if (n < 0 || (size_t)n >= sizeof(last)) {
        n = snprintf(last, sizeof(last), "error: reply too long\n");
    }
    return queue_out(c, r->text, r->len) &&
           queue_out(c, last, (size_t)n);
}

static bool queue_error(struct client *c, const char *msg)
{
    struct ctl_reply *r = &c->reply;

    r->len = 0;
    r->text[0] = '\0';
    snprintf(r->err, sizeof(r->err), "%s", msg);
    return queue_reply(c, r);
}

/* ---- clients ---- */

/* Writer thread: a request is served; the control thread takes over. */
static void request_done(struct writer_req *req)
{
    struct client *c = (struct client *)((char *)req -
                                         offsetof(struct client, reply.req));
    char b = 1;

    atomic_store(&c->served, true);
    if (write(srv.wake[1], &b, 1) < 0) {
        /* Full pipe: the thread is woken already. */
    }
}

static void close_client(int slot)
{
    struct client *c = srv.clients[slot];

    close(c->fd);
    srv.clients[slot] = NULL;
    /* The writer still holds its request: leave it (exit is near). */
    if (!c->waiting) {
        free(c);
    }
}

/* Run complete lines until one waits for the writer or input runs out. */
static bool run_lines(struct client *c)
{
    while (!c->waiting && c->in_off < c->in_len) {
        enum ctl_line_status st;

        c->in_off += ctl_line_feed(&c->line, c->in + c->in_off,
                                   c->in_len - c->in_off, &st);
        if (st == CTL_LINE_TOO_LONG) {
            if (!queue_error(c, "line longer than 4096 bytes")) {
                return false;
            }
        } else if (st == CTL_LINE_READY) {
            /* Before the command: its own work may serve it at once. */
            atomic_store(&c->served, false);
            c->reply.req.done = request_done;
            ctl_cmd_run(c->line.buf, &c->reply);
            if (c->reply.async) {
                c->waiting = true;
                if (!c->reply.served_elsewhere) {
                    writer_request(&c->reply.req);
                }
            } else if (!queue_reply(c, &c->reply)) {
                return false;
            }
        }
    }
    if (c->in_off == c->in_len) {
        c->in_off = c->in_len = 0;
    }
    return true;
}

/* The client's socket is readable: false when it is to be closed. */
static bool read_client(struct client *c)
{
    ssize_t n = recv(c->fd, c->in, sizeof(c->in), MSG_DONTWAIT);

    if (n == 0) {
        c->eof = true;
        return true;
    }
    if (n < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    }
    c->in_off = 0;
    c->in_len = (size_t)n;
    return run_lines(c);
}

static void accept_clients(void)
{
    for (;;) {
        int fd = accept4(srv.listen_fd, NULL, NULL,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct client *c = NULL;
        int slot;

        if (fd < 0) {
            return;
        }
        for (slot = 0; slot < CTL_MAX_CLIENTS && srv.clients[slot]; slot++) {
        }
        if (slot < CTL_MAX_CLIENTS) {
            c = calloc(1, sizeof(*c));
        }
        if (!c) {
            static const char msg[] = "error: too many clients (at most "
                                      "16 at once)\n";

            if (send(fd, msg, sizeof(msg) - 1,
                     MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
                /* It will see the connection close. */
            }
            close(fd);
            continue;
        }
        c->fd = fd;
        ctl_line_init(&c->line);
        srv.clients[slot] = c;
    }
}

/* Replies the writer finished, into their clients' output. */
static void take_served(void)
{
    char buf[64];
    int i;

    while (read(srv.wake[0], buf, sizeof(buf)) > 0) {
    }
    for (i = 0; i < CTL_MAX_CLIENTS; i++) {
        struct client *c = srv.clients[i];

        if (!c || !c->waiting || !atomic_load(&c->served)) {
            continue;
        }
        c->waiting = false;
        ctl_cmd_finish(&c->reply);
        if (!queue_reply(c, &c->reply) || !run_lines(c)) {
            close_client(i);
        }
    }
}

/* What to poll for each client; slots[k] is the client of fds[k]. */
static nfds_t fill_poll(struct pollfd *fds, int *slots)
{
    nfds_t n = 2;
    int i;

    fds[0] = (struct pollfd){ .fd = srv.wake[0], .events = POLLIN };
    fds[1] = (struct pollfd){ .fd = srv.listen_fd, .events = POLLIN };
    for (i = 0; i < CTL_MAX_CLIENTS; i++) {
        struct client *c = srv.clients[i];

        if (!c) {
            continue;
        }
        /*
         * One command at a time: the rest waits in the socket, and a
         * client whose command is with the writer is not looked at (a
         * hang-up would be reported on every poll meanwhile).
         */
        fds[n].fd = c->waiting ? -1 : c->fd;
        fds[n].events = (c->eof ? 0 : POLLIN) | (c->out_len ? POLLOUT : 0);
        fds[n].revents = 0;
        slots[n] = i;
        n++;
    }
    return n;
}

static void serve_client(int slot, short revents)
{
    struct client *c = srv.clients[slot];
    bool keep = true;

    if (revents & (POLLIN | POLLHUP | POLLERR)) {
        keep = c->eof || read_client(c);
    }
    if (keep && c->out_len) {
        keep = send_out(c);
    }
    /* A client that said all it had is closed once answered. */
    if (keep && c->eof && !c->waiting && c->out_len == 0) {
        keep = false;
    }
    if (!keep) {
        close_client(slot);
    }
}

static void *ctl_main(void *arg)
{
    struct pollfd fds[CTL_MAX_CLIENTS + 2];
    int slots[CTL_MAX_CLIENTS + 2];

    (void)arg;
    while (!atomic_load(&srv.quit)) {
        nfds_t i, n = fill_poll(fds, slots);

        if (poll(fds, n, -1) < 0) {
            continue;
        }
        if (fds[0].revents) {
            take_served();
        }
        for (i = 2; i < n; i++) {
            if (fds[i].revents && fds[i].fd >= 0 && srv.clients[slots[i]] &&
                srv.clients[slots[i]]->fd == fds[i].fd) {
                serve_client(slots[i], fds[i].revents);
            }
        }
        if (fds[1].revents) {
            accept_clients();
        }
    }
    return NULL;
}

/* ---- the socket and its PID link ---- */

/* A socket file at path that nobody accepts on: left by a dead QEMU. */
static bool is_stale_socket(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool stale;

    if (fd < 0) {
        return false;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    stale = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
            errno == ECONNREFUSED;
    close(fd);
    return stale;
}

static int make_socket(const char *path, struct qtrace_err *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;
    mode_t old_mask;
    int fd, ret;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        qtrace_err_set(err, "%s: path longer than %zu bytes (a unix "
                       "socket's limit)", path, sizeof(sa.sun_path) - 1);
        return -ENAMETOOLONG;
    }
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            qtrace_err_set(err, "%s: exists and is not a socket", path);
            return -EEXIST;
        }
        if (!is_stale_socket(path)) {
            qtrace_err_set(err, "%s: a socket in use (another QEMU?)", path);
            return -EADDRINUSE;
        }
        unlink(path);
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
        return ret;
    }
    /* Born 0600: no moment where another user may connect. */
    old_mask = umask(0177);
    ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old_mask);
    /* A deep backlog: clients over the bound are told so, not refused. */
    if (ret < 0 || listen(fd, 128) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
        close(fd);
        return ret;
    }
    return fd;
}

/*
 * $XDG_RUNTIME_DIR/qtrace/PID (or /tmp/qtrace-UID/PID): a symbolic link
 * to the socket, for `qtrace ctl PID`. Best effort: a directory that is
 * not the user's own gets no link, and the socket works without it.
 */
static void make_pid_link(const char *path)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    char dir[PATH_MAX - 32], target[PATH_MAX], cwd[PATH_MAX - 200];
    struct stat st;

    if (run && run[0] == '/') {
        snprintf(dir, sizeof(dir), "%s/qtrace", run);
    } else {
        snprintf(dir, sizeof(dir), "/tmp/qtrace-%u", (unsigned)getuid());
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        return;
    }
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != getuid() || (st.st_mode & 0022)) {
        fprintf(stderr, "qtrace: %s: not a private directory of this "
                "user, no PID link to ctl=%s\n", dir, path);
        return;
    }
    if (path[0] == '/') {
        snprintf(target, sizeof(target), "%s", path);
    } else if (getcwd(cwd, sizeof(cwd))) {
        snprintf(target, sizeof(target), "%s/%s", cwd, path);
    } else {
        return;
    }
    snprintf(srv.link, sizeof(srv.link), "%s/%d", dir, (int)getpid());
    unlink(srv.link);
    if (symlink(target, srv.link) < 0) {
        srv.link[0] = '\0';
    }
}

int ctl_start(const char *path, const struct ctl_ops *ops,
              struct qtrace_err *err)
{
    sigset_t all, old;
    int fd = make_socket(path, err), ret;

    if (fd < 0) {
        return fd;
    }
    if (pipe2(srv.wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        ret = -errno;
        qtrace_err_set(err, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(path);
        return ret;
    }
    srv.listen_fd = fd;
    srv.owner = getpid();
    snprintf(srv.path, sizeof(srv.path), "%s", path);
    ctl_cmd_setup(ops);
    /* Signals are QEMU's: the thread takes none (see writer_start). */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ret = pthread_create(&srv.thread, NULL, ctl_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ret != 0) {
        qtrace_err_set(err, "%s: control thread: %s", path, strerror(ret));
        close(fd);
        unlink(path);
        return -ret;
    }
    srv.started = true;
    pthread_setname_np(srv.thread, "qtrace-ctl");
    make_pid_link(path);
    return 0;
}

void ctl_stop(void)
{
    char b = 0;
    int i;

    /* A forked child has no thread, and its parent still serves. */
    if (!srv.started || getpid() != srv.owner) {
        return;
    }
    srv.started = false;
    atomic_store(&srv.quit, true);
    if (write(srv.wake[1], &b, 1) < 0) {
        /* Full pipe: the thread wakes anyway. */
    }
    pthread_join(srv.thread, NULL);
    for (i = 0; i < CTL_MAX_CLIENTS; i++) {
        if (srv.clients[i]) {
            send_out(srv.clients[i]);
            close_client(i);
        }
    }
    close(srv.listen_fd);
    unlink(srv.path);
    if (srv.link[0]) {
        unlink(srv.link);
    }
}
