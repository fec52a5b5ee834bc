/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "did you mean": the candidate closest to a misspelt word, by edit
 * distance (insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1; letter case is ignored). Pure string work,
 * usable for event names, commands or options.
 */
#ifndef QTRACE_CLI_DID_YOU_MEAN_H
#define QTRACE_CLI_DID_YOU_MEAN_H

#include <stddef.h>

struct did_you_mean {
    const char *word;               /* what the user typed; not owned */
    const char *best;               /* closest candidate so far, or NULL */
    size_t best_distance;           /* its distance to word */
};

/* Start a search for the candidates closest to word. */
void did_you_mean_init(struct did_you_mean *dym, const char *word);

/*
 * Weigh one candidate (the string must outlive dym). Of candidates at the
 * same distance, the first one weighed wins.
 */
void did_you_mean_consider(struct did_you_mean *dym, const char *candidate);

/*
 * The closest candidate if it is close enough to be a likely typo: at
 * most a third of word's length away (at least 1, at most 3), and not
 * word itself. NULL otherwise.
 */
const char *did_you_mean_result(const struct did_you_mean *dym);

/* Edit distance of a and b as described above (exposed for tests). */
size_t did_you_mean_distance(const char *a, const char *b);

#endif /* QTRACE_CLI_DID_YOU_MEAN_H */
