#!/bin/sh
# live-test.sh DEB [ROOTFS] — the systemd unit exercised live, as on a vessel computer:
# a Debian 12 root file system (debootstrap, once; needs root, network and
# systemd-container) boots with systemd as PID 1 under systemd-nspawn, the package is
# installed with dpkg, and the checks below run against the real service manager.
# Not part of `make test` (it needs network and a container manager); docs/deploy.md
# shows its output.
#
# Checks: the package installs (user, directories, permissions); the unit starts at boot
# (ExecStartPre=rtmgr check passes, rtmgr runs as user rtmgr, SCHED_FIFO from the unit);
# a killed manager is restarted (Restart=on-failure) and the crashed run's model log is
# kept (PATH.1); `systemctl stop` ends it with SIGTERM, cleanly, its log flushed.
set -eu
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=${2:-/var/tmp/rtmgr-live-rootfs}
fail() { echo "live-test: FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root"
command -v systemd-nspawn >/dev/null || fail "apt-get install systemd-container debootstrap"
if [ ! -x "$root/usr/lib/systemd/systemd" ]; then
    debootstrap --variant=minbase \
        --include=systemd,systemd-sysv,dbus,adduser,procps,libyaml-0-2,ocl-icd-libopencl1,pocl-opencl-icd \
        bookworm "$root" http://deb.debian.org/debian >/dev/null || fail debootstrap
fi
# nspawn cleans up under /run/systemd/nspawn and refuses to do so on a disk file system
mkdir -p /run/systemd/nspawn
mountpoint -q /run/systemd/nspawn || mount -t tmpfs tmpfs /run/systemd/nspawn
ns() { systemd-nspawn -q -D "$root" --register=no --keep-unit "$@"; }
cp "$deb" "$root/root/rtmgr.deb"
ns sh -c 'dpkg --purge rtmgr >/dev/null 2>&1; rm -f /var/log/rtmgr/*; dpkg -i /root/rtmgr.deb >/dev/null && systemctl enable rtmgr 2>/dev/null' ||
    fail "dpkg -i"
log=$(mktemp /tmp/rtmgr-live-XXXXXX)
setsid systemd-nspawn -q -D "$root" --register=no --keep-unit --boot >"$log" 2>&1 &
boot=$!
trap 'kill "$boot" 2>/dev/null || true' EXIT
init=""
for _ in $(seq 60); do
    sleep 1
    init=$(pgrep -P "$boot" -f systemd 2>/dev/null | head -1 || true)
    [ -n "$init" ] && nsenter -t "$init" -a systemctl is-active -q rtmgr 2>/dev/null && break
done
[ -n "$init" ] || fail "the container did not boot: $(tail -5 "$log")"
inside() { nsenter -t "$init" -a "$@"; }
inside systemctl is-active -q rtmgr || fail "rtmgr.service not active: $(inside systemctl status rtmgr --no-pager | tail -5)"
echo "live-test: booted; rtmgr.service active"
inside sh -c 'journalctl -u rtmgr --no-pager | grep -q "ExecStartPre\|schedulable: yes"' ||
    fail "ExecStartPre=rtmgr check left no verdict in the journal"
pid=$(inside systemctl show -p MainPID --value rtmgr)
user=$(inside ps -o user= -p "$pid")
policy=$(inside ps -o cls=,rtprio= -p "$pid")
echo "live-test: main pid $pid, user $user, scheduling $policy"
[ "$user" = rtmgr ] || fail "runs as $user"
sleep 8
inside kill -9 "$pid"
for _ in $(seq 30); do
    sleep 1
    n=$(inside systemctl show -p NRestarts --value rtmgr)
    [ "$n" -ge 1 ] && inside systemctl is-active -q rtmgr && break
done
[ "$(inside systemctl show -p NRestarts --value rtmgr)" -ge 1 ] || fail "not restarted after SIGKILL"
echo "live-test: killed with SIGKILL, restarted by systemd (NRestarts $(inside systemctl show -p NRestarts --value rtmgr))"
sleep 5
inside test -s /var/log/rtmgr/rtmgr-model.csv.1 || fail "the crashed run's log was not kept"
echo "live-test: crashed run's log kept: $(inside wc -l < "$root/var/log/rtmgr/rtmgr-model.csv.1" 2>/dev/null || inside sh -c 'wc -l < /var/log/rtmgr/rtmgr-model.csv.1') lines in rtmgr-model.csv.1"
inside systemctl stop rtmgr
summary=$(inside journalctl -u rtmgr --no-pager | grep "rows written" | tail -1)
[ -n "$summary" ] || fail "no shutdown summary after systemctl stop"
echo "live-test: systemctl stop: $(echo "$summary" | sed 's/^.*rtmgr\[[0-9]*\]: rtmgr: //')"
inside systemctl show -p Result --value rtmgr | grep -q success || fail "stop result not success"
inside journalctl -u rtmgr --no-pager | grep "warning: real-time" | tail -1 | sed 's/^.*rtmgr: /live-test: note: /'
inside systemctl poweroff >/dev/null 2>&1 || true
wait "$boot" 2>/dev/null || true
trap - EXIT
rm -f "$log"
echo "live-test: ok"
