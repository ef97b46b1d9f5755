// RUN: stablehlo-translate --interpret -split-input-file %s

// Process 0 sends two values on channel 5 (one variadic send), process 1
// receives them: the specification's send/recv forms between devices.

module @send_recv {
  func.func @send(%a : tensor<3x4xi32>, %b : tensor<f32>) -> tensor<3x4xi32> {
    %token = "stablehlo.create_token"() : () -> !stablehlo.token
    %t = "stablehlo.send"(%a, %b, %token) {
      channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
      is_host_transfer = false
    } : (tensor<3x4xi32>, tensor<f32>, !stablehlo.token) -> !stablehlo.token
    return %a : tensor<3x4xi32>
  }
  func.func @recv(%a : tensor<3x4xi32>, %b : tensor<f32>) -> tensor<3x4xi32> {
    %token = "stablehlo.create_token"() : () -> !stablehlo.token
    %r0, %r1, %t = "stablehlo.recv"(%token) {
      channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
      is_host_transfer = false
    } : (!stablehlo.token) -> (tensor<3x4xi32>, tensor<f32>, !stablehlo.token)
    %s = "stablehlo.convert"(%r1) : (tensor<f32>) -> tensor<i32>
    %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %sum = "stablehlo.add"(%r0, %sb) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
    return %sum : tensor<3x4xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
    %z = stablehlo.constant dense<0> : tensor<3x4xi32>
    %b = stablehlo.constant dense<100.0> : tensor<f32>
    %results:2 = "interpreter.run_parallel"(%a, %b, %z, %b) {
      programs=[[@send], [@recv]]
    } : (tensor<3x4xi32>, tensor<f32>, tensor<3x4xi32>, tensor<f32>) -> (tensor<3x4xi32>, tensor<3x4xi32>)
    check.expect_eq_const %results#0, dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
    check.expect_eq_const %results#1, dense<[[101, 102, 103, 104], [105, 106, 107, 108], [109, 110, 111, 112]]> : tensor<3x4xi32>
    func.return
  }
}
