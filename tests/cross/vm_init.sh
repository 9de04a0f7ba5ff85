#!/bin/sh
# PID 1 of tests/cross/'s arm64 VM (busybox sh): mounts what bsh needs as
# a distribution's init would (proc, sys, devtmpfs, a devpts of its own,
# a tmpfs on /dev/shm, cgroup2 with the memory, pids and cpu controllers
# on), runs
# vm_checks.sh with the mode the kernel's command line names
# (bsh_vm=full|old), and powers the machine off. Every line the host reads
# starts with "VMTEST:".
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s # the applets' links, made here: the host cannot run arm64 busybox
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts /dev/pts
rm -f /dev/ptmx && ln -s pts/ptmx /dev/ptmx
# /tmp stays the initramfs's own (already in memory, mode 1777): the C
# tests' data lie at their build path, which may be under /tmp.
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ip link set lo up # 127.0.0.1, for the MCP server over HTTP
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
for c in memory pids cpu; do
    echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control || echo "VMTEST: no $c controller"
done
chown 1000:1000 /home/user
# The user's own cgroup, delegated as systemd delegates user@UID.service.
mkdir /sys/fs/cgroup/user-1000
chown -R 1000:1000 /sys/fs/cgroup/user-1000
mode=$(sed -n 's/.*bsh_vm=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "VMTEST: booted $(uname -r) $(uname -m) in $(cut -d' ' -f1 /proc/uptime) s, mode $mode"
/bin/bash /cross/vm_checks.sh "$mode"
echo "VMTEST: END after $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
