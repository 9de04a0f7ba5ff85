/* SPDX-License-Identifier: MIT */
/*
 * Sessions (SPEC 9) through the library: what is carried byte for byte,
 * each way a run can end, the channel that no output can reach, the
 * bound, a busy session, a gone directory, files and their checks.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct bsh_session *sess;

/* Runs `command` in the session; `r` gets everything, `*state` what
 * became of the state. */
static void srun(const char *command, int64_t timeout_ms, int64_t grace_ms,
                 struct result *r, enum bsh_session_state *state, char *note,
                 size_t note_len)
{
    struct bsh_run_opts o;
    bsh_run_opts_init(&o);
    o.command = command;
    o.timeout_ms = timeout_ms;
    o.grace_ms = grace_ms;
    o.session = sess;
    struct bsh_stream *s = NULL;
    memset(r, 0, sizeof(*r));
    r->guard_rc = bsh_run(&o, &s, NULL);
    if (s != NULL)
        drain(s, r);
    *state = bsh_stream_session_state(s);
    if (note != NULL)
        snprintf(note, note_len, "%s", bsh_stream_session_note(s));
    bsh_stream_free(s);
}

/* Runs `command` in the session with one variable of the call's. */
static void run_with_env(const char *command, const char *name,
                         const char *value, struct result *r)
{
    struct bsh_run_opts o;
    bsh_run_opts_init(&o);
    struct bsh_env_var env[] = {{name, value}};
    o.session = sess;
    o.env = env;
    o.env_count = 1;
    o.command = command;
    run_collect(&o, r);
}

/* The command's stdout, as a string. */
static const char *out_of(const struct result *r)
{
    static char buf[1 << 16];
    size_t n = r->out_len < sizeof(buf) - 1 ? r->out_len : sizeof(buf) - 1;
    memcpy(buf, r->out != NULL ? (const char *)r->out : "", n);
    buf[n] = '\0';
    return buf;
}

static bool holds(enum bsh_session_kind kind, const char *name)
{
    for (size_t i = 0; i < bsh_session_count(sess, kind); i++)
        if (strcmp(bsh_session_name(sess, kind, i), name) == 0)
            return true;
    return false;
}

static void fresh(void)
{
    bsh_session_free(sess);
    sess = NULL;
    bsh_session_new("/tmp", NULL, &sess);
}

static void test_carried(void)
{
    struct result r;
    enum bsh_session_state st;
    fresh();
    srun("cd /usr && export E1=exported && P='a\nb\"c$d\\e'$'\\001\\377' && "
         "declare -a arr=(1 'two words') && declare -A as=([k]=v ['a b']=2) "
         "&& declare -i n=5 && declare -l lo=ABC && f() { echo \"fn $1\"; } "
         "&& alias say='echo said' && shopt -s extglob && umask 027",
         10000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED, "a normal end saves");
    result_free(&r);
    srun("pwd; echo \"$E1\"; printf %s \"$P\" | od -An -c | tr -s ' '; "
         "declare -p arr as n lo; f x; say it; case abc in @(x|a)bc) echo "
         "extglob;; esac; umask; "
         "env | grep -c '^E1=exported$'",
         10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r),
           "/usr\nexported\n a \\n b \" c $ d \\ e 001 377\n"
           "declare -a arr=([0]=\"1\" [1]=\"two words\")\n"
           "declare -A as=([k]=\"v\" [\"a b\"]=\"2\" )\n"
           "declare -i n=\"5\"\ndeclare -l lo=\"abc\"\nfn x\nsaid it\n"
           "extglob\n"
           "0027\n1\n",
           "directory, variables of every kind, functions, aliases, extglob "
           "at parse time, umask, exported");
    result_free(&r);
    srun("cd /; cd - >/dev/null; pwd; echo \"$OLDPWD\"", 10000, 0, &r, &st,
         NULL, 0);
    is_str(out_of(&r), "/usr\n/\n", "OLDPWD: cd - works");
    result_free(&r);
    ok(holds(BSH_SESSION_FUNCTIONS, "f") && holds(BSH_SESSION_ALIASES, "say") &&
           holds(BSH_SESSION_VARIABLES, "P") &&
           !holds(BSH_SESSION_VARIABLES, "BASHPID") &&
           !holds(BSH_SESSION_VARIABLES, "PWD"),
       "the session lists names, not bash's own variables");
}

static void test_ends(void)
{
    struct result r;
    enum bsh_session_state st;
    char note[128];
    fresh();
    srun("A=1; trap 'echo own trap $?' EXIT; exit 3", 10000, 0, &r, &st, note,
         sizeof(note));
    ok(st == BSH_SESSION_SAVED && result_exit(&r, 3) &&
           strcmp(out_of(&r), "own trap 3\n") == 0,
       "exit N: saved, the command's EXIT trap ran with $?");
    result_free(&r);
    srun("set -e; B=2; false; echo not", 10000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED, "a set -e failure saves");
    result_free(&r);
    srun("echo \"$A$B\"; trap -p; [[ -o errexit ]] && echo errexit", 10000, 0,
         &r, &st, NULL, 0);
    is_str(out_of(&r), "12\n", "both saved; traps and errexit are not carried");
    result_free(&r);
    srun("C=3; sleep 30", 300, 0, &r, &st, note, sizeof(note));
    ok(st == BSH_SESSION_UNCHANGED &&
           strcmp(note, "killed by SIGKILL at the timeout") == 0,
       "SIGKILL at the timeout: unchanged, and why");
    result_free(&r);
    srun("C=3; sleep 30", 300, 2000, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED, "SIGTERM in the grace: saved");
    result_free(&r);
    srun("D=4; exec sleep 0", 10000, 0, &r, &st, note, sizeof(note));
    is_str(note, "bash was replaced by exec", "exec: unchanged, and why");
    result_free(&r);
    srun("echo \"${C-unset} ${D-unset}\"", 10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r), "3 unset\n", "what was not saved is not there");
    result_free(&r);
}

static void test_channel(void)
{
    struct result r;
    enum bsh_session_state st;
    fresh();
    srun("printf 'declare -x EVIL=1\\0\\0end\\0'; echo 'alias x=y' >&2; "
         "exec >&- 2>&-; for fd in $(seq 3 40); do eval \"exec $fd>&-\"; "
         "done; GOOD=1",
         10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && holds(BSH_SESSION_VARIABLES, "GOOD") &&
           !holds(BSH_SESSION_VARIABLES, "EVIL"),
       "output that looks like state, closed stdout and fds 3-40: saved, "
       "nothing injected");
    result_free(&r);
    srun("echo junk >&241; LOST=1", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_UNCHANGED && !holds(BSH_SESSION_VARIABLES, "LOST"),
       "a command that writes into the channel loses its change, nothing "
       "else");
    result_free(&r);
    srun("export LD_PRELOAD=x PS4=y PROMPT_COMMAND=z BASH_ENV=w ENV=v", 10000,
         0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && !holds(BSH_SESSION_VARIABLES, "LD_PRELOAD") &&
           !holds(BSH_SESSION_VARIABLES, "PS4") &&
           !holds(BSH_SESSION_VARIABLES, "PROMPT_COMMAND") &&
           !holds(BSH_SESSION_VARIABLES, "BASH_ENV") &&
           !holds(BSH_SESSION_VARIABLES, "ENV"),
       "the deny list is never saved");
    result_free(&r);
    double t0 = mono_ms();
    srun("sleep 20 >/dev/null 2>&1 & BG=1", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && mono_ms() - t0 < 5000,
       "a background process that holds the channel does not delay the end");
    result_free(&r);
}

/* What a review of the bash side found, each kept as a case. */
static void test_bash_side(void)
{
    struct result r;
    enum bsh_session_state st;
    fresh();
    srun("set -e; trap 'echo cleanup $?' EXIT; false", 10000, 0, &r, &st, NULL,
         0);
    ok(st == BSH_SESSION_SAVED && strcmp(out_of(&r), "cleanup 1\n") == 0,
       "set -e with a failing status: the command's EXIT trap still runs");
    result_free(&r);
    srun("( trap 'echo sub' EXIT; true ); x=$(trap 'echo cs' EXIT; echo v); "
         "echo $x",
         10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r), "sub\nv cs\n", "EXIT traps of subshells are bash's");
    result_free(&r);
    run_with_env("IFS=,; set -u; unset CALLV; AFTER_IFS=1", "CALLV", "1", &r);
    result_free(&r);
    srun("declare -A h=([example.com]=1 [a/b]=2); alias -- -dash='echo d'; "
         "x=1; set -a",
         10000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED,
           "bare keys of an associative array and an alias named -dash");
    result_free(&r);
    srun("echo $AFTER_IFS; declare -p x h", 10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r),
           "1\ndeclare -- x=\"1\"\ndeclare -A h=([example.com]=\"1\" "
           "[a/b]=\"2\" )\n",
           "IFS and nounset do not break the save; allexport does not export "
           "what is restored");
    result_free(&r);
    srun("GLOBIGNORE=zz; shopt -u dotglob", 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    srun("shopt -q dotglob && echo on || echo off; unset GLOBIGNORE", 10000, 0,
         &r, &st, NULL, 0);
    is_str(out_of(&r), "off\n",
           "an option the command set after GLOBIGNORE holds in the next run");
    result_free(&r);
    srun("function a=b { :; }; KEPT=1", 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    srun("echo $KEPT; NEXT=2", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && strcmp(out_of(&r), "1\n") == 0,
       "a function bash cannot read back does not stop the saves");
    result_free(&r);
}

/* A session that holds a bit of everything a stateless run must keep,
 * see or leave alone: a directory, the umask, an option, non-exported
 * variables bash consults (PATH, GLOBIGNORE) and others it must not need,
 * an exported value bash cannot take from its environment, a function
 * and an alias. */
static void fill_for_stateless(const char *dir)
{
    struct result r;
    enum bsh_session_state st;
    char command[1024];
    snprintf(command, sizeof(command),
             "cd %s && mkdir -p bin && printf '#!/bin/sh\necho found\n' > "
             "bin/hello && chmod +x bin/hello && : > a.c && : > a.o && "
             ": > taken && umask 077 && set -o noclobber && "
             "export -n PATH && PATH=$PWD/bin:$PATH && GLOBIGNORE='*.o' && "
             "SECRET=kept && export ML=$'two\nlines' && "
             "fn() { echo fn-ran; } && alias al='echo alias-ran'",
             dir);
    srun(command, 10000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED, "stateless: the session is filled");
    result_free(&r);
}

/* A stateless `mv` of the session's directory `from` to `to`: the next
 * run must start in `to`. */
static void moves_along(const char *from, const char *to, const char *what)
{
    struct result r;
    enum bsh_session_state st;
    char command[320], want[160];
    snprintf(command, sizeof(command), "mv '%s' '%s'", from, to);
    srun(command, 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    srun("pwd -P", 10000, 0, &r, &st, NULL, 0);
    snprintf(want, sizeof(want), "%s\n", to);
    is_str(out_of(&r), want, what);
    result_free(&r);
}

/* Commands that can neither read nor change the shell's state run with
 * a lean restore and no save: what they see and what stays. */
static void test_stateless(void)
{
    struct result r;
    enum bsh_session_state st;
    char dir[] = "/tmp/bsh-stateless-XXXXXX", path[64];
    if (mkdtemp(dir) == NULL)
        abort();
    fresh();
    fill_for_stateless(dir);
    srun("ls /proc/self/fd", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && strstr(out_of(&r), "241") == NULL,
       "a stateless run has no channel to save on");
    result_free(&r);
    srun("ls /proc/self/fd; : $SECRET", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && strstr(out_of(&r), "241") != NULL,
       "one that expands a variable has");
    result_free(&r);
    srun("hello && printenv ML && /bin/pwd && echo *", 10000, 0, &r, &st, NULL,
         0);
    char want[256];
    snprintf(want, sizeof(want), "found\ntwo\nlines\n%s\na.c bin taken\n", dir);
    ok(st == BSH_SESSION_SAVED && strcmp(out_of(&r), want) == 0,
       "a stateless run finds commands in the session's own PATH, exports "
       "its variables, starts in its directory and globs with its "
       "GLOBIGNORE");
    result_free(&r);
    srun("touch made; echo x > taken", 10000, 0, &r, &st, NULL, 0);
    snprintf(path, sizeof(path), "%s/made", dir);
    struct stat sb;
    ok(!result_exit(&r, 0) && stat(path, &sb) == 0 &&
           (sb.st_mode & 0777) == 0600,
       "it runs with the session's umask and noclobber");
    result_free(&r);
    run_with_env("printenv CALLV", "CALLV", "call", &r);
    is_str(out_of(&r), "call\n", "a call's env reaches a stateless run");
    result_free(&r);
    srun("declare -u UP", 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    run_with_env("printenv UP", "UP", "abc", &r);
    is_str(out_of(&r), "ABC\n",
           "a call's variable keeps the attributes the session gave its name");
    result_free(&r);
    srun("sh -c 'kill -KILL $$'", 10000, 0, &r, &st, NULL, 0);
    ok(st == BSH_SESSION_SAVED && result_exit(&r, 137),
       "bash stays the parent of a stateless run's last command");
    result_free(&r);
    srun("sleep 30", 300, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_UNCHANGED,
           "SIGKILL at the timeout: unchanged, as for any run");
    result_free(&r);
    srun("echo \"$SECRET ${CALLV-unset} $(fn) $(al 2>&1)\"; type -t al", 10000,
         0, &r, &st, NULL, 0);
    is_str(out_of(&r), "kept unset fn-ran alias-ran\nalias\n",
           "after stateless runs the variables, function and alias are all "
           "there, and the call's env was not kept");
    result_free(&r);
    srun("fn; al", 10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r), "fn-ran\nalias-ran\n",
           "a function or alias as a command name is never stateless");
    result_free(&r);
    char moved[64], odd[96], command[320];
    snprintf(moved, sizeof(moved), "%s-moved", dir);
    snprintf(odd, sizeof(odd), "%s (deleted)", moved);
    moves_along(dir, moved,
                "a stateless run that moves its directory takes the session "
                "along");
    moves_along(moved, odd, "also to a name that ends \" (deleted)\"");
    snprintf(command, sizeof(command), "rm -rf '%s'", odd);
    if (system(command) != 0)
        abort();
}

/* A stateless first run makes the state the session's own, as any save
 * does: a file keeps it, not the environment of whoever loads it. */
static void test_stateless_first_run(void)
{
    char one[] = "FOO=1", two[] = "FOO=2", file[] = "/tmp/bsh-sl-XXXXXX";
    char *env1[] = {one, NULL}, *env2[] = {two, NULL};
    int fd = mkstemp(file);
    if (fd < 0)
        abort();
    close(fd);
    unlink(file);
    bsh_session_free(sess);
    bsh_session_new("/tmp", env1, &sess);
    struct result r;
    enum bsh_session_state st;
    srun("true", 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    char why[256];
    ok(bsh_session_save(sess, file, why, sizeof(why)) == BSH_OK,
       "stateless first run: saved to a file");
    bsh_session_free(sess);
    bsh_session_new("/tmp", env2, &sess);
    ok(bsh_session_load(sess, file, why, sizeof(why)) == BSH_OK,
       "and loaded by a session of another environment");
    srun("echo $FOO", 10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r), "1\n", "which runs with the state the first run had");
    result_free(&r);
    unlink(file);
}

static void test_bound(void)
{
    struct result r;
    enum bsh_session_state st;
    char note[128];
    fresh();
    srun("V=$(head -c 1048576 /dev/zero | tr '\\0' '\\001'); export "
         "BIG=$(head -c 200000 /dev/zero | tr '\\0' x)",
         20000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED,
           "a 1 MiB value of control bytes fits the bound");
    result_free(&r);
    srun("echo ${#V} ${#BIG}; /bin/true || echo E2BIG", 20000, 0, &r, &st, NULL,
         0);
    is_str(out_of(&r), "1048576 200000\nE2BIG\n",
           "both round-trip; a 200 KB export is too big for execve");
    result_free(&r);
    srun("unset BIG; W=$(head -c 5000000 /dev/zero | tr '\\0' y)", 20000, 0, &r,
         &st, note, sizeof(note));
    ok(st == BSH_SESSION_UNCHANGED && strstr(note, "over the 4 MiB bound"),
       "over the bound: unchanged, and why");
    printf("# %s\n", note);
    result_free(&r);
}

static void test_busy_and_dirs(void)
{
    struct result r;
    enum bsh_session_state st;
    char note[128];
    fresh();
    struct bsh_run_opts o;
    bsh_run_opts_init(&o);
    o.command = "sleep 0.3; HELD=1";
    o.session = sess;
    struct bsh_stream *held = NULL, *second = NULL;
    ok(bsh_run(&o, &held, NULL) == BSH_OK, "a run attaches");
    o.command = "true";
    is_int(bsh_run(&o, &second, NULL), BSH_EBUSY, "a second one is busy");
    bsh_stream_detach_session(held);
    srun("NEXT=1", 10000, 0, &r, &st, NULL, 0);
    is_int(st, BSH_SESSION_SAVED, "a detached run leaves the session free");
    result_free(&r);
    memset(&r, 0, sizeof(r));
    drain(held, &r);
    ok(bsh_stream_session_state(held) == BSH_SESSION_DETACHED &&
           !holds(BSH_SESSION_VARIABLES, "HELD"),
       "a detached run's end saves nothing");
    bsh_stream_free(held);
    result_free(&r);
    char dir[] = "/tmp/bsh-session-XXXXXX";
    ok(mkdtemp(dir) != NULL, "a directory to remove");
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "cd %s", dir);
    srun(cmd, 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    rmdir(dir);
    struct bsh_stream *s = NULL;
    o.command = "pwd";
    bsh_run(&o, &s, NULL);
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    ok(strcmp(out_of(&r), "/tmp\n") == 0 &&
           bsh_stream_session_missing_dir(s) != NULL &&
           strcmp(bsh_stream_session_missing_dir(s), dir) == 0,
       "a gone directory: the run starts in the base, and says so");
    bsh_stream_free(s);
    result_free(&r);
    o.command = "echo $FOO";
    struct bsh_env_var env[] = {{"FOO", "call"}};
    o.env = env;
    o.env_count = 1;
    o.cwd = "/";
    run_collect(&o, &r);
    is_str(out_of(&r), "call\n", "a call's env applies to its run");
    result_free(&r);
    srun("echo \"${FOO-unset}\"; pwd", 10000, 0, &r, &st, note, sizeof(note));
    is_str(out_of(&r), "unset\n/tmp\n",
           "a call's env and cwd are not saved when left unchanged");
    result_free(&r);
    o.command = "FOO=changed";
    run_collect(&o, &r);
    result_free(&r);
    srun("echo $FOO", 10000, 0, &r, &st, NULL, 0);
    is_str(out_of(&r), "changed\n", "one the command changed is saved");
    result_free(&r);
    o.command = "rm -rf /";
    o.env = NULL;
    o.env_count = 0;
    struct bsh_error err;
    ok(bsh_run(&o, &s, &err) == BSH_EGUARD && !bsh_session_busy(sess),
       "a guard rejection changes nothing");
}

static void test_modes(void)
{
    struct result r;
    fresh();
    struct bsh_run_opts o;
    bsh_run_opts_init(&o);
    o.session = sess;
    o.timeout_ms = 10000;
    o.pty = true;
    o.command = "cd /tmp; PTYVAR=1";
    run_collect(&o, &r);
    result_free(&r);
    o.pty = false;
    o.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    o.command = "echo $PTYVAR; pwd; cd /usr; SANDVAR=2";
    run_collect(&o, &r);
    is_str(out_of(&r), "1\n/tmp\n",
           "a PTY run saves; a sandboxed one starts "
           "from it");
    result_free(&r);
    o.sandbox.mode = BSH_SANDBOX_OFF;
    o.command = "echo $SANDVAR; pwd";
    run_collect(&o, &r);
    is_str(out_of(&r), "2\n/usr\n", "a sandboxed run saves");
    result_free(&r);
}

static void test_files(void)
{
    char path[] = "/tmp/bsh-session-file-XXXXXX", why[512];
    int fd = mkstemp(path);
    close(fd);
    fresh();
    struct result r;
    enum bsh_session_state st;
    srun("cd /var; K=$'x\\ny'; g() { :; }", 10000, 0, &r, &st, NULL, 0);
    result_free(&r);
    ok(bsh_session_save(sess, path, why, sizeof(why)) == BSH_OK,
       "saved to a file");
    struct stat sb;
    stat(path, &sb);
    is_int(sb.st_mode & 0777, 0600, "mode 0600");
    struct bsh_session *back = NULL;
    bsh_session_new(NULL, NULL, &back);
    ok(bsh_session_load(back, path, why, sizeof(why)) == BSH_OK &&
           strcmp(bsh_session_cwd(back), "/var") == 0 &&
           bsh_session_bytes(back) == bsh_session_bytes(sess),
       "loaded back whole");
    chmod(path, 0666);
    ok(bsh_session_load(back, path, why, sizeof(why)) == BSH_EINVAL &&
           strstr(why, "group or others") != NULL,
       "a file others can write is refused");
    chmod(path, 0600);
    fd = open(path, O_WRONLY | O_APPEND);
    ok(write(fd, "x", 1) == 1, "a byte appended");
    close(fd);
    ok(bsh_session_load(back, path, why, sizeof(why)) == BSH_EINVAL &&
           strstr(why, "not a bsh session") != NULL,
       "a damaged file is refused");
    fd = open(path, O_WRONLY | O_TRUNC);
    ok(write(fd, "declare -x A=1\n", 15) == 15, "a foreign file");
    close(fd);
    ok(bsh_session_load(back, path, why, sizeof(why)) == BSH_EINVAL,
       "a file that is not a session is refused");
    truncate(path, 0);
    ok(bsh_session_load(back, path, why, sizeof(why)) == BSH_OK,
       "an empty file is a new session");
    bsh_session_free(back);
    unlink(path);
}

int main(void)
{
    test_carried();
    test_ends();
    test_channel();
    test_bash_side();
    test_stateless();
    test_stateless_first_run();
    test_bound();
    test_busy_and_dirs();
    test_modes();
    test_files();
    bsh_session_free(sess);
    return tap_done();
}
