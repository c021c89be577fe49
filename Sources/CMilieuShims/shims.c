#define _GNU_SOURCE
#include "CMilieuShims.h"

#include <errno.h>
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
