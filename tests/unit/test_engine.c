/*
 * test_engine.c - the record engine: bytes in, ordered result lines out.
 *
 * Streams are fed from memory by a test source that hands out a chosen
 * number of bytes per read, either at once or later from a uv_idle or
 * uv_timer callback (as a pipe would), and their results are collected by
 * a sink that checks batches arrive in sequence.  Pools are tiny (64-byte
 * batches, one to three of them) so lines straddle batches, wait for
 * batches to come back, and get carried from one batch to the next.
 *
 * The reference output is built line by line with cairn_record_process()
 * itself, so these tests are about cutting, ordering and flow, not about
 * what a single record answers (test_record.c covers that).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "harness.h"
#include "alloc_fail.h"
#include "engine.h"
#include "plugin_loader.h"
#include "record.h"
#include "rng.h"
#include "util.h"

static struct cairn_registry g_reg;
static struct cairn_record_ctx g_ctx;

/* ------------------------------------------------------------------ */
/* A source reading from memory                                        */
/* ------------------------------------------------------------------ */

enum src_mode {
    SRC_SYNC,
    SRC_IDLE,
    SRC_TIMER
};

struct memsrc {
    const char *data;
    size_t len;
    size_t pos;
    size_t chunk; /* bytes per read at most */
    enum src_mode mode;
    size_t fail_at; /* a read at or past this offset fails with -EIO */
    uv_idle_t idle;
    uv_timer_t timer;
    struct cairn_stream *s;
    char *buf;
    size_t want;
    int pending;
    size_t reads;
};

static int mem_take(struct memsrc *m, char *buf, size_t len, ssize_t *nread)
{
    size_t n = m->len - m->pos;

    if (m->pos >= m->fail_at)
        return -EIO;
    if (n > len)
        n = len;
    if (n > m->chunk)
        n = m->chunk;
    if (m->fail_at != SIZE_MAX && n > m->fail_at - m->pos)
        n = m->fail_at - m->pos;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    *nread = (ssize_t)n;
    return 0;
}

static void mem_complete(struct memsrc *m)
{
    ssize_t n = 0;
    int rc;

    m->pending = 0;
    rc = mem_take(m, m->buf, m->want, &n);
    cairn_stream_read_done(m->s, rc < 0 ? rc : n);
}

static void idle_cb(uv_idle_t *h)
{
    uv_idle_stop(h);
    mem_complete(h->data);
}

static void timer_cb(uv_timer_t *h)
{
    mem_complete(h->data);
}

/* The sink whose write() is running, if any: no engine call may run a
 * stream's read or end() from inside one (pool.h: a batch given back is
 * handed over on the next loop turn). */
static const void *g_writing;

static int mem_read(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                    ssize_t *nread)
{
    struct memsrc *m = src->data;

    ck_assert_msg(g_writing == NULL, "read() called from inside a sink's write()");

    ck_assert_msg(!m->pending, "read() called while a read is pending");
    ck_assert_msg(len > 0, "read() called with no room");
    m->reads++;
    if (m->mode == SRC_SYNC)
        return mem_take(m, buf, len, nread);
    m->s = s;
    m->buf = buf;
    m->want = len;
    m->pending = 1;
    if (m->mode == SRC_IDLE)
        ck_assert_int_eq(uv_idle_start(&m->idle, idle_cb), 0);
    else
        ck_assert_int_eq(uv_timer_start(&m->timer, timer_cb, 0, 0), 0);
    return CAIRN_SOURCE_PENDING;
}

/* ------------------------------------------------------------------ */
/* A sink collecting the output                                        */
/* ------------------------------------------------------------------ */

struct collect {
    struct cairn_buf out;
    int defer; /* release from an idle callback, later */
    uv_idle_t idle;
    struct cairn_batch *queue[64];
    size_t q_head, q_len;
    uint64_t next_seq;
    size_t writes;
    int ended;
    int status;
    uint64_t records, ok, bytes;
    int misordered; /* quiet_write: a batch out of sequence */
};

/* A sink that writes asynchronously: one batch per loop turn. */
static void release_cb(uv_idle_t *h)
{
    struct collect *c = h->data;
    struct cairn_batch *b = c->queue[c->q_head];

    c->q_head = (c->q_head + 1) % 64;
    if (--c->q_len == 0)
        uv_idle_stop(h);
    ck_assert_int_eq(cairn_buf_append(&c->out, b->out.data, b->out.len), 0);
    cairn_batch_release(b);
}

static void sink_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct collect *c = s->sink.data;

    ck_assert_msg(!c->ended, "write() after end()");
    ck_assert_msg(!c->defer || c->q_len < 64, "more batches out than a pool holds");
    ck_assert_msg(b->user == &s->user, "a batch of another stream reached this sink");
    ck_assert_msg(b->seq == c->next_seq, "batch %" PRIu64 " arrived, %" PRIu64 " expected", b->seq,
                  c->next_seq);
    c->next_seq++;
    c->writes++;
    if (c->defer) {
        ck_assert_uint_lt(c->q_len, 64);
        c->queue[(c->q_head + c->q_len++) % 64] = b;
        ck_assert_int_eq(uv_idle_start(&c->idle, release_cb), 0);
        return;
    }
    ck_assert_int_eq(cairn_buf_append(&c->out, b->out.data, b->out.len), 0);
    g_writing = c;
    cairn_batch_release(b);
    g_writing = NULL;
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct collect *c = s->sink.data;

    ck_assert_msg(g_writing == NULL, "end() called from inside a sink's write()");

    ck_assert_msg(c->q_len == 0, "end() before every batch was released");
    c->ended++;
    c->status = status;
    c->records = s->tally.records;
    c->ok = s->tally.ok;
    c->bytes = s->bytes;
}

/* ------------------------------------------------------------------ */
/* Running streams                                                     */
/* ------------------------------------------------------------------ */

struct opts {
    size_t chunk;
    enum src_mode mode;
    int prompt;
    size_t batch_bytes;
    size_t max_batches;
    size_t max_line;
    int defer; /* the sink releases batches later */
    int fail;  /* reads at or past fail_at fail with -EIO */
    size_t fail_at;
    size_t max_running; /* batches solving at once; 0 = no limit */
};

struct job {
    const char *in;
    size_t len;
    struct memsrc src;
    struct cairn_stream s;
    struct collect c;
};

static void job_setup(struct job *j, uv_loop_t *loop, struct cairn_pool *pool, const struct opts *o,
                      const char *in, size_t len)
{
    memset(j, 0, sizeof(*j));
    j->in = in;
    j->len = len;
    j->src = (struct memsrc){ .data = in,
                              .len = len,
                              .chunk = o->chunk,
                              .mode = o->mode,
                              .fail_at = o->fail ? o->fail_at : SIZE_MAX };
    ck_assert_int_eq(uv_idle_init(loop, &j->src.idle), 0);
    ck_assert_int_eq(uv_timer_init(loop, &j->src.timer), 0);
    ck_assert_int_eq(uv_idle_init(loop, &j->c.idle), 0);
    j->c.idle.data = &j->c;
    j->c.defer = o->defer;
    j->src.idle.data = &j->src;
    j->src.timer.data = &j->src;
    j->s.pool = pool;
    j->s.ctx = &g_ctx;
    j->s.max_line_bytes = o->max_line ? o->max_line : 16u << 20;
    j->s.source = (struct cairn_source){ .read = mem_read, .prompt = o->prompt, .data = &j->src };
    j->s.sink = (struct cairn_sink){ .write = sink_write, .end = sink_end, .data = &j->c };
}

static void job_close(struct job *j)
{
    uv_close((uv_handle_t *)&j->src.idle, NULL);
    uv_close((uv_handle_t *)&j->src.timer, NULL);
    uv_close((uv_handle_t *)&j->c.idle, NULL);
}

static void job_free(struct job *j)
{
    cairn_stream_free(&j->s);
    cairn_buf_free(&j->c.out);
}

/* Runs n jobs over one pool until all have ended. */
static void run_jobs(struct job *jobs, size_t n, const struct opts *o, const char *const *in,
                     const size_t *len)
{
    uv_loop_t loop;
    struct cairn_pool pool;
    size_t i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, o->max_batches, o->batch_bytes), 0);
    cairn_pool_set_max_running(&pool, o->max_running);
    for (i = 0; i < n; i++)
        job_setup(&jobs[i], &loop, &pool, o, in[i], len[i]);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(cairn_stream_start(&jobs[i].s), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    for (i = 0; i < n; i++) {
        ck_assert_msg(jobs[i].c.ended == 1, "stream %zu: end() called %d times", i,
                      jobs[i].c.ended);
        ck_assert_msg(jobs[i].s.in_flight == 0, "stream %zu ended with batches in flight", i);
        job_close(&jobs[i]);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    cairn_pool_close(&pool);
    ck_assert_msg(pool.n_batches == 0, "%zu batches never came back to the pool", pool.n_batches);
    ck_assert_uint_le(pool.max_batches, o->max_batches);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

static void run_one(struct job *j, const struct opts *o, const char *in, size_t len)
{
    run_jobs(j, 1, o, &in, &len);
}

/* ------------------------------------------------------------------ */
/* The reference                                                       */
/* ------------------------------------------------------------------ */

/* One expected result line: the exact text, or a too_large line. */
struct want_line {
    uint64_t no;
    int too_long;
    size_t bytes; /* the too-long line's length, or 0 when not checked */
    char *text;   /* with its '\n' */
    size_t text_len;
};

struct want {
    struct want_line *l;
    size_t n;
    uint64_t records, ok;
};

static int is_blank(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return 0;
    return 1;
}

/* The line rules (cairnd(8), RECORDS): '\n' ends a line, a '\r' before it is not
 * data, a missing final newline is fine, blank lines give no output; a
 * UTF-8 BOM at the very start is not data; a line over max_line_bytes
 * (counted without BOM and '\r') gets a too_large line. */
static void want_build(struct want *w, const char *in, size_t len, size_t max_line)
{
    struct cairn_scratch s = { 0 };
    struct cairn_tally t;
    size_t pos = 0;
    uint64_t no = 0;

    memset(w, 0, sizeof(*w));
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    w->l = calloc(len / 2 + 2, sizeof(*w->l));
    ck_assert_ptr_nonnull(w->l);
    while (pos < len) {
        const char *p = in + pos, *nl = memchr(p, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - p) : len - pos;
        struct want_line *l;

        pos += n + (nl != NULL);
        no++;
        if (no == 1 && n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3, n -= 3;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        /* Length first: a line too long to hold is an error whatever it
         * holds (the engine cannot look inside a line it did not keep). */
        if (n <= max_line && is_blank(p, n))
            continue;
        l = &w->l[w->n++];
        l->no = no;
        if (n > max_line) {
            l->too_long = 1;
            l->bytes = n;
            w->records++;
            continue;
        }
        {
            struct cairn_buf out = { 0 };
            ck_assert_int_eq(cairn_record_process(&g_ctx, &s, no, p, n, &out, &t), 0);
            l->text = out.data;
            l->text_len = out.len;
        }
    }
    w->records += t.records;
    w->ok = t.ok;
    cairn_tally_free(&t);
    cairn_scratch_free(&s);
}

static void want_free(struct want *w)
{
    size_t i;

    for (i = 0; i < w->n; i++)
        free(w->l[i].text);
    free(w->l);
}

/* Compares collected output with the reference, line by line. */
static void check_output(const struct collect *c, const struct want *w, const char *what)
{
    const char *p = c->out.data, *end = c->out.data + c->out.len;
    size_t i;

    for (i = 0; i < w->n; i++) {
        const struct want_line *l = &w->l[i];
        const char *nl;
        size_t n;

        ck_assert_msg(p < end, "%s: output ends after %zu of %zu lines", what, i, w->n);
        nl = memchr(p, '\n', (size_t)(end - p));
        ck_assert_msg(nl != NULL, "%s: output line %zu has no newline", what, i + 1);
        n = (size_t)(nl - p) + 1;
        if (!l->too_long) {
            ck_assert_msg(n == l->text_len && memcmp(p, l->text, n) == 0,
                          "%s: output line %zu is\n  %.*s\nwant\n  %.*s", what, i + 1,
                          (int)(n > 300 ? 300 : n), p, (int)l->text_len, l->text);
        } else {
            json_t *j = json_loadb(p, n - 1, 0, NULL);
            json_t *err = json_object_get(j, "error");
            const char *msg = json_string_value(json_object_get(err, "message"));
            char bytes[48];

            ck_assert_msg(j != NULL, "%s: output line %zu is not JSON: %.*s", what, i + 1,
                          (int)(n > 300 ? 300 : n), p);
            ck_assert_msg(
                json_integer_value(json_object_get(j, "line")) == (json_int_t)l->no &&
                    strcmp(json_string_value(json_object_get(err, "code")), "too_large") == 0,
                "%s: output line %zu should be too_large for line %" PRIu64 ": %.*s", what, i + 1,
                l->no, (int)n, p);
            ck_assert_msg(msg != NULL && strstr(msg, "max_line_bytes") != NULL,
                          "%s: too_large message does not name max_line_bytes: %.*s", what, (int)n,
                          p);
            snprintf(bytes, sizeof(bytes), "%zu bytes", l->bytes);
            ck_assert_msg(l->bytes == 0 || strstr(msg, bytes) != NULL,
                          "%s: too_large message does not say \"%s\": %.*s", what, bytes, (int)n,
                          p);
            json_decref(j);
        }
        p += n;
    }
    ck_assert_msg(p == end, "%s: %zu extra output bytes: %.*s", what, (size_t)(end - p),
                  (int)((size_t)(end - p) > 300 ? 300 : (size_t)(end - p)), p);
    ck_assert_msg(c->records == w->records && c->ok == w->ok,
                  "%s: tally says %" PRIu64 " records, %" PRIu64 " ok; want %" PRIu64 ", %" PRIu64,
                  what, c->records, c->ok, w->records, w->ok);
}

/* Runs input under o and checks it against the reference. */
static void run_check(const char *in, size_t len, const struct opts *o, const char *what)
{
    struct want w;
    struct job j;
    char label[256];

    want_build(&w, in, len, o->max_line ? o->max_line : 16u << 20);
    run_one(&j, o, in, len);
    snprintf(label, sizeof(label),
             "%s [chunk %zu, mode %d, prompt %d, batch %zu x %zu, max_line %zu, defer %d]", what,
             o->chunk, (int)o->mode, o->prompt, o->batch_bytes, o->max_batches, o->max_line,
             o->defer);
    ck_assert_msg(j.c.status == 0, "%s: stream ended with %d", label, j.c.status);
    check_output(&j.c, &w, label);
    ck_assert_msg(j.c.bytes == len, "%s: stream read %" PRIu64 " of %zu bytes", label, j.c.bytes,
                  len);
    job_free(&j);
    want_free(&w);
}

/* Every pool shape and source shape on one input. */
static const struct {
    size_t batch_bytes, max_batches;
} shapes[] = { { 64, 1 }, { 100, 2 }, { 4096, 3 }, { 64, 3 }, { 4096, 1 } };
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static void run_matrix(const char *in, size_t len, size_t max_line, const char *what)
{
    static const size_t chunks[] = { 1, 7, 4096 };
    size_t si, ci;
    int mode;

    for (si = 0; si < N_SHAPES; si++)
        for (ci = 0; ci < 3; ci++)
            for (mode = SRC_SYNC; mode <= SRC_TIMER; mode++) {
                struct opts o = { .chunk = chunks[ci],
                                  .mode = (enum src_mode)mode,
                                  .prompt = mode != SRC_SYNC,
                                  .batch_bytes = shapes[si].batch_bytes,
                                  .max_batches = shapes[si].max_batches,
                                  .max_line = max_line };
                run_check(in, len, &o, what);
                if (mode == SRC_SYNC) {
                    o.prompt = 1;
                    run_check(in, len, &o, what);
                }
            }
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */
/* ------------------------------------------------------------------ */

static uint64_t g_rng;

/* n stone-game-iii records with ids, some of them broken, blank or CRLF. */
static char *random_records(size_t n, uint64_t seed, size_t *len)
{
    struct cairn_buf b = { 0 };
    size_t i, k;

    g_rng = seed;
    for (i = 0; i < n; i++) {
        uint64_t r = th_splitmix64(&g_rng);
        size_t m = 1 + (size_t)(r % 12);
        int rc = 0;

        if (r % 97 == 5) {
            rc |= cairn_buf_puts(&b, "{\"variant\":\"stone-game-iii\",\"input\":");
        } else if (r % 89 == 3) {
            rc |= cairn_buf_puts(&b, "   ");
        } else {
            rc |= cairn_buf_printf(&b,
                                   "{\"id\":\"r%zu\",\"variant\":\"%s\",\"input\":"
                                   "{\"stoneValue\":[",
                                   i, r % 3 == 0 ? "1406" : "stone-game-iii");
            for (k = 0; k < m; k++)
                rc |= cairn_buf_printf(&b, "%s%d", k ? "," : "",
                                       (int)(th_splitmix64(&g_rng) % 2001) - 1000);
            rc |= cairn_buf_puts(&b, "]}}");
        }
        rc |= cairn_buf_puts(&b, r % 13 == 0 ? "\r\n" : "\n");
        ck_assert_int_eq(rc, 0);
    }
    *len = b.len;
    return b.data;
}

static const char REC_A[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
static const char REC_B[] = "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}";

/* A valid record padded with spaces to exactly n bytes. */
static char *padded_record(size_t n)
{
    size_t base = sizeof(REC_B) - 1;
    char *p;

    ck_assert_uint_ge(n, base);
    p = malloc(n + 1);
    ck_assert_ptr_nonnull(p);
    memcpy(p, REC_B, base - 1);
    memset(p + base - 1, ' ', n - base);
    p[n - 1] = '}';
    p[n] = '\0';
    return p;
}

static char *concat(size_t *len, ...) __attribute__((sentinel));
static char *concat(size_t *len, ...)
{
    struct cairn_buf b = { 0 };
    const char *s;
    va_list ap;

    va_start(ap, len);
    while ((s = va_arg(ap, const char *)) != NULL)
        ck_assert_int_eq(cairn_buf_puts(&b, s), 0);
    va_end(ap);
    ck_assert_int_eq(cairn_buf_reserve(&b, 1), 0);
    b.data[b.len] = '\0';
    *len = b.len;
    return b.data;
}

/* ------------------------------------------------------------------ */
/* Tests: order                                                        */
/* ------------------------------------------------------------------ */

START_TEST(test_many_records_in_order)
{
    size_t len, len1;
    char *in = random_records(5000, 42, &len);
    /* One byte per read costs a call per byte: a shorter input for that. */
    char *in1 = random_records(800, 41, &len1);
    static const size_t chunks[] = { 1, 7, 4096 };
    size_t si, ci;

    for (si = 0; si < N_SHAPES; si++)
        for (ci = 0; ci < 3; ci++) {
            struct opts o = { .chunk = chunks[ci],
                              .mode = SRC_SYNC,
                              .batch_bytes = shapes[si].batch_bytes,
                              .max_batches = shapes[si].max_batches };
            if (ci == 0)
                run_check(in1, len1, &o, "800 records, sync");
            else
                run_check(in, len, &o, "5000 records, sync");
        }
    free(in1);
    free(in);
}
END_TEST

START_TEST(test_many_records_in_order_pending_source)
{
    size_t len;
    char *in = random_records(2500, 43, &len);
    static const size_t chunks[] = { 7, 4096 };
    size_t si, ci;

    for (si = 0; si < N_SHAPES; si++)
        for (ci = 0; ci < 2; ci++) {
            struct opts o = { .chunk = chunks[ci],
                              .mode = SRC_IDLE,
                              .prompt = ci == 0,
                              .batch_bytes = shapes[si].batch_bytes,
                              .max_batches = shapes[si].max_batches };
            run_check(in, len, &o, "2500 records, idle");
        }
    free(in);
    /* One byte per loop turn, on a smaller input. */
    in = random_records(300, 44, &len);
    for (si = 0; si < N_SHAPES; si++) {
        struct opts o = { .chunk = 1,
                          .mode = SRC_TIMER,
                          .prompt = 1,
                          .batch_bytes = shapes[si].batch_bytes,
                          .max_batches = shapes[si].max_batches };
        run_check(in, len, &o, "300 records, timer");
        o.mode = SRC_IDLE;
        o.prompt = 0;
        run_check(in, len, &o, "300 records, idle");
    }
    free(in);
}
END_TEST

START_TEST(test_sink_releasing_later)
{
    /* A sink that writes asynchronously (as a job's results file does)
     * holds batches for a while; the stream waits for them. */
    size_t len;
    char *in = random_records(1500, 45, &len);
    size_t si;
    int mode;

    for (si = 0; si < N_SHAPES; si++)
        for (mode = SRC_SYNC; mode <= SRC_TIMER; mode++) {
            struct opts o = { .chunk = 61,
                              .mode = (enum src_mode)mode,
                              .prompt = mode == SRC_IDLE,
                              .batch_bytes = shapes[si].batch_bytes,
                              .max_batches = shapes[si].max_batches,
                              .defer = 1 };
            run_check(in, len, &o, "deferred release");
        }
    free(in);
    in = concat(&len, "", NULL);
    {
        struct opts o = { .chunk = 61, .batch_bytes = 64, .max_batches = 1, .defer = 1 };
        run_check(in, len, &o, "deferred release, empty input");
    }
    free(in);
}
END_TEST

START_TEST(test_mixed_variants_and_errors)
{
    size_t len;
    char *in = concat(&len, REC_A, "\n", REC_B, "\n", "not json\n",
                      "{\"variant\":\"nope\",\"input\":{}}\n",
                      "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},"
                      "\"expected\":10,\"options\":{\"moves\":true}}\n",
                      "[1,2,3]\n", REC_A, "\n", NULL);

    run_matrix(in, len, 0, "mixed");
    free(in);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Tests: line cutting                                                 */
/* ------------------------------------------------------------------ */

START_TEST(test_crlf_lines)
{
    size_t len;
    char *in = concat(&len, REC_A, "\r\n", REC_B, "\r\n", REC_A, "\n", REC_B, "\r\n", NULL);

    run_matrix(in, len, 0, "crlf");
    free(in);
}
END_TEST

START_TEST(test_blank_lines_skipped_but_counted)
{
    size_t len;
    char *in = concat(&len, "\n", REC_A, "\n", "   \n", "\r\n", "\t \r\n", REC_B, "\n", "\n", "\n",
                      REC_A, "\n", "  ", NULL);
    struct opts o = { .chunk = 4096, .batch_bytes = 4096, .max_batches = 2 };
    struct job j;
    json_t *x;

    run_matrix(in, len, 0, "blank lines");
    /* Spelled out once: lines 2, 6 and 9 are the records. */
    run_one(&j, &o, in, len);
    ck_assert_int_eq(j.c.status, 0);
    {
        const char *p = j.c.out.data;
        static const int nos[] = { 2, 6, 9 };
        size_t i;
        for (i = 0; i < 3; i++) {
            const char *nl = memchr(p, '\n', j.c.out.len - (size_t)(p - j.c.out.data));
            ck_assert_ptr_nonnull(nl);
            x = json_loadb(p, (size_t)(nl - p), 0, NULL);
            ck_assert_ptr_nonnull(x);
            ck_assert_int_eq(json_integer_value(json_object_get(x, "line")), nos[i]);
            ck_assert_str_eq(json_string_value(json_object_get(x, "status")), "ok");
            json_decref(x);
            p = nl + 1;
        }
        ck_assert_ptr_eq(p, j.c.out.data + j.c.out.len);
    }
    ck_assert_uint_eq(j.c.records, 3);
    job_free(&j);
    free(in);
}
END_TEST

START_TEST(test_missing_final_newline)
{
    size_t len;
    char *in = concat(&len, REC_A, "\n", REC_B, NULL);

    run_matrix(in, len, 0, "no final newline");
    free(in);
    in = concat(&len, REC_B, NULL);
    run_matrix(in, len, 0, "one line, no newline");
    free(in);
    in = concat(&len, REC_A, "\r", NULL);
    run_matrix(in, len, 0, "final CR, no newline");
    free(in);
    in = concat(&len, "not json", NULL);
    run_matrix(in, len, 0, "bad last line, no newline");
    free(in);
}
END_TEST

START_TEST(test_utf8_bom_at_start)
{
    size_t len;
    char *in = concat(&len, "\xEF\xBB\xBF", REC_A, "\n", REC_B, "\n", NULL);
    struct opts o = { .chunk = 1, .batch_bytes = 64, .max_batches = 1 };
    struct job j;

    run_matrix(in, len, 0, "BOM");
    run_one(&j, &o, in, len);
    ck_assert_uint_eq(j.c.ok, 2);
    job_free(&j);
    free(in);
    /* A BOM alone on the first line makes it blank. */
    in = concat(&len, "\xEF\xBB\xBF\n", REC_A, "\n", NULL);
    run_matrix(in, len, 0, "BOM on a blank line");
    free(in);
    in = concat(&len, "\xEF\xBB\xBF", NULL);
    run_matrix(in, len, 0, "BOM only");
    free(in);
    /* Only at the start: later it is part of the line (and bad JSON). */
    in = concat(&len, REC_A, "\n\xEF\xBB\xBF", REC_B, "\n", NULL);
    run_matrix(in, len, 0, "BOM on line 2");
    run_one(&j, &o, in, len);
    ck_assert_uint_eq(j.c.ok, 1);
    ck_assert_uint_eq(j.c.records, 2);
    job_free(&j);
    free(in);
}
END_TEST

START_TEST(test_empty_input)
{
    static const char *const inputs[] = { "", "\n", "\n\n\n", "  \r\n\t\n", "\r" };
    size_t i;
    int mode;

    for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
        for (mode = SRC_SYNC; mode <= SRC_TIMER; mode++) {
            struct opts o = {
                .chunk = 3, .mode = (enum src_mode)mode, .batch_bytes = 64, .max_batches = 1
            };
            struct job j;

            run_one(&j, &o, inputs[i], strlen(inputs[i]));
            ck_assert_int_eq(j.c.ended, 1);
            ck_assert_int_eq(j.c.status, 0);
            ck_assert_uint_eq(j.c.out.len, 0);
            ck_assert_uint_eq(j.c.records, 0);
            job_free(&j);
        }
}
END_TEST

START_TEST(test_long_valid_line_grows_batch)
{
    /* Under max_line_bytes but much longer than a batch: answered. */
    char *big = padded_record(1500);
    size_t len;
    char *in = concat(&len, REC_A, "\n", big, "\n", REC_B, "\n", big, NULL);

    run_matrix(in, len, 2000, "1500-byte line, 64-byte batches");
    free(in);
    free(big);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Tests: max_line_bytes                                               */
/* ------------------------------------------------------------------ */

START_TEST(test_too_long_line_then_next_answered)
{
    char *big = padded_record(1000);
    size_t len;
    char *in = concat(&len, REC_A, "\n", big, "\n", REC_B, "\n", NULL);
    struct opts o = { .chunk = 4096, .batch_bytes = 4096, .max_batches = 2, .max_line = 200 };
    struct job j;

    run_matrix(in, len, 200, "too long in the middle");
    run_one(&j, &o, in, len);
    ck_assert_uint_eq(j.c.records, 3);
    ck_assert_uint_eq(j.c.ok, 2);
    ck_assert_uint_eq(j.s.tally.errors[CAIRN_CODE_TOO_LARGE], 1);
    job_free(&j);
    free(in);
    /* First line too long. */
    in = concat(&len, big, "\n", REC_B, "\n", NULL);
    run_matrix(in, len, 200, "too long first");
    free(in);
    /* Two in a row, then one good. */
    in = concat(&len, big, "\n", big, "\n", REC_B, NULL);
    run_matrix(in, len, 200, "two too long");
    free(in);
    free(big);
}
END_TEST

START_TEST(test_too_long_last_line)
{
    char *big = padded_record(1000);
    size_t len;
    char *in = concat(&len, REC_A, "\n", big, NULL);

    run_matrix(in, len, 200, "too long last, no newline");
    free(in);
    in = concat(&len, REC_A, "\n", big, "\n", NULL);
    run_matrix(in, len, 200, "too long last, newline");
    free(in);
    in = concat(&len, big, NULL);
    run_matrix(in, len, 200, "too long only line");
    free(in);
    free(big);
}
END_TEST

START_TEST(test_too_long_spans_many_batches)
{
    char *big = padded_record(20000);
    size_t len;
    char *in = concat(&len, REC_A, "\n", big, "\n", REC_B, "\n", big, NULL);
    struct opts o = { .chunk = 4096, .batch_bytes = 64, .max_batches = 1, .max_line = 200 };
    int mode;

    for (mode = SRC_SYNC; mode <= SRC_IDLE; mode++) {
        o.mode = (enum src_mode)mode;
        o.chunk = 4096;
        run_check(in, len, &o, "20000-byte line, 64-byte batch");
        o.chunk = 7;
        run_check(in, len, &o, "20000-byte line, 64-byte batch");
        o.max_batches = 3;
        o.chunk = 100;
        run_check(in, len, &o, "20000-byte line, 64-byte batches");
        o.max_batches = 1;
    }
    free(in);
    free(big);
}
END_TEST

START_TEST(test_max_line_bytes_boundary)
{
    char *at = padded_record(200), *over = padded_record(201);
    size_t len;
    char *in = concat(&len, at, "\n", over, "\n", at, "\r\n", REC_A, "\n", at, NULL);
    struct opts o = { .chunk = 4096, .batch_bytes = 4096, .max_batches = 1, .max_line = 200 };
    struct job j;

    run_matrix(in, len, 200, "boundary");
    /* Exactly max_line_bytes is fine, with or without '\r'; one more is not. */
    run_one(&j, &o, in, len);
    ck_assert_uint_eq(j.c.records, 5);
    ck_assert_uint_eq(j.c.ok, 4);
    job_free(&j);
    free(in);
    free(at);
    free(over);
}
END_TEST

/* Runs in under every pool shape and several read sizes; every run must
 * give the same bytes. */
static void check_same_everywhere(const char *in, size_t len, size_t max_line, const char *what)
{
    static const size_t chunks[] = { 4096, 1, 7, 100 };
    struct cairn_buf first = { 0 };
    size_t si, ci;
    int have = 0;

    for (si = 0; si < N_SHAPES; si++)
        for (ci = 0; ci < 4; ci++) {
            struct opts o = { .chunk = chunks[ci],
                              .mode = SRC_SYNC,
                              .batch_bytes = shapes[si].batch_bytes,
                              .max_batches = shapes[si].max_batches,
                              .max_line = max_line };
            struct job j;

            run_one(&j, &o, in, len);
            ck_assert_int_eq(j.c.status, 0);
            if (!have) {
                ck_assert_int_eq(cairn_buf_append(&first, j.c.out.data, j.c.out.len), 0);
                have = 1;
            } else {
                ck_assert_msg(
                    j.c.out.len == first.len && memcmp(j.c.out.data, first.data, first.len) == 0,
                    "%s: output depends on how the input was read: with chunk %zu, "
                    "batch %zu x %zu it is\n%.*s\nbut with chunk 4096, batch %zu x "
                    "%zu it is\n%.*s",
                    what, o.chunk, o.batch_bytes, o.max_batches, (int)j.c.out.len, j.c.out.data,
                    shapes[0].batch_bytes, shapes[0].max_batches, (int)first.len, first.data);
            }
            job_free(&j);
        }
    cairn_buf_free(&first);
}

START_TEST(test_too_long_output_independent_of_reads)
{
    char *big = padded_record(1000);
    char *ws = malloc(1001);
    size_t len;
    char *in;

    ck_assert_ptr_nonnull(ws);
    memset(ws, ' ', 1000);
    ws[1000] = '\0';
    /* A too-long line ending in CRLF: the same "N bytes" however it is read. */
    in = concat(&len, REC_A, "\n", big, "\r\n", REC_B, "\n", NULL);
    check_same_everywhere(in, len, 200, "too-long CRLF line");
    run_matrix(in, len, 200, "too-long CRLF line");
    free(in);
    /* A BOM before a too-long first line. */
    in = concat(&len, "\xEF\xBB\xBF", big, "\n", REC_B, "\n", NULL);
    check_same_everywhere(in, len, 200, "BOM and a too-long first line");
    run_matrix(in, len, 200, "BOM and a too-long first line");
    free(in);
    /* A too-long line of nothing but spaces: blank, or too_large, but not
     * one or the other depending on read sizes. */
    in = concat(&len, REC_A, "\n", ws, "\n", REC_B, "\n", NULL);
    check_same_everywhere(in, len, 200, "too-long blank line");
    run_matrix(in, len, 200, "too-long blank line");
    free(in);
    free(ws);
    free(big);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Tests: streams, tallies, errors                                     */
/* ------------------------------------------------------------------ */

START_TEST(test_stream_tally)
{
    size_t len;
    char *in = random_records(2000, 7, &len);
    struct opts o = { .chunk = 7, .mode = SRC_IDLE, .batch_bytes = 100, .max_batches = 2 };
    struct want w;
    struct job j;

    want_build(&w, in, len, 16u << 20);
    run_one(&j, &o, in, len);
    ck_assert_int_eq(j.c.status, 0);
    ck_assert_uint_eq(j.s.tally.records, w.records);
    ck_assert_uint_eq(j.s.tally.ok, w.ok);
    ck_assert_uint_gt(j.s.tally.errors[CAIRN_CODE_BAD_JSON], 0);
    ck_assert_uint_eq(j.s.tally.ok + j.s.tally.errors[CAIRN_CODE_BAD_JSON], w.records);
    ck_assert_uint_eq(
        j.s.tally.variant_ok[cairn_registry_find(&g_reg, "stone-game-iii") - g_reg.plugins], w.ok);
    ck_assert_uint_eq(j.s.bytes, len);
    job_free(&j);
    want_free(&w);
    free(in);
}
END_TEST

START_TEST(test_streams_share_one_pool)
{
    size_t len[4];
    const char *in[4];
    char *buf[4];
    struct want w[4];
    struct job jobs[4];
    static const enum src_mode modes[4] = { SRC_SYNC, SRC_IDLE, SRC_TIMER, SRC_SYNC };
    size_t i, shape;

    for (i = 0; i < 4; i++) {
        buf[i] = random_records(600 + 100 * i, 100 + i, &len[i]);
        in[i] = buf[i];
        want_build(&w[i], in[i], len[i], 16u << 20);
    }
    for (shape = 0; shape < 3; shape++) {
        static const size_t bb[3] = { 64, 100, 4096 }, mb[3] = { 2, 2, 3 };
        struct opts o = {
            .chunk = 7, .mode = SRC_SYNC, .batch_bytes = bb[shape], .max_batches = mb[shape]
        };
        uv_loop_t loop;
        struct cairn_pool pool;

        /* run_jobs with a mode per stream. */
        ck_assert_int_eq(uv_loop_init(&loop), 0);
        ck_assert_int_eq(cairn_pool_init(&pool, &loop, o.max_batches, o.batch_bytes), 0);
        for (i = 0; i < 4; i++) {
            o.mode = modes[i];
            o.prompt = (int)(i % 2);
            job_setup(&jobs[i], &loop, &pool, &o, in[i], len[i]);
        }
        for (i = 0; i < 4; i++)
            ck_assert_int_eq(cairn_stream_start(&jobs[i].s), 0);
        uv_run(&loop, UV_RUN_DEFAULT);
        for (i = 0; i < 4; i++) {
            char label[64];
            snprintf(label, sizeof(label), "stream %zu of 4, shape %zu", i, shape);
            ck_assert_msg(jobs[i].c.ended == 1, "%s never ended", label);
            ck_assert_int_eq(jobs[i].c.status, 0);
            check_output(&jobs[i].c, &w[i], label);
            job_close(&jobs[i]);
        }
        uv_run(&loop, UV_RUN_DEFAULT);
        for (i = 0; i < 4; i++)
            job_free(&jobs[i]);
        cairn_pool_close(&pool);
        ck_assert_uint_eq(pool.n_batches, 0);
        ck_assert_int_eq(uv_loop_close(&loop), 0);
    }
    for (i = 0; i < 4; i++) {
        want_free(&w[i]);
        free(buf[i]);
    }
}
END_TEST

START_TEST(test_streams_share_pool_via_run_jobs)
{
    /* Several streams of the same shape, one batch between them all. */
    size_t len[3];
    const char *in[3];
    char *buf[3];
    struct want w[3];
    struct job jobs[3];
    struct opts o = {
        .chunk = 13, .mode = SRC_IDLE, .prompt = 1, .batch_bytes = 64, .max_batches = 1
    };
    size_t i;

    for (i = 0; i < 3; i++) {
        buf[i] = random_records(300, 200 + i, &len[i]);
        in[i] = buf[i];
        want_build(&w[i], in[i], len[i], 16u << 20);
    }
    run_jobs(jobs, 3, &o, in, len);
    for (i = 0; i < 3; i++) {
        ck_assert_int_eq(jobs[i].c.status, 0);
        check_output(&jobs[i].c, &w[i], "one batch, three streams");
        job_free(&jobs[i]);
        want_free(&w[i]);
        free(buf[i]);
    }
}
END_TEST

/* The output so far must be a prefix of the reference, line for line. */
static void check_prefix(const struct collect *c, const struct want *w, const char *what)
{
    const char *p = c->out.data, *end = c->out.data + c->out.len;
    size_t i = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n;

        ck_assert_msg(nl != NULL, "%s: a torn output line", what);
        n = (size_t)(nl - p) + 1;
        ck_assert_msg(i < w->n, "%s: more output than input", what);
        ck_assert_msg(n == w->l[i].text_len && memcmp(p, w->l[i].text, n) == 0,
                      "%s: output line %zu differs", what, i + 1);
        p += n;
        i++;
    }
}

START_TEST(test_read_error_ends_stream)
{
    size_t len;
    char *in = random_records(500, 9, &len);
    struct want w;
    size_t si;
    int mode;

    want_build(&w, in, len, 16u << 20);
    for (si = 0; si < N_SHAPES; si++)
        for (mode = SRC_SYNC; mode <= SRC_TIMER; mode++) {
            static const size_t at[] = { 0, 1, 1000, 20000 };
            size_t k;
            for (k = 0; k < 4; k++) {
                struct opts o = { .chunk = 64,
                                  .mode = (enum src_mode)mode,
                                  .batch_bytes = shapes[si].batch_bytes,
                                  .max_batches = shapes[si].max_batches,
                                  .fail = 1,
                                  .fail_at = at[k] };
                struct job j;

                run_one(&j, &o, in, len);
                ck_assert_msg(j.c.status == -EIO,
                              "read error at %zu (mode %d, batch %zu x %zu): status %d", at[k],
                              mode, o.batch_bytes, o.max_batches, j.c.status);
                check_prefix(&j.c, &w, "read error");
                if (at[k] == 0)
                    ck_assert_uint_eq(j.c.out.len, 0);
                job_free(&j);
            }
        }
    want_free(&w);
    free(in);
}
END_TEST

/* A source and a sink that never call Check while a stream runs: a
 * passing assertion allocates (its mark point), which an out-of-memory
 * sweep must not count.  The source reads at once or from an idle
 * callback, like mem_read; the sink notes what mem_read's checks would
 * refuse, for the test to check afterwards. */
static int quiet_read(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                      ssize_t *nread)
{
    struct memsrc *m = src->data;

    if (m->mode == SRC_SYNC)
        return mem_take(m, buf, len, nread);
    m->s = s;
    m->buf = buf;
    m->want = len;
    m->pending = 1;
    return uv_idle_start(&m->idle, idle_cb) == 0 ? CAIRN_SOURCE_PENDING : -EIO;
}

static void quiet_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct collect *c = s->sink.data;

    if (c->ended || b->user != &s->user || b->seq != c->next_seq)
        c->misordered++;
    c->next_seq++;
    if (cairn_buf_append(&c->out, b->out.data, b->out.len) != 0)
        c->misordered++; /* reserved beforehand: cannot be */
    cairn_batch_release(b);
}

static void quiet_end(struct cairn_stream *s, int status)
{
    struct collect *c = s->sink.data;

    c->ended++;
    c->status = status;
}

/* The output against the reference, in order but perhaps with gaps (a
 * batch denied memory as a whole leaves out its lines): each line is the
 * reference's line of that number, or, for a record denied memory, an
 * internal error for it.  Returns how many were such errors; *n_lines gets
 * the lines seen. */
static size_t check_lines_or_oom(const struct collect *c, const struct want *w, size_t *n_lines,
                                 const char *what)
{
    const char *p = c->out.data, *end = c->out.data + c->out.len;
    size_t i = 0, k = 0, oom = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        json_t *j;
        json_int_t no;
        size_t n;

        ck_assert_msg(nl != NULL, "%s: a torn output line", what);
        n = (size_t)(nl - p) + 1;
        j = json_loadb(p, n - 1, 0, NULL);
        ck_assert_msg(j != NULL, "%s: output line %zu is not JSON: %.*s", what, i + 1,
                      (int)(n > 300 ? 300 : n), p);
        no = json_integer_value(json_object_get(j, "line"));
        while (k < w->n && (json_int_t)w->l[k].no < no)
            k++;
        ck_assert_msg(k < w->n && (json_int_t)w->l[k].no == no,
                      "%s: output line %zu is for line %lld: out of order or unknown", what, i + 1,
                      (long long)no);
        if (n != w->l[k].text_len || memcmp(p, w->l[k].text, n) != 0) {
            json_t *err = json_object_get(j, "error");

            ck_assert_msg(strcmp(json_string_value(json_object_get(err, "code")), "internal") == 0,
                          "%s: output line %zu is neither the answer nor an internal error: %.*s"
                          "want %.*s",
                          what, i + 1, (int)(n > 300 ? 300 : n), p, (int)w->l[k].text_len,
                          w->l[k].text);
            oom++;
        }
        json_decref(j);
        k++;
        p += n;
        i++;
    }
    *n_lines = i;
    return oom;
}

/* Out of memory at each allocation of a stream's run in turn, the loop's
 * and the workers' alike: the stream ends exactly once with every batch
 * back in its pool, either with -ENOMEM (what it wrote is right and in
 * order; the daemon hands such a job back, --filter exits 1), or with 0 and
 * every line answered, where a record denied memory carries an
 * internal error instead and is counted as out of memory (the daemon then
 * runs the job again rather than publish it). */
START_TEST(test_out_of_memory_ends_the_stream_cleanly)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    /* Pool shapes: with one batch the loop waits while it is out, so the
     * Nth allocation is the same one at every run, workers' included; a
     * worker denied its scratch memory then fails the first batch while
     * the rest of the input waits to be cut (it once ran lines together
     * under wrong line numbers). */
    static const struct {
        size_t batch_bytes, max_batches;
    } shape[] = { { 64, 1 }, { 4096, 1 }, { 4096, 2 } };
    size_t len, k;
    char *in = random_records(40, 77, &len);
    struct want w;
    long n, points = 0;

    want_build(&w, in, len, 16u << 20);
    for (k = 0; k < sizeof(shape) / sizeof(shape[0]); k++) {
        struct opts o = { .chunk = 100,
                          .mode = SRC_IDLE,
                          .batch_bytes = shape[k].batch_bytes,
                          .max_batches = shape[k].max_batches };
        int fired = 1;

        /* Once clean, which also starts libuv's thread pool: its set-up
         * aborts the process when it cannot allocate (counted apart). */
        run_check(in, len, &o, "out of memory, clean run");
        for (n = 1; fired; n++) {
            uv_loop_t loop;
            struct cairn_pool pool;
            struct job j;
            char what[96];
            size_t lines, oom;
            int rc;

            snprintf(what, sizeof(what), "allocation %ld failed (%zu batches of %zu)", n,
                     shape[k].max_batches, shape[k].batch_bytes);
            ck_assert_int_eq(uv_loop_init(&loop), 0);
            ck_assert_int_eq(cairn_pool_init(&pool, &loop, o.max_batches, o.batch_bytes), 0);
            job_setup(&j, &loop, &pool, &o, in, len);
            j.s.source.read = quiet_read;
            j.s.sink = (struct cairn_sink){ .write = quiet_write, .end = quiet_end, .data = &j.c };
            /* The sink's own buffer never grows while armed. */
            ck_assert_int_eq(cairn_buf_reserve(&j.c.out, 2 * len + 65536), 0);
            th_alloc_fail_at(n);
            rc = cairn_stream_start(&j.s);
            if (rc == 0)
                uv_run(&loop, UV_RUN_DEFAULT);
            fired = th_alloc_disarm();
            if (rc != 0) {
                ck_assert_msg(rc == -ENOMEM, "%s: start returned %d", what, rc);
                ck_assert_int_eq(j.c.ended, 0);
            } else {
                ck_assert_msg(j.c.ended == 1, "%s: end() called %d times", what, j.c.ended);
                ck_assert_msg(j.c.misordered == 0, "%s: batches out of sequence", what);
                ck_assert_msg(j.s.in_flight == 0, "%s: ended with batches in flight", what);
                oom = check_lines_or_oom(&j.c, &w, &lines, what);
                if (j.c.status == 0) {
                    ck_assert_msg(lines == w.n, "%s: %zu of %zu lines", what, lines, w.n);
                    ck_assert_msg(j.s.tally.out_of_memory >= oom,
                                  "%s: %zu internal errors, %" PRIu64 " counted as out of memory",
                                  what, oom, j.s.tally.out_of_memory);
                } else {
                    ck_assert_msg(j.c.status == -ENOMEM, "%s: stream ended with %d", what,
                                  j.c.status);
                }
                ck_assert_msg(fired || (j.c.status == 0 && oom == 0),
                              "%s: a run without a failed allocation went wrong", what);
            }
            job_close(&j);
            uv_run(&loop, UV_RUN_DEFAULT);
            cairn_pool_close(&pool);
            ck_assert_msg(pool.n_batches == 0, "%s: %zu batches never came back", what,
                          pool.n_batches);
            ck_assert_int_eq(uv_loop_close(&loop), 0);
            job_free(&j);
            points++;
        }
    }
    ck_assert_int_gt(points, 10);
    want_free(&w);
    free(in);
}
END_TEST

START_TEST(test_pool_init_rejects_bad_sizes)
{
    uv_loop_t loop;
    struct cairn_pool pool;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, 0, 4096), -EINVAL);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, 1, 10), -EINVAL);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, 1, 64), 0);
    cairn_pool_close(&pool);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Tests: batches cut by work                                          */
/* ------------------------------------------------------------------ */

START_TEST(test_batchsize_young_stream_one_line_a_batch)
{
    struct cairn_batchsize z;

    cairn_batchsize_init(&z);
    ck_assert(!cairn_batchsize_full(&z, 0, 0));
    ck_assert(cairn_batchsize_full(&z, 1, 10));
    ck_assert(cairn_batchsize_full(&z, 1, 100));
}
END_TEST

START_TEST(test_batchsize_follows_measured_cost)
{
    struct cairn_batchsize z;

    /* Expensive: 5 000 bytes took 200 ms, so one such line is a batch. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, 5000, 200u * 1000u * 1000u);
    ck_assert(cairn_batchsize_full(&z, 1, 5000));
    ck_assert(cairn_batchsize_full(&z, 1, 1000));
    ck_assert(!cairn_batchsize_full(&z, 0, 0));

    /* Cheap: 256 KiB took 1 ms, so 256 KiB is far from a quantum, and the
     * line limit is back. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, 256u * 1024u, 1000u * 1000u);
    ck_assert(!cairn_batchsize_full(&z, 1, 100));
    ck_assert(!cairn_batchsize_full(&z, 4095, 256u * 1024u));
    ck_assert(cairn_batchsize_full(&z, CAIRN_BATCH_MAX_LINES, 1000));
    ck_assert(cairn_batchsize_full(&z, 1, 4u * 256u * 1024u));

    /* A job that turns expensive is followed within a few batches. */
    cairn_batchsize_observe(&z, 5000, 200u * 1000u * 1000u);
    cairn_batchsize_observe(&z, 5000, 200u * 1000u * 1000u);
    ck_assert(cairn_batchsize_full(&z, 1, 5000));

    /* Too fast for the clock: only the line limit. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, 100, 0);
    ck_assert(!cairn_batchsize_full(&z, 1, SIZE_MAX - 1));
    ck_assert(cairn_batchsize_full(&z, CAIRN_BATCH_MAX_LINES, 1));
    /* An empty batch teaches nothing. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, 0, 5);
    ck_assert(cairn_batchsize_full(&z, 1, 1));

    /* A byte that takes more than a quantum: every line is a batch, but
     * a batch is never cut before its first byte. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, 1, 10u * CAIRN_BATCH_WORK_NS);
    ck_assert(!cairn_batchsize_full(&z, 1, 0));
    ck_assert(cairn_batchsize_full(&z, 1, 1));
    /* A quantum's bytes past what a size_t holds: only the line limit. */
    cairn_batchsize_init(&z);
    cairn_batchsize_observe(&z, SIZE_MAX / 2, 1);
    ck_assert(!cairn_batchsize_full(&z, 1, SIZE_MAX - 1));
    ck_assert(cairn_batchsize_full(&z, 1, SIZE_MAX));
    ck_assert(cairn_batchsize_full(&z, CAIRN_BATCH_MAX_LINES, 0));
}
END_TEST

/* n stone-game-ii records of m piles under extended limits, with ids. */
static char *expensive_records(size_t n, size_t m, size_t *len)
{
    struct cairn_buf b = { 0 };
    size_t i, k;
    int rc = 0;

    g_rng = 1140;
    for (i = 0; i < n; i++) {
        rc |= cairn_buf_printf(
            &b, "{\"id\":%zu,\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[", i);
        for (k = 0; k < m; k++)
            rc |= cairn_buf_printf(&b, "%s%d", k ? "," : "",
                                   1 + (int)(th_splitmix64(&g_rng) % 10000));
        rc |= cairn_buf_puts(&b, "]},\"options\":{\"limits\":\"extended\"}}\n");
    }
    ck_assert_int_eq(rc, 0);
    *len = b.len;
    return b.data;
}

/* 40 records fit in one 256 KiB batch; cut by bytes alone, one worker
 * got them all.  Whatever they cost, a stream sends its first lines one
 * per batch, so at least as many batches as the pool holds go out, every
 * worker gets some, and the results stay in input order. */
START_TEST(test_expensive_records_spread_over_workers)
{
    size_t len, threads;
    char *in = expensive_records(40, 150, &len);
    struct want w;

    ck_assert_uint_lt(len, 256u * 1024u);
    want_build(&w, in, len, 16u << 20);
    for (threads = 1; threads <= 4; threads *= 2) {
        struct opts o = { .chunk = 16384,
                          .mode = SRC_SYNC,
                          .batch_bytes = 256u * 1024u,
                          .max_batches = 2 * threads + 2,
                          .max_running = threads };
        char label[64];
        struct job j;

        snprintf(label, sizeof(label), "40 expensive records, %zu threads", threads);
        run_one(&j, &o, in, len);
        ck_assert_msg(j.c.status == 0, "%s: stream ended with %d", label, j.c.status);
        check_output(&j.c, &w, label);
        ck_assert_msg(j.c.writes >= o.max_batches && j.c.writes >= threads, "%s: %zu batches",
                      label, j.c.writes);
        job_free(&j);
    }
    want_free(&w);
    free(in);
}
END_TEST

/* Whole lines carried from a cut batch to the next are cut there, also
 * when the input ended in the same read and with no final newline. */
START_TEST(test_cut_batches_carry_whole_lines)
{
    size_t len;
    char *in = random_records(600, 45, &len);
    static const size_t chunks[] = { 7, 4096, 1u << 20 };
    size_t si, ci;

    /* The last record without its newline. */
    while (len > 0 && (in[len - 1] == '\n' || in[len - 1] == '\r'))
        len--;
    for (si = 0; si < N_SHAPES; si++)
        for (ci = 0; ci < 3; ci++) {
            struct opts o = { .chunk = chunks[ci],
                              .mode = SRC_SYNC,
                              .batch_bytes = shapes[si].batch_bytes,
                              .max_batches = shapes[si].max_batches,
                              .max_running = 1 };
            run_check(in, len, &o, "600 records, one read");
            o.mode = SRC_IDLE;
            run_check(in, len, &o, "600 records, one read, idle");
        }
    free(in);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc;

    tc = tcase_create("order");
    tcase_add_test(tc, test_many_records_in_order);
    tcase_add_test(tc, test_many_records_in_order_pending_source);
    tcase_add_test(tc, test_mixed_variants_and_errors);
    tcase_add_test(tc, test_sink_releasing_later);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("line_cutting");
    tcase_add_test(tc, test_crlf_lines);
    tcase_add_test(tc, test_blank_lines_skipped_but_counted);
    tcase_add_test(tc, test_missing_final_newline);
    tcase_add_test(tc, test_utf8_bom_at_start);
    tcase_add_test(tc, test_empty_input);
    tcase_add_test(tc, test_long_valid_line_grows_batch);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("max_line_bytes");
    tcase_add_test(tc, test_too_long_line_then_next_answered);
    tcase_add_test(tc, test_too_long_last_line);
    tcase_add_test(tc, test_too_long_spans_many_batches);
    tcase_add_test(tc, test_max_line_bytes_boundary);
    tcase_add_test(tc, test_too_long_output_independent_of_reads);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("work_aware_batches");
    tcase_add_test(tc, test_batchsize_young_stream_one_line_a_batch);
    tcase_add_test(tc, test_batchsize_follows_measured_cost);
    tcase_add_test(tc, test_expensive_records_spread_over_workers);
    tcase_add_test(tc, test_cut_batches_carry_whole_lines);
    suite_add_tcase(s, tc);

    tc = tcase_create("streams");
    tcase_add_test(tc, test_stream_tally);
    tcase_add_test(tc, test_streams_share_one_pool);
    tcase_add_test(tc, test_streams_share_pool_via_run_jobs);
    tcase_add_test(tc, test_read_error_ends_stream);
    tcase_add_test(tc, test_out_of_memory_ends_the_stream_cleanly);
    tcase_add_test(tc, test_pool_init_rejects_bad_sizes);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    const char *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    int failed, rc;

    if (dir == NULL || dir[0] == '\0') {
        fprintf(stderr, "test_engine: CAIRN_TEST_PLUGIN_DIR is not set (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    rc = cairn_registry_load(&g_reg, dir);
    if (rc != 0 || g_reg.n_plugins < 3) {
        fprintf(stderr, "test_engine: cairn_registry_load(%s) returned %d, %zu plugin(s)\n", dir,
                rc, g_reg.n_plugins);
        return EXIT_FAILURE;
    }
    g_ctx = (struct cairn_record_ctx){ .reg = &g_reg, .default_limits = CAIRN_LIMITS_OFFICIAL };
    /* Several workers, so batches finish out of order. */
    setenv("UV_THREADPOOL_SIZE", "4", 1);

    failed = th_run_suite(engine_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
