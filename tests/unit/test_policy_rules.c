/* SPDX-License-Identifier: MIT */
/*
 * Rule files: every message of a bad file at its exact line and column,
 * a codex rules file that loads unchanged, match/not_match examples,
 * escapes, and how patterns match words (basename, host_executable,
 * `.`/source, dynamic words), through the public bsh_policy_* API.
 */
#include "../harness/tap.h"

#include <bsh/bsh.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The error of `text` as a file named "f.rules" ("" when it loads). */
static const char *load_error(const char *text)
{
    static struct bsh_error err;
    struct bsh_policy *p = NULL;
    int rc = bsh_policy_parse(text, strlen(text), "f.rules", BSH_ASK, &p, &err);
    bsh_policy_free(p);
    if (rc == BSH_OK)
        return "";
    return err.text_err;
}

static void test_messages(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"prefix_rule(pattern = [\"a\"]) @",
         "policy: f.rules:1:30: unexpected character '@'"},
        {"prefix_rule(pattern = [\"a\"])\n\x01",
         "policy: f.rules:2:1: unexpected character '\\x01'"},
        {"prefix_rule(pattern = [\"a\"]) 7",
         "policy: f.rules:1:30: unexpected character '7'"},
        {"prefix_rule(pattern = [\"a\n\"])",
         "policy: f.rules:1:24: unterminated string"},
        {"prefix_rule(pattern = ['a",
         "policy: f.rules:1:24: unterminated string"},
        {"prefix_rule(pattern = [\"a\\q\"])",
         "policy: f.rules:1:26: invalid escape '\\q' in string"},
        {"prefix_rule(pattern = [\"\\x4\"])",
         "policy: f.rules:1:25: invalid escape '\\x' in string"},
        {"prefix_rule(pattern = [\"a\"]",
         "policy: f.rules:1:28: unexpected end of file, expected ')'"},
        {"prefix_rule(pattern = [\"a\"",
         "policy: f.rules:1:27: unexpected end of file, expected ']'"},
        {"prefix_rule(pattern = [\"a\"] \"b\")",
         "policy: f.rules:1:29: expected ',', found '\"b\"'"},
        {"prefix_rule(pattern [\"a\"])",
         "policy: f.rules:1:21: expected '=', found '['"},
        {"prefix_rule pattern",
         "policy: f.rules:1:13: expected '(', found 'pattern'"},
        {"prefix_rule(pattern = [\"a\"], justification = \"a very long string "
         "that is cut\" x)",
         "policy: f.rules:1:79: expected ',', found 'x'"},
        {"prefix_rule(pattern = [\"a\", \"b\"] decision = \"allow\")",
         "policy: f.rules:1:34: expected ',', found 'decision'"},
        {"prefix_rule(pattern = [\"a\"], decision = \"allow\", justification = "
         "\"x\" \"yyyyyyyyyyyyyyyyyyyyyyyyyy\")",
         "policy: f.rules:1:70: expected ',', found '\"yyyyyyyyyyyyyyyyyyy'"},
        {"prefix_rule([\"a\"])",
         "policy: f.rules:1:13: positional argument: write NAME = VALUE"},
        {"\n\n  allow_rule(pattern = [\"a\"])",
         "policy: f.rules:3:3: unknown function allow_rule"},
        {"prefix_rule(pattern = [\"a\"], bogus = \"x\")",
         "policy: f.rules:1:30: unknown argument bogus of prefix_rule"},
        {"prefix_rule(pattern = [\"a\"], pattern = [\"b\"])",
         "policy: f.rules:1:30: duplicate argument pattern"},
        {"prefix_rule(decision = \"allow\")",
         "policy: f.rules:1:1: prefix_rule needs pattern"},
        {"host_executable(paths = [\"/bin/git\"])",
         "policy: f.rules:1:1: host_executable needs name"},
        {"x = 1\nhost_executable(name = \"git\")",
         "policy: f.rules:1:1: unknown function x"},
        {"host_executable(name = \"git\")",
         "policy: f.rules:1:1: host_executable needs paths"},
        {"prefix_rule(pattern = [])",
         "policy: f.rules:1:23: pattern must be a non-empty list"},
        {"prefix_rule(pattern = \"git\")",
         "policy: f.rules:1:23: pattern must be a non-empty list"},
        {"prefix_rule(pattern = [\"git\", []])",
         "policy: f.rules:1:31: pattern element must be a string or a "
         "non-empty list of strings"},
        {"prefix_rule(pattern = [\"git\", [[\"x\"]]])",
         "policy: f.rules:1:31: pattern element must be a string or a "
         "non-empty list of strings"},
        {"prefix_rule(pattern = [\"a\"], decision = \"deny\")",
         "policy: f.rules:1:41: decision must be \"allow\", \"prompt\" or "
         "\"forbidden\", not \"deny\""},
        {"prefix_rule(pattern = [\"git\"], match = [\"git | x\"])",
         "policy: f.rules:1:41: example is not a plain command: git | x"},
        {"prefix_rule(pattern = [\"git\"], match = [\"git $HOME\"])",
         "policy: f.rules:1:41: example is not a plain command: git $HOME"},
        {"prefix_rule(pattern = [\"git\", \"push\"], match = [[\"git\", "
         "\"pull\"]])",
         "policy: f.rules:1:49: example does not match this rule: [\"git\", "
         "\"pull\"]"},
        {"prefix_rule(pattern = [\"git\"],\n  not_match = [\"ls\", \"git "
         "log\"])",
         "policy: f.rules:2:22: not_match example matches this rule: git log"},
        {"host_executable(name = \"git\", paths = [\"/usr/bin/git\", "
         "\"bin/git\"])",
         "policy: f.rules:1:56: host_executable path must be absolute or start "
         "with ~/: bin/git"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        is_str(load_error(cases[i].text), cases[i].want, cases[i].text);
}

static void test_file_errors(void)
{
    struct bsh_policy_file f = {.path = "/nonexistent/policy.rules"};
    struct bsh_policy_load_opts o = {.files = &f, .nfiles = 1};
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    is_int(bsh_policy_load(&o, &p, &err), BSH_EPOLICYFILE,
           "a missing file is a bad policy file");
    is_str(err.text_err,
           "policy: /nonexistent/policy.rules: cannot read: No such file or "
           "directory",
           "its message");
    const char bad[] = "prefix_rule(pattern = [\"a\"])\n\xc3\x28";
    struct bsh_policy *q = NULL;
    is_int(bsh_policy_parse(bad, sizeof(bad) - 1, "u.rules", BSH_ASK, &q, &err),
           BSH_EPOLICYFILE, "bad UTF-8");
    is_str(err.text_err, "policy: u.rules: not valid UTF-8 at byte 29",
           "at its byte offset");
    ok(q == NULL, "no policy comes of it");
}

static void test_codex_file(void)
{
    /* A codex-style rules file, with comments, both quotes, alternatives,
     * trailing commas, a semicolon and a network_rule. */
    const char *text = "# codex rules\n"
                       "prefix_rule(\n"
                       "    pattern = [\"git\", [\"status\", \"diff\"]],\n"
                       "    decision = \"allow\",\n"
                       "    match = [\"git status\", [\"git\", \"diff\", "
                       "\"--stat\"], 'git   diff'],\n"
                       "    not_match = [\"git push\", \"gitk\"],\n"
                       ");\n"
                       "prefix_rule(pattern = ['rm'], decision = 'forbidden', "
                       "justification = \"no \\\"rm\\\" here\\n\")\n"
                       "network_rule(host = \"example.com\", protocol = "
                       "\"https\", decision = \"allow\")\n"
                       "host_executable(name = \"git\", paths = "
                       "[\"/usr/bin/git\", \"~/bin/git\"])\n"
                       "prefix_rule(pattern = [\"\\x6c\\163\"])  # \\x and "
                       "octal escapes: ls\n";
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    int rc =
        bsh_policy_parse(text, strlen(text), "codex.rules", BSH_ASK, &p, &err);
    is_int(rc, BSH_OK, "a codex rules file loads");
    if (rc != BSH_OK) {
        diag("%s", err.text_err);
        return;
    }
    struct bsh_policy_verdict v;
    is_int(bsh_policy_decide(p, "git status", 10, NULL, &v), BSH_ALLOW,
           "git status: allow");
    is_int((int)v.commands[0].rule->line, 2, "by the rule at line 2");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide(p, "ls -l", 5, NULL, &v), BSH_ALLOW,
           "escapes decode (ls)");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide(p, "rm x", 4, NULL, &v), BSH_DENY, "rm: deny");
    is_str(v.commands[0].rule->justification, "no \"rm\" here\n",
           "the justification decoded");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide(p, "/usr/bin/git diff", 17, NULL, &v), BSH_ALLOW,
           "a host_executable path is allowed");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide(p, "./git diff", 10, NULL, &v), BSH_ASK,
           "another path to git is not");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide(p, "./rm x", 6, NULL, &v), BSH_DENY,
           "forbidden matches by basename");
    bsh_policy_verdict_free(&v);
    bsh_policy_free(p);
}

static void test_warnings(void)
{
    const char *text =
        "prefix_rule(pattern = [\"a\"])\nnetwork_rule(host = \"h\")\n"
        "prefix_rule(pattern = [\"b\"], decision = \"allow\")\n";
    FILE *f = fopen("test_policy_rules.tmp", "w");
    if (f == NULL) {
        ok(false, "a temporary file");
        return;
    }
    fputs(text, f);
    fclose(f);
    struct bsh_policy_file file = {.path = "test_policy_rules.tmp",
                                   .kind = BSH_POLICY_FILE_UNTRUSTED};
    size_t rules = 0, examples = 0;
    struct bsh_policy_load_opts o = {.files = &file,
                                     .nfiles = 1,
                                     .default_decision = BSH_ASK,
                                     .rules_count = &rules,
                                     .examples_count = &examples};
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    is_int(bsh_policy_load(&o, &p, &err), BSH_OK,
           "an untrusted project file loads");
    is_int((int)rules, 2, "both prefix_rule calls counted");
    struct bsh_policy_verdict v;
    is_int(bsh_policy_decide(p, "b", 1, NULL, &v), BSH_ASK,
           "its allow rules are dropped");
    bsh_policy_verdict_free(&v);
    bsh_policy_free(p);
    remove("test_policy_rules.tmp");
}

/* bsh_policy_decide_run(): the run's directory and environment count. */
static void test_decide_run(void)
{
    const char *text =
        "prefix_rule(pattern = [\"echo\"], decision = \"allow\")\n"
        "prefix_rule(pattern = [\">\"], decision = \"allow\")\n"
        "prefix_rule(pattern = [\">\", \"/etc/hosts\"], decision = "
        "\"forbidden\")\n"
        "prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\n";
    struct bsh_policy *p = NULL;
    struct bsh_error err;
    if (bsh_policy_parse(text, strlen(text), "run.rules", BSH_ASK, &p, &err) !=
        BSH_OK) {
        ok(false, "run.rules loads");
        diag("%s", err.text_err);
        return;
    }
    struct bsh_policy_verdict v;
    const char *cmd = "echo x > hosts";
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, "/etc", NULL,
                                 0, &v),
           BSH_DENY, "a relative target is taken from cwd");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, "/tmp", NULL,
                                 0, &v),
           BSH_ALLOW, "and elsewhere is another file");
    bsh_policy_verdict_free(&v);
    cmd = "echo x > ssl/../hosts";
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, "/etc", NULL,
                                 0, &v),
           BSH_DENY, ".. folded");
    bsh_policy_verdict_free(&v);
    cmd = "echo x > ../../x";
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, NULL, NULL, 0,
                                 &v),
           BSH_ASK, "climbing from a place not known: not known");
    bsh_policy_verdict_free(&v);
    struct bsh_env_var env[] = {{"FOO", "1"}, {"LD_PRELOAD", "/x.so"}};
    cmd = "echo hi";
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, NULL, env, 1,
                                 &v),
           BSH_ALLOW, "an unlisted variable in env: as before");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, NULL, env, 2,
                                 &v),
           BSH_ASK, "a listed one: opaque");
    is_str(v.ncommands > 0 ? v.commands[v.decider].reason : NULL,
           "assignment to LD_PRELOAD", "its reason");
    bsh_policy_verdict_free(&v);
    cmd = "rm x";
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, NULL, env, 2,
                                 &v),
           BSH_DENY, "a deny stays a deny");
    bsh_policy_verdict_free(&v);
    is_int(bsh_policy_decide_run(p, NULL, cmd, strlen(cmd), NULL, NULL, env, 2,
                                 NULL),
           BSH_DENY, "without a verdict too");
    bsh_policy_free(p);
}

int main(void)
{
    test_messages();
    test_file_errors();
    test_codex_file();
    test_warnings();
    test_decide_run();
    return tap_done();
}
