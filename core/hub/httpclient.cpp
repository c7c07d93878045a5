// SPDX-License-Identifier: Apache-2.0
#include "core/hub/httpclient.h"
#include "core/util/asciitext.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#ifndef WB_VERSION
#define WB_VERSION "0.1.0"
#endif

namespace wb {

namespace {

constexpr size_t kMaxKeptBody = 1 << 20; // error bodies and JSON answers kept in memory

void initCurlOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer
{
    HttpResult *result = nullptr;
    const HttpSink *sink = nullptr;
    const HttpProgress *progress = nullptr;
    int64_t received = 0;
};

size_t onHeader(char *data, size_t size, size_t n, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    parseHeaderLine(std::string(data, size * n), t->result->headers, t->result->status);
    return size * n;
}

size_t onBody(char *data, size_t size, size_t n, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    const size_t bytes = size * n;
    const long s = t->result->status;
    if (s >= 200 && s < 300 && t->sink && *t->sink) {
        if (!(*t->sink)(data, bytes, s)) {
            t->result->sink_failed = true;
            return 0;
        }
        t->received += int64_t(bytes);
    } else if (t->result->body.size() < kMaxKeptBody) {
        t->result->body.append(data, std::min(bytes, kMaxKeptBody - t->result->body.size()));
    }
    return bytes;
}

int onProgress(void *user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    auto *t = static_cast<Transfer *>(user);
    if (t->progress && *t->progress && !(*t->progress)(t->received)) {
        t->result->aborted = true;
        return 1;
    }
    return 0;
}

/// Returns "scheme://host:port" of an absolute URL, or "" when it does not parse.
std::string originOf(const std::string &url)
{
    initCurlOnce();
    CURLU *u = curl_url();
    std::string out;
    if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
        char *scheme = nullptr, *host = nullptr, *port = nullptr;
        if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK
            && curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK
            && curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
            out = lowerAscii(scheme) + "://" + lowerAscii(host) + ":" + port;
        curl_free(scheme);
        curl_free(host);
        curl_free(port);
    }
    curl_url_cleanup(u);
    return out;
}

} // namespace

bool sameOrigin(const std::string &a, const std::string &b)
{
    const std::string oa = originOf(a);
    return !oa.empty() && oa == originOf(b);
}

struct HttpClient::Impl
{
    HubSettings settings;
    CURL *curl = nullptr;
};

HttpClient::HttpClient(const HubSettings &settings) : d(std::make_unique<Impl>())
{
    initCurlOnce();
    d->settings = settings;
    d->curl = curl_easy_init();
}

HttpClient::~HttpClient()
{
    if (d->curl)
        curl_easy_cleanup(d->curl);
}

HttpResult HttpClient::perform(const std::string &method, const std::string &url, bool withToken,
                               const std::vector<std::string> &headers, int64_t rangeStart, const HttpSink &sink,
                               const HttpProgress &progress)
{
    HttpResult result;
    if (!d->curl) {
        result.curl_code = CURLE_FAILED_INIT;
        result.curl_message = "libcurl could not be initialised";
        return result;
    }
    CURL *c = d->curl;
    curl_easy_reset(c);
    Transfer t;
    t.result = &result;
    t.sink = &sink;
    t.progress = &progress;
    const HttpSink keepBody = [&result](const char *data, size_t n, long) {
        if (result.body.size() + n > kMaxKeptBody)
            return false;
        result.body.append(data, n);
        return true;
    };
    if (!sink)
        t.sink = &keepBody;

    curl_slist *list = nullptr;
    for (const auto &h : headers)
        list = curl_slist_append(list, h.c_str());
    if (withToken && !d->settings.token.empty())
        list = curl_slist_append(list, ("Authorization: Bearer " + d->settings.token).c_str());
    list = curl_slist_append(list, "Accept-Encoding: identity");
    const std::string range = std::to_string(rangeStart) + "-"; // libcurl sends "Range: bytes=<range>"

    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "bert-workbench/" WB_VERSION);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, d->settings.connect_timeout_s);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, d->settings.stall_timeout_s);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 256L * 1024L);
    if (method == "HEAD")
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (rangeStart > 0)
        curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());

    const CURLcode rc = curl_easy_perform(c);
    result.curl_code = int(rc);
    if (rc != CURLE_OK)
        result.curl_message = curl_easy_strerror(rc);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status != 0)
        result.status = status;
    char *redirect = nullptr;
    if (result.status >= 300 && result.status < 400 && curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK
        && redirect)
        result.redirect_url = redirect;
    curl_slist_free_all(list);
    return result;
}

} // namespace wb
