//===- OpCapabilitiesTest.cpp - one table of the ops the CUDA backend runs ----===//
//
// -mm-plan-cuda-graphs places ops on the device by runtime/cuda/OpCapabilities.h; the CUDA
// executor launches by its own method table. A name in one and not the other is a plan the
// runtime refuses (or a launch nothing places): both must hold the same ops. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/OpCapabilities.h"
#include "runtime/cudaexec/OpRecorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

TEST(OpCapabilities, LaunchTableHoldsExactlyTheDeviceOps) {
  std::vector<std::string> placed;
  for (const mm::rt::cuda::DeviceOpCapability &c : mm::rt::cuda::kDeviceOps)
    placed.emplace_back(c.name);
  std::sort(placed.begin(), placed.end());
  EXPECT_TRUE(std::adjacent_find(placed.begin(), placed.end()) == placed.end())
      << "an op is listed twice in kDeviceOps";
  EXPECT_EQ(placed, mm::rt::cudaexec::deviceLaunchNames());
}

TEST(OpCapabilities, UnknownOpHasNoLaunch) {
  EXPECT_FALSE(mm::rt::cudaexec::hasDeviceLaunch("mm.softmax"));
  EXPECT_TRUE(mm::rt::cudaexec::hasDeviceLaunch("mm.linear"));
}

} // namespace
