//===- Locations.h - the ONNX node an op came from, in words ----------------===//
//
// The ONNX importer gives each op the location NameLoc(node name, FileLineColLoc(model
// file)); the plan emitter records it per op and mmc's reports name the node with it.
//
//===----------------------------------------------------------------------===//
#ifndef MM_COMPILER_SUPPORT_LOCATIONS_H
#define MM_COMPILER_SUPPORT_LOCATIONS_H

#include "mlir/IR/Location.h"

#include <string>

namespace mm {

/// "node (file:line:col)" for an importer location NameLoc(node, FileLineColLoc(file));
/// fused locations joined with ", "; "" for an unknown location.
std::string describeLocation(mlir::Location loc);

} // namespace mm

#endif // MM_COMPILER_SUPPORT_LOCATIONS_H
