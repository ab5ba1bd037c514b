/*
 * status.c - the live status file of a daemon (see status.h).
 */
#include "status.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "layout.h"

static int put_time(struct cairn_buf *out, const struct timespec *ts)
{
    char text[32];

    cairn_rfc3339(ts, text);
    return cairn_buf_json_string(out, text, strlen(text));
}

static int put_name(struct cairn_buf *out, const char *name)
{
    char *escaped = cairn_name_escape(name);
    int rc = escaped == NULL ? -ENOMEM : cairn_buf_json_string(out, escaped, strlen(escaped));

    free(escaped);
    return rc;
}

int cairn_status_render(const struct cairn_status_report *st, struct cairn_buf *out)
{
    struct timespec now;
    int rc;

    clock_gettime(CLOCK_REALTIME, &now);
    out->len = 0;
    rc = cairn_buf_puts(out, "{\"host\":");
    rc |= cairn_buf_json_string(out, st->host, strlen(st->host));
    rc |= cairn_buf_printf(out, ",\"pid\":%ld,\"version\":", st->pid);
    rc |= cairn_buf_json_string(out, st->version, strlen(st->version));
    rc |= cairn_buf_puts(out, ",\"started\":");
    rc |= put_time(out, &st->started);
    rc |= cairn_buf_puts(out, ",\"updated\":");
    rc |= put_time(out, &now);
    if (st->metrics != NULL) {
        rc |= cairn_buf_puts(out, ",\"metrics\":");
        rc |= cairn_buf_json_string(out, st->metrics, strlen(st->metrics));
    }
    rc |= cairn_buf_puts(out, ",\"active\":[");
    for (size_t i = 0; i < st->n_jobs && rc == 0; i++) {
        const struct cairn_status_job *j = &st->jobs[i];
        size_t n = strlen(j->name);
        char *base = strndup(j->name, n > CAIRN_JOB_SUFFIX_LEN ? n - CAIRN_JOB_SUFFIX_LEN : n);

        if (base == NULL)
            return -ENOMEM;
        rc |= cairn_buf_puts(out, i ? ",{\"job\":" : "{\"job\":");
        rc |= put_name(out, base);
        rc |= cairn_buf_puts(out, ",\"input\":");
        rc |= put_name(out, j->name);
        rc |= cairn_buf_printf(out, ",\"size\":%llu,\"bytes\":%llu,\"records\":%llu,\"started\":",
                               (unsigned long long)j->size, (unsigned long long)j->bytes,
                               (unsigned long long)j->records);
        rc |= put_time(out, &j->started);
        rc |= cairn_buf_puts(out, "}");
        free(base);
    }
    rc |= cairn_buf_puts(out, "]}\n");
    return rc ? -ENOMEM : 0;
}

char *cairn_status_file_name(void)
{
    char host[256] = "localhost";
    unsigned int r = 0;

    if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0' || strchr(host, '/'))
        snprintf(host, sizeof(host), "localhost");
    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
        r = (unsigned int)getpid() ^ (unsigned int)time(NULL);
    return cairn_asprintf("%.64s.%ld.%08x.json", host, (long)getpid(), r);
}

int cairn_status_is_gone(const json_t *root, const char *this_host)
{
    const char *host = json_string_value(json_object_get(root, "host"));
    json_int_t pid = json_integer_value(json_object_get(root, "pid"));

    if (host == NULL || strcmp(host, this_host) != 0)
        return 0;
    if (pid <= 0 || pid != (pid_t)pid)
        return 1; /* no process of ours ever had it */
    return kill((pid_t)pid, 0) != 0 && errno != EPERM;
}
