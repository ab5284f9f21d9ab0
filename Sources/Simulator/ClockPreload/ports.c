// Loopback ports a client assumes, led to the ones hal's services listen on. gpsd's clients (gpxlogger, gpsctl, cgps,
// gpsd's Python module) connect to localhost:2947 unless told otherwise; hal's gpsd listens on a free port, so that
// it never clashes with a gpsd of the machine's or another run's. `HAL_LOOPBACK_PORTS` lists `FROM=TO` pairs
// (comma-separated): a connect() to 127.0.0.0/8 or ::1 (or ::ffff:127.x.y.z) on port FROM goes to port TO of the same
// address instead. Nothing else is touched, so the program keeps the machine's network. Active with or without the
// trace's clock.
#include "preload.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/// The port `port` (host order) is led to, or 0 when `HAL_LOOPBACK_PORTS` does not name it.
static unsigned led_port(unsigned port) {
    const char *list = getenv("HAL_LOOPBACK_PORTS");
    while (list != NULL && *list != 0) {
        char *end;
        unsigned long from = strtoul(list, &end, 10);
        if (*end != '=') return 0;
        unsigned long to = strtoul(end + 1, &end, 10);
        if (from == port && to > 0 && to < 65536) return (unsigned)to;
        if (*end != ',') return 0;
        list = end + 1;
    }
    return 0;
}

/// Whether `address` is a loopback address.
static int is_loopback(const struct sockaddr *address, socklen_t length) {
    if (address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        return (ntohl(((const struct sockaddr_in *)address)->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct in6_addr *inet6 = &((const struct sockaddr_in6 *)address)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(inet6) || (IN6_IS_ADDR_V4MAPPED(inet6) && inet6->s6_addr[12] == 127);
    }
    return 0;
}

typedef int (*connect_type)(int, const struct sockaddr *, socklen_t);

HC_EXPORT int connect(int socket, const struct sockaddr *address, socklen_t length) {
    static connect_type next;
    if (next == NULL) next = (connect_type)dlsym(RTLD_NEXT, "connect");
    if (address != NULL && is_loopback(address, length)) {
        // sin_port and sin6_port sit at the same offset.
        unsigned port = ntohs(((const struct sockaddr_in *)address)->sin_port);
        unsigned to = led_port(port);
        if (to != 0) {
            struct sockaddr_storage led;
            memcpy(&led, address, length < (socklen_t)sizeof led ? length : sizeof led);
            ((struct sockaddr_in *)&led)->sin_port = htons((unsigned short)to);
            return next(socket, (const struct sockaddr *)&led, length);
        }
    }
    return next(socket, address, length);
}
