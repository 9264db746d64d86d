#!/bin/sh
# Build occ on the lent GPU machine (device tool): it has nvcc, gcc, meson and
# ninja but no libyaml (and maybe no pkg-config).  The .debs travel in .carry/
# (git-ignored; see docs/validation/README.md):
#   mkdir -p .carry && cd .carry && apt-get download libyaml-0-2 libyaml-dev \
#       pkgconf pkgconf-bin libpkgconf3
# Usage: . tests/hw/gpu_build.sh [BUILDDIR]   (sourced: exports the library path)
# OCC_GPU_TESTS=auto also builds the benchmark programs (tests/bench/bench_*.c; the
# Check tests stay out without the Check library; the Python package is then
# left out): default disabled.
set -e
B=${1:-build-gpu}
S=/tmp/sysroot
mkdir -p $S
for f in .carry/*.deb; do dpkg -x "$f" $S; done
LIBDIR=$S/usr/lib/x86_64-linux-gnu
sed -i "s|^prefix=.*|prefix=$S/usr|" $LIBDIR/pkgconfig/yaml-0.1.pc
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig
export LIBRARY_PATH=$LIBDIR
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export C_INCLUDE_PATH=$S/usr/include
if ! command -v pkg-config >/dev/null 2>&1; then
    export PATH=$S/usr/bin:$PATH
    [ -x $S/usr/bin/pkg-config ] || ln -sf pkgconf $S/usr/bin/pkg-config
fi
rm -rf $B  # a warm machine keeps old objects whose sources may look older
if [ ! -d $B ]; then
    meson setup $B -Dtests=${OCC_GPU_TESTS:-disabled} ${OCC_GPU_TESTS:+-Dpython=disabled} -Dcuda=enabled -Dlevel_zero=disabled -Dman=disabled >/tmp/meson-setup.log 2>&1 ||
        { tail -30 /tmp/meson-setup.log; exit 1; }
fi
ninja -C $B >/tmp/ninja.log 2>&1 || { tail -40 /tmp/ninja.log; exit 1; }
# -Dtests=disabled leaves out tests/ (meson.build), so the campaign programs,
# which need no Check, are compiled here against the built library
mkdir -p $B/tests/hw
for p in dispatch_campaign cuda_campaign; do
    cc -std=c11 -O2 -Ilibocc/include -I$B/libocc/include tests/hw/$p.c -L$B/libocc -locc -lm \
        -Wl,-rpath,$PWD/$B/libocc -o $B/tests/hw/$p || exit 1
done
set +e
