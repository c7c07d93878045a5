// SPDX-License-Identifier: Apache-2.0
#include "core/config/schedule.h"
#include "core/engine/adamw.h"
#include "core/engine/adamwupdate.h"

#include <QtTest>

#include <cmath>

using namespace wb;

class tst_AdamW : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void learningRate_data();
    void learningRate();
    void oneStepMatchesHandComputation();
    void clipsByGlobalNorm();
    void globalNormIsTheSumOfSquares();
    void secondStepUsesBiasCorrection();
    void stepDoesNotDependOnThreads();
    void saveAndLoadState();
};

void tst_AdamW::learningRate_data()
{
    QTest::addColumn<qint64>("step");
    QTest::addColumn<double>("lr");
    // total 100, warmup 10, init 1e-3, end 0 (official/nlp/optimization.py: the polynomial decay runs on the global step)
    QTest::newRow("first update uses 0") << qint64(0) << 0.0;
    QTest::newRow("warmup half") << qint64(5) << 5e-4;
    QTest::newRow("warmup end") << qint64(9) << 9e-4;
    QTest::newRow("drop at W") << qint64(10) << 9e-4;
    QTest::newRow("decay") << qint64(55) << 4.5e-4;
    QTest::newRow("last") << qint64(99) << 1e-5;
    QTest::newRow("end") << qint64(100) << 0.0;
    QTest::newRow("past end") << qint64(150) << 0.0;
}

void tst_AdamW::learningRate()
{
    QFETCH(qint64, step);
    QFETCH(double, lr);
    Schedule s;
    s.total_steps = 100;
    s.warmup_steps = 10;
    QVERIFY(std::abs(s.learningRate(step, 1e-3, 0.0) - lr) < 1e-12);
}

void tst_AdamW::oneStepMatchesHandComputation()
{
    auto w = torch::tensor({1.0f, -2.0f}).requires_grad_();
    auto b = torch::tensor({0.5f}).requires_grad_();
    auto ln = torch::tensor({1.0f}).requires_grad_();
    AdamW opt({{"dense.weight", w}, {"dense.bias", b}, {"x.LayerNorm.weight", ln}});
    w.mutable_grad() = torch::tensor({0.1f, 0.2f});
    b.mutable_grad() = torch::tensor({0.3f});
    ln.mutable_grad() = torch::tensor({-0.4f});
    // ‖g‖ = sqrt(.01+.04+.09+.16) = 0.5477 < 1: no clipping.
    const double lr = 0.1;
    const double norm = opt.step(lr);
    QVERIFY(std::abs(norm - std::sqrt(0.30)) < 1e-6);
    const double alpha = lr * std::sqrt(1 - 0.999) / (1 - 0.9);
    auto expect = [&](double p, double g, bool decay) {
        if (decay)
            p -= lr * 0.01 * p;
        const double m = 0.1 * g, v = 0.001 * g * g;
        return p - alpha * m / (std::sqrt(v) + 1e-6);
    };
    QVERIFY(std::abs(w[0].item<double>() - expect(1.0, 0.1, true)) < 1e-6);
    QVERIFY(std::abs(w[1].item<double>() - expect(-2.0, 0.2, true)) < 1e-6);
    QVERIFY(std::abs(b[0].item<double>() - expect(0.5, 0.3, false)) < 1e-6);   // bias: no decay
    QVERIFY(std::abs(ln[0].item<double>() - expect(1.0, -0.4, false)) < 1e-6); // LayerNorm: no decay
    // decay visibly matters: 1 - 0.1*0.01*1 - ~0.1 = 0.899
    QVERIFY(std::abs(w[0].item<double>() - 0.899) < 1e-4);
    QCOMPARE(opt.iterations(), int64_t(1));
    QVERIFY(std::abs(opt.firstMoment(0)[1].item<double>() - 0.02) < 1e-7);
    QVERIFY(std::abs(opt.secondMoment(0)[1].item<double>() - 0.001 * 0.04) < 1e-9);
}

void tst_AdamW::clipsByGlobalNorm()
{
    auto w = torch::tensor({0.0f, 0.0f}).requires_grad_();
    AdamW opt({{"w.bias", w}});
    w.mutable_grad() = torch::tensor({30.0f, 40.0f});
    QVERIFY(std::abs(opt.step(0.0) - 50.0) < 1e-4);
    // clipped to [0.6, 0.8] before the moments
    QVERIFY(std::abs(opt.firstMoment(0)[0].item<double>() - 0.06) < 1e-7);
    QVERIFY(std::abs(opt.firstMoment(0)[1].item<double>() - 0.08) < 1e-7);
    QCOMPARE(w[0].item<float>(), 0.0f); // lr 0: no change
}

/// The global norm's vectorised sweep (sumOfSquares) equals Σ g² in double within float
/// rounding, for lengths with and without a tail after the 16 lanes and across 4096-element
/// blocks; the step returns √ of the sum over all tensors, and a non-contiguous gradient takes
/// ATen's norm.
void tst_AdamW::globalNormIsTheSumOfSquares()
{
    torch::manual_seed(3);
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(15), int64_t(16), int64_t(4097), int64_t(100003)}) {
        const torch::Tensor g = torch::randn({n}) * 3;
        const double exact = n > 0 ? g.to(torch::kDouble).pow(2).sum().item<double>() : 0.0;
        const double got = sumOfSquares(g.data_ptr<float>(), n);
        QVERIFY2(std::abs(got - exact) <= 1e-6 * exact, qPrintable(QStringLiteral("n %1: %2 vs %3").arg(n).arg(got).arg(exact)));
    }
    auto a = torch::zeros({300, 7}).requires_grad_(), b = torch::zeros({5}).requires_grad_();
    AdamW opt({{"a.weight", a}, {"b.bias", b}});
    a.mutable_grad() = torch::randn({7, 300}).t(); // not contiguous: ATen's norm
    b.mutable_grad() = torch::randn({5});
    const double exact = std::sqrt(a.grad().to(torch::kDouble).pow(2).sum().item<double>() +
                                   b.grad().to(torch::kDouble).pow(2).sum().item<double>());
    QVERIFY(std::abs(opt.step(0.0) - exact) <= 1e-6 * exact);
}

void tst_AdamW::secondStepUsesBiasCorrection()
{
    auto w = torch::tensor({1.0f}).requires_grad_();
    AdamW opt({{"k.bias", w}});
    w.mutable_grad() = torch::tensor({0.5f});
    opt.step(0.01);
    w.mutable_grad() = torch::tensor({-0.25f});
    opt.step(0.02);
    double p = 1.0, m = 0, v = 0;
    const double g[2] = {0.5, -0.25}, lr[2] = {0.01, 0.02};
    for (int t = 1; t <= 2; ++t) {
        m = 0.9 * m + 0.1 * g[t - 1];
        v = 0.999 * v + 0.001 * g[t - 1] * g[t - 1];
        p -= lr[t - 1] * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t)) * m / (std::sqrt(v) + 1e-6);
    }
    QVERIFY(std::abs(w.item<double>() - p) < 1e-6);
}

/// The update is spread over the intra-op threads in 4096-element blocks: 1, 2 and 3 threads give
/// the same parameters, moments and norm bit for bit, and the norm is the one a sequential sweep
/// of each whole tensor gives (sumOfSquares per tensor, added in order), exactly.
void tst_AdamW::stepDoesNotDependOnThreads()
{
    const int before = torch::get_num_threads();
    torch::manual_seed(17);
    const std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {
        {"emb.weight", {3001, 37}}, {"ln.bias", {1}}, {"dense.weight", {100003}}, {"empty.weight", {0}},
        {"k.bias", {4096}}, {"strided.weight", {64, 9}}};
    std::vector<torch::Tensor> start, grads;
    for (const auto &[name, shape] : shapes) {
        start.push_back(torch::randn(shape));
        grads.push_back(torch::randn(shape) * 0.5);
    }
    struct Result
    {
        std::vector<torch::Tensor> params, m, v;
        std::vector<double> norms;
    };
    const auto run = [&](int threads) {
        torch::set_num_threads(threads);
        std::vector<std::pair<std::string, torch::Tensor>> named;
        for (size_t k = 0; k < shapes.size(); ++k)
            named.emplace_back(shapes[k].first, start[k].clone().requires_grad_());
        AdamW opt(named);
        Result r;
        for (int step = 0; step < 2; ++step) {
            for (size_t k = 0; k < shapes.size(); ++k) {
                torch::Tensor g = grads[k] * double(step + 1);
                if (shapes[k].first == "strided.weight")
                    g = g.t().contiguous().t(); // not contiguous: ATen's ops
                named[k].second.mutable_grad() = g;
            }
            r.norms.push_back(opt.step(1e-3));
        }
        for (size_t k = 0; k < shapes.size(); ++k) {
            r.params.push_back(named[k].second.detach().clone());
            r.m.push_back(opt.firstMoment(k).clone());
            r.v.push_back(opt.secondMoment(k).clone());
        }
        return r;
    };
    const Result one = run(1), two = run(2), three = run(3);
    torch::set_num_threads(before);
    for (const Result *other : {&two, &three}) {
        QCOMPARE(other->norms, one.norms);
        for (size_t k = 0; k < shapes.size(); ++k) {
            QVERIFY2(torch::equal(other->params[k], one.params[k]), shapes[k].first.c_str());
            QVERIFY2(torch::equal(other->m[k], one.m[k]), shapes[k].first.c_str());
            QVERIFY2(torch::equal(other->v[k], one.v[k]), shapes[k].first.c_str());
        }
    }
    // The first step's norm: per tensor one sequential sweep, tensors added in order.
    double sumSq = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
        if (shapes[k].first == "strided.weight") {
            const double n = (grads[k] * 1.0).t().contiguous().t().norm().item<double>(); // as the step saw it
            sumSq += n * n;
        } else {
            sumSq += sumOfSquares(grads[k].data_ptr<float>(), grads[k].numel());
        }
    }
    QCOMPARE(one.norms[0], std::sqrt(sumSq));
    // And the parameters moved (the clip at 1.0 applied: the norm is far above it).
    QVERIFY(one.norms[0] > 10.0);
    QVERIFY(!torch::equal(one.params[0], start[0]));
}

void tst_AdamW::saveAndLoadState()
{
    auto w = torch::tensor({1.0f, 2.0f}).requires_grad_();
    AdamW opt({{"a.weight", w}});
    w.mutable_grad() = torch::tensor({0.1f, -0.1f});
    opt.step(0.1);
    torch::serialize::OutputArchive out;
    opt.save(out);
    std::ostringstream bytes;
    out.save_to(bytes);
    auto w2 = torch::tensor({1.0f, 2.0f}).requires_grad_();
    AdamW opt2({{"a.weight", w2}});
    torch::serialize::InputArchive in;
    std::istringstream is(bytes.str());
    in.load_from(is);
    opt2.load(in);
    QCOMPARE(opt2.iterations(), int64_t(1));
    QVERIFY(torch::equal(opt2.firstMoment(0), opt.firstMoment(0)));
    QVERIFY(torch::equal(opt2.secondMoment(0), opt.secondMoment(0)));
    auto w3 = torch::zeros({3}).requires_grad_();
    AdamW opt3({{"a.weight", w3}});
    std::istringstream is2(bytes.str());
    torch::serialize::InputArchive in2;
    in2.load_from(is2);
    QVERIFY_THROWS_EXCEPTION(std::exception, opt3.load(in2)); // shape mismatch is refused
}

QTEST_APPLESS_MAIN(tst_AdamW)
#include "tst_adamw.moc"
