/*
 * fork-latency.c - how long a fork()ed child takes to run its first
 * instruction on this machine, with the parent busy (as cairnd's loader
 * is while its probe process starts) and with the parent waiting.
 * bench/run prints it beside the start-up figures: on some VMs it is
 * most of what cairnd's start-up costs above the dlopen floor.
 *
 * usage: bench-fork-latency [N]   (N forks of each kind, 31 by default)
 * Prints the median and p90 of each, in milliseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* One fork: the child stores when it ran, the parent spins until then
 * (busy) or waits for its exit. */
static double one(volatile double *seen, int busy)
{
    double t0;
    pid_t pid;

    *seen = 0;
    t0 = now_ms();
    pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        *seen = now_ms();
        _exit(0);
    }
    if (busy)
        while (*seen == 0 && now_ms() - t0 < 1000)
            ;
    waitpid(pid, NULL, 0);
    return *seen - t0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 31, busy, i;
    volatile double *seen =
        mmap(NULL, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    double *t = calloc((size_t)(n > 0 ? n : 1), sizeof(double));

    if (n < 1 || seen == MAP_FAILED || t == NULL) {
        fprintf(stderr, "usage: bench-fork-latency [N]\n");
        return 2;
    }
    for (busy = 1; busy >= 0; busy--) {
        for (i = 0; i < n; i++)
            t[i] = one(seen, busy);
        qsort(t, (size_t)n, sizeof(double), cmp);
        printf("fork to the child's first instruction, parent %s: median %.2f ms, p90 %.2f "
               "ms\n",
               busy ? "busy" : "waiting", t[n / 2], t[(n * 9) / 10]);
    }
    free(t);
    return 0;
}
