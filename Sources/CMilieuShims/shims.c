#define _GNU_SOURCE
#include "CMilieuShims.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sys/socket.h>

int milieu_accept4(int fd, void *address, uint32_t *length, int flags) {
    return accept4(fd, (struct sockaddr *)address, (socklen_t *)length, flags);
}

int milieu_peer_credentials(int fd, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
        return -1;
    }
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int32_t milieu_gettid(void) {
    return (int32_t)syscall(SYS_gettid);
}

// One target thread per signal number; 0 means "not forwarding".
static _Atomic int32_t forwardTargets[_NSIG];

static void milieu_forwarding_handler(int signo) {
    int savedErrno = errno;
    int32_t tid = atomic_load_explicit(&forwardTargets[signo], memory_order_relaxed);
    if (tid > 0) {
        syscall(SYS_tgkill, getpid(), tid, signo);
    }
    errno = savedErrno;
}

int milieu_forward_signal(int signo, int32_t tid) {
    if (signo <= 0 || signo >= _NSIG) {
        errno = EINVAL;
        return -1;
    }
    atomic_store(&forwardTargets[signo], tid);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = milieu_forwarding_handler;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

int milieu_stop_forwarding_signal(int signo) {
    if (signo <= 0 || signo >= _NSIG) {
        errno = EINVAL;
        return -1;
    }
    atomic_store(&forwardTargets[signo], 0);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_DFL;
    return sigaction(signo, &action, NULL);
}

int milieu_disable_core_dumps(void) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) return -1;
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// CRC32C (Castagnoli): the SSE4.2 crc32 instruction where the CPU has it, else a table.
static uint32_t milieu_crc32c_table[256];

static void milieu_crc32c_make_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
        milieu_crc32c_table[n] = c;
    }
}

static uint32_t milieu_crc32c_software(uint32_t crc, const uint8_t *bytes, size_t count) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, milieu_crc32c_make_table);
    for (size_t i = 0; i < count; i++) crc = milieu_crc32c_table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t milieu_crc32c_hardware(uint32_t crc, const uint8_t *bytes, size_t count) {
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        c = __builtin_ia32_crc32di(c, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count-- > 0) c32 = __builtin_ia32_crc32qi(c32, *bytes++);
    return c32;
}
#endif

uint32_t milieu_crc32c(uint32_t crc, const void *bytes, size_t count) {
    crc = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~milieu_crc32c_hardware(crc, bytes, count);
#endif
    return ~milieu_crc32c_software(crc, bytes, count);
}

ssize_t milieu_read(int fd, void *buffer, size_t count) {
    return syscall(SYS_read, fd, buffer, count);
}

ssize_t milieu_send(int fd, const void *bytes, size_t count, int flags) {
    return syscall(SYS_sendto, fd, bytes, count, flags, NULL, 0);
}

ssize_t milieu_sendmsg(int fd, const void *message, int flags) {
    return syscall(SYS_sendmsg, fd, message, flags);
}
