//===- MMDialect.cpp - dialect registration, enums and attributes --------===//
#include "mm/MMDialect.h"
#include "mm/MMOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "mm/MMDialect.cpp.inc"
#include "mm/MMEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "mm/MMAttrs.cpp.inc"

void mm::MMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mm/MMOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mm/MMAttrs.cpp.inc"
      >();
}
