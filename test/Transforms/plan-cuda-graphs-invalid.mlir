// -mm-plan-cuda-graphs errors: what the CUDA runtime could not run.
// RUN: mmc-opt %s -mm-plan-cuda-graphs -split-input-file -verify-diagnostics

// An op of another dialect has no placement (the runtime runs mm ops only).
func.func private @helper(tensor<2xf32>) -> tensor<2xf32>

func.func @call(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{op 'func.call' cannot be placed: the CUDA runtime runs mm ops only}}
  %r = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Arguments must be ranked tensors: no residency for an unranked tensor or an index.
// expected-error @+1 {{argument #1 of type 'tensor<*xf32>' cannot be placed (ranked tensors only)}}
func.func @unranked(%x: tensor<2xf32>, %y: tensor<*xf32>) -> tensor<*xf32> {
  return %y : tensor<*xf32>
}

// -----

// expected-error @+1 {{argument #0 of type 'index' cannot be placed (ranked tensors only)}}
func.func @index(%n: index) -> index {
  return %n : index
}
