/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvme-peer user API: /dev/nvme-peer hands an NVMe I/O queue pair to a
 * process (a GPU/accelerator runtime) which maps the queues, the doorbells
 * and the data buffer, or gives their bus addresses to its device.
 * See Documentation/nvme/peer-queues.rst.
 *
 * The ioctls are 'N' 0x90-0x9F (0x80-0x8F is ntsync's in the kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst, 0x40-0x7F nvme's).
 *
 * Every ioctl argument is an extensible struct that starts with a __u32
 * size, as VFIO's argsz and clone3()'s size: user space sets it to the size
 * of the struct it was built with, sizeof(), and the kernel checks it
 * against the version sizes, NVME_PEER_*_SIZE_VER0 and later ones; it need
 * not equal one of them:
 *  - size < NVME_PEER_*_SIZE_VER0: -EINVAL;
 *  - size from VER0 up to the kernel's own struct (user space older than
 *    the kernel): the fields past size read as 0, which keeps the older
 *    behaviour, and the kernel writes back no more than size bytes;
 *  - size beyond the kernel's struct: the extra bytes must all be 0
 *    (-E2BIG otherwise), as copy_struct_from_user() checks for openat2().
 * Reserved fields and flags must be 0 (-EINVAL otherwise).  No implicit
 * padding; pointers and addresses are __u64.  A struct only grows at its
 * end, 8 bytes at a time, and each new size gets a _SIZE_VERn constant.
 */
#ifndef _UAPI_LINUX_NVME_PEER_H
#define _UAPI_LINUX_NVME_PEER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * enum nvme_peer_placement - where a queue or the data buffer lives
 * @NVME_PEER_PLACE_NONE: not allocated (data buffer only)
 * @NVME_PEER_PLACE_HOST: host memory, mapped for the controller and the peer
 * @NVME_PEER_PLACE_CMB: the controller's Controller Memory Buffer (P2PDMA)
 * @NVME_PEER_PLACE_PEER: the peer device's own P2PDMA memory (its BAR)
 * @NVME_PEER_PLACE_DMABUF: a range of a dma-buf (a GPU's memory, udmabuf),
 *	imported for the controller; see struct nvme_peer_dmabuf_region
 */
enum nvme_peer_placement {
	NVME_PEER_PLACE_NONE,
	NVME_PEER_PLACE_HOST,
	NVME_PEER_PLACE_CMB,
	NVME_PEER_PLACE_PEER,
	NVME_PEER_PLACE_DMABUF,
};

/**
 * enum nvme_peer_location - where a region's memory really is
 * @NVME_PEER_LOC_NONE: no such region
 * @NVME_PEER_LOC_SYSTEM: system memory (host pages)
 * @NVME_PEER_LOC_P2P: a device's memory, reached peer-to-peer
 *
 * For a dma-buf region: P2P when the exporter agreed to peer-to-peer with
 * the controller and none of the controller's DMA addresses for the range
 * leads to System RAM (see "GPU memory through dma-buf" in
 * Documentation/nvme/peer-queues.rst).
 */
enum nvme_peer_location {
	NVME_PEER_LOC_NONE,
	NVME_PEER_LOC_SYSTEM,
	NVME_PEER_LOC_P2P,
};

/**
 * enum nvme_peer_mode - who writes the controller's submission queue
 * @NVME_PEER_MODE_MEDIATED: the peer writes a shadow SQ and a shadow doorbell
 *	in memory it can reach; the kernel checks every entry against the
 *	reservation's policy and copies those that pass to a hardware SQ the
 *	peer cannot reach.  Rejected entries complete with an NVMe error.
 * @NVME_PEER_MODE_DIRECT: the peer writes the hardware SQ and rings the
 *	hardware doorbell itself: no CPU per I/O, no checks; only an IOMMU
 *	confines the controller's DMA.  Needs nvme_peer.allow_direct=1, and
 *	CAP_SYS_RAWIO for a process.
 * @NVME_PEER_MODE_ISOLATED: the reservation names a primary controller
 *	with SR-IOV; nvme-peer brings up a secondary controller (a virtual
 *	function) of its own for it, attaches the namespace to it and to no
 *	other tenant, and the peer writes that controller's SQ and rings its
 *	doorbell as in direct mode.  The controller refuses commands to any
 *	other namespace; an IOMMU domain of the VF's own confines its DMA
 *	(%NVME_PEER_GUARANTEE_CONTROLLER_IOMMU).  No policy and no file
 *	binding (-EINVAL): the controller cannot enforce either.  Needs no
 *	allow_direct; a process needs CAP_SYS_RAWIO (the VF's doorbell page
 *	holds the host driver's doorbells of that VF too).
 */
enum nvme_peer_mode {
	NVME_PEER_MODE_MEDIATED,
	NVME_PEER_MODE_DIRECT,
	NVME_PEER_MODE_ISOLATED,
};

/* opcodes a mediated queue may use: bit n allows NVMe I/O opcode n */
#define NVME_PEER_OPCODE_FLUSH		(1U << 0x00)
#define NVME_PEER_OPCODE_WRITE		(1U << 0x01)
#define NVME_PEER_OPCODE_READ		(1U << 0x02)
#define NVME_PEER_OPCODE_WRITE_ZEROES	(1U << 0x08)
#define NVME_PEER_OPCODE_DSM		(1U << 0x09)
#define NVME_PEER_OPCODES_ALL	(NVME_PEER_OPCODE_FLUSH | \
				 NVME_PEER_OPCODE_WRITE | \
				 NVME_PEER_OPCODE_READ | \
				 NVME_PEER_OPCODE_WRITE_ZEROES | \
				 NVME_PEER_OPCODE_DSM)
/*
 * The readers: the only opcodes a file binding without NVME_PEER_ACCESS_WRITE
 * may allow (-EACCES otherwise).  Neither changes the media; every other
 * opcode counts as a writer.
 */
#define NVME_PEER_OPCODES_READERS	(NVME_PEER_OPCODE_READ | \
					 NVME_PEER_OPCODE_FLUSH)

/**
 * enum nvme_peer_guarantee - what confines a hostile peer
 * @NVME_PEER_GUARANTEE_NONE: nothing: the guard (mediated mode) stops wrong
 *	commands from a well-behaved peer, but a malicious device can write the
 *	controller's registers, its memory buffer and host memory (no IOMMU, an
 *	identity IOMMU domain, or direct mode); or the shadow SQ is in a dma-buf,
 *	written by devices nvme-peer does not know.
 * @NVME_PEER_GUARANTEE_IOMMU_SWITCH: an IOMMU translates the peer, but it
 *	shares a PCIe switch with the controller and no ACS redirect sends its
 *	peer-to-peer writes up to the IOMMU, or it is in the controller's IOMMU
 *	group.  Treat as NONE against a malicious device.
 * @NVME_PEER_GUARANTEE_IOMMU: an IOMMU translates the peer's DMA on every
 *	path: it reaches only what was mapped for it, never the hardware queues
 *	or doorbells of a mediated reservation.
 * @NVME_PEER_GUARANTEE_CPU: the peer is the CPU (a process): it reaches only
 *	the pages it mapped.  A device may fill its data buffer or read its CQ
 *	in a dma-buf; the commands come from a shadow SQ in host memory.
 * @NVME_PEER_GUARANTEE_CONTROLLER: isolated mode: the secondary controller
 *	executes commands only on the namespace attached to it, but nothing
 *	confines its DMA (no IOMMU, an identity domain, or the VF shares its
 *	IOMMU group, and so its mappings, with other functions) or the peer
 *	device's own peer-to-peer writes.  PRPs may point anywhere the
 *	domain reaches.
 * @NVME_PEER_GUARANTEE_CONTROLLER_IOMMU: isolated mode: namespaces as
 *	with CONTROLLER, and the VF's DMA is translated in an IOMMU domain of
 *	its own (it reaches only its tenant's queues and data and its own
 *	driver's queues), and a peer device is translated on every path.
 */
enum nvme_peer_guarantee {
	NVME_PEER_GUARANTEE_NONE,
	NVME_PEER_GUARANTEE_IOMMU_SWITCH,
	NVME_PEER_GUARANTEE_IOMMU,
	NVME_PEER_GUARANTEE_CPU,
	NVME_PEER_GUARANTEE_CONTROLLER,
	NVME_PEER_GUARANTEE_CONTROLLER_IOMMU,
};

/**
 * struct nvme_peer_extent - LBAs a mediated queue may touch
 * @slba: first LBA
 * @nlb: number of LBAs, at least 1
 */
struct nvme_peer_extent {
	__u64 slba;
	__u64 nlb;
};

/*
 * Mediated mode: the data buffer as the peer names it in PRP entries.  The
 * kernel copies every command anyway and puts the controller's real address
 * in the copy, so no process learns where the buffer is in memory.
 * Offset N of the buffer is NVME_PEER_PRP_BASE + N, for every reservation.
 */
#define NVME_PEER_PRP_BASE	0x0010000000000000ULL

/* NVME_PEER_IOC_RESERVE flags */
#define NVME_PEER_RESERVE_PEER	(1U << 0)	/* peer_domain/peer_bdf valid */
#define NVME_PEER_RESERVE_FILE	(1U << 1)	/* file_* valid: bind a file */
/* every dma-buf region must be device memory reached P2P, else -EXDEV */
#define NVME_PEER_RESERVE_REQUIRE_P2P	(1U << 2)

/* access to a bound file (struct nvme_peer_reserve.file_access) */
#define NVME_PEER_ACCESS_READ	(1U << 0)
#define NVME_PEER_ACCESS_WRITE	(1U << 1)

/**
 * struct nvme_peer_dmabuf_region - a queue or the data buffer in a dma-buf
 * @fd: the dma-buf; read only when the region's placement is
 *	%NVME_PEER_PLACE_DMABUF, where every fd, 0 included, is valid.  For
 *	any other placement it must be 0 (-EINVAL)
 * @rsvd: 0
 * @offset: where the region starts in the dma-buf, page aligned; 0 for
 *	other placements (-EINVAL)
 * @length: bytes, a page multiple inside the dma-buf: at least the queue's
 *	size (depth * 64 for the SQ, depth * 16 for the CQ, page aligned), or
 *	exactly @data_size for the data buffer; 0 for other placements
 *	(-EINVAL)
 *
 * The placement (struct nvme_peer_reserve @sq_placement, @cq_placement,
 * @data_placement) alone says whether a region is in a dma-buf; @fd 0 does
 * not mean "none".
 */
struct nvme_peer_dmabuf_region {
	__s32 fd;
	__u32 rsvd;
	__u64 offset;
	__u64 length;
};

/**
 * struct nvme_peer_reserve - NVME_PEER_IOC_RESERVE (CAP_SYS_ADMIN)
 * @size: sizeof(struct nvme_peer_reserve)
 * @flags: NVME_PEER_RESERVE_*
 * @ctrl: controller instance: N of /dev/nvmeN (in isolated mode the
 *	primary controller)
 * @nsid: namespace
 * @depth: entries per queue, a power of two from 2 to CAP.MQES + 1, and
 *	at most 1024 in mediated mode
 * @qid: in: the qid wanted, 0 for any (isolated mode: 0 only); out: the
 *	qid (in isolated mode on the secondary controller)
 * @mode: &enum nvme_peer_mode; direct needs CAP_SYS_RAWIO and the module
 *	parameter nvme_peer.allow_direct=1
 * @opcodes: NVME_PEER_OPCODE_* a mediated queue may use; 0: Read only
 * @max_nlb: most LBAs per command; 0: 128 KiB or the controller's limit
 * @nr_extents: number of @extents, at most 65536; 0: the whole namespace
 * @extents: user pointer to @nr_extents struct nvme_peer_extent
 * @data_size: bytes, a page multiple up to 64 MiB, up to 4 MiB in host
 *	memory (0 without data buffer)
 * @peer_domain: PCI domain of the peer device (NVME_PEER_RESERVE_PEER)
 * @peer_bdf: bus << 8 | devfn of the peer device (NVME_PEER_RESERVE_PEER)
 * @file_fd: (NVME_PEER_RESERVE_FILE) a regular file on namespace @nsid of
 *	this controller, open for reading (and writing for
 *	NVME_PEER_ACCESS_WRITE); mediated mode only, @nr_extents 0: the
 *	file's written blocks in the range become the extents
 * @file_access: NVME_PEER_ACCESS_READ, optionally | NVME_PEER_ACCESS_WRITE;
 *	without NVME_PEER_ACCESS_WRITE, @opcodes may hold only
 *	NVME_PEER_OPCODES_READERS bits (-EACCES)
 * @file_off: first byte of the range, a multiple of the file system block
 * @file_len: bytes, a multiple of the file system block; the range ends
 *	at or before the end of the file
 * @sq_placement: &enum nvme_peer_placement of the submission queue
 * @cq_placement: &enum nvme_peer_placement of the completion queue
 * @data_placement: &enum nvme_peer_placement of the data buffer
 * @rsvd: 0 (every byte)
 * @sq_buf: the SQ's dma-buf range when @sq_placement is
 *	%NVME_PEER_PLACE_DMABUF
 * @cq_buf: the CQ's, when @cq_placement is %NVME_PEER_PLACE_DMABUF
 * @data_buf: the data buffer's, when @data_placement is
 *	%NVME_PEER_PLACE_DMABUF
 *
 * @opcodes, @max_nlb and @nr_extents must be 0 in direct mode.  A file
 * binding holds a layout lease on the file: a change of the file's layout
 * (truncate, fallocate, write(2), reflink, ...) revokes the reservation
 * with NVME_PEER_REASON_LAYOUT before it proceeds.  The caller must own the
 * file or hold CAP_LEASE (else -EACCES); the lease is the kernel's own and
 * never shows on the caller's open file.
 */
struct nvme_peer_reserve {
	__u32 size;
	__u32 flags;
	__u32 ctrl;
	__u32 nsid;
	__u32 depth;
	__u32 qid;
	__u32 mode;
	__u32 opcodes;
	__u32 max_nlb;
	__u32 nr_extents;
	__u64 extents;
	__u64 data_size;
	__u32 peer_domain;
	__u32 peer_bdf;
	__s32 file_fd;
	__u32 file_access;
	__u64 file_off;
	__u64 file_len;
	__u8 sq_placement;
	__u8 cq_placement;
	__u8 data_placement;
	__u8 rsvd[5];
	struct nvme_peer_dmabuf_region sq_buf;
	struct nvme_peer_dmabuf_region cq_buf;
	struct nvme_peer_dmabuf_region data_buf;
};

/* A reservation's name: its configfs directory, with the NUL. */
#define NVME_PEER_NAME_MAX	32

/* struct nvme_peer_attach.flags */
#define NVME_PEER_ATTACH_BY_NAME	(1U << 0)	/* @name, not @qid */
#define NVME_PEER_ATTACH_WINDOW		(1U << 1)	/* a window's @name */

/**
 * struct nvme_peer_attach - NVME_PEER_IOC_ATTACH
 * @size: sizeof(struct nvme_peer_attach)
 * @flags: 0, or %NVME_PEER_ATTACH_BY_NAME, with %NVME_PEER_ATTACH_WINDOW
 *	for a read-only window an administrator made (configfs
 *	nvme-peer/nvmeN/windows/NAME/): the file then holds that window,
 *	as after NVME_PEER_IOC_WINDOW (QUERY tells its view and mmap
 *	offset), one process at a time
 * @ctrl: controller instance: N of /dev/nvmeN
 * @qid: a reservation an administrator made (configfs) with a uid or a gid;
 *	0 with %NVME_PEER_ATTACH_BY_NAME
 * @name: with %NVME_PEER_ATTACH_BY_NAME, the reservation's name (its
 *	directory in configfs nvme-peer/nvmeN/), NUL-terminated.  A name
 *	outlives a reset: the reservation comes back under it (a new qid may
 *	be given), and a process revoked by the reset attaches again by name
 */
struct nvme_peer_attach {
	__u32 size;
	__u32 flags;
	__u32 ctrl;
	__u32 qid;
	char name[NVME_PEER_NAME_MAX];
};

/* struct nvme_peer_info.state */
#define NVME_PEER_STATE_ACTIVE	1
#define NVME_PEER_STATE_REVOKED	2

/**
 * enum nvme_peer_reason - why a reservation was revoked (struct
 * nvme_peer_info.reason, the kernel's revoke callback, sysfs qN/reason)
 * @NVME_PEER_REASON_NONE: not revoked
 * @NVME_PEER_REASON_RELEASE: its owner released it
 * @NVME_PEER_REASON_ADMIN: an administrator disabled or removed its intent
 *	(configfs)
 * @NVME_PEER_REASON_RESET: the controller was reset
 * @NVME_PEER_REASON_CTRL_DOWN: the controller was disabled (timeout, error
 *	recovery, suspend, shutdown)
 * @NVME_PEER_REASON_REMOVED: the controller is being removed
 * @NVME_PEER_REASON_UNLOAD: the nvme-peer module is being unloaded
 * @NVME_PEER_REASON_NAMESPACE: an admin command is about to change the
 *	namespace's format, size or attachment (Format NVM, Namespace
 *	Management or Attachment, Sanitize)
 * @NVME_PEER_REASON_PEER_REMOVED: the peer device, or the device whose
 *	memory holds a queue or the data buffer, unbinds or leaves the bus
 * @NVME_PEER_REASON_LAYOUT: the layout of the bound file is about to change
 *	(its layout lease was broken)
 * @NVME_PEER_REASON_MOVED: the exporter of a dma-buf holding a queue or the
 *	data buffer moved it (move_notify); reserve again to get it back
 */
enum nvme_peer_reason {
	NVME_PEER_REASON_NONE,
	NVME_PEER_REASON_RELEASE,
	NVME_PEER_REASON_ADMIN,
	NVME_PEER_REASON_RESET,
	NVME_PEER_REASON_CTRL_DOWN,
	NVME_PEER_REASON_REMOVED,
	NVME_PEER_REASON_UNLOAD,
	NVME_PEER_REASON_NAMESPACE,
	NVME_PEER_REASON_PEER_REMOVED,
	NVME_PEER_REASON_LAYOUT,
	NVME_PEER_REASON_MOVED,
};

/**
 * enum nvme_peer_lease - the layout lease of a bound file
 * @NVME_PEER_LEASE_NONE: no file is bound
 * @NVME_PEER_LEASE_HELD: held: the file's blocks in the range stay where
 *	they are
 * @NVME_PEER_LEASE_BREAKING: broken; the queue is being fenced
 * @NVME_PEER_LEASE_RETURNED: given back after the queue was fenced, or
 *	at release
 */
enum nvme_peer_lease {
	NVME_PEER_LEASE_NONE,
	NVME_PEER_LEASE_HELD,
	NVME_PEER_LEASE_BREAKING,
	NVME_PEER_LEASE_RETURNED,
};

/* struct nvme_peer_info.flags */
#define NVME_PEER_INFO_DB_MAP	(1U << 0)	/* db region may be mapped */
#define NVME_PEER_INFO_MEDIATED	(1U << 1)	/* shadow SQ, CQ, doorbells */
#define NVME_PEER_INFO_FILE	(1U << 2)	/* file_* describe a binding */
/*
 * A window (NVME_PEER_IOC_WINDOW): only ctrl, nsid, lba_shift, state,
 * reason, guarantee, data_off (its mmap offset) and data_size (the view)
 * mean anything, and the file_* fields with NVME_PEER_INFO_FILE.
 */
#define NVME_PEER_INFO_WINDOW	(1U << 3)

/**
 * struct nvme_peer_info - NVME_PEER_IOC_QUERY
 * @size: sizeof(struct nvme_peer_info), set by user space
 * @flags: out: NVME_PEER_INFO_*
 * @ctrl: controller instance of the queue (in isolated mode the secondary
 *	controller's)
 * @qid: queue id (SQ and CQ)
 * @nsid: namespace
 * @depth: entries per queue
 * @lba_shift: log2 of the namespace's LBA size
 * @state: NVME_PEER_STATE_*
 * @reason: &enum nvme_peer_reason
 * @db_stride: doorbell stride in bytes (sysfs peer/doorbell_stride)
 * @sq_off: mmap offset of the SQ (64-byte entries)
 * @sq_size: mmap length of the SQ
 * @cq_off: mmap offset of the CQ (16-byte entries)
 * @cq_size: mmap length of the CQ
 * @data_off: mmap offset of the data buffer
 * @data_size: its length (0: none)
 * @db_off: mmap offset of the page holding the two doorbells
 * @db_size: its length (one page)
 * @sq_db_in_page: byte offset of the SQ tail doorbell in that page
 * @cq_db_in_page: byte offset of the CQ head doorbell in that page
 * @data_ctrl_addr: the address of the data buffer to put in PRP entries:
 *	NVME_PEER_PRP_BASE in mediated mode, the buffer's address as the
 *	controller sees it in direct mode
 * @sq_addr: bus address of the SQ as the peer sees it (CAP_SYS_ADMIN)
 * @cq_addr: bus address of the CQ as the peer sees it (CAP_SYS_ADMIN)
 * @data_addr: bus address of the data buffer for the peer (CAP_SYS_ADMIN)
 * @sq_db_addr: bus address of the SQ tail doorbell (CAP_SYS_ADMIN)
 * @cq_db_addr: bus address of the CQ head doorbell (CAP_SYS_ADMIN)
 * @mode: &enum nvme_peer_mode
 * @guarantee: &enum nvme_peer_guarantee: what confines a hostile peer
 * @file_dev: (NVME_PEER_INFO_FILE) the bound file's device, as st_dev
 *	(new_encode_dev())
 * @file_access: NVME_PEER_ACCESS_*
 * @file_ino: its inode number
 * @file_off: the range's first byte
 * @file_len: the range's length
 * @file_extents: number of extents (NVME_PEER_IOC_FILE_MAP lists them)
 * @lease: &enum nvme_peer_lease
 * @sq_placement: &enum nvme_peer_placement of the SQ
 * @cq_placement: of the CQ
 * @data_placement: of the data buffer
 * @sq_location: &enum nvme_peer_location: where the SQ really is
 * @cq_location: where the CQ is
 * @data_location: where the data buffer is
 * @rsvd: 0
 *
 * For a dma-buf region @sq_addr, @cq_addr and @data_addr are the region's
 * offsets in its dma-buf: the exporter's device knows its own buffer.
 * dma-buf regions cannot be mapped through /dev/nvme-peer (-ENODEV): map
 * the dma-buf.
 *
 * In mediated mode the SQ, CQ and doorbell regions are the shadow ones: the
 * doorbells are little-endian 32-bit words in memory at @sq_db_in_page and
 * @cq_db_in_page, which the kernel polls (NVME_PEER_IOC_RING wakes it).
 */
struct nvme_peer_info {
	__u32 size;
	__u32 flags;
	__u32 ctrl;
	__u32 qid;
	__u32 nsid;
	__u32 depth;
	__u32 lba_shift;
	__u32 state;
	__u32 reason;
	__u32 db_stride;
	__u64 sq_off;
	__u64 sq_size;
	__u64 cq_off;
	__u64 cq_size;
	__u64 data_off;
	__u64 data_size;
	__u64 db_off;
	__u64 db_size;
	__u32 sq_db_in_page;
	__u32 cq_db_in_page;
	__u64 data_ctrl_addr;
	__u64 sq_addr;
	__u64 cq_addr;
	__u64 data_addr;
	__u64 sq_db_addr;
	__u64 cq_db_addr;
	__u32 mode;
	__u32 guarantee;
	__u32 file_dev;
	__u32 file_access;
	__u64 file_ino;
	__u64 file_off;
	__u64 file_len;
	__u32 file_extents;
	__u32 lease;
	__u8 sq_placement;
	__u8 cq_placement;
	__u8 data_placement;
	__u8 sq_location;
	__u8 cq_location;
	__u8 data_location;
	__u8 rsvd[2];
};

/**
 * struct nvme_peer_file_extent - where a piece of a bound file is
 * @off: byte offset in the file
 * @slba: its first LBA in the namespace
 * @nlb: number of LBAs
 */
struct nvme_peer_file_extent {
	__u64 off;
	__u64 slba;
	__u64 nlb;
};

/**
 * struct nvme_peer_file_map - NVME_PEER_IOC_FILE_MAP: the bound file's map
 * @size: sizeof(struct nvme_peer_file_map)
 * @flags: 0
 * @nr: in: room in @extents; out: the number of extents (all of them,
 *	even when more than fit: call again with more room)
 * @rsvd: 0
 * @extents: user pointer to @nr struct nvme_peer_file_extent, in file
 *	order; holes and unwritten extents are not in the map
 */
struct nvme_peer_file_map {
	__u32 size;
	__u32 flags;
	__u32 nr;
	__u32 rsvd;
	__u64 extents;
};

/**
 * struct nvme_peer_ring - NVME_PEER_IOC_RING: the kernel rings the doorbells
 * @size: sizeof(struct nvme_peer_ring)
 * @flags: NVME_PEER_RING_SQ and/or NVME_PEER_RING_CQ
 * @sq_tail: new SQ tail (< depth)
 * @cq_head: new CQ head (< depth)
 *
 * For owners that may not map the doorbell page (it holds other queues'
 * doorbells unless the stride isolates them).
 */
struct nvme_peer_ring {
	__u32 size;
	__u32 flags;
	__u32 sq_tail;
	__u32 cq_head;
};

#define NVME_PEER_RING_SQ	(1U << 0)
#define NVME_PEER_RING_CQ	(1U << 1)

/* struct nvme_peer_window_req.flags */
#define NVME_PEER_WINDOW_FILE	(1U << 0)	/* file_* valid: bind a file */

/**
 * struct nvme_peer_window_req - NVME_PEER_IOC_WINDOW: a read-only window
 * @size: sizeof(struct nvme_peer_window_req)
 * @flags: 0, or %NVME_PEER_WINDOW_FILE
 * @ctrl: controller instance: N of /dev/nvmeN, whose window provider shows
 *	@nsid (configfs nvme-peer/nvmeN/pmr_nsid; -ENXIO otherwise)
 * @nsid: the namespace
 * @nr_extents: number of @extents, at most 65536; 0 without
 *	%NVME_PEER_WINDOW_FILE: the whole namespace (CAP_SYS_ADMIN either way)
 * @lba_shift: out: log2 of the namespace's LBA size
 * @extents: user pointer to @nr_extents struct nvme_peer_extent
 * @file_fd: (%NVME_PEER_WINDOW_FILE) a regular file on @nsid, open for
 *	reading; its written blocks in the range are what the window shows.
 *	No capability needed: the caller must own the file or hold CAP_LEASE
 *	(-EACCES), as for a layout lease
 * @rsvd: 0
 * @file_off: first byte of the range, a multiple of the file system block
 * @file_len: bytes, a multiple of the block; the range ends at or before
 *	the end of the file
 * @mmap_off: out: the mmap offset of the window's view
 * @view_size: out: the view's bytes: the namespace's size, or @file_len
 * @guarantee: out: &enum nvme_peer_guarantee (%NVME_PEER_GUARANTEE_CPU)
 * @rsvd2: 0
 *
 * The out fields must be 0 when called (-EINVAL), as reserved ones.
 *
 * The view is addressed by the namespace's byte offset (LBA x LBA size),
 * or for a file by the offset in the range (0 is @file_off).  mmap() of
 * /dev/nvme-peer at @mmap_off (or further into the view), MAP_SHARED and
 * PROT_READ only (-EACCES with PROT_WRITE; mprotect() cannot add it),
 * shows the pages wholly inside the extents; a load elsewhere gets
 * SIGBUS, as does every load once the window is revoked (poll() then
 * reports POLLERR, NVME_PEER_IOC_QUERY the reason).  A file's holes and
 * unwritten extents are not shown.
 */
struct nvme_peer_window_req {
	__u32 size;
	__u32 flags;
	__u32 ctrl;
	__u32 nsid;
	__u32 nr_extents;
	__u32 lba_shift;
	__u64 extents;
	__s32 file_fd;
	__u32 rsvd;
	__u64 file_off;
	__u64 file_len;
	__u64 mmap_off;
	__u64 view_size;
	__u32 guarantee;
	__u32 rsvd2;
};

/**
 * struct nvme_peer_window_piece - a piece of a window as its peer reads it
 * @view_off: its first byte in the view (a page multiple)
 * @len: its bytes (a page multiple)
 * @bus_addr: where the window's peer device reads it (configfs intent's
 *	peer): mapped read only for that device (DMA_TO_DEVICE), confined to
 *	the piece where an IOMMU translates it (QUERY's guarantee iommu);
 *	0 for a window without a peer (the CPU's loads only)
 */
struct nvme_peer_window_piece {
	__u64 view_off;
	__u64 len;
	__u64 bus_addr;
};

/**
 * struct nvme_peer_window_map - NVME_PEER_IOC_WINDOW_MAP: a window's pieces
 * @size: sizeof(struct nvme_peer_window_map)
 * @flags: 0
 * @nr: in: room in @pieces; out: the number of pieces (all of them, even
 *	when more than fit: call again with more room)
 * @rsvd: 0
 * @pieces: user pointer to @nr struct nvme_peer_window_piece, in view
 *	order
 *
 * Of the window this open file holds (-ENXIO for none, and once it is
 * revoked: its bus addresses are gone then).  A runtime hands the bus
 * addresses to the peer device the administrator named.
 */
struct nvme_peer_window_map {
	__u32 size;
	__u32 flags;
	__u32 nr;
	__u32 rsvd;
	__u64 pieces;
};

/*
 * The sizes of the extensible structs as first published; the kernel
 * refuses smaller ones (-EINVAL).  struct nvme_peer_extent,
 * nvme_peer_file_extent and nvme_peer_dmabuf_region are array elements or
 * parts of a struct: fixed, never extended.
 */
#define NVME_PEER_RESERVE_SIZE_VER0	168	/* struct nvme_peer_reserve */
#define NVME_PEER_ATTACH_SIZE_VER0	48	/* struct nvme_peer_attach */
#define NVME_PEER_INFO_SIZE_VER0	216	/* struct nvme_peer_info */
#define NVME_PEER_FILE_MAP_SIZE_VER0	24	/* struct nvme_peer_file_map */
#define NVME_PEER_RING_SIZE_VER0	16	/* struct nvme_peer_ring */
#define NVME_PEER_WINDOW_SIZE_VER0	80	/* struct nvme_peer_window_req */
#define NVME_PEER_WINDOW_MAP_SIZE_VER0	24	/* struct nvme_peer_window_map */

/*
 * 'N' 0x90-0x9F; 0x98-0x9F are free for later ioctls.  Directions as seen
 * from user space: _IOW passes the struct in, _IOWR in and out (RESERVE
 * returns the qid, QUERY the info, FILE_MAP and WINDOW_MAP the count,
 * WINDOW the view);
 * RELEASE takes 0.
 * The size in a number is its struct's VER0 size and stays that when the
 * struct grows (the definition then names NVME_PEER_*_SIZE_VER0, and the
 * kernel checks at build time that it does): the struct's size field, not
 * the number, says which version user space has.
 */
#define NVME_PEER_IOC_MAGIC	'N'
#define NVME_PEER_IOC_RESERVE	_IOWR(NVME_PEER_IOC_MAGIC, 0x90, \
				      struct nvme_peer_reserve)
#define NVME_PEER_IOC_ATTACH	_IOW(NVME_PEER_IOC_MAGIC, 0x91, \
				     struct nvme_peer_attach)
#define NVME_PEER_IOC_QUERY	_IOWR(NVME_PEER_IOC_MAGIC, 0x92, \
				      struct nvme_peer_info)
#define NVME_PEER_IOC_RELEASE	_IO(NVME_PEER_IOC_MAGIC, 0x93)
#define NVME_PEER_IOC_RING	_IOW(NVME_PEER_IOC_MAGIC, 0x94, \
				     struct nvme_peer_ring)
#define NVME_PEER_IOC_FILE_MAP	_IOWR(NVME_PEER_IOC_MAGIC, 0x95, \
				      struct nvme_peer_file_map)
#define NVME_PEER_IOC_WINDOW	_IOWR(NVME_PEER_IOC_MAGIC, 0x96, \
				      struct nvme_peer_window_req)
#define NVME_PEER_IOC_WINDOW_MAP _IOWR(NVME_PEER_IOC_MAGIC, 0x97, \
				       struct nvme_peer_window_map)

#endif /* _UAPI_LINUX_NVME_PEER_H */
