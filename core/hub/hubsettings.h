// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace wb {

/// Where and how the Hub client works. fromEnvironment() reads the variables huggingface_hub
/// reads (huggingface_hub constants.py; docs/pretrained-models.md); tests and front-ends may
/// set fields directly. A plain value; thread-safe to copy.
struct HubSettings
{
    /// The Hub's base URL without a trailing '/': $HF_ENDPOINT, default https://huggingface.co.
    std::string endpoint = "https://huggingface.co";
    /// The cache root: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else
    /// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
    std::string cache_dir;
    /// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (where `token` is).
    std::string hf_home;
    /// $HF_HUB_OFFLINE (or $TRANSFORMERS_OFFLINE) is 1/ON/YES/TRUE: the cache only, no request.
    bool offline = false;
    /// The access token: $HF_TOKEN (or $HUGGING_FACE_HUB_TOKEN), else the first line of
    /// $HF_TOKEN_PATH, else of $HF_HOME/token; empty for none. Sent only to `endpoint`'s host
    /// as `Authorization: Bearer <token>`, never to a redirect target on another host.
    std::string token;
    /// Where the token came from ("HF_TOKEN", a file path) for messages; empty without one.
    std::string token_source;
    /// Ask the Hub for the revision's current commit even when the cache has a complete
    /// snapshot for it (default false: a cached model is used with no request at all).
    bool refresh = false;
    /// Check every cached blob's bytes against its name (sha256 or git blob sha1) before it is
    /// used, not only its size; a damaged one is downloaded again (an error offline). The
    /// CLI's `models download --verify` and `--refresh` set it (default false: the size only).
    bool verify = false;
    /// Attempts per request for transient failures (connection errors, cut transfers, 429,
    /// 5xx), including the first; at least 1.
    int max_attempts = 5;
    /// Back-off before retry n (1-based): retry_delay_s × 2^(n-1) seconds, at most 30 s.
    double retry_delay_s = 1.0;
    /// Seconds to wait for a TCP/TLS connection.
    long connect_timeout_s = 20;
    /// A transfer slower than 1 byte/s for this many seconds is cut (then retried/resumed).
    long stall_timeout_s = 60;

    /// Returns the settings from the process environment (see the fields). Thread-safe
    /// as long as nobody changes the environment meanwhile; never throws.
    static HubSettings fromEnvironment();
};

/// Returns true for the truthy spellings huggingface_hub accepts: 1, ON, YES, TRUE (any case).
/// Leading and trailing whitespace is ignored. Pure.
bool isTruthyEnvValue(const std::string &value);

} // namespace wb
