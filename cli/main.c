/* SPDX-License-Identifier: MIT */
/*
 * bsh: the command-line face of libbsh. Takes over its own process (see
 * process.h), parses arguments, runs the subcommand (one file each:
 * cmd_*.c) and returns its exit status; nothing else.
 */
#include "args.h"
#include "commands.h"
#include "output.h"
#include "process.h"

#include <stdio.h>

static const char usage[] =
    "Usage:\n"
    "  bsh run [OPTIONS] [--] COMMAND   run COMMAND with bash -c\n"
    "  bsh check [--json] [--] COMMAND  run only the pre-spawn guards\n"
    "  bsh patterns                     list the critical patterns\n"
    "  bsh mcp [OPTIONS]                serve the bash_run tool over MCP "
    "(stdio)\n"
    "  bsh doctor [--json]              what this machine offers for "
    "containment\n"
    "                                   and the sandbox\n"
    "  bsh --version | --help\n"
    "\n"
    "Options of run and mcp:\n"
    "  -C, --cwd DIR          working directory (default: inherit)\n"
    "  -e, --env NAME=VALUE   add a variable to the inherited environment\n"
    "                         (repeatable)\n"
    "  -t, --timeout MS       kill the command's whole process group after "
    "MS ms\n"
    "  -p, --pty              run in a 24x80 pseudo-terminal\n"
    "      --idle-timeout MS  end the run when it prints nothing for MS ms\n"
    "      --grace MS         on a timeout or signal, SIGTERM first and\n"
    "                         SIGKILL after MS ms (default: SIGKILL at once)\n"
    "  -l, --limit NAME=VALUE limit memory, pids, cpu (s), fsize or output\n"
    "                         (bytes take K, M, G); repeatable; memory=none\n"
    "                         and pids=none drop a sandbox's defaults\n"
    "      --containment HOW  auto (default), cgroup or subreaper\n"
    "      --sandbox[=MODE]   confine the run: write only in its directory,\n"
    "                         /tmp and $TMPDIR, no network, no privileges;\n"
    "                         MODE strict (default) or best-effort\n"
    "      --sandbox-write DIR  also writable (repeatable)\n"
    "      --sandbox-socket PATH  a Unix socket from outside the run that it\n"
    "                         may connect to (repeatable)\n"
    "      --sandbox-net      keep the network in the sandbox\n"
    "      --report           (run) the end report after the status\n"
    "  -i, --stdin            (run) bsh's stdin is the command's; with -p on\n"
    "                         a terminal: raw mode, size followed\n"
    "      --agent-env        (run) add the non-interactive profile (pagers,\n"
    "                         editors, prompts that never wait)\n"
    "      --no-agent-env     (mcp) leave it out (it is on by default)\n"
    "      --yield MS         (mcp) a call returns a run still going after\n"
    "                         MS ms (default 30000)\n"
    "      --max-runs N       (mcp) runs held at once (default 64)\n"
    "      --json             (run, check) one JSON object per line on "
    "stdout\n"
    "      --keep-logs        (mcp) keep the logs of cut replies at exit\n"
    "\n"
    "Exit status of run: the command's own; 128+N if it died of signal N;\n"
    "124 on timeout; 126 if a guard rejected it; 125 if bsh itself failed.\n"
    "check: 0 allowed, 1 rejected, 125 usage error.\n";

static int print_text(const char *text)
{
    fputs(text, stdout);
    return cli_stdout_status();
}

int main(int argc, char **argv)
{
    struct cli_args a;
    int status;
    unsigned closed = process_take_over();
    if (cli_parse(argc, argv, &a) < 0) {
        cli_error(a.error);
        status = EXIT_BSH_FAILED;
    } else if (closed & 2u) {
        /* Every command answers on stdout: none runs with nothing there
         * to take its output (and a run's bytes would be lost). */
        cli_error("cannot write to stdout: stdout is closed");
        status = EXIT_BSH_FAILED;
    } else {
        switch (a.command) {
        case CLI_RUN:
            status = cmd_run(&a);
            break;
        case CLI_CHECK:
            status = cmd_check(&a);
            break;
        case CLI_PATTERNS:
            status = cmd_patterns();
            break;
        case CLI_MCP:
            status = cmd_mcp(&a);
            break;
        case CLI_DOCTOR:
            status = cmd_doctor(&a);
            break;
        case CLI_VERSION:
            status = print_text("bsh " BSH_VERSION_STRING "\n");
            break;
        default:
            status = print_text(usage);
            break;
        }
    }
    cli_args_release(&a);
    return status;
}
