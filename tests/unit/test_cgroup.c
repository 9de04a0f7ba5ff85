/* SPDX-License-Identifier: MIT */
/*
 * The cgroup files bsh writes and reads, against a directory the test
 * makes in place of a cgroup: what needs a controller this machine may
 * not have enabled (memory.max, pids.max, memory.swap.max, memory.events,
 * memory.peak) is checked here without root and without the controllers.
 * Nothing is spawned and nothing is killed: the kernel's side of it is
 * test_contain's.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char run_dir[512];

/* Writes `text` to `name` in the run's directory, as the kernel would
 * show it. */
static void put(const char *name, const char *text)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", run_dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t n = write(fd, text, strlen(text));
        (void)n;
        close(fd);
    }
}

static const char *get(const char *name)
{
    static char text[128];
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", run_dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
    if (fd >= 0)
        close(fd);
    text[n > 0 ? n : 0] = '\0';
    return text;
}

static void remove_all(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[600];
    while (d != NULL && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            if (unlink(path) < 0)
                remove_all(path);
        }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

int main(void)
{
    char parent[] = "/tmp/bsh-cgroup-test-XXXXXX";
    ok(mkdtemp(parent) != NULL, "a directory stands in for the parent cgroup");
    struct bsh__cgroup cg;
    bsh__cgroup_init(&cg);
    char why[BSH_ERROR_MAX];
    ok(bsh__cgroup_make(&cg, parent, why, sizeof(why)) == 0,
       "the run's cgroup is made under a given parent");
    snprintf(run_dir, sizeof(run_dir), "%s/%s", parent, cg.name);
    struct stat st;
    ok(stat(run_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
           strncmp(cg.name, "bsh-", 4) == 0,
       "named bsh-PID-N");

    struct bsh_limits l = {.memory_bytes = 64 << 20, .pids = 50};
    int rc = bsh__cgroup_set_limits(&cg, &l, why, sizeof(why));
    ok(rc < 0, "no controllers: the limits are refused");
    is_str(why,
           "cannot enforce the memory limit: the cgroup v2 memory controller "
           "is not enabled for the run's cgroup",
           "and the reason names the limit and the controller");

    put("cgroup.controllers", "cpu io memoryx\n");
    cg.controllers_read = false; /* read once a run: a new case */
    rc = bsh__cgroup_set_limits(&cg, &(struct bsh_limits){.memory_bytes = 1},
                                why, sizeof(why));
    ok(rc < 0,
       "a controller is matched as a whole word (memoryx is not memory)");

    /* The limit files as empty files: a plain file is not rewritten as a
     * whole by a write, as a cgroup file is. */
    put("memory.max", "");
    put("memory.swap.max", "");
    put("pids.max", "");
    put("cgroup.controllers", "cpu io memory\n");
    cg.controllers_read = false; /* read once a run: a new case */
    rc = bsh__cgroup_set_limits(&cg, &l, why, sizeof(why));
    ok(rc < 0 && strstr(why, "the pids limit") != NULL,
       "memory enabled, pids not: the pids limit is refused");

    put("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
    cg.controllers_read = false; /* read once a run: a new case */
    put("memory.max", "");
    put("memory.swap.max", "");
    rc = bsh__cgroup_set_limits(&cg, &l, why, sizeof(why));
    ok(rc == 0, "both controllers enabled: the limits are set");
    is_str(get("memory.max"), "67108864", "memory.max holds the bytes");
    is_str(get("memory.swap.max"), "0", "memory.swap.max is 0: no way around");
    is_str(get("pids.max"), "50", "pids.max holds the count");
    ok(!cg.poolable, "a cgroup with limits never serves another run");

    put("memory.events", "low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n"
                         "oom_group_kill 0\n");
    is_int(bsh__cgroup_stat(&cg, "memory.events", "oom_kill"), 1,
           "memory.events: oom_kill, what names the memory limit");
    is_int(bsh__cgroup_stat(&cg, "memory.events", "oom"), 2,
           "a key is not mistaken for a longer one (oom vs oom_kill)");
    is_int(bsh__cgroup_stat(&cg, "memory.events", "max"), 7, "max");
    is_int(bsh__cgroup_stat(&cg, "memory.events", "swap"), -1,
           "a missing key is -1");
    put("pids.events", "max 3\n");
    is_int(bsh__cgroup_stat(&cg, "pids.events", "max"), 3,
           "pids.events: max, what names the pids limit");
    put("memory.peak", "123456789\n");
    is_int(bsh__cgroup_value(&cg, "memory.peak"), 123456789, "memory.peak");
    is_int(bsh__cgroup_value(&cg, "memory.current"), -1, "a missing file: -1");
    put("cpu.stat", "usage_usec 5000\nuser_usec 3000\nsystem_usec 2000\n"
                    "nice_usec 0\n");
    int64_t cpu[2];
    bsh__cgroup_cpu(&cg, cpu);
    ok(cpu[0] == 3000 && cpu[1] == 2000, "cpu.stat: user and system time");
    put("cgroup.procs", "4000001\n4000002\n4000003\n");
    is_int(bsh__cgroup_count(&cg), 3, "cgroup.procs: the processes counted");
    put("cgroup.events", "populated 0\nfrozen 0\n");
    is_int(bsh__cgroup_stat(&cg, "cgroup.events", "populated"), 0,
           "cgroup.events: populated");

    close(cg.dir);
    close(cg.parent);
    remove_all(parent);
    ok(stat(parent, &st) < 0, "the test's directory is gone");
    return tap_done();
}
