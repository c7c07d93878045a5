// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/shardindex.h"

#include <string>

namespace wb {

/// Reads `path` and parses it (parseShardIndex), then checks that every shard exists; a
/// missing shard is an error naming it and the index. Thread-safe.
ShardIndex readShardIndex(const std::string &path);

} // namespace wb
