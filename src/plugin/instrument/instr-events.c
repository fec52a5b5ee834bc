/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A library's own events (instrument.h, register_events and emit_event):
 * checked and given catalog ids at install, from qtrace_instr_init, and
 * appended to the plugin's catalog before META is written (plugin.c), so
 * a reader learns them from the trace. emit_event runs on vCPU threads:
 * a bounds check and one record, no lock, no allocation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtrace/catalog.h"
#include "instr.h"
#include "instr-lib.h"

static struct {
    unsigned int builtin;       /* events of the plugin's catalog */
    unsigned int n;             /* library events registered so far */
    char *text;                 /* their catalog lines */
    size_t len;
    void (*emit_record)(unsigned int vcpu, uint16_t id, uint16_t size,
                        const void *payload, size_t len);
    bool sealed;                /* the catalog is written: no more */
} events;

void instr_events_seal(void)
{
    events.sealed = true;
}

bool instr_events_sealed(void)
{
    return events.sealed;
}

void instr_events_setup(const struct instr_env *env)
{
    events.builtin = env->builtin_events;
    events.emit_record = env->emit_record;
}

/* Keep why lib's registration failed, for its load error. */
static int __attribute__((format(printf, 2, 3)))
refuse(struct instr_lib *lib, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(lib->ev_why, sizeof(lib->ev_why), fmt, ap);
    va_end(ap);
    return QTRACE_INSTR_EINVAL;
}

static bool is_lib_name(const char *s)
{
    size_t i, n = strlen(s);

    if (n == 0 || n > 31 || !((s[0] >= 'a' && s[0] <= 'z') ||
                              (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) {
        return false;
    }
    for (i = 0; i < n; i++) {
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9'))) {
            return false;
        }
    }
    return true;
}

/* Another library that registered events under name, or NULL. */
static const struct instr_lib *name_taken(const char *name)
{
    size_t i;

    for (i = 0; i < instr_n_libs; i++) {
        if (instr_libs[i].ev_n && strcmp(instr_libs[i].ev_lib, name) == 0) {
            return &instr_libs[i];
        }
    }
    return NULL;
}

/*
 * Each event of cat must be LIB:EVENT, fixed-size, and laid out as the
 * generated code says (payload_bytes): the generator and the host apply
 * the same layout rule, this catches a header from another qtrace.
 */
static int check_events(struct instr_lib *lib, const struct qtrace_catalog *cat,
                        const struct qtrace_instr_events *ev)
{
    size_t plen = strlen(ev->lib);
    unsigned int i, k;

    if (cat->n_events != ev->n_events || !ev->payload_bytes) {
        return refuse(lib, "%s: %u events in its catalog, %u declared",
                      ev->lib, cat->n_events, ev->n_events);
    }
    for (i = 1; i <= cat->n_events; i++) {
        const struct qtrace_event_desc *d = &cat->events[i];

        if (strncmp(d->name, ev->lib, plen) != 0 || d->name[plen] != ':') {
            return refuse(lib, "%s: event '%s' not named %s:EVENT", ev->lib,
                          d->name, ev->lib);
        }
        for (k = 0; k < d->n_args; k++) {
            if (d->args[k].type == QTRACE_ARG_STR ||
                d->args[k].type == QTRACE_ARG_BYTES) {
                return refuse(lib, "%s: argument '%s' is not fixed-size",
                              d->name, d->args[k].name);
            }
        }
        if (d->fixed_size - 16u != ev->payload_bytes[i - 1]) {
            return refuse(lib, "%s: %u argument bytes declared, the layout "
                          "rule gives %u", d->name, ev->payload_bytes[i - 1],
                          d->fixed_size - 16u);
        }
    }
    if (events.builtin + events.n + cat->n_events >= QTRACE_MAX_EVENTS) {
        return refuse(lib, "%s: too many events (a trace holds %d)", ev->lib,
                      QTRACE_MAX_EVENTS - 1);
    }
    return 0;
}

/* Record sizes and catalog lines of lib's checked events. */
static int keep_events(struct instr_lib *lib, const struct qtrace_catalog *cat,
                       const struct qtrace_instr_events *ev)
{
    size_t add = strlen(ev->catalog);
    char *text = realloc(events.text, events.len + add + 2);
    unsigned int i;

    lib->ev_payload = calloc(cat->n_events, sizeof(*lib->ev_payload));
    lib->ev_size = calloc(cat->n_events, sizeof(*lib->ev_size));
    if (!text || !lib->ev_payload || !lib->ev_size) {
        free(text == events.text ? NULL : text);
        instr_events_release(lib);
        return refuse(lib, "%s: out of memory", ev->lib);
    }
    events.text = text;
    memcpy(events.text + events.len, ev->catalog, add);
    events.len += add;
    if (add && events.text[events.len - 1] != '\n') {
        events.text[events.len++] = '\n';
    }
    events.text[events.len] = '\0';
    for (i = 1; i <= cat->n_events; i++) {
        lib->ev_payload[i - 1] = (uint16_t)(cat->events[i].fixed_size - 16u);
        /* docs/format.md: the record rounds up to a multiple of 8. */
        lib->ev_size[i - 1] = (uint16_t)((cat->events[i].fixed_size + 7u) &
                                         ~7u);
    }
    snprintf(lib->ev_lib, sizeof(lib->ev_lib), "%s", ev->lib);
    lib->ev_first = (uint16_t)(events.builtin + events.n + 1);
    lib->ev_n = cat->n_events;
    events.n += cat->n_events;
    return QTRACE_INSTR_OK;
}

int instr_events_register(const struct qtrace_instr_host *h,
                          const struct qtrace_instr_events *ev)
{
    struct instr_lib *lib = (struct instr_lib *)h;
    const struct instr_lib *other;
    struct qtrace_catalog cat;
    struct qtrace_err err = { "" };
    int ret;

    if (!h || !lib->registering) {
        return QTRACE_INSTR_EINVAL;
    }
    if (events.sealed) {
        /* The trace's catalog went out with META at start. */
        return refuse(lib, "loaded at run time: the trace's catalog is "
                      "written (user_event records still work)");
    }
    if (!ev || !ev->lib || !ev->catalog) {
        return refuse(lib, "no events given");
    }
    if (lib->ev_n) {
        return refuse(lib, "%s: registered twice", ev->lib);
    }
    if (!is_lib_name(ev->lib)) {
        return refuse(lib, "library name '%.40s' is not a C identifier of "
                      "at most 31 characters", ev->lib);
    }
    other = name_taken(ev->lib);
    if (other) {
        return refuse(lib, "%s: library name already registered by instr=%s",
                      ev->lib, other->path);
    }
    if (qtrace_catalog_parse(&cat, ev->catalog, &err) < 0) {
        return refuse(lib, "%s: catalog line %s", ev->lib, err.msg);
    }
    ret = check_events(lib, &cat, ev);
    if (ret == 0) {
        ret = keep_events(lib, &cat, ev);
    }
    qtrace_catalog_fini(&cat);
    return ret;
}

int instr_events_emit(const struct qtrace_instr_host *h, unsigned int vcpu,
                      uint32_t event, const void *payload, size_t len)
{
    const struct instr_lib *lib = (const struct instr_lib *)h;

    if (!h || event == 0 || event > lib->ev_n || !payload ||
        len < lib->ev_payload[event - 1]) {
        return QTRACE_INSTR_EINVAL;
    }
    if (!events.emit_record) {
        return QTRACE_INSTR_ENOTSUP;
    }
    events.emit_record(vcpu, (uint16_t)(lib->ev_first + event - 1),
                       lib->ev_size[event - 1], payload,
                       lib->ev_payload[event - 1]);
    return QTRACE_INSTR_OK;
}

void instr_events_release(struct instr_lib *lib)
{
    free(lib->ev_payload);
    free(lib->ev_size);
    lib->ev_payload = NULL;
    lib->ev_size = NULL;
    lib->ev_n = 0;
}

void instr_events_reset(void)
{
    free(events.text);
    events.text = NULL;
    events.len = 0;
    events.n = 0;
}

const char *instr_events_catalog(unsigned int *first, unsigned int *n)
{
    *first = events.builtin + 1;
    *n = events.n;
    return events.n ? events.text : NULL;
}
