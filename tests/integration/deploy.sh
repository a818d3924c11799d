#!/bin/sh
# deploy.sh BUILD SOURCE — the installation as a vessel gets it: a staged
# `cmake --install` (DESTDIR) and, where cpack and dpkg-deb exist, the .deb unpacked with
# `dpkg -x`; in both, the installed rtmgr checks the installed task set and finds its
# kernels in the installed share directory; world-writable kernels are refused; the
# package's metadata, maintainer scripts and systemd unit are what docs/deploy.md says.
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d /tmp/rtm_deploy_XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
unset RTM_KERNEL_DIR
fail() { echo "deploy.sh: FAIL: $*"; exit 1; }

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
case "$prefix" in
/usr) etc=/etc var=/var ;;
*) etc=$prefix/etc var=$prefix/var ;;
esac

# the installed tree must check its own task set with its own kernels
check_root() {
    root=$1
    bin=$root$prefix/bin/rtmgr
    kdir=$root$prefix/share/rtmgr/kernels
    for f in "$bin" "$root$etc/rtmgr/default.yaml" "$root$etc/rtmgr/board/pocl-cpu.yaml" \
        "$kdir/rtm_block.h" "$kdir/matrix_add.cl" "$root$prefix/lib/systemd/system/rtmgr.service"; do
        [ -e "$f" ] || fail "$f not installed"
    done
    [ -d "$root$var/lib/rtmgr" ] || fail "$var/lib/rtmgr not installed"
    [ -d "$root$var/log/rtmgr" ] || fail "$var/log/rtmgr not installed"
    grep -q '^board: board/pocl-cpu.yaml' "$root$etc/rtmgr/default.yaml" ||
        fail "installed default.yaml does not name board/pocl-cpu.yaml"
    out=$(cd "$root" && "$bin" check -c "$root$etc/rtmgr/default.yaml") || fail "rtmgr check failed in $root"
    echo "$out" | grep -q "^kernels: $kdir (sources present, permissions ok)" ||
        fail "kernels not found in $kdir: $(echo "$out" | grep '^kernels' || true)"
    echo "$out" | grep -q "valid (schema 1)" || fail "no verdict"
    # a kernel anyone can change is refused, with its path
    chmod o+w "$kdir/matrix_add.cl"
    if err=$("$bin" check -c "$root$etc/rtmgr/default.yaml" 2>&1 >/dev/null); then
        fail "world-writable kernel accepted"
    fi
    echo "$err" | grep -q "$kdir/matrix_add.cl is writable by others" || fail "refusal message: $err"
    chmod o-w "$kdir/matrix_add.cl"
    chmod o+w "$root$etc/rtmgr"
    if "$bin" check -c "$root$etc/rtmgr/default.yaml" >/dev/null 2>&1; then
        fail "world-writable /etc/rtmgr accepted"
    fi
    chmod o-w "$root$etc/rtmgr"
    echo "deploy.sh: $root: rtmgr check ok, kernels from $kdir, world-writable files refused"
}

DESTDIR=$tmp/stage cmake --install "$build" >/dev/null
check_root "$tmp/stage"

# the unit: the keys docs/deploy.md promises
unit=$src/board/systemd/rtmgr.service
for key in 'User=rtmgr' 'CPUSchedulingPolicy=fifo' 'LimitMEMLOCK=infinity' 'LimitRTPRIO=' \
    'ExecStartPre=/usr/bin/rtmgr check -c /etc/rtmgr/default.yaml' \
    'ExecStart=/usr/bin/rtmgr run -c /etc/rtmgr/default.yaml' 'Restart=on-failure' \
    'ProtectSystem=strict' 'NoNewPrivileges=yes' 'ReadWritePaths=/var/lib/rtmgr /var/log/rtmgr' \
    'PrivateTmp=yes' 'ProtectHome=yes' 'CapabilityBoundingSet=$'; do
    grep -q "^$key" "$unit" || fail "rtmgr.service lacks $key"
done
if command -v systemd-analyze >/dev/null 2>&1 &&
    systemd-analyze security --help 2>/dev/null | grep -q -- '--offline'; then
    level=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for rtmgr.service: \([0-9.]*\).*/\1/p')
    echo "deploy.sh: systemd-analyze security: exposure $level"
    awk -v l="$level" 'BEGIN { exit !(l != "" && l + 0 <= 3.0) }' || fail "exposure $level > 3.0"
fi
for s in postinst prerm postrm; do
    sh -n "$src/board/deb/$s" || fail "$s: syntax"
done
grep -q 'adduser --system' "$src/board/deb/postinst" || fail "postinst creates no user"

# the package, unpacked as dpkg would
if command -v cpack >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 && [ "$prefix" = /usr ]; then
    (cd "$build" && cpack -G DEB -B "$tmp/pkg" -D CPACK_OUTPUT_FILE_PREFIX="$tmp/pkg" >/dev/null) ||
        fail "cpack"
    deb=$(ls "$tmp"/pkg/rtmgr_*.deb)
    info=$(dpkg-deb -I "$deb")
    echo "$info" | grep -q '^ Package: rtmgr$' || fail "package name"
    echo "$info" | grep -q '^ Depends:.*libyaml-0-2' || fail "no libyaml-0-2 dependency"
    echo "$info" | grep -q '^ Depends:.*ocl-icd-libopencl1' || fail "no ocl-icd-libopencl1 dependency"
    for s in postinst prerm postrm conffiles; do
        echo "$info" | grep -q " $s" || fail "no $s in the package"
    done
    dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -q '^/etc/rtmgr/default.yaml$' ||
        fail "default.yaml is not a conffile"
    dpkg -x "$deb" "$tmp/root"
    check_root "$tmp/root"
    echo "deploy.sh: $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"
else
    echo "deploy.sh: cpack/dpkg-deb missing or prefix not /usr: .deb not checked"
fi
echo "deploy.sh: ok"
