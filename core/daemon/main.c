/*
 * main.c - cairnd's command line: settle the configuration, load the
 * plugins, run the chosen mode, turn the outcome into an exit code.  Only
 * this file decides to exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "arena.h"
#include "config.h"
#include "daemon.h"
#include "engine.h"
#include "filter.h"
#include "hang.h"
#include "log.h"
#include "registry.h"
#include "record.h"
#include "summary.h"
#include "util.h"
#include "version.h"

#ifndef CAIRN_SYSCONF_FILE
#define CAIRN_SYSCONF_FILE "/etc/cairn/cairn.json"
#endif

enum {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,
    EXIT_USAGE = 2
};

enum mode {
    MODE_DAEMON,
    MODE_ONCE,
    MODE_FILTER,
    MODE_CHECK,
    MODE_LIST,
    MODE_VERSION,
    MODE_HELP
};

static const char usage_text[] =
    "usage: cairnd [-c FILE] [--input DIR] [--output DIR] [--plugins DIR] [--threads N]\n"
    "              [--limits official|extended]\n"
    "              [--once | --filter [--summary] | --check | --list-plugins | --version | "
    "--help]\n"
    "\n"
    "  -c, --config FILE    configuration file (default " CAIRN_SYSCONF_FILE " if present)\n"
    "  --input DIR          spool directory to watch (input_dir)\n"
    "  --output DIR         where results, summaries and metrics go (output_dir)\n"
    "  --plugins DIR[:DIR]  solver plugin directories, colon-separated (plugin_dir)\n"
    "  --threads N          worker threads, 0 = one per CPU (threads)\n"
    "  --limits L           default limits for records: official or extended (limits)\n"
    "  (no mode)            run as a daemon in the foreground, watching the input directory\n"
    "  --once               process every job present in the input directory, then exit;\n"
    "                       a file is taken once its mtime is min_age_ms old (default\n"
    "                       1 s), so set \"min_age_ms\": 0 for files complete before it starts\n"
    "  --filter             read records from stdin, write result lines to stdout\n"
    "  --summary            with --filter: end with one JSON line of counts on stderr\n"
    "                       (records, ok, errors by code, matches, mismatches,\n"
    "                       unchecked); the default when stderr is a terminal\n"
    "  --check              validate the configuration and load every plugin\n"
    "  --list-plugins       name, aliases, version and file of each plugin\n"
    "  --version            print the version\n"
    "  --help               this text\n"
    "\n"
    "Exit status: 0 success; 1 a job failed (--once) or a runtime failure;\n"
    "2 usage, configuration or plugin error.\n";

/* The options that override configuration keys, and those keys. */
enum {
    O_INPUT = 256,
    O_OUTPUT,
    O_PLUGINS,
    O_THREADS,
    O_LIMITS,
    O_ONCE,
    O_FILTER,
    O_CHECK,
    O_LIST,
    O_VERSION,
    O_HELP,
    O_SUMMARY
};
#define N_OVERRIDES (O_LIMITS - O_INPUT + 1)
static const char *const override_key[N_OVERRIDES] = { [O_INPUT - O_INPUT] = "input_dir",
                                                       [O_OUTPUT - O_INPUT] = "output_dir",
                                                       [O_PLUGINS - O_INPUT] = "plugin_dir",
                                                       [O_THREADS - O_INPUT] = "threads",
                                                       [O_LIMITS - O_INPUT] = "limits" };
static const char *const override_option[N_OVERRIDES] = { [O_INPUT - O_INPUT] = "--input",
                                                          [O_OUTPUT - O_INPUT] = "--output",
                                                          [O_PLUGINS - O_INPUT] = "--plugins",
                                                          [O_THREADS - O_INPUT] = "--threads",
                                                          [O_LIMITS - O_INPUT] = "--limits" };

struct cli {
    enum mode mode;
    int mode_set;
    int summary; /* --summary: --filter ends with its counts on stderr */
    const char *config_file;
    /* One value per overriding option (the last given wins), applied
     * after the file, in the order of override_key[]. */
    const char *values[N_OVERRIDES];
};

static int set_mode(struct cli *cli, enum mode m)
{
    if (cli->mode_set && cli->mode != m) {
        cairn_say(CAIRN_LOG_ERROR, "cairnd",
                  "choose one of --once, --filter, --check, --list-plugins");
        return -EINVAL;
    }
    cli->mode = m;
    cli->mode_set = 1;
    return 0;
}

static int parse_cli(int argc, char **argv, struct cli *cli)
{
    static const struct option opts[] = { { "config", required_argument, NULL, 'c' },
                                          { "input", required_argument, NULL, O_INPUT },
                                          { "output", required_argument, NULL, O_OUTPUT },
                                          { "plugins", required_argument, NULL, O_PLUGINS },
                                          { "threads", required_argument, NULL, O_THREADS },
                                          { "limits", required_argument, NULL, O_LIMITS },
                                          { "once", no_argument, NULL, O_ONCE },
                                          { "filter", no_argument, NULL, O_FILTER },
                                          { "check", no_argument, NULL, O_CHECK },
                                          { "list-plugins", no_argument, NULL, O_LIST },
                                          { "version", no_argument, NULL, O_VERSION },
                                          { "help", no_argument, NULL, O_HELP },
                                          { "summary", no_argument, NULL, O_SUMMARY },
                                          { NULL, 0, NULL, 0 } };
    int c, rc = 0;

    memset(cli, 0, sizeof(*cli));
    opterr = 0; /* getopt's own messages would name argv[0] and carry no <N> */
    while ((c = getopt_long(argc, argv, ":c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': cli->config_file = optarg; break;
        case O_INPUT:
        case O_OUTPUT:
        case O_PLUGINS:
        case O_THREADS:
        case O_LIMITS: cli->values[c - O_INPUT] = optarg; break;
        case O_ONCE: rc = set_mode(cli, MODE_ONCE); break;
        case O_FILTER: rc = set_mode(cli, MODE_FILTER); break;
        case O_CHECK: rc = set_mode(cli, MODE_CHECK); break;
        case O_LIST: rc = set_mode(cli, MODE_LIST); break;
        case O_VERSION: rc = set_mode(cli, MODE_VERSION); break;
        case 'h':
        case O_HELP: rc = set_mode(cli, MODE_HELP); break;
        case O_SUMMARY: cli->summary = 1; break;
        default: { /* ':' or '?' */
            char what[256];

            cairn_option_error(c, optopt, argv[optind - 1], what, sizeof(what));
            cairn_say(CAIRN_LOG_ERROR, "cairnd", "%s", what);
            return -EINVAL;
        }
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc) {
        cairn_say(CAIRN_LOG_ERROR, "cairnd", "unexpected argument \"%s\"", argv[optind]);
        return -EINVAL;
    }
    if (cli->summary && cli->mode != MODE_FILTER) {
        /* Jobs have their summary files; silently ignoring it would hide
         * a mistaken command line. */
        cairn_say(CAIRN_LOG_ERROR, "cairnd", "--summary goes with --filter");
        return -EINVAL;
    }
    return 0;
}

static int apply_overrides(struct cairn_config *cfg, char **err, void *data)
{
    const struct cli *cli = data;
    int i;

    for (i = 0; i < N_OVERRIDES; i++)
        if (cli->values[i] != NULL &&
            cairn_config_set_option(cfg, override_key[i], override_option[i], cli->values[i],
                                    err) != 0)
            return -EINVAL;
    return 0;
}

/* The built-in settings.  An uninstalled cairnd's default plugin_dir is
 * the build tree's: the installed one does not exist yet, and the plugins
 * beside it are the ones built with it.  At start and on every SIGHUP. */
static int daemon_defaults(struct cairn_config *cfg)
{
    if (cairn_config_defaults(cfg) != 0)
        return -ENOMEM;
#if defined(CAIRN_BUILD_EXE) && defined(CAIRN_BUILD_PLUGIN_DIR)
    if (cairn_config_default_when_uninstalled(cfg, CAIRN_BUILD_EXE, CAIRN_BUILD_PLUGIN_DIR) != 0) {
        cairn_config_free(cfg);
        return -ENOMEM;
    }
#endif
    return 0;
}

/* Defaults, then the file, then the command line.  *file_out is the file
 * that was read (NULL for none), for SIGHUP to read again. */
static int settle_config(const struct cli *cli, struct cairn_config *cfg, const char **file_out)
{
    const char *file = cli->config_file;
    char *err = NULL;
    struct stat st;
    int rc;

    if (daemon_defaults(cfg) != 0) {
        cairn_say(CAIRN_LOG_ERROR, "cairnd", "out of memory setting up the configuration");
        return -ENOMEM;
    }
    if (file == NULL && stat(CAIRN_SYSCONF_FILE, &st) == 0)
        file = CAIRN_SYSCONF_FILE;
    if (file != NULL && cairn_config_load_file(cfg, file, &err) != 0)
        goto fail;
    if (apply_overrides(cfg, &err, (void *)cli) != 0)
        goto fail;
    if (cli->mode != MODE_FILTER && cli->mode != MODE_LIST &&
        cairn_config_check_dirs(cfg, &err) != 0)
        goto fail;
    *file_out = file;
    return 0;
fail:
    /* No message: the only failure that writes none is memory running out. */
    cairn_say(CAIRN_LOG_ERROR, "cairnd", "%s",
              err ? err : "out of memory reading the configuration");
    rc = err != NULL ? -EINVAL : -ENOMEM;
    free(err);
    cairn_config_free(cfg);
    return rc;
}

/* The value of a lower-case roman numeral, or 0 when s is not one. */
static unsigned roman_value(const char *s)
{
    static const char digits[] = "ivxlc";
    static const unsigned worth[] = { 1, 5, 10, 50, 100 };
    unsigned total = 0, prev = 1000;
    const char *p;

    if (*s == '\0')
        return 0;
    for (p = s; *p != '\0'; p++) {
        const char *d = strchr(digits, *p);
        unsigned v;

        if (d == NULL)
            return 0;
        v = worth[d - digits];
        /* A smaller digit before a larger one subtracts (iv, ix). */
        total += v > prev ? v - 2 * prev : v;
        prev = v;
    }
    return total;
}

/* Names in the order a reader expects: stone-game, stone-game-ii, ...,
 * stone-game-ix (a trailing "-ROMAN" counted as its number, none as 1),
 * not the file names' byte order (stone-game-ii.so before stone-game.so). */
static int plugin_order(const void *a, const void *b)
{
    const char *x = (*(const struct cairn_plugin_handle *const *)a)->desc->name;
    const char *y = (*(const struct cairn_plugin_handle *const *)b)->desc->name;
    const char *dx = strrchr(x, '-'), *dy = strrchr(y, '-');
    unsigned rx = dx != NULL ? roman_value(dx + 1) : 0, ry = dy != NULL ? roman_value(dy + 1) : 0;
    size_t bx = rx ? (size_t)(dx - x) : strlen(x), by = ry ? (size_t)(dy - y) : strlen(y);
    int c = strncmp(x, y, bx < by ? bx : by);

    if (c != 0)
        return c;
    if (bx != by)
        return bx < by ? -1 : 1;
    rx = rx ? rx : 1;
    ry = ry ? ry : 1;
    return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x, y);
}

/* "aliases: A,B" printed, as long as alias_width(d) says. */
static size_t alias_width(const struct cairn_plugin *d)
{
    size_t n = strlen("aliases:"), j;

    for (j = 0; d->aliases != NULL && d->aliases[j] != NULL; j++)
        n += 1 + strlen(d->aliases[j]);
    return n;
}

static int print_plugins(const struct cairn_registry *reg)
{
    const struct cairn_plugin_handle **order = calloc(reg->n_plugins + 1, sizeof(*order));
    size_t name_w = 0, alias_w = 0, i, j;
    int width;

    if (order == NULL)
        return -ENOMEM;
    for (i = 0; i < reg->n_plugins; i++) {
        size_t n = strlen(reg->plugins[i].desc->name), a = alias_width(reg->plugins[i].desc);

        order[i] = &reg->plugins[i];
        name_w = n > name_w ? n : name_w;
        alias_w = a > alias_w ? a : alias_w;
    }
    width = (int)name_w;
    qsort(order, reg->n_plugins, sizeof(*order), plugin_order);
    for (i = 0; i < reg->n_plugins; i++) {
        const struct cairn_plugin *d = order[i]->desc;
        printf("%-*s  aliases:", width, d->name);
        for (j = 0; d->aliases != NULL && d->aliases[j] != NULL; j++)
            printf("%s%s", j ? "," : " ", d->aliases[j]);
        /* The ABI it was built for: an operator sees which plugins are
         * old binaries served in their old meaning. */
        printf("%*s  version: %s  abi: %u.%u  file: %s\n", (int)(alias_w - alias_width(d)), "",
               d->version, (unsigned)d->abi_major, (unsigned)d->abi_minor, order[i]->path);
        printf("%-*s  %s\n", width, "", d->summary);
    }
    free(order);
    return 0;
}

/* threads as the daemon would settle it: 0 in the configuration means
 * one per CPU, and the count it would start is what an operator checks. */
static int print_check(const struct cairn_config *cfg, const struct cairn_registry *reg)
{
    unsigned cpus = uv_available_parallelism();

    printf("configuration ok: input_dir=%s output_dir=%s plugin_dir=%s threads=%llu%s "
           "limits=%s\n",
           cfg->input_dir ? cfg->input_dir : "(unset)",
           cfg->output_dir ? cfg->output_dir : "(unset)", cfg->plugin_dir,
           cfg->threads ? (unsigned long long)cfg->threads : (unsigned long long)(cpus ? cpus : 1),
           cfg->threads ? "" : " (one per CPU)",
           cfg->limits == CAIRN_LIMITS_EXTENDED ? "extended" : "official");
    printf("%zu plugin(s) loaded:\n", reg->n_plugins);
    return print_plugins(reg);
}

/* libuv sizes its pool from the environment, once, at first use.  The
 * daemon asks for io_extra more threads than solvers: a job's claim and
 * finish (fsync, rename), a scan and a metrics write each block a pool
 * thread, and those waits should overlap with solving rather than take a
 * solver's place.  Returns the number of solver threads. */
static unsigned worker_threads(const struct cairn_config *cfg, unsigned io_extra)
{
    char buf[16];
    unsigned n = cfg->threads ? (unsigned)cfg->threads : uv_available_parallelism();

    if (n == 0)
        n = 1;
    snprintf(buf, sizeof(buf), "%u", n + io_extra);
    setenv("UV_THREADPOOL_SIZE", buf, 1);
    return n;
}

/* --filter: a record whose plugin calls never return (solve_timeout_s)
 * ends the run.  Its line is named; the stuck worker cannot be stopped,
 * and libuv's exit would wait for it, so we leave with _exit.  Result lines
 * already on stdout stay; later ones are never written. */
static void filter_hung(struct cairn_hang *h, const struct cairn_hang_report *r, size_t n)
{
    const struct cairn_log *log = h->data;
    size_t i;

    for (i = 0; i < n; i++)
        cairn_log(log, CAIRN_LOG_ERROR,
                  "--filter: line %llu: plugin %s has not returned for %.1f s "
                  "(solve_timeout_s %g); exiting",
                  (unsigned long long)r[i].line, r[i].plugin, r[i].seconds,
                  (double)h->timeout_ns / 1e9);
    fflush(NULL);
    cairn_exit_now(EXIT_RUNTIME);
}

/* The counts of a --filter run, one JSON line on stderr: stdout carries
 * only result lines, so a pipeline's consumer never sees it. */
static void print_filter_summary(const struct cairn_tally *t, const struct cairn_registry *reg,
                                 double wall_seconds)
{
    struct cairn_buf b = { 0 };

    if (cairn_filter_summary_render(t, reg, wall_seconds, &b) == 0) {
        fflush(stderr);
        cairn_write_all(STDERR_FILENO, b.data, b.len);
    }
    cairn_buf_free(&b);
}

static int run_filter(const struct cairn_config *cfg, const struct cairn_log *log,
                      const struct cairn_registry *reg, unsigned threads, int summary)
{
    uint64_t t0 = uv_hrtime();
    struct cairn_hang hang;
    struct cairn_record_ctx ctx = { .reg = reg,
                                    .default_limits = cfg->limits,
                                    .default_variant = cfg->default_variant,
                                    .hang = &hang };
    enum cairn_filter_side side = CAIRN_FILTER_READING;
    struct cairn_tally tally;
    struct cairn_pool pool;
    uv_loop_t loop;
    int rc;

    if ((rc = uv_loop_init(&loop)) != 0) {
        cairn_log(log, CAIRN_LOG_ERROR, "--filter cannot start its event loop: %s",
                  uv_strerror(rc));
        return rc;
    }
    if (cairn_tally_init(&tally, reg->n_plugins) != 0) {
        cairn_log(log, CAIRN_LOG_ERROR, "--filter cannot start: out of memory");
        uv_loop_close(&loop);
        return -ENOMEM;
    }
    if ((rc = cairn_hang_init(&hang, &loop, threads, filter_hung, (void *)log)) != 0) {
        cairn_log(log, CAIRN_LOG_ERROR, "--filter cannot start its hang watch: %s",
                  uv_strerror(rc));
        cairn_tally_free(&tally);
        uv_loop_close(&loop);
        return rc;
    }
    cairn_hang_set_timeout(&hang, cfg->solve_timeout_s);
    /* Two batches per worker: one being solved, one waiting, so workers
     * never idle while the loop thread reads. */
    rc = cairn_pool_init(&pool, &loop, 2 * (size_t)threads + 2, CAIRN_BATCH_BYTES);
    if (rc == 0)
        rc = cairn_filter_run(&loop, &pool, &ctx, cfg->max_line_bytes, 0, 1, &tally, &side);
    if (rc == -ENOMEM)
        cairn_log(log, CAIRN_LOG_ERROR, "--filter stopped: out of memory");
    else if (rc != 0)
        cairn_log(log, CAIRN_LOG_ERROR, "--filter stopped: %s: %s",
                  side == CAIRN_FILTER_WRITING ? "writing standard output"
                                               : "reading standard input",
                  uv_strerror(rc));
    cairn_log(log, CAIRN_LOG_DEBUG, "--filter: %llu records, %llu ok, %llu errors",
              (unsigned long long)tally.records, (unsigned long long)tally.ok,
              (unsigned long long)(tally.records - tally.ok));
    if (summary)
        print_filter_summary(&tally, reg, (double)(uv_hrtime() - t0) / 1e9);
    cairn_hang_close(&hang);
    uv_run(&loop, UV_RUN_DEFAULT); /* lets the timer's close complete */
    cairn_hang_free(&hang);
    cairn_pool_close(&pool);
    cairn_tally_free(&tally);
    uv_loop_close(&loop);
    return rc;
}

static int run_daemon(struct cairn_config *cfg, const struct cairn_log *log,
                      struct cairn_registry *reg, const struct cli *cli, const char *file,
                      unsigned threads)
{
    struct cairn_daemon *d;
    int rc, status;

    if (cfg->input_dir == NULL || cfg->output_dir == NULL) {
        cairn_say(CAIRN_LOG_ERROR, "cairnd",
                  "%s is not set (use --input/--output or the configuration file)",
                  cfg->input_dir == NULL ? "input_dir" : "output_dir");
        return EXIT_USAGE;
    }
    d = calloc(1, sizeof(*d));
    /* The daemon owns the configuration and plugins from here on. */
    if (d == NULL || (d->plugins = cairn_plugin_set_new(reg)) == NULL) {
        free(d);
        return EXIT_RUNTIME;
    }
    d->cfg = *cfg;
    memset(cfg, 0, sizeof(*cfg));
    d->log = *log;
    d->config_file = file;
    d->defaults = daemon_defaults;
    d->apply_overrides = apply_overrides;
    d->overrides_data = (void *)cli;
    d->once = cli->mode == MODE_ONCE;
    d->threads = threads;
    if (d->cfg.umask >= 0)
        umask((mode_t)d->cfg.umask);
    rc = cairn_daemon_run(d);
    /* The one place a daemon run's outcome becomes an exit status (main()
     * maps --filter's, filter_hung a hung one's). */
    status = rc < 0             ? (rc == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME)
             : d->runtime_error ? EXIT_RUNTIME
             : cli->mode == MODE_ONCE && d->final.jobs_failed ? EXIT_RUNTIME
                                                              : EXIT_OK;
    if (d->abandoned) {
        /* Workers still solve the abandoned jobs' batches, and libuv's
         * exit-time destructor would join them: leave without waiting.
         * The inputs stay in .cairn/active/ for the next start. */
        fflush(NULL);
        cairn_exit_now(status);
    }
    cairn_plugin_set_unref(d->plugins);
    cairn_config_free(&d->cfg);
    free(d);
    return status;
}

/* Descriptors 0-2 closed at exec would be handed out to the first files
 * and sockets we open, and then written to as stdout or closed by libuv
 * as if they were its own: put /dev/null in their place first.  0 or
 * -errno. */
static int fill_std_descriptors(void)
{
    int fd;

    for (fd = 0; fd <= 2; fd++) {
        int got;

        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        got = open("/dev/null", O_RDWR | O_NOCTTY);
        if (got < 0)
            return -errno;
        if (got != fd) { /* cannot be: lower ones were filled first */
            close(got);
            return -EBADF;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct cairn_registry reg = { 0 };
    struct cairn_config cfg;
    struct cairn_log log;
    const char *file = NULL;
    struct cli cli;
    int status = EXIT_OK;

    if (fill_std_descriptors() != 0)
        return EXIT_RUNTIME;
    if (parse_cli(argc, argv, &cli) != 0) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (cli.mode == MODE_HELP) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (cli.mode == MODE_VERSION) {
        printf("cairnd %s (plugin ABI %d.%d)\n", CAIRN_VERSION, CAIRN_PLUGIN_ABI_MAJOR,
               CAIRN_PLUGIN_ABI_MINOR);
        return EXIT_OK;
    }
    /* Before any thread exists: jansson's allocator is process-wide. */
    cairn_arena_install();
    if ((status = settle_config(&cli, &cfg, &file)) != 0)
        return status == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    cairn_log_init(&log, cfg.log_level);
    /* A vanished reader must surface as EPIPE, not kill us mid-write. */
    signal(SIGPIPE, SIG_IGN);
    /* An ignored SIGCHLD survives exec (a supervisor may leave it so) and
     * has the kernel reap our children: the plugin probe's verdicts could
     * not be read, and every file would pass unprobed. */
    signal(SIGCHLD, SIG_DFL);

    /* --check probes every file afresh: it is how an operator asks. */
    if ((status = cairn_plugin_set_load_registry(
             &reg, cfg.plugin_dir, cfg.default_variant, NULL,
             cli.mode == MODE_CHECK ? CAIRN_VERDICTS_RENEW : CAIRN_VERDICTS_USE, &log, "")) != 0) {
        status = status == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
        goto out;
    }
    switch (cli.mode) {
    case MODE_CHECK:
    case MODE_LIST:
        if ((cli.mode == MODE_CHECK ? print_check(&cfg, &reg) : print_plugins(&reg)) != 0) {
            cairn_say(CAIRN_LOG_ERROR, "cairnd", "out of memory listing the plugins");
            status = EXIT_RUNTIME;
        }
        break;
    case MODE_FILTER:
        status =
            run_filter(&cfg, &log, &reg, worker_threads(&cfg, 0), cli.summary || isatty(2)) == 0
                ? EXIT_OK
                : EXIT_RUNTIME;
        break;
    default:
        status = run_daemon(&cfg, &log, &reg, &cli, file, worker_threads(&cfg, CAIRN_IO_THREADS));
        break;
    }
out:
    cairn_registry_leave(&reg); /* exit unloads them */
    cairn_config_free(&cfg);
    return status;
}
