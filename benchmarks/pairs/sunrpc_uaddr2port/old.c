/* Linux net/sunrpc/addr.c: turning a universal address "h1.h2.h3.h4.p1.p2"
   into a port number, before the fix: the length check lets
   addresses two bytes too long through (off by two).
   The string handling is reduced to numbers: the length of the address and
   the two already-parsed port fields. Returns the port, or 0 on rejection. */
#include <stddef.h>

#define RPCBIND_MAXUADDRLEN 56

unsigned long rpc_uaddr2port(size_t uaddr_len, unsigned long porthi,
                             unsigned long portlo)
{
    /* the local copy holds the address and its terminating NUL */
    size_t bufsize = RPCBIND_MAXUADDRLEN + 1;
    size_t terminator;

    if (uaddr_len > bufsize + 1)
        return 0;
    terminator = uaddr_len;     /* index where the NUL is stored */
    if (terminator >= bufsize)
        terminator = bufsize - 1;
    if (portlo > 255)
        return 0;
    if (porthi > 255)
        return 0;
    return porthi * 256 + portlo;
}
