// The runtime entry of custom-call: JIT code passes the CustomCallInvocation
// bound when the module was compiled (owned by the CpuExecutable) and one
// pointer per array leaf of the operands and of the result. A handler's
// error is recorded in the run's ExecutionControl and the entry returns
// false; the emitted code then returns and the executable reports it.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_CUSTOM_CALL_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_CUSTOM_CALL_H_

extern "C" {
bool __xla_cpu_runtime_CustomCall(const void* control, const void* invocation, const void* const* operands,
                                  void* const* results);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_CUSTOM_CALL_H_
