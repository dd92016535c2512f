/*
 * load_seq.pml: the writers of one thread's load record and its
 * sequence counter (docs/icc.md, "Model check").
 *
 * Thread X has just been created by a task (uthread_create: INACTIVE,
 * owned by core xcpu, either core, its vspace set). Core 0 starts it
 * (THREAD_START: thread_activate); THREAD_SET calls from either core
 * (budget NSET) change its slice or its affinity on its owner, through
 * a CALL_FUNC record (icc_call_copy) or inline; an affinity outside the
 * owner moves X (thread_migrate_local). Every one of those publishes
 * X's record with load_thread_static (load.c:200-218), whose seq_begin
 * and seq_end (load.h:78-88) are NON-atomic increments: a load step and
 * a store step each. A reader in user space (ful_load_try_thread,
 * user/lib/include/ful/load.h:134-153) copies the record under the
 * counter. Comments name the C: file:line at b93a1b4.
 *
 * The protocol as fixed (branch fix19, 386737b "Load area: one writer
 * per thread record"): one writer per record. The creator publishes X
 * while it is still EMBRYO, invisible to every other core
 * (thread_publish, before the INACTIVE store: here, init); from then on
 * only X's owner writes the record, with IRQs masked, so two writers
 * never overlap; thread_activate, which may run on any core, writes
 * nothing there. -DFINDING5 puts back the second writer: thread_activate
 * publishes from the caller's core, whoever owns X (thread.c:167 at
 * f26159f).
 *
 * Properties:
 *   safety (final check, when nothing can move): seq ends even, and
 *     equal to twice the number of windows opened (no increment lost);
 *     a reader never accepts a torn copy (each writer writes its core's
 *     number into both fields: an accepted copy has equal fields); and
 *     every CALL_FUNC record is handled once and freed once.
 *   liveness (-DLIVE, checked with weak fairness): a reader that retries
 *     (ful_load_read_thread) eventually gets a copy: <> read_done.
 * Abstracted away: the load sums, kills, X running (it stays READY
 * where it lands), weak memory, icc_wait's timeout.
 */

#ifndef NSET
#define NSET 2     /* THREAD_SET calls */
#endif
#ifndef NREAD
#define NREAD 2    /* reader attempts (safety run) */
#endif
#define NCPU 2
#define NONE 255

mtype = { T_READY, T_MIGRATING, T_INACTIVE };
mtype = { SLICE, AFFINITY };

/* records: 0 NULL, CALL(c) core c's pool record (one), MIG X's TASK_IN */
#define CALL(c) ((c) + 1)
#define MIG     (NCPU + 1)
#define NREC    (NCPU + 2)
#define REQ_FREE   0
#define REQ_OWNED  1
#define REQ_POSTED 2
#define REQ_DONE   3

/* ---- the C's data ---- */
mtype st = T_INACTIVE;    /* X->state */
byte xcpu;                /* X->cpu */
byte pending_dest = NONE; /* X->pending_dest */
byte seq;                 /* load_area.thread[X].seq */
byte f1, f2;              /* two of its fields (cpu, flags, ... affinity) */
byte head[NCPU];          /* mailboxes (mbox.h, as in icc.pml) */
byte next[NREC];
byte rstate[NREC];
mtype rattr[NREC];        /* thread_set_req.attr */
byte rmask[NREC];         /* thread_set_req.value, an affinity */
bool waiting[NCPU];       /* icc_call_copy waits in icc_wait_out */

/* ---- budgets and ghosts ---- */
byte sets = NSET;
bool started;             /* THREAD_START done */
byte windows;             /* seq_begin calls */
bool pending[NREC];
bool read_done;           /* the reader got a copy */

/* load_thread_static(X, ...) on core c, load.c:200-218 */
inline publish(c) {
	atomic { tmp = seq; windows++;    /* load.h:80 seq_begin: load, */
		printf("MSC: cpu%d: seq_begin loads seq = %d\n", c, tmp) };
	atomic { seq = tmp + 1;           /*          store */
		printf("MSC: cpu%d: seq_begin stores seq = %d\n", c, seq) };
	f1 = c + 1;                       /* load.c:204-214 the fields */
	f2 = c + 1;
	atomic { tmp = seq;               /* load.h:87 seq_end: load, */
		printf("MSC: cpu%d: seq_end loads seq = %d\n", c, tmp) };
	atomic { seq = tmp + 1;           /*          store */
		printf("MSC: cpu%d: seq_end stores seq = %d\n", c, seq) }
}

/* mbox_push, mbox.h:31-40 (CAS loop) */
inline push(r, tgt) {
	old = head[tgt];
	do
	:: atomic {
		next[r] = old;
		if
		:: head[tgt] == old -> head[tgt] = r; ok = 1
		:: else -> old = head[tgt]; ok = 0
		fi
	   };
	   if
	   :: ok -> break
	   :: else -> skip
	   fi
	od
}

/* icc_post, icc.c:76-82 */
inline post(r, tgt) {
	atomic { assert(!pending[r]); pending[r] = 1; rstate[r] = REQ_POSTED };
	push(r, tgt)
}

/* thread_migrate_local(c, X, dd) for X READY or MIGRATING,
 * thread_ops.c:30-70 (INACTIVE: -FUL_ESTATE, :40-41, :25-26) */
inline migrate_local(c, dd) {
	s = st;                                   /* :33 (owner only) */
	if
	:: s == T_MIGRATING -> pending_dest = dd  /* :40-41, :21-24 */
	:: s == T_READY && dd != c ->
		st = T_MIGRATING;                     /* :49-51 */
		publish(c);                           /* :58 */
		xcpu = dd;                            /* :59 release */
		post(MIG, dd)                         /* :61-62 */
	:: else -> skip                           /* INACTIVE; already here */
	fi
}

/* thread_set_here for request r on c, syscall_sched.c:136-161; its
 * thread_still (:143-146) is always true here: no slot reuse */
inline set_here(c, attr, mask) {
	if
	:: xcpu != c -> skip                      /* :147-150 -FUL_EAGAIN */
	:: xcpu == c && attr == SLICE && st == T_MIGRATING -> skip /* :149 */
	:: xcpu == c && attr == SLICE && st != T_MIGRATING ->
		publish(c)                            /* :152, load.c:234-246 */
	:: xcpu == c && attr == AFFINITY ->       /* :158, :106-122 */
		if
		:: !(mask >> c & 1) ->                /* :111-117 */
			d = (mask & 1 -> 0 : 1);          /* __builtin_ctz */
			migrate_local(c, d)
		:: else -> skip
		fi;
		if
		:: xcpu == c -> publish(c)            /* :120-121 */
		:: else -> skip
		fi
	fi
}

/* thread_accept, thread_ops.c:109-131: TASK_IN on c */
inline accept(c) {
	atomic {
		assert(pending[MIG]); pending[MIG] = 0;
		assert(st == T_MIGRATING && xcpu == c);   /* :112-115 */
		printf("MSC: cpu%d: TASK_IN: X arrives\n", c)
	};
	st = T_READY;                             /* :122 sched_make_ready */
	atomic { d = pending_dest; pending_dest = NONE };
	if
	:: d != NONE -> migrate_local(c, d)       /* :126-130 */
	:: else -> skip
	fi
}

proctype core(byte c)
{
	byte old, l, fifo, n, nx, d, tmp, o, msk;
	mtype s, at;
	bool ok;

end:
	do
	:: if
	/* THREAD_START on core 0: thread_activate, thread.c:204-226. One
	 * step for INACTIVE -> STARTING (:187), the tid check (:196-200:
	 * slot reuse, not modelled) and MIGRATING (:216): set_here treats
	 * STARTING as INACTIVE (thread_ops.c:25-26). */
	:: atomic { c == 0 && !started -> started = 1;
		assert(st == T_INACTIVE);             /* :187 CAS, :216 */
		st = T_MIGRATING;
		printf("MSC: cpu0: THREAD_START: X MIGRATING, owner cpu%d\n", xcpu)
	   };
		o = xcpu;                             /* :217 */
#ifdef FINDING5
		publish(c);                           /* f26159f's :167, whoever owns X */
#endif                                        /* (fixed: nothing here) */
		if
		:: o == c -> st = T_READY             /* :218-219 */
		:: else -> post(MIG, o)               /* :220-223 */
		fi

	/* THREAD_SET on c: sys_thread_set, thread_set_attr,
	 * syscall_sched.c:182-220 */
	:: atomic { sets > 0 && !waiting[c] -> sets--;
		if
		:: at = SLICE; msk = 0
		:: at = AFFINITY; msk = 1
		:: at = AFFINITY; msk = 2
		fi;
		printf("MSC: cpu%d: THREAD_SET %e (mask %d) of X\n", c, at, msk)
	   };
		o = xcpu;                             /* :212 atomic_load */
		if
		:: o == c -> set_here(c, at, msk)     /* icc_call_copy inline */
		:: else ->                            /* icc.c:257-275 */
			if
			:: rstate[CALL(c)] == REQ_FREE ->
				atomic {
					rstate[CALL(c)] = REQ_OWNED;
					rattr[CALL(c)] = at;
					rmask[CALL(c)] = msk
				};
				post(CALL(c), o);
				waiting[c] = 1                /* icc_wait */
			:: else -> skip                   /* -FUL_EAGAIN */
			fi
		fi

	/* icc_wait_out ends: the record is DONE, icc.c:231-245 */
	:: atomic { waiting[c] && rstate[CALL(c)] == REQ_DONE ->
		rstate[CALL(c)] = REQ_FREE;
		waiting[c] = 0
	   }

	/* IPI_ICC, or icc_wait serving the mailbox: icc_drain on c */
	:: atomic { head[c] != 0 ->
		l = head[c]; head[c] = 0; fifo = 0;   /* mbox_take_all */
		do
		:: l != 0 -> nx = next[l]; next[l] = fifo; fifo = l; l = nx
		:: else -> break
		od;
		n = fifo
	   };
		do
		:: atomic { n != 0 -> nx = next[n] };
			if
			:: n == MIG -> accept(c)          /* icc.c:155-158 */
			:: n != MIG ->                    /* CALL_FUNC icc.c:167-170 */
				atomic { assert(pending[n]); pending[n] = 0;
					 at = rattr[n]; msk = rmask[n] };
				set_here(c, at, msk);
				atomic {                      /* icc_complete :117-118 */
					assert(rstate[n] == REQ_POSTED);
					rstate[n] = REQ_DONE
				}
			fi;
			n = nx
		:: else -> break
		od
	fi;
	atomic { old = 0; l = 0; fifo = 0; n = 0; nx = 0; d = 0; tmp = 0;
		 o = 0; msk = 0; s = 0; at = 0; ok = 0 }
	od
}

/* A user thread reads X's record: ful_load_try_thread, NREAD times;
 * ful_load_read_thread (retry until a copy) with -DLIVE. */
proctype reader()
{
	byte s1, s2, a, b, tries = NREAD;
end:
	do
#ifdef LIVE
	:: !read_done ->
#else
	:: tries > 0 ->
		tries--;
#endif
		s1 = seq;                             /* ful_load_seq_begin */
		if
		:: s1 & 1 -> skip                     /* odd: retry */
		:: else ->
			a = f1;                           /* FUL_LOAD_RLX */
			b = f2;
			s2 = seq;                         /* ful_load_seq_ok */
			if
			:: s1 == s2 ->
				printf("MSC: reader: copy (%d, %d) at seq %d\n", a, b, s1);
				assert(a == b);               /* never a torn copy */
				read_done = 1;
				break
			:: else -> skip
			fi
		fi;
		s1 = 0; s2 = 0; a = 0; b = 0
#ifndef LIVE
	:: tries == 0 -> break
#endif
	od
}

#ifdef LIVE
ltl read_ends { <> read_done }
#else
/* the end: nothing can move */
active proctype final()
{
	timeout ->
	assert(seq % 2 == 0);                     /* readers never hang */
	assert(seq == 2 * windows);               /* no increment lost */
	assert(!pending[1] && !pending[2] && !pending[3]); /* each handled */
	assert(rstate[1] == REQ_FREE && rstate[2] == REQ_FREE); /* freed */
	assert(head[0] == 0 && head[1] == 0);
	assert(st == T_READY)                     /* started, landed */
}
#endif

init
{
	atomic {
		if                                    /* thread_create_inactive */
		:: xcpu = 0                           /* on either core */
		:: xcpu = 1
		fi;
		f1 = xcpu + 1;                        /* published by its */
		f2 = xcpu + 1;                        /* creator while EMBRYO */
		run core(0);
		run core(1);
		run reader()
	}
}
