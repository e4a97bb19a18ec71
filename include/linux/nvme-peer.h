/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer: hand NVMe I/O queue pairs to peer PCIe devices.
 *
 * The kernel keeps the controller (admin queue, error handling, the block
 * device); a peer device (a GPU, an accelerator, or the CPU in tests) gets a
 * hardware SQ/CQ pair that it fills and polls itself, with the bus addresses
 * of the queues, the doorbells and an optional data buffer.  See
 * Documentation/nvme/peer-queues.rst.
 */
#ifndef _LINUX_NVME_PEER_H
#define _LINUX_NVME_PEER_H

#include <linux/types.h>

struct nvme_ctrl;
struct pci_dev;
struct block_device;
struct nvme_peer_ctrl;
struct nvme_peer_queue;

/**
 * enum nvme_peer_placement - where a queue or buffer lives
 * @NVME_PEER_MEM_NONE: not allocated (data buffer only)
 * @NVME_PEER_MEM_HOST: host memory, mapped for the controller and the peer
 * @NVME_PEER_MEM_CMB: the controller's Controller Memory Buffer (P2PDMA)
 * @NVME_PEER_MEM_PEER: the peer device's own P2PDMA memory (its BAR)
 */
enum nvme_peer_placement {
	NVME_PEER_MEM_NONE,
	NVME_PEER_MEM_HOST,
	NVME_PEER_MEM_CMB,
	NVME_PEER_MEM_PEER,
};

/**
 * enum nvme_peer_reason - why a reservation was revoked
 * @NVME_PEER_REASON_NONE: not revoked
 * @NVME_PEER_REASON_RELEASE: its owner released it
 * @NVME_PEER_REASON_ADMIN: an administrator deleted it through sysfs
 * @NVME_PEER_REASON_RESET: the controller was reset
 * @NVME_PEER_REASON_CTRL_DOWN: the controller was disabled (timeout, error
 *	recovery, suspend, shutdown)
 * @NVME_PEER_REASON_REMOVED: the controller is being removed
 * @NVME_PEER_REASON_UNLOAD: the nvme-peer module is being unloaded
 */
enum nvme_peer_reason {
	NVME_PEER_REASON_NONE,
	NVME_PEER_REASON_RELEASE,
	NVME_PEER_REASON_ADMIN,
	NVME_PEER_REASON_RESET,
	NVME_PEER_REASON_CTRL_DOWN,
	NVME_PEER_REASON_REMOVED,
	NVME_PEER_REASON_UNLOAD,
};

/**
 * typedef nvme_peer_revoke_fn - tell a reservation's owner it was revoked
 * @q: the reservation
 * @reason: why
 * @priv: &nvme_peer_params.priv
 *
 * Runs exactly once per reservation.  It may be called from the NVMe
 * timeout handler with the controller's shutdown lock held: it may sleep
 * but must not wait for the controller's admin queue, nor call into
 * nvme-peer other than nvme_peer_query().  It must stop the peer from
 * touching the queues before it returns when @reason is
 * %NVME_PEER_REASON_REMOVED: the controller's memory goes away then.
 */
typedef void (*nvme_peer_revoke_fn)(struct nvme_peer_queue *q,
				    enum nvme_peer_reason reason, void *priv);

/**
 * struct nvme_peer_params - what to reserve
 * @nsid: the namespace the queue is for (must exist)
 * @depth: entries per queue, a power of two from 2 to CAP.MQES + 1
 * @sq: placement of the submission queue
 * @cq: placement of the completion queue (not %NVME_PEER_MEM_CMB unless
 *	the controller advertises CMBSZ.CQS)
 * @data: placement of the data buffer, or %NVME_PEER_MEM_NONE
 * @data_size: size of the data buffer in bytes (page multiple, <= 64 MiB)
 * @peer: the device that drives the queue, or NULL for the CPU
 * @revoke: called once on revocation; may be NULL
 * @priv: passed to @revoke
 */
struct nvme_peer_params {
	u32 nsid;
	u32 depth;
	enum nvme_peer_placement sq;
	enum nvme_peer_placement cq;
	enum nvme_peer_placement data;
	size_t data_size;
	struct pci_dev *peer;
	nvme_peer_revoke_fn revoke;
	void *priv;
};

/**
 * struct nvme_peer_addrs - a reservation as the peer sees it
 * @qid: the queue id (the SQ and the CQ share it)
 * @nsid: the namespace
 * @depth: entries per queue
 * @lba_shift: log2 of the namespace's LBA size
 * @sq_dma: SQ address as seen by the peer
 * @cq_dma: CQ address as seen by the peer
 * @data_dma: data buffer address as seen by the peer (0 if none)
 * @data_ctrl_dma: data buffer address as seen by the controller, for PRPs
 * @data_size: data buffer size
 * @sq_db_dma: SQ tail doorbell address as seen by the peer
 * @cq_db_dma: CQ head doorbell address as seen by the peer
 * @sq: kernel mapping of the SQ
 * @cq: kernel mapping of the CQ
 * @data: kernel mapping of the data buffer
 * @sq_db: kernel mapping of the SQ tail doorbell
 * @cq_db: kernel mapping of the CQ head doorbell
 */
struct nvme_peer_addrs {
	u16 qid;
	u32 nsid;
	u32 depth;
	u32 lba_shift;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	dma_addr_t data_dma;
	dma_addr_t data_ctrl_dma;
	size_t data_size;
	dma_addr_t sq_db_dma;
	dma_addr_t cq_db_dma;
	void *sq;
	void *cq;
	void *data;
	u32 __iomem *sq_db;
	u32 __iomem *cq_db;
};

struct nvme_peer_ctrl *nvme_peer_ctrl_get(struct nvme_ctrl *ctrl);
struct nvme_peer_ctrl *nvme_peer_ctrl_get_by_name(const char *name);
struct nvme_peer_ctrl *nvme_peer_ctrl_get_by_bdev(struct block_device *bdev);
void nvme_peer_ctrl_put(struct nvme_peer_ctrl *pctrl);

struct nvme_peer_queue *nvme_peer_reserve(struct nvme_peer_ctrl *pctrl,
					  const struct nvme_peer_params *p);
int nvme_peer_query(struct nvme_peer_queue *q, struct nvme_peer_addrs *addrs);
enum nvme_peer_reason nvme_peer_revoked(struct nvme_peer_queue *q);
void nvme_peer_release(struct nvme_peer_queue *q);

#endif /* _LINUX_NVME_PEER_H */
