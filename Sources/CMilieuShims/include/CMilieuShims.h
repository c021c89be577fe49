// Linux pieces that `import Glibc` does not expose: epoll, eventfd, signalfd,
// accept4, SO_PEERCRED credentials, gettid, a signal forwarder for signalfd, CRC32C, a
// socket's read and send without glibc's cancellation points, and a prefetch hint.
#ifndef C_MILIEU_SHIMS_H
#define C_MILIEU_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

/// accept4(2), which Glibc's module hides behind _GNU_SOURCE; `address` is a
/// `struct sockaddr *` and `length` a `socklen_t *` (kept opaque so this header
/// needs no <sys/socket.h>, whose constants would then clash with Glibc's).
int milieu_accept4(int fd, void *address, uint32_t *length, int flags);

/// getsockopt(SO_PEERCRED) into plain integers (struct ucred also needs _GNU_SOURCE).
int milieu_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid);

/// The kernel thread id of the calling thread.
int32_t milieu_gettid(void);

/// Installs a handler for `signo` that re-sends the signal to thread `tid` with
/// tgkill. Threads that started before the signal was blocked still have it
/// unblocked; a process-directed signal landing on one of them is forwarded to the
/// loop thread, where it stays blocked and pending until the signalfd reads it.
/// Returns 0, or -1 with errno set.
int milieu_forward_signal(int signo, int32_t tid);

/// Undoes milieu_forward_signal: the default disposition again. Returns 0 or -1.
int milieu_stop_forwarding_signal(int signo);

/// Keeps secrets out of core files: RLIMIT_CORE 0 and prctl(PR_SET_DUMPABLE, 0), as
/// ssh-agent does (which also stops other processes of the user from ptrace-attaching).
/// prctl is variadic, so Swift cannot call it directly. Returns 0, or -1 with errno set.
int milieu_disable_core_dumps(void);

/// CRC32C (Castagnoli) of `count` bytes, continuing from `crc` (0 to start): the log's
/// record checksum. Uses the SSE4.2 crc32 instruction when the CPU has it.
uint32_t milieu_crc32c(uint32_t crc, const void *bytes, size_t count);

/// read(2), send(2) and sendmsg(2) for the event loop's non-blocking sockets, made with
/// syscall(2) rather than glibc's wrappers. Those are cancellation points: in a process with
/// more than one thread (the daemon's fold and sync threads), glibc 2.36 (Debian 12's) switches
/// the thread's asynchronous cancellation on and off around each call, two atomic
/// compare-and-exchanges, for `pthread_cancel`, which the daemon never calls (later glibc
/// reworked its cancellation, BZ #12683, and may not pay them). Each returns what its system
/// call does: the count, or -1 with errno set. `message` is a `struct msghdr *`.
ssize_t milieu_read(int fd, void *buffer, size_t count);
ssize_t milieu_send(int fd, const void *bytes, size_t count, int flags);
ssize_t milieu_sendmsg(int fd, const void *message, int flags);

/// Asks the CPU to bring the `count` bytes from `address` into its caches, about to be used:
/// one prefetch (`prefetcht0`) for each 64-byte line they touch. Only a hint: it never faults,
/// whatever the address, and changes nothing a program can see but time. Inline, so that it
/// costs the few prefetch instructions and no call.
static inline void milieu_prefetch(const void *address, size_t count) {
    uintptr_t end = (uintptr_t)address + count;
    for (uintptr_t line = (uintptr_t)address & ~(uintptr_t)63; line < end; line += 64) {
        __builtin_prefetch((const void *)line, 0, 3);
    }
}

#endif
