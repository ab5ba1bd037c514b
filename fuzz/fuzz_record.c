/*
 * fuzz_record.c - libFuzzer target for the record path: one job line in,
 * cairn_record_process() (parse -> validate -> plugin -> render), one
 * result line out.
 *
 * Input format: the whole input is ONE line, passed as-is (nothing is
 * stripped, embedded '\n' and NUL bytes included), so a crash file is
 * itself the offending record.  The settings of the run come from the
 * input's LAST byte, so the fuzzer flips them by mutating one byte:
 *
 *   bit 0      limits:          0 official, 1 extended
 *   bits 1..2  default_variant: 0 none, 1 "stone-game", 2 "1140" (alias of
 *              stone-game-ii), 3 "stone-game-iii"
 *
 * (An empty input runs with official limits and no default variant.)  The
 * line number passed is size + 1.
 *
 * Plugins: the real ones, loaded once from $CAIRN_FUZZ_PLUGIN_DIR
 * (default build-fuzz/plugins, as built by scripts/fuzz).
 *
 * Invariants checked after every call (any violation aborts, so libFuzzer
 * saves the input as a crash):
 *   - cairn_record_process() returns 0;
 *   - what was already in the output buffer is left untouched;
 *   - exactly one '\n' was appended, and it is the last byte;
 *   - the appended line is valid JSON (jansson, no DECODE_ANY, duplicate
 *     keys rejected) and is an object with "line" equal to the line number
 *     and "status" either "ok" (with "variant" and "answer") or "error"
 *     with an "error" object whose "code" is a known code and whose
 *     "message" is a string;
 *   - a scalar "id" in a record that is a JSON object (with no raw NUL
 *     byte) is echoed back
 *     (a real number may come back as null when it does not fit), and a
 *     line that is JSON echoes no other; a line that is not JSON may echo
 *     a scalar id only when it has an "id" key (found without a tree);
 *   - the tally grew by exactly one record, counted once as ok or once
 *     under the error code the line reports, and once per-variant.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_loader.h"
#include "record.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cairn_registry reg;
static struct cairn_scratch scratch;
static struct cairn_tally tally;
static struct cairn_buf out;
static struct cairn_scratch slow_scratch; /* the jansson-only run, for comparison */
static struct cairn_buf slow_out;

#define PREFIX "{\"line\":0,\"status\":\"ok\"}\n" /* a previous result line */

static const char *const default_variants[4] = { NULL, "stone-game", "1140", "stone-game-iii" };

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz_record: invariant broken: %s\n  ", #cond);  \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n  output line: %.*s\n", (int)(out.len - mark), \
                    out.data ? out.data + mark : "");                         \
            abort();                                                          \
        }                                                                     \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("CAIRN_FUZZ_PLUGIN_DIR");
    size_t i;
    int rc;

    (void)argc;
    (void)argv;
    if (dir == NULL || *dir == '\0')
        dir = "build-fuzz/plugins";
    rc = cairn_registry_load(&reg, dir);
    for (i = 0; i < reg.n_errors; i++)
        fprintf(stderr, "fuzz_record: plugin refused: %s\n", reg.errors[i]);
    if (rc != 0 || reg.n_plugins < 3) {
        fprintf(stderr,
                "fuzz_record: loading plugins from %s failed (rc %d, %zu loaded);"
                " set CAIRN_FUZZ_PLUGIN_DIR\n",
                dir, rc, reg.n_plugins);
        exit(2);
    }
    if (cairn_tally_init(&tally, reg.n_plugins) != 0) {
        fprintf(stderr, "fuzz_record: out of memory\n");
        exit(2);
    }
    return 0;
}

static uint64_t sum(const uint64_t *v, size_t n)
{
    uint64_t s = 0;
    size_t i;

    for (i = 0; i < n; i++)
        s += v[i];
    return s;
}

static int code_index(const char *code)
{
    int i;

    for (i = 0; i < CAIRN_CODE_COUNT; i++)
        if (strcmp(code, cairn_code_name((enum cairn_code)i)) == 0)
            return i;
    return -1;
}

/* The id the record carries, if it is a JSON object with a scalar id. */
static json_t *record_id(const uint8_t *data, size_t size, int *read)
{
    json_t *root =
        json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
    json_t *id = NULL;

    /* A raw NUL anywhere makes the line bad_json for cairn, though jansson
     * stops reading at one after a number or literal and may accept it. */
    *read = root != NULL && memchr(data, '\0', size) == NULL;
    if (!*read) {
        json_decref(root);
        return NULL;
    }
    if (json_is_object(root)) {
        id = json_object_get(root, "id");
        if (id != NULL && (json_is_object(id) || json_is_array(id)))
            id = NULL;
        json_incref(id);
    }
    json_decref(root);
    return id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned ctl = size > 0 ? data[size - 1] : 0;
    struct cairn_record_ctx ctx = {
        .reg = &reg,
        .default_limits = (ctl & 1) ? CAIRN_LIMITS_EXTENDED : CAIRN_LIMITS_OFFICIAL,
        .default_variant = default_variants[(ctl >> 1) & 3],
    };
    uint64_t line_no = (uint64_t)size + 1;
    uint64_t records0 = tally.records, ok0 = tally.ok;
    uint64_t errors0[CAIRN_CODE_COUNT];
    uint64_t vok0 = sum(tally.variant_ok, tally.n_variants);
    uint64_t verr0 = sum(tally.variant_err, tally.n_variants);
    size_t mark = 0, i, newlines = 0;
    json_error_t jerr;
    json_t *res, *line, *status, *want_id, *got_id;
    const char *st;
    int rc, read;

    memcpy(errors0, tally.errors, sizeof(errors0));

    /* Something already in the buffer, as a job's earlier results would be. */
    out.len = 0;
    if (cairn_buf_puts(&out, PREFIX) != 0)
        abort();
    mark = out.len;

    rc = cairn_record_process(&ctx, &scratch, line_no, (const char *)data, size, &out, &tally);
    CHECK(rc == 0, "cairn_record_process returned %d", rc);

    /* The plain-record reader must never change an answer: the same line
     * through jansson alone gives the same bytes. */
    {
        struct cairn_record_ctx slow = ctx;
        struct cairn_tally scratch_tally;

        slow.no_fast_path = 1;
        slow_out.len = 0;
        if (cairn_tally_init(&scratch_tally, reg.n_plugins) != 0)
            abort();
        rc = cairn_record_process(&slow, &slow_scratch, line_no, (const char *)data, size,
                                  &slow_out, &scratch_tally);
        cairn_tally_free(&scratch_tally);
        CHECK(rc == 0 && slow_out.len == out.len - mark &&
                  memcmp(slow_out.data, out.data + mark, slow_out.len) == 0,
              "the fast reader and jansson disagree: %.*s vs %.*s", (int)(out.len - mark),
              out.data + mark, (int)slow_out.len, slow_out.data);
    }
    CHECK(out.len > mark && memcmp(out.data, PREFIX, mark) == 0,
          "the earlier contents of the buffer changed or nothing was appended");
    for (i = mark; i < out.len; i++)
        newlines += out.data[i] == '\n';
    CHECK(newlines == 1 && out.data[out.len - 1] == '\n', "%zu newlines appended, last byte 0x%02x",
          newlines, (unsigned char)out.data[out.len - 1]);

    /* No JSON_DECODE_ANY: a result line must be an object (or array). */
    res = json_loadb(out.data + mark, out.len - mark, JSON_REJECT_DUPLICATES, &jerr);
    CHECK(res != NULL, "output is not valid JSON: %s (column %d)", jerr.text, jerr.column);
    CHECK(json_is_object(res), "output is not a JSON object");

    line = json_object_get(res, "line");
    CHECK(json_is_integer(line) && (uint64_t)json_integer_value(line) == line_no,
          "\"line\" is not %llu", (unsigned long long)line_no);

    status = json_object_get(res, "status");
    st = json_string_value(status);
    CHECK(st != NULL && (strcmp(st, "ok") == 0 || strcmp(st, "error") == 0),
          "\"status\" is neither \"ok\" nor \"error\"");

    CHECK(tally.records == records0 + 1, "tally.records went from %llu to %llu",
          (unsigned long long)records0, (unsigned long long)tally.records);
    if (strcmp(st, "ok") == 0) {
        CHECK(json_is_string(json_object_get(res, "variant")), "ok line without a variant");
        CHECK(json_object_get(res, "answer") != NULL, "ok line without an answer");
        CHECK(json_object_get(res, "error") == NULL, "ok line with an error");
        CHECK(tally.ok == ok0 + 1 && memcmp(errors0, tally.errors, sizeof(errors0)) == 0,
              "an ok line not counted as exactly one ok");
        CHECK(sum(tally.variant_ok, tally.n_variants) == vok0 + 1 &&
                  sum(tally.variant_err, tally.n_variants) == verr0,
              "an ok line not counted once per variant");
    } else {
        json_t *err = json_object_get(res, "error");
        const char *code = json_string_value(json_object_get(err, "code"));
        int ci = code ? code_index(code) : -1;

        CHECK(json_is_object(err), "error line without an error object");
        CHECK(ci >= 0, "unknown error code \"%s\"", code ? code : "(none)");
        CHECK(json_is_string(json_object_get(err, "message")), "error without a message");
        CHECK(json_object_get(res, "answer") == NULL, "error line with an answer");
        CHECK(tally.ok == ok0 && tally.errors[ci] == errors0[ci] + 1 &&
                  sum(tally.errors, CAIRN_CODE_COUNT) == sum(errors0, CAIRN_CODE_COUNT) + 1,
              "an error line not counted as exactly one %s", code);
        CHECK(sum(tally.variant_err, tally.n_variants) == verr0 + 1 &&
                  sum(tally.variant_ok, tally.n_variants) == vok0,
              "an error line not counted once per variant");
    }

    want_id = record_id(data, size, &read);
    got_id = json_object_get(res, "id");
    if (want_id != NULL)
        CHECK(got_id != NULL &&
                  (json_equal(want_id, got_id) || (json_is_real(want_id) && json_is_null(got_id))),
              "the record's id was not echoed back");
    else if (read)
        CHECK(got_id == NULL, "an id was echoed that the record does not have as a scalar");
    else
        CHECK(got_id == NULL || (!json_is_object(got_id) && !json_is_array(got_id) &&
                                 memmem(data, size, "\"id\"", 4) != NULL),
              "an id was echoed from a line that is not JSON and has no \"id\" key");
    json_decref(want_id);
    json_decref(res);
    return 0;
}
