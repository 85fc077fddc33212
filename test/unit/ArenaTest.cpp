//===- ArenaTest.cpp - the activation arena ---------------------------------===//
#include "runtime/core/Error.h"
#include "runtime/exec/Arena.h"

#include <gtest/gtest.h>

#include <cstring>

using mm::rt::Arena;

namespace {

TEST(Arena, FirstCallOverflowsThenGrowsToItsPeak) {
  Arena a;
  void *x = a.allocate(100); // rounded to 128
  void *y = a.allocate(64);
  EXPECT_FALSE(a.inBuffer(x)); // no buffer yet: heap overflow
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x) % Arena::kAlignment, 0u);
  std::memset(x, 1, 100);
  std::memset(y, 2, 64);
  a.release(x);
  a.release(y);
  a.endCall();
  EXPECT_EQ(a.capacity(), 192u);
  EXPECT_EQ(a.growCount(), 1);
  // The same sequence now fits: no growth, blocks inside the buffer.
  x = a.allocate(100);
  y = a.allocate(64);
  EXPECT_TRUE(a.inBuffer(x));
  EXPECT_TRUE(a.inBuffer(y));
  a.endCall();
  EXPECT_EQ(a.growCount(), 1);
}

TEST(Arena, BestFitReusesTheSmallestGapThatFits) {
  Arena a;
  a.release(a.allocate(1024));
  a.endCall(); // a 1024-byte buffer: every block below lies in it
  uint8_t *base = static_cast<uint8_t *>(a.allocate(1));
  a.endCall();
  // Offsets: p0 [0,256) p1 [256,320) p2 [320,576) p3 [576,640) p4 [640,704)
  void *p0 = a.allocate(256), *p1 = a.allocate(64), *p2 = a.allocate(256);
  void *p3 = a.allocate(64), *p4 = a.allocate(64);
  EXPECT_EQ(p0, base);
  EXPECT_EQ(p3, base + 576);
  a.release(p0); // gap of 256 at 0
  a.release(p3); // gap of 64 at 576
  // First fit would take offset 0; best fit takes the 64-byte gap.
  EXPECT_EQ(a.allocate(64), p3);
  EXPECT_EQ(a.allocate(200), p0);
  EXPECT_EQ(a.allocate(64), base + 704); // no gap left: after the last block
  (void)p1;
  (void)p2;
  (void)p4;
  a.endCall();
  EXPECT_EQ(a.liveBlocks(), 0u);
  EXPECT_EQ(a.capacity(), 1024u);
  EXPECT_EQ(a.growCount(), 1);
}

TEST(Arena, LiveBlocksNeverOverlap) {
  Arena a;
  std::vector<std::pair<uint8_t *, size_t>> live;
  unsigned seed = 7;
  for (int call = 0; call < 3; ++call) {
    for (int i = 0; i < 200; ++i) {
      seed = seed * 1103515245 + 12345;
      if (!live.empty() && (seed >> 16) % 3 == 0) {
        size_t k = (seed >> 8) % live.size();
        a.release(live[k].first);
        live.erase(live.begin() + static_cast<long>(k));
        continue;
      }
      size_t n = 1 + (seed >> 12) % 5000;
      auto *p = static_cast<uint8_t *>(a.allocate(n));
      std::memset(p, i & 0xff, n);
      for (auto &[q, m] : live)
        EXPECT_TRUE(p + n <= q || q + m <= p) << "overlapping blocks";
      live.emplace_back(p, n);
    }
    live.clear();
    a.endCall();
  }
  EXPECT_GE(a.capacity(), a.peak());
}

TEST(Arena, ReleaseOfAForeignPointerFails) {
  Arena a;
  int x;
  EXPECT_THROW(a.release(&x), mm::rt::Error);
}

} // namespace

// The CUDA executor issues a call's launches after all its allocations, so an overflow
// block released during the call must stay allocated until endCall (deferOverflowRelease);
// until then only a later allocation of the same call may take it over.
namespace {
namespace deferred {
int frees = 0, allocations = 0;
size_t bytesAllocated = 0;
void *allocate(size_t bytes) {
  ++allocations;
  bytesAllocated += bytes;
  return std::malloc(bytes);
}
void release(void *p) {
  ++frees;
  std::free(p);
}
void reset() { frees = allocations = 0, bytesAllocated = 0; }
} // namespace deferred
} // namespace

TEST(Arena, DeferredOverflowBlocksAreFreedAtEndCall) {
  Arena a({deferred::allocate, deferred::release, /*deferOverflowRelease=*/true});
  deferred::reset();
  void *x = a.allocate(64);
  void *y = a.allocate(64);
  a.release(x);
  a.release(y);
  EXPECT_EQ(deferred::frees, 0); // still allocated: a recorded launch may write them
  a.endCall(); // the two overflow blocks go; the buffer grows to the call's peak (128)
  EXPECT_EQ(deferred::frees, 2);
  EXPECT_EQ(a.capacity(), 128u);
}

TEST(Arena, DeferredOverflowBlocksAreReusedByLaterAllocationsOfTheCall) {
  Arena a({deferred::allocate, deferred::release, /*deferOverflowRelease=*/true});
  deferred::reset();
  void *x = a.allocate(64);
  void *live = a.allocate(256);
  a.release(x);
  EXPECT_EQ(a.allocate(64), x);         // x's storage, now free, taken over
  EXPECT_NE(a.allocate(32), live);      // a live block is never handed out
  EXPECT_EQ(deferred::allocations, 3);  // x, live, and the 32 (nothing retired fits it)
  a.endCall();
  EXPECT_EQ(deferred::frees, 3);
}

TEST(Arena, AFirstCallNeedsItsLivePeakNotItsSum) {
  // 32 layers, each with the same three activations, two live at a time: the overflow
  // storage of the first call stays at one layer's worth instead of 32 (the 7B's prefill
  // took 3.3 GB of device memory this way for a 77 MB arena).
  Arena a({deferred::allocate, deferred::release, /*deferOverflowRelease=*/true});
  deferred::reset();
  void *h = a.allocate(4096);
  for (int layer = 0; layer < 32; ++layer) {
    void *q = a.allocate(3 * 4096);
    void *o = a.allocate(4096);
    a.release(q);
    void *m = a.allocate(11008);
    a.release(h);
    a.release(m);
    h = o;
  }
  a.release(h);
  EXPECT_LE(deferred::bytesAllocated, size_t(4096 + 3 * 4096 + 4096 + 11008 + 4 * 64));
  const int overflowBlocks = deferred::allocations;
  a.endCall(); // frees them all, then allocates the grown buffer
  EXPECT_EQ(deferred::frees, overflowBlocks);
}

TEST(Arena, ImmediateOverflowBlocksAreFreedOnRelease) {
  Arena a({deferred::allocate, deferred::release, /*deferOverflowRelease=*/false});
  deferred::reset();
  void *x = a.allocate(64);
  a.release(x);
  EXPECT_EQ(deferred::frees, 1);
  a.endCall();
  EXPECT_EQ(deferred::frees, 1);
}

TEST(Arena, ReserveGrowsBetweenCallsSoThatACallOfThatSizeDoesNotAllocate) {
  Arena a({deferred::allocate, deferred::release, /*deferOverflowRelease=*/true});
  deferred::reset();
  a.reserve(4096);
  EXPECT_EQ(a.capacity(), 4096u);
  EXPECT_EQ(deferred::allocations, 1);
  a.reserve(1024); // smaller: kept as it is
  EXPECT_EQ(a.capacity(), 4096u);
  EXPECT_EQ(deferred::allocations, 1);
  void *x = a.allocate(3000);
  EXPECT_TRUE(a.inBuffer(x));
  EXPECT_THROW(a.reserve(8192), mm::rt::Error); // a live block must not move
  EXPECT_EQ(a.capacity(), 4096u);
  a.release(x);
  EXPECT_THROW(a.reserve(8192), mm::rt::Error); // inside a call: launches may still read it
  a.endCall();
  EXPECT_EQ(deferred::allocations, 1);
  EXPECT_EQ(a.growCount(), 1);
  EXPECT_EQ(a.peak(), 3008u); // what the calls needed, not what was reserved
  a.reserve(5000); // rounded up to the block alignment
  EXPECT_EQ(a.capacity(), 5056u);
  EXPECT_EQ(deferred::frees, 1); // the old buffer, released before the new one was taken
  a.reserve(0);
  EXPECT_EQ(a.capacity(), 5056u);
}
