// -mm-fold-shapes on shape chains that depend on dynamic dims (ONNX dim names in
// `mm.dims`), as the TorchScript and dynamo exporters write them: mm.shape disappears,
// what is static folds, Reshape gets 0 / -1 entries and Expand 1 entries, and what
// really depends on a dynamic dim is read with mm.dim from a function argument.
// RUN: mmc-opt %s -mm-fold-shapes | FileCheck %s

// ViT embeddings (TorchScript): the patch reshape copies the batch (0) and infers the
// patch count (-1); the class token is expanded to the batch, the only dynamic value.
// CHECK-LABEL: func.func @vit_embeddings
// CHECK-DAG:  %[[ONES:.*]] = mm.constant dense<1> : tensor<2xi64>
// CHECK-DAG:  %[[PATCH:.*]] = mm.constant dense<[0, 64, -1]> : tensor<3xi64>
// CHECK-DAG:  %[[B:.*]] = mm.dim %arg0[0] : tensor<?x3x64x64xf32> -> tensor<1xi64>
// CHECK-DAG:  %[[CLS:.*]] = mm.concat %[[B]], %[[ONES]] {axis = 0 : i64} : tensor<1xi64>, tensor<2xi64> -> tensor<3xi64>
// CHECK:      %[[CONV:.*]] = mm.conv {{.*}} -> tensor<?x64x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = mm.reshape %[[CONV]], %[[PATCH]] : tensor<?x64x4x4xf32>, tensor<3xi64> -> tensor<?x64x16xf32>
// CHECK-NEXT: %[[T:.*]] = mm.transpose %[[R]] {perm = array<i64: 0, 2, 1>} : tensor<?x64x16xf32> -> tensor<?x16x64xf32>
// CHECK-NEXT: %[[E:.*]] = mm.expand %arg3, %[[CLS]] : tensor<1x1x64xf32>, tensor<3xi64> -> tensor<?x1x64xf32>
// CHECK-NEXT: mm.concat %[[E]], %[[T]] {axis = 1 : i64} : tensor<?x1x64xf32>, tensor<?x16x64xf32> -> tensor<?x17x64xf32>
// CHECK-NOT:  mm.shape
// CHECK-NOT:  mm.equal
// CHECK-NOT:  mm.where
func.func @vit_embeddings(%pix: tensor<?x3x64x64xf32> {mm.dims = ["batch", "", "", ""]}, %w: tensor<64x3x16x16xf32>, %b: tensor<64xf32>, %cls: tensor<1x1x64xf32>) -> tensor<?x?x64xf32> {
  %s = mm.shape %pix : tensor<?x3x64x64xf32> -> tensor<4xi64>
  %c0 = mm.constant dense<0> : tensor<i64>
  %g = mm.gather %s, %c0 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %conv = mm.conv %pix, %w, %b {strides = array<i64: 16, 16>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<?x3x64x64xf32>, tensor<64x3x16x16xf32>, tensor<64xf32> -> tensor<?x64x?x?xf32>
  %s2 = mm.shape %conv : tensor<?x64x?x?xf32> -> tensor<4xi64>
  %z = mm.constant dense<[0]> : tensor<1xi64>
  %two = mm.constant dense<[2]> : tensor<1xi64>
  %one1 = mm.constant dense<[1]> : tensor<1xi64>
  %sl = mm.slice %s2, %z, %two, %z, %one1 : tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  %m1 = mm.constant dense<[-1]> : tensor<1xi64>
  %cat = mm.concat %sl, %m1 {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<3xi64>
  %r = mm.reshape %conv, %cat : tensor<?x64x?x?xf32>, tensor<3xi64> -> tensor<?x?x?xf32>
  %t = mm.transpose %r {perm = array<i64: 0, 2, 1>} : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %u = mm.unsqueeze %g {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %c3 = mm.concat %u, %m1, %m1 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<3xi64>
  %r2 = mm.reshape %c3, %m1 : tensor<3xi64>, tensor<1xi64> -> tensor<?xi64>
  %s3 = mm.shape %r2 : tensor<?xi64> -> tensor<1xi64>
  %cos = mm.constant_of_shape %s3 {value = 1 : i64} : tensor<1xi64> -> tensor<?xi64>
  %cm1 = mm.constant dense<-1> : tensor<i64>
  %mul = mm.mul %cos, %cm1 : tensor<?xi64>, tensor<i64> -> tensor<?xi64>
  %eq = mm.equal %r2, %mul : tensor<?xi64>, tensor<?xi64> -> tensor<?xi1>
  %wh = mm.where %eq, %cos, %r2 : tensor<?xi1>, tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %ex = mm.expand %cls, %wh : tensor<1x1x64xf32>, tensor<?xi64> -> tensor<?x?x?xf32>
  %cat2 = mm.concat %ex, %t {axis = 1 : i64} : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %m1c = mm.constant dense<[0, 0, 64]> : tensor<3xi64>
  %out = mm.reshape %cat2, %m1c : tensor<?x?x?xf32>, tensor<3xi64> -> tensor<?x?x64xf32>
  return %out : tensor<?x?x64xf32>
}

// TorchScript self-attention: batch and sequence are read from the layernorm output
// and fed to the Reshape of the q projection, another tensor with the same dims.
// CHECK-LABEL: func.func @attention_reshape
// CHECK-NEXT: %[[S:.*]] = mm.constant dense<[0, 0, -1, 16]> : tensor<4xi64>
// CHECK-NEXT: %[[Q:.*]] = mm.matmul
// CHECK-NEXT: %[[R:.*]] = mm.reshape %[[Q]], %[[S]] : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x4x16xf32>
// CHECK-NEXT: mm.transpose %[[R]]
// CHECK-NEXT: return
func.func @attention_reshape(%x: tensor<?x?x64xf32> {mm.dims = ["batch", "seq", ""]}, %w: tensor<64x64xf32>) -> tensor<?x4x?x16xf32> {
  %s = mm.shape %x : tensor<?x?x64xf32> -> tensor<3xi64>
  %c0 = mm.constant dense<0> : tensor<i64>
  %c1 = mm.constant dense<1> : tensor<i64>
  %b = mm.gather %s, %c0 {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %s1 = mm.shape %x : tensor<?x?x64xf32> -> tensor<3xi64>
  %n = mm.gather %s1, %c1 {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %q = mm.matmul %x, %w : tensor<?x?x64xf32>, tensor<64x64xf32> -> tensor<?x?x64xf32>
  %ub = mm.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %un = mm.unsqueeze %n {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %m1 = mm.constant dense<[-1]> : tensor<1xi64>
  %d = mm.constant dense<[16]> : tensor<1xi64>
  %shape = mm.concat %ub, %un, %m1, %d {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xi64>
  %r = mm.reshape %q, %shape : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x?x?xf32>
  %t = mm.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x?x?xf32> -> tensor<?x4x?x16xf32>
  return %t : tensor<?x4x?x16xf32>
}

// KV cache: present = concat(past, new) along the sequence (dim past + seq); repeat_kv
// expands [b, 2, 1, past + seq, 16] to [b, 2, 2, past + seq, 16], computed with
// Equal/Where for torch's -1, then reshapes to [b, 4, past + seq, 16].
// CHECK-LABEL: func.func @repeat_kv
// CHECK-DAG:  %[[RS:.*]] = mm.constant dense<[0, 4, -1, 16]> : tensor<4xi64>
// CHECK-DAG:  %[[ES:.*]] = mm.constant dense<[1, 2, 2, 1, 16]> : tensor<5xi64>
// CHECK:      %[[P:.*]] = mm.concat %arg0, %arg1 {axis = -2 : i64}
// CHECK-NEXT: %[[U:.*]] = mm.unsqueeze %[[P]]
// CHECK-NEXT: %[[E:.*]] = mm.expand %[[U]], %[[ES]] : tensor<?x2x1x?x16xf32>, tensor<5xi64> -> tensor<?x2x2x?x16xf32>
// CHECK-NEXT: %[[R:.*]] = mm.reshape %[[E]], %[[RS]] : tensor<?x2x2x?x16xf32>, tensor<4xi64> -> tensor<?x4x?x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @repeat_kv(%past: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "past", ""]},
                     %new: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "seq", ""]}) -> tensor<?x4x?x16xf32> {
  %present = mm.concat %past, %new {axis = -2 : i64} : tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x2x?x16xf32>
  %s = mm.shape %present : tensor<?x2x?x16xf32> -> tensor<4xi64>
  %i0 = mm.constant dense<0> : tensor<i64>
  %i1 = mm.constant dense<1> : tensor<i64>
  %i2 = mm.constant dense<2> : tensor<i64>
  %i3 = mm.constant dense<3> : tensor<i64>
  %b = mm.gather %s, %i0 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %h = mm.gather %s, %i1 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %t = mm.gather %s, %i2 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %d = mm.gather %s, %i3 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %u = mm.unsqueeze %present {axes = array<i64: 2>} : tensor<?x2x?x16xf32> -> tensor<?x2x1x?x16xf32>
  %ub = mm.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %uh = mm.unsqueeze %h {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %ut = mm.unsqueeze %t {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %ud = mm.unsqueeze %d {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %two = mm.constant dense<[2]> : tensor<1xi64>
  %cat = mm.concat %ub, %uh, %two, %ut, %ud {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<5xi64>
  %m1 = mm.constant dense<[-1]> : tensor<1xi64>
  %flat = mm.reshape %cat, %m1 : tensor<5xi64>, tensor<1xi64> -> tensor<5xi64>
  %n = mm.shape %flat : tensor<5xi64> -> tensor<1xi64>
  %ones = mm.constant_of_shape %n {value = 1 : i64} : tensor<1xi64> -> tensor<?xi64>
  %cm1 = mm.constant dense<-1> : tensor<i64>
  %neg = mm.mul %ones, %cm1 : tensor<?xi64>, tensor<i64> -> tensor<?xi64>
  %eq = mm.equal %flat, %neg : tensor<5xi64>, tensor<?xi64> -> tensor<?xi1>
  %w = mm.where %eq, %ones, %flat : tensor<?xi1>, tensor<?xi64>, tensor<5xi64> -> tensor<?xi64>
  %e = mm.expand %u, %w : tensor<?x2x1x?x16xf32>, tensor<?xi64> -> tensor<?x?x?x?x?xf32>
  %c2 = mm.constant dense<2> : tensor<i64>
  %h2 = mm.mul %h, %c2 : tensor<i64>, tensor<i64> -> tensor<i64>
  %uh2 = mm.unsqueeze %h2 {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %cat2 = mm.concat %ub, %uh2, %ut, %ud {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xi64>
  %r = mm.reshape %e, %cat2 : tensor<?x?x?x?x?xf32>, tensor<4xi64> -> tensor<?x4x?x16xf32>
  return %r : tensor<?x4x?x16xf32>
}

// The TorchScript causal mask: query positions past .. past + seq against key positions
// 0 .. past + seq. These depend on dynamic dims and stay, read from the inputs.
// CHECK-LABEL: func.func @causal_mask
// CHECK-DAG:  %[[PD:.*]] = mm.dim %arg1[2] : tensor<?x2x?x16xf32> -> tensor<1xi64>
// CHECK-DAG:  %[[P:.*]] = mm.squeeze %[[PD]] {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
// CHECK-DAG:  %[[SD:.*]] = mm.dim %arg0[1] : tensor<?x?x64xf32> -> tensor<1xi64>
// CHECK-DAG:  %[[S:.*]] = mm.squeeze %[[SD]] {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
// CHECK-DAG:  %[[T:.*]] = mm.add %[[P]], %[[S]] : tensor<i64>, tensor<i64> -> tensor<i64>
// CHECK-DAG:  %[[ZERO:.*]] = mm.constant dense<0> : tensor<i64>
// CHECK-DAG:  %[[ONE:.*]] = mm.constant dense<1> : tensor<i64>
// CHECK:      %[[R1:.*]] = mm.range %[[ZERO]], %[[S]], %[[ONE]]
// CHECK-NEXT: mm.add %[[R1]], %[[P]]
// CHECK-NEXT: mm.range %[[ZERO]], %[[T]], %[[ONE]]
// CHECK-NOT:  mm.shape
// CHECK-NOT:  mm.gather
func.func @causal_mask(%emb: tensor<?x?x64xf32> {mm.dims = ["batch", "seq", ""]},
                       %past: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "past", ""]}) -> tensor<1x1x?x?xi1> {
  %s = mm.shape %emb : tensor<?x?x64xf32> -> tensor<3xi64>
  %i1 = mm.constant dense<1> : tensor<i64>
  %i2 = mm.constant dense<2> : tensor<i64>
  %seq = mm.gather %s, %i1 {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %ps = mm.shape %past : tensor<?x2x?x16xf32> -> tensor<4xi64>
  %p = mm.gather %ps, %i2 {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %total = mm.add %p, %seq : tensor<i64>, tensor<i64> -> tensor<i64>
  %zero = mm.constant dense<0> : tensor<i64>
  %one = mm.constant dense<1> : tensor<i64>
  %r1 = mm.range %zero, %seq, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %pos = mm.add %r1, %p : tensor<?xi64>, tensor<i64> -> tensor<?xi64>
  %r2 = mm.range %zero, %total, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %q = mm.unsqueeze %pos {axes = array<i64: 0, 1, 3>} : tensor<?xi64> -> tensor<1x1x?x1xi64>
  %k = mm.unsqueeze %r2 {axes = array<i64: 0, 1, 2>} : tensor<?xi64> -> tensor<1x1x1x?xi64>
  %m = mm.less_or_equal %k, %q : tensor<1x1x1x?xi64>, tensor<1x1x?x1xi64> -> tensor<1x1x?x?xi1>
  return %m : tensor<1x1x?x?xi1>
}

// dynamo: Shape-15 with start/end and Squeeze give the dims as scalars; a Max of two
// broadcast tensors is only there for its shape, which an Expand uses. The Max goes;
// the Expand keeps the one entry the input does not have (past + seq).
// CHECK-LABEL: func.func @dynamo_broadcast_shape
// CHECK-DAG:  %[[ONES:.*]] = mm.constant dense<1> : tensor<3xi64>
// CHECK-DAG:  %[[P:.*]] = mm.dim %arg1[2]
// CHECK-DAG:  %[[S:.*]] = mm.dim %arg0[1]
// CHECK-DAG:  %[[T:.*]] = mm.add %[[S]], %[[P]] : tensor<1xi64>, tensor<1xi64> -> tensor<1xi64>
// CHECK-DAG:  %[[SHAPE:.*]] = mm.concat %[[ONES]], %[[T]] {axis = 0 : i64} : tensor<3xi64>, tensor<1xi64> -> tensor<4xi64>
// CHECK-DAG:  %[[B:.*]] = mm.dim %arg0[0]
// CHECK:      mm.expand %{{.*}}, %[[SHAPE]] : tensor<?x1x1x1xi64>, tensor<4xi64> -> tensor<?x1x1x?xi64>
// CHECK-NOT:  mm.max
// CHECK-NOT:  mm.shape
func.func @dynamo_broadcast_shape(%emb: tensor<?x?x64xf32> {mm.dims = ["batch", "seq", ""]},
                                  %past: tensor<?x2x?x16xf32> {mm.dims = ["batch", "", "past", ""]}) -> tensor<?x1x1x?xi64> {
  %sv = mm.shape %emb {start = 1, end = 2} : tensor<?x?x64xf32> -> tensor<1xi64>
  %seq = mm.squeeze %sv {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
  %pv = mm.shape %past {start = 2, end = 3} : tensor<?x2x?x16xf32> -> tensor<1xi64>
  %p = mm.squeeze %pv {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
  %bv = mm.shape %past {start = 0, end = 1} : tensor<?x2x?x16xf32> -> tensor<1xi64>
  %b = mm.squeeze %bv {axes = array<i64: 0>} : tensor<1xi64> -> tensor<i64>
  %total = mm.add %p, %seq : tensor<i64>, tensor<i64> -> tensor<i64>
  %zero = mm.constant dense<0> : tensor<i64>
  %one = mm.constant dense<1> : tensor<i64>
  %rb = mm.range %zero, %b, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %rt = mm.range %zero, %total, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %ub = mm.unsqueeze %rb {axes = array<i64: 1, 2, 3>} : tensor<?xi64> -> tensor<?x1x1x1xi64>
  %ut = mm.unsqueeze %rt {axes = array<i64: 0, 1, 2>} : tensor<?xi64> -> tensor<1x1x1x?xi64>
  %mx = mm.max %ub, %ut : tensor<?x1x1x1xi64>, tensor<1x1x1x?xi64> -> tensor<?x1x1x?xi64>
  %ms = mm.shape %mx : tensor<?x1x1x?xi64> -> tensor<4xi64>
  %e = mm.expand %ub, %ms : tensor<?x1x1x1xi64>, tensor<4xi64> -> tensor<?x?x?x?xi64>
  %ee = mm.add %e, %ut : tensor<?x?x?x?xi64>, tensor<1x1x1x?xi64> -> tensor<?x1x1x?xi64>
  return %ee : tensor<?x1x1x?xi64>
}

// Rotary inv_freq expanded to the batch: the batch must come from a dim (the input has
// 1 there); the -1 entry becomes 1.
// CHECK-LABEL: func.func @rotary_expand
// CHECK-DAG:  %[[ONES:.*]] = mm.constant dense<1> : tensor<2xi64>
// CHECK-DAG:  %[[B:.*]] = mm.dim %arg0[0] : tensor<?x?xi64> -> tensor<1xi64>
// CHECK-DAG:  %[[S:.*]] = mm.concat %[[B]], %[[ONES]] {axis = 0 : i64}
// CHECK:      mm.expand %{{.*}}, %[[S]] : tensor<1x8x1xf32>, tensor<3xi64> -> tensor<?x8x1xf32>
// CHECK-NOT:  mm.equal
func.func @rotary_expand(%pos: tensor<?x?xi64> {mm.dims = ["batch", "seq"]}) -> tensor<?x8x1xf32> {
  %inv = mm.constant dense<1.0> : tensor<1x8x1xf32>
  %s = mm.shape %pos : tensor<?x?xi64> -> tensor<2xi64>
  %i0 = mm.constant dense<0> : tensor<i64>
  %b = mm.gather %s, %i0 {axis = 0 : i64} : tensor<2xi64>, tensor<i64> -> tensor<i64>
  %ub = mm.unsqueeze %b {axes = array<i64: 0>} : tensor<i64> -> tensor<1xi64>
  %rest = mm.constant dense<[-1, 1]> : tensor<2xi64>
  %cat = mm.concat %ub, %rest {axis = 0 : i64} : tensor<1xi64>, tensor<2xi64> -> tensor<3xi64>
  %ones = mm.constant dense<1> : tensor<3xi64>
  %m1 = mm.constant dense<-1> : tensor<3xi64>
  %eq = mm.equal %cat, %m1 : tensor<3xi64>, tensor<3xi64> -> tensor<3xi1>
  %w = mm.where %eq, %ones, %cat : tensor<3xi1>, tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  %e = mm.expand %inv, %w : tensor<1x8x1xf32>, tensor<3xi64> -> tensor<?x8x1xf32>
  return %e : tensor<?x8x1xf32>
}

// Near miss: Equal(x, -1) on values of a function argument (not dims: they may be
// negative) must not fold; neither may the Where, the Reshape that uses it, nor a
// Reshape whose shape is an argument.
// CHECK-LABEL: func.func @not_dims
// CHECK:      %[[EQ:.*]] = mm.equal %arg1
// CHECK-NEXT: %[[W:.*]] = mm.where %[[EQ]]
// CHECK-NEXT: mm.reshape %arg0, %[[W]] : tensor<8x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
// CHECK-NEXT: mm.reshape %arg0, %arg1 : tensor<8x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
func.func @not_dims(%x: tensor<8x4xf32>, %s: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %m1 = mm.constant dense<-1> : tensor<2xi64>
  %ones = mm.constant dense<1> : tensor<2xi64>
  %eq = mm.equal %s, %m1 : tensor<2xi64>, tensor<2xi64> -> tensor<2xi1>
  %w = mm.where %eq, %ones, %s : tensor<2xi1>, tensor<2xi64>, tensor<2xi64> -> tensor<2xi64>
  %r = mm.reshape %x, %w : tensor<8x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %r2 = mm.reshape %x, %s : tensor<8x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r, %r2 : tensor<?x?xf32>, tensor<?x?xf32>
}

// Near miss: a dynamic dim read through Gather stays dynamic (a squeezed mm.dim); a
// ConstantOfShape over it keeps that dim dynamic while its static dim (7) is refined.
// CHECK-LABEL: func.func @dynamic_stays
// CHECK-DAG:  %[[SEVEN:.*]] = mm.constant dense<7> : tensor<1xi64>
// CHECK-DAG:  %[[N:.*]] = mm.dim %arg0[0] : tensor<?x7xf32> -> tensor<1xi64>
// CHECK-DAG:  %[[NS:.*]] = mm.squeeze %[[N]]
// CHECK-DAG:  %[[SHAPE:.*]] = mm.concat %[[N]], %[[SEVEN]]
// CHECK:      mm.constant_of_shape %[[SHAPE]] {value = 0.000000e+00 : f32} : tensor<2xi64> -> tensor<?x7xf32>
// CHECK:      return %[[NS]]
func.func @dynamic_stays(%x: tensor<?x7xf32> {mm.dims = ["n", ""]}) -> (tensor<i64>, tensor<?xf32>) {
  %s = mm.shape %x : tensor<?x7xf32> -> tensor<2xi64>
  %i = mm.constant dense<0> : tensor<i64>
  %n = mm.gather %s, %i {axis = 0 : i64} : tensor<2xi64>, tensor<i64> -> tensor<i64>
  %z = mm.constant_of_shape %s {value = 0.0 : f32} : tensor<2xi64> -> tensor<?x?xf32>
  %sum = mm.reduce_sum %z {axes = array<i64: 1>, keepdims = false} : tensor<?x?xf32> -> tensor<?xf32>
  return %n, %sum : tensor<i64>, tensor<?xf32>
}

// Near miss: two inputs whose dims have different names are not assumed equal: the
// Reshape of y by x's dims cannot copy (0) y's dim, so one entry stays read from x.
// CHECK-LABEL: func.func @different_names
// CHECK-DAG:  %[[A:.*]] = mm.dim %arg0[0] : tensor<?x?xf32> -> tensor<1xi64>
// CHECK-DAG:  %[[M1:.*]] = mm.constant dense<-1> : tensor<1xi64>
// CHECK-DAG:  %[[S:.*]] = mm.concat %[[A]], %[[M1]] {axis = 0 : i64}
// CHECK:      mm.reshape %arg1, %[[S]]
func.func @different_names(%x: tensor<?x?xf32> {mm.dims = ["a", "b"]}, %y: tensor<?x?xf32> {mm.dims = ["c", "d"]}) -> tensor<?x?xf32> {
  %s = mm.shape %x : tensor<?x?xf32> -> tensor<2xi64>
  %r = mm.reshape %y, %s : tensor<?x?xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
