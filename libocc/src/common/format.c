/* Numbers in words shared by the library's texts and the command-line tool
 * (occ.h: occ_format_bytes). */
#include "common/internal.h"

#include <stdio.h>

size_t occ_format_bytes(char *buf, size_t size, uint64_t bytes, bool spell_out)
{
    if (!buf || !size)
        return 0;
    int n;
    if (bytes == UINT64_MAX)
        n = snprintf(buf, size, "-");
    else if (bytes && bytes % 1024 == 0)
        n = snprintf(buf, size, "%llu KB", (unsigned long long)(bytes / 1024));
    else
        n = snprintf(buf, size, "%llu %s", (unsigned long long)bytes, spell_out ? "bytes" : "B");
    return n < 0 ? 0 : (size_t)n;
}
