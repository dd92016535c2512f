/*
 * Console input for user space (FUL_SYS_CONS_BIND, FUL_SYS_CONS_READ).
 *
 * The mechanism only: the UART's receive interrupt moves bytes into a
 * ring and signals the one notification bound to it; the holder of that
 * notification reads the ring without blocking. Which program reads the
 * console (the shell) is the rootserver's decision: it holds the console
 * capability from boot and hands a copy to whoever it chooses.
 *
 * One reader at a time: the binding is the notification. A second bind
 * with another notification fails (ESTATE) until the bound one is dead:
 * when its last capability goes (e.g. its task ended), ntfn_orphan
 * calls coninput_forget, which unbinds it and drops the kernel's
 * reference. Reads name the notification and must name the bound one. With the boot argument
 * kdebug the kernel's debug monitor (console.c) owns the UART and both
 * calls answer ESTATE.
 *
 * Locks: cin.lock, then a notification's lock (ntfn_dead); the signal is
 * sent after cin.lock is dropped, and coninput_forget runs after the
 * orphaned notification's lock is dropped. The interrupt comes to core 0
 * only.
 */
#include "coninput.h"
#include "ipc.h"
#include "kernel.h"
#include "obj.h"
#include "spinlock.h"

#define CIN_SIZE 256 /* a power of two */

static struct {
	spinlock_t lock;
	char buf[CIN_SIZE];
	unsigned head, tail; /* free-running: tail - head bytes buffered */
	struct ntfn *ntfn;   /* bound, referenced; NULL if none */
	uint64_t bits;
	bool monitor;        /* the kernel debug monitor owns the UART */
} cin = {.lock = SPINLOCK_INIT};

/** Move bytes from the UART into the ring while both have some; a full
 *  ring leaves the rest in the UART's FIFO (QEMU then holds back its
 *  input) until a read makes room. Returns the bytes moved. cin.lock. */
static unsigned cin_fill(void)
{
	unsigned n = 0;
	int c;
	while (cin.tail - cin.head < CIN_SIZE &&
	       (c = arch_console_getc()) >= 0) {
		cin.buf[cin.tail++ % CIN_SIZE] = (char)c;
		n++;
	}
	return n;
}

/** The bound notification, referenced, if @signal and it has bytes to
 *  report; NULL otherwise. cin.lock. */
static struct ntfn *cin_to_signal(bool signal, uint64_t *bits)
{
	if (!signal || !cin.ntfn || cin.tail == cin.head)
		return NULL;
	obj_get(ntfn_kobj(cin.ntfn));
	*bits = cin.bits;
	return cin.ntfn;
}

/** Signal @n (from cin_to_signal) and drop its reference. No lock. */
static void cin_signal(struct ntfn *n, uint64_t bits)
{
	if (!n)
		return;
	ntfn_signal(n, bits);
	obj_put(ntfn_kobj(n));
}

void coninput_rx(void)
{
	uint64_t bits = 0, flags = spin_lock_irqsave(&cin.lock);
	struct ntfn *n = NULL;
	if (!cin.monitor)
		n = cin_to_signal(cin_fill() > 0, &bits);
	spin_unlock_irqrestore(&cin.lock, flags);
	cin_signal(n, bits);
}

void coninput_monitor(void)
{
	uint64_t flags = spin_lock_irqsave(&cin.lock);
	cin.monitor = true;
	spin_unlock_irqrestore(&cin.lock, flags);
}

int coninput_bind(struct ntfn *n, uint64_t bits)
{
	uint64_t flags = spin_lock_irqsave(&cin.lock);
	struct ntfn *old = cin.ntfn;
	/* @n itself may have just lost its last capability (another
	 * thread's delete): then its coninput_forget has run or waits for
	 * cin.lock, and binding it would outlive it. */
	if (cin.monitor || (old && old != n && !ntfn_dead(old)) ||
	    ntfn_dead(n)) {
		spin_unlock_irqrestore(&cin.lock, flags);
		return -FUL_ESTATE;
	}
	if (old != n)
		obj_get(ntfn_kobj(n));
	else
		old = NULL; /* a rebind of the same one: new bits only */
	cin.ntfn = n;
	cin.bits = bits;
	cin_fill();
	uint64_t sbits = 0;
	struct ntfn *s = cin_to_signal(true, &sbits);
	spin_unlock_irqrestore(&cin.lock, flags);
	if (old)
		obj_put(ntfn_kobj(old));
	arch_console_enable_rx_irq();
	cin_signal(s, sbits); /* bytes that came before the bind */
	return 0;
}

void coninput_forget(struct ntfn *n)
{
	uint64_t flags = spin_lock_irqsave(&cin.lock);
	bool bound = cin.ntfn == n;
	if (bound)
		cin.ntfn = NULL;
	spin_unlock_irqrestore(&cin.lock, flags);
	if (bound) /* the caller's capability still holds one: not the last */
		obj_put(ntfn_kobj(n));
}

int coninput_read(struct ntfn *n, char *out, unsigned len)
{
	uint64_t flags = spin_lock_irqsave(&cin.lock);
	if (cin.monitor || cin.ntfn != n) {
		spin_unlock_irqrestore(&cin.lock, flags);
		return -FUL_ESTATE;
	}
	cin_fill();
	unsigned got = 0;
	while (got < len && cin.head != cin.tail)
		out[got++] = cin.buf[cin.head++ % CIN_SIZE];
	spin_unlock_irqrestore(&cin.lock, flags);
	return (int)got;
}
