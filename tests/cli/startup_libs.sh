#!/bin/sh
# What a start of occcalc (and of any program linking libocc) loads: no
# driver library and no C++ runtime (issue 17: they were 71 % of a cold
# run).  The backends open their drivers with dlopen when a command needs
# them (docs/architecture.md).
#   startup_libs.sh OCCCALC LIBOCC.so
# Exit 0 pass, 1 fail, 77 skip (no ldd here).  OCC_SANITIZED=1 (a sanitized
# build, whose runtimes bring libstdc++ themselves): only the drivers count.
set -u
command -v ldd >/dev/null 2>&1 || { echo "SKIP: no ldd"; exit 77; }
fails=0
banned="libze_loader libcuda libstdc++"
[ "${OCC_SANITIZED:-0}" = 1 ] && banned="libze_loader libcuda"
for f in "$1" "$2"; do
    libs=$(ldd "$f" 2>&1) || { echo "FAIL: ldd $f: $libs"; exit 1; }
    for bad in $banned; do
        if printf '%s\n' "$libs" | grep -q "$bad"; then
            echo "FAIL: $f loads $bad at start:"
            printf '%s\n' "$libs"
            fails=$((fails + 1))
        fi
    done
    echo "$f: $(printf '%s\n' "$libs" | awk '{print $1}' | tr '\n' ' ')"
done
[ "$fails" = 0 ] && { echo PASS; exit 0; }
exit 1
