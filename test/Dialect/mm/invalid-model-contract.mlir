// The mm dialect's checks of the model-contract attributes (mm/ModelContract.h).
// RUN: mmc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'mm.role' must be one of vision_encoder, embedding, decoder, got "encoder"}}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {mm.role = "encoder"} {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument 0: 'mm.role' must be one of input_ids, inputs_embeds, attention_mask, position_ids, pixel_values, image_features, logits, kv_past, kv_present, image_grid_thw, got "tokens"}}
func.func @f(%x: tensor<2xi64> {mm.role = "tokens"}) -> tensor<2xi64> {
  return %x : tensor<2xi64>
}

// -----

// expected-error @+1 {{argument 0: role kv_past needs 'mm.kv' (its layer and kind)}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{result 0: 'mm.kv' needs role kv_present}}
func.func @f(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32> {mm.kv = {layer = 0 : i64, kind = "key"}, mm.role = "kv_past"}) {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'mm.kv' must be {layer = <i64 0 to 1000000>, kind = key or value}, got {kind = "query", layer = 0 : i64}}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.kv = {layer = 0 : i64, kind = "query"}, mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'mm.kv' must be {layer = <i64 0 to 1000000>, kind = key or value}, got {kind = "key", layer = -1 : i64}}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.kv = {layer = -1 : i64, kind = "key"}, mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{argument 0: a KV-cache tensor must be rank 4, got 'tensor<2x3x4xf32>'}}
func.func @f(%x: tensor<2x3x4xf32> {mm.kv = {layer = 0 : i64, kind = "key"}, mm.role = "kv_past"}) -> tensor<2x3x4xf32> {
  return %x : tensor<2x3x4xf32>
}

// -----

// The contract's attributes belong on functions, not on other ops.
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'mm.role' is a function attribute}}
  %y = mm.neg %x {mm.role = "decoder"} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// expected-error @+1 {{argument 0: 'mm.kv' must be {layer = <i64 0 to 1000000>, kind = key or value}, got {kind = "key", layer = 1000001 : i64}}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.kv = {layer = 1000001 : i64, kind = "key"}, mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{argument 0: 'mm.kv' must be {layer = <i64 0 to 1000000>, kind = key or value}, got {kind = "key", layer = 0 : i64, seq = 2 : i64}}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.kv = {layer = 0 : i64, kind = "key", seq = 2 : i64}, mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// Input roles on arguments, output roles on results (inputs_embeds is both).
// expected-error @+1 {{argument 0: role logits is a result role}}
func.func @f(%x: tensor<1x2x3xf32> {mm.role = "logits"}) -> tensor<1x2x3xf32> {
  return %x : tensor<1x2x3xf32>
}

// -----

// expected-error @+1 {{argument 0: role kv_present is a result role}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.role = "kv_present"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}

// -----

// expected-error @+1 {{result 0: role pixel_values is an argument role}}
func.func @f(%x: tensor<1x3x2x2xf32>) -> (tensor<1x3x2x2xf32> {mm.role = "pixel_values"}) {
  return %x : tensor<1x3x2x2xf32>
}

// -----

// mm.kv belongs on an argument or a result, not on the function.
// expected-error @+1 {{'mm.kv' is an argument or result attribute}}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> attributes {mm.kv = {layer = 0 : i64, kind = "key"}} {
  return %x : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'mm.kv' is an argument or result attribute}}
  %y = mm.neg %x {mm.kv = {layer = 0 : i64, kind = "key"}} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// A layer wider than 64 bits is not read modulo 2^64.
// expected-error @+1 {{argument 0: 'mm.kv' must be {layer = <i64 0 to 1000000>, kind = key or value}, got {kind = "key", layer = 18446744073709551617 : i128}}}
func.func @f(%x: tensor<1x2x3x4xf32> {mm.kv = {layer = 18446744073709551617 : i128, kind = "key"}, mm.role = "kv_past"}) -> tensor<1x2x3x4xf32> {
  return %x : tensor<1x2x3x4xf32>
}
