/*
 * test_attempts.c - the crash count of a claimed job (attempts.h).
 *
 * The count lives on the job file (user.cairn.attempts), so counting a
 * run creates no file; where the file system keeps no user attributes it
 * falls back to active/.cairn-attempts.HASH, which also carries a count
 * over from an earlier version.  A file that replaces the job under the
 * same name starts from nothing, in both forms.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "harness.h"
#include "attempts.h"
#include "marks.h"
#include "names.h"

struct dir {
    char path[64];
    int fd;
};

static void dir_make(struct dir *d)
{
    strcpy(d->path, "/tmp/cairn-attempts-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d->path));
    d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(d->fd, 0);
}

static void dir_remove(struct dir *d)
{
    char cmd[128];

    close(d->fd);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
    ck_assert_int_eq(system(cmd), 0);
}

/* Creates (or replaces) d/name; returns it open for reading, *ino set. */
static int job_file(struct dir *d, const char *name, ino_t *ino)
{
    struct stat st;
    int fd;

    unlinkat(d->fd, name, 0);
    fd = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fstat(fd, &st), 0);
    *ino = st.st_ino;
    return fd;
}

static int count_files(struct dir *d)
{
    char *file = cairn_attempts_file("j.jsonl");
    struct stat st;
    int there = fstatat(d->fd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;

    free(file);
    return there;
}

START_TEST(counts_runs_on_the_file_itself)
{
    struct dir d;
    ino_t ino;
    char buf[16];
    ssize_t n;
    int fd;

    dir_make(&d);
    fd = job_file(&d, "j.jsonl", &ino);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 0);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 1);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 2);
    /* On the inode, and no file beside it. */
    n = fgetxattr(fd, "user.cairn.attempts", buf, sizeof(buf) - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "3");
    ck_assert_msg(!count_files(&d), "a count file was created beside the job");
    /* It survives the descriptor (a crash closes it). */
    close(fd);
    fd = openat(d.fd, "j.jsonl", O_RDONLY | O_CLOEXEC);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 3);
    cairn_attempts_forget(d.fd, "j.jsonl", fd);
    ck_assert_int_lt(fgetxattr(fd, "user.cairn.attempts", buf, sizeof(buf)), 0);
    ck_assert_int_eq(errno, ENODATA);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 0);
    close(fd);
    /* A new file of the same name starts from nothing. */
    fd = job_file(&d, "j.jsonl", &ino);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 0);
    close(fd);
    dir_remove(&d);
}
END_TEST

/* A fresh claim (ran_before 0) writes the first count in one call, and
 * still reads a count the file already carries, with its note. */
START_TEST(a_fresh_claim_reads_a_count_already_there)
{
    static const char kept[] = "2 line 2, plugin hang";
    struct dir d;
    ino_t ino;
    char note[CAIRN_ATTEMPTS_NOTE_MAX], buf[64];
    ssize_t n;
    int fresh, carried;

    dir_make(&d);
    fresh = job_file(&d, "a.jsonl", &ino);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "a.jsonl", fresh, ino, 0), 0);
    ck_assert_int_eq(fgetxattr(fresh, "user.cairn.attempts", buf, sizeof(buf)), 1);
    ck_assert_int_eq(buf[0], '1');
    carried = job_file(&d, "b.jsonl", &ino);
    ck_assert_int_eq(fsetxattr(carried, "user.cairn.attempts", kept, strlen(kept), 0), 0);
    ck_assert_uint_eq(
        cairn_attempts_count_noted(d.fd, "b.jsonl", carried, ino, 0, note, sizeof(note)), 2);
    ck_assert_str_eq(note, "line 2, plugin hang");
    n = fgetxattr(carried, "user.cairn.attempts", buf, sizeof(buf) - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "3 line 2, plugin hang");
    close(fresh);
    close(carried);
    dir_remove(&d);
}
END_TEST

/* A hung run's note stays with the count, through later counts (a kill
 * says nothing), comes back with it, and goes with it. */
START_TEST(a_note_stays_with_the_count)
{
    struct dir d;
    ino_t ino;
    char note[CAIRN_ATTEMPTS_NOTE_MAX], buf[256];
    ssize_t n;
    int fd;

    dir_make(&d);
    fd = job_file(&d, "j.jsonl", &ino);
    ck_assert_uint_eq(cairn_attempts_count_noted(d.fd, "j.jsonl", fd, ino, 0, note, sizeof(note)),
                      0);
    ck_assert_str_eq(note, "");
    cairn_attempts_note(fd, "line 3, plugin hang,\nstuck");
    n = fgetxattr(fd, "user.cairn.attempts", buf, sizeof(buf) - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "1 line 3, plugin hang, stuck"); /* one line */
    ck_assert_uint_eq(cairn_attempts_count_noted(d.fd, "j.jsonl", fd, ino, 1, note, sizeof(note)),
                      1);
    ck_assert_str_eq(note, "line 3, plugin hang, stuck");
    ck_assert_uint_eq(cairn_attempts_count_noted(d.fd, "j.jsonl", fd, ino, 1, note, sizeof(note)),
                      2);
    ck_assert_str_eq(note, "line 3, plugin hang, stuck");
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 3);
    cairn_attempts_forget(d.fd, "j.jsonl", fd);
    ck_assert_uint_eq(cairn_attempts_count_noted(d.fd, "j.jsonl", fd, ino, 1, note, sizeof(note)),
                      0);
    ck_assert_str_eq(note, "");
    close(fd);
    dir_remove(&d);
}
END_TEST

/* Without a descriptor (or without attributes) the file form counts. */
START_TEST(file_form_counts_per_inode)
{
    struct dir d;
    ino_t ino, other;
    int fd, fd2;

    dir_make(&d);
    fd = job_file(&d, "j.jsonl", &ino);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", -1, ino, 1), 0);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", -1, ino, 1), 1);
    ck_assert(count_files(&d));
    /* Another inode under the name: its own count. */
    fd2 = openat(d.fd, "k", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd2, 0);
    {
        struct stat st;
        ck_assert_int_eq(fstat(fd2, &st), 0);
        other = st.st_ino;
    }
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", -1, other, 1), 0);
    cairn_attempts_forget(d.fd, "j.jsonl", -1);
    ck_assert(!count_files(&d));
    close(fd);
    close(fd2);
    dir_remove(&d);
}
END_TEST

/* A count an earlier version left in the file form is carried onto the
 * job file, and the file goes. */
START_TEST(older_count_file_is_taken_over)
{
    struct dir d;
    char *file, text[64];
    ino_t ino;
    int fd, cfd;

    dir_make(&d);
    fd = job_file(&d, "j.jsonl", &ino);
    file = cairn_attempts_file("j.jsonl");
    cfd = openat(d.fd, file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(cfd, 0);
    snprintf(text, sizeof(text), "%llu 2\n", (unsigned long long)ino);
    ck_assert_int_eq(write(cfd, text, strlen(text)), (ssize_t)strlen(text));
    close(cfd);
    /* A fresh claim never ran: it does not look. */
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 0), 0);
    ck_assert_msg(count_files(&d), "a fresh claim touched the older count file");
    ck_assert_int_eq(fremovexattr(fd, "user.cairn.attempts"), 0);
    /* A job found in active/ takes it over. */
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 2);
    ck_assert_msg(!count_files(&d), "the older count file is still there");
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 3);
    /* forget removes either form. */
    cairn_attempts_forget(d.fd, "j.jsonl", fd);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 0);
    free(file);
    close(fd);
    dir_remove(&d);
}
END_TEST

/* An attribute that holds no number (damaged, or set by hand) counts as
 * no run before, and is replaced by a good count. */
START_TEST(damaged_attribute_counts_from_zero)
{
    struct dir d;
    ino_t ino;
    char buf[16];
    ssize_t n;
    int fd;

    dir_make(&d);
    fd = job_file(&d, "j.jsonl", &ino);
    ck_assert_int_eq(fsetxattr(fd, "user.cairn.attempts", "many", 4, 0), 0);
    ck_assert_uint_eq(cairn_attempts_count(d.fd, "j.jsonl", fd, ino, 1), 0);
    n = fgetxattr(fd, "user.cairn.attempts", buf, sizeof(buf) - 1);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "1");
    close(fd);
    dir_remove(&d);
}
END_TEST

/* Replaces the record file of kind for key with text. */
static void record_put(struct dir *d, const char *kind, const char *key, const char *text,
                       size_t len)
{
    char *file = cairn_active_record_file(kind, key);
    int fd = openat(d->fd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    free(file);
}

/* The records of a claimed file's names come back as written, any byte
 * but NUL and '/' in them; one for another inode, torn or damaged reads
 * as no record at all (a name chosen anew), never as a wrong name. */
START_TEST(name_records_round_trip_and_damaged_ones_read_as_absent)
{
    static const char *const damaged[] = {
        "",               /* empty */
        "12",             /* no newline */
        "x 1 0\na",       /* no inode */
        "%llu 0 0\n",     /* no name */
        "%llu 300 0\nab", /* a name longer than NAME_MAX */
        "%llu 1 300\nab", /* so is the second */
        "%llu 5 0\nab",   /* torn: shorter than it says */
        "%llu 1 0\nabc",  /* longer than it says */
        "%llu 2 0\nab" /* for another inode (the %llu is ino + 1) */,
    };
    struct dir d;
    char *a, *b, text[128];
    ino_t ino;
    size_t i;
    int fd;

    dir_make(&d);
    fd = job_file(&d, "j~2.jsonl", &ino);
    ck_assert_int_eq(cairn_marks_submitted(d.fd, "j~2.jsonl", ino, &a), 0);
    ck_assert_ptr_null(a);
    ck_assert_int_eq(cairn_marks_note_submitted(d.fd, "j~2.jsonl", ino, "j\nx.jsonl"), 0);
    ck_assert_int_eq(cairn_marks_submitted(d.fd, "j~2.jsonl", ino, &a), 1);
    ck_assert_str_eq(a, "j\nx.jsonl");
    free(a);
    /* A hand-back mark: the name it ran as, and what it was dropped as. */
    ck_assert_int_eq(cairn_marks_note_handback(d.fd, "j.jsonl", ino, "j~2.jsonl", "j.jsonl"), 0);
    ck_assert_int_eq(cairn_marks_handback(d.fd, "j.jsonl", ino, &a, &b), 1);
    ck_assert_str_eq(a, "j~2.jsonl");
    ck_assert_str_eq(b, "j.jsonl");
    free(a);
    free(b);
    ck_assert_int_eq(cairn_marks_note_handback(d.fd, "j.jsonl", ino, "j~2.jsonl", NULL), 0);
    ck_assert_int_eq(cairn_marks_handback(d.fd, "j.jsonl", ino, &a, &b), 1);
    ck_assert_str_eq(a, "j~2.jsonl");
    ck_assert_ptr_null(b);
    free(a);
    cairn_marks_forget_handback(d.fd, "j.jsonl");
    ck_assert_int_eq(cairn_marks_handback(d.fd, "j.jsonl", ino, &a, &b), 0);
    for (i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
        unsigned long long as_ino = (unsigned long long)ino + (i == 8);

        snprintf(text, sizeof(text), damaged[i], as_ino);
        record_put(&d, "submitted", "j~2.jsonl", text, strlen(text));
        ck_assert_msg(cairn_marks_submitted(d.fd, "j~2.jsonl", ino, &a) == 0 && a == NULL,
                      "record %zu (%s) was read as a name", i, text);
    }
    cairn_marks_forget_submitted(d.fd, "j~2.jsonl");
    ck_assert_int_eq(cairn_marks_submitted(d.fd, "j~2.jsonl", ino, &a), 0);
    close(fd);
    dir_remove(&d);
}
END_TEST

static Suite *attempts_suite(void)
{
    Suite *s = suite_create("attempts");
    TCase *tc = tcase_create("count");

    tcase_add_test(tc, counts_runs_on_the_file_itself);
    tcase_add_test(tc, file_form_counts_per_inode);
    tcase_add_test(tc, a_note_stays_with_the_count);
    tcase_add_test(tc, a_fresh_claim_reads_a_count_already_there);
    tcase_add_test(tc, older_count_file_is_taken_over);
    tcase_add_test(tc, damaged_attribute_counts_from_zero);
    tcase_add_test(tc, name_records_round_trip_and_damaged_ones_read_as_absent);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    failed = th_run_suite(attempts_suite(), CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
