/*
 * settle.c - the age of a job file, by its mtime or, when that lies in the
 * future, by our own observation (see settle.h).
 */
#include "settle.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cairn_settle_entry {
    struct cairn_settle_entry *next;
    off_t size;
    struct timespec mtime;
    uint64_t first_ns; /* when this size and mtime were first seen */
    uint64_t scan;     /* the last scan that saw it */
    char name[];
};

void cairn_settle_begin_scan(struct cairn_settle *s)
{
    s->scan++;
}

void cairn_settle_end_scan(struct cairn_settle *s)
{
    struct cairn_settle_entry **pp = &s->head;

    while (*pp != NULL) {
        struct cairn_settle_entry *e = *pp;
        if (e->scan != s->scan) {
            *pp = e->next;
            free(e);
        } else {
            pp = &e->next;
        }
    }
}

static int64_t ms_between(const struct timespec *from, const struct timespec *to)
{
    return ((int64_t)to->tv_sec - (int64_t)from->tv_sec) * 1000 +
           ((int64_t)to->tv_nsec - (int64_t)from->tv_nsec) / 1000000;
}

uint64_t cairn_settle_age_ms(struct cairn_settle *s, const char *name, const struct stat *st,
                             const struct timespec *now_real, uint64_t now_mono_ns)
{
    struct cairn_settle_entry *e;
    int64_t age = ms_between(&st->st_mtim, now_real);
    size_t n;

    if (age >= 0)
        return (uint64_t)age;
    for (e = s->head; e != NULL; e = e->next)
        if (strcmp(e->name, name) == 0)
            break;
    if (e == NULL) {
        n = strlen(name);
        if ((e = malloc(sizeof(*e) + n + 1)) == NULL)
            return 0;
        memcpy(e->name, name, n + 1);
        e->next = s->head;
        s->head = e;
        e->first_ns = now_mono_ns;
    } else if (e->size != st->st_size || e->mtime.tv_sec != st->st_mtim.tv_sec ||
               e->mtime.tv_nsec != st->st_mtim.tv_nsec) {
        e->first_ns = now_mono_ns; /* still being written: start over */
    }
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    e->scan = s->scan;
    return (now_mono_ns - e->first_ns) / 1000000;
}

void cairn_settle_free(struct cairn_settle *s)
{
    while (s->head != NULL) {
        struct cairn_settle_entry *e = s->head;
        s->head = e->next;
        free(e);
    }
}
