// RUN: stablehlo-translate --interpret -split-input-file %s

// The StableHLO specification's all_to_all example (split 1, concat 0), the
// same with split 0 / concat 1, the variadic form, and cross_partition.

module @spec_example {
  func.func @all_to_all(%operand : tensor<2x4xi64>) -> tensor<4x2xi64> {
    %result = "stablehlo.all_to_all"(%operand) {
      split_dimension = 1 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2x4xi64>) -> tensor<4x2xi64>
    return %result : tensor<4x2xi64>
  }
  func.func @main() {
    %0 = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %1 = stablehlo.constant dense<[[9, 10, 11, 12], [13, 14, 15, 16]]> : tensor<2x4xi64>
    %results:2 = "interpreter.run_parallel"(%0, %1) {
      programs=[[@all_to_all], [@all_to_all]]
    } : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
    check.expect_eq_const %results#0, dense<[[1, 2], [5, 6], [9, 10], [13, 14]]> : tensor<4x2xi64>
    check.expect_eq_const %results#1, dense<[[3, 4], [7, 8], [11, 12], [15, 16]]> : tensor<4x2xi64>
    func.return
  }
}

// -----

module @split0_concat1_variadic {
  func.func @all_to_all(%a : tensor<2x2xi64>, %b : tensor<4xf32>) -> (tensor<1x4xi64>, tensor<4xf32>) {
    %r:2 = "stablehlo.all_to_all"(%a, %b) {
      split_dimension = 0 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>
    } : (tensor<2x2xi64>, tensor<4xf32>) -> (tensor<2x2xi64>, tensor<4xf32>)
    %c = "stablehlo.all_to_all"(%a) {
      split_dimension = 0 : i64,
      concat_dimension = 1 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2x2xi64>) -> tensor<1x4xi64>
    return %c, %r#1 : tensor<1x4xi64>, tensor<4xf32>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    %a1 = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
    %b0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %b1 = stablehlo.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
    %results:4 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1) {
      programs=[[@all_to_all], [@all_to_all]]
    } : (tensor<2x2xi64>, tensor<4xf32>, tensor<2x2xi64>, tensor<4xf32>) -> (tensor<1x4xi64>, tensor<4xf32>, tensor<1x4xi64>, tensor<4xf32>)
    check.expect_eq_const %results#0, dense<[[1, 2, 5, 6]]> : tensor<1x4xi64>
    // Group [1, 0]: replica 1 is member 0, so replica 0 receives part 1.
    check.expect_eq_const %results#1, dense<[7.0, 8.0, 3.0, 4.0]> : tensor<4xf32>
    check.expect_eq_const %results#2, dense<[[3, 4, 7, 8]]> : tensor<1x4xi64>
    check.expect_eq_const %results#3, dense<[5.0, 6.0, 1.0, 2.0]> : tensor<4xf32>
    func.return
  }
}

// -----

module @cross_partition {
  func.func @all_to_all(%operand : tensor<2xi64>) -> tensor<2xi64> {
    %result = "stablehlo.all_to_all"(%operand) {
      split_dimension = 0 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>
    } : (tensor<2xi64>) -> tensor<2xi64>
    return %result : tensor<2xi64>
  }
  func.func @main() {
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %2 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %3 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
    %results:4 = "interpreter.run_parallel"(%0, %1, %2, %3) {
      programs=[[@all_to_all, @all_to_all], [@all_to_all, @all_to_all]]
    } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %results#0, dense<[1, 3]> : tensor<2xi64>
    check.expect_eq_const %results#1, dense<[2, 4]> : tensor<2xi64>
    check.expect_eq_const %results#2, dense<[5, 7]> : tensor<2xi64>
    check.expect_eq_const %results#3, dense<[6, 8]> : tensor<2xi64>
    func.return
  }
}
