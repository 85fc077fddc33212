//===- LowerPatchEmbedding.cpp - the -mm-lower-patch-embedding pass ---------===//
//
// A ViT's patch embedding is a convolution whose stride is its kernel: every output pixel
// reads one patch, and the whole op is one GEMM over the patches (im2col). For
// `mmc compile --target cuda` this pass writes it so, in ops the CUDA backend runs and
// the plan emitter folds, instead of leaving the layout to the runtime's load time:
//
//   mm.conv %x, %w, %b {strides = [kh, kw], pads = 0, dilations = 1, group = 1}
//       x [B, C, H, W] (C, H, W static, H % kh = W % kw = 0), w [O, C, kh, kw] a weight
//   becomes
//     %p  = reshape(x, [B, C, Hp, kh, Wp, kw])          (Hp = H / kh, Wp = W / kw)
//     %q  = transpose(%p, [0, 2, 4, 1, 3, 5])           [B, Hp, Wp, C, kh, kw]
//     %c  = reshape(%q, [B, Hp*Wp, C*kh*kw])            (one strided copy: the im2col)
//     %wt = transpose(reshape(w, [O, C*kh*kw]), [1, 0]) [K, O]: written so in the plan
//     %y  = mm.linear %c, %wt, %b                       [B, Hp*Wp, O]
//     %r  = transpose(reshape(%y, [B, Hp, Wp, O]), [0, 3, 1, 2])   [B, O, Hp, Wp]
//
// The weight's reshape and transpose fold into the plan's weight blob (mm/WeightExpr.h),
// so nothing runs for them per call. Any other convolution is left as it is (with
// `report-near-misses`, a remark says why).
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "mm/MMDialect.h"
#include "mm/MMOps.h"
#include "mm/WeightExpr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mm {
#define GEN_PASS_DEF_LOWERPATCHEMBEDDING
#include "compiler/transforms/Passes.h.inc"
} // namespace mm

using namespace mlir;
using namespace mm;

namespace {

/// Why `conv` is not a patch embedding this pass lowers, or "".
std::string notAPatchEmbedding(ConvOp conv) {
  auto x = cast<RankedTensorType>(conv.getInput().getType());
  auto w = cast<RankedTensorType>(conv.getWeight().getType());
  if (x.getRank() != 4 || w.getRank() != 4)
    return "it is not 2-D";
  if (!w.hasStaticShape() || x.isDynamicDim(1) || x.isDynamicDim(2) || x.isDynamicDim(3))
    return "its channels, height, width or kernel are dynamic";
  if (w.getNumElements() == 0 || x.getDimSize(1) == 0 || x.getDimSize(2) == 0 ||
      x.getDimSize(3) == 0 || x.getDimSize(0) == 0)
    return "it has a dim of size 0";
  if (conv.getGroup() != 1)
    return "it has groups";
  const int64_t kh = w.getDimSize(2), kw = w.getDimSize(3);
  if (conv.getStrides() != ArrayRef<int64_t>{kh, kw})
    return "its strides are not its kernel";
  if (llvm::any_of(conv.getPads(), [](int64_t p) { return p != 0; }))
    return "it pads";
  if (llvm::any_of(conv.getDilations(), [](int64_t d) { return d != 1; }))
    return "it dilates";
  if (x.getDimSize(2) % kh != 0 || x.getDimSize(3) % kw != 0)
    return "its kernel does not tile the image";
  int64_t patches = 0, ck = 0, k = 0;
  if (__builtin_mul_overflow(x.getDimSize(2) / kh, x.getDimSize(3) / kw, &patches) ||
      __builtin_mul_overflow(w.getDimSize(1), kh, &ck) || __builtin_mul_overflow(ck, kw, &k) ||
      patches > (int64_t(1) << 40) || k > (int64_t(1) << 40))
    return "its patches or patch size exceed 2^40";
  if (!weightExprOf(conv.getWeight()))
    return "its weight is not one the plan holds";
  auto want = RankedTensorType::get(
      {x.getDimSize(0), w.getDimSize(0), x.getDimSize(2) / kh, x.getDimSize(3) / kw},
      x.getElementType());
  if (conv.getType() != want)
    return "its result type is not the static [batch, out channels, rows, columns]";
  return "";
}

/// Builds the ops of the header's rewrite in front of `conv`.
class Lowering {
public:
  explicit Lowering(ConvOp conv) : conv_(conv), b_(conv) {}

  Value lower() {
    auto x = cast<RankedTensorType>(conv_.getInput().getType());
    auto w = cast<RankedTensorType>(conv_.getWeight().getType());
    const int64_t batch = x.getDimSize(0), c = x.getDimSize(1);
    const int64_t o = w.getDimSize(0), kh = w.getDimSize(2), kw = w.getDimSize(3);
    const int64_t hp = x.getDimSize(2) / kh, wp = x.getDimSize(3) / kw, k = c * kh * kw;
    Value patches = reshape(conv_.getInput(), {batch, c, hp, kh, wp, kw});
    patches = transpose(patches, {0, 2, 4, 1, 3, 5});
    patches = reshape(patches, {batch, hp * wp, k});
    Value weight = transpose(reshape(conv_.getWeight(), {o, k}), {1, 0});
    Value y = b_.create<LinearOp>(conv_.getLoc(), type({batch, hp * wp, o}), patches, weight,
                                  conv_.getBias(),
                                  ActivationAttr::get(conv_.getContext(), Activation::none));
    return transpose(reshape(y, {batch, hp, wp, o}), {0, 3, 1, 2});
  }

private:
  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, getElementTypeOrSelf(conv_.getType()));
  }

  Value reshape(Value v, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> entries(shape); // a dynamic batch is inferred (-1)
    for (int64_t &e : entries)
      e = ShapedType::isDynamic(e) ? -1 : e;
    auto shapeType = RankedTensorType::get({static_cast<int64_t>(entries.size())}, b_.getI64Type());
    Value s = b_.create<ConstantOp>(conv_.getLoc(), shapeType,
                                    DenseElementsAttr::get(shapeType, ArrayRef<int64_t>(entries)));
    return b_.create<ReshapeOp>(conv_.getLoc(), type(shape), v, s, b_.getBoolAttr(false));
  }

  Value transpose(Value v, ArrayRef<int64_t> perm) {
    auto in = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(in.getDimSize(p));
    return b_.create<TransposeOp>(conv_.getLoc(), type(shape), v, b_.getDenseI64ArrayAttr(perm));
  }

  ConvOp conv_;
  OpBuilder b_;
};

struct LowerPatchEmbeddingPass : mm::impl::LowerPatchEmbeddingBase<LowerPatchEmbeddingPass> {
  using LowerPatchEmbeddingBase::LowerPatchEmbeddingBase;

  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) { convs.push_back(conv); });
    for (ConvOp conv : convs) {
      if (std::string why = notAPatchEmbedding(conv); !why.empty()) {
        if (reportNearMisses)
          conv.emitRemark() << "not lowered as a patch embedding: " << why;
        continue;
      }
      Value lowered = Lowering(conv).lower(); // of conv's result type (notAPatchEmbedding)
      conv.replaceAllUsesWith(lowered);
      conv.erase();
    }
  }
};

} // namespace
