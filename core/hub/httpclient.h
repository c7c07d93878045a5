// SPDX-License-Identifier: Apache-2.0
#pragma once

// One HTTP request with libcurl, redirects NOT followed (the caller decides, so that the
// token never travels to another host). Internal to core/hub.

#include "core/hub/hubparse.h"
#include "core/hub/hubsettings.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

/// The outcome of one request.
struct HttpResult
{
    int curl_code = 0;          ///< CURLcode; 0 when a response came back completely
    std::string curl_message;   ///< libcurl's explanation when curl_code != 0
    long status = 0;            ///< HTTP status of the final response (0 when none arrived)
    HttpHeaders headers;        ///< its headers, lower-cased names
    std::string redirect_url;   ///< absolute target of a 3xx (empty otherwise)
    std::string body;           ///< body of a non-2xx response or of a request without sink (≤ 1 MiB kept)
    bool sink_failed = false;   ///< the sink refused bytes (e.g. the disk is full)
    bool aborted = false;       ///< the progress function asked to stop
};

/// Receives body bytes of a 2xx response (and its status: 200, or 206 for a Range answer);
/// returns false to fail the transfer.
using HttpSink = std::function<bool(const char *data, size_t size, long status)>;
/// Called with the body bytes received so far in this request; returns false to abort.
using HttpProgress = std::function<bool(int64_t received)>;

/// A libcurl easy handle with the Hub client's options (timeouts, user agent, no redirects,
/// proxies from the environment as libcurl reads them). Thread rules: one thread per client.
class HttpClient
{
public:
    explicit HttpClient(const HubSettings &settings);
    ~HttpClient();
    HttpClient(const HttpClient &) = delete;
    HttpClient &operator=(const HttpClient &) = delete;

    /// Performs `method` ("GET" or "HEAD") on `url` with `headers` ("Name: value"); sends
    /// `Authorization: Bearer <token>` only when `withToken` and the settings have a token.
    /// `rangeStart` > 0 sends `Range: bytes=<rangeStart>-`. Never throws for network or HTTP
    /// failures (they are in the result).
    HttpResult perform(const std::string &method, const std::string &url, bool withToken,
                       const std::vector<std::string> &headers = {}, int64_t rangeStart = 0,
                       const HttpSink &sink = {}, const HttpProgress &progress = {});

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// Returns true when both absolute URLs have the same scheme, host and port.
bool sameOrigin(const std::string &a, const std::string &b);

} // namespace wb
