// SPDX-License-Identifier: Apache-2.0
#include "core/distribute/devices.h"

#include <torch/cuda.h>

namespace wb {

int cudaDeviceCount()
{
    return torch::cuda::is_available() ? int(torch::cuda::device_count()) : 0;
}

} // namespace wb
