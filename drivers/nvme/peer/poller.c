// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer mediated mode's pollers: the kernel threads that run the
 * mediated queues (each pass is medpass.c's).
 *
 * mediate_pollers threads ("nvme-peer-med", "nvme-peer-med1", ...) serve
 * the mediated queues; a queue is given to the poller serving the fewest
 * when it starts, and the queues are dealt out again when the number
 * changes.  Poller i runs on the i-th CPU of mediate_cpus (cyclically), or
 * anywhere when that list is empty.  Each poller keeps polling while there
 * is work and for mediate_spin_us after it; then it sleeps, first
 * mediate_idle_us, doubling up to mediate_idle_max_us while nothing
 * happens; with no queue to serve it sleeps until one comes.  While the
 * controller holds commands of its queues, a sleep shorter than the timers
 * can time (hrtimer_resolution: a tick without high-resolution timers) is
 * spent polling instead, so completions are seen at the latency asked for;
 * with nothing in flight it sleeps (at least a tick there), so an idle
 * poller costs no polling.  Hybrid polling (mediate_hybrid): when a pass
 * finds nothing while the controller holds commands, the poller first
 * sleeps half the running average of such waits (if that is at least
 * NP_MED_HYBRID_MIN_NS and a timer can time it), then polls as above; a
 * slow device then costs wake-ups, not a spinning core, and a fast one
 * (waits under 20 us) is polled as before.  The clock is read once every
 * NP_MED_CLOCK_PASSES empty passes, and once after the pass that ends a
 * wait with commands in flight; a run of busy passes reads it no more.
 * NVME_PEER_IOC_RING wakes every poller at once.
 *
 * Locking: np_med_cfg_lock serialises changes of the number of pollers
 * (threads are created and stopped under it only); np_med_lock (mutex)
 * guards the pollers and which queue each serves; a poller's own lock
 * guards its list of queues and is held for a whole pass, so
 * np_med_stop() returning means no thread touches that queue's memory or
 * doorbells any more.  np_med_stop() waits for that pass without
 * np_med_lock: a pass stuck on a stalled peer BAR then stalls the stops
 * of that poller's queues only, not every controller's events (the queue
 * is marked leaving meanwhile; a second stop waits for the first, and a
 * change of the number of pollers waits until no queue is leaving).
 * np_med_lock may be taken under the controller's
 * shutdown lock (DOWN events): no poller takes another sleeping lock
 * while holding its own, and no thread is created or stopped under it.
 * Order: np_med_cfg_lock ->
 * np_med_lock -> poller lock -> pctrl->state_lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "mediate.h"

#define NP_MED_MAX_POLLERS	64
/* empty passes between two looks at the clock */
#define NP_MED_CLOCK_PASSES	16
/* shortest hybrid sleep worth a timer (and its wake-up) */
#define NP_MED_HYBRID_MIN_NS	(10 * NSEC_PER_USEC)

/* One poller thread and the queues it serves. */
struct np_poller {
	struct mutex lock;		/* held for a whole pass */
	struct list_head queues;	/* of struct np_med, under @lock */
	unsigned int nr_queues;		/* under np_med_lock */
	unsigned int id;
	int cpu;			/* -1: any */
	struct task_struct *task;
	wait_queue_head_t wq;
	atomic_t kicked;
};

static DEFINE_MUTEX(np_med_cfg_lock);
static DEFINE_MUTEX(np_med_lock);
/* queues being taken off a poller (np_med_stop()), under np_med_lock */
static unsigned int np_med_nr_leaving;
static unsigned int np_med_left_seq;	/* a queue left: wake the waiters */
static DECLARE_WAIT_QUEUE_HEAD(np_med_left_wq);
static struct np_poller np_pollers[NP_MED_MAX_POLLERS];
/* running threads; changed under both locks, read under either */
static unsigned int np_nr_pollers;
static bool np_med_ready;		/* np_med_init() done, np_med_cfg_lock */
static struct cpumask np_med_cpus;	/* under np_med_lock */

static unsigned int mediate_spin_us = 50;
module_param(mediate_spin_us, uint, 0644);
MODULE_PARM_DESC(mediate_spin_us,
		 "mediated mode: keep polling this long after the last command (us, default 50)");

static unsigned int mediate_idle_us = 100;
module_param(mediate_idle_us, uint, 0644);
MODULE_PARM_DESC(mediate_idle_us,
		 "mediated mode: first sleep when idle (us, default 100)");

static unsigned int mediate_idle_max_us = 10000;
module_param(mediate_idle_max_us, uint, 0644);
MODULE_PARM_DESC(mediate_idle_max_us,
		 "mediated mode: longest sleep when idle, the worst wake-up latency (us, default 10000)");

static bool mediate_hybrid = true;
module_param(mediate_hybrid, bool, 0644);
MODULE_PARM_DESC(mediate_hybrid,
		 "mediated mode: while commands are in flight, sleep half the usual wait for the next one before polling (default Y)");

static unsigned int mediate_batch = 64;
module_param(mediate_batch, uint, 0644);
MODULE_PARM_DESC(mediate_batch,
		 "mediated mode: most entries taken from one queue per pass (default 64)");

static unsigned int mediate_pollers = 1;

static int np_med_set_pollers(unsigned int n);
static int np_med_set_cpus(const char *list);

static int np_param_pollers_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n < 1 || n > NP_MED_MAX_POLLERS)
		return -EINVAL;
	return np_med_set_pollers(n);
}

static const struct kernel_param_ops np_param_pollers_ops = {
	.set = np_param_pollers_set,
	.get = param_get_uint,
};

module_param_cb(mediate_pollers, &np_param_pollers_ops, &mediate_pollers,
		0644);
MODULE_PARM_DESC(mediate_pollers,
		 "mediated mode: number of poller threads, 1-64 (default 1)");

static int np_param_cpus_set(const char *val, const struct kernel_param *kp)
{
	return np_med_set_cpus(val);
}

static int np_param_cpus_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&np_med_lock);
	ret = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(&np_med_cpus));
	mutex_unlock(&np_med_lock);
	return ret;
}

static const struct kernel_param_ops np_param_cpus_ops = {
	.set = np_param_cpus_set,
	.get = np_param_cpus_get,
};

module_param_cb(mediate_cpus, &np_param_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(mediate_cpus,
		 "mediated mode: CPU list; poller i runs on its i-th CPU, cyclically (default empty: any CPU)");

/* ---- the pollers -------------------------------------------------------- */

static bool np_med_woken(struct np_poller *p)
{
	return atomic_read(&p->kicked) || kthread_should_stop();
}

/* Sleep @us, at least a timer tick on a kernel without high-res timers. */
static void np_med_sleep(struct np_poller *p, unsigned int us)
{
	if (us)
		wait_event_interruptible_hrtimeout(p->wq, np_med_woken(p),
						   ns_to_ktime((u64)us * NSEC_PER_USEC));
	else
		wait_event_interruptible(p->wq, np_med_woken(p));
}

/*
 * One pass over every queue of @p; the number of entries handled.  @state
 * gets NP_MED_ANY when @p serves a queue, NP_MED_INFLIGHT when the
 * controller holds commands of one.
 */
#define NP_MED_ANY		1
#define NP_MED_INFLIGHT		2
static unsigned int np_med_pass(struct np_poller *p, unsigned int *state)
{
	u32 batch = max(READ_ONCE(mediate_batch), 1U);
	unsigned int done = 0;
	struct np_med *m;

	*state = 0;
	mutex_lock(&p->lock);
	np_inject_poller_stall(p->id);
	list_for_each_entry(m, &p->queues, node) {
		done += np_mp_pass(&m->mp, batch);
		*state |= NP_MED_ANY;
		if (m->mp.nr_free != m->mp.depth - 1)
			*state |= NP_MED_INFLIGHT;
	}
	mutex_unlock(&p->lock);
	return done;
}

/*
 * The running average @avg of the waits (ns) for the next command or
 * completion while the controller held commands, with a new wait @ns; a
 * wait longer than @max_ns (the longest idle sleep: a stalled command) is
 * left out.
 */
static u64 np_med_wait_avg(u64 avg, u64 ns, u64 max_ns)
{
	if (ns > max_ns)
		return avg;
	return avg ? avg - avg / 8 + ns / 8 : ns;
}

/*
 * The hybrid sleep in us for a wait average @wait (ns): half of it, at
 * most @max_us; 0 (poll at once) when hybrid polling is off (!@on) or half
 * the wait is shorter than NP_MED_HYBRID_MIN_NS or than the timers can
 * time (@res_ns, hrtimer_resolution).
 */
static unsigned int np_med_hybrid_us(u64 wait, bool on, u64 res_ns,
				     unsigned int max_us)
{
	if (!on || wait / 2 < max_t(u64, NP_MED_HYBRID_MIN_NS, res_ns))
		return 0;
	return min_t(u64, wait / 2 / NSEC_PER_USEC, max(max_us, 1U));
}

static int np_med_thread(void *arg)
{
	struct np_poller *p = arg;
	unsigned int sleep_us = 0, idle = 0, state;
	u64 now, until = 0;	/* poll until then (ns), once idle */
	u64 since = 0;		/* idle with commands in flight since (ns) */
	u64 wait = 0;		/* np_med_wait_avg() */
	unsigned int hybrid_us;

	while (!kthread_should_stop()) {
		if (np_med_pass(p, &state) ||
		    (atomic_read(&p->kicked) && atomic_xchg(&p->kicked, 0))) {
			/* one clock read per wait, none per busy pass */
			if (since)
				wait = np_med_wait_avg(wait, ktime_get_ns() - since,
						       (u64)READ_ONCE(mediate_idle_max_us) *
						       NSEC_PER_USEC);
			since = 0;
			idle = 0;
			sleep_us = 0;
			cond_resched();
			continue;
		}
		if (!state) {
			idle = 0;
			sleep_us = 0;
			since = 0;
			np_med_sleep(p, 0);
			continue;
		}
		/* idle: look at the clock every NP_MED_CLOCK_PASSES passes */
		if (idle++ % NP_MED_CLOCK_PASSES) {
			cond_resched();
			continue;
		}
		now = ktime_get_ns();
		if (idle == 1) {
			since = state & NP_MED_INFLIGHT ? now : 0;
			/*
			 * Hybrid polling: completions are due, and work came
			 * @wait apart of late; sleep half of that, then poll.
			 */
			hybrid_us = np_med_hybrid_us(wait,
						     READ_ONCE(mediate_hybrid),
						     hrtimer_resolution,
						     READ_ONCE(mediate_idle_max_us));
			if (since && hybrid_us) {
				np_med_sleep(p, hybrid_us);
				now = ktime_get_ns();
			}
			until = now + READ_ONCE(mediate_spin_us) *
				      (u64)NSEC_PER_USEC;
		}
		if (now < until) {
			cond_resched();
			continue;
		}
		sleep_us = clamp(sleep_us ? sleep_us * 2 :
				 READ_ONCE(mediate_idle_us), 1U,
				 max(READ_ONCE(mediate_idle_max_us), 1U));
		if ((state & NP_MED_INFLIGHT) &&
		    (u64)sleep_us * NSEC_PER_USEC < hrtimer_resolution) {
			/*
			 * Completions are due and the timers cannot time so
			 * short a sleep: poll that long instead.
			 */
			until = now + (u64)sleep_us * NSEC_PER_USEC;
			cond_resched();
			continue;
		}
		np_med_sleep(p, sleep_us);
		until = 0;
	}
	return 0;
}

/**
 * np_med_kick() - make every poller look at the shadow doorbells now
 */
void np_med_kick(void)
{
	unsigned int i, n = READ_ONCE(np_nr_pollers);

	for (i = 0; i < n; i++) {
		atomic_set(&np_pollers[i].kicked, 1);
		wake_up(&np_pollers[i].wq);
	}
}

/* The CPU of poller @id: the id-th of np_med_cpus, cyclically; or -1. */
static int np_med_cpu_of(unsigned int id)
{
	unsigned int n = cpumask_weight(&np_med_cpus), cpu;

	lockdep_assert_held(&np_med_lock);
	if (!n)
		return -1;
	id %= n;
	for_each_cpu(cpu, &np_med_cpus)
		if (!id--)
			return cpu;
	return -1;
}

static void np_med_bind(struct np_poller *p)
{
	lockdep_assert_held(&np_med_lock);
	p->cpu = np_med_cpu_of(p->id);
	set_cpus_allowed_ptr(p->task, p->cpu < 0 ? cpu_possible_mask :
			     cpumask_of(p->cpu));
}

/* The running poller serving the fewest queues. */
static struct np_poller *np_med_least_busy(void)
{
	struct np_poller *best = &np_pollers[0];
	unsigned int i;

	lockdep_assert_held(&np_med_lock);
	for (i = 1; i < np_nr_pollers; i++)
		if (np_pollers[i].nr_queues < best->nr_queues)
			best = &np_pollers[i];
	return best;
}

static void np_med_attach(struct np_med *m, struct np_poller *p)
{
	lockdep_assert_held(&np_med_lock);
	mutex_lock(&p->lock);
	list_add_tail(&m->node, &p->queues);
	mutex_unlock(&p->lock);
	p->nr_queues++;
	m->poller = p;
	WRITE_ONCE(m->poller_id, p->id);
	atomic_set(&p->kicked, 1);
	wake_up(&p->wq);
}

/* Create poller @id's thread, not running yet; 0 or a negative errno. */
static int np_med_poller_create(unsigned int id)
{
	struct np_poller *p = &np_pollers[id];
	struct task_struct *t;

	lockdep_assert_held(&np_med_cfg_lock);
	if (id)
		t = kthread_create(np_med_thread, p, "nvme-peer-med%u", id);
	else
		t = kthread_create(np_med_thread, p, "nvme-peer-med");
	if (IS_ERR(t))
		return PTR_ERR(t);
	p->id = id;
	p->nr_queues = 0;
	atomic_set(&p->kicked, 0);
	p->task = t;
	return 0;
}

/*
 * Run @n pollers and deal every running queue out to them again.  The
 * queues of a poller that goes are not served for a moment, never by two
 * threads at once.  Threads are created and stopped outside np_med_lock,
 * which DOWN events may wait for.
 */
static int np_med_resize(unsigned int n)
{
	unsigned int i, old = np_nr_pollers;
	struct np_med *m, *tmp;
	LIST_HEAD(all);
	int ret = 0;

	lockdep_assert_held(&np_med_cfg_lock);
	for (i = old; i < n; i++) {
		ret = np_med_poller_create(i);
		if (ret) {
			n = i;
			break;
		}
	}
	mutex_lock(&np_med_lock);
	while (np_med_nr_leaving) {	/* np_med_stop() holds no lock now */
		mutex_unlock(&np_med_lock);
		wait_event(np_med_left_wq, !READ_ONCE(np_med_nr_leaving));
		mutex_lock(&np_med_lock);
	}
	for (i = old; i < n; i++) {
		np_med_bind(&np_pollers[i]);
		wake_up_process(np_pollers[i].task);
	}
	for (i = 0; i < old; i++) {
		mutex_lock(&np_pollers[i].lock);
		list_splice_tail_init(&np_pollers[i].queues, &all);
		mutex_unlock(&np_pollers[i].lock);
		np_pollers[i].nr_queues = 0;
	}
	WRITE_ONCE(np_nr_pollers, n);
	list_for_each_entry_safe(m, tmp, &all, node) {
		list_del_init(&m->node);
		m->poller = NULL;
		WRITE_ONCE(m->poller_id, -1);
		if (n)
			np_med_attach(m, np_med_least_busy());
	}
	mutex_unlock(&np_med_lock);
	/* those serve no queue any more, and get none */
	for (i = n; i < old; i++) {
		kthread_stop(np_pollers[i].task);
		np_pollers[i].task = NULL;
	}
	return ret;
}

static int np_med_set_pollers(unsigned int n)
{
	int ret = 0;

	mutex_lock(&np_med_cfg_lock);
	if (np_med_ready)
		ret = np_med_resize(n);
	if (!ret)
		mediate_pollers = n;
	mutex_unlock(&np_med_cfg_lock);
	return ret;
}

static int np_med_set_cpus(const char *list)
{
	cpumask_var_t mask;
	unsigned int i;
	int ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpulist_parse(list, mask);	/* a trailing newline is fine */
	if (!ret && !cpumask_subset(mask, cpu_possible_mask))
		ret = -EINVAL;
	if (!ret) {
		mutex_lock(&np_med_lock);
		cpumask_copy(&np_med_cpus, mask);
		for (i = 0; i < np_nr_pollers; i++)
			np_med_bind(&np_pollers[i]);
		mutex_unlock(&np_med_lock);
	}
	free_cpumask_var(mask);
	return ret;
}

/* A dma-buf data buffer's controller address of @off (medpass.c). */
static u64 np_med_data_xlate(const void *ctx, u64 off)
{
	return np_mem_ctrl_addr(ctx, off);
}

/**
 * np_med_start() - start serving a reservation whose hardware queues exist
 * @q: the reservation; nothing happens unless it is active
 *
 * Resets every position: the shadow and hardware queues must be empty
 * (just created, or zeroed and created again).  The queue goes to the
 * poller serving the fewest.
 */
void np_med_start(struct nvme_peer_queue *q)
{
	struct np_med *m = q->med;
	struct np_mp *mp = &m->mp;
	bool start;

	mutex_lock(&np_med_lock);
	spin_lock(&q->pctrl->state_lock);
	start = q->state == NP_Q_ACTIVE && !m->poller && !m->leaving &&
		np_nr_pollers;
	spin_unlock(&q->pctrl->state_lock);
	if (start) {
		mp->policy = &m->policy;
		mp->qid = q->qid;
		mp->ssq = q->sq.vaddr;
		mp->scq = q->cq.vaddr;
		mp->sdb = q->sdb.vaddr;
		mp->hsq = q->hsq.vaddr;
		mp->hcq = q->hcq.vaddr;
		mp->hsq_db = np_hw_db(q, false);
		mp->hcq_db = np_hw_db(q, true);
		mp->data = q->data.vaddr;
		mp->data_size = q->data.size;	/* no vaddr: a dma-buf without vmap */
		mp->data_base = NVME_PEER_PRP_BASE;
		mp->data_dma = q->data.ctrl_dma;
		mp->data_xlate = q->data.dmabuf ? np_med_data_xlate : NULL;
		mp->data_ctx = &q->data;
		mp->prp = q->prp.vaddr;
		mp->prp_dma = q->prp.ctrl_dma;
		mp->slots = m->slots;
		mp->free = m->free;
		np_mp_reset(mp);
		np_med_attach(m, np_med_least_busy());
	}
	mutex_unlock(&np_med_lock);
}

/*
 * Wait until @m, which another np_med_stop() is taking off its poller, has
 * left it (or was freed: @q->med changed).  The wait itself reads only a
 * counter, never @m.
 */
static void np_med_wait_left(struct nvme_peer_queue *q, struct np_med *m)
{
	unsigned int seq;
	bool left;

	for (;;) {
		mutex_lock(&np_med_lock);
		left = q->med != m || !m->leaving;
		seq = np_med_left_seq;
		mutex_unlock(&np_med_lock);
		if (left)
			return;
		wait_event(np_med_left_wq, READ_ONCE(np_med_left_seq) != seq);
	}
}

/**
 * np_med_stop() - stop serving a reservation
 * @q: the reservation (mediated or not)
 *
 * On return no poller reads or writes @q's queues or rings its doorbells.
 * May be called more than once, and by several threads at once: the first
 * takes the queue off its poller, waiting for the poller's pass without
 * np_med_lock; the others wait for it.
 */
void np_med_stop(struct nvme_peer_queue *q)
{
	struct np_poller *p = NULL;
	struct np_med *m;
	bool wait = false;

	mutex_lock(&np_med_lock);
	m = q->med;
	if (m && m->poller) {
		p = m->poller;
		m->poller = NULL;
		m->leaving = p;
		p->nr_queues--;
		np_med_nr_leaving++;
		WRITE_ONCE(m->poller_id, -1);
	} else if (m && m->leaving) {
		wait = true;
	}
	mutex_unlock(&np_med_lock);

	if (p) {
		mutex_lock(&p->lock);	/* the pass in progress ends */
		list_del_init(&m->node);
		mutex_unlock(&p->lock);
		mutex_lock(&np_med_lock);
		m->leaving = NULL;
		np_med_nr_leaving--;
		WRITE_ONCE(np_med_left_seq, np_med_left_seq + 1);
		mutex_unlock(&np_med_lock);
		wake_up_all(&np_med_left_wq);
	} else if (wait) {
		np_med_wait_left(q, m);
	}
}

/**
 * np_med_idle() - whether the controller has finished every forwarded command
 * @q: a reservation no poller serves any more (np_med_stop())
 *
 * Counts the completions waiting in the hardware CQ, reaped or not: once
 * they match the commands forwarded and not yet reaped, the controller
 * holds no command of @q any more.  Only reads.
 *
 * Return: true for a direct queue or an idle mediated one.
 */
bool np_med_idle(struct nvme_peer_queue *q)
{
	struct np_med *m;
	bool idle;

	mutex_lock(&np_med_lock);
	m = q->med;
	if (m)
		np_inject_drain_read();	/* a release waits: np_med_lock */
	idle = !m || !m->mp.hcq || np_mp_idle(&m->mp);
	mutex_unlock(&np_med_lock);
	return idle;
}

/**
 * np_med_take() - take a queue's mediation state away, for its free
 * @q: a reservation no poller serves (np_med_stop() returned)
 *
 * @q->med goes under np_med_lock: a fence that reads the hardware CQ
 * through it (np_med_idle()) then sees no mediation instead of freed
 * memory.
 *
 * Return: the state, or NULL; the caller frees it.
 */
struct np_med *np_med_take(struct nvme_peer_queue *q)
{
	struct np_med *m;

	mutex_lock(&np_med_lock);
	m = q->med;
	WARN_ON_ONCE(m && (m->poller || m->leaving));
	q->med = NULL;
	mutex_unlock(&np_med_lock);
	return m;
}

int np_med_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NP_MED_MAX_POLLERS; i++) {
		mutex_init(&np_pollers[i].lock);
		INIT_LIST_HEAD(&np_pollers[i].queues);
		init_waitqueue_head(&np_pollers[i].wq);
	}
	mutex_lock(&np_med_cfg_lock);
	ret = np_med_resize(mediate_pollers);
	if (ret)
		np_med_resize(0);
	else
		np_med_ready = true;
	mutex_unlock(&np_med_cfg_lock);
	return ret;
}

void np_med_exit(void)
{
	mutex_lock(&np_med_cfg_lock);
	np_med_ready = false;
	np_med_resize(0);
	mutex_unlock(&np_med_cfg_lock);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/poller_kunit.c"
#endif
