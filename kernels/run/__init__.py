"""Running a kernel: backends, inputs, the correctness check, timing, memory and the device."""
