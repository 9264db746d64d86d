/* Zstandard through the system library (see zstd.h).  The calls used are its
 * stable API (zstd.h: ZSTD_getFrameContentSize, ZSTD_decompress,
 * ZSTD_isError). */
#include "kernels/zstd.h"

#include <dlfcn.h>
#include <stdlib.h>

occ_status occ__zstd_decompress(const uint8_t *src, size_t n, uint64_t raw, uint64_t max,
                                const char *origin, const char *what, const char *remedy,
                                uint8_t **out, occ_diag *diag)
{
    *out = NULL;
    void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return occ__diag(diag, OCC_ERR_UNSUPPORTED, origin, 0, 0, NULL,
                         "the %s is compressed with Zstandard and libzstd.so.1 is not installed "
                         "(package libzstd1)%s",
                         what, remedy);
    unsigned long long (*content_size)(const void *, size_t);
    size_t (*decompress)(void *, size_t, const void *, size_t);
    unsigned (*is_error)(size_t);
    *(void **)&content_size = dlsym(lib, "ZSTD_getFrameContentSize");
    *(void **)&decompress = dlsym(lib, "ZSTD_decompress");
    *(void **)&is_error = dlsym(lib, "ZSTD_isError");
    occ_status st = OCC_OK;
    uint8_t *buf = NULL;
    if (!content_size || !decompress || !is_error) {
        st = occ__diag(diag, OCC_ERR_UNSUPPORTED, origin, 0, 0, NULL,
                       "libzstd.so.1 lacks ZSTD_decompress");
    } else if (raw == 0 || raw > max || content_size(src, n) != raw) {
        st = occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                       "the compressed %s is no Zstandard frame of the %llu bytes its header "
                       "states (at most %llu)",
                       what, (unsigned long long)raw, (unsigned long long)max);
    } else if (!(buf = malloc((size_t)raw))) {
        st = occ__diag(diag, OCC_ERR_NO_MEMORY, origin, 0, 0, NULL, "out of memory");
    } else {
        size_t got = decompress(buf, (size_t)raw, src, n);
        if (is_error(got) || got != raw)
            st = occ__diag(diag, OCC_ERR_PARSE, origin, 0, 0, NULL,
                           "the compressed %s does not decompress to its stated %llu bytes", what,
                           (unsigned long long)raw);
    }
    dlclose(lib);
    if (st != OCC_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return OCC_OK;
}
