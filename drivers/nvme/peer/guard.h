/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer guard: decides whether one NVMe I/O submission queue entry is
 * allowed by a policy.  Pure computation with no kernel or libc calls, so
 * the same guard.c builds into the module, its KUnit test and the userspace
 * benchmark (tools/testing/nvme-peer/bench/).
 */
#ifndef _NVME_PEER_GUARD_H
#define _NVME_PEER_GUARD_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/cdefs.h>	/* __always_inline, __attribute_noinline__ */

/* the kernel's names for the <stdint.h> types */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __UINT32_TYPE__ __le32;
typedef __UINT64_TYPE__ __le64;

#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))
#define noinline	__attribute_noinline__
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define le32_to_cpu(x)	__builtin_bswap32(x)
#define le64_to_cpu(x)	__builtin_bswap64(x)
#define cpu_to_le32(x)	__builtin_bswap32(x)
#define cpu_to_le64(x)	__builtin_bswap64(x)
#else
#define le32_to_cpu(x)	((u32)(x))
#define le64_to_cpu(x)	((u64)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define cpu_to_le64(x)	((__le64)(x))
#endif
#endif /* __KERNEL__ */

#include "words.h"	/* enum np_guard_verdict, beside its words */

/* The NVM command set opcodes the guard understands; all others are refused. */
#define NP_OP_FLUSH		0x00
#define NP_OP_WRITE		0x01
#define NP_OP_READ		0x02
#define NP_OP_WRITE_ZEROES	0x08
#define NP_OP_DSM		0x09

#define NP_GUARD_PAGE_SHIFT	12	/* CC.MPS = 0 */
#define NP_GUARD_PAGE_SIZE	4096U	/* 1 << NP_GUARD_PAGE_SHIFT */
#define NP_GUARD_MAX_LIST	(NP_GUARD_PAGE_SIZE / 8)	/* no chaining */

#define NP_GUARD_FAST_SLOTS	16	/* slots of each range cache */
#define NP_GUARD_FAST_NLB	8	/* most LBAs of a fast command: 4096 >> 9 */

/**
 * struct np_range - a range of LBAs, or of controller-visible DMA addresses
 * @start: first LBA or address
 * @len: number of LBAs or bytes, at least 1; the range is
 *	[@start, @start + @len), which must not wrap past 2^64
 *
 * A policy's LBA extents and its data windows are both lists of ranges,
 * put in shape by np_ranges_prepare().
 */
struct np_range {
	u64 start;
	u64 len;
};

/**
 * struct np_policy - what the commands of one peer queue may do
 * @nsid: the one namespace allowed (never 0 or 0xffffffff)
 * @lba_shift: log2 of the LBA data size, 9..16
 * @ns_size: namespace size in LBAs (NSZE)
 * @opcodes: bitmap of allowed opcodes 0..255; only the NP_OP_* ones can pass
 * @extents: LBA ranges, sorted and merged, see np_ranges_prepare()
 * @nr_extents: number of @extents; 0 refuses every command with LBAs
 * @windows: DMA address ranges, sorted and merged, see np_ranges_prepare()
 * @nr_windows: number of @windows; 0 refuses every command with data
 * @max_nlb: largest 1-based NLB a command may carry; 0 means 65536
 * @fast_qw0: by CDW0 bits 1:0, the first quadword (CDW0 | NSID << 32),
 *	command identifier masked off, of a command the fast path takes; a
 *	value no quadword can have when the opcode is not taken
 * @fast_cdw12: CDW12 bits that are clear in a command the fast path takes
 * @fast_len: data length in bytes of a fast command, by 0-based NLB
 * @fast_ext_shift: LBA x may be in the extent of slot
 *	(x >> @fast_ext_shift) % NP_GUARD_FAST_SLOTS of the extent cache
 * @fast_win_shift: the same for addresses and the window cache
 * @fast_ext_first: extent cache: first LBA of the slot's extent
 * @fast_ext_end: one past its last LBA in the namespace; 0 for a slot that
 *	holds no extent
 * @fast_win_first: window cache: first address of the slot's window
 * @fast_win_end: one past its last address; 0 for an empty slot
 *
 * Immutable while a queue lives.  np_guard_check() relies on @extents and
 * @windows being in the shape np_ranges_prepare() leaves them in; the
 * kernel calls it on each once when the policy is set, then
 * np_policy_init(), which fills the fast_* fields from the others.
 */
struct np_policy {
	u32 nsid;
	u32 lba_shift;
	u64 ns_size;
	u64 opcodes[4];
	const struct np_range *extents;
	u32 nr_extents;
	const struct np_range *windows;
	u32 nr_windows;
	u32 max_nlb;

	/* derived by np_policy_init() */
	u64 fast_qw0[4];
	u32 fast_cdw12;
	u32 fast_len[NP_GUARD_FAST_NLB];
	u32 fast_ext_shift;
	u32 fast_win_shift;
	u64 fast_ext_first[NP_GUARD_FAST_SLOTS];
	u64 fast_ext_end[NP_GUARD_FAST_SLOTS];
	u64 fast_win_first[NP_GUARD_FAST_SLOTS];
	u64 fast_win_end[NP_GUARD_FAST_SLOTS];
};

/**
 * struct np_prp_list - a private copy of the PRP list a command points to
 * @entries: the copied entries, little-endian as in memory
 * @nr: number of valid @entries
 * @list_addr: the DMA address they were copied from (the command's PRP2)
 *
 * The list lives in peer-writable memory: the caller copies it into memory
 * the peer cannot change, has the copy validated and must then make the
 * controller read the copy (or otherwise stop the peer from rewriting the
 * original) to avoid a time-of-check/time-of-use race.
 */
struct np_prp_list {
	const __le64 *entries;
	u32 nr;
	u64 list_addr;
};

int np_ranges_prepare(struct np_range *r, u32 *nr);
int np_policy_init(struct np_policy *p);
u16 np_guard_status(enum np_guard_verdict v);
u32 np_guard_prp_list_len(const struct np_policy *p, const void *sqe);
enum np_guard_verdict np_guard_dsm_ranges(const struct np_policy *p,
					  const void *ranges, u32 nr);
enum np_guard_verdict np_guard_check(const struct np_policy *p,
				     const void *sqe,
				     const struct np_prp_list *list);

#endif /* _NVME_PEER_GUARD_H */
