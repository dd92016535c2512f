/*
 * mbox.pml: the per-core mailbox alone (kernel/mbox.h), with more
 * producers than icc.pml has cores (docs/icc.md, "Model check").
 *
 * NPROD producers each push NPER records (mbox_push: a relaxed load of
 * the head, then a loop of "link next, CAS the head" steps). The owner
 * takes them, either all at once (mbox_take_all: one exchange, then the
 * reversal of its private list) or, when the mailbox holds exactly one
 * record, with mbox_take_only, as sched_idle_in_place does
 * (thread_wake_take_own). Comments name the C: file:line at b93a1b4.
 *
 * Properties: every record pushed is taken exactly once; the owner takes
 * them in the order their CAS took effect (so per producer FIFO holds);
 * mbox_push reports "was empty" exactly for the push that found the
 * mailbox empty (the one that owes the IPI, icc.c:42-43); the end finds
 * the mailbox empty and every record taken.
 */

#ifndef NPROD
#define NPROD 3
#endif
#ifndef NPER
#define NPER 2
#endif
#define NREC (NPROD * NPER + 1)   /* records 1.., 0 is NULL */

byte head;                /* struct mbox.head */
byte next[NREC];          /* mbox_node.next */
byte ticket[NREC];        /* ghost: the order its CAS took effect */
byte pushed;              /* ghost: CASes done */
byte taken;               /* ghost: records taken, in order */
bool got[NREC];           /* ghost: taken once */
byte owed;                /* ghost: pushes that found it empty, untaken */

proctype producer(byte p)
{
	byte i, r, old;
	bool ok;
	for (i : 0 .. NPER - 1) {
		r = p * NPER + i + 1;
		old = head;                           /* mbox.h:33-34 */
		do
		:: atomic {                           /* mbox.h:36-38 */
			next[r] = old;                    /* link */
			if                                /* CAS, release */
			:: head == old ->
				head = r;
				ticket[r] = pushed;
				pushed++;
				ok = 1;
				if                            /* mbox.h:39 */
				:: old == 0 -> owed++         /* was empty: IPI owed */
				:: else -> skip
				fi
			:: else -> old = head; ok = 0
			fi
		   };
		   if
		   :: ok -> break
		   :: else -> skip
		   fi
		od;
		old = 0
	}
}

/* the owner takes record r: in CAS order, once */
#define TAKE(r) \
	assert(!got[r] && ticket[r] == taken); \
	got[r] = 1; \
	taken++

active proctype owner()
{
	byte l, fifo, nx, h;
end:
	do
	/* mbox_take_all, mbox.h:43-55: one exchange (acquire), then the
	 * reversal of the detached list, which is the owner's alone */
	:: atomic {
		head != 0 ->
		l = head;
		head = 0;
		assert(owed == 1);                    /* one IPI for the batch */
		owed = 0
	   };
		d_step {
			fifo = 0;
			do
			:: l != 0 -> nx = next[l]; next[l] = fifo; fifo = l; l = nx
			:: else -> break
			od
		};
		do                                    /* icc_drain, icc.c:184-191 */
		:: fifo != 0 -> d_step { TAKE(fifo); fifo = next[fifo] }
		:: else -> break
		od;
		l = 0; nx = 0
	/* mbox_take_only(r), mbox.h:62-71, r the record at the head */
	:: atomic { head != 0 -> h = head };      /* :64-65 acquire */
		if
		:: next[h] == 0 ->                    /* :66 alone */
			atomic {
				if                            /* :68-70 CAS */
				:: head == h ->
					head = 0;
					assert(owed == 1);
					owed = 0;
					TAKE(h)
				:: else -> skip               /* a push came first */
				fi
			}
		:: else -> skip                       /* not alone: false */
		fi;
		h = 0
	od
}

active proctype final()
{
	byte r;
	timeout ->
	assert(head == 0 && taken == NPROD * NPER && owed == 0);
	for (r : 1 .. NREC - 1) {
		assert(got[r])
	}
}

init
{
	byte p;
	atomic {
		for (p : 0 .. NPROD - 1) {
			run producer(p)
		}
	}
}
