/*
 * plugin_copy.c - a plugin's private, sealed copy, and dlopen() of it.
 * Why a copy at all: see plugin_copy.h.
 *
 * It works under systemd's MemoryDenyWriteExecute= (PR_SET_MDWE): the copy
 * is written with write(2), never through a writable mapping, and the
 * dynamic linker maps it read+execute like any file.  memfd_create is in
 * @system-service, and /proc/self/fd is kept by ProcSubset=pid.
 */
#include "plugin_copy.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plugin_elf.h"
#include "util.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* Linux 6.3 */
#endif

/* A loaded object the dynamic linker could not unload keeps answering to
 * its /proc/self/fd name after its copy is closed; a new copy that gets
 * the same number moves up until its name is free, this many times. */
#define MAX_RENUMBER 64

/* The anonymous file.  MFD_NOEXEC_SEAL bars execve(2) of it, which we
 * never do (mapping it executable stays allowed), and is what a kernel
 * with vm.memfd_noexec = 2 insists on; a kernel older than 6.3 does not
 * know the flag (EINVAL) and gets none. */
static int make_memfd(const char *path)
{
    const char *base = strrchr(path, '/');
    char name[200];
    int fd;

    /* Shown in /proc/PID/maps as /memfd:cairn:NAME (deleted). */
    snprintf(name, sizeof(name), "cairn:%s", base != NULL ? base + 1 : path);
    fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL)
        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    return fd < 0 ? -errno : fd;
}

/* Copies fd's bytes (from offset 0, whatever its position) to copy. */
static int copy_bytes(int fd, int copy, off_t *total)
{
    char buf[16384];
    off_t off = 0;

    for (;;) {
        ssize_t n = pread(fd, buf, sizeof(buf), off);
        int rc;

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        off += n;
        if (off > CAIRN_PLUGIN_MAX_BYTES)
            return -EFBIG;
        if ((rc = cairn_write_all(copy, buf, (size_t)n)) != 0)
            return rc;
    }
    *total = off;
    return 0;
}

/* A 64-bit hash of a plugin image, eight bytes a step: a reload hashes
 * every file, and byte-wise FNV-1a (cairn_hash64) took a fifth of a
 * millisecond for the eleven shipped plugins.  Not for adversaries: the
 * file's owner, whom the loader trusts, is the only one who could aim at
 * a collision, and the inode, size and mtime must match as well. */
static uint64_t image_hash(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w;

    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
    h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

/* The sealed copy's ELF structures, read before the dynamic linker maps
 * them (plugin_elf.h), and the hash of its bytes (a reload compares it).
 * Sealed, the copy cannot shrink under the mapping. */
static int vet_image(int copy, off_t total, uint64_t *hash, char *why, size_t why_len)
{
    void *map;
    int rc;

    if (total == 0)
        return cairn_refuse(why, why_len, "empty file, not an ELF shared object");
    map = mmap(NULL, (size_t)total, PROT_READ, MAP_PRIVATE, copy, 0);
    if (map == MAP_FAILED)
        return errno == ENOMEM ? -ENOMEM
                               : cairn_refuse(why, why_len, "cannot read the private copy: %s",
                                              strerror(errno));
    rc = cairn_plugin_elf_check(map, (size_t)total, why, why_len);
    if (rc == 0)
        *hash = image_hash(map, (size_t)total);
    munmap(map, (size_t)total);
    return rc;
}

/* dlerror()'s text names the copy; the operator needs the file. */
static void explain(char *why, size_t why_len, const char *text, const char *copy_name,
                    const char *path)
{
    size_t n = strlen(copy_name), used = 0;
    const char *hit;

    why[0] = '\0';
    while ((hit = strstr(text, copy_name)) != NULL && used < why_len) {
        used +=
            (size_t)snprintf(why + used, why_len - used, "%.*s%s", (int)(hit - text), text, path);
        text = hit + n;
    }
    if (used < why_len)
        snprintf(why + used, why_len - used, "%s", text);
}

int cairn_plugin_copy_fresh_name(int *copy_fd, char *name, size_t name_len)
{
    int tries;

    for (tries = 0;; tries++) {
        void *old;
        int moved;

        snprintf(name, name_len, "/proc/self/fd/%d", *copy_fd);
        old = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (old == NULL)
            return 0;
        dlclose(old);
        if (tries == MAX_RENUMBER)
            return -EBUSY;
        moved = fcntl(*copy_fd, F_DUPFD_CLOEXEC, *copy_fd + 1);
        if (moved < 0)
            return -errno;
        close(*copy_fd);
        *copy_fd = moved;
    }
}

int cairn_plugin_copy_make(int fd, const struct stat *st, const char *path, int *copy_fd,
                           uint64_t *hash, char *name, size_t name_len, char *why, size_t why_len)
{
    struct stat after;
    char text[768];
    off_t total = 0;
    int copy, rc;

    if (st->st_size > CAIRN_PLUGIN_MAX_BYTES)
        return cairn_refuse(why, why_len,
                            "file is %lld bytes, over the %lld-byte limit for a plugin",
                            (long long)st->st_size, (long long)CAIRN_PLUGIN_MAX_BYTES);
    copy = make_memfd(path);
    if (copy < 0)
        return copy == -ENOMEM ? -ENOMEM
                               : cairn_refuse(why, why_len,
                                              "cannot make a private copy to load "
                                              "(memfd_create): %s",
                                              strerror(-copy));
    rc = copy_bytes(fd, copy, &total);
    if (rc != 0) {
        close(copy);
        if (rc == -EFBIG)
            return cairn_refuse(why, why_len, "file grew past the %lld-byte limit for a plugin",
                                (long long)CAIRN_PLUGIN_MAX_BYTES);
        return rc == -ENOMEM ? -ENOMEM
                             : cairn_refuse(why, why_len, "cannot copy: %s", strerror(-rc));
    }
    /* Written in place while we read: what we have may be torn.  (Install
     * by rename, as a package manager and `make install` do.) */
    if (fstat(fd, &after) != 0 || after.st_size != total || after.st_size != st->st_size ||
        after.st_mtim.tv_sec != st->st_mtim.tv_sec ||
        after.st_mtim.tv_nsec != st->st_mtim.tv_nsec) {
        close(copy);
        return cairn_refuse(why, why_len,
                            "file changed while it was being read; install plugins by "
                            "renaming them into place");
    }
    /* Nothing, not even a process that opens /proc/PID/fd/N, can change
     * the copy from here on. */
    if (fcntl(copy, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        int err = errno;
        close(copy);
        return cairn_refuse(why, why_len, "cannot seal the private copy: %s", strerror(err));
    }
    if ((rc = vet_image(copy, total, hash, text, sizeof(text))) != 0) {
        close(copy);
        return rc == -ENOMEM ? rc : cairn_refuse(why, why_len, "%s", text);
    }
    if ((rc = cairn_plugin_copy_fresh_name(&copy, name, name_len)) != 0) {
        close(copy);
        return cairn_refuse(why, why_len, "cannot find a free name for the private copy: %s",
                            strerror(-rc));
    }
    *copy_fd = copy;
    return 0;
}

int cairn_plugin_copy_load(const char *name, const char *path, void **dl, char *why, size_t why_len)
{
    char text[768];
    void *h;

    dlerror();
    /* RTLD_NOW: a missing symbol fails here, not mid-job.  RTLD_LOCAL:
     * plugins cannot see (or clash with) each other's symbols. */
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();

        explain(text, sizeof(text), e != NULL ? e : "unknown dlopen error", name, path);
        return cairn_refuse(why, why_len, "cannot load: %s (try `ldd %s`)", text, path);
    }
    *dl = h;
    return 0;
}

void cairn_plugin_copy_close(void *dl, int copy_fd)
{
    if (dl != NULL)
        dlclose(dl);
    if (copy_fd >= 0)
        close(copy_fd);
}
