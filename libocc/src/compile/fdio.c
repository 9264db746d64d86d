/* Descriptor I/O for child processes (fdio.h). */
#include "compile/fdio.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

double occ__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

bool occ__write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

int occ__read_deadline(int fd, void *p, size_t n, double deadline)
{
    uint8_t *b = p;
    while (n) {
        double left = deadline - occ__now_s();
        if (left <= 0)
            return 1;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
        int r = poll(&pf, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return 2;
        if (r == 0)
            continue; /* re-check the deadline */
        ssize_t got = read(fd, b, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 2;
        b += got;
        n -= (size_t)got;
    }
    return 0;
}
