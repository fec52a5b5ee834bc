/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The project's own event catalog (trace-events, whose path the build
 * gives the unit tests in TRACE_EVENTS), parsed once: what the tests of
 * the packed encoding expand their chunks against.
 */
#ifndef QTRACE_TEST_PROJECT_CATALOG_H
#define QTRACE_TEST_PROJECT_CATALOG_H

#include "qtrace/catalog.h"

/* The catalog, loaded at the first call; a cmocka failure without it. */
struct qtrace_catalog *project_catalog(void);

#endif /* QTRACE_TEST_PROJECT_CATALOG_H */
