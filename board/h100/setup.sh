#!/usr/bin/env bash
# Prepares an offline GPU machine (Ubuntu 24.04, NVIDIA driver, no network) to build and
# run rtmgr: unpacks the libyaml/cmocka Debian packages carried in .debs/ into a private
# prefix and registers NVIDIA's OpenCL ICD beside PoCL's. Source it:
#   . board/h100/setup.sh
# Shared test data (the ../shared beside a developer's checkout) travels as .shared/.
[ -e ../shared ] || { [ -d .shared ] && ln -s "$PWD/.shared" ../shared; }
# Then `cmake`, `ctest` and `rtmgr devices` see both the H100 and PoCL.
pfx=/tmp/rtmgr-deps
mkdir -p "$pfx" /tmp/rtmgr-icd
for f in .debs/*.deb; do dpkg -x "$f" "$pfx"; done
lib=$pfx/usr/lib/x86_64-linux-gnu
# Fix the pkg-config prefixes of the unpacked packages.
for pc in "$lib"/pkgconfig/*.pc; do sed -i "s|^prefix=.*|prefix=$pfx/usr|" "$pc"; done
ln -sf libyaml-0.so.2 "$lib/libyaml.so" 2>/dev/null
ln -sf libcmocka.so.0 "$lib/libcmocka.so" 2>/dev/null
echo /usr/lib/libnvidia-opencl.so.1 > /tmp/rtmgr-icd/nvidia.icd
for f in /etc/OpenCL/vendors/*.icd; do [ -f "$f" ] && cp "$f" /tmp/rtmgr-icd/; done
export OCL_ICD_VENDORS=/tmp/rtmgr-icd
export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CPATH=$pfx/usr/include${CPATH:+:$CPATH}
export LIBRARY_PATH=$lib${LIBRARY_PATH:+:$LIBRARY_PATH}
