// -mm-plan-cuda-graphs: op placement (host / device) and CUDA-graph segments. Positive
// cases (decoder, vision encoder, folded weights), segment splits (a host op reading a
// device value, a reshape whose shape is device data), then near misses. Running the
// pass twice gives the same result (it recomputes every attribute).
// RUN: mmc-opt %s -mm-plan-cuda-graphs -split-input-file | FileCheck %s
// RUN: mmc-opt %s -mm-plan-cuda-graphs -mm-plan-cuda-graphs -split-input-file | FileCheck %s

// A decoder layer: the attention mask (from the i64 mask) and rotary cos/sin (from the
// i64 position ids) are computed on the host; everything from the embedding gather on
// runs on the device in one segment. mm.dim of a device tensor and the shape vectors
// built from it stay on the host without splitting the segment. Op indices skip
// mm.weight and mm.constant: the gather is op 10, the final add op 22.
// CHECK-LABEL: func.func @decoder
// CHECK-SAME: attributes {mm.segments = [{end = "end of function", first = 10 : i64, last = 22 : i64}]}
// CHECK-NOT: mm.placement
// CHECK: mm.weight "emb"
// CHECK-NOT: mm.placement
// CHECK: mm.cast %arg1 {mm.placement = "host"}
// CHECK-NEXT: mm.sub {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.mul {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.unsqueeze {{.*}} {axes = array<i64: 1, 2>, mm.placement = "host"}
// CHECK-NEXT: mm.cast %arg2 {mm.placement = "host"}
// CHECK-NEXT: mm.unsqueeze {{.*}}mm.placement = "host"
// CHECK-NEXT: mm.mul {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.concat {{.*}} {axis = 2 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.cos {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.sin {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.gather {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.rms_norm {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.dim {{.*}}[1] {mm.placement = "host"}
// CHECK-NEXT: mm.concat {{.*}} {axis = 0 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.rotary {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.attention {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.concat {{.*}} {axis = 0 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.add {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: return
func.func @decoder(%ids: tensor<1x?xi64>, %mask: tensor<1x?xi64>, %pos: tensor<1x?xi64>) -> tensor<1x?x32xf32> {
  %emb = mm.weight "emb" from "m.bin" [0, 4096] : tensor<32x32xf32>
  %nw = mm.weight "nw" from "m.bin" [4096, 128] : tensor<32xf32>
  %wq = mm.weight "wq" from "m.bin" [4224, 4096] : tensor<32x32xf32>
  %one = mm.constant dense<1.0> : tensor<f32>
  %big = mm.constant dense<-1.0e9> : tensor<f32>
  %inv = mm.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %c1 = mm.constant dense<1> : tensor<1xi64>
  %c4 = mm.constant dense<4> : tensor<1xi64>
  %c8 = mm.constant dense<8> : tensor<1xi64>
  %c32 = mm.constant dense<32> : tensor<1xi64>
  %mf = mm.cast %mask : tensor<1x?xi64> -> tensor<1x?xf32>
  %inverted = mm.sub %one, %mf : tensor<f32>, tensor<1x?xf32> -> tensor<1x?xf32>
  %additive = mm.mul %inverted, %big : tensor<1x?xf32>, tensor<f32> -> tensor<1x?xf32>
  %m4 = mm.unsqueeze %additive {axes = array<i64: 1, 2>} : tensor<1x?xf32> -> tensor<1x1x1x?xf32>
  %pf = mm.cast %pos : tensor<1x?xi64> -> tensor<1x?xf32>
  %pu = mm.unsqueeze %pf {axes = array<i64: 2>} : tensor<1x?xf32> -> tensor<1x?x1xf32>
  %ang = mm.mul %pu, %inv : tensor<1x?x1xf32>, tensor<4xf32> -> tensor<1x?x4xf32>
  %ang2 = mm.concat %ang, %ang {axis = 2 : i64} : tensor<1x?x4xf32>, tensor<1x?x4xf32> -> tensor<1x?x8xf32>
  %cos = mm.cos %ang2 : tensor<1x?x8xf32>
  %sin = mm.sin %ang2 : tensor<1x?x8xf32>
  %x = mm.gather %emb, %ids {axis = 0 : i64} : tensor<32x32xf32>, tensor<1x?xi64> -> tensor<1x?x32xf32>
  %n = mm.rms_norm %x, %nw : tensor<1x?x32xf32>, tensor<32xf32> -> tensor<1x?x32xf32>
  %q = mm.linear %n, %wq : tensor<1x?x32xf32>, tensor<32x32xf32> -> tensor<1x?x32xf32>
  %s = mm.dim %q[1] : tensor<1x?x32xf32> -> tensor<1xi64>
  %shape = mm.concat %c1, %s, %c4, %c8 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4xi64>
  %r = mm.reshape %q, %shape : tensor<1x?x32xf32>, tensor<4xi64> -> tensor<1x?x4x8xf32>
  %t = mm.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<1x?x4x8xf32> -> tensor<1x4x?x8xf32>
  %rot = mm.rotary %t, %cos, %sin : tensor<1x4x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32> -> tensor<1x4x?x8xf32>
  %a = mm.attention %rot, %rot, %t, %m4 {scale = 0.35355 : f32, causal = true} : tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x4x?x8xf32>, tensor<1x1x1x?xf32> -> tensor<1x4x?x8xf32>
  %bt = mm.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x?x8xf32> -> tensor<1x?x4x8xf32>
  %shape2 = mm.concat %c1, %s, %c32 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<3xi64>
  %o = mm.reshape %bt, %shape2 : tensor<1x?x4x8xf32>, tensor<3xi64> -> tensor<1x?x32xf32>
  %y = mm.add %o, %x : tensor<1x?x32xf32>, tensor<1x?x32xf32> -> tensor<1x?x32xf32>
  return %y : tensor<1x?x32xf32>
}

// -----

// A vision encoder: the patch embedding as -mm-lower-patch-embedding writes it (im2col
// reshapes and transpose, mm.linear over the weight reshaped and transposed, which fold
// into the plan: no placement) runs on the device; the batch dim and the class-token
// expand's shape are host values; one segment.
// CHECK-LABEL: func.func @vision
// CHECK-SAME: attributes {mm.segments = [{end = "end of function", first = 0 : i64, last = 14 : i64}]}
// CHECK: mm.reshape %arg0, {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.constant
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.constant
// CHECK-NEXT: mm.reshape %{{.*}}, %{{.*}} : tensor<16x3x8x8xf32>, tensor<2xi64> -> tensor<16x192xf32>
// CHECK-NEXT: mm.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<16x192xf32> -> tensor<192x16xf32>
// CHECK-NEXT: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.constant
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.dim %arg0[0] {mm.placement = "host"}
// CHECK-NEXT: mm.concat {{.*}} {axis = 0 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.expand {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.concat {{.*}} {axis = 1 : i64, mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.add {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.layer_norm {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.linear {{.*}} {activation = #mm.activation<quick_gelu>, mm.placement = "device", mm.segment = 0 : i64}
func.func @vision(%pix: tensor<?x3x32x32xf32>) -> tensor<?x17x16xf32> {
  %w = mm.weight "patch" from "v.bin" [0, 12288] : tensor<16x3x8x8xf32>
  %cls = mm.weight "cls" from "v.bin" [12288, 64] : tensor<1x1x16xf32>
  %pos = mm.weight "pos" from "v.bin" [12352, 1088] : tensor<1x17x16xf32>
  %lnw = mm.weight "lnw" from "v.bin" [13440, 64] : tensor<16xf32>
  %fc = mm.weight "fc" from "v.bin" [13504, 1024] : tensor<16x16xf32>
  %s = mm.constant dense<[0, 16, 16]> : tensor<3xi64>
  %c1 = mm.constant dense<1> : tensor<1xi64>
  %c16 = mm.constant dense<16> : tensor<1xi64>
  %s0 = mm.constant dense<[-1, 3, 4, 8, 4, 8]> : tensor<6xi64>
  %i0 = mm.reshape %pix, %s0 : tensor<?x3x32x32xf32>, tensor<6xi64> -> tensor<?x3x4x8x4x8xf32>
  %i1 = mm.transpose %i0 {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<?x3x4x8x4x8xf32> -> tensor<?x4x4x3x8x8xf32>
  %s1 = mm.constant dense<[-1, 16, 192]> : tensor<3xi64>
  %i2 = mm.reshape %i1, %s1 : tensor<?x4x4x3x8x8xf32>, tensor<3xi64> -> tensor<?x16x192xf32>
  %s2 = mm.constant dense<[16, 192]> : tensor<2xi64>
  %wr = mm.reshape %w, %s2 : tensor<16x3x8x8xf32>, tensor<2xi64> -> tensor<16x192xf32>
  %wt = mm.transpose %wr {perm = array<i64: 1, 0>} : tensor<16x192xf32> -> tensor<192x16xf32>
  %pl = mm.linear %i2, %wt : tensor<?x16x192xf32>, tensor<192x16xf32> -> tensor<?x16x16xf32>
  %s3 = mm.constant dense<[-1, 4, 4, 16]> : tensor<4xi64>
  %o0 = mm.reshape %pl, %s3 : tensor<?x16x16xf32>, tensor<4xi64> -> tensor<?x4x4x16xf32>
  %p = mm.transpose %o0 {perm = array<i64: 0, 3, 1, 2>} : tensor<?x4x4x16xf32> -> tensor<?x16x4x4xf32>
  %f = mm.reshape %p, %s : tensor<?x16x4x4xf32>, tensor<3xi64> -> tensor<?x16x16xf32>
  %tp = mm.transpose %f {perm = array<i64: 0, 2, 1>} : tensor<?x16x16xf32> -> tensor<?x16x16xf32>
  %b = mm.dim %pix[0] : tensor<?x3x32x32xf32> -> tensor<1xi64>
  %es = mm.concat %b, %c1, %c16 {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<3xi64>
  %ce = mm.expand %cls, %es : tensor<1x1x16xf32>, tensor<3xi64> -> tensor<?x1x16xf32>
  %e = mm.concat %ce, %tp {axis = 1 : i64} : tensor<?x1x16xf32>, tensor<?x16x16xf32> -> tensor<?x17x16xf32>
  %h = mm.add %e, %pos : tensor<?x17x16xf32>, tensor<1x17x16xf32> -> tensor<?x17x16xf32>
  %ln = mm.layer_norm %h, %lnw : tensor<?x17x16xf32>, tensor<16xf32> -> tensor<?x17x16xf32>
  %l = mm.linear %ln, %fc {activation = #mm.activation<quick_gelu>} : tensor<?x17x16xf32>, tensor<16x16xf32> -> tensor<?x17x16xf32>
  return %l : tensor<?x17x16xf32>
}

// -----

// Casts and concats of weights and constants are folded into weights by the plan
// emitter: they get no placement and no op index (the linear is op 0). A cast of an
// already converted weight is not folded (the emitter converts once): it is an op, on the
// host (it reads only a small weight, of 64 elements, and only the return reads it).
// CHECK-LABEL: func.func @folded_weights
// CHECK-SAME: attributes {mm.segments = [{end = "end of function", first = 0 : i64, last = 1 : i64}]}
// CHECK: mm.cast %{{.*}} : tensor<8x8xf32> -> tensor<8x8xbf16>{{$}}
// CHECK-NEXT: mm.cast %{{.*}} : tensor<8x8xf32> -> tensor<8x8xbf16>{{$}}
// CHECK-NEXT: mm.concat {{.*}} {axis = 1 : i64} :
// CHECK-NEXT: mm.cast %{{.*}} : tensor<f32> -> tensor<bf16>{{$}}
// CHECK-NEXT: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.mul {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.cast {{.*}} {mm.placement = "host"} : tensor<8x8xbf16> -> tensor<8x8xf16>
func.func @folded_weights(%x: tensor<2x8xbf16>) -> (tensor<2x16xbf16>, tensor<8x8xf16>) {
  %wq = mm.weight "q" from "m.bin" [0, 256] : tensor<8x8xf32>
  %wk = mm.weight "k" from "m.bin" [256, 256] : tensor<8x8xf32>
  %scale = mm.constant dense<0.5> : tensor<f32>
  %qb = mm.cast %wq : tensor<8x8xf32> -> tensor<8x8xbf16>
  %kb = mm.cast %wk : tensor<8x8xf32> -> tensor<8x8xbf16>
  %w = mm.concat %qb, %kb {axis = 1 : i64} : tensor<8x8xbf16>, tensor<8x8xbf16> -> tensor<8x16xbf16>
  %sb = mm.cast %scale : tensor<f32> -> tensor<bf16>
  %l = mm.linear %x, %w : tensor<2x8xbf16>, tensor<8x16xbf16> -> tensor<2x16xbf16>
  %m = mm.mul %l, %sb : tensor<2x16xbf16>, tensor<bf16> -> tensor<2x16xbf16>
  %q16 = mm.cast %qb : tensor<8x8xbf16> -> tensor<8x8xf16>
  return %m, %q16 : tensor<2x16xbf16>, tensor<8x8xf16>
}

// -----

// A host op reading a device value (argmax of device logits) needs a download: it ends
// segment 0; the device ops after it form segment 1. The cast of its i64 result is a
// host op reading host data and does not split anything.
// CHECK-LABEL: func.func @host_reads_device
// CHECK-SAME: attributes {mm.segments = [{end = "host op mm.argmax reads a device value", first = 0 : i64, last = 0 : i64}, {end = "end of function", first = 3 : i64, last = 4 : i64}]}
// CHECK: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.argmax {{.*}} {axis = 1 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.cast {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.mul {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
// CHECK-NEXT: mm.relu {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
func.func @host_reads_device(%x: tensor<2x8xf32>) -> (tensor<2x1xi64>, tensor<2x8xf32>) {
  %w = mm.weight "w" from "m.bin" [0, 256] : tensor<8x8xf32>
  %l = mm.linear %x, %w : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
  %i = mm.argmax %l {axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x1xi64>
  %f = mm.cast %i : tensor<2x1xi64> -> tensor<2x1xf32>
  %y = mm.mul %l, %f : tensor<2x8xf32>, tensor<2x1xf32> -> tensor<2x8xf32>
  %z = mm.relu %y : tensor<2x8xf32>
  return %i, %z : tensor<2x1xi64>, tensor<2x8xf32>
}

// -----

// A reshape whose shape is device data (gathered on the device from an i64 table) must
// wait for its download: "data-dependent shape" ends segment 0 before the reshape. Near
// miss: a shape read straight from a weight needs no download (the plan's mapped copy
// is on the host) and does not split.
// CHECK-LABEL: func.func @device_shape
// CHECK-SAME: attributes {mm.segments = [{end = "data-dependent shape", first = 0 : i64, last = 1 : i64}, {end = "end of function", first = 2 : i64, last = 4 : i64}]}
// CHECK: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.gather {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
// CHECK-NEXT: mm.relu {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
// CHECK-NEXT: mm.reshape {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
func.func @device_shape(%x: tensor<4x8xf32>, %k: tensor<i64>) -> (tensor<?x?xf32>, tensor<8x4xf32>) {
  %tab = mm.weight "shapes" from "m.bin" [0, 32] : tensor<2x2xi64>
  %w = mm.weight "w" from "m.bin" [64, 256] : tensor<8x8xf32>
  %fixed = mm.weight "fixed" from "m.bin" [320, 16] : tensor<2xi64>
  %l = mm.linear %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g = mm.gather %tab, %k {axis = 0 : i64} : tensor<2x2xi64>, tensor<i64> -> tensor<2xi64>
  %r = mm.reshape %l, %g : tensor<4x8xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %y = mm.relu %r : tensor<?x?xf32>
  %r2 = mm.reshape %l, %fixed : tensor<4x8xf32>, tensor<2xi64> -> tensor<8x4xf32>
  return %y, %r2 : tensor<?x?xf32>, tensor<8x4xf32>
}

// -----

// Near misses: mm.add on i64 and a cast i64 -> f32 of host inputs stay on the host
// (integer arithmetic has no CUDA kernel; the cast reads no device value); a conv has no
// CUDA launch (-mm-lower-patch-embedding rewrites the patch-embedding form before this
// pass), so it runs on the host, and reading the device result of the relu it ends
// segment 0; mm.dim of a device tensor does not split segment 1.
// CHECK-LABEL: func.func @near_misses
// CHECK-SAME: attributes {mm.segments = [{end = "host op mm.conv reads a device value", first = 2 : i64, last = 2 : i64}, {end = "end of function", first = 4 : i64, last = 6 : i64}]}
// CHECK: mm.add {{.*}} {mm.placement = "host"} : tensor<2xi64>
// CHECK-NEXT: mm.cast {{.*}} {mm.placement = "host"} : tensor<2xi64> -> tensor<2xf32>
// CHECK-NEXT: mm.relu {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.conv {{.*}}mm.placement = "host"
// CHECK-NEXT: mm.add {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
// CHECK-NEXT: mm.dim {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.relu {{.*}} {mm.placement = "device", mm.segment = 1 : i64}
func.func @near_misses(%ids: tensor<2xi64>, %x4: tensor<1x4x2x2xf32>) -> (tensor<2xf32>, tensor<1x4x2x2xf32>, tensor<1xi64>) {
  %w2 = mm.weight "conv" from "m.bin" [768, 576] : tensor<4x4x3x3xf32>
  %c1 = mm.constant dense<1> : tensor<i64>
  %p = mm.add %ids, %c1 : tensor<2xi64>, tensor<i64> -> tensor<2xi64>
  %pf = mm.cast %p : tensor<2xi64> -> tensor<2xf32>
  %c = mm.relu %x4 : tensor<1x4x2x2xf32>
  %d = mm.conv %c, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>} : tensor<1x4x2x2xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x2x2xf32>
  %e = mm.add %d, %c : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32> -> tensor<1x4x2x2xf32>
  %n = mm.dim %e[0] : tensor<1x4x2x2xf32> -> tensor<1xi64>
  %r = mm.relu %e : tensor<1x4x2x2xf32>
  return %pf, %r, %n : tensor<2xf32>, tensor<1x4x2x2xf32>, tensor<1xi64>
}

// -----

// Near misses on element types: the CUDA kernels compute in f32/f16/bf16 only, so an f64
// linear runs on the host although its input is a device argument (reading it ends
// segment 0), and the relu and cast after it read host values; moving f64 elements (a
// transpose) is a device op.
// CHECK-LABEL: func.func @f64_compute
// CHECK-SAME: mm.segments = [{end = "host op mm.linear reads a device value", first = 0 : i64, last = 0 : i64}]
// CHECK: mm.transpose {{.*}}mm.placement = "device", mm.segment = 0 : i64
// CHECK-NEXT: mm.linear {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.relu {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.cast {{.*}} {mm.placement = "host"}
func.func @f64_compute(%x: tensor<2x4xf64>) -> (tensor<4x2xf64>, tensor<2x3xf64>, tensor<2x3xf32>) {
  %w = mm.weight "w" from "m.bin" [0, 96] : tensor<4x3xf64>
  %t = mm.transpose %x {perm = array<i64: 1, 0>} : tensor<2x4xf64> -> tensor<4x2xf64>
  %y = mm.linear %x, %w : tensor<2x4xf64>, tensor<4x3xf64> -> tensor<2x3xf64>
  %r = mm.relu %y : tensor<2x3xf64>
  %f = mm.cast %r : tensor<2x3xf64> -> tensor<2x3xf32>
  return %t, %r, %f : tensor<4x2xf64>, tensor<2x3xf64>, tensor<2x3xf32>
}

// -----

// Only host data: no op runs on the device, no segment.
// CHECK-LABEL: func.func @host_only
// CHECK-SAME: attributes {mm.segments = []}
// CHECK: mm.add {{.*}} {mm.placement = "host"}
func.func @host_only(%a: tensor<3xi64>) -> tensor<3xi64> {
  %r = mm.add %a, %a : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// A mask buffer (an i1 weight) expanded to the batch and read only by mm.where (no CUDA
// kernel): the expand reads only a weight and host values and only a host op reads it,
// so it runs on the host, needing no download. Near miss: a linear (worth a launch)
// reading only a weight (of 320 elements: more than a small one) and a host value stays
// on the device though only a host op (argmax) reads it, and that read ends the segment.
// CHECK-LABEL: func.func @host_readers_only
// CHECK-SAME: attributes {mm.segments = [{end = "host op mm.argmax reads a device value", first = 4 : i64, last = 6 : i64}]}
// CHECK: mm.dim {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.concat {{.*}} {axis = 0 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.expand {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.where {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.add {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.cast {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.linear {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.argmax {{.*}}mm.placement = "host"
func.func @host_readers_only(%x: tensor<?x4x4xf32>, %pos: tensor<?x4xi64>) -> (tensor<?x4x4xf32>, tensor<?x1xi64>) {
  %mask = mm.weight "mask" from "m.bin" [0, 16] : tensor<1x4x4xi1>
  %w = mm.weight "w" from "m.bin" [64, 1280] : tensor<4x80xf32>
  %zero = mm.constant dense<0.0> : tensor<f32>
  %ninf = mm.constant dense<-1.0e9> : tensor<f32>
  %c44 = mm.constant dense<[4, 4]> : tensor<2xi64>
  %b = mm.dim %x[0] : tensor<?x4x4xf32> -> tensor<1xi64>
  %shape = mm.concat %b, %c44 {axis = 0 : i64} : tensor<1xi64>, tensor<2xi64> -> tensor<3xi64>
  %m = mm.expand %mask, %shape : tensor<1x4x4xi1>, tensor<3xi64> -> tensor<?x4x4xi1>
  %additive = mm.where %m, %zero, %ninf : tensor<?x4x4xi1>, tensor<f32>, tensor<f32> -> tensor<?x4x4xf32>
  %y = mm.add %x, %additive : tensor<?x4x4xf32>, tensor<?x4x4xf32> -> tensor<?x4x4xf32>
  %pf = mm.cast %pos : tensor<?x4xi64> -> tensor<?x4xf32>
  %l = mm.linear %pf, %w : tensor<?x4xf32>, tensor<4x80xf32> -> tensor<?x80xf32>
  %i = mm.argmax %l {axis = 1 : i64} : tensor<?x80xf32> -> tensor<?x1xi64>
  return %y, %i : tensor<?x4x4xf32>, tensor<?x1xi64>
}

// -----

// Rotary angles from a small weight (a dynamo export keeps inv_freq [32] as an
// initializer): the expand of the weight and the matmul with the host positions run on
// the host with the mm.cos / mm.sin that read them, so no device value is read by a host
// op and the function is one segment (it was two, with a sync per decode step, at
// llava-1b). A small weight expanded for a device op (a class embedding concatenated with
// the patches) runs on the device. Near miss: an inv_freq of 320 elements pulls the
// matmul to the device, and the cos reading it ends the segment.
// CHECK-LABEL: func.func @small_weight_angles
// CHECK-SAME: attributes {mm.segments = [{end = "end of function", first = 7 : i64, last = 8 : i64}]}
// CHECK: mm.cast %arg1 {mm.placement = "host"}
// CHECK-NEXT: mm.expand {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.matmul {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.cos {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.sin {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.dim {{.*}} {mm.placement = "host"}
// CHECK-NEXT: mm.concat {{.*}} {axis = 0 : i64, mm.placement = "host"}
// CHECK-NEXT: mm.expand {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.concat {{.*}} {axis = 1 : i64, mm.placement = "device", mm.segment = 0 : i64}
func.func @small_weight_angles(%x: tensor<?x4x64xf32>, %pos: tensor<?x1x4xi64>)
    -> (tensor<?x4x32xf32>, tensor<?x4x32xf32>, tensor<?x5x64xf32>) {
  %inv = mm.weight "inv_freq" from "m.bin" [0, 128] : tensor<1x32x1xf32>
  %cls = mm.weight "class_embedding" from "m.bin" [128, 256] : tensor<1x1x64xf32>
  %s3 = mm.constant dense<[1, 32, 1]> : tensor<3xi64>
  %c1 = mm.constant dense<[1, 64]> : tensor<2xi64>
  %pf = mm.cast %pos : tensor<?x1x4xi64> -> tensor<?x1x4xf32>
  %ie = mm.expand %inv, %s3 : tensor<1x32x1xf32>, tensor<3xi64> -> tensor<1x32x1xf32>
  %f = mm.matmul %ie, %pf : tensor<1x32x1xf32>, tensor<?x1x4xf32> -> tensor<?x32x4xf32>
  %cos = mm.cos %f : tensor<?x32x4xf32>
  %sin = mm.sin %f : tensor<?x32x4xf32>
  %b = mm.dim %x[0] : tensor<?x4x64xf32> -> tensor<1xi64>
  %cs = mm.concat %b, %c1 {axis = 0 : i64} : tensor<1xi64>, tensor<2xi64> -> tensor<3xi64>
  %ce = mm.expand %cls, %cs : tensor<1x1x64xf32>, tensor<3xi64> -> tensor<?x1x64xf32>
  %xc = mm.concat %ce, %x {axis = 1 : i64} : tensor<?x1x64xf32>, tensor<?x4x64xf32> -> tensor<?x5x64xf32>
  %ct = mm.transpose %cos {perm = array<i64: 0, 2, 1>} : tensor<?x32x4xf32> -> tensor<?x4x32xf32>
  %st = mm.transpose %sin {perm = array<i64: 0, 2, 1>} : tensor<?x32x4xf32> -> tensor<?x4x32xf32>
  return %ct, %st, %xc : tensor<?x4x32xf32>, tensor<?x4x32xf32>, tensor<?x5x64xf32>
}

// -----

// CHECK-LABEL: func.func @large_weight_angles
// CHECK-SAME: attributes {mm.segments = [{end = "host op mm.cos reads a device value", first = 1 : i64, last = 2 : i64}]}
// CHECK: mm.expand {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.matmul {{.*}} {mm.placement = "device", mm.segment = 0 : i64}
// CHECK-NEXT: mm.cos {{.*}} {mm.placement = "host"}
func.func @large_weight_angles(%pos: tensor<?x1x4xi64>) -> tensor<?x320x4xf32> {
  %inv = mm.weight "inv_freq" from "m.bin" [0, 1280] : tensor<1x320x1xf32>
  %s3 = mm.constant dense<[1, 320, 1]> : tensor<3xi64>
  %pf = mm.cast %pos : tensor<?x1x4xi64> -> tensor<?x1x4xf32>
  %ie = mm.expand %inv, %s3 : tensor<1x320x1xf32>, tensor<3xi64> -> tensor<1x320x1xf32>
  %f = mm.matmul %ie, %pf : tensor<1x320x1xf32>, tensor<?x1x4xf32> -> tensor<?x320x4xf32>
  %cos = mm.cos %f : tensor<?x320x4xf32>
  return %cos : tensor<?x320x4xf32>
}
