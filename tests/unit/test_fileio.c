/*
 * test_fileio.c - a job's file I/O stays off the loop thread.
 *
 * The daemon's loop only dispatches: a job file is read with uv_fs_read()
 * on the pool (source.h, CAIRN_SOURCE_POOL) and its results are written
 * with uv_fs_write() at their offsets on the pool (filesink.h), so a slow
 * disk or NFS server stalls one job, never the loop that serves signals,
 * inotify and every other job.
 *
 * This executable defines read() and pwrite64(), which libuv's pool calls
 * for those requests, and counts, per thread, the calls made on the two
 * descriptors under test.  The results must be byte for byte what the
 * loop-thread path (--filter's) writes, whole, in input order, also when
 * the disk takes a few bytes at a time or fills up half-way.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uv.h>

#include "harness.h"
#include "engine.h"
#include "filesink.h"
#include "plugin_loader.h"
#include "record.h"
#include "source.h"
#include "util.h"

static struct cairn_registry g_reg;
static struct cairn_record_ctx g_ctx;

/* ---- counting the calls ------------------------------------------------ */

static pthread_t g_loop_thread;
static atomic_int g_in_fd = -1, g_out_fd = -1;
static atomic_ulong g_reads_loop, g_reads_pool, g_writes_loop, g_writes_pool;
static atomic_size_t g_write_max; /* bytes a pwrite takes at most; 0: all */
static atomic_long g_write_room;  /* bytes the "disk" holds; < 0: unbounded */
static atomic_int g_write_eintr;  /* the next this many results writes fail with EINTR */
static atomic_int g_finish_eintr; /* ... set to this when the finish begins */
static atomic_long g_read_room;   /* a read starting past this many bytes fails (EIO); < 0: none */

ssize_t read(int fd, void *buf, size_t n)
{
    if (fd == atomic_load(&g_in_fd)) {
        long room = atomic_load(&g_read_room);
        ssize_t got;

        atomic_fetch_add(
            pthread_equal(pthread_self(), g_loop_thread) ? &g_reads_loop : &g_reads_pool, 1);
        /* Whole reads until then, as a local disk gives them (a source
         * reads on past a short read until one returns 0, unless it knows
         * the file's size and has read it all). */
        if (room == 0) {
            errno = EIO;
            return -1;
        }
        got = syscall(SYS_read, fd, buf, n);
        if (room > 0 && got > 0)
            atomic_store(&g_read_room, got >= room ? 0 : room - (long)got);
        return got;
    }
    return syscall(SYS_read, fd, buf, n);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    if (fd == atomic_load(&g_out_fd)) {
        size_t max = atomic_load(&g_write_max);
        long room = atomic_load(&g_write_room);

        atomic_fetch_add(
            pthread_equal(pthread_self(), g_loop_thread) ? &g_writes_loop : &g_writes_pool, 1);
        if (atomic_load(&g_write_eintr) > 0 && atomic_fetch_sub(&g_write_eintr, 1) > 0) {
            errno = EINTR;
            return -1;
        }
        if (max != 0 && n > max)
            n = max;
        if (room >= 0) {
            if (room == 0) {
                errno = ENOSPC;
                return -1;
            }
            if ((long)n > room)
                n = (size_t)room;
            atomic_fetch_sub(&g_write_room, (long)n);
        }
    }
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

static void reset_counts(int in_fd, int out_fd)
{
    g_loop_thread = pthread_self();
    atomic_store(&g_in_fd, in_fd);
    atomic_store(&g_out_fd, out_fd);
    atomic_store(&g_reads_loop, 0);
    atomic_store(&g_reads_pool, 0);
    atomic_store(&g_writes_loop, 0);
    atomic_store(&g_writes_pool, 0);
    atomic_store(&g_write_max, 0);
    atomic_store(&g_write_room, -1);
    atomic_store(&g_read_room, -1);
    atomic_store(&g_write_eintr, 0);
    atomic_store(&g_finish_eintr, 0);
}

/* ---- inputs ------------------------------------------------------------ */

/* n records of every official variant, with errors and blank lines; a few
 * hundred kilobytes, so many reads and many batches. */
static char *records(size_t n, size_t *len)
{
    struct cairn_buf b = { 0 };
    uint64_t x = 88172645463325252u;
    size_t i, k;

    for (i = 0; i < n; i++) {
        size_t m;
        int rc = 0;

        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        m = 2 + 2 * (size_t)(x % 40);
        if (x % 53 == 1) {
            rc |= cairn_buf_puts(&b, "{\"variant\":\"stone-game-iii\",\"input\":\n");
            continue;
        }
        if (x % 47 == 2) {
            rc |= cairn_buf_puts(&b, "\n");
            continue;
        }
        rc |= cairn_buf_printf(&b, "{\"id\":%zu,\"variant\":\"%s\",\"input\":{\"%s\":[", i,
                               x % 3 == 0   ? "stone-game-iii"
                               : x % 3 == 1 ? "stone-game-ii"
                                            : "stone-game",
                               x % 3 == 0 ? "stoneValue" : "piles");
        for (k = 0; k < m; k++)
            rc |= cairn_buf_printf(&b, "%s%u", k ? "," : "", 1 + (unsigned)((x >> (k % 40)) % 97));
        rc |= cairn_buf_puts(&b, "]}}\n");
        ck_assert_int_eq(rc, 0);
    }
    *len = b.len;
    return b.data;
}

static int temp_file(const char *tag)
{
    char path[] = "/tmp/cairn-fileio-XXXXXX";
    int fd = mkstemp(path);

    ck_assert_msg(fd >= 0, "%s: mkstemp: %s", tag, strerror(errno));
    unlink(path);
    return fd;
}

static void write_file(int fd, const char *data, size_t len)
{
    ck_assert_int_eq(cairn_write_all(fd, data, len), 0);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
}

static char *read_file(int fd, size_t *len)
{
    struct cairn_buf b = { 0 };
    char chunk[65536];
    off_t off = 0;
    ssize_t n;

    while ((n = pread(fd, chunk, sizeof(chunk), off)) > 0) {
        ck_assert_int_eq(cairn_buf_append(&b, chunk, (size_t)n), 0);
        off += n;
    }
    ck_assert_int_ge(n, 0);
    *len = b.len;
    return b.data;
}

/* ---- one stream over a file -------------------------------------------- */

struct run {
    struct cairn_fd_source fs;
    struct cairn_stream s;
    struct cairn_filesink fk; /* results into a file, or ... */
    struct cairn_buf mem;     /* ... into memory (the reference) */
    int to_file;
    int keep;    /* a small last batch kept for the "finish", as job.c does */
    int kept;    /* ... and one was */
    int kept_rc; /* what writing it on the finishing thread gave */
    int batches; /* handed to the sink */
    int ended;
    int status;
};

static void sink_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct run *r = s->sink.data;

    r->batches++;
    if (r->to_file && r->keep && cairn_stream_is_last(s, b)) {
        r->kept = 1;
        cairn_filesink_keep(&r->fk, b);
        return;
    }
    if (r->to_file) {
        cairn_filesink_write(&r->fk, b);
        return;
    }
    ck_assert_int_eq(cairn_buf_append(&r->mem, b->out.data, b->out.len), 0);
    cairn_batch_release(b);
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct run *r = s->sink.data;

    r->ended++;
    r->status = status;
    cairn_fd_source_close(&r->fs);
}

/* The job's finish, on a thread of its own as on the pool. */
static void *finish_thread(void *arg)
{
    struct run *r = arg;

    if (atomic_load(&g_finish_eintr) > 0)
        atomic_store(&g_write_eintr, atomic_load(&g_finish_eintr));
    r->kept_rc = cairn_filesink_write_kept(&r->fk);
    return NULL;
}

/* A first piece read where the job began (cairn_readahead_first), for
 * the next run_stream to adopt. */
static struct cairn_readahead *g_first;

/* Streams in_fd through a four-batch pool; with out_fd >= 0 the results
 * go there through the file sink (a small last batch kept for a finishing
 * thread when keep), else into r->mem. */
static void run_stream(struct run *r, int in_fd, int flags, int out_fd, int keep)
{
    uv_loop_t loop;
    struct cairn_pool pool;
    pthread_t t;

    memset(r, 0, sizeof(*r));
    r->keep = keep;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, 4, 4096), 0);
    cairn_pool_set_max_running(&pool, 2);
    r->to_file = out_fd >= 0;
    if (r->to_file)
        cairn_filesink_init(&r->fk, &loop, out_fd);
    r->s.pool = &pool;
    r->s.ctx = &g_ctx;
    r->s.max_line_bytes = 1u << 20;
    r->s.sink = (struct cairn_sink){ .write = sink_write, .end = sink_end, .data = r };
    ck_assert_int_eq(cairn_fd_source_init(&r->fs, &loop, in_fd, flags, &r->s.source), 0);
    if (g_first != NULL) {
        cairn_fd_source_adopt(&r->fs, g_first);
        g_first = NULL;
    }
    ck_assert_int_eq(cairn_stream_start(&r->s), 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_msg(r->ended == 1, "end() ran %d times", r->ended);
    if (r->to_file) {
        ck_assert_int_eq(pthread_create(&t, NULL, finish_thread, r), 0);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        cairn_filesink_free(&r->fk);
    }
    ck_assert_msg(r->s.in_flight == 0, "the stream ended with batches out");
    /* Working memory is one per batch solving at once, not one per
     * batch: a plugin's big scratch is paid twice here, not four times. */
    {
        size_t n_scratch = 0;
        for (const struct cairn_scratch *sc = pool.scratch_idle; sc != NULL; sc = sc->next)
            n_scratch++;
        ck_assert_msg(n_scratch <= 2, "%zu scratches for 2 batches solving at once (%zu batches)",
                      n_scratch, pool.n_batches);
    }
    cairn_stream_free(&r->s);
    cairn_pool_close(&pool);
    ck_assert_msg(pool.n_batches == 0, "%zu batches never came back", pool.n_batches);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}

/* What the loop-thread path makes of data: the reference. */
static char *reference(const char *data, size_t len, size_t *out_len)
{
    int in_fd = temp_file("reference");
    struct run r;

    write_file(in_fd, data, len);
    reset_counts(-1, -1);
    run_stream(&r, in_fd, 0, -1, 0);
    ck_assert_int_eq(r.status, 0);
    close(in_fd);
    *out_len = r.mem.len;
    return r.mem.data;
}

/* The results file holds exactly the reference's bytes; what names the case. */
static void check_results(int out_fd, const char *want, size_t want_len, const char *what)
{
    size_t got_len;
    char *got = read_file(out_fd, &got_len);

    ck_assert_msg(
        got_len == want_len && memcmp(got, want, want_len) == 0,
        "%s: the results file (%zu bytes) differs from the loop-thread path's (%zu bytes)", what,
        got_len, want_len);
    free(got);
}

/* ---- the tests --------------------------------------------------------- */

START_TEST(test_job_reads_and_writes_on_the_pool)
{
    size_t len, want_len;
    char *data = records(6000, &len);
    char *want = reference(data, len, &want_len);
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    ck_assert_uint_gt(len, 3 * 262144); /* several pool reads */
    write_file(in_fd, data, len);
    reset_counts(in_fd, out_fd);
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL, out_fd, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.fk.error, 0);
    ck_assert_uint_eq(r.s.bytes, len);
    ck_assert_msg(atomic_load(&g_reads_loop) == 0, "%lu read(s) of the job file on the loop thread",
                  atomic_load(&g_reads_loop));
    ck_assert_msg(atomic_load(&g_reads_pool) >= 3, "only %lu read(s) on the pool",
                  atomic_load(&g_reads_pool));
    ck_assert_msg(atomic_load(&g_writes_loop) == 0, "%lu results write(s) on the loop thread",
                  atomic_load(&g_writes_loop));
    ck_assert_msg(atomic_load(&g_writes_pool) >= 5, "only %lu results write(s) on the pool",
                  atomic_load(&g_writes_pool));
    ck_assert_uint_eq(r.fk.off, want_len);
    check_results(out_fd, want, want_len, "pool reads and writes");
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* The counters see the loop thread's reads: without CAIRN_SOURCE_POOL a
 * job file is read there (--filter's choice), so the test above can fail. */
START_TEST(test_plain_source_reads_on_the_loop)
{
    size_t len;
    char *data = records(500, &len);
    int in_fd = temp_file("input");
    struct run r;

    write_file(in_fd, data, len);
    reset_counts(in_fd, -1);
    run_stream(&r, in_fd, 0, -1, 0);
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_gt(atomic_load(&g_reads_loop), 0);
    ck_assert_uint_eq(atomic_load(&g_reads_pool), 0);
    cairn_buf_free(&r.mem);
    free(data);
    close(in_fd);
}
END_TEST

/* A disk taking 7 bytes a write: every batch is finished by more writes,
 * at the right offsets. */
START_TEST(test_short_writes_are_finished)
{
    size_t len, want_len;
    char *data = records(400, &len);
    char *want = reference(data, len, &want_len);
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    write_file(in_fd, data, len);
    reset_counts(in_fd, out_fd);
    atomic_store(&g_write_max, 7);
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL, out_fd, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(r.fk.error, 0);
    ck_assert_uint_ge(atomic_load(&g_writes_pool), want_len / 7);
    check_results(out_fd, want, want_len, "short writes");
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* A disk that fills up half-way: the first error is kept, every batch
 * still comes back, and the stream ends (the job is then handed back). */
START_TEST(test_full_disk_is_reported)
{
    size_t len, want_len;
    char *data = records(3000, &len);
    char *want = reference(data, len, &want_len);
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    write_file(in_fd, data, len);
    reset_counts(in_fd, out_fd);
    atomic_store(&g_write_room, (long)(want_len / 2));
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL, out_fd, 1);
    ck_assert_int_eq(r.status, 0); /* reading went fine */
    ck_assert_msg(r.fk.error == -ENOSPC, "error %d (%s), want -ENOSPC", r.fk.error,
                  strerror(-r.fk.error));
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* A job of one batch, as most spool jobs are: its results are not written
 * from the pool when the batch comes back, but kept and written by the
 * finish, before its fsync (one trip through the pool less).  Still never
 * on the loop thread, and the same bytes; then the same on a disk taking
 * 7 bytes a write, and on one that fills half-way. */
START_TEST(test_small_last_batch_is_written_by_the_finish)
{
    size_t len, want_len, i;
    char *data = records(12, &len);
    char *want = reference(data, len, &want_len);

    ck_assert_uint_lt(want_len, 4096); /* one batch */
    for (i = 0; i < 3; i++) {
        int in_fd = temp_file("input"), out_fd = temp_file("results");
        struct run r;

        write_file(in_fd, data, len);
        reset_counts(in_fd, out_fd);
        if (i == 1)
            atomic_store(&g_write_max, 7);
        if (i == 2)
            atomic_store(&g_write_room, (long)(want_len / 2));
        /* As a job reads, from the pool. */
        run_stream(&r, in_fd, CAIRN_SOURCE_POOL | CAIRN_SOURCE_REGULAR, out_fd, 1);
        ck_assert_int_eq(r.status, 0);
        ck_assert_msg(r.kept, "the last batch was not kept for the finish");
        ck_assert_msg(atomic_load(&g_writes_loop) == 0, "%lu results write(s) on the loop thread",
                      atomic_load(&g_writes_loop));
        if (i == 2) {
            ck_assert_msg(r.kept_rc == -ENOSPC && r.fk.error == -ENOSPC,
                          "full disk: rc %d, error %d, want -ENOSPC", r.kept_rc, r.fk.error);
        } else {
            ck_assert_msg(r.kept_rc == 0, "writing the kept batch: %s", strerror(-r.kept_rc));
            ck_assert_uint_ge(atomic_load(&g_writes_pool), (i == 1 ? want_len / 7 : 1));
            check_results(out_fd, want, want_len,
                          i == 1 ? "kept batch, short writes" : "kept batch");
        }
        close(in_fd);
        close(out_fd);
    }
    free(want);
    free(data);
}
END_TEST

/* A one-record job, its first piece read where it began (as the daemon
 * reads it): the source knows its end from that read, so the record's
 * batch is the last one, kept for the finish.  Without that, the young
 * stream's one-line batch went out first and an empty one came after it
 * at the end: the results were written from the pool, one trip more a
 * job, and the sink saw two batches. */
START_TEST(test_one_record_job_is_one_kept_batch)
{
    size_t len, want_len;
    char *data = records(1, &len);
    char *want = reference(data, len, &want_len);
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    write_file(in_fd, data, len);
    ck_assert_int_eq(cairn_readahead_first(&g_first, in_fd, len), 0);
    reset_counts(in_fd, out_fd);
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL | CAIRN_SOURCE_REGULAR, out_fd, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(r.batches == 1 && r.kept, "%d batches, last kept %d: want one, kept", r.batches,
                  r.kept);
    ck_assert_msg(atomic_load(&g_reads_pool) == 0, "%lu reads on the pool after the first piece",
                  atomic_load(&g_reads_pool));
    check_results(out_fd, want, want_len, "one record");
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* What a job read whole at its start is answered with there and then
 * (cairn_pool_solve_here): the same bytes its stream would write, for one
 * record in the forms a job file may hold it; nothing done for more than
 * one line, a line over max_line_bytes, or when every solving slot is
 * taken; the slot a solve here took is free again when it returns. */
START_TEST(test_one_line_is_answered_where_it_was_read)
{
#define REC "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}"
    static const char *const one[] = { REC "\n",
                                       REC,
                                       "\xef\xbb\xbf" REC "\r\n",
                                       "\n\n" REC "\n",
                                       "{\"variant\":\"stone-game-iii\",\"input\":{}}\n",
                                       "not json\n",
                                       "" };
    static const char *const not_here[] = { REC "\n" REC "\n", REC "\n\n" };
    uv_loop_t loop;
    struct cairn_pool pool;
    struct cairn_pool_user u = { .ctx = &g_ctx, .max_line_bytes = 1u << 20 };
    size_t i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(cairn_pool_init(&pool, &loop, 4, 4096), 0);
    cairn_pool_set_max_running(&pool, 1);
    for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
        size_t len = strlen(one[i]), want_len;
        char *want = reference(one[i], len, &want_len);
        struct cairn_buf out = { 0 };
        struct cairn_tally tally;

        ck_assert_int_eq(cairn_tally_init(&tally, g_reg.n_plugins), 0);
        ck_assert_int_eq(cairn_pool_solve_here(&pool, &u, one[i], len, &out, &tally), 1);
        ck_assert_msg(out.len == want_len &&
                          (want_len == 0 || memcmp(out.data, want, want_len) == 0),
                      "input %zu: answered here as \"%.*s\", streamed as \"%.*s\"", i, (int)out.len,
                      out.data ? out.data : "", (int)want_len, want ? want : "");
        ck_assert_uint_eq(tally.records, len > 0);
        /* The slot was given back as the solve ended ... */
        ck_assert_uint_eq(atomic_load(&pool.running), 0);
        cairn_pool_solved_here(&pool);
        /* ... and with the one slot taken (a batch on a worker), nothing
         * is answered here. */
        atomic_store(&pool.running, 1);
        ck_assert_int_eq(cairn_pool_solve_here(&pool, &u, one[i], len, &out, &tally), 0);
        ck_assert_uint_eq(out.len, want_len);
        atomic_store(&pool.running, 0);
        cairn_buf_free(&out);
        cairn_tally_free(&tally);
        free(want);
    }
    for (i = 0; i < sizeof(not_here) / sizeof(not_here[0]); i++) {
        struct cairn_buf out = { 0 };
        struct cairn_tally tally;

        ck_assert_int_eq(cairn_tally_init(&tally, g_reg.n_plugins), 0);
        ck_assert_int_eq(
            cairn_pool_solve_here(&pool, &u, not_here[i], strlen(not_here[i]), &out, &tally), 0);
        ck_assert_uint_eq(out.len, 0);
        ck_assert_uint_eq(tally.records, 0);
        cairn_tally_free(&tally);
    }
    u.max_line_bytes = 10;
    {
        struct cairn_buf out = { 0 };
        struct cairn_tally tally;

        ck_assert_int_eq(cairn_tally_init(&tally, g_reg.n_plugins), 0);
        ck_assert_int_eq(cairn_pool_solve_here(&pool, &u, one[0], strlen(one[0]), &out, &tally), 0);
        /* None of these took the slot. */
        ck_assert_uint_eq(atomic_load(&pool.running), 0);
        u.max_line_bytes = 1u << 20;
        ck_assert_int_eq(cairn_pool_solve_here(&pool, &u, one[0], strlen(one[0]), &out, &tally), 1);
        cairn_pool_solved_here(&pool);
        cairn_buf_free(&out);
        cairn_tally_free(&tally);
    }
    cairn_pool_close(&pool);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
#undef REC
}
END_TEST

/* A disk that fails reading the job half-way (EIO on the pool): the
 * stream ends with that error, and the results written before it are the
 * reference's first lines, whole and in order (the job is then handed
 * back, never published). */
START_TEST(test_read_error_half_way_ends_the_stream)
{
    size_t len, want_len, got_len;
    char *data = records(6000, &len);
    char *want = reference(data, len, &want_len), *got;
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    ck_assert_uint_gt(len, 3 * 262144); /* several pool reads */
    write_file(in_fd, data, len);
    reset_counts(in_fd, out_fd);
    atomic_store(&g_read_room, (long)(len / 2));
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL, out_fd, 1);
    ck_assert_msg(r.status == -EIO, "status %d, want -EIO", r.status);
    got = read_file(out_fd, &got_len);
    ck_assert_msg(got_len < want_len && memcmp(got, want, got_len) == 0 &&
                      (got_len == 0 || got[got_len - 1] == '\n'),
                  "%zu bytes written before the error are not the reference's first lines",
                  got_len);
    free(got);
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* A job file of exactly two pool reads: the third read finds its end (a
 * read of 0), and the stream ends with every line answered. */
START_TEST(test_file_of_whole_reads_ends)
{
    const size_t size = 2 * 262144;
    size_t len, want_len;
    char *data = records(2000, &len);
    char *want;
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    ck_assert_uint_lt(len, size);
    data = realloc(data, size);
    ck_assert_ptr_nonnull(data);
    memset(data + len, '\n', size - len); /* blank lines: no results */
    want = reference(data, size, &want_len);
    write_file(in_fd, data, size);
    reset_counts(in_fd, out_fd);
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL, out_fd, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_ge(atomic_load(&g_reads_pool), 3);
    check_results(out_fd, want, want_len, "a file of whole reads");
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* A job file smaller than a piece when opened gets a first piece of its
 * size and a byte (source.c); if the file grew between the open and that
 * read (a producer still writing after the rename), the byte over shows
 * it, and the rest is read all the same, in full pieces, not in pieces
 * of the first one's size. */
START_TEST(test_file_grown_after_a_small_first_piece_is_read_whole)
{
    size_t len, small, want_len;
    char *data = records(6000, &len);
    char *want = reference(data, len, &want_len);
    int in_fd = temp_file("input"), out_fd = temp_file("results");
    struct run r;

    small = (size_t)(strchr(data + 100, '\n') - data) + 1;
    write_file(in_fd, data, len);
    ck_assert_int_eq(cairn_readahead_first(&g_first, in_fd, small), 0);
    reset_counts(in_fd, out_fd);
    run_stream(&r, in_fd, CAIRN_SOURCE_POOL | CAIRN_SOURCE_REGULAR, out_fd, 1);
    ck_assert_int_eq(r.status, 0);
    ck_assert_uint_eq(r.s.bytes, len);
    ck_assert_msg(atomic_load(&g_reads_pool) <= len / 262144 + 3,
                  "%lu reads on the pool for %zu bytes after a first piece of %zu",
                  atomic_load(&g_reads_pool), len - small, small);
    check_results(out_fd, want, want_len, "a file grown after its first piece");
    free(want);
    free(data);
    close(in_fd);
    close(out_fd);
}
END_TEST

/* A signal interrupting a results write (EINTR), in the finish or on the
 * pool, is no error: the write is made again and the file is whole. */
START_TEST(test_interrupted_writes_are_retried)
{
    static const size_t n_records[] = { 12, 400 }; /* one kept batch; many batches */
    size_t i;

    for (i = 0; i < 2; i++) {
        size_t len, want_len;
        char *data = records(n_records[i], &len);
        char *want = reference(data, len, &want_len);
        int in_fd = temp_file("input"), out_fd = temp_file("results");
        struct run r;

        write_file(in_fd, data, len);
        reset_counts(in_fd, out_fd);
        if (i == 0)
            atomic_store(&g_finish_eintr, 2); /* the kept batch's write */
        else
            atomic_store(&g_write_eintr, 3); /* the pool's (libuv makes them again) */
        run_stream(&r, in_fd, CAIRN_SOURCE_POOL | CAIRN_SOURCE_REGULAR, out_fd, 1);
        ck_assert_int_eq(r.status, 0);
        ck_assert_msg(r.fk.error == 0 && r.kept_rc == 0, "%zu records: error %d, kept %d",
                      n_records[i], r.fk.error, r.kept_rc);
        ck_assert_int_eq(atomic_load(&g_write_eintr), 0);
        check_results(out_fd, want, want_len, i == 0 ? "EINTR, kept batch" : "EINTR, batches");
        free(want);
        free(data);
        close(in_fd);
        close(out_fd);
    }
}
END_TEST

static Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *tc = tcase_create("off_the_loop");

    tcase_add_test(tc, test_job_reads_and_writes_on_the_pool);
    tcase_add_test(tc, test_plain_source_reads_on_the_loop);
    tcase_add_test(tc, test_short_writes_are_finished);
    tcase_add_test(tc, test_full_disk_is_reported);
    tcase_add_test(tc, test_small_last_batch_is_written_by_the_finish);
    tcase_add_test(tc, test_one_record_job_is_one_kept_batch);
    tcase_add_test(tc, test_one_line_is_answered_where_it_was_read);
    tcase_add_test(tc, test_read_error_half_way_ends_the_stream);
    tcase_add_test(tc, test_file_of_whole_reads_ends);
    tcase_add_test(tc, test_file_grown_after_a_small_first_piece_is_read_whole);
    tcase_add_test(tc, test_interrupted_writes_are_retried);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    int failed, rc;

    if (dir == NULL || dir[0] == '\0') {
        fprintf(stderr, "test_fileio: CAIRN_TEST_PLUGIN_DIR is not set (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    rc = cairn_registry_load(&g_reg, dir);
    if (rc != 0 || g_reg.n_plugins < 3) {
        fprintf(stderr, "test_fileio: cairn_registry_load(%s) returned %d\n", dir, rc);
        return EXIT_FAILURE;
    }
    g_ctx = (struct cairn_record_ctx){ .reg = &g_reg, .default_limits = CAIRN_LIMITS_OFFICIAL };
    setenv("UV_THREADPOOL_SIZE", "4", 1);
    failed = th_run_suite(fileio_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
