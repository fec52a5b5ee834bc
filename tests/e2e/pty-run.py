#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a command with its standard error on a pseudo-terminal (python's
# pty module), as a person at a terminal runs it, and keep every byte it
# wrote there. Standard output goes to OUT, standard input is /dev/null.
# Prints the command's exit status.
# Usage: pty-run.py STDERR_BYTES OUT COMMAND [ARG...]
import os
import pty
import subprocess
import sys


def main():
    err_path, out_path, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    master, slave = pty.openpty()
    with open(out_path, 'wb') as out, open(os.devnull, 'rb') as devnull:
        proc = subprocess.Popen(argv, stdin=devnull, stdout=out,
                                stderr=slave, close_fds=True)
    os.close(slave)
    data = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:             # EIO: every writer closed the slave
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    status = proc.wait()
    with open(err_path, 'wb') as f:
        f.write(bytes(data))
    print(status)


main()
