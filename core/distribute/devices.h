// SPDX-License-Identifier: Apache-2.0
#pragma once

// Torch-free header; the definition asks libtorch.

namespace wb {

/// Returns the number of CUDA devices the linked libtorch can use (0 on CPU builds).
/// Thread-safe; initialises CUDA on first use (slow: not on the GUI thread).
int cudaDeviceCount();

} // namespace wb
