//===- MaskPattern.cpp - what an attention mask built on the host hides ------===//
#include "runtime/exec/MaskPattern.h"

#include "runtime/core/Half.h"
#include "runtime/core/MaskRule.h"

#include <algorithm>

namespace mm::rt {
namespace {

/// Whether element e of a host mask lets the query see the key: 1 visible, 0 hidden,
/// -1 neither (an additive value other than 0 or a large negative one).
int visibility(const Tensor &m, int64_t e) {
  double v;
  switch (m.dtype) {
  case DType::boolean:
  case DType::u8:
    return m.as<uint8_t>()[e] != 0;
  case DType::f32:
    v = m.as<float>()[e];
    break;
  case DType::f16:
    v = static_cast<float>(m.as<Half>()[e]);
    break;
  case DType::bf16:
    v = static_cast<float>(m.as<BFloat16>()[e]);
    break;
  default:
    return -1;
  }
  if (v == 0.0)
    return 1;
  return hidesKey(v) ? 0 : -1;
}

} // namespace

/// Classifies mask [.., S, T] (broadcast over batch and heads) against the queries being
/// the last S of T positions.
MaskPattern classifyMask(const Tensor &m, int64_t s, int64_t t) {
  if (m.rank() < 2 || m.shape[m.rank() - 2] != s || m.shape[m.rank() - 1] != t)
    return MaskPattern::general;
  bool all = true, causal = true;
  const int64_t planes = m.numel() / std::max<int64_t>(s * t, 1);
  for (int64_t p = 0; p < planes && (all || causal); ++p)
    for (int64_t i = 0; i < s && (all || causal); ++i)
      for (int64_t j = 0; j < t; ++j) {
        int vis = visibility(m, (p * s + i) * t + j);
        if (vis < 0)
          return MaskPattern::general;
        all &= vis == 1;
        causal &= vis == (j <= i + (t - s) ? 1 : 0);
      }
  return all ? MaskPattern::none : causal ? MaskPattern::causal : MaskPattern::general;
}

} // namespace mm::rt
