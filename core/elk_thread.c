#include "elk_thread.h"

#include <signal.h>

int elk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigaddset(&block, SIGWINCH);
    sigaddset(&block, SIGUSR1);
    sigaddset(&block, SIGUSR2);
    sigaddset(&block, SIGALRM);
    /* the new thread inherits the mask in force at pthread_create */
    int bad = pthread_sigmask(SIG_BLOCK, &block, &old);
    int r = pthread_create(th, NULL, fn, arg);
    if (!bad) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return r;
}
