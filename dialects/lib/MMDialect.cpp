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

/// The contract attribute `attr` of argument or result `index` of a func.func.
static LogicalResult verifyFunctionValueAttr(Operation *op, unsigned region, unsigned index,
                                             NamedAttribute attr, bool isResult) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn || region != 0)
    return success();
  Type type = isResult ? fn.getResultTypes()[index] : fn.getArgumentTypes()[index];
  DictionaryAttr all = isResult ? fn.getResultAttrDict(index) : fn.getArgAttrDict(index);
  return mm::contract::verifyValueAttr(op, isResult, index, type, attr, all);
}

LogicalResult mm::MMDialect::verifyRegionArgAttribute(Operation *op, unsigned region,
                                                      unsigned index, NamedAttribute attr) {
  return verifyFunctionValueAttr(op, region, index, attr, /*isResult=*/false);
}

LogicalResult mm::MMDialect::verifyRegionResultAttribute(Operation *op, unsigned region,
                                                         unsigned index, NamedAttribute attr) {
  return verifyFunctionValueAttr(op, region, index, attr, /*isResult=*/true);
}
