/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest with a known set of system calls, made directly with syscall(2)
 * so that the C library picks nothing for us. Known by construction, on
 * top of what the C library's start-up does before main:
 *
 *   getpid 7, getppid 3, getuid 2, uname 1, dup 1, lseek 1,
 *   openat 2 (1 error: ENOENT), read 4 (from /dev/null, each returns 0),
 *   write 5 (to /dev/null), close 3 (1 error: EBADF), exit_group 1
 *
 * Two of them fail: the second openat and the last close. It prints
 * nothing and exits with status 3. tests/e2e/t220-syscalls.sh checks the
 * counts, the names per architecture and, on x86_64, that they match
 * `strace -c -f` of the same program run natively.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define EXIT_STATUS 3
#define BAD_FD 1000                 /* no process here opens that many */

int main(void)
{
    struct utsname uts;
    char buf[16];
    long fd, fd2;
    int i;

    for (i = 0; i < 7; i++) {
        syscall(SYS_getpid);
    }
    for (i = 0; i < 3; i++) {
        syscall(SYS_getppid);
    }
    for (i = 0; i < 2; i++) {
        syscall(SYS_getuid);
    }
    syscall(SYS_uname, &uts);
    fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
    syscall(SYS_openat, AT_FDCWD, "/nonexistent/qtrace-guest", O_RDONLY);
    for (i = 0; i < 4; i++) {
        syscall(SYS_read, fd, buf, sizeof(buf));
    }
    for (i = 0; i < 5; i++) {
        syscall(SYS_write, fd, "qtrace\n", 7);
    }
    syscall(SYS_lseek, fd, 0, SEEK_SET);
    fd2 = syscall(SYS_dup, fd);
    syscall(SYS_close, fd2);
    syscall(SYS_close, fd);
    syscall(SYS_close, BAD_FD);
    syscall(SYS_exit_group, EXIT_STATUS);
    return 1;                       /* not reached */
}
