#!/bin/sh
# What `meson install` puts in a prefix is enough to build a program on
# libocc: install into a temporary DESTDIR (library, headers, occ.pc), then,
# with pkg-config seeing that prefix only (no yaml-0.1.pc, no level-zero.pc),
# compile and link consumer.c with `pkg-config --cflags --libs occ` and run it.
# occ.pc must ask for nothing the public headers do not need; a static link
# (`--static`) gets libyaml by its -l name.
#   install_consumer.sh MESON BUILD_DIR PKG_CONFIG consumer.c ARCHIVE   ($CC: the compiler)
# ARCHIVE: the build's static archive of libocc's objects, linked with
# Libs.private alone to show that it is enough for a static link.
set -eu
meson=$1 build=$2 pkgconfig=$3 src=$4 archive=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$meson" install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet --tags devel,runtime >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; fail "meson install"; }
pc=$(find "$tmp/root" -name occ.pc -path '*/pkgconfig/*')
[ -n "$pc" ] || fail "no occ.pc installed"
echo "installed: ${pc#"$tmp/root"}"
cat "$pc"
grep -q '^Requires' "$pc" && fail "occ.pc requires other packages; the public headers need none"

# Only the temporary prefix: the system's .pc files are out of sight.
PKG_CONFIG_LIBDIR=$(dirname "$pc") PKG_CONFIG_PATH= PKG_CONFIG_SYSROOT_DIR="$tmp/root"
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
flags=$("$pkgconfig" --cflags --libs occ) || fail "pkg-config --cflags --libs occ"
echo "pkg-config --cflags --libs occ: $flags"
static=$("$pkgconfig" --static --libs occ) || fail "pkg-config --static --libs occ"
echo "pkg-config --static --libs occ: $static"
case " $static " in *" -lyaml "*) ;; *) fail "a static link is not told about libyaml";; esac
case " $static " in *ze_loader*) fail "a static link is told to link the Level Zero loader";; esac

# shellcheck disable=SC2086  # the flags are words
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$tmp/consumer" "$src" $flags || fail "consumer does not build"
libdir=$(dirname "$(dirname "$pc")")  # occ.pc lies in LIBDIR/pkgconfig
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/consumer") || fail "consumer failed"
[ "$out" = "2 threads" ] || fail "consumer printed '$out', expected '2 threads'"
echo "consumer: $out"

private=""
for w in $static; do
  case $w in -L*|-locc) ;; *) private="$private $w";; esac
done
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -o "$tmp/consumer-static" "$src" $("$pkgconfig" --cflags occ) "$archive" $private \
  || fail "libocc's objects do not link statically with Libs.private ($private)"
out=$("$tmp/consumer-static") || fail "statically linked consumer failed"
[ "$out" = "2 threads" ] || fail "statically linked consumer printed '$out'"
echo "static link with$private: $out"
echo "PASS"
