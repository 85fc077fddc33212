//===- MMDialect.cpp - dialect registration, enums and attributes --------===//
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/ModelContract.h"

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

LogicalResult mm::MMDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  return contract::verifyFunctionAttr(op, attr);
}

LogicalResult mm::MMDialect::verifyRegionArgAttribute(Operation *op, unsigned region,
                                                      unsigned index, NamedAttribute attr) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || region != 0)
    return success();
  return contract::verifyValueAttr(op, /*isResult=*/false, index, fn.getArgumentTypes()[index],
                                   attr, fn.getArgAttrDict(index));
}

LogicalResult mm::MMDialect::verifyRegionResultAttribute(Operation *op, unsigned region,
                                                         unsigned index, NamedAttribute attr) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || region != 0)
    return success();
  return contract::verifyValueAttr(op, /*isResult=*/true, index, fn.getResultTypes()[index],
                                   attr, fn.getResultAttrDict(index));
}
