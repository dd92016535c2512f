/* libfulcrum internals shared between its files. */
#ifndef FUL_LIB_H
#define FUL_LIB_H

/* Start record of a ful_thread_spawn() thread; crt0.S reads tls first. */
struct ful_thread_start {
	void *tls;
	void (*fn)(void *arg);
	void *arg;
};

void ful_start_main(unsigned long arg0, unsigned long arg1, void *ipcbuf);
void ful_thread_main(struct ful_thread_start *st, void *ipcbuf);
void ful_thread_entry(void);

/* A recursive spinlock whose waiter waits with ful_backoff (locks.c). */
struct ful_spin {
	_Atomic unsigned long owner; /* TPIDR_EL0 of the holder, 0 if free */
	unsigned depth;              /* recursion depth, holder only */
};

void ful_spin_lock(struct ful_spin *l);
void ful_spin_unlock(struct ful_spin *l);

#endif
