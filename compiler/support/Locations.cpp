//===- Locations.cpp - the ONNX node an op came from, in words --------------===//
#include "compiler/support/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace mm {

std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string child = describeLocation(name.getChildLoc());
    return name.getName().str() + (child.empty() ? "" : " (" + child + ")");
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string out;
    for (Location l : fused.getLocations()) {
      std::string part = describeLocation(l);
      if (!part.empty())
        out += (out.empty() ? "" : ", ") + part;
    }
    return out;
  }
  if (auto callsite = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(callsite.getCallee());
  return "";
}

} // namespace mm
