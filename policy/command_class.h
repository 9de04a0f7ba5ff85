/* SPDX-License-Identifier: MIT */
/* What a command word names (command_class.c). */
#ifndef BSH_POLICY_COMMAND_CLASS_H
#define BSH_POLICY_COMMAND_CLASS_H

enum {
    C_RESERVED = 1u << 0, /* a reserved word where a name goes */
    C_NEUTRAL = 1u << 1,  /* cd, export, true...: allowed unless a rule */
    C_SHELL = 1u << 2,    /* bash, sh, dash...: -c STRING is a script */
    C_SPECIAL = 1u << 3,  /* POSIX special builtins (before functions) */
    C_SCRIPT = 1u << 4,   /* eval, trap, alias: strings that are scripts */
    C_EFFECT = 1u << 5,   /* builtins that assign or run strings */
    C_RUNNING = 1u << 6,  /* programs with options that run programs */
    C_GIT = 1u << 7,      /* git */
    C_BUSYBOX = 1u << 8,  /* busybox, toybox: APPLET ARGS */
    C_WRAPPER = 1u << 9,  /* runs a command it is given (wrappers.h) */
    C_FIND = 1u << 10,    /* find */
    C_SOURCE = 1u << 11,  /* source, . */
};

/* Builtins and keywords are found by a name as written; programs by a
 * basename too. */
#define C_BUILTIN_ONLY                                                    \
    ((unsigned)C_RESERVED | C_NEUTRAL | C_SPECIAL | C_SCRIPT | C_EFFECT | \
     C_SOURCE)

/* The classes of command word `name` (0: none). */
unsigned pol_command_class(const char *name);

#endif
