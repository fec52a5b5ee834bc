#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Misbehaving peers of the plugin's control socket (t993-ctl-clients).

usage: ctl-peers.py SOCKET CASE, CASE one of garbage, long-line, no-read,
many, silent. Prints one line per reply it got ("ok", "error: ...") or
what happened ("closed"); the shell test compares them.
"""
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    return s


def read_reply(s, buf=b""):
    """Lines up to the final "ok" or "error: ...": (final, rest)."""
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            text = line.decode("utf-8", "replace")
            if text == "ok" or text.startswith("error: "):
                return text, buf
        data = s.recv(65536)
        if not data:
            return "closed", buf
        buf += data


def case_garbage(path):
    s = connect(path)
    s.sendall(b"\x00\xff\xfe\x01 garbage \x7f\n")
    print(read_reply(s)[0])
    s.sendall(b"help\n")
    print(read_reply(s)[0])


def case_long_line(path):
    s = connect(path)
    s.sendall(b"x" * (1 << 20) + b"\n")
    final, rest = read_reply(s)
    print(final)
    s.sendall(b"help\n")
    print(read_reply(s, rest)[0])


def case_no_read(path):
    """Commands whose replies are never read: the server drops us."""
    s = connect(path)
    s.settimeout(5)
    try:
        for _ in range(20000):
            s.sendall(b"info trace-events\n")
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    time.sleep(0.5)
    s.settimeout(20)
    got = b""
    try:
        while True:
            data = s.recv(1 << 20)
            if not data:
                break
            got += data
    except ConnectionResetError:
        pass
    print("closed after %s replies" %
          ("some" if got.count(b"\nok\n") < 20000 else "all"))


def case_many(path):
    socks = [connect(path) for _ in range(20)]
    time.sleep(0.2)
    for s in socks:
        try:
            s.sendall(b"stats\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
    for s in socks:
        try:
            print(read_reply(s)[0])
        except ConnectionResetError:
            print("reset")


def case_silent(path):
    """Connect, say nothing for a while, then a command still works."""
    s = connect(path)
    time.sleep(1)
    s.sendall(b"help\n")
    print(read_reply(s)[0])


if __name__ == "__main__":
    {"garbage": case_garbage, "long-line": case_long_line,
     "no-read": case_no_read, "many": case_many,
     "silent": case_silent}[sys.argv[2]](sys.argv[1])
