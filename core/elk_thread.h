/* Worker threads that never take a termination signal.
 *
 * A process-directed signal goes to any thread that does not block it. The
 * handlers the workbench installs (an interrupted sweep keeps its finished
 * rows, the TUI restores the terminal, every command removes its temporary
 * files) expect to run on the main thread, and a worker interrupted inside
 * malloc or a mutex by a handler that then exits would leave the process
 * half-stopped. So every thread the workbench starts is created with
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM and SIGWINCH
 * blocked: it inherits that mask, and those signals always reach the main
 * thread (its handlers, the TUI's wake pipe, ncurses' resize handler).
 * Synchronous faults (SIGSEGV, SIGFPE, ...) and SIGPIPE are not affected:
 * they go to the thread that caused them anyway. */
#ifndef ELK_THREAD_H
#define ELK_THREAD_H

#include <pthread.h>

/* pthread_create with the signals above blocked in the new thread; the
 * caller's own mask is unchanged on return. Returns pthread_create's
 * result (0 or an errno value). */
int elk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
