/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/tracetool/tracetool.c: runs the built generator
 * ($TRACETOOL) on small catalogs in a temporary directory and checks what
 * it writes, what it refuses, and that its output compiles and round-trips.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "qtrace/catalog.h"

extern char **environ;

/* One temporary directory per test, with the usual file names in it. */
struct tt_dir {
    char root[64];
    char in[128];                   /* trace-events given to tracetool */
    char out_h[128];
    char out_c[128];
    char err[128];                  /* tracetool's stderr */
};

static int setup_dir(void **state)
{
    struct tt_dir *d = calloc(1, sizeof(*d));
    const char *tmp = getenv("TMPDIR");

    if (!d) {
        return -1;
    }
    snprintf(d->root, sizeof(d->root), "%s/tt-XXXXXX",
             tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(d->root)) {
        free(d);
        return -1;
    }
    snprintf(d->in, sizeof(d->in), "%s/trace-events", d->root);
    snprintf(d->out_h, sizeof(d->out_h), "%s/ev.h", d->root);
    snprintf(d->out_c, sizeof(d->out_c), "%s/ev.c", d->root);
    snprintf(d->err, sizeof(d->err), "%s/stderr", d->root);
    *state = d;
    return 0;
}

static int teardown_dir(void **state)
{
    struct tt_dir *d = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->root);
    if (system(cmd) != 0) {
        return -1;
    }
    free(d);
    return 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* Whole file as a string, or NULL if it cannot be opened. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;

    if (!f) {
        return NULL;
    }
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static bool file_exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

/*
 * Run argv (searched in PATH) with stdout and stderr sent to out_path;
 * returns the exit status, or -1 if it could not run or was killed.
 */
static int run(char *const argv[], const char *out_path)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status;
    int ret;

    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 2, out_path,
                     O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, 2, 1), 0);
    ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (ret != 0) {
        return -1;
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *tracetool_path(void)
{
    const char *p = getenv("TRACETOOL");

    if (!p) {
        fail_msg("TRACETOOL is not set (run through meson test)");
    }
    return p;
}

static int run_tracetool(const struct tt_dir *d, const char *in)
{
    char *argv[] = { (char *)tracetool_path(), (char *)in,
                     (char *)d->out_h, (char *)d->out_c, NULL };

    return run(argv, d->err);
}

static void assert_contains(const char *text, const char *needle)
{
    if (!text) {
        fail_msg("no text to search for '%s'", needle);
    } else if (!strstr(text, needle)) {
        fail_msg("'%s' not found in:\n%s", needle, text);
    }
}

static const char small_catalog[] =
    "# two events\n"
    "start(void) \"start\"\n"
    "\n"
    "disable io(uint8_t op, uint64_t addr, const char *dev, uint16_t n) "
    "\"op %u addr 0x%\" PRIx64 \" dev %s n %u\"\n";

static void test_tracetool_small_file_writes_both_outputs(void **state)
{
    struct tt_dir *d = *state;
    char *h;
    char *c;

    write_text(d->in, small_catalog);
    assert_int_equal(run_tracetool(d, d->in), 0);
    h = read_text(d->out_h);
    c = read_text(d->out_c);
    assert_non_null(h);
    assert_non_null(c);

    assert_contains(h, "do not edit");
    assert_contains(h, "#include <stddef.h>");
    assert_contains(h, "#include <stdint.h>");
    assert_contains(h, "#include \"qtrace/format.h\"");
    assert_contains(h, "    QTRACE_EV_START = 1,\n");
    assert_contains(h, "    QTRACE_EV_IO = 2,\n");
    assert_contains(h, "    QTRACE_EV__COUNT = 3\n");
    assert_contains(h, "/* trace-events line 4: disable io(uint8_t op, "
                    "uint64_t addr, const char *dev, uint16_t n) */\n"
                    "struct qtrace_ev_io {\n"
                    "    struct qtrace_rec hdr;\n"
                    "    uint8_t op;\n"
                    "    uint64_t addr;\n"
                    "    uint16_t dev_len;");
    assert_contains(h, "#define QTRACE_EV_START_FIXED 16\n");
    assert_contains(h, "#define QTRACE_EV_IO_FIXED 36\n");
    assert_contains(h, "offsetof(struct qtrace_ev_io, op) == 16");
    assert_contains(h, "offsetof(struct qtrace_ev_io, addr) == 24");
    assert_contains(h, "offsetof(struct qtrace_ev_io, dev_len) == 32");
    assert_contains(h, "offsetof(struct qtrace_ev_io, n) == 34");
    assert_contains(h, "extern const char qtrace_catalog_text[];");
    assert_contains(h, "extern const char *const "
                    "qtrace_event_names[QTRACE_EV__COUNT];");

    assert_contains(c, "#include \"ev.h\"");
    assert_contains(c, "    NULL,\n    \"start\",\n    \"io\",\n};");
    assert_contains(c, "\"# two events\\n\"\n");
    assert_contains(c, "\"op %u addr 0x%\\\" PRIx64 \\\" dev %s n %u\\\"");
    free(h);
    free(c);
    c = read_text(d->err);
    assert_non_null(c);
    assert_string_equal(c, "");         /* nothing said on success */
    free(c);
}

static void test_tracetool_bad_file_exits_1_and_writes_nothing(void **state)
{
    struct tt_dir *d = *state;
    char want[384];
    char *msg;
    char tmp[160];

    write_text(d->in, "ok(void) \"ok\"\n# fine so far\n"
               "bad(uint128_t x) \"x\"\n");
    assert_int_equal(run_tracetool(d, d->in), 1);
    msg = read_text(d->err);
    assert_non_null(msg);
    snprintf(want, sizeof(want), "qtrace-tracetool: %s:3:5: unknown type "
             "'uint128_t' for argument 'x' (standard C and fixed-size "
             "integer types only; other pointers are 'void *')\n", d->in);
    assert_string_equal(msg, want);
    assert_false(file_exists(d->out_h));
    assert_false(file_exists(d->out_c));
    snprintf(tmp, sizeof(tmp), "%s.tmp", d->out_h);
    assert_false(file_exists(tmp));
    free(msg);
}

static void test_tracetool_bad_file_keeps_old_outputs(void **state)
{
    struct tt_dir *d = *state;
    char *h;

    write_text(d->out_h, "old header\n");
    write_text(d->in, "dup(void) \"a\"\ndup(void) \"b\"\n");
    assert_int_equal(run_tracetool(d, d->in), 1);
    h = read_text(d->out_h);
    assert_non_null(h);
    assert_string_equal(h, "old header\n");
    assert_false(file_exists(d->out_c));
    free(h);
}

static void test_tracetool_missing_input_exits_1(void **state)
{
    struct tt_dir *d = *state;
    char *msg;

    assert_int_equal(run_tracetool(d, d->in), 1);   /* never written */
    msg = read_text(d->err);
    assert_non_null(msg);
    assert_contains(msg, "tracetool: ");
    assert_contains(msg, "No such file or directory");
    assert_false(file_exists(d->out_h));
    free(msg);
}

static void test_tracetool_wrong_arguments_exit_2(void **state)
{
    struct tt_dir *d = *state;
    char *argv[] = { (char *)tracetool_path(), d->in, NULL };
    char *msg;

    assert_int_equal(run(argv, d->err), 2);
    msg = read_text(d->err);
    assert_non_null(msg);
    assert_contains(msg, "usage: qtrace-tracetool");
    free(msg);
}

static void test_tracetool_project_catalog_gives_exec_tb_id(void **state)
{
    struct tt_dir *d = *state;
    const char *path = getenv("TRACE_EVENTS");
    const struct qtrace_event_desc *ev;
    struct qtrace_catalog cat;
    struct qtrace_err err;
    char line[96];
    char *text;
    char *h;

    if (!path) {
        skip();
    }
    text = read_text(path);
    assert_non_null(text);
    assert_int_equal(qtrace_catalog_parse(&cat, text, &err), 0);
    ev = qtrace_catalog_find(&cat, "exec_tb");
    assert_non_null(ev);

    assert_int_equal(run_tracetool(d, path), 0);
    h = read_text(d->out_h);
    assert_non_null(h);
    snprintf(line, sizeof(line), "    QTRACE_EV_EXEC_TB = %u,\n", ev->id);
    assert_contains(h, line);
    snprintf(line, sizeof(line), "    QTRACE_EV__COUNT = %u\n",
             cat.n_events + 1);
    assert_contains(h, line);
    snprintf(line, sizeof(line), "#define QTRACE_EV_EXEC_TB_FIXED %u\n",
             (unsigned int)ev->fixed_size);
    assert_contains(h, line);
    qtrace_catalog_fini(&cat);
    free(text);
    free(h);
}

/*
 * The generated files must compile with the project's warnings, and the
 * embedded text must come back byte for byte: the catalog below holds
 * quotes, backslashes, a trigraph, a tab, octal-looking digits and
 * non-ASCII bytes in a comment.
 */
static void test_tracetool_output_compiles_and_text_round_trips(void **state)
{
    static const char tricky[] =
        "# caf\xc3\xa9 ?\?/ ?\?= \"quoted\" back\\slash\ttab \x01" "7\n"
        "a(uint8_t b, int64_t c, const void *p, bool f) "
        "\"b %u c %\" PRId64 \" \\\"q\\\" \\\\ ?\?/ \"\n"
        "disable z(void) \"z\"";
    static const char prog[] =
        "#include <stdio.h>\n#include <string.h>\n#include \"ev.h\"\n"
        "int main(void)\n{\n"
        "    struct qtrace_ev_a r;\n"
        "    (void)r;\n"
        "    if (QTRACE_EV_Z != 2 || QTRACE_EV_A_FIXED != 35 ||\n"
        "        strcmp(qtrace_event_names[QTRACE_EV_Z], \"z\") ||\n"
        "        qtrace_event_names[0] != NULL) {\n"
        "        return 3;\n"
        "    }\n"
        "    fputs(qtrace_catalog_text, stdout);\n"
        "    return 0;\n}\n";
    struct tt_dir *d = *state;
    const char *src = getenv("TRACE_EVENTS");
    char inc[192];
    char main_c[128];
    char exe[128];
    char out[128];
    char *cc_argv[] = { "cc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                        "-I", inc, "-I", d->root, "-o", exe, main_c,
                        d->out_c, NULL };
    char *run_argv[] = { exe, NULL };
    char *got;
    int ret;

    if (!src || strlen(src) > sizeof(inc) - 32) {
        skip();
    }
    /* include/ sits beside the project's trace-events. */
    snprintf(inc, sizeof(inc), "%.*sinclude",
             (int)(strrchr(src, '/') ? strrchr(src, '/') - src + 1 : 0),
             src);
    snprintf(main_c, sizeof(main_c), "%s/main.c", d->root);
    snprintf(exe, sizeof(exe), "%s/prog", d->root);
    snprintf(out, sizeof(out), "%s/prog.out", d->root);

    write_text(d->in, tricky);
    assert_int_equal(run_tracetool(d, d->in), 0);
    write_text(main_c, prog);
    ret = run(cc_argv, out);
    if (ret < 0) {
        skip();                         /* no C compiler on this machine */
    }
    if (ret != 0) {
        got = read_text(out);
        fail_msg("generated code does not compile:\n%s", got);
    }
    assert_int_equal(run(run_argv, out), 0);
    got = read_text(out);
    assert_non_null(got);
    assert_string_equal(got, tricky);
    free(got);
}

static int run_tracetool_instr(const struct tt_dir *d, const char *lib)
{
    char opt[64];
    char *argv[] = { (char *)tracetool_path(), opt, (char *)d->in,
                     (char *)d->out_h, NULL };

    snprintf(opt, sizeof(opt), "--instr=%s", lib);
    return run(argv, d->err);
}

/*
 * --instr refuses, at build time, what a library's fixed-size records
 * cannot hold, with the file and line of the event, and writes nothing.
 */
static void test_tracetool_instr_bad_file_names_file_and_line(void **state)
{
    static const struct {
        const char *lib;
        const char *text;
        const char *err;            /* after "qtrace-tracetool: IN" */
    } cases[] = {
        { "lib", "a(uint8_t x) \"x %u\"\nb(const char *s) \"%s\"\n",
          ":2:1: b: argument 's' (const char *): a library's events are "
          "fixed-size records, with no strings or byte arrays\n" },
        { "lib", "# bytes\n\nb(const void *p, uint16_t n) \"n %u\"\n",
          ":3:1: b: argument 'p' (const void *): a library's events are "
          "fixed-size records, with no strings or byte arrays\n" },
        { "lib", "vcpu a(uint8_t x) \"x %u\"\n",
          ":1:1: a: property 'vcpu': a library's event always names its "
          "vCPU, drop it\n" },
        { "lib", "ok(void) \"\"\nx:y(void) \"y\"\n",
          ":2:1: x:y: ':' is for a library's events in a trace; name the "
          "event alone and the library with --instr=LIB\n" },
        { "lib", "ok(void) \"\"\nbad(uint8_t x \"x\"\n", ":2:" },
        { "lib", "ok(uint8_t x) \"x %s\"\n", ":1:" },
        { "lib", "# nothing\n", ": no event\n" },
        { "a_library_name_of_31_characters",
          "an_event_name_of_32_characters__(void) \"\"\n",
          ":1:1: an_event_name_of_32_characters__: 'a_library_name_of_31_"
          "characters:an_event_name_of_32_characters__' too long (max 63 "
          "characters)\n" },
    };
    struct tt_dir *d = *state;
    char want[512];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *msg;

        write_text(d->in, cases[i].text);
        assert_int_equal(run_tracetool_instr(d, cases[i].lib), 1);
        msg = read_text(d->err);
        assert_non_null(msg);
        snprintf(want, sizeof(want), "qtrace-tracetool: %s%s", d->in,
                 cases[i].err);
        if (strncmp(msg, want, strlen(want)) != 0) {
            fail_msg("case %zu: want '%s', got '%s'", i, want, msg);
        }
        assert_false(file_exists(d->out_h));
        free(msg);
    }
}

static void test_tracetool_instr_bad_library_name_exits_1(void **state)
{
    struct tt_dir *d = *state;
    char *msg;

    write_text(d->in, "a(void) \"a\"\n");
    assert_int_equal(run_tracetool_instr(d, "9lives"), 1);
    msg = read_text(d->err);
    assert_non_null(msg);
    assert_string_equal(msg, "qtrace-tracetool: --instr=9lives: not a C "
                        "identifier of at most 31 characters\n");
    assert_false(file_exists(d->out_h));
    free(msg);
}

/*
 * The header compiles with the project's warnings, registers the events
 * under LIB:EVENT, and a call hands the host the arguments where the
 * layout rule of docs/format.md puts them (offsets from the record's
 * header): a 0, b 8, c 16, 18 bytes, the gap zero.
 */
static void test_tracetool_instr_header_fills_records(void **state)
{
    static const char events[] =
        "# mine\n"
        "ev(uint8_t a, uint64_t b, int16_t c) \"a %u b 0x%\" PRIx64 "
        "\" c %d\"\n"
        "none(void) \"none\"\n";
    static const char prog[] =
        "#include <stdio.h>\n#include \"ev.h\"\n"
        "static const struct qtrace_instr_events *got;\n"
        "static int reg(const struct qtrace_instr_host *h,\n"
        "               const struct qtrace_instr_events *e)\n"
        "{ (void)h; got = e; return 0; }\n"
        "static int emit(const struct qtrace_instr_host *h, unsigned int v,\n"
        "                uint32_t ev, const void *p, size_t len)\n"
        "{\n"
        "    size_t i;\n"
        "    (void)h;\n"
        "    printf(\"vcpu %u event %u len %zu:\", v, ev, len);\n"
        "    for (i = 0; i < got->payload_bytes[ev - 1]; i++) {\n"
        "        printf(\" %02x\", ((const unsigned char *)p)[i]);\n"
        "    }\n"
        "    printf(\"\\n\");\n"
        "    return 0;\n"
        "}\n"
        "int main(void)\n{\n"
        "    struct qtrace_instr_host h = { .api_version =\n"
        "        QTRACE_INSTR_API_VERSION, .register_events = reg,\n"
        "        .emit_event = emit };\n"
        "    if (trace_mine_register(&h) != 0) { return 3; }\n"
        "    printf(\"%s %u %u %u\\n%s\", got->lib, got->n_events,\n"
        "           got->payload_bytes[0], got->payload_bytes[1],\n"
        "           got->catalog);\n"
        "    trace_mine_ev(&h, 3, 0x11, 0x2233445566778899ull, -2);\n"
        "    trace_mine_none(&h, 0);\n"
        "    return 0;\n}\n";
    static const char want[] =
        "mine 2 18 0\n"
        "mine:ev(uint8_t a, uint64_t b, int16_t c) \"a %u b 0x%\" PRIx64 "
        "\" c %d\"\n"
        "mine:none(void) \"none\"\n"
        "vcpu 3 event 1 len 24: 11 00 00 00 00 00 00 00 99 88 77 66 55 44 "
        "33 22 fe ff\n"
        "vcpu 0 event 2 len 1:\n";
    struct tt_dir *d = *state;
    const char *src = getenv("TRACE_EVENTS");
    char inc[192];
    char main_c[128];
    char exe[128];
    char out[128];
    char *cc_argv[] = { "cc", "-std=c11", "-Wall", "-Wextra", "-Werror",
                        "-I", inc, "-I", d->root, "-o", exe, main_c, NULL };
    char *run_argv[] = { exe, NULL };
    char *got;
    int ret;

    if (!src || strlen(src) > sizeof(inc) - 32) {
        skip();
    }
    snprintf(inc, sizeof(inc), "%.*sinclude",
             (int)(strrchr(src, '/') ? strrchr(src, '/') - src + 1 : 0),
             src);
    snprintf(main_c, sizeof(main_c), "%s/main.c", d->root);
    snprintf(exe, sizeof(exe), "%s/prog", d->root);
    snprintf(out, sizeof(out), "%s/prog.out", d->root);

    write_text(d->in, events);
    assert_int_equal(run_tracetool_instr(d, "mine"), 0);
    write_text(main_c, prog);
    ret = run(cc_argv, out);
    if (ret < 0) {
        skip();                         /* no C compiler on this machine */
    }
    if (ret != 0) {
        got = read_text(out);
        fail_msg("generated header does not compile:\n%s", got);
    }
    assert_int_equal(run(run_argv, out), 0);
    got = read_text(out);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_tracetool_small_file_writes_both_outputs,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_bad_file_exits_1_and_writes_nothing,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_bad_file_keeps_old_outputs,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_missing_input_exits_1,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_wrong_arguments_exit_2,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_project_catalog_gives_exec_tb_id,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_output_compiles_and_text_round_trips,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_instr_bad_file_names_file_and_line,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_instr_bad_library_name_exits_1,
            setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(
            test_tracetool_instr_header_fills_records,
            setup_dir, teardown_dir),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
