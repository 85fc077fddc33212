//===- MMOps.h - operations of the `mm` dialect ------------------------------===//
#ifndef MM_MMOPS_H
#define MM_MMOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mm/MMDialect.h"
#include "mm/MMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mm/MMAttrs.h.inc"

#define GET_OP_CLASSES
#include "mm/MMOps.h.inc"

#endif // MM_MMOPS_H
