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
    "  bsh check [--json] [--] COMMAND  run only the pre-spawn guards (and\n"
    "                                   the command policy, when one is set)\n"
    "  bsh patterns                     list the critical patterns\n"
    "  bsh mcp [OPTIONS]                serve the bash_run tool over MCP "
    "(stdio)\n"
    "  bsh doctor [--json]              what this machine offers for "
    "containment\n"
    "                                   and the sandbox\n"
    "  bsh session show|reset FILE      what a session file holds; empty it\n"
    "  bsh policy explain [--json] [--] COMMAND\n"
    "                                   the policy's decision for each simple\n"
    "                                   command, and the rule behind it\n"
    "  bsh policy check FILE...         load rule files, check their examples\n"
    "  bsh --version | --help\n"
    "\n"
    "Options of run and mcp (and of the subcommands named):\n";

static const char usage_tail[] =
    "\n"
    "Exit status of run: the command's own; 128+N if it died of signal N;\n"
    "124 on timeout; 126 if a guard or the policy refused it; 125 if bsh\n"
    "itself failed (a bad policy file included).\n"
    "check and policy explain: 0 allowed, 1 rejected, 3 needs approval, 2 a\n"
    "bad policy file, 125 usage error. policy check: 0, or 2.\n";

static int print_text(const char *text)
{
    fputs(text, stdout);
    return cli_stdout_status();
}

static int print_help(void)
{
    char options[8192];
    size_t n = cli_options_help(options, sizeof(options));
    fputs(usage, stdout);
    fwrite(options, 1, n < sizeof(options) ? n : sizeof(options) - 1, stdout);
    fputs(usage_tail, stdout);
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
        case CLI_SESSION:
            status = cmd_session(&a);
            break;
        case CLI_POLICY_EXPLAIN:
            status = cmd_policy_explain(&a);
            break;
        case CLI_POLICY_CHECK:
            status = cmd_policy_check(&a);
            break;
        case CLI_VERSION:
            status = print_text("bsh " BSH_VERSION_STRING "\n");
            break;
        default:
            status = print_help();
            break;
        }
    }
    cli_args_release(&a);
    return status;
}
