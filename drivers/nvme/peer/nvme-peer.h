/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer internals shared by the framework's files and its KUnit tests.
 *
 * Lock order, outer first (the one table; code asserts with lockdep):
 *
 *   np_cfs_lock           mutex (configfs.c): the list of intents
 *   r->lock               mutex (configfs.c): one intent, its enabling and
 *                         re-creation, which reserve and release under it
 *   np_ctrls_lock         mutex: adding and removing controllers; lookups
 *                         of np_ctrls run under RCU
 *   pctrl->forget_lock    mutex: np_ctrl_forget() runs once
 *   pctrl->lock           mutex: reserve, release, recycle and teardown of
 *                         one controller's queues; admin commands are sent
 *                         under it, so the DOWN and DISABLED events (which
 *                         may run from the NVMe timeout handler while one
 *                         waits) and the namespace fence never take it
 *   ctrl->scan_lock       nvme core's, around Identify Namespace only
 *   np_med_lock           mutex (poller.c): the pollers, which queue each
 *                         serves; under it a poller's own lock, held for
 *                         that poller's whole pass
 *   pctrl->state_lock     spinlock: live state, generation, qid bitmap,
 *                         queue list, every queue's state and the uevents
 *                         it waits to send; the queue list changes only
 *                         with pctrl->lock held too
 *
 *   pctrl->cb_sem         rwsem, read while an event calls owners back; a
 *                         release takes it for write to wait for them; an
 *                         owner's callback may take its own locks (cdev.c's
 *                         map_lock) inside it
 */
#ifndef _NVME_PEER_INTERNAL_H
#define _NVME_PEER_INTERNAL_H

#include <linux/blk_types.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/nvme.h>
#include <linux/nvme-peer.h>
#include <linux/nvme-pci-peer.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

struct request;

#include "compat.h"
#include "guard.h"
#include "words.h"

#define NP_MAX_DATA_SIZE	(64U << 20)
/* host buffers are one physically contiguous allocation: the buddy limit */
#define NP_MAX_HOST_DATA_SIZE	(PAGE_SIZE << MAX_PAGE_ORDER)
#define NP_QID_BITS		65536
/* how long a fence waits for a mediated queue's forwarded commands */
#define NP_FENCE_BUDGET		(5 * HZ)

enum np_qevent {
	NP_EV_CREATED,
	NP_EV_REVOKE,
	NP_EV_RELEASE,
};

/* extents an administrator's intent may list (a configfs page holds them) */
#define NP_CFS_MAX_EXTENTS	NP_EXTENTS_MAX

struct np_med;
struct np_bind;
struct kernfs_node;

/* What a uevent of a reservation says (sysfs.c) */
enum np_uev_kind {
	NP_UEV_ADD,		/* qN/ appeared */
	NP_UEV_CHANGE,		/* its state changed */
	NP_UEV_REMOVE,		/* qN/ went */
};

/* One uevent waiting to be sent: what was true when it happened. */
struct np_uev {
	u8 kind;		/* enum np_uev_kind */
	u8 state;		/* enum np_qstate */
	u8 reason;		/* enum nvme_peer_reason */
};

/* added, revoked, released, removed: states only move forward */
#define NP_UEV_MAX		4

/* A reservation's file binding as QUERY and sysfs show it (file.c). */
struct np_bind_desc {
	dev_t dev;
	u64 ino;
	u64 off, len;
	u32 access;
	u32 nr_map;
	const struct nvme_peer_file_extent *map;	/* immutable */
	enum nvme_peer_lease lease;
	u64 fence_ns;			/* last break: broken -> given back */
};

struct np_dmabuf;

/*
 * A reservation an administrator made (configfs.c): its name, its
 * generation, and who may attach to it through /dev/nvme-peer.
 */
struct np_provision {
	const char *name;
	unsigned int generation;	/* 1 for the intent's first */
	bool attachable;		/* else nobody may */
	kuid_t uid;			/* INVALID_UID: any user */
	kgid_t gid;			/* INVALID_GID: any group */
};

/*
 * What memory that mem.c did not allocate (a dma-buf range, dmabuf.c)
 * does instead of mem.c's own code.
 */
struct np_mem;
struct np_mem_ops {
	void (*release)(struct np_mem *m);
	int (*zero)(struct np_mem *m);
	dma_addr_t (*ctrl_addr)(const struct np_mem *m, u64 off);
};

struct np_mem {
	enum nvme_peer_placement where;
	size_t size;
	void *vaddr;
	struct pci_dev *provider;	/* p2pmem provider, or NULL for host */
	struct sg_table ctrl_sgt;	/* mapping for the controller */
	struct sg_table peer_sgt;	/* mapping for the peer, if any */
	bool ctrl_mapped;
	bool peer_mapped;
	bool coherent;			/* dma_alloc_coherent(), controller only */
	dma_addr_t ctrl_dma;
	dma_addr_t peer_dma;
	enum nvme_peer_location loc;	/* where it really is */
	struct np_dmabuf *dmabuf;	/* NVME_PEER_PLACE_DMABUF (dmabuf.c) */
	const struct np_mem_ops *ops;	/* set by its importer, or NULL */
};

/* "nvme" and the controller's instance, and the NUL */
#define NP_CTRL_NAME_LEN	16

/* A controller nvme-pci told us about. */
struct nvme_peer_ctrl {
	struct kref ref;
	struct nvme_ctrl *ctrl;		/* held until the last reference */
	struct device *dev;		/* ctrl's class device: messages */
	struct nvme_pci_peer_info info;
	char name[NP_CTRL_NAME_LEN];
	int instance;

	/* serialises reserve, release and teardown: admin commands run under it */
	struct mutex lock;
	/* np_ctrl_forget() runs once: for removal or for unload */
	struct mutex forget_lock;
	bool forgotten;
	/* state of the controller and of its queues; taken from DOWN events */
	spinlock_t state_lock;
	/* held (read) while DOWN calls owners; a release waits for them */
	struct rw_semaphore cb_sem;
	bool live;
	bool removed;
	unsigned int disable_gen;	/* bumped when the controller is disabled */
	unsigned long *qids;		/* held qids, by absolute qid */
	struct list_head queues;
	/* np_admin_cmd_foreign()'s commands in flight, under state_lock */
	struct list_head foreign_cmds;
	struct work_struct free_work;
	/* fences the queues marked ns_fence (an admin command waits) */
	struct work_struct fence_work;
	/* admin requests preallocated for dma-buf fences (fence.c) */
	atomic_t fence_rqs;
	/* sends the uevents of the queues on @uevents (sysfs.c) */
	struct work_struct uevent_work;
	struct list_head uevents;	/* under state_lock */
	bool uevents_off;		/* forgotten: under state_lock */

	struct kobject *kobj;		/* /sys/class/nvme/nvmeX/peer */
	struct rcu_head rcu;

	/*
	 * window.c: the window provider the administrator declared (its
	 * namespace, 0: none) and where it is, under @lock; the windows,
	 * under @state_lock
	 */
	u32 win_nsid;
	phys_addr_t win_phys;
	u64 win_len;
	/* @disable_gen when the PMR was last enabled, under @state_lock */
	unsigned int win_gen;
	struct list_head windows;
	struct work_struct win_work;	/* enables the PMR after a reset */

	/* isolated.c: VFs nvme-peer enabled on this primary; np_iso_vfs_lock */
	u16 iso_vfs;
	bool iso_enabling;		/* and is enabling them */
	bool iso_gone;			/* removed or unloading: no more */
};

/* One reserved queue pair. Lifetime: @kobj's reference count. */
struct nvme_peer_queue {
	struct kobject kobj;
	struct nvme_peer_ctrl *pctrl;
	struct list_head node;		/* on pctrl->queues while it holds a qid */
	enum np_owner owner;
	/*
	 * What was asked.  Written only while np_reserve() builds the
	 * reservation (the caller's pointers are cleared once consumed),
	 * never after: the owner's callback is @revoke and @priv.
	 */
	struct nvme_peer_params params;
	/* the current owner's callback and its argument; under state_lock */
	nvme_peer_revoke_fn revoke;
	void *priv;
	struct pci_dev *peer;		/* reference held */
	u16 qid;
	u32 lba_shift;
	u64 ns_size;			/* in LBAs, when reserved */
	u32 max_xfer;			/* controller transfer limit, bytes */
	enum nvme_peer_guarantee guarantee;

	/* an administrator's: its name; attach through /dev/nvme-peer */
	char name[NVME_PEER_NAME_MAX];	/* "" for others */
	unsigned int generation;
	bool provisioned;		/* attachable; under state_lock: */
	kuid_t uid;			/* INVALID_UID: any user */
	kgid_t gid;			/* INVALID_GID: any group */
	bool attached;

	/* under pctrl->state_lock */
	enum np_qstate state;
	enum nvme_peer_reason reason;
	/*
	 * The hardware CQ/SQ may exist: set before Create, cleared when the
	 * controller refused Create or completed Delete.  Create and Delete
	 * are sent under @hw_lock (fence.c).
	 */
	bool hw_cq;
	bool hw_sq;
	unsigned int gen;		/* pctrl->disable_gen when created */
	bool fenced;			/* a fence proved the hardware quiet */
	bool ns_fence;			/* an admin command waits for its fence */
	bool sysfs_added;
	/*
	 * Events (sysfs.c): the state and reason files' nodes, looked up
	 * when qN/ was added, for kernfs_notify() under state_lock; the
	 * uevents not sent yet, on pctrl->uevents.  Under state_lock.
	 */
	struct kernfs_node *state_kn, *reason_kn;
	struct np_uev uev[NP_UEV_MAX];
	u8 nr_uev;
	struct list_head uevent_node;
	struct mutex hw_lock;		/* Create and Delete of this queue */
	/* under @hw_lock: a dma-buf move's Delete SQ, allocated at import */
	struct request *fence_rq;

	/* mediated mode: sq and cq are the shadow queues */
	struct np_mem sq, cq, data;
	dma_addr_t sq_db_addr, cq_db_addr;
	bool db_mapped;

	/* mediated mode only (see mediate.c) */
	struct np_mem sdb;		/* shadow doorbells, reachable by the peer */
	struct np_mem hsq, hcq;		/* hardware queues, controller only */
	struct np_mem prp;		/* PRP list copies, controller only */
	struct np_med *med;

	struct np_bind *bind;		/* file-bound: file.c; set before use */
	struct np_tenant *tenant;	/* isolated mode: its VF (isolated.c) */
};

/* The reservation a qN/ directory belongs to. */
static inline struct nvme_peer_queue *np_queue_of(struct kobject *kobj)
{
	return container_of(kobj, struct nvme_peer_queue, kobj);
}

static inline bool np_mediated(const struct nvme_peer_queue *q)
{
	return q->params.mode == NVME_PEER_MODE_MEDIATED;
}

static inline bool np_isolated_mode(const struct nvme_peer_params *p)
{
	return p->mode == NVME_PEER_MODE_ISOLATED;
}

/*
 * The doorbell stride in bytes, the one unit users see (sysfs
 * peer/doorbell_stride, NVME_PEER_IOC_INFO's db_stride): nvme-pci's
 * info->db_stride counts dwords.
 */
static inline u32 np_db_stride(const struct nvme_pci_peer_info *info)
{
	return 4 * info->db_stride;
}

/*
 * Each doorbell's place is computed here only, as nvme-pci's sq_idx() and
 * cq_idx() do: the byte offset in BAR0 of @qid's SQ tail doorbell (@cq
 * false) or CQ head doorbell.
 */
static inline u64 np_db_off(const struct nvme_pci_peer_info *info, u16 qid,
			    bool cq)
{
	return NVME_REG_DBS + (2ULL * qid + cq) * np_db_stride(info);
}

/* The kernel's mapping of @q's hardware SQ tail (@cq: CQ head) doorbell. */
static inline u32 __iomem *np_hw_db(const struct nvme_peer_queue *q, bool cq)
{
	const struct nvme_pci_peer_info *info = &q->pctrl->info;

	return (void __iomem *)info->dbs + np_db_off(info, q->qid, cq) -
	       NVME_REG_DBS;
}

/* Bytes of a queue of @depth entries: whole pages. */
static inline size_t np_sq_bytes(u32 depth)
{
	return PAGE_ALIGN((size_t)depth * sizeof(struct nvme_command));
}

static inline size_t np_cq_bytes(u32 depth)
{
	return PAGE_ALIGN((size_t)depth * sizeof(struct nvme_completion));
}

/* The pages holding a queue's two doorbells, for mmap (direct mode). */
struct np_db_region {
	phys_addr_t phys;	/* first page */
	size_t size;		/* whole pages, from the SQ to the CQ doorbell */
	u32 sq_off, cq_off;	/* the doorbells' offsets in the region */
};

/* ctrl.c: the controller registry */
struct nvme_peer_ctrl *np_ctrl_find_rcu(struct nvme_ctrl *ctrl);
struct nvme_peer_ctrl *np_ctrl_lookup(struct nvme_ctrl *ctrl);
struct nvme_peer_ctrl *np_ctrl_next(unsigned long *i);
void np_ctrls_put(struct nvme_peer_ctrl **pctrls, unsigned int n);
struct nvme_peer_ctrl *np_ctrl_get_by_instance(u32 instance);
int np_ctrl_add(struct nvme_peer_ctrl *pctrl);
void np_ctrl_del(struct nvme_peer_ctrl *pctrl);
bool np_ctrl_is_live(struct nvme_peer_ctrl *pctrl);
void np_ctrls_close(void);
int np_ctrl_reg_read32(struct nvme_peer_ctrl *pctrl, u32 off, u32 *val);
int np_ctrl_reg_write32(struct nvme_peer_ctrl *pctrl, u32 off, u32 val);
u64 np_ctrl_cap(struct nvme_peer_ctrl *pctrl);

/* events.c: what nvme-pci and the PCI bus report */
int np_events_init(void);
void np_events_exit(void);

/* admin.c: Create, Delete, Identify; disabling a controller */
struct nvme_ns;
int np_admin_cmd(struct nvme_peer_ctrl *pctrl, struct nvme_command *c,
		 void *buf, unsigned int len);
int np_admin_cmd_foreign(struct nvme_peer_ctrl *pctrl, struct nvme_command *c,
			 void *buf, unsigned int len);
bool np_admin_cmd_is_foreign(struct nvme_peer_ctrl *pctrl,
			     const struct nvme_command *c);
int np_admin_errno(int ret);
int np_create_hw(struct nvme_peer_queue *q);
void np_delete_hw(struct nvme_peer_queue *q);
void np_delete_sq_prealloc(struct nvme_peer_queue *q);
int np_admin_exec(struct request *req, struct nvme_command *c, void *buf,
		  unsigned int len);
int np_ns_format(struct nvme_peer_ctrl *pctrl, struct nvme_ns *ns,
		 u32 nsid, u32 *lba_shift, u64 *nsze);
void np_ctrl_disable_wait(struct nvme_peer_ctrl *pctrl,
			  bool (*done)(void *arg), void *arg, const char *why);
void np_ctrl_reset_wait(struct nvme_peer_ctrl *pctrl, bool live);
int np_ctrl_reset_flush(struct nvme_peer_ctrl *pctrl);
bool np_ctrl_has_ns(struct nvme_peer_ctrl *pctrl, u32 nsid);
int np_ns_geometry(struct nvme_peer_ctrl *pctrl, u32 nsid, struct np_bind *b,
		   u32 *lba_shift, u64 *nsze);
u16 np_ctrl_cntlid(struct nvme_peer_ctrl *pctrl);
bool np_ctrl_ns_mgmt(struct nvme_peer_ctrl *pctrl);
struct request *np_admin_rq_alloc(struct nvme_peer_ctrl *pctrl,
				  enum req_op op);

/* sriov.c: secondary controllers (SR-IOV VFs) of a primary controller */
#define NP_SRIOV_MAX_SECONDARY	127	/* entries of one Secondary Controller List */

/* Virtualization Management actions and resource types */
enum {
	NP_VIRT_PRIMARY_ALLOC	= 0x1,
	NP_VIRT_SEC_OFFLINE	= 0x7,
	NP_VIRT_SEC_ASSIGN	= 0x8,
	NP_VIRT_SEC_ONLINE	= 0x9,
};

enum {
	NP_VIRT_RES_VQ		= 0,
	NP_VIRT_RES_VI		= 1,
};

/* command specific status codes (SCT 1) of attachment and virtualization */
enum {
	NP_SC_NS_ALREADY_ATTACHED	= 0x118,
	NP_SC_NS_NOT_ATTACHED		= 0x11a,
	NP_SC_CTRL_LIST_INVALID		= 0x11c,
	NP_SC_INVALID_CTRL_ID		= 0x11f,
	NP_SC_INVALID_SEC_CTRL_STATE	= 0x120,
	NP_SC_INVALID_NUM_RESOURCES	= 0x121,
	NP_SC_INVALID_RESOURCE_ID	= 0x122,
};

/* what Identify Primary Controller Capabilities reports */
struct np_sriov_caps {
	u16 cntlid;
	u32 vqfrt, vqrfa;	/* VQ flexible resources: total, assigned */
	u16 vqprt, vqfrsm;	/* VQ private to the primary; most per secondary */
	u32 vifrt, virfa;	/* the same for interrupts */
	u16 viprt, vifrsm;
	u16 total_vfs;		/* the PCI SR-IOV capability's TotalVFs */
};

/* one entry of the Secondary Controller List */
struct np_sriov_sec {
	u16 cntlid, pcid, vfn, nvq, nvi;
	bool online;
};

int np_sriov_caps(struct nvme_peer_ctrl *pctrl, struct np_sriov_caps *caps);
int np_sriov_list(struct nvme_peer_ctrl *pctrl, struct np_sriov_sec *sec,
		  unsigned int max);
int np_sriov_virt_mgmt(struct nvme_peer_ctrl *pctrl, u8 act, u8 rt,
		       u16 cntlid, u16 nr);
int np_sriov_ns_attach(struct nvme_peer_ctrl *pctrl, u32 nsid, u16 cntlid,
		       bool attach);
int np_sriov_enable(struct nvme_peer_ctrl *pctrl, int nr_vfs);
void np_sriov_disable(struct nvme_peer_ctrl *pctrl);
void np_sriov_disable_pf(struct pci_dev *pf);
int np_sriov_provision(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid,
		       u16 nvq, u16 nvi, u16 *cntlid);
int np_sriov_online(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid,
		    u16 nvq, u16 nvi);
int np_sriov_unprovision(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid);

int np_sriov_ns_exists(struct nvme_peer_ctrl *pctrl, u32 nsid);
#define NP_SRIOV_MAX_ATTACHED	256	/* NSIDs np_sriov_attached() returns */
int np_sriov_attached(struct nvme_peer_ctrl *pctrl, u16 cntlid, u32 *att);
int np_sriov_errno(int ret);
struct pci_dev *np_sriov_get_vf(struct nvme_peer_ctrl *pctrl, u16 vfn);
bool np_sriov_reset_vf(struct pci_dev *vf);

/* isolated.c: a secondary controller per isolated reservation */
struct np_tenant;
struct nvme_peer_ctrl *np_iso_provide(struct nvme_peer_ctrl *pf, u32 nsid,
				      struct np_tenant **tenant);
void np_iso_abandon(struct np_tenant *t);
bool np_iso_owns(struct pci_dev *pdev);
void np_iso_release(struct nvme_peer_queue *q);
struct nvme_peer_ctrl **np_iso_vctrls(struct nvme_peer_ctrl *pf,
				      unsigned int *n);
void np_iso_ctrl_down(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason);
void np_iso_ctrl_live(struct nvme_peer_ctrl *pctrl);
void np_iso_pf_leaving(struct pci_dev *pdev);
void np_iso_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason);
void np_iso_exit(void);
enum nvme_peer_guarantee np_isolated_guarantee(struct pci_dev *vf,
					       struct pci_dev *peer);

/* attach.c: a process drives an administrator's reservation */
bool np_grant_allows(bool attachable, kuid_t uid, kgid_t gid);
struct nvme_peer_queue *np_attach(struct nvme_peer_ctrl *pctrl, u16 qid,
				  const char *name, nvme_peer_revoke_fn revoke,
				  void *priv);
void np_detach(struct nvme_peer_queue *q);

/* core.c: reservations, how they are built and torn down */
int np_unguarded_check(enum nvme_peer_mode mode, enum np_owner owner,
		       bool create);
struct nvme_peer_queue *np_reserve(struct nvme_peer_ctrl *pctrl,
				   const struct nvme_peer_params *p,
				   enum np_owner owner, u16 want_qid,
				   const struct np_provision *prov);
void np_release(struct nvme_peer_queue *q, enum nvme_peer_reason reason);
unsigned int np_free_qids(struct nvme_peer_ctrl *pctrl);
void np_queue_snapshot(struct nvme_peer_queue *q, enum np_qstate *state,
		       enum nvme_peer_reason *reason);
void np_revoke_locked(struct nvme_peer_queue *q, enum np_qevent ev,
		      enum nvme_peer_reason reason);
void np_queue_destroy(struct nvme_peer_queue *q);
void np_queue_reap(struct nvme_peer_queue *q);
void np_free_work(struct work_struct *work);
void np_queue_free_work(struct nvme_peer_ctrl *pctrl);

/* fence.c: the one fence every revocation cause waits on */
#define NP_FENCE_NO_ADMIN	BIT(0)	/* the admin queue is held: no Delete */
/*
 * In a dma-fence signalling section (a dma-buf move): the caller revoked
 * the queue and stopped its poller already, and the Delete SQ uses the
 * request preallocated at import.  Nothing is allocated.
 */
#define NP_FENCE_SIGNALLING	BIT(1)
/* preallocated fence requests per controller: a quarter of the admin tags */
#define NP_FENCE_RQS_MAX	8

int np_fence_rq_alloc(struct nvme_peer_queue *q);
void np_fence_rq_free(struct nvme_peer_queue *q);

enum np_fence_how np_fence(struct nvme_peer_queue *q,
			   enum nvme_peer_reason reason, unsigned long budget,
			   unsigned int flags);
bool np_fence_start(struct nvme_peer_queue *q, enum nvme_peer_reason reason);
bool np_hw_quiet(struct nvme_peer_queue *q);
bool np_hw_gone(struct nvme_peer_queue *q);
int np_qstate_next(enum np_qstate *state, enum np_qevent ev, bool *notify);
void np_uevent_queue(struct nvme_peer_queue *q, enum np_uev_kind kind);
int np_queue_next(struct nvme_peer_queue *q, enum np_qevent ev,
		  enum nvme_peer_reason reason, bool *notify);
void np_revoke_unlocked(struct nvme_peer_ctrl *pctrl, u32 nsid,
			struct nvme_peer_queue *only,
			enum nvme_peer_reason reason);
void np_wait_callbacks(struct nvme_peer_ctrl *pctrl);
void np_ns_fence_work(struct work_struct *work);
bool np_ns_admin_cmd(struct nvme_ctrl *ctrl, const struct nvme_command *c);
extern struct workqueue_struct *np_wq;
extern struct workqueue_struct *np_settle_wq;
extern struct workqueue_struct *np_move_wq;
int np_fence_init(void);
void np_fence_exit(void);

/* file.c: file-bound reservations, layout leases */
int np_bind_validate(const struct nvme_peer_params *p);
int np_bind_file(const struct nvme_peer_file *pf, struct np_bind **bp);
struct gendisk;
int np_bind_on(struct np_bind *b, struct gendisk *disk);
int np_bind_policy(struct np_bind *b, u32 lba_shift, u64 ns_size,
		   struct nvme_peer_policy *pol);
int np_bind_attach(struct np_bind *b, struct nvme_peer_queue *q);
int np_bind_attach_window(struct np_bind *b, struct nvme_peer_window *w);
void np_bind_put(struct np_bind *b);
struct np_bind *np_bind_get(struct np_bind *b);
void np_bind_unref(struct np_bind *b);
void np_bind_sync(struct np_bind *b);
bool np_file_frozen(struct file *file);
void np_bind_describe(struct np_bind *b, struct np_bind_desc *d);
extern const struct attribute_group np_bind_attr_group;

/* mem.c: placement, DMA mappings, doorbell addresses, guarantees */
int np_mem_alloc(struct nvme_peer_queue *q, struct np_mem *m,
		 enum nvme_peer_placement where, size_t size);
void np_mem_free(struct nvme_peer_queue *q, struct np_mem *m);
int np_mem_zero(struct np_mem *m);
void np_mem_unmap_peer(struct nvme_peer_queue *q, struct np_mem *m);
void np_db_region(const struct nvme_pci_peer_info *info, u16 qid,
		  struct np_db_region *r);
int np_doorbells_map(struct nvme_peer_queue *q);
void np_doorbells_unmap(struct nvme_peer_queue *q);
enum nvme_peer_guarantee np_guarantee(struct nvme_peer_queue *q);
enum nvme_peer_guarantee np_peer_guarantee(struct pci_dev *peer,
					   struct pci_dev *ctrl);
dma_addr_t np_mem_ctrl_addr(const struct np_mem *m, u64 off);

/* dmabuf.c: queues and data buffers in dma-bufs, revoked on a move */
int np_dmabuf_validate(const struct nvme_peer_params *p);
int np_dmabuf_import(struct nvme_peer_queue *q, struct np_mem *m,
		     const struct nvme_peer_dmabuf_range *r, size_t size);
void np_dmabuf_release(struct np_mem *m);
dma_addr_t np_dmabuf_ctrl_addr(const struct np_dmabuf *d, u64 off);
bool np_dmabuf_moved(const struct np_mem *m);

/* mediate.c: a mediated queue; poller.c: the threads that run them */
int np_med_validate(const struct nvme_peer_params *p);
int np_med_alloc(struct nvme_peer_queue *q);
void np_med_free(struct nvme_peer_queue *q);
void np_med_start(struct nvme_peer_queue *q);
void np_med_stop(struct nvme_peer_queue *q);
void np_med_kick(void);
bool np_med_idle(struct nvme_peer_queue *q);
extern const struct attribute_group np_med_attr_group;
int np_med_init(void);
void np_med_exit(void);

/* sysfs.c: peer/ and qN/ attributes (their words: words.h) */
int np_sysfs_ctrl_add(struct nvme_peer_ctrl *pctrl);
void np_sysfs_ctrl_del(struct nvme_peer_ctrl *pctrl);
int np_sysfs_queue_add(struct nvme_peer_queue *q);
void np_sysfs_queue_del(struct nvme_peer_queue *q);
void np_sysfs_queue_release(struct nvme_peer_queue *q);
void np_uevent_work(struct work_struct *work);
void np_uevents_stop(struct nvme_peer_ctrl *pctrl);
extern const struct attribute_group *np_queue_groups[];

/*
 * inject.c: fault injection for tests; sriov.c's test door lives in its
 * debugfs directory (main.c puts it there)
 */
struct dentry;
#if IS_ENABLED(CONFIG_NVME_PEER_FAULT_INJECTION)
bool np_inject_reset(void);
int np_inject_admin_error(const struct nvme_command *c);
void np_inject_lease_returned(void);
void np_inject_med_free(void);
void np_inject_poller_stall(unsigned int id);
void np_inject_down(void);
void np_inject_drain_read(void);
void np_inject_cfs_drop(void);
bool np_inject_ns_settling(void);
void np_inject_teardown(void);
void np_inject_free_work(void);
void np_inject_pmr_enable(void);
void np_inject_init(void);
void np_inject_exit(void);
struct seq_file;
void np_iso_show_tenants(struct seq_file *m);
#else
static inline bool np_inject_reset(void)
{
	return false;
}

static inline int np_inject_admin_error(const struct nvme_command *c)
{
	return 0;
}

static inline void np_inject_lease_returned(void) { }
static inline void np_inject_med_free(void) { }
static inline void np_inject_poller_stall(unsigned int id) { }
static inline void np_inject_down(void) { }
static inline void np_inject_drain_read(void) { }
static inline void np_inject_cfs_drop(void) { }

static inline bool np_inject_ns_settling(void)
{
	return false;
}

static inline void np_inject_teardown(void) { }
static inline void np_inject_free_work(void) { }
static inline void np_inject_pmr_enable(void) { }
static inline void np_inject_init(void) { }
static inline void np_inject_exit(void) { }
#endif

/* configfs.c: the administrator's intents */
void np_cfs_ctrl_live(struct nvme_peer_ctrl *pctrl);
void np_cfs_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason);
int np_cfs_init(void);
void np_cfs_exit(void);

/* window.c: read-only windows of a namespace through a provider's BAR */

/* A piece of a window: view bytes [view_off, +len) are provider bytes at pmr_off */
struct np_win_seg {
	u64 view_off;
	u64 pmr_off;
	u64 len;
};

/* A window as QUERY tells it (window.c) */
struct np_win_desc {
	u32 ctrl;
	u32 nsid;
	u32 lba_shift;
	u64 view_size;
	enum nvme_peer_reason reason;	/* NONE while it is active */
	enum nvme_peer_guarantee guarantee;
	struct np_bind_desc bind;
};

int np_win_segs_ns(const struct nvme_peer_extent *ext, u32 n, u32 lba_shift,
		   u64 nsze, struct np_win_seg *segs, u32 *nr);
int np_win_segs_file(const struct nvme_peer_file_extent *map, u32 n,
		     u64 range_off, u32 lba_shift, struct np_win_seg *segs,
		     u32 *nr);
const struct np_win_seg *np_win_find(const struct np_win_seg *segs, u32 nr,
				     u64 view_off);
int np_win_provider_set(struct nvme_peer_ctrl *pctrl, u32 nsid);
u32 np_win_provider(struct nvme_peer_ctrl *pctrl);
void np_win_ctrl_init(struct nvme_peer_ctrl *pctrl);
void np_win_ctrl_live(struct nvme_peer_ctrl *pctrl);
void np_win_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason);
void np_win_revoke(struct nvme_peer_ctrl *pctrl, u32 nsid,
		   struct pci_dev *peer, enum nvme_peer_reason reason);
void np_win_revoke_one(struct nvme_peer_window *w,
		       enum nvme_peer_reason reason);
bool np_win_ns_mark(struct nvme_peer_ctrl *pctrl, u32 nsid, bool any);
void np_win_ns_fence(struct nvme_peer_ctrl *pctrl);
struct nvme_peer_window *np_win_get(struct nvme_peer_ctrl *pctrl,
				    const struct nvme_peer_window_params *p,
				    enum np_owner owner,
				    const struct np_provision *prov);
struct nvme_peer_window *np_win_attach(struct nvme_peer_ctrl *pctrl,
				       const char *name,
				       nvme_peer_window_revoke_fn revoke,
				       void *priv);
void np_win_detach(struct nvme_peer_window *w);
int np_win_pfn(struct nvme_peer_window *w, u64 view_off, unsigned long *pfn);
int np_win_pieces(struct nvme_peer_window *w, struct nvme_peer_window_piece *p,
		  u32 max);
void np_win_describe(struct nvme_peer_window *w, struct np_win_desc *d);
void np_window_free(struct nvme_peer_window *w);
struct nvme_peer_window *np_window_hold(struct nvme_peer_window *w);

/* cdev.c: /dev/nvme-peer */
int np_cdev_init(void);
void np_cdev_exit(void);

#endif /* _NVME_PEER_INTERNAL_H */
