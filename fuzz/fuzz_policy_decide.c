/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: parse and decide a command. Nothing crashes, leaks or
 * hangs; a verdict is whole (the decision is the strictest of its
 * commands, the decider has it); anything opaque, a parse error included,
 * is never allowed, under a default of allow too.
 */
#include <bsh/bsh.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char rules[] =
    "prefix_rule(pattern = [[\"git\", \"ls\", \"echo\", \"cat\", \"make\"]])\n"
    "prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\n"
    "prefix_rule(pattern = [\"git\", \"push\"], decision = \"prompt\")\n"
    "prefix_rule(pattern = [\">\"], decision = \"allow\")\n"
    "prefix_rule(pattern = [[\"bash\", \"sh\", \"env\", \"xargs\", \"sudo\", "
    "\"find\", \"eval\", \"source\"]])\n";

static struct bsh_policy *policy(void)
{
    static struct bsh_policy *p;
    if (p == NULL && bsh_policy_parse(rules, sizeof(rules) - 1, "fuzz.rules",
                                      BSH_ALLOW, &p, NULL) != BSH_OK)
        abort();
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bsh_policy_verdict v;
    int d = bsh_policy_decide(policy(), (const char *)data, size, NULL, &v);
    if (d < 0)
        return 0;
    bool opaque = false;
    for (size_t i = 0; i < v.ncommands; i++) {
        const struct bsh_policy_command *c = &v.commands[i];
        if ((int)c->decision > d)
            abort(); /* an entry stricter than the whole */
        opaque |= c->reason != NULL;
        char text[256];
        bsh_policy_command_text(c, text, sizeof(text));
        bsh_policy_command_why(c, text, sizeof(text));
    }
    if (opaque && d == BSH_ALLOW)
        abort(); /* opaque is never allowed */
    if (v.ncommands > 0 &&
        (v.decider >= v.ncommands || (int)v.commands[v.decider].decision != d))
        abort();
    char msg[BSH_ERROR_MAX];
    bsh_policy_message(&v, false, msg, sizeof(msg));
    bsh_policy_verdict_free(&v);
    return 0;
}
