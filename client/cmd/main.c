/*
 * main.c - `cairn`, the producer's and evaluator's command: parse the
 * command line, settle the configuration the way cairnd does (built-in
 * defaults, then the file, then --input/--output), run one subcommand,
 * and turn its outcome into the exit status.  Only this file exits.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "gen.h"
#include "judge.h"
#include "report.h"
#include "submit.h"
#include "version.h"

#ifndef CAIRN_SYSCONF_FILE
#define CAIRN_SYSCONF_FILE "/etc/cairn/cairn.json"
#endif

/* 0 ok; 1 a job failed, or a runtime error; 2 usage, configuration or
 * bad input; 3 submit --wait timed out. */
enum {
    EXIT_OK = 0,
    EXIT_FAILED = 1,
    EXIT_USAGE = 2,
    EXIT_TIMEOUT = 3,
    EXIT_JUDGE_ERROR = 4 /* judge: cairn's own error, not the candidate's */
};

static const char usage_text[] =
    "usage: cairn [-c FILE] [--input DIR] [--output DIR] COMMAND [ARGS]\n"
    "\n"
    "  cairn submit [--wait] [--timeout S] [--fail-on-mismatch] [--name NAME] [--no-check]\n"
    "               FILE...|-\n"
    "  cairn wait [--timeout S] [--fail-on-mismatch] NAME...\n"
    "  cairn status [--json]\n"
    "  cairn retry NAME...|--failed\n"
    "  cairn results NAME [--join]\n"
    "  cairn report OUTPUT_DIR [JOB...] [--html FILE] [--json] [--mismatches N|all]\n"
    "               [--fail-on-mismatch]\n"
    "  cairn report RESULTS_FILE... [--inputs CORPUS]... [--html FILE] [--json] ...\n"
    "  cairn gen VARIANT --count N --seed S [--size A..B] [--limits extended] [--traps]\n"
    "            [--plugins DIR]\n"
    "  cairn judge VARIANT [--count N] [--seed S] [--traps] [--size A..B] [--limits extended]\n"
    "            [--timeout S] [--json] [--html FILE] [--no-sandbox] -- CMD [ARGS...]\n"
    "\n"
    "  -c, --config FILE  cairnd's configuration file (default " CAIRN_SYSCONF_FILE " if present)\n"
    "  --input DIR        the spool (input_dir)\n"
    "  --output DIR       cairnd's output directory (output_dir)\n"
    "  --wait             submit: wait for each job's summary and print its outcome\n"
    "  --timeout S        submit, wait: stop waiting after S seconds (implies --wait)\n"
    "  --name NAME        submit: the job's name (one FILE); refused if it exists\n"
    "  --no-check         submit: skip the check that each line is a JSON object\n"
    "  --json             status, report: one JSON object instead of text\n"
    "  --failed           retry: every failed job\n"
    "  --join             results: each input line beside its result\n"
    "  --html FILE        report: also write a self-contained HTML page\n"
    "  --mismatches N|all report: mismatches shown per variant (default 10)\n"
    "  --inputs CORPUS    report: the records of a results file, joined by line (one per\n"
    "                     RESULTS_FILE, in order): positions, sizes, smallest failing inputs\n"
    "  --fail-on-mismatch report, submit --wait, wait: exit 1 when a given answer differs\n"
    "  --count N          gen: write N records\n"
    "  --seed S           gen: the seed (0..2^64-1); the same arguments give the same bytes\n"
    "  --size A..B        gen: each input's size (a row's length; n itself for stone-game-iv\n"
    "                     and stone-removal-game), within the limits (default: the smallest\n"
    "                     up to 100; stone-game-iv 10^5 (extended 10^6), stone-removal-game all)\n"
    "  --limits L         gen: official (default) or extended\n"
    "  --traps            gen: bias the corpus to the game's traps (ties, parity, baits...)\n"
    "  --plugins DIR      gen: the solver plugins that answer (default plugin_dir)\n"
    "  --no-sandbox       judge: run the candidate outside bubblewrap (bwrap)\n"
    "                     judge takes gen's options, --timeout S per run of the candidate\n"
    "                     (default 10), --json for one object, --html FILE for a page\n"
    "  --version          print the version\n"
    "  -h, --help         this text\n"
    "\n"
    "A NAME ending in .jsonl is a job file's name, anything else a job's name.\n"
    "Exit status: 0 success; 1 a job failed (submit --wait, wait) or a runtime error;\n"
    "2 usage, configuration or bad input (unknown job, missing or unwritable spool,\n"
    "a file that is not JSON lines); 3 submit --wait or wait timed out.  judge: 0 every answer "
    "right; 1 an answer wrong or\n"
    "the candidate failed (crashed, hung, garbage, too few lines); 2 usage; 4 cairn's error.\n";

enum {
    O_INPUT = 256,
    O_OUTPUT,
    O_WAIT,
    O_TIMEOUT,
    O_NAME,
    O_NO_CHECK,
    O_JSON,
    O_FAILED,
    O_JOIN,
    O_HTML,
    O_MISMATCHES,
    O_INPUTS,
    O_FAIL_ON_MISMATCH,
    O_COUNT,
    O_SEED,
    O_SIZE,
    O_LIMITS,
    O_TRAPS,
    O_PLUGINS,
    O_NO_SANDBOX,
    O_VERSION,
    O_HELP,
    O_END
};

/* Which subcommands each option belongs to (NULL: all of them). */
static const char *const owner[O_END - O_INPUT] = {
    [O_WAIT - O_INPUT] = "submit",
    [O_TIMEOUT - O_INPUT] = "submit wait judge",
    [O_NAME - O_INPUT] = "submit",
    [O_NO_CHECK - O_INPUT] = "submit",
    [O_JSON - O_INPUT] = "status report judge",
    [O_FAILED - O_INPUT] = "retry",
    [O_MISMATCHES - O_INPUT] = "report",
    [O_INPUTS - O_INPUT] = "report",
    [O_FAIL_ON_MISMATCH - O_INPUT] = "report submit wait",
    [O_JOIN - O_INPUT] = "results",
    [O_HTML - O_INPUT] = "report judge",
    [O_COUNT - O_INPUT] = "gen judge",
    [O_SEED - O_INPUT] = "gen judge",
    [O_SIZE - O_INPUT] = "gen judge",
    [O_LIMITS - O_INPUT] = "gen judge",
    [O_TRAPS - O_INPUT] = "gen judge",
    [O_PLUGINS - O_INPUT] = "gen judge",
    [O_NO_SANDBOX - O_INPUT] = "judge",
};

struct cli {
    const char *config;
    const char *input;
    const char *output;
    int wait;
    double timeout; /* < 0: none */
#define CAIRN_MAX_TIMEOUT_S 1e9
    const char *name;
    int no_check;
    int json;
    int failed;
    int join;
    const char *html;
    size_t mismatches;
    char **inputs; /* --inputs, in order (argv's strings) */
    size_t n_inputs;
    int fail_on_mismatch;
    struct cairn_gen_opts gen; /* gen's options; variant is its operand */
    int no_sandbox;            /* judge */
    int version;
    int help;
    const char *command;
    char **args; /* the command's operands */
    size_t n_args;
    int used[O_END - O_INPUT];
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
    fputs("cairn: ", stderr);
    fprintf(stderr, fmt, a, b);
    fputs("\n(cairn --help lists the commands and options)\n", stderr);
    return -EINVAL;
}

/* 1 when command is one of the space-separated words in list. */
static int owns(const char *list, const char *command)
{
    size_t n = strlen(command);
    const char *p;

    for (p = list; (p = strstr(p, command)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static int parse_cli(int argc, char **argv, struct cli *cli)
{
    static const struct option opts[] = { { "config", required_argument, NULL, 'c' },
                                          { "input", required_argument, NULL, O_INPUT },
                                          { "output", required_argument, NULL, O_OUTPUT },
                                          { "wait", no_argument, NULL, O_WAIT },
                                          { "timeout", required_argument, NULL, O_TIMEOUT },
                                          { "name", required_argument, NULL, O_NAME },
                                          { "no-check", no_argument, NULL, O_NO_CHECK },
                                          { "json", no_argument, NULL, O_JSON },
                                          { "failed", no_argument, NULL, O_FAILED },
                                          { "join", no_argument, NULL, O_JOIN },
                                          { "html", required_argument, NULL, O_HTML },
                                          { "mismatches", required_argument, NULL, O_MISMATCHES },
                                          { "inputs", required_argument, NULL, O_INPUTS },
                                          { "fail-on-mismatch", no_argument, NULL,
                                            O_FAIL_ON_MISMATCH },
                                          { "count", required_argument, NULL, O_COUNT },
                                          { "seed", required_argument, NULL, O_SEED },
                                          { "size", required_argument, NULL, O_SIZE },
                                          { "limits", required_argument, NULL, O_LIMITS },
                                          { "traps", no_argument, NULL, O_TRAPS },
                                          { "plugins", required_argument, NULL, O_PLUGINS },
                                          { "no-sandbox", no_argument, NULL, O_NO_SANDBOX },
                                          { "version", no_argument, NULL, O_VERSION },
                                          { "help", no_argument, NULL, O_HELP },
                                          { NULL, 0, NULL, 0 } };
    const char *names[O_END - O_INPUT] = { 0 };
    char *end;
    int c, i;

    memset(cli, 0, sizeof(*cli));
    cli->timeout = -1;
    cli->mismatches = CAIRN_REPORT_MISMATCHES;
    /* --inputs may come once per operand: room for every argument. */
    if ((cli->inputs = calloc((size_t)argc, sizeof(*cli->inputs))) == NULL)
        return usage_error("out of memory%s%s", "", "");
    /* Options may come before or after the command (getopt permutes). */
    opterr = 0; /* getopt's own messages name argv[0] in full, with no hint */
    while ((c = getopt_long(argc, argv, ":c:h", opts, &i)) != -1) {
        if (c >= O_INPUT && c < O_END) {
            cli->used[c - O_INPUT] = 1;
            names[c - O_INPUT] = opts[i].name;
        }
        switch (c) {
        case 'c': cli->config = optarg; break;
        case O_INPUT: cli->input = optarg; break;
        case O_OUTPUT: cli->output = optarg; break;
        case O_WAIT: cli->wait = 1; break;
        case O_TIMEOUT:
            errno = 0;
            cli->timeout = strtod(optarg, &end);
            if (errno != 0 || end == optarg || *end != '\0' || !isfinite(cli->timeout) ||
                cli->timeout < 0)
                return usage_error("--timeout %s: expected a number of seconds%s", optarg, "");
            /* Past this the timer's milliseconds overflow and it fires at
             * once: a wait of decades is a wait without --timeout. */
            if (cli->timeout > CAIRN_MAX_TIMEOUT_S)
                return usage_error("--timeout %s: at most %s seconds (about 31 years); leave "
                                   "--timeout out to wait without a limit",
                                   optarg, "1000000000");
            cli->wait = 1;
            break;
        case O_NAME: cli->name = optarg; break;
        case O_NO_CHECK: cli->no_check = 1; break;
        case O_JSON: cli->json = 1; break;
        case O_FAILED: cli->failed = 1; break;
        case O_JOIN: cli->join = 1; break;
        case O_HTML: cli->html = optarg; break;
        case O_MISMATCHES:
            if (strcmp(optarg, "all") == 0) {
                cli->mismatches = CAIRN_REPORT_MISMATCHES_ALL;
                break;
            }
            errno = 0;
            {
                unsigned long long n = strtoull(optarg, &end, 10);

                if (errno != 0 || end == optarg || *end != '\0' || optarg[0] == '-' ||
                    n > 1000000000ULL)
                    return usage_error("--mismatches %s: expected a count (0 to 10^9) or "
                                       "\"all\"%s",
                                       optarg, "");
                cli->mismatches = (size_t)n;
            }
            break;
        case O_INPUTS: cli->inputs[cli->n_inputs++] = optarg; break;
        case O_FAIL_ON_MISMATCH: cli->fail_on_mismatch = 1; break;
        /* gen checks its own values, against the game's limits. */
        case O_COUNT: cli->gen.count = optarg; break;
        case O_SEED: cli->gen.seed = optarg; break;
        case O_SIZE: cli->gen.size = optarg; break;
        case O_LIMITS: cli->gen.limits = optarg; break;
        case O_TRAPS: cli->gen.traps = 1; break;
        case O_PLUGINS: cli->gen.plugins = optarg; break;
        case O_NO_SANDBOX: cli->no_sandbox = 1; break;
        case O_VERSION: cli->version = 1; break;
        case 'h':
        case O_HELP: cli->help = 1; break;
        default: { /* ':' or '?' */
            char what[256];

            cairn_option_error(c, optopt, argv[optind - 1], what, sizeof(what));
            return usage_error("%s%s", what, "");
        }
        }
    }
    if (cli->help || cli->version)
        return 0;
    if (optind >= argc)
        return usage_error("no command given%s%s", "", "");
    cli->command = argv[optind];
    cli->args = argv + optind + 1;
    cli->n_args = (size_t)(argc - optind - 1);
    for (i = 0; i < O_END - O_INPUT; i++)
        if (cli->used[i] && owner[i] != NULL && !owns(owner[i], cli->command))
            return usage_error("--%s is not an option of \"%s\"", names[i], cli->command);
    return 0;
}

/* When this cairn runs from its build tree, its default plugin_dir is the
 * plugins built beside it, as cairnd's is (config.h).  Before the file is
 * read.  0 or -ENOMEM. */
static int default_plugin_dir(struct cairn_config *cfg)
{
#if defined(CAIRN_BUILD_EXE) && defined(CAIRN_BUILD_PLUGIN_DIR)
    return cairn_config_default_when_uninstalled(cfg, CAIRN_BUILD_EXE, CAIRN_BUILD_PLUGIN_DIR);
#else
    (void)cfg;
    return 0;
#endif
}

/* cairnd's rules: defaults, the file (-c, else the system file when it
 * exists), then the command line. */
static int settle_config(struct cairn_client *cl, const struct cli *cli, char **in_origin,
                         char **out_origin)
{
    const char *file = cli->config;
    char *err = NULL;
    struct stat st;
    int rc;

    if (cairn_config_defaults(&cl->cfg) != 0 || default_plugin_dir(&cl->cfg) != 0)
        return -ENOMEM;
    if (file == NULL && stat(CAIRN_SYSCONF_FILE, &st) == 0)
        file = CAIRN_SYSCONF_FILE;
    rc = file != NULL ? cairn_config_load_file(&cl->cfg, file, &err) : 0;
    if (rc == 0 && cli->input != NULL)
        rc = cairn_config_set_option(&cl->cfg, "input_dir", "--input", cli->input, &err);
    if (rc == 0 && cli->output != NULL)
        rc = cairn_config_set_option(&cl->cfg, "output_dir", "--output", cli->output, &err);
    if (rc != 0) {
        rc = cairn_client_fail(cl, -EINVAL, "%s", err ? err : "out of memory");
        free(err);
        return rc;
    }
    cl->config_file = file;
    *in_origin = cli->input ? strdup("from --input")
                            : cairn_asprintf("input_dir in %s", file ? file : "no file");
    *out_origin = cli->output ? strdup("from --output")
                              : cairn_asprintf("output_dir in %s", file ? file : "no file");
    cl->in_origin = *in_origin;
    cl->out_origin = *out_origin;
    return *in_origin && *out_origin ? 0 : -ENOMEM;
}

static int run_submit(struct cairn_client *cl, const struct cli *cli, int *wait_exit)
{
    struct cairn_submit_opts o = {
        .name = cli->name, .no_check = cli->no_check, .files = cli->args, .n_files = cli->n_args
    };
    struct cairn_submitted *jobs = NULL;
    struct cairn_wait_result r;
    size_t i, stdin_uses = 0;
    int rc;

    if (cli->n_args == 0)
        return usage_error("submit: name at least one FILE, or - for standard input%s%s", "", "");
    for (i = 0; i < cli->n_args; i++)
        stdin_uses += strcmp(cli->args[i], "-") == 0;
    if (stdin_uses > 1)
        return usage_error("submit: - (standard input) can be given once%s%s", "", "");
    if (cli->name != NULL && cli->n_args != 1)
        return usage_error("submit: --name %s names one job, but %s files were given", cli->name,
                           cli->n_args > 1 ? "several" : "no");
    if ((rc = cairn_client_open_input(cl, 1)) != 0)
        return rc;
    /* The summary can only be awaited where it will appear: check first,
     * not after the job is in. */
    if (cli->wait && (rc = cairn_client_open_output(cl)) != 0)
        return rc;
    if ((rc = cairn_client_submit(cl, &o, &jobs)) != 0)
        return rc;
    if (cli->wait) {
        rc = cairn_client_wait(cl, jobs, cli->n_args, cli->timeout, isatty(STDERR_FILENO), &r);
        *wait_exit = r.timed_out                             ? EXIT_TIMEOUT
                     : r.failed                              ? EXIT_FAILED
                     : cli->fail_on_mismatch && r.mismatched ? EXIT_FAILED
                                                             : EXIT_OK;
    }
    cairn_submitted_free(jobs, cli->n_args);
    return rc;
}

/* judge's operands: VARIANT, then the candidate's command (after "--",
 * which getopt has taken away). */
static int run_judge(struct cairn_client *cl, const struct cli *cli, int *judge_exit)
{
    struct cairn_judge_opts o = { .count = cli->gen.count,
                                  .seed = cli->gen.seed,
                                  .size = cli->gen.size,
                                  .limits = cli->gen.limits,
                                  .plugins = cli->gen.plugins,
                                  .html = cli->html,
                                  .timeout = cli->timeout,
                                  .traps = cli->gen.traps,
                                  .json = cli->json,
                                  .no_sandbox = cli->no_sandbox };
    int failed = 0, rc;

    if (cli->n_args < 2)
        return usage_error("judge: name a VARIANT and the candidate: cairn judge VARIANT "
                           "[OPTIONS] -- CMD [ARGS...]%s%s",
                           "", "");
    o.variant = cli->args[0];
    o.cmd = cli->args + 1;
    o.n_cmd = cli->n_args - 1;
    rc = cairn_cmd_judge(cl, &o, &failed);
    *judge_exit = failed ? EXIT_FAILED : EXIT_OK;
    return rc;
}

static int run(struct cairn_client *cl, const struct cli *cli, int *wait_exit)
{
    const char *cmd = cli->command;

    if (strcmp(cmd, "submit") == 0)
        return run_submit(cl, cli, wait_exit);
    if (strcmp(cmd, "wait") == 0) {
        struct cairn_wait_result r;
        int rc;

        if (cli->n_args == 0)
            return usage_error("wait: name the jobs to wait for%s%s", "", "");
        rc = cairn_cmd_wait(cl, cli->args, cli->n_args, cli->timeout, isatty(STDERR_FILENO), &r);
        *wait_exit = r.timed_out                             ? EXIT_TIMEOUT
                     : r.failed                              ? EXIT_FAILED
                     : cli->fail_on_mismatch && r.mismatched ? EXIT_FAILED
                                                             : EXIT_OK;
        return rc;
    }
    if (strcmp(cmd, "status") == 0) {
        if (cli->n_args > 0)
            return usage_error("status takes no operand (got \"%s\")%s", cli->args[0], "");
        return cairn_cmd_status(cl, cli->json);
    }
    if (strcmp(cmd, "retry") == 0) {
        if ((cli->n_args == 0) == !cli->failed)
            return usage_error("retry: name the failed jobs, or give --failed for all of "
                               "them%s%s",
                               "", "");
        return cairn_cmd_retry(cl, cli->args, cli->n_args, cli->failed);
    }
    if (strcmp(cmd, "results") == 0) {
        if (cli->n_args != 1)
            return usage_error("results: name one job%s%s", "", "");
        return cairn_cmd_results(cl, cli->args[0], cli->join);
    }
    if (strcmp(cmd, "report") == 0) {
        if (cli->n_args == 0)
            return usage_error("report: name the OUTPUT_DIR to report on%s%s", "", "");
        {
            struct cairn_gen_solver *plugins;
            struct cairn_report_solver solver;
            struct cairn_report_opts o = { .html = cli->html,
                                           .json = cli->json,
                                           .mismatches = cli->mismatches,
                                           .fail_on_mismatch = cli->fail_on_mismatch,
                                           .input_given = cli->input != NULL,
                                           .inputs = cli->inputs,
                                           .n_inputs = cli->n_inputs,
                                           .solver = &solver };
            int rc;

            cairn_report_solver_plugins(&solver, &plugins);
            rc = cairn_cmd_report(cl, cli->args[0], cli->args + 1, cli->n_args - 1, &o);
            if (rc == 1) { /* --fail-on-mismatch: the report is out, the answers wrong */
                *wait_exit = EXIT_FAILED;
                rc = 0;
            }
            return rc;
        }
    }
    if (strcmp(cmd, "gen") == 0) {
        struct cairn_gen_opts o = cli->gen;

        if (cli->n_args != 1)
            return usage_error("gen: name one VARIANT (a game's name or its LeetCode number)%s%s",
                               "", "");
        o.variant = cli->args[0];
        return cairn_cmd_gen(cl, &o);
    }
    if (strcmp(cmd, "judge") == 0)
        return run_judge(cl, cli, wait_exit);
    return usage_error("unknown command \"%s\"%s", cmd, "");
}

static int exit_code(int rc)
{
    switch (rc) {
    case 0: return EXIT_OK;
    case -ETIMEDOUT: return EXIT_TIMEOUT;
    case -EINVAL:
    case -ENOENT:
    case -ENOTDIR:
    case -EISDIR: /* a directory named where a file is wanted (--html DIR) */
    case -EACCES:
    case -EPERM:
    case -EROFS:
    case -EEXIST: return EXIT_USAGE;
    default: return EXIT_FAILED;
    }
}

int main(int argc, char **argv)
{
    struct cairn_client cl = { .in_fd = -1, .out_fd = -1 };
    char *in_origin = NULL, *out_origin = NULL;
    int rc, wait_exit = EXIT_OK;
    struct cli cli;

    /* parse_cli() allocates cli.inputs even when it fails: freed on every
     * way out (the leak checker's exit status would hide a usage error's). */
    rc = parse_cli(argc, argv, &cli);
    if (rc != 0 || cli.help || cli.version) {
        if (rc == 0 && cli.help)
            fputs(usage_text, stdout);
        else if (rc == 0)
            printf("cairn %s\n", CAIRN_VERSION);
        free(cli.inputs);
        return rc != 0 ? EXIT_USAGE : EXIT_OK;
    }
    /* An ignored SIGCHLD survives exec and has the kernel reap our
     * children: neither the plugin probe's verdicts nor a judged
     * candidate's exit could be read. */
    signal(SIGCHLD, SIG_DFL);
    rc = settle_config(&cl, &cli, &in_origin, &out_origin);
    if (rc == 0)
        rc = run(&cl, &cli, &wait_exit);
    /* A write that failed earlier (submit flushes each name as it goes)
     * leaves only the stream's error flag: fflush() then has nothing to
     * write and says 0.  And closing is the last chance to hear of it. */
    if (fflush(stdout) != 0 && rc == 0)
        rc = cairn_client_fail(&cl, -errno, "cannot write to standard output: %s", strerror(errno));
    else if (ferror(stdout) && rc == 0)
        rc = cairn_client_fail(&cl, -EIO,
                               "cannot write to standard output (a write failed "
                               "earlier; what it held is lost)");
    if (fclose(stdout) != 0 && rc == 0)
        rc = cairn_client_fail(&cl, -errno, "cannot write to standard output: %s", strerror(errno));
    if (rc != 0 && rc != -EINVAL && cl.msg == NULL)
        fprintf(stderr, "cairn: %s\n", strerror(-rc));
    else if (rc != 0 && cl.msg != NULL)
        fprintf(stderr, "cairn: %s\n", cl.msg);
    cairn_client_close(&cl);
    free(in_origin);
    free(cli.inputs);
    free(out_origin);
    if (rc != 0 && cli.command != NULL && strcmp(cli.command, "judge") == 0 &&
        exit_code(rc) == EXIT_FAILED)
        return EXIT_JUDGE_ERROR;
    return rc != 0 ? exit_code(rc) : wait_exit;
}
