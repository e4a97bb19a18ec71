// SPDX-License-Identifier: GPL-2.0
/*
 * chaos_test: a seeded chaos run.  For --seconds N, workers (processes)
 * pick random actions from a weighted table of every door and event this
 * topology has -- configfs intents (mkdir, enable, disable, rmdir, and
 * a mkdir/rmdir churn), the nvme-peer command, RESERVE and ATTACH by qid or
 * name, I/O, close, kill -9 of an owner, the in-kernel API (np-client),
 * controller resets, PCI remove and rescan, Format NVM, namespace attach
 * and detach and isolated reservations (SR-IOV), truncate and hole punch
 * of bound files (XFS), read-only windows (two-ctrl's PMR), dma-buf
 * evictions (np-accel) and module unload --
 * in epochs, over a ballast of disabled intents.  Each epoch ends with its
 * workers gone, every intent but the ballast and every in-kernel
 * reservation removed, and the invariants checked: every qid free, no
 * intent left, no VF or tenant left, every revoked owner told once.  One
 * time in four, and after the last epoch, the ballast goes too and the
 * modules are unloaded and loaded again.
 *
 * The seed is printed first; each worker's actions come from (seed,
 * epoch, worker) alone, so --seed replays the same choices (not the same
 * timing).  Every action is logged as "chaos: E.W.N action = result".
 * Commands a revoked owner submits read LBAs 0x30000 and up of namespace
 * 1, each printed as "# np-trace-absent: ..." for the host to look for in
 * QEMU's trace (scripts/check, scripts/soak).  A kernel report (KASAN,
 * lockdep, hung task, ...) in /dev/kmsg stops the run at once, exit 3:
 * the kernel is not to be trusted with a cleanup after that.
 *
 * Usage: chaos_test [--seconds N] [--seed S] [--workers K]
 *		     [--ballast N] [--no-unload]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include <linux/nvme_ioctl.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_file.h"
#include "np_sriov.h"

#define NP_MAX_CTRLS	4
#define NP_MAX_HELD	12
#define NP_MAX_INTENTS	32
#define NP_STALE_LBA	0x30000ULL	/* and up: only revoked owners' */
#define NP_LIVE_LBAS	0x10000		/* live I/O stays below */
#define NP_REPORT_EXIT	3

/* What this topology has, found once by the coordinator. */
static struct {
	char pci[NP_MAX_CTRLS][32];	/* the primaries (not VFs) */
	int nr;
	int fs_ctrl;			/* index of the one with XFS, or -1 */
	bool dmabuf, sriov;
} topo;

static struct {
	unsigned int seconds, workers, ballast;
	unsigned long long seed;
	bool unload;
	bool remove;	/* PCI remove and rescan of controllers */
} opt = { .seconds = 60, .workers = 4, .ballast = 3000, .unload = true,
	  .remove = true };

static unsigned long long np_rng_state;

/* splitmix64: the same stream for the same seed everywhere */
static unsigned long long np_rand64(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A reservation a worker holds through /dev/nvme-peer. */
struct np_held {
	int fd;			/* -1: slot free */
	struct np_map m;
	bool mapped, dead;	/* dead: a mapping faulted, leave it */
	char name[NVME_PEER_NAME_MAX];	/* attached by name */
	int ctrl;
	__u32 reason;		/* the revocation seen, 0 none yet */
	int file_fd, buf_fd;	/* bound file, dma-buf */
	char path[64];
};

struct np_worker {
	int id, epoch;
	unsigned long long rng;
	unsigned int seq, names;
	struct np_held held[NP_MAX_HELD];
	char intent[NP_MAX_INTENTS][NVME_PEER_NAME_MAX];
	int intent_ctrl[NP_MAX_INTENTS];
	int violations;
	int last;		/* the last guarded access's result */
};

static struct timespec np_t0;	/* the run's start, for the log */
static sigjmp_buf np_fault_jmp;
static sigjmp_buf *np_fault_at;	/* armed while an access may fault */
/*
 * An epoch either removes controllers or has np-client submit, never
 * both: np-client's peer is the CPU, and its doorbell write into a
 * removed controller's BAR, unmapped, faults where a device's write
 * would go nowhere (its revoke callback only counts, it stops nothing;
 * seed 11601827426315064554, 6.12).
 */
static bool np_removals;

static unsigned int np_rand(struct np_worker *w, unsigned int n)
{
	return n ? np_rand64(&w->rng) % n : 0;
}

/* One line, one write(): workers' lines do not mix. */
static void np_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(1, line, n) < 0)
		_exit(1);
}

/* Seconds since the run started. */
static double np_elapsed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec - np_t0.tv_sec + (ts.tv_nsec - np_t0.tv_nsec) / 1e9;
}

/* An action's line: "chaos: EPOCH.WORKER.SEQ TIME what = result". */
static void np_wlog(struct np_worker *w, const char *what, const char *fmt, ...)
{
	char line[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	np_log("chaos: %s%d.%d.%u %.1fs %s", what, w->epoch, w->id, w->seq,
	       np_elapsed(), line);
}

#define wlog(w, ...)		np_wlog(w, "", __VA_ARGS__)
/* An invariant broken: said at once, counted, the run fails. */
#define violation(w, ...)	do { \
	struct np_worker *__w = (w); \
	np_wlog(__w, "VIOLATION ", __VA_ARGS__); \
	__w->violations++; \
} while (0)

/* The controller's name now ("" while removed). */
static const char *np_cname(int c)
{
	static char name[4][32];
	static int n;
	char *buf = name[n++ % 4];

	snprintf(buf, 32, "%s", np_ctrl_of(topo.pci[c]));
	return buf;
}

static int np_cattr(int c, const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/%s", np_cname(c),
		 attr);
	return np_read_num(path);
}

static int np_pick_ctrl(struct np_worker *w)
{
	return np_rand(w, topo.nr);
}

/* ---- configfs intents ---------------------------------------------------- */

static int np_intent_slot(struct np_worker *w)
{
	int i;

	for (i = 0; i < NP_MAX_INTENTS; i++)
		if (!w->intent[i][0])
			return i;
	return -1;
}

static int np_pick_intent(struct np_worker *w)
{
	int i = np_rand(w, NP_MAX_INTENTS), n;

	for (n = 0; n < NP_MAX_INTENTS; n++, i = (i + 1) % NP_MAX_INTENTS)
		if (w->intent[i][0])
			return i;
	return -1;
}

static int act_mkdir(struct np_worker *w)
{
	int s = np_intent_slot(w), c = np_pick_ctrl(w), ret, first, nr;
	char attrs[128];
	const char *cn = np_cname(c);

	if (s < 0 || !cn[0])
		return -ENOSPC;
	snprintf(w->intent[s], NVME_PEER_NAME_MAX, "c%d-%d-%u", w->epoch,
		 w->id, w->names++);
	w->intent_ctrl[s] = c;
	first = np_cattr(c, "first_qid");
	nr = np_cattr(c, "nr_qids");
	snprintf(attrs, sizeof(attrs), "nsid=1 depth=%d uid=0%s",
		 2 << np_rand(w, 6), np_rand(w, 4) ? "" : " sq_placement=cmb");
	if (!np_rand(w, 3) && nr > 0)
		snprintf(attrs + strlen(attrs), sizeof(attrs) - strlen(attrs),
			 " qid=%d", first + np_rand(w, nr));
	if (np_rand(w, 4)) {
		ret = np_cfs_make(cn, w->intent[s], "%s", attrs);
	} else {
		/* disabled: enable comes later, or never */
		mkdir(np_cfs_path(cn, NULL, NULL), 0755);
		ret = mkdir(np_cfs_path(cn, w->intent[s], NULL), 0755) ?
		      -errno : np_write(np_cfs_path(cn, w->intent[s], "nsid"),
					"1");
	}
	wlog(w, "mkdir %s/%s %s = %d", cn, w->intent[s], attrs, ret);
	if (ret && access(np_cfs_path(cn, w->intent[s], NULL), F_OK))
		w->intent[s][0] = '\0';
	return ret;
}

static int act_toggle(struct np_worker *w)
{
	int i = np_pick_intent(w), on = np_rand(w, 2), ret;
	const char *cn;

	if (i < 0)
		return -ENOENT;
	cn = np_cname(w->intent_ctrl[i]);
	ret = np_write(np_cfs_path(cn, w->intent[i], "enable"), "%d", on);
	wlog(w, "enable %s/%s %d = %d", cn, w->intent[i], on, ret);
	return ret;
}

static int act_rmdir(struct np_worker *w)
{
	int i = np_pick_intent(w), ret;
	const char *cn;

	if (i < 0)
		return -ENOENT;
	cn = np_cname(w->intent_ctrl[i]);
	ret = np_cfs_remove(cn, w->intent[i]);
	wlog(w, "rmdir %s/%s = %d", cn, w->intent[i], ret);
	if (ret != -EBUSY)
		w->intent[i][0] = '\0';
	return ret;
}

/*
 * mkdir and rmdir of one intent in a loop, a third of them enabled in
 * between: rmdir while the controllers' events walk the list.
 */
static int act_churn(struct np_worker *w)
{
	int c = np_pick_ctrl(w), n = 20 + np_rand(w, 60), i, fails = 0;
	const char *cn = np_cname(c);
	char name[NVME_PEER_NAME_MAX];

	if (!cn[0])
		return -ENODEV;
	snprintf(name, sizeof(name), "k%d-%d", w->epoch, w->id);
	mkdir(np_cfs_path(cn, NULL, NULL), 0755);
	for (i = 0; i < n; i++) {
		if (mkdir(np_cfs_path(cn, name, NULL), 0755)) {
			fails++;
			continue;
		}
		if (!np_rand(w, 3) &&
		    !np_write(np_cfs_path(cn, name, "nsid"), "1"))
			np_write(np_cfs_path(cn, name, "enable"), "1");
		if (rmdir(np_cfs_path(cn, name, NULL)))
			fails++;
	}
	wlog(w, "churn %s/%s x%d = %d failed", cn, name, n, fails);
	return 0;
}

/*
 * The administrator's command: create, delete, show.  Not list: it reads
 * every attribute of the ballast too, for half a minute under TCG.
 */
static int act_tool(struct np_worker *w)
{
	int what = np_rand(w, 9), s = np_intent_slot(w);
	int i = np_pick_intent(w), c = np_pick_ctrl(w), ret;
	const char *cn;

	if (what < 3 && s >= 0) {
		cn = np_cname(c);
		snprintf(w->intent[s], NVME_PEER_NAME_MAX, "t%d-%d-%u",
			 w->epoch, w->id, w->names++);
		w->intent_ctrl[s] = c;
		ret = np_sys("nvme-peer create %s/%s nsid=1 uid=0 enable=1 >/dev/null 2>&1",
			     cn, w->intent[s]);
		wlog(w, "tool create %s/%s = %d", cn, w->intent[s], ret);
		if (access(np_cfs_path(cn, w->intent[s], NULL), F_OK))
			w->intent[s][0] = '\0';
		return ret;
	}
	if (what < 5 && i >= 0) {
		cn = np_cname(w->intent_ctrl[i]);
		ret = np_sys("nvme-peer delete %s/%s >/dev/null 2>&1", cn,
			     w->intent[i]);
		wlog(w, "tool delete %s/%s = %d", cn, w->intent[i], ret);
		if (access(np_cfs_path(cn, w->intent[i], NULL), F_OK))
			w->intent[i][0] = '\0';
		return ret;
	}
	if (i < 0)
		return -ENOENT;
	cn = np_cname(w->intent_ctrl[i]);
	ret = np_sys("nvme-peer show %s/%s >/dev/null 2>&1", cn, w->intent[i]);
	wlog(w, "tool show %s/%s = %d", cn, w->intent[i], ret);
	return ret;
}

/* ---- processes: RESERVE, ATTACH, I/O, close, kill -9 ----------------------- */

static struct np_held *np_held_slot(struct np_worker *w)
{
	int i;

	for (i = 0; i < NP_MAX_HELD; i++)
		if (w->held[i].fd < 0)
			return &w->held[i];
	return NULL;
}

static struct np_held *np_pick_held(struct np_worker *w)
{
	int i = np_rand(w, NP_MAX_HELD), n;

	for (n = 0; n < NP_MAX_HELD; n++, i = (i + 1) % NP_MAX_HELD)
		if (w->held[i].fd >= 0)
			return &w->held[i];
	return NULL;
}

static void np_held_drop(struct np_held *h)
{
	if (h->mapped && !h->dead)
		np_unmap_all(&h->m);
	if (h->fd >= 0)
		close(h->fd);
	if (h->file_fd >= 0)
		close(h->file_fd);
	if (h->buf_fd >= 0)
		close(h->buf_fd);
	if (h->path[0])
		unlink(h->path);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
	h->file_fd = -1;
	h->buf_fd = -1;
}

/* Map what the reservation lets a process map (not a dma-buf's data). */
static void np_held_map(struct np_held *h)
{
	memset(&h->m, 0, sizeof(h->m));
	h->mapped = !np_map_all(h->fd, &h->m, 1);
	if (!h->mapped) {
		np_unmap_all(&h->m);
		memset(&h->m, 0, sizeof(h->m));
		h->mapped = !np_map_all(h->fd, &h->m, 0);
		if (!h->mapped)
			np_unmap_all(&h->m);
	}
}

static void np_reserve_init(struct nvme_peer_reserve *r, int ctrl, int mode)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->ctrl = atoi(np_cname(ctrl) + 4);
	r->nsid = 1;
	r->depth = 64;
	r->sq_placement = NVME_PEER_PLACE_HOST;
	r->cq_placement = NVME_PEER_PLACE_HOST;
	r->data_placement = NVME_PEER_PLACE_HOST;
	r->data_size = 8192;
	r->mode = mode;
	if (mode == NVME_PEER_MODE_MEDIATED)
		r->opcodes = NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE;
}

static int np_do_reserve(struct np_held *h, struct nvme_peer_reserve *r)
{
	h->fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	if (ioctl(h->fd, NVME_PEER_IOC_RESERVE, r)) {
		int ret = -errno;

		close(h->fd);
		h->fd = -1;
		return ret;
	}
	np_held_map(h);
	return 0;
}

static int act_reserve(struct np_worker *w)
{
	struct np_held *h = np_held_slot(w);
	int c = np_pick_ctrl(w), direct = !np_rand(w, 4), ret;
	struct nvme_peer_reserve r;

	if (!h || !np_cname(c)[0])
		return -ENOSPC;
	np_reserve_init(&r, c, direct ? NVME_PEER_MODE_DIRECT :
			NVME_PEER_MODE_MEDIATED);
	if (!np_rand(w, 4))
		r.sq_placement = NVME_PEER_PLACE_CMB;
	r.depth = 2 << np_rand(w, 6);
	h->ctrl = c;
	ret = np_do_reserve(h, &r);
	wlog(w, "reserve %s %s sq=%d depth=%u = %d qid %u", np_cname(c),
	     direct ? "direct" : "mediated", r.sq_placement, r.depth, ret,
	     ret ? 0 : r.qid);
	return ret;
}

/* ATTACH to one of the worker's intents, by name or by its live qid. */
static int np_attach(struct np_worker *w, struct np_held *h, int i,
		     bool by_name, unsigned int *qid)
{
	struct nvme_peer_attach a = { .size = sizeof(a) };
	const char *cn = np_cname(w->intent_ctrl[i]);
	char buf[32];

	a.ctrl = atoi(cn + 4);
	if (by_name) {
		a.flags = NVME_PEER_ATTACH_BY_NAME;
		snprintf(a.name, sizeof(a.name), "%s", w->intent[i]);
	} else {
		if (np_cfs_read(cn, w->intent[i], "live_qid", buf, sizeof(buf)))
			return -ENOENT;
		a.qid = atoi(buf);
	}
	*qid = a.qid;
	if (h->fd < 0)
		h->fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	if (ioctl(h->fd, NVME_PEER_IOC_ATTACH, &a))
		return -errno;
	if (by_name)
		snprintf(h->name, sizeof(h->name), "%s", w->intent[i]);
	h->ctrl = w->intent_ctrl[i];
	np_held_map(h);
	return 0;
}

static int act_attach(struct np_worker *w)
{
	struct np_held *h = np_held_slot(w);
	int i = np_pick_intent(w), by_name = np_rand(w, 2), ret;
	unsigned int qid = 0;

	if (!h || i < 0)
		return -ENOENT;
	ret = np_attach(w, h, i, by_name, &qid);
	wlog(w, "attach %s/%s by %s %u = %d", np_cname(w->intent_ctrl[i]),
	     w->intent[i], by_name ? "name" : "qid", qid, ret);
	if (ret) {
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
	}
	return ret;
}

static void np_on_fault(int sig)
{
	sigjmp_buf *at = __atomic_load_n(&np_fault_at, __ATOMIC_RELAXED);

	if (at)
		siglongjmp(*at, 1);
	_exit(128 + sig);
}

/*
 * A revoked owner submits anyway: one read of a marked LBA, rung through
 * its mapping or NVME_PEER_IOC_RING, in a child (the revoked mappings
 * fault).  The host looks for the mark in QEMU's trace.
 */
static void np_stale(struct np_worker *w, struct np_held *h)
{
	unsigned long long lba = NP_STALE_LBA + (w->id << 12) +
				 (w->seq & 0xfff);
	pid_t pid;

	np_log("# np-trace-absent: nsid 1 nlb 1 count 512 lba 0x%llx$", lba);
	pid = fork();
	if (!pid) {
		np_cmd_ns(h->fd, &h->m, NPQ_OPC_READ, 1, lba, 1, 200);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * QUERY a held reservation: once revoked it stays revoked for the same
 * reason (told once), and poll() says so.
 */
static int np_held_check(struct np_worker *w, struct np_held *h,
			 struct nvme_peer_info *info)
{
	struct pollfd p = { .fd = h->fd, .events = POLLPRI };
	int revoked;

	if (np_query(h->fd, info))
		return -ENXIO;		/* released, or never attached */
	revoked = info->state == NVME_PEER_STATE_REVOKED;
	if (poll(&p, 1, 0) < 0 || !!(p.revents & POLLERR) != revoked)
		violation(w, "q%u state %u but poll 0x%x", info->qid,
			  info->state, p.revents);
	if (h->reason && (!revoked || info->reason != h->reason))
		violation(w, "q%u revoked for %u, now state %u reason %u",
			  info->qid, h->reason, info->state, info->reason);
	if (revoked)
		h->reason = info->reason;
	return revoked;
}

/* One read through the mappings, which a revocation may take away. */
static int np_io_guarded(struct np_worker *w, struct np_held *h, __u32 nsid,
			 __u64 lba)
{
	w->last = -EFAULT;
	__atomic_store_n(&np_fault_at, &np_fault_jmp, __ATOMIC_RELAXED);
	if (!sigsetjmp(np_fault_jmp, 1))
		w->last = np_cmd_ns(h->fd, &h->m, NPQ_OPC_READ, nsid, lba, 8,
				    2000);
	else
		h->dead = true;		/* revoked under the access */
	__atomic_store_n(&np_fault_at, NULL, __ATOMIC_RELAXED);
	return w->last;
}

static int act_io(struct np_worker *w)
{
	struct np_held *h = np_pick_held(w);
	struct nvme_peer_info info;
	int revoked, ret = 0;
	unsigned int qid;

	if (!h)
		return -ENOENT;
	revoked = np_held_check(w, h, &info);
	if (revoked < 0 || !h->mapped || h->dead) {
		wlog(w, "io fd %d: not mapped (%d)", h->fd, revoked);
		return 0;
	}
	if (revoked) {
		wlog(w, "io q%u revoked reason %u: stale read", info.qid,
		     info.reason);
		np_stale(w, h);
		/* a named reservation comes back: attach again */
		if (h->name[0] && np_rand(w, 2)) {
			int i;

			for (i = 0; i < NP_MAX_INTENTS; i++)
				if (!strcmp(w->intent[i], h->name))
					break;
			np_unmap_all(&h->m);
			h->mapped = false;
			h->reason = 0;
			ioctl(h->fd, NVME_PEER_IOC_RELEASE, 0);
			ret = i < NP_MAX_INTENTS ?
			      np_attach(w, h, i, true, &qid) : -ENOENT;
			wlog(w, "reattach %s = %d", h->name, ret);
		}
		return ret;
	}
	if (info.data_placement == NVME_PEER_PLACE_DMABUF || !info.data_size)
		return 0;
	ret = np_io_guarded(w, h, info.nsid, np_rand(w, NP_LIVE_LBAS));
	wlog(w, "io q%u read = %d%s", info.qid, ret, h->dead ? " (fault)" : "");
	return 0;
}

static int act_close(struct np_worker *w)
{
	struct np_held *h = np_pick_held(w);
	struct nvme_peer_info info;

	if (!h)
		return -ENOENT;
	np_held_check(w, h, &info);
	wlog(w, "close q%u%s%s", info.qid, h->name[0] ? " " : "", h->name);
	np_held_drop(h);
	return 0;
}

/* An owner killed at a random point of its life: reserve, map, I/O. */
static int act_kill(struct np_worker *w)
{
	int c = np_pick_ctrl(w), delay = np_rand(w, 30000), p[2], st = 0;
	struct nvme_peer_reserve r;
	pid_t pid;
	char x;

	if (pipe(p))
		return -errno;
	np_reserve_init(&r, c, np_rand(w, 3) ? NVME_PEER_MODE_MEDIATED :
			NVME_PEER_MODE_DIRECT);
	pid = fork();
	if (!pid) {
		struct np_held h = { .fd = -1, .file_fd = -1, .buf_fd = -1 };
		int i;

		close(p[0]);
		i = np_do_reserve(&h, &r);
		if (write(p[1], "r", 1) != 1 || i || !h.mapped)
			_exit(0);
		for (i = 0;; i++)
			np_cmd_ns(h.fd, &h.m, NPQ_OPC_READ, 1, i % NP_LIVE_LBAS,
				  8, 100);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -errno;
	}
	if (read(p[0], &x, 1) < 0)
		x = 0;
	close(p[0]);
	usleep(delay);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	wlog(w, "kill -9 owner on %s after %d us", np_cname(c), delay);
	return 0;
}

/* ---- the in-kernel API: np-client ------------------------------------------ */

/*
 * A random line of np-client's status: its qid, and whether it is active
 * or gone with its controller; -1 if none.
 */
static int np_client_pick(struct np_worker *w, bool *active, bool *removed,
			  bool *direct)
{
	char buf[8192], *l, *save, st[16], why[16], mode[16];
	int qid[64], act[64], rm[64], dir[64], n = 0, q, cb, i;

	if (np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)))
		return -1;
	for (l = strtok_r(buf, "\n", &save); l && n < 64;
	     l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "qid=%d %*s state=%15s reason=%15s callbacks=%d mode=%15s",
			   &q, st, why, &cb, mode) != 5)
			continue;
		if (cb > 1)
			violation(w, "np-client %s", l);
		qid[n] = q;
		rm[n] = !strcmp(why, "removed");
		dir[n] = !strcmp(mode, "direct");
		act[n++] = !strcmp(st, "active");
	}
	if (!n)
		return -1;
	i = np_rand(w, n);
	*active = act[i];
	*removed = rm[i];
	*direct = dir[i];
	return qid[i];
}

static int act_client(struct np_worker *w)
{
	static const char * const sq[] = { "host", "cmb" };
	int c = np_pick_ctrl(w), what = np_rand(w, 3), qid, ret;
	bool active, removed, direct;

	if (what == 0) {
		ret = np_write(NP_DBG_CLIENT "/reserve",
			       "%s 1 16 %s %s host 8192 cpu %s", np_cname(c),
			       sq[np_rand(w, 2)], "host",
			       np_rand(w, 3) ? "mediated" : "direct");
		wlog(w, "client reserve %s = %d", np_cname(c), ret);
		return ret;
	}
	qid = np_client_pick(w, &active, &removed, &direct);
	if (qid < 0)
		return -ENOENT;
	if (what == 1 || np_removals) {
		ret = np_write(NP_DBG_CLIENT "/release", "%d", qid);
		wlog(w, "client release q%d = %d", qid, ret);
		return ret;
	}
	if (active) {
		ret = np_write(NP_DBG_CLIENT "/io", "%d r %u 8 0", qid,
			       np_rand(w, NP_LIVE_LBAS));
		wlog(w, "client io q%d = %d", qid, ret);
		return ret;
	}
	/*
	 * A direct queue's driver that rings after its revoke callback
	 * reaches the controller until the fence's proof (the Delete, or the
	 * reset of a namespace fence, which sends no Delete): the API makes
	 * the driver stop, nvme-peer cannot.  It promises that for mediated
	 * queues (the poller forwards nothing after the revocation) and for
	 * processes (their mappings go): a stale read only there.
	 */
	if (removed || direct)
		return -ENODEV;
	{
		unsigned long long lba = NP_STALE_LBA + 0x8000 + (w->id << 11) +
					 (w->seq & 0x7ff);

		np_log("# np-trace-absent: nsid 1 nlb 1 count 512 lba 0x%llx$",
		       lba);
		ret = np_write(NP_DBG_CLIENT "/io", "%d s %llu 1 0", qid, lba);
		wlog(w, "client stale io q%d = %d", qid, ret);
	}
	return ret;
}

/* ---- the controller: reset, remove, Format, namespaces ---------------------- */

static int act_reset(struct np_worker *w)
{
	int c = np_pick_ctrl(w), ret;
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 np_cname(c));
	ret = np_write(path, "1");
	wlog(w, "reset %s = %d", np_cname(c), ret);
	return ret;
}

/* Remove and rescan a controller (not the one with XFS mounted). */
static int act_remove(struct np_worker *w)
{
	int c = np_pick_ctrl(w), delay = np_rand(w, 500000), ret;
	char path[128];

	if (c == topo.fs_ctrl)
		return -EBUSY;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 topo.pci[c]);
	ret = np_write(path, "1");
	usleep(delay);
	np_write("/sys/bus/pci/rescan", "1");
	wlog(w, "remove %s, rescan after %d us = %d", topo.pci[c], delay, ret);
	return ret;
}

/* Format NVM of namespace 1 through the admin passthrough (not XFS's). */
static int act_format(struct np_worker *w)
{
	struct nvme_admin_cmd cmd = { .opcode = 0x80, .nsid = 1 };
	int c = np_pick_ctrl(w), fd, ret;
	char dev[64];

	snprintf(dev, sizeof(dev), "/dev/%s", np_cname(c));
	fd = open(dev, O_RDWR);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	ret = ret < 0 ? -errno : ret;
	close(fd);
	wlog(w, "format %s nsid 1 = %#x", np_cname(c), ret);
	return ret;
}

/* SR-IOV: attach or detach a shared namespace to/from the primary. */
static int act_ns(struct np_worker *w)
{
	int c = np_pick_ctrl(w), nsid = 2 + np_rand(w, 2), ret;
	int cntlid = np_primary_cntlid(np_cname(c));
	bool attach = np_rand(w, 2);

	if (cntlid < 0)
		return -ENODEV;
	ret = np_door(attach ? "attach %s %d %d" : "detach %s %d %d",
		      np_cname(c), nsid, cntlid, 0, 0);
	wlog(w, "ns %s %s nsid %d = %d", attach ? "attach" : "detach",
	     np_cname(c), nsid, ret);
	return ret;
}

/* SR-IOV: an isolated reservation, a VF of its own. */
static int act_isolated(struct np_worker *w)
{
	struct np_held *h = np_held_slot(w);
	int c = np_pick_ctrl(w), ret;
	struct nvme_peer_reserve r;

	if (!h)
		return -ENOSPC;
	np_reserve_init(&r, c, NVME_PEER_MODE_ISOLATED);
	r.opcodes = 0;
	/* the switch primary's namespace 1 is private; peer-rp's is not */
	r.nsid = 1 + np_rand(w, 3);
	h->ctrl = c;
	ret = np_do_reserve(h, &r);
	wlog(w, "isolated %s nsid %u = %d qid %u", np_cname(c), r.nsid, ret,
	     ret ? 0 : r.qid);
	return ret;
}

/* ---- bound files and dma-bufs -------------------------------------------------- */

static int act_file(struct np_worker *w)
{
	struct np_held *h = np_held_slot(w);
	struct nvme_peer_reserve r;
	int ret;

	if (!h)
		return -ENOSPC;
	snprintf(h->path, sizeof(h->path), MNT "/chaos-%d-%d-%u", w->epoch,
		 w->id, w->names++);
	h->file_fd = np_mkfile_at(MNT, h->path + strlen(MNT) + 1, MIB,
				  w->seq);
	if (h->file_fd < 0) {
		ret = -EIO;
	} else {
		np_reserve_init(&r, topo.fs_ctrl, NVME_PEER_MODE_MEDIATED);
		r.flags = NVME_PEER_RESERVE_FILE;
		r.nsid = FS_NS;
		r.opcodes = NVME_PEER_OPCODE_READ;
		r.file_fd = h->file_fd;
		r.file_access = NVME_PEER_ACCESS_READ;
		r.file_len = MIB;
		h->ctrl = topo.fs_ctrl;
		ret = np_do_reserve(h, &r);
	}
	wlog(w, "bind %s = %d", h->path, ret);
	if (ret)
		np_held_drop(h);
	return ret;
}

/* Truncate or punch a bound file: the layout changes under the lease. */
static int act_layout(struct np_worker *w)
{
	int i, n = np_rand(w, NP_MAX_HELD), ret;
	struct np_held *h = NULL;

	for (i = 0; i < NP_MAX_HELD && !h; i++)
		if (w->held[(n + i) % NP_MAX_HELD].file_fd >= 0)
			h = &w->held[(n + i) % NP_MAX_HELD];
	if (!h)
		return -ENOENT;
	if (np_rand(w, 2)) {
		ret = ftruncate(h->file_fd, np_rand(w, 16) * 65536) ? -errno : 0;
		wlog(w, "truncate %s = %d", h->path, ret);
	} else {
		ret = fallocate(h->file_fd, FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, np_rand(w, 16) * 65536,
				65536) ? -errno : 0;
		wlog(w, "punch %s = %d", h->path, ret);
	}
	return ret;
}

/* Declare XFS's controller's PMR as showing its namespace again. */
static void np_declare_provider(const char *ctrl)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/config/nvme-peer/%s", ctrl);
	mkdir(path, 0755);
	strncat(path, "/pmr_nsid", sizeof(path) - strlen(path) - 1);
	np_write(path, "%d", FS_NS);
}

/*
 * Up to 16 loads of page @off of window @fd's view, a few ms apart, their
 * number in @loads (memory: kept across a fault's siglongjmp()): a load
 * faults only once the window is revoked (QUERY says so then: the
 * revocation marks it before it zaps the mapping).
 */
static void np_window_loads(struct np_worker *w, int fd, __u64 off,
			    unsigned int *sum, int *loads)
{
	struct nvme_peer_info info;
	unsigned char *v;
	int i;

	v = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, off);
	for (i = 0; v != MAP_FAILED && i < 16; i++) {
		__atomic_store_n(&np_fault_at, &np_fault_jmp, __ATOMIC_RELAXED);
		if (!sigsetjmp(np_fault_jmp, 1)) {
			*sum += __atomic_load_n(&v[np_rand(w, 4096)],
						__ATOMIC_RELAXED);
			(*loads)++;
		} else {
			__atomic_store_n(&np_fault_at, NULL, __ATOMIC_RELAXED);
			if (np_query(fd, &info) ||
			    info.state != NVME_PEER_STATE_REVOKED)
				violation(w, "window load faulted, state %u",
					  info.state);
			break;
		}
		__atomic_store_n(&np_fault_at, NULL, __ATOMIC_RELAXED);
		usleep(np_rand(w, 5000));
	}
	if (v != MAP_FAILED)
		munmap(v, 4096);
}

/*
 * A read-only window of namespace 2 on XFS's controller (its PMR mirrors
 * it in two-ctrl), held for a few loads while everything else goes on.
 * The declaration is made again when a removal or an unload took it.
 */
static int act_window(struct np_worker *w)
{
	__u64 slba = np_rand(w, 1 << 17), nlb = 8 + np_rand(w, 256);
	struct nvme_peer_extent ext = { .slba = slba, .nlb = nlb };
	unsigned long long first = (slba * 512 + 4095) & ~4095ULL;
	const char *ctrl = np_cname(topo.fs_ctrl);
	struct nvme_peer_window_req r;
	struct nvme_peer_info info;
	unsigned int sum = 0;
	int fd, i, loads = 0, ret;

	nlb = (nlb + 8) & ~7ULL;	/* at least one whole page */
	ext.nlb = nlb + ((first / 512) - slba);
	fd = np_open();
	if (fd < 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.ctrl = atoi(ctrl + 4);
		r.nsid = FS_NS;
		r.nr_extents = 1;
		r.extents = (uintptr_t)&ext;
		ret = ioctl(fd, NVME_PEER_IOC_WINDOW, &r) ? -errno : 0;
		if (ret != -ENXIO || i)
			break;
		np_declare_provider(ctrl);
	}
	if (ret) {
		wlog(w, "window %s lba %llu+%llu = %d", ctrl, slba,
		     (unsigned long long)ext.nlb, ret);
		close(fd);
		return ret;
	}
	np_window_loads(w, fd, r.mmap_off + first, &sum, &loads);
	np_query(fd, &info);
	wlog(w, "window %s lba %llu+%llu: %d loads (sum %u), state %u reason %u",
	     ctrl, slba, (unsigned long long)ext.nlb, loads, sum, info.state,
	     info.reason);
	close(fd);
	return 0;
}

/* Make window intent @name of @ctrl on extent @slba+64, uid 0: 0 or -errno */
static int np_win_intent_make(struct np_worker *w, const char *ctrl,
			      const char *name, unsigned long long slba)
{
	int ret, i;

	for (i = 0; i < 2; i++) {
		ret = np_cfs_make(ctrl, name, "nsid=%d extents=%llu+64 uid=0",
				  FS_NS, slba);
		if (ret != -ENXIO)
			break;
		np_declare_provider(ctrl);
	}
	wlog(w, "window intent %s/%s = %d", ctrl, name, ret);
	return ret;
}

/*
 * An administrator's window on XFS's namespace, configfs windows/cwN
 * (four names shared by every worker): made, toggled, removed, or
 * attached by name for a few loads, while resets, Formats, removals and
 * unloads go on; an attached window's load faults only once revoked.
 */
static int act_win_intent(struct np_worker *w)
{
	unsigned long long slba = 8ULL * np_rand(w, 1 << 14);
	const char *ctrl = np_cname(topo.fs_ctrl);
	struct nvme_peer_info info;
	struct nvme_peer_attach a = {
		.size = sizeof(a),
		.flags = NVME_PEER_ATTACH_BY_NAME | NVME_PEER_ATTACH_WINDOW,
		.ctrl = atoi(ctrl + 4),
	};
	char name[32], state[16] = "";
	unsigned int sum = 0;
	int fd, loads = 0, ret;

	snprintf(name, sizeof(name), NP_CFS_WIN "/cw%d", np_rand(w, 4));
	switch (np_rand(w, 4)) {
	case 0:
		return np_win_intent_make(w, ctrl, name, slba);
	case 1:
		np_read(np_cfs_path(ctrl, name, "enable"), state, sizeof(state));
		ret = np_write(np_cfs_path(ctrl, name, "enable"), "%d",
			       strcmp(state, "1") ? 1 : 0);
		wlog(w, "window intent %s/%s enable %s -> = %d", ctrl, name,
		     state, ret);
		return ret;
	case 2:
		ret = np_cfs_remove(ctrl, name);
		wlog(w, "window intent rmdir %s/%s = %d", ctrl, name, ret);
		return ret;
	}
	fd = np_open();
	if (fd < 0)
		return -errno;
	snprintf(a.name, sizeof(a.name), "%s", name + strlen(NP_CFS_WIN) + 1);
	ret = ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ? -errno : 0;
	/* every epoch's end removes them: make it, then attach */
	if (ret == -ENOENT && !np_win_intent_make(w, ctrl, name, slba))
		ret = ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ? -errno : 0;
	if (!ret)
		ret = np_query(fd, &info);
	if (ret) {
		wlog(w, "window attach %s/%s = %d", ctrl, name, ret);
		close(fd);
		return ret;
	}
	/* the pages of the intent's one extent: find them by loading */
	np_read(np_cfs_path(ctrl, name, "extents"), state, sizeof(state));
	slba = strtoull(state, NULL, 10);
	np_window_loads(w, fd, info.data_off + slba * 512, &sum, &loads);
	np_query(fd, &info);
	wlog(w, "window attach %s/%s lba %llu: %d loads (sum %u), state %u reason %u",
	     ctrl, name, slba, loads, sum, info.state, info.reason);
	close(fd);
	return 0;
}

static int act_dmabuf(struct np_worker *w)
{
	struct np_held *h = np_held_slot(w);
	int c = np_pick_ctrl(w), ret;
	struct nvme_peer_reserve r;
	char buf[32];

	if (!h || np_write(NP_DBG_ACCEL "/dmabuf_size", "%d", 65536) ||
	    np_read(NP_DBG_ACCEL "/dmabuf", buf, sizeof(buf)))
		return -ENODEV;
	h->buf_fd = atoi(buf);
	np_reserve_init(&r, c, np_rand(w, 3) ? NVME_PEER_MODE_MEDIATED :
			NVME_PEER_MODE_DIRECT);
	r.data_placement = NVME_PEER_PLACE_DMABUF;
	r.data_size = 65536;
	r.data_buf.fd = h->buf_fd;
	r.data_buf.length = 65536;
	h->ctrl = c;
	ret = np_do_reserve(h, &r);
	wlog(w, "dmabuf reserve %s = %d", np_cname(c), ret);
	if (ret)
		np_held_drop(h);
	return ret;
}

static int act_evict(struct np_worker *w)
{
	int ret = np_write(NP_DBG_ACCEL "/evict", "1");

	wlog(w, "evict = %d", ret);
	return ret;
}

/* ---- the table ----------------------------------------------------------------- */

enum { NEED_FS = 1, NEED_DMABUF = 2, NEED_SRIOV = 4, NEED_TWO = 8 };

static const struct np_action {
	const char *name;
	unsigned int weight, need;
	int (*fn)(struct np_worker *w);
} np_actions[] = {
	{ "mkdir", 10, 0, act_mkdir },
	{ "enable", 6, 0, act_toggle },
	{ "rmdir", 7, 0, act_rmdir },
	{ "churn", 10, 0, act_churn },
	{ "tool", 3, 0, act_tool },
	{ "reserve", 8, 0, act_reserve },
	{ "attach", 7, 0, act_attach },
	{ "io", 8, 0, act_io },
	{ "close", 6, 0, act_close },
	{ "kill", 3, 0, act_kill },
	{ "client", 6, 0, act_client },
	{ "reset", 7, 0, act_reset },
	{ "remove", 1, NEED_TWO, act_remove },
	{ "format", 1, 0, act_format },
	{ "ns", 2, NEED_SRIOV, act_ns },
	{ "isolated", 3, NEED_SRIOV, act_isolated },
	{ "file", 4, NEED_FS, act_file },
	{ "layout", 3, NEED_FS, act_layout },
	{ "window", 3, NEED_FS, act_window },
	{ "winintent", 3, NEED_FS, act_win_intent },
	{ "dmabuf", 3, NEED_DMABUF, act_dmabuf },
	{ "evict", 2, NEED_DMABUF, act_evict },
};

static bool np_action_ok(const struct np_action *a)
{
	return !((a->need & NEED_FS && topo.fs_ctrl < 0) ||
		 (a->need & NEED_TWO && !np_removals) ||
		 (a->need & NEED_DMABUF && !topo.dmabuf) ||
		 (a->need & NEED_SRIOV && !topo.sriov) ||
		 /* removal of the only controller but XFS's */
		 (a->need & NEED_TWO && topo.nr < 2 && topo.fs_ctrl == 0));
}

static const struct np_action *np_pick_action(struct np_worker *w)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < ARRAY_SIZE(np_actions); i++)
		if (np_action_ok(&np_actions[i]))
			total += np_actions[i].weight;
	r = np_rand(w, total);
	for (i = 0; i < ARRAY_SIZE(np_actions); i++) {
		if (!np_action_ok(&np_actions[i]))
			continue;
		if (r < np_actions[i].weight)
			break;
		r -= np_actions[i].weight;
	}
	return &np_actions[i];
}

static time_t np_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* A worker: actions until @end, then exit (the owners' exit is a door). */
static int np_worker_run(int epoch, int id, time_t end)
{
	struct np_worker w = { .epoch = epoch, .id = id };
	struct sigaction sa = { .sa_handler = np_on_fault };
	int i;

	w.rng = opt.seed ^ (0x1000193ULL * (epoch + 1));
	/* the same in every worker */
	np_removals = (np_rand64(&w.rng) & 1) && opt.remove;
	w.rng ^= (unsigned long long)id << 48;
	np_rand64(&w.rng);
	for (i = 0; i < NP_MAX_HELD; i++)
		np_held_drop(&w.held[i]);
	sigaction(SIGBUS, &sa, NULL);
	while (np_now() < end) {
		const struct np_action *a = np_pick_action(&w);

		w.seq++;
		a->fn(&w);
	}
	/* an owner closes, or just exits */
	for (i = 0; i < NP_MAX_HELD; i++)
		if (w.held[i].fd >= 0 && np_rand(&w, 2))
			np_held_drop(&w.held[i]);
	for (i = 0; i < NP_MAX_HELD; i++)
		if (w.held[i].path[0])
			unlink(w.held[i].path);
	return w.violations ? 1 : 0;
}

/* ---- the coordinator ------------------------------------------------------------ */

static int np_kmsg = -1;

/* A kernel report in /dev/kmsg since the last look: print it, true. */
static bool np_kernel_report(void)
{
	static const char * const bad[] = {
		"BUG:", "WARNING:", "Oops", "KASAN", "UBSAN", "lockdep",
		"circular locking", "recursive locking", "INFO: task",
		"general protection", "Kernel panic", "inconsistent lock",
		"RCU usage", "bad unlock", "held lock freed",
		"revoke callbacks",	/* np-client: an owner told twice */
	};
	char rec[2048];
	bool found = false;
	ssize_t n;
	size_t i;

	while (np_kmsg >= 0 && (n = read(np_kmsg, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten: read on */
			break;
		}
		rec[n] = '\0';
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			if (strstr(rec, bad[i]))
				found = true;
		if (found) {
			rec[strcspn(rec, "\n")] = '\0';
			np_log("chaos: kernel report: %s", strchr(rec, ';') ?
			       strchr(rec, ';') + 1 : rec);
			return true;
		}
	}
	return false;
}

static void np_find_topology(void)
{
	const char *pci, *mnt;
	int i;

	topo.fs_ctrl = -1;
	for (i = 0; i < 8 && topo.nr < NP_MAX_CTRLS; i++) {
		char path[128];

		pci = np_nvme_pci(i);
		if (!pci)
			break;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/physfn",
			 pci);
		if (!access(path, F_OK))
			continue;		/* a VF */
		snprintf(topo.pci[topo.nr++], sizeof(topo.pci[0]), "%s", pci);
	}
	if (!strcmp(np_topology(), "two-ctrl")) {
		mnt = np_fs();
		if (mnt)
			np_log("chaos: no XFS: %s", mnt);
		else
			topo.fs_ctrl = 0;	/* np_ctrl(): the first */
	}
	topo.dmabuf = !access(NP_DBG_ACCEL "/dmabuf", F_OK) &&
		      strcmp(np_topology(), "rootports");
	topo.sriov = !np_sriov_missing();
}

/* Wait up to @secs for every controller live and all its qids free. */
static int np_settled(int secs)
{
	int i, c, ok = 0;

	for (i = 0; i < secs * 10 && !ok; i++) {
		ok = 1;
		for (c = 0; c < topo.nr; c++)
			if (np_cattr(c, "live") != 1 ||
			    np_cattr(c, "free") != np_cattr(c, "nr_qids"))
				ok = 0;
		if (topo.sriov)
			for (c = 0; c < topo.nr; c++)
				if (np_tenants(np_cname(c)) != 0)
					ok = 0;
		if (!ok)
			usleep(100000);
	}
	return ok;
}

static int np_results, np_failed;

static void np_result(bool ok, const char *name)
{
	np_log("%sok %d chaos.%s", ok ? "" : "not ", ++np_results, name);
	np_failed += !ok;
}

#define NP_BALLAST	"ballast-"

/*
 * The ballast: @n disabled intents on the first controller, made before
 * the first epoch and again after a module reload.  Every walk of the
 * intent list (each controller's live and gone events) gets longer.
 */
static void np_make_ballast(unsigned int n)
{
	const char *cn = np_cname(0);
	char name[NVME_PEER_NAME_MAX];
	double t = np_elapsed();
	unsigned int i;

	mkdir(np_cfs_path(cn, NULL, NULL), 0755);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), NP_BALLAST "%u", i);
		if (mkdir(np_cfs_path(cn, name, NULL), 0755))
			break;
	}
	np_log("chaos: ballast: %u disabled intents on %s in %.1f s", i, cn,
	       np_elapsed() - t);
}

/*
 * Remove every intent but the ballast (@all: the ballast and the
 * controllers' directories too); how many are left.
 */
static int np_clear_intents(bool all)
{
	DIR *d = opendir(NP_CFS), *c;
	struct dirent *e, *i;
	char path[300];
	int left = 0;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), NP_CFS "/%s", e->d_name);
		/* windows' intents first: their directory is the controller's */
		np_cfs_clear_in(e->d_name, NP_CFS_WIN);
		c = opendir(path);
		while (c && (i = readdir(c))) {
			if (i->d_type != DT_DIR || i->d_name[0] == '.' ||
			    !strcmp(i->d_name, NP_CFS_WIN) ||
			    (!all && !strncmp(i->d_name, NP_BALLAST,
					      strlen(NP_BALLAST))))
				continue;
			if (np_cfs_remove(e->d_name, i->d_name)) {
				np_log("chaos: left: %s/%s", path, i->d_name);
				left++;
			}
		}
		if (c)
			closedir(c);
		if (all && rmdir(path)) {
			np_log("chaos: left: %s", path);
			left++;
		}
	}
	if (d)
		closedir(d);
	return left;
}

/* Every peer/ directory of every controller (VFs too): no qN/ left. */
static int np_qdirs_left(void)
{
	DIR *d = opendir("/sys/class/nvme"), *p;
	struct dirent *e, *q;
	char path[300];
	int n = 0;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer",
			 e->d_name);
		p = opendir(path);
		while (p && (q = readdir(p)))
			if (q->d_name[0] == 'q' && q->d_name[1] >= '0' &&
			    q->d_name[1] <= '9') {
				np_log("chaos: left: %s/%s", path, q->d_name);
				n++;
			}
		if (p)
			closedir(p);
	}
	if (d)
		closedir(d);
	return n;
}

/* Unload and load again what run-guest.sh loaded, and np-client. */
static int np_reload(void)
{
	np_sys("rmmod np-client 2>/dev/null");
	if (np_sys("rmmod np-accel") || np_sys("rmmod nvme-peer"))
		return -EBUSY;
	if (np_sys("modprobe nvme-peer allow_direct=1") ||
	    np_sys("modprobe np-accel") || np_sys("modprobe np-client"))
		return -EIO;
	return 0;
}

/* Where each process is: its command, state, wchan and kernel stack. */
static void np_show_stuck(void)
{
	char path[300], comm[64], stat[256], wchan[64], buf[2048];
	struct dirent *e;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		/* kernel threads have no command line */
		if (np_read(path, buf, sizeof(buf)) || !buf[0])
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		np_read(path, comm, sizeof(comm));
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		np_read(path, stat, sizeof(stat));
		snprintf(path, sizeof(path), "/proc/%s/wchan", e->d_name);
		if (np_read(path, wchan, sizeof(wchan)))
			wchan[0] = '\0';
		np_log("chaos: pid %s %s: %.60s, wchan %s", e->d_name, comm,
		       strchr(stat, ')') ? strchr(stat, ')') + 2 : stat, wchan);
		snprintf(path, sizeof(path), "/proc/%s/stack", e->d_name);
		if (!np_read(path, buf, sizeof(buf)))
			np_log("%s", buf);
	}
	if (d)
		closedir(d);
}

static void np_replay(const char *kver)
{
	np_log("chaos: replay: make soak SECONDS=%u SEED=%llu TOPOLOGY=%s NP_KERNEL=%s",
	       opt.seconds, opt.seed, np_topology(), kver);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seconds", 1, NULL, 's' }, { "seed", 1, NULL, 'S' },
		{ "workers", 1, NULL, 'w' }, { "ballast", 1, NULL, 'b' },
		{ "no-unload", 0, NULL, 'n' }, { "no-remove", 0, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	bool seeded = false, report = false, settled = true, no_intent = true;
	bool stuck = false;
	int o, epoch, k, st, left, bad = 0, told_twice = 0, died = 0, stalled;
	unsigned int ballast;
	pid_t pid[64];
	time_t end, start, eend;
	char kver[64], panic_on_oops[16] = "0";

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 's':
			opt.seconds = atoi(optarg);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'w':
			opt.workers = atoi(optarg);
			break;
		case 'b':
			opt.ballast = atoi(optarg);
			break;
		case 'n':
			opt.unload = false;
			break;
		case 'r':
			opt.remove = false;
			break;
		default:
			return 2;
		}
	}
	if (!opt.workers || opt.workers > ARRAY_SIZE(pid))
		return 2;
	if (!seeded && getrandom(&opt.seed, sizeof(opt.seed), 0) !=
	    sizeof(opt.seed))
		opt.seed = time(NULL);
	np_read("/proc/sys/kernel/osrelease", kver, sizeof(kver));
	kver[strspn(kver, "0123456789.")] = '\0';
	*strrchr(kver, '.') = '\0';	/* 6.12.57 -> 6.12 */
	clock_gettime(CLOCK_MONOTONIC, &np_t0);
	np_log("chaos: seed %llu seconds %u workers %u topology %s kernel %s",
	       opt.seed, opt.seconds, opt.workers, np_topology(), kver);
	np_log("TAP version 13");
	if (np_missing()) {
		np_log("ok 1 chaos # SKIP %s", np_missing());
		return 0;
	}
	np_find_topology();
	np_log("chaos: %d controllers, xfs %s, dma-buf %s, sr-iov %s", topo.nr,
	       topo.fs_ctrl >= 0 ? "yes" : "no", topo.dmabuf ? "yes" : "no",
	       topo.sriov ? "yes" : "no");
	np_rng_state = opt.seed;
	np_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (np_kmsg >= 0)
		lseek(np_kmsg, 0, SEEK_END);
	np_write("/sys/kernel/debug/kmemleak", "clear");
	/*
	 * An oops may take the CPU that would read /dev/kmsg with it, or
	 * leave locks held that stop everything: panic instead (vm-run
	 * boots with panic=-1, QEMU with -no-reboot: it exits at once,
	 * the report on the console).
	 */
	np_read("/proc/sys/kernel/panic_on_oops", panic_on_oops,
		sizeof(panic_on_oops));
	np_write("/proc/sys/kernel/panic_on_oops", "1");
	setvbuf(stdout, NULL, _IONBF, 0);

	start = np_now();
	end = start + opt.seconds;
	ballast = opt.ballast / 2 + np_rand64(&np_rng_state) % (opt.ballast / 2 + 1);
	np_make_ballast(ballast);
	for (epoch = 0; !report && np_now() < end; epoch++) {
		eend = np_now() + 15 + np_rand64(&np_rng_state) % 20;
		if (eend > end || end - eend < 10)
			eend = end;
		if (access(NP_DBG_CLIENT, F_OK))
			np_sys("modprobe np-client");
		np_log("chaos: epoch %d: %d s, at %.1f s", epoch,
		       (int)(eend - np_now()), np_elapsed());
		for (k = 0; k < (int)opt.workers; k++) {
			pid[k] = fork();
			if (!pid[k])
				_exit(np_worker_run(epoch, k, eend));
		}
		/* watch the kernel; workers end at eend, or are stuck */
		for (left = opt.workers, stalled = 0; left && !report;) {
			report = np_kernel_report();
			for (k = 0; k < (int)opt.workers; k++) {
				if (pid[k] <= 0 || waitpid(pid[k], &st, WNOHANG) != pid[k])
					continue;
				/* 1: an owner told twice; else it died */
				told_twice += WIFEXITED(st) && WEXITSTATUS(st) == 1;
				died += !WIFEXITED(st) || WEXITSTATUS(st) > 1;
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					np_log("chaos: worker %d: wait status %#x",
					       k, st);
				pid[k] = 0;
				left--;
			}
			if (left && np_now() > eend + 120 && !stalled++) {
				np_log("chaos: %d workers still at work 120 s after the end",
				       left);
				np_show_stuck();
				stuck = true;
				report = true;
			}
			usleep(200000);
		}
		if (report)
			break;
		/* the epoch's end: all but the ballast removed, all free */
		np_write(NP_DBG_CLIENT "/release", "all");
		if (np_clear_intents(false)) {
			np_log("chaos: epoch %d: intents left", epoch);
			no_intent = false;
		}
		if (topo.sriov)
			for (k = 0; k < topo.nr; k++)
				for (o = 2; o <= 4; o++)
					np_door("detach %s %d %d", np_cname(k), o,
						np_primary_cntlid(np_cname(k)), 0, 0);
		if (!np_settled(60) || np_qdirs_left()) {
			np_log("chaos: epoch %d: qids or VFs not free", epoch);
			settled = false;
		}
		report = np_kernel_report();
		/* one time in four, and after the last: everything goes */
		if (!report && (np_now() >= end || np_rand64(&np_rng_state) % 4 == 0)) {
			if (np_clear_intents(true))
				no_intent = false;
			if (opt.unload) {
				o = np_reload();
				np_log("chaos: epoch %d: modules unloaded and loaded = %d",
				       epoch, o);
				bad += !!o;
			}
			if (np_now() < end)
				np_make_ballast(ballast);
			report = np_kernel_report();
		}
	}
	/* the ballast made again after the last epoch's clearing, if any */
	if (!report && np_clear_intents(true))
		no_intent = false;
	if (report) {
		np_log("chaos: stopped in epoch %d, %ld s in; seed %llu",
		       epoch, (long)(np_now() - start), opt.seed);
		np_replay(kver);
		np_result(false, stuck ? "no_stuck_worker" : "no_kernel_report");
		return NP_REPORT_EXIT;
	}
	np_write("/proc/sys/kernel/panic_on_oops", "%s", panic_on_oops);
	np_result(!told_twice, "owners_told_once");
	np_result(!died, "workers_exit_cleanly");
	np_result(no_intent, "no_intent_left");
	np_result(settled, "every_qid_and_vf_free");
	if (opt.unload)
		np_result(!bad, "modules_unload_and_load");
	if (!access("/sys/kernel/debug/kmemleak", F_OK)) {
		char leaks[256] = "";

		np_write("/sys/kernel/debug/kmemleak", "scan");
		np_read("/sys/kernel/debug/kmemleak", leaks, sizeof(leaks));
		if (leaks[0])
			np_log("chaos: kmemleak: %s", leaks);
		np_result(!leaks[0], "kmemleak_clean");
	}
	np_result(!np_kernel_report(), "no_kernel_report");
	np_log("1..%d", np_results);
	if (np_failed)
		np_replay(kver);
	return np_failed ? 1 : 0;
}
