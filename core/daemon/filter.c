/*
 * filter.c - stdin to stdout through the engine.
 */
#include "filter.h"

#include <errno.h>
#include <string.h>

#include "source.h"
#include "util.h"

struct filter {
    uv_file out_fd;
    int write_error;
    int done;
    int status;
    struct cairn_source input; /* stdin, read through read_input() */
};

/* Once stdout is gone (a reader like `head -1` exited), the input ends
 * here: an endless producer must not keep us reading and solving for
 * nobody.  Batches already read finish and the run ends with the error. */
static int read_input(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                      ssize_t *nread)
{
    struct filter *f = src->data;

    if (f->write_error != 0) {
        *nread = 0;
        return 0;
    }
    return f->input.read(&f->input, s, buf, len, nread);
}

/* Blocking on the consumer is the back-pressure we want: while stdout is
 * full, no batch is released, so no more input is read. */
static void sink_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct filter *f = s->sink.data;

    if (f->write_error == 0 && b->out.len > 0)
        f->write_error = cairn_write_all(f->out_fd, b->out.data, b->out.len);
    cairn_batch_release(b);
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct filter *f = s->sink.data;

    f->done = 1;
    f->status = status;
}

int cairn_filter_run(uv_loop_t *loop, struct cairn_pool *pool, const struct cairn_record_ctx *ctx,
                     size_t max_line_bytes, uv_file in_fd, uv_file out_fd,
                     struct cairn_tally *tally, enum cairn_filter_side *side)
{
    struct filter f = { .out_fd = out_fd };
    struct cairn_fd_source fs;
    struct cairn_stream s;
    int rc;

    memset(&s, 0, sizeof(s));
    s.pool = pool;
    s.ctx = ctx;
    s.max_line_bytes = max_line_bytes;
    s.sink = (struct cairn_sink){ .write = sink_write, .end = sink_end, .data = &f };
    rc = cairn_fd_source_init(&fs, loop, in_fd, 0, &f.input);
    if (rc != 0)
        return rc;
    s.source = (struct cairn_source){ .read = read_input, .prompt = f.input.prompt, .data = &f };
    rc = cairn_stream_start(&s);
    if (rc == 0)
        uv_run(loop, UV_RUN_DEFAULT);
    cairn_fd_source_close(&fs);
    uv_run(loop, UV_RUN_DEFAULT);
    if (rc == 0 && !f.done)
        rc = -EIO; /* the loop ran dry before the stream ended: a bug */
    *side = f.write_error ? CAIRN_FILTER_WRITING : CAIRN_FILTER_READING;
    if (rc == 0)
        rc = f.write_error ? f.write_error : f.status;
    cairn_tally_add(tally, &s.tally);
    cairn_stream_free(&s);
    return rc;
}
