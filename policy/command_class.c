/* SPDX-License-Identifier: MIT */
/*
 * What a command word names, found once per simple command: a reserved
 * word, a neutral or special builtin, a shell, a wrapper, a program with
 * options that run programs... one binary search instead of a string
 * compare per list. The table is sorted in byte order (strcmp).
 */
#include "command_class.h"

#include <string.h>

static const struct {
    const char *name;
    unsigned bits;
} table[] = {{"!", C_RESERVED},
             {".", C_SOURCE | C_SPECIAL},
             {":", C_NEUTRAL | C_SPECIAL},
             {"[", C_EFFECT | C_NEUTRAL},
             {"[[", C_RESERVED},
             {"]]", C_RESERVED},
             {"alias", C_SCRIPT},
             {"ash", C_SHELL},
             {"bash", C_SHELL},
             {"break", C_NEUTRAL | C_SPECIAL},
             {"builtin", C_WRAPPER},
             {"busybox", C_BUSYBOX},
             {"cargo", C_RUNNING},
             {"case", C_RESERVED},
             {"cd", C_NEUTRAL},
             {"chrt", C_WRAPPER},
             {"command", C_WRAPPER},
             {"compgen", C_EFFECT},
             {"complete", C_EFFECT},
             {"continue", C_NEUTRAL | C_SPECIAL},
             {"coproc", C_RESERVED},
             {"dash", C_SHELL},
             {"declare", C_EFFECT | C_NEUTRAL},
             {"do", C_RESERVED},
             {"doas", C_WRAPPER},
             {"done", C_RESERVED},
             {"elif", C_RESERVED},
             {"else", C_RESERVED},
             {"enable", C_EFFECT},
             {"env", C_WRAPPER},
             {"esac", C_RESERVED},
             {"eval", C_SCRIPT | C_SPECIAL},
             {"exec", C_SPECIAL | C_WRAPPER},
             {"exit", C_NEUTRAL | C_SPECIAL},
             {"export", C_EFFECT | C_NEUTRAL | C_SPECIAL},
             {"false", C_NEUTRAL},
             {"fc", C_EFFECT},
             {"fi", C_RESERVED},
             {"find", C_FIND},
             {"for", C_RESERVED},
             {"function", C_RESERVED},
             {"getopts", C_EFFECT},
             {"git", C_GIT | C_RUNNING},
             {"go", C_RUNNING},
             {"hash", C_EFFECT},
             {"if", C_RESERVED},
             {"in", C_RESERVED},
             {"ionice", C_WRAPPER},
             {"ksh", C_SHELL},
             {"less", C_RUNNING},
             {"let", C_EFFECT},
             {"local", C_EFFECT | C_NEUTRAL},
             {"make", C_RUNNING},
             {"man", C_RUNNING},
             {"mapfile", C_EFFECT},
             {"mksh", C_SHELL},
             {"nice", C_WRAPPER},
             {"nohup", C_WRAPPER},
             {"npm", C_RUNNING},
             {"nvim", C_RUNNING},
             {"pdksh", C_SHELL},
             {"pkexec", C_WRAPPER},
             {"popd", C_NEUTRAL},
             {"printf", C_EFFECT},
             {"pushd", C_NEUTRAL},
             {"rbash", C_SHELL},
             {"read", C_EFFECT},
             {"readarray", C_EFFECT},
             {"readonly", C_EFFECT | C_NEUTRAL | C_SPECIAL},
             {"return", C_NEUTRAL | C_SPECIAL},
             {"rg", C_RUNNING},
             {"rsync", C_RUNNING},
             {"runuser", C_WRAPPER},
             {"scp", C_RUNNING},
             {"sed", C_RUNNING},
             {"select", C_RESERVED},
             {"set", C_EFFECT | C_NEUTRAL | C_SPECIAL},
             {"setsid", C_WRAPPER},
             {"sftp", C_RUNNING},
             {"sh", C_SHELL},
             {"shift", C_NEUTRAL | C_SPECIAL},
             {"shopt", C_EFFECT | C_NEUTRAL},
             {"sort", C_RUNNING},
             {"source", C_SOURCE | C_SPECIAL},
             {"ssh", C_RUNNING},
             {"stdbuf", C_WRAPPER},
             {"su", C_WRAPPER},
             {"sudo", C_WRAPPER},
             {"tar", C_RUNNING},
             {"taskset", C_WRAPPER},
             {"test", C_EFFECT | C_NEUTRAL},
             {"then", C_RESERVED},
             {"time", C_WRAPPER},
             {"timeout", C_WRAPPER},
             {"times", C_SPECIAL},
             {"toybox", C_BUSYBOX},
             {"trap", C_SCRIPT | C_SPECIAL},
             {"true", C_NEUTRAL},
             {"typeset", C_EFFECT | C_NEUTRAL},
             {"umask", C_NEUTRAL},
             {"unset", C_EFFECT | C_NEUTRAL | C_SPECIAL},
             {"until", C_RESERVED},
             {"vi", C_RUNNING},
             {"vim", C_RUNNING},
             {"wait", C_EFFECT | C_NEUTRAL},
             {"while", C_RESERVED},
             {"xargs", C_WRAPPER},
             {"yash", C_SHELL},
             {"zip", C_RUNNING},
             {"zsh", C_SHELL},
             {"{", C_RESERVED},
             {"}", C_RESERVED}};

unsigned pol_command_class(const char *name)
{
    size_t lo = 0, hi = sizeof(table) / sizeof(table[0]);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(name, table[mid].name);
        if (cmp == 0)
            return table[mid].bits;
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}
