#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch (Python) reference for bench_train: the same BERT classifier, TF2 AdamW and
batch, timed the same way (median step after warm-up). Run with Debian's python3-torch:
/usr/bin/python3 bench/train_reference.py --config tiny --threads 1 --steps 20 [--dtype bf16]

--dtype bf16 runs the forward pass under torch.autocast("cpu", dtype=torch.bfloat16)
(float32 weights and optimizer state, loss in float32), as bench_train's bf16.

--task pretrain times masked-LM pretraining as bench_pretrain does (issue 24): the same
encoder on all positions, the sequence output gathered at --predictions masked positions
(run_pretraining.py's gather_indexes), transform (dense + gelu + LayerNorm), the decoder
tied to the word embeddings plus an output bias, loss sum(w * CE) / (sum(w) + 1e-5), the
same AdamW."""
import argparse
import contextlib
import json
import math
import statistics
import time

import torch
from torch import nn

CONFIGS = {
    "tiny": dict(L=2, H=128, A=2, I=512),
    "mini": dict(L=4, H=256, A=4, I=1024),
    "base": dict(L=12, H=768, A=12, I=3072),
}


class Layer(nn.Module):
    def __init__(self, h, a, i, p):
        super().__init__()
        self.a = a
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.att_out, self.att_ln = nn.Linear(h, h), nn.LayerNorm(h, eps=1e-12)
        self.inter, self.out, self.out_ln = nn.Linear(h, i), nn.Linear(i, h), nn.LayerNorm(h, eps=1e-12)
        self.drop = nn.Dropout(p)

    def forward(self, x, bias):
        b, s, h = x.shape
        d = h // self.a
        q = self.query(x).view(b, s, self.a, d).transpose(1, 2)
        k = self.key(x).view(b, s, self.a, d).transpose(1, 2)
        v = self.value(x).view(b, s, self.a, d).transpose(1, 2)
        probs = self.drop(torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, -1))
        ctx = (probs @ v).transpose(1, 2).reshape(b, s, h)
        x = self.att_ln(self.drop(self.att_out(ctx)) + x)
        return self.out_ln(self.drop(self.out(nn.functional.gelu(self.inter(x)))) + x)


class Bert(nn.Module):
    def __init__(self, L, H, A, I, vocab=30522, pos=512, types=2, labels=2, p=0.1):
        super().__init__()
        self.word, self.pos, self.tok_type = nn.Embedding(vocab, H), nn.Embedding(pos, H), nn.Embedding(types, H)
        self.ln, self.drop = nn.LayerNorm(H, eps=1e-12), nn.Dropout(p)
        self.layers = nn.ModuleList(Layer(H, A, I, p) for _ in range(L))
        self.pooler, self.classifier = nn.Linear(H, H), nn.Linear(H, labels)
        for name, t in self.named_parameters():
            if "ln" in name or name.endswith("bias"):
                continue
            nn.init.trunc_normal_(t, std=0.02, a=-0.04, b=0.04)

    def encode(self, ids, mask, seg):
        s = ids.shape[1]
        x = self.drop(self.ln(self.word(ids) + self.tok_type(seg) + self.pos.weight[:s]))
        bias = ((1.0 - mask.float()) * -10000.0)[:, None, None, :]
        for layer in self.layers:
            x = layer(x, bias)
        return x

    def forward(self, ids, mask, seg):
        x = self.encode(ids, mask, seg)
        return self.classifier(self.drop(torch.tanh(self.pooler(x[:, 0]))))


class BertPretraining(Bert):
    """Bert + the masked-LM heads (BertForMaskedLM): logits only at the masked positions."""

    def __init__(self, L, H, A, I, vocab=30522, **kw):
        super().__init__(L, H, A, I, vocab=vocab, **kw)
        del self.classifier
        self.transform, self.transform_ln = nn.Linear(H, H), nn.LayerNorm(H, eps=1e-12)
        self.output_bias = nn.Parameter(torch.zeros(vocab))
        nn.init.trunc_normal_(self.transform.weight, std=0.02, a=-0.04, b=0.04)

    def forward(self, ids, mask, seg, positions):
        x = self.encode(ids, mask, seg)
        b, p = positions.shape
        g = torch.gather(x, 1, positions[:, :, None].expand(b, p, x.shape[-1])).reshape(b * p, -1)
        h = self.transform_ln(nn.functional.gelu(self.transform(g)))
        return torch.addmm(self.output_bias, h, self.word.weight.t()).view(b, p, -1).float()


class AdamW:
    """TF2 AdamWeightDecay: decoupled decay lr*0.01*w before bias-corrected Adam, clip 1.0."""

    def __init__(self, named):
        self.params = [(n, p, "ln" not in n and "LayerNorm" not in n and "bias" not in n) for n, p in named]
        self.m = [torch.zeros_like(p) for _, p, _ in self.params]
        self.v = [torch.zeros_like(p) for _, p, _ in self.params]
        self.t = 0

    @torch.no_grad()
    def step(self, lr):
        grads = [p.grad for _, p, _ in self.params]
        # Parameters without a gradient (the pooler in masked-LM pretraining) are skipped, as in TF.
        norm = torch.sqrt(sum((g * g).sum() for g in grads if g is not None)).item()
        scale = 1.0 / max(norm, 1.0)
        self.t += 1
        alpha = lr * math.sqrt(1 - 0.999 ** self.t) / (1 - 0.9 ** self.t)
        for (_, p, decay), g, m, v in zip(self.params, grads, self.m, self.v):
            if g is None:
                continue
            if scale != 1.0:
                g.mul_(scale)
            if decay:
                p.mul_(1 - lr * 0.01)
            m.mul_(0.9).add_(g, alpha=0.1)
            v.mul_(0.999).addcmul_(g, g, value=0.001)
            p.addcdiv_(m, v.sqrt().add_(1e-6), value=-alpha)
            p.grad = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="tiny", choices=CONFIGS)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--task", default="classify", choices=["classify", "pretrain"])
    ap.add_argument("--predictions", type=int, default=20)
    a = ap.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    pretrain = a.task == "pretrain"
    model = (BertPretraining if pretrain else Bert)(**CONFIGS[a.config])
    model.train()
    opt = AdamW(list(model.named_parameters()))
    ids = torch.randint(0, 30522, (a.batch, a.seq))
    mask = torch.ones(a.batch, a.seq, dtype=torch.long)
    mask[:, a.seq * 3 // 4:] = 0
    seg = torch.zeros(a.batch, a.seq, dtype=torch.long)
    labels = torch.randint(0, 2, (a.batch,))
    # Pretraining: P distinct positions among the real tokens of each row, their ids, weight 1.
    positions = torch.stack([torch.randperm(a.seq * 3 // 4)[:a.predictions] for _ in range(a.batch)])
    lm_ids = torch.randint(0, 30522, (a.batch, a.predictions))
    lm_w = torch.ones(a.batch, a.predictions)
    times, cpu = [], []
    for step in range(a.steps + 3):
        t0, c0 = time.perf_counter(), time.thread_time()
        autocast = (torch.autocast("cpu", dtype=torch.bfloat16) if a.dtype == "bf16"
                    else contextlib.nullcontext())
        with autocast:
            logits = model(ids, mask, seg, positions) if pretrain else model(ids, mask, seg)
        if pretrain:
            ce = -torch.log_softmax(logits, -1).gather(-1, lm_ids[:, :, None]).squeeze(-1)
            loss = (lm_w * ce).sum() / (lm_w.sum() + 1e-5)
        else:
            loss = nn.functional.cross_entropy(logits.float(), labels)
        loss.backward()
        opt.step(1e-4)
        loss.item()
        if step >= 3:
            times.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
    med = statistics.median(times)
    print(json.dumps({"impl": "python", "task": a.task, "config": a.config, "dtype": a.dtype,
                      "threads": torch.get_num_threads(),
                      "batch": a.batch, "seq": a.seq, "median_step_s": med,
                      "examples_per_second": a.batch / med,
                      # this thread's CPU time: what a step costs on a core of its own (loaded machine)
                      "median_step_cpu_s": statistics.median(cpu)}))


if __name__ == "__main__":
    main()
