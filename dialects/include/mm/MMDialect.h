//===- MMDialect.h - the `mm` dialect ----------------------------------------===//
#ifndef MM_MMDIALECT_H
#define MM_MMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mm/MMDialect.h.inc"

#endif // MM_MMDIALECT_H
