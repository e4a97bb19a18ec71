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

#include <linux/bits.h>
#include <linux/types.h>
#include <uapi/linux/nvme_peer.h>

struct file;
struct dma_buf;
struct nvme_ctrl;
struct pci_dev;
struct nvme_peer_ctrl;
struct nvme_peer_queue;
struct nvme_peer_window;

/*
 * The constants and types a driver shares with user space (placements,
 * modes, reasons, guarantees, opcode bits, struct nvme_peer_extent) are the
 * uAPI's: include/uapi/linux/nvme_peer.h.
 */

#define NVME_PEER_MAX_EXTENTS		65536
#define NVME_PEER_MAX_WINDOWS		256
#define NVME_PEER_MAX_MEDIATED_DEPTH	1024

/**
 * struct nvme_peer_data_window - controller-visible DMA addresses data may use
 * @addr: first address, as the controller sees it
 * @len: bytes
 */
struct nvme_peer_data_window {
	u64 addr;
	u64 len;
};

/**
 * struct nvme_peer_policy - what a mediated queue's commands may do
 * @opcodes: NVME_PEER_OPCODE_* allowed; 0 means Read only
 * @extents: LBA ranges; NULL (with @nr_extents 0) means the whole namespace
 * @nr_extents: number of @extents, at most 65536; copied at reserve time
 * @windows: DMA ranges the data may use besides the reservation's data
 *	buffer, which is always one; copied at reserve time.  Addresses as the
 *	controller sees them, outside the data buffer's %NVME_PEER_PRP_BASE
 *	range; PRPs naming them are forwarded as they are
 * @nr_windows: number of @windows, at most 256
 * @max_nlb: largest number of LBAs per command; 0: the controller's MDTS
 *	or 128 KiB, whichever is smaller
 *
 * The namespace is &nvme_peer_params.nsid.  Commands with SGLs, metadata
 * pointers, fused commands or non-zero reserved fields are always refused.
 * The policy is fixed for the life of the reservation.
 */
struct nvme_peer_policy {
	u32 opcodes;
	const struct nvme_peer_extent *extents;
	u32 nr_extents;
	const struct nvme_peer_data_window *windows;
	u32 nr_windows;
	u32 max_nlb;
};

/**
 * struct nvme_peer_dmabuf_range - a queue or the data buffer in a dma-buf
 * @dmabuf: the buffer (%NVME_PEER_PLACE_DMABUF), or NULL; nvme-peer takes
 *	a reference of its own for the life of the reservation
 * @offset: page aligned offset in @dmabuf
 * @length: bytes, a page multiple: at least the queue's size, or exactly
 *	&nvme_peer_params.data_size for the data buffer
 */
struct nvme_peer_dmabuf_range {
	struct dma_buf *dmabuf;
	u64 offset;
	u64 length;
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
 * struct nvme_peer_file - a byte range of a file to bind to a reservation
 * @file: a regular file on the reservation's namespace, open for reading
 *	(and writing for %NVME_PEER_ACCESS_WRITE); NULL: no binding.  The
 *	reservation takes a reference of its own.
 * @off: first byte, a multiple of the file system's block size
 * @len: bytes, a multiple of the block size, ending at or before EOF
 * @access: %NVME_PEER_ACCESS_READ, optionally | %NVME_PEER_ACCESS_WRITE
 *
 * Mediated mode only, with no extents in the policy: the written blocks of
 * the range become the extents, and a layout lease keeps them the file's:
 * when the file system is about to change the file's layout (the lease is
 * whole-file) the reservation is revoked (%NVME_PEER_REASON_LAYOUT) first.
 * Holes and unwritten extents are not readable; writes go to written
 * blocks only.  Without %NVME_PEER_ACCESS_WRITE the policy's opcodes must
 * be readers (%NVME_PEER_OPCODES_READERS: Read, Flush; 0 is Read), -EACCES
 * otherwise.  The calling task must own the file or hold CAP_LEASE
 * (-EACCES).
 */
struct nvme_peer_file {
	struct file *file;
	u64 off;
	u64 len;
	u32 access;
};

/**
 * struct nvme_peer_params - what to reserve
 * @nsid: the namespace the queue is for (must exist)
 * @depth: entries per queue, a power of two from 2 to CAP.MQES + 1
 * @sq_placement: placement of the submission queue
 * @cq_placement: placement of the completion queue (not
 *	%NVME_PEER_PLACE_CMB unless the controller advertises CMBSZ.CQS)
 * @data_placement: placement of the data buffer, or %NVME_PEER_PLACE_NONE
 * @data_size: size of the data buffer in bytes (page multiple, <= 64 MiB;
 *	<= 4 MiB in host memory, one physically contiguous allocation)
 * @peer: the device that drives the queue, or NULL for the CPU
 * @revoke: called once on revocation; may be NULL
 * @priv: passed to @revoke
 * @mode: mediated (the default), direct, or isolated (the queue is on a
 *	secondary controller of the primary nvme_peer_reserve() was given)
 * @policy: what the queue's commands may do (mediated mode)
 * @file: a file range whose blocks the queue may access (mediated mode)
 * @sq_buf: where the SQ is when @sq_placement is %NVME_PEER_PLACE_DMABUF
 * @cq_buf: where the CQ is when @cq_placement is %NVME_PEER_PLACE_DMABUF
 * @data_buf: where the data buffer is when @data_placement is
 *	%NVME_PEER_PLACE_DMABUF
 * @require_p2p: fail with -EXDEV rather than use a dma-buf region whose
 *	location is not %NVME_PEER_LOC_P2P (the exporter did not agree to
 *	peer-to-peer, or some of the controller's DMA to it reaches System RAM)
 */
struct nvme_peer_params {
	u32 nsid;
	u32 depth;
	enum nvme_peer_placement sq_placement;
	enum nvme_peer_placement cq_placement;
	enum nvme_peer_placement data_placement;
	size_t data_size;
	struct pci_dev *peer;
	nvme_peer_revoke_fn revoke;
	void *priv;
	enum nvme_peer_mode mode;
	struct nvme_peer_policy policy;
	struct nvme_peer_file file;
	struct nvme_peer_dmabuf_range sq_buf;
	struct nvme_peer_dmabuf_range cq_buf;
	struct nvme_peer_dmabuf_range data_buf;
	bool require_p2p;
};

/**
 * struct nvme_peer_addrs - a reservation as the peer sees it
 * @qid: the queue id (the SQ and the CQ share it)
 * @nsid: the namespace
 * @depth: entries per queue
 * @lba_shift: log2 of the namespace's LBA size
 * @sq_addr: SQ address as seen by the peer
 * @cq_addr: CQ address as seen by the peer
 * @data_addr: data buffer address as seen by the peer (0 if none)
 * @data_ctrl_addr: data buffer address to put in PRP entries: in mediated
 *	mode %NVME_PEER_PRP_BASE (the kernel puts the real address in the copy
 *	it forwards), in direct mode the address the controller sees
 * @data_size: data buffer size
 * @sq_db_addr: SQ tail doorbell address as seen by the peer
 * @cq_db_addr: CQ head doorbell address as seen by the peer
 * @sq: kernel mapping of the SQ
 * @cq: kernel mapping of the CQ
 * @data: kernel mapping of the data buffer
 * @sq_db: kernel mapping of the SQ tail doorbell register (direct mode;
 *	NULL in mediated mode)
 * @cq_db: kernel mapping of the CQ head doorbell register (direct mode)
 * @sq_shadow_db: the shadow SQ tail doorbell, a word in memory (mediated
 *	mode; NULL in direct mode)
 * @cq_shadow_db: the shadow CQ head doorbell (mediated mode)
 * @mode: mediated or direct
 * @guarantee: what confines the peer if it is hostile
 *
 * In mediated mode the SQ, the CQ and the doorbells are the shadow ones:
 * the doorbells are 32-bit little-endian words in memory, @sq_shadow_db
 * and @cq_shadow_db, not registers; write them with WRITE_ONCE().
 */
struct nvme_peer_addrs {
	u16 qid;
	u32 nsid;
	u32 depth;
	u32 lba_shift;
	dma_addr_t sq_addr;
	dma_addr_t cq_addr;
	dma_addr_t data_addr;
	dma_addr_t data_ctrl_addr;
	size_t data_size;
	dma_addr_t sq_db_addr;
	dma_addr_t cq_db_addr;
	void *sq;
	void *cq;
	void *data;
	u32 __iomem *sq_db;
	u32 __iomem *cq_db;
	__le32 *sq_shadow_db;
	__le32 *cq_shadow_db;
	enum nvme_peer_mode mode;
	enum nvme_peer_guarantee guarantee;
};

struct nvme_peer_ctrl *nvme_peer_ctrl_get_by_name(const char *name);
void nvme_peer_ctrl_put(struct nvme_peer_ctrl *pctrl);

struct nvme_peer_queue *nvme_peer_reserve(struct nvme_peer_ctrl *pctrl,
					  const struct nvme_peer_params *p);
int nvme_peer_query(struct nvme_peer_queue *q, struct nvme_peer_addrs *addrs);
enum nvme_peer_reason nvme_peer_revoked(struct nvme_peer_queue *q);
void nvme_peer_release(struct nvme_peer_queue *q);

/**
 * typedef nvme_peer_window_revoke_fn - a window was revoked
 * @w: the window
 * @reason: why
 * @priv: &nvme_peer_window_params.priv
 *
 * Called once, from the event that revoked it (which may be the NVMe
 * timeout handler: do not sleep for long, do not call back into
 * nvme-peer).  The peer device must stop reading the window's bus
 * addresses before this returns: they are unmapped right after.  Never
 * called once nvme_peer_window_put() has returned.
 */
typedef void (*nvme_peer_window_revoke_fn)(struct nvme_peer_window *w,
					   enum nvme_peer_reason reason,
					   void *priv);

/**
 * struct nvme_peer_window_params - what to read through a window
 * @nsid: the namespace; the controller's window provider must show it
 *	(configfs nvme-peer/nvmeX/pmr_nsid)
 * @extents: LBA ranges of @nsid; NULL with @nr_extents 0: the whole
 *	namespace.  The window shows the pages wholly inside them
 * @nr_extents: number of @extents, at most %NVME_PEER_MAX_EXTENTS
 * @file: instead of @extents, a file range on @nsid whose written blocks
 *	become the extents (&nvme_peer_file: @file.access READ only), held
 *	by a layout lease whose break revokes the window
 * @peer: the device that reads the window, or NULL for the CPU; it gets
 *	bus addresses mapped for it, read only where an IOMMU translates it
 * @revoke: called once on revocation; may be NULL
 * @priv: passed to @revoke
 */
struct nvme_peer_window_params {
	u32 nsid;
	const struct nvme_peer_extent *extents;
	u32 nr_extents;
	struct nvme_peer_file file;
	struct pci_dev *peer;
	nvme_peer_window_revoke_fn revoke;
	void *priv;
};

/**
 * struct nvme_peer_window_seg - a piece of a window as the peer sees it
 * @view_off: its offset in the window's view: the namespace's byte
 *	offset (LBA x LBA size), or the offset in the bound file range
 * @len: bytes, a page multiple
 * @bus_addr: where the peer reads it (0 for the CPU)
 * @phys: CPU physical address (the provider's BAR)
 */
struct nvme_peer_window_seg {
	u64 view_off;
	u64 len;
	dma_addr_t bus_addr;
	phys_addr_t phys;
};

struct nvme_peer_window *
nvme_peer_window_get(struct nvme_peer_ctrl *pctrl,
		     const struct nvme_peer_window_params *p);
int nvme_peer_window_segs(struct nvme_peer_window *w,
			  struct nvme_peer_window_seg *segs, u32 max);
enum nvme_peer_guarantee nvme_peer_window_guarantee(struct nvme_peer_window *w);
enum nvme_peer_reason nvme_peer_window_revoked(struct nvme_peer_window *w);
void nvme_peer_window_put(struct nvme_peer_window *w);

#endif /* _LINUX_NVME_PEER_H */
