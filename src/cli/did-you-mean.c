/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "did you mean" (see did-you-mean.h): the optimal string alignment
 * distance, computed with three rows of the usual dynamic programming
 * table. Words longer than MAX_WORD are never suggested: names here are
 * short, and a bound keeps the rows on the stack.
 */
#include <ctype.h>
#include <string.h>

#include "did-you-mean.h"

#define MAX_WORD 128

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;

    return m < c ? m : c;
}

static int fold(char c)
{
    return tolower((unsigned char)c);
}

size_t did_you_mean_distance(const char *a, const char *b)
{
    size_t rows[3][MAX_WORD + 1];
    size_t la = strlen(a), lb = strlen(b);
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *tmp;
    size_t i, j;

    if (la > MAX_WORD || lb > MAX_WORD) {
        return (size_t)-1;
    }
    for (j = 0; j <= lb; j++) {
        prev[j] = j;
    }
    for (i = 1; i <= la; i++) {
        cur[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t cost = fold(a[i - 1]) != fold(b[j - 1]);

            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            /* Two neighbours swapped ("acsess") cost one edit, not two. */
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) &&
                prev2[j - 2] + 1 < cur[j]) {
                cur[j] = prev2[j - 2] + 1;
            }
        }
        tmp = prev2;
        prev2 = prev;
        prev = cur;
        cur = tmp;
    }
    return prev[lb];
}

void did_you_mean_init(struct did_you_mean *dym, const char *word)
{
    dym->word = word;
    dym->best = NULL;
    dym->best_distance = (size_t)-1;
}

void did_you_mean_consider(struct did_you_mean *dym, const char *candidate)
{
    size_t d = did_you_mean_distance(dym->word, candidate);

    if (d < dym->best_distance) {
        dym->best = candidate;
        dym->best_distance = d;
    }
}

const char *did_you_mean_result(const struct did_you_mean *dym)
{
    size_t limit = strlen(dym->word) / 3;

    /* Short words are one typo from many names: allow one; long, three. */
    if (limit < 1) {
        limit = 1;
    } else if (limit > 3) {
        limit = 3;
    }
    if (!dym->best || dym->best_distance > limit ||
        strcmp(dym->best, dym->word) == 0) {
        return NULL;
    }
    return dym->best;
}
