/*
 * fuzz_plugin.c - libFuzzer target: damaged plugin files through the real
 * loader, which must refuse them with a reason or load them, never crash.
 *
 * The input is a recipe applied to a real plugin ($CAIRN_FUZZ_PLUGIN_BASE,
 * default build-fuzz/fuzz/stone-game-ii.so, read once; built
 * without coverage instrumentation, which libFuzzer cannot follow through
 * a dlclose):
 *   bytes 0-1   where to cut the file, little endian: 0xffff keeps it
 *               whole, any other v keeps v * size / 0xffff bytes;
 *   then 5-byte patches: a 4-byte little-endian offset (modulo the size)
 *               and the byte to write there.
 * The ELF header and program headers sit at fixed offsets (0..~600), so
 * the seeds in corpus/plugin/ aim there; comparison tracing finds the
 * dynamic section's fields.
 *
 * Each run writes the damaged file into a fresh plugin directory and calls
 * cairn_registry_load(): it must return 0 with the plugin loaded, or
 * -EINVAL with one error naming the file; a plugin that loaded is then
 * freed (its destructors run).  Anything the loader lets through that
 * faults in the linker or in the plugin's load-time code kills this
 * process, which libFuzzer reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_loader.h"

static unsigned char *base;
static size_t base_len;
static char dir[64];
static char path[128];
static pid_t owner;

static void invariant(int ok, const char *what, const char *detail)
{
    if (!ok) {
        fprintf(stderr, "fuzz_plugin: invariant broken: %s%s%s\n", what, detail ? ": " : "",
                detail ? detail : "");
        abort();
    }
}

/* A damaged plugin that ends the loader's probe child with exit() runs
 * the atexit handlers there too.  This one, registered after libFuzzer's,
 * runs first: in such a child it leaves at once, so neither the directory
 * is removed under the next run (that failed CI once) nor libFuzzer's own
 * handler writes a "crash" file for an input the loader refused.  The
 * probe then reads exit status 1 whatever the plugin asked for. */
static void cleanup(void)
{
    if (getpid() != owner)
        _exit(1);
    unlink(path);
    rmdir(dir);
}

static void setup(void)
{
    const char *src = getenv("CAIRN_FUZZ_PLUGIN_BASE");
    struct stat st;
    const char *tmp = getenv("CAIRN_FUZZ_TMPDIR");
    int fd;

    if (src == NULL)
        src = "build-fuzz/fuzz/stone-game-ii.so";
    fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "fuzz_plugin: cannot read %s (set CAIRN_FUZZ_PLUGIN_BASE)\n", src);
        exit(1);
    }
    base_len = (size_t)st.st_size;
    base = malloc(base_len);
    if (base == NULL || read(fd, base, base_len) != (ssize_t)base_len) {
        fprintf(stderr, "fuzz_plugin: cannot read %s\n", src);
        exit(1);
    }
    close(fd);
    if (tmp == NULL)
        tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof(dir), "%s/cairn-fuzz-plugin-XXXXXX", tmp);
    if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0) {
        perror("fuzz_plugin: mkdtemp");
        exit(1);
    }
    snprintf(path, sizeof(path), "%s/damaged.so", dir);
    owner = getpid();
    atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cairn_registry reg = { 0 };
    unsigned char *img;
    size_t len, i;
    unsigned cut;
    int fd, rc;

    if (base == NULL)
        setup();
    if (size < 2)
        return 0;
    img = malloc(base_len);
    invariant(img != NULL, "out of memory", NULL);
    memcpy(img, base, base_len);
    for (i = 2; i + 5 <= size; i += 5) {
        uint32_t off = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                       (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;

        img[off % base_len] = data[i + 4];
    }
    cut = (unsigned)data[0] | (unsigned)data[1] << 8;
    len = cut == 0xffff ? base_len : (size_t)((uint64_t)cut * base_len / 0xffff);

    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    invariant(fd >= 0, "cannot write the damaged file", strerror(errno));
    invariant(len == 0 || write(fd, img, len) == (ssize_t)len, "short write", path);
    close(fd);
    chmod(path, 0755);
    free(img);

    rc = cairn_registry_load(&reg, dir);
    invariant(rc == 0 || rc == -EINVAL, "load returned neither 0 nor -EINVAL", NULL);
    if (rc == 0) {
        invariant(reg.n_plugins == 1 && reg.n_errors == 0, "loaded, but not exactly one plugin",
                  NULL);
    } else {
        invariant(reg.n_plugins == 0 && reg.n_errors == 1, "refused, but not with one error", NULL);
        invariant(strstr(reg.errors[0], path) != NULL, "the error does not name the file",
                  reg.errors[0]);
    }
    cairn_registry_free(&reg);
    return 0;
}
