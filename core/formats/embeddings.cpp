// SPDX-License-Identifier: Apache-2.0
// The embedding view's files and projection: embeddings/step-N.safetensors (the safetensors
// layout of core/weights/safetensors.h), a 2-D PCA, and TensorBoard's projector files
// (tensorboard/plugins/projector: projector_config.pbtxt, tensors and metadata TSV).
#include "core/formats/embeddings.h"

#include "core/config/jsonfile.h"
#include "core/weights/safetensors.h"
#include "core/util/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr const char *kEmbeddingsFormat = "bert-workbench-embeddings";
constexpr const char *kEmbeddingsHint = "the next evaluation writes it again; delete the file to drop it";

template <typename T>
void appendBytes(std::string &out, const std::vector<T> &v)
{
    const size_t bytes = v.size() * sizeof(T);
    const size_t at = out.size();
    out.resize(at + bytes);
    if (bytes)
        std::memcpy(&out[at], v.data(), bytes); // little-endian hosts (the safetensors byte order)
}

} // namespace

std::string embeddingsDir(const std::string &modelDir)
{
    return (fs::path(modelDir) / "embeddings").string();
}

std::string embeddingsPath(const std::string &modelDir, int64_t step)
{
    std::string digits = std::to_string(step);
    if (digits.size() < 6)
        digits.insert(0, 6 - digits.size(), '0');
    return (fs::path(embeddingsDir(modelDir)) / ("step-" + digits + ".safetensors")).string();
}

std::vector<int64_t> embeddingSteps(const std::string &modelDir)
{
    std::vector<int64_t> steps;
    std::error_code ec;
    const fs::path dir = embeddingsDir(modelDir);
    if (!fs::is_directory(dir, ec))
        return steps;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const std::string prefix = "step-", suffix = ".safetensors";
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0
            || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })
            || digits.size() > 18)
            continue;
        steps.push_back(std::stoll(digits));
    }
    std::sort(steps.begin(), steps.end());
    return steps;
}

void writeEmbeddings(const std::string &path, const EmbeddingSnapshot &s)
{
    const auto n = size_t(s.size());
    if (s.hidden < 0 || s.pooled.size() != n * size_t(s.hidden) || s.label_ids.size() != n || s.predictions.size() != n)
        throw Error(path, "the embeddings of step " + std::to_string(s.step) + " do not fit together: "
                              + std::to_string(n) + " examples, " + std::to_string(s.pooled.size())
                              + " values of width "
                              + std::to_string(s.hidden) + ", " + std::to_string(s.label_ids.size()) + " labels, "
                              + std::to_string(s.predictions.size()) + " predictions");
    std::vector<SafetensorsEntry> entries = {{"pooled", "F32", {int64_t(n), s.hidden}, 0, 0},
                                             {"example_index", "I64", {int64_t(n)}, 0, 0},
                                             {"label_ids", "I64", {int64_t(n)}, 0, 0},
                                             {"predictions", "I64", {int64_t(n)}, 0, 0}};
    std::string bytes = buildSafetensorsHeader(
        entries, {{"format", kEmbeddingsFormat}, {"version", "1"}, {"step", std::to_string(s.step)}});
    appendBytes(bytes, s.pooled);
    appendBytes(bytes, s.example_index);
    appendBytes(bytes, s.label_ids);
    appendBytes(bytes, s.predictions);
    writeFileAtomic(path, bytes);
}

EmbeddingSnapshot readEmbeddings(const std::string &path)
{
    const SafetensorsHeader header = readSafetensorsHeader(path);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "cannot be opened", kEmbeddingsHint);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const auto meta = header.metadata.find("format");
    if (meta == header.metadata.end() || meta->second != kEmbeddingsFormat)
        throw Error(path,
                    "is not an embeddings file of the workbench (no __metadata__ format \""
                        + std::string(kEmbeddingsFormat) + "\")",
                    kEmbeddingsHint);
    auto tensor = [&](const char *name, const char *dtype, size_t rank) -> const SafetensorsEntry & {
        const SafetensorsEntry *e = header.find(name);
        if (!e)
            throw Error(path + ": " + name, "the tensor is missing", kEmbeddingsHint);
        if (e->dtype != dtype || e->shape.size() != rank)
            throw Error(path + ": " + name, "expected " + std::string(dtype) + " of rank " + std::to_string(rank)
                                                + ", got " + e->dtype + " of rank " + std::to_string(e->shape.size()),
                        kEmbeddingsHint);
        return *e;
    };
    EmbeddingSnapshot s;
    const auto step = header.metadata.find("step");
    try {
        s.step = step == header.metadata.end() ? 0 : std::stoll(step->second);
    } catch (...) {
        throw Error(path + ": __metadata__: step", "is '" + step->second + "', not a whole number", kEmbeddingsHint);
    }
    const SafetensorsEntry &pooled = tensor("pooled", "F32", 2);
    const auto n = pooled.shape[0];
    s.hidden = pooled.shape[1];
    auto copy = [&](const SafetensorsEntry &e, auto &out) {
        using T = typename std::decay_t<decltype(out)>::value_type;
        out.resize(size_t(e.end - e.begin) / sizeof(T));
        if (!out.empty())
            std::memcpy(out.data(), bytes.data() + header.data_start + e.begin, out.size() * sizeof(T));
    };
    copy(pooled, s.pooled);
    for (auto [name, out] : {std::pair<const char *, std::vector<int64_t> *>{"example_index", &s.example_index},
                             {"label_ids", &s.label_ids},
                             {"predictions", &s.predictions}}) {
        const SafetensorsEntry &e = tensor(name, "I64", 1);
        if (e.shape[0] != n)
            throw Error(path + ": " + name, "has " + std::to_string(e.shape[0]) + " values for " + std::to_string(n)
                                                + " vectors",
                        kEmbeddingsHint);
        copy(e, *out);
    }
    return s;
}

namespace {

// y = C·x for the symmetric H × H matrix C (row-major).
std::vector<double> multiply(const std::vector<double> &c, const std::vector<double> &x, size_t h)
{
    std::vector<double> y(h, 0.0);
    for (size_t i = 0; i < h; ++i) {
        const double *row = &c[i * h];
        double sum = 0;
        for (size_t j = 0; j < h; ++j)
            sum += row[j] * x[j];
        y[i] = sum;
    }
    return y;
}

double dot(const std::vector<double> &a, const std::vector<double> &b)
{
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}

// Makes `v` a unit vector orthogonal to `others` (Gram-Schmidt, twice for accuracy); a vector
// that vanishes is replaced by the first standard basis vector that does not.
void orthonormalise(std::vector<double> &v, const std::vector<const std::vector<double> *> &others)
{
    for (size_t attempt = 0; attempt <= v.size(); ++attempt) {
        for (int pass = 0; pass < 2; ++pass)
            for (const auto *o : others) {
                const double p = dot(v, *o);
                for (size_t i = 0; i < v.size(); ++i)
                    v[i] -= p * (*o)[i];
            }
        const double norm = std::sqrt(dot(v, v));
        if (norm > 1e-12) {
            for (double &x : v)
                x /= norm;
            return;
        }
        std::fill(v.begin(), v.end(), 0.0);
        if (attempt < v.size())
            v[attempt] = 1.0;
    }
}

// The sign convention: the coordinate of largest magnitude is positive (lowest index on ties).
void fixSign(std::vector<double> &axis)
{
    size_t best = 0;
    for (size_t i = 1; i < axis.size(); ++i)
        if (std::abs(axis[i]) > std::abs(axis[best]) + 1e-12)
            best = i;
    if (!axis.empty() && axis[best] < 0)
        for (double &x : axis)
            x = -x;
}

/// The mean of each column of the N × H row-major `x`.
std::vector<double> columnMeans(const std::vector<float> &x, size_t N, size_t H)
{
    std::vector<double> mean(H, 0.0);
    for (size_t r = 0; r < N; ++r)
        for (size_t c = 0; c < H; ++c)
            mean[c] += double(x[r * H + c]);
    for (double &m : mean)
        m /= double(N);
    return mean;
}

/// The covariance matrix (H × H, row-major) of the rows of `x` about `mean`: the upper triangle,
/// mirrored, divided by N − 1 (0 for a single row).
std::vector<double> covariance(const std::vector<float> &x, const std::vector<double> &mean, size_t N, size_t H)
{
    std::vector<double> cov(H * H, 0.0), centred(H);
    for (size_t r = 0; r < N; ++r) {
        for (size_t c = 0; c < H; ++c)
            centred[c] = double(x[r * H + c]) - mean[c];
        for (size_t i = 0; i < H; ++i) {
            const double ci = centred[i];
            double *row = &cov[i * H];
            for (size_t j = i; j < H; ++j)
                row[j] += ci * centred[j];
        }
    }
    const double scale = N > 1 ? 1.0 / double(N - 1) : 0.0;
    for (size_t i = 0; i < H; ++i)
        for (size_t j = i; j < H; ++j) {
            cov[i * H + j] *= scale;
            cov[j * H + i] = cov[i * H + j];
        }
    return cov;
}

/// Orthogonal iteration on two vectors from a fixed start (a 64-bit LCG, Knuth's MMIX
/// constants): an orthonormal basis of the plane of the symmetric H × H `cov`'s two largest
/// eigenvalues (H ≥ 2).
std::array<std::vector<double>, 2> dominantPlane(const std::vector<double> &cov, size_t H)
{
    std::vector<double> q1(H), q2(H);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < H; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        q1[i] = double(state >> 11) / double(1ull << 53) - 0.5;
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        q2[i] = double(state >> 11) / double(1ull << 53) - 0.5;
    }
    orthonormalise(q1, {});
    orthonormalise(q2, {&q1});
    for (int iteration = 0; iteration < 500; ++iteration) {
        std::vector<double> z1 = multiply(cov, q1, H), z2 = multiply(cov, q2, H);
        orthonormalise(z1, {});
        orthonormalise(z2, {&z1});
        // The change of the subspace: how much of the new basis lies outside the old one.
        double change = 0;
        for (const auto *z : {&z1, &z2}) {
            const double a = dot(*z, q1), b = dot(*z, q2);
            change = std::max(change, 1.0 - (a * a + b * b));
        }
        q1 = std::move(z1);
        q2 = std::move(z2);
        if (change < 1e-15)
            break;
    }
    return {std::move(q1), std::move(q2)};
}

/// Rayleigh-Ritz on the 2 × 2 projection of `cov` onto the plane `q`: sets p.axes to the
/// eigenvectors in that plane and p.variance to their eigenvalues, the larger first.
void rayleighRitz(const std::vector<double> &cov, size_t H, const std::array<std::vector<double>, 2> &q,
                  Projection2D &p)
{
    const std::vector<double> &q1 = q[0], &q2 = q[1];
    const std::vector<double> c1 = multiply(cov, q1, H), c2 = multiply(cov, q2, H);
    const double a = dot(q1, c1), b = dot(q1, c2), d = dot(q2, c2);
    const double mid = 0.5 * (a + d), radius = std::hypot(0.5 * (a - d), b);
    const double l1 = mid + radius, l2 = mid - radius;
    // Eigenvector (cos t, sin t) of [[a, b], [b, d]] for l1: tan 2t = 2b / (a − d).
    const double t = 0.5 * std::atan2(2.0 * b, a - d);
    const double ct = std::cos(t), st = std::sin(t);
    p.axes[0].resize(H);
    p.axes[1].resize(H);
    for (size_t i = 0; i < H; ++i) {
        p.axes[0][i] = ct * q1[i] + st * q2[i];
        p.axes[1][i] = -st * q1[i] + ct * q2[i];
    }
    p.variance = {std::max(0.0, l1), std::max(0.0, l2)};
}

} // namespace

Projection2D pcaProject2D(const std::vector<float> &x, int64_t n, int64_t h)
{
    Projection2D p;
    if (n <= 0 || h <= 0 || x.size() != size_t(n) * size_t(h))
        throw Error("embeddings", "PCA of " + std::to_string(n) + " × " + std::to_string(h) + " points got "
                                      + std::to_string(x.size()) + " values");
    const auto N = size_t(n), H = size_t(h);
    p.mean = columnMeans(x, N, H);
    const std::vector<double> cov = covariance(x, p.mean, N, H);
    if (H >= 2) {
        rayleighRitz(cov, H, dominantPlane(cov, H), p);
    } else {
        p.axes[0] = {1.0};
        p.axes[1] = {0.0};
        p.variance = {cov[0], 0.0};
    }
    for (auto &axis : p.axes)
        fixSign(axis);
    std::vector<double> centred(H);
    p.points.resize(N);
    for (size_t r = 0; r < N; ++r) {
        for (size_t c = 0; c < H; ++c)
            centred[c] = double(x[r * H + c]) - p.mean[c];
        p.points[r] = {dot(centred, p.axes[0]), dot(centred, p.axes[1])};
    }
    return p;
}

namespace {

std::string floatText(float v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string tsvField(std::string s)
{
    for (char &c : s)
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
    return s;
}

} // namespace

ProjectorFiles projectorFiles(const EmbeddingSnapshot &s, const std::vector<std::string> &labelNames,
                              const std::vector<std::string> &texts)
{
    auto name = [&labelNames](int64_t id) {
        return id >= 0 && size_t(id) < labelNames.size() ? tsvField(labelNames[size_t(id)])
                                                         : "label " + std::to_string(id);
    };
    ProjectorFiles f;
    f.config = "embeddings {\n  tensor_name: \"pooled_cls_step_" + std::to_string(s.step) + "\"\n  tensor_shape: "
               + std::to_string(s.size()) + "\n  tensor_shape: " + std::to_string(s.hidden)
               + "\n  tensor_path: \"tensors.tsv\"\n  metadata_path: \"metadata.tsv\"\n}\n";
    f.metadata = "index\tlabel\tpredicted\tcorrect\ttext\n";
    const auto H = size_t(s.hidden);
    for (size_t r = 0; r < size_t(s.size()); ++r) {
        for (size_t c = 0; c < H; ++c)
            f.tensors += (c ? "\t" : "") + floatText(s.pooled[r * H + c]);
        f.tensors += "\n";
        f.metadata += std::to_string(s.example_index[r]) + "\t" + name(s.label_ids[r]) + "\t" + name(s.predictions[r])
                      + "\t" + (s.label_ids[r] == s.predictions[r] ? "yes" : "no") + "\t"
                      + (r < texts.size() ? tsvField(texts[r]) : std::string()) + "\n";
    }
    return f;
}

void writeProjectorExport(const std::string &dir, const EmbeddingSnapshot &s,
                          const std::vector<std::string> &labelNames, const std::vector<std::string> &texts)
{
    const ProjectorFiles f = projectorFiles(s, labelNames, texts);
    writeFileAtomic((fs::path(dir) / "tensors.tsv").string(), f.tensors);
    writeFileAtomic((fs::path(dir) / "metadata.tsv").string(), f.metadata);
    writeFileAtomic((fs::path(dir) / "projector_config.pbtxt").string(), f.config);
}

} // namespace wb
