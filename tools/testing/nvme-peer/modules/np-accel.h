/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NP_ACCEL_H
#define _NP_ACCEL_H

#include <linux/types.h>

struct dma_buf;

int np_accel_write(u64 dst, const void *src, u32 len);
int np_accel_read(u64 src, void *dst, u32 len);
struct dma_buf *np_accel_dmabuf(size_t size);

#endif /* _NP_ACCEL_H */
