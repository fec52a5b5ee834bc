/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integers as text without printf, for the paths that print hundreds of
 * millions of them (record formatting, dump lines). Each base has its own
 * function so that no digit costs a division by a variable (a real
 * divide instruction, tens of cycles).
 */
#ifndef QTRACE_FORMAT_DIGITS_H
#define QTRACE_FORMAT_DIGITS_H

#include <stdint.h>
#include <string.h>

/* Longest text of a uint64_t in base 10, and with a sign. */
#define DIGITS_MAX 20
#define DIGITS_SIGNED_MAX 21

/* Number of decimal digits of v (1 for 0). */
static inline unsigned int digits_dec_len(uint64_t v)
{
    static const uint64_t pow10[DIGITS_MAX] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
        10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
        100000000000ull, 1000000000000ull, 10000000000000ull,
        100000000000000ull, 1000000000000000ull, 10000000000000000ull,
        100000000000000000ull, 1000000000000000000ull,
        10000000000000000000ull,
    };
    /*
     * Bit 0 set makes 0 one digit and moves no v across a power of ten
     * (those above 1 are even). log10(2) ~ 1233 / 4096 turns the bit
     * length into the digit count or one less.
     */
    uint64_t w = v | 1;
    unsigned int t = ((64u - (unsigned int)__builtin_clzll(w)) * 1233u) >> 12;

    return t + (w >= pow10[t]);
}

/* Number of hex digits of v (1 for 0). */
static inline unsigned int digits_hex_len(uint64_t v)
{
    return (67u - (unsigned int)__builtin_clzll(v | 1)) / 4u;
}

/*
 * v in decimal, written backwards so that it ends just before end;
 * returns where it starts (end - digits_dec_len(v)). Two digits a step.
 */
static inline char *digits_dec(char *end, uint64_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233"
        "34353637383940414243444546474849505152535455565758596061626364656667"
        "6869707172737475767778798081828384858687888990919293949596979899";
    char *p = end;

    while (v >= 100) {
        unsigned int r = (unsigned int)(v % 100);

        v /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = (char)('0' + v);
    }
    return p;
}

/* The same in lower-case hex (end - digits_hex_len(v)). */
static inline char *digits_hex(char *end, uint64_t v)
{
    /* Two digits a step, as digits_dec: addresses have ten or more. */
    static const char pairs[] =
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
        "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
        "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    char *p = end;

    while (v >= 0x100) {
        p -= 2;
        memcpy(p, pairs + 2 * (v & 0xff), 2);
        v >>= 8;
    }
    if (v >= 0x10) {
        p -= 2;
        memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = pairs[2 * v + 1];
    }
    return p;
}

/* base 10 or 16: the function of that base. */
static inline char *digits_u64(char *end, uint64_t v, unsigned int base)
{
    return base == 16 ? digits_hex(end, v) : digits_dec(end, v);
}

#endif /* QTRACE_FORMAT_DIGITS_H */
