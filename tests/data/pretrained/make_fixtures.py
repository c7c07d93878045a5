#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the PyTorch weights fixtures of tests/core/tst_torchcheckpoint.cpp with the real torch.save.

Run once with Debian's python3-torch (apt-get install python3-torch; /usr/bin/python3), from any
folder: /usr/bin/python3 tests/data/pretrained/make_fixtures.py. The outputs are committed, so
neither CI nor the tests need torch. Every fixture holds the same tiny BertForSequenceClassification
state dict (vocab 40, hidden 8, 2 layers, 2 heads, intermediate 16, 2 labels) in the Hugging Face
names, plus what real Hub files have: the position_ids buffer (int64) and a masked-LM decoder tied
to the word embeddings (one storage, two tensors). The pooler weight is saved as a transposed view
(strides [1, 8]) and the classifier bias as a slice at storage offset 5 of a 10-element storage.
Every value is k/64 for an integer k in [-128, 127], so float16 and bfloat16 hold it exactly and all
variants equal tiny-bert-safetensors/model.safetensors (the reference) bit for bit.
"""
import collections
import json
import os
import pickle
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB, HIDDEN, LAYERS, HEADS, INTER, MAXPOS, TYPES, LABELS = 40, 8, 2, 2, 16, 16, 2, 2

CONFIG = {
    "architectures": ["BertForSequenceClassification"],
    "attention_probs_dropout_prob": 0.1,
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "hidden_size": HIDDEN,
    "initializer_range": 0.02,
    "intermediate_size": INTER,
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": MAXPOS,
    "model_type": "bert",
    "num_attention_heads": HEADS,
    "num_hidden_layers": LAYERS,
    "pad_token_id": 0,
    "type_vocab_size": TYPES,
    "vocab_size": VOCAB,
}

gen = torch.Generator().manual_seed(22)


def values(*shape):
    return torch.randint(-128, 128, shape, generator=gen).to(torch.float32) / 64


def state_dict():
    sd = collections.OrderedDict()
    sd["bert.embeddings.position_ids"] = torch.arange(MAXPOS, dtype=torch.int64).unsqueeze(0)
    sd["bert.embeddings.word_embeddings.weight"] = values(VOCAB, HIDDEN)
    sd["bert.embeddings.position_embeddings.weight"] = values(MAXPOS, HIDDEN)
    sd["bert.embeddings.token_type_embeddings.weight"] = values(TYPES, HIDDEN)
    sd["bert.embeddings.LayerNorm.weight"] = values(HIDDEN)
    sd["bert.embeddings.LayerNorm.bias"] = values(HIDDEN)
    for l in range(LAYERS):
        b = "bert.encoder.layer.%d." % l
        for qkv in ("query", "key", "value"):
            sd[b + "attention.self.%s.weight" % qkv] = values(HIDDEN, HIDDEN)
            sd[b + "attention.self.%s.bias" % qkv] = values(HIDDEN)
        sd[b + "attention.output.dense.weight"] = values(HIDDEN, HIDDEN)
        sd[b + "attention.output.dense.bias"] = values(HIDDEN)
        sd[b + "attention.output.LayerNorm.weight"] = values(HIDDEN)
        sd[b + "attention.output.LayerNorm.bias"] = values(HIDDEN)
        sd[b + "intermediate.dense.weight"] = values(INTER, HIDDEN)
        sd[b + "intermediate.dense.bias"] = values(INTER)
        sd[b + "output.dense.weight"] = values(HIDDEN, INTER)
        sd[b + "output.dense.bias"] = values(HIDDEN)
        sd[b + "output.LayerNorm.weight"] = values(HIDDEN)
        sd[b + "output.LayerNorm.bias"] = values(HIDDEN)
    sd["bert.pooler.dense.weight"] = values(HIDDEN, HIDDEN).t().contiguous().t()  # strides [1, 8]
    sd["bert.pooler.dense.bias"] = values(HIDDEN)
    sd["classifier.weight"] = values(LABELS, HIDDEN)
    sd["classifier.bias"] = values(10)[5:5 + LABELS]  # storage offset 5
    sd["cls.predictions.bias"] = values(VOCAB)
    sd["cls.predictions.decoder.weight"] = sd["bert.embeddings.word_embeddings.weight"]  # tied
    # What nn.Module.state_dict() attaches, and torch.save keeps (a BUILD of the OrderedDict).
    sd._metadata = collections.OrderedDict([("", {"version": 1}), ("bert", {"version": 1})])
    return sd


def cast(sd, dtype):
    out = collections.OrderedDict()
    for k, v in sd.items():
        out[k] = v.to(dtype) if v.is_floating_point() else v
    out["cls.predictions.decoder.weight"] = out["bert.embeddings.word_embeddings.weight"]
    return out


ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64"}


def write_safetensors(path, tensors):
    """The safetensors layout (huggingface/safetensors README): u64 header length, JSON, data."""
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for k, v in tensors.items():
        raw = v.contiguous().view(torch.uint8).numpy().tobytes() if v.numel() else b""
        header[k] = {"dtype": ST_DTYPES[v.dtype], "shape": list(v.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def folder(name, config=True):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    if config:
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(CONFIG, f, indent=2)
            f.write("\n")
    return d


def shards(sd, ext):
    """Two shards as transformers' save_pretrained splits them, and the index's weight_map."""
    names = list(sd.keys())
    half = len(names) // 2
    parts = [names[:half], names[half:]]
    files = ["%s-%05d-of-%05d.%s" % ("pytorch_model" if ext == "bin" else "model", i + 1, 2, ext) for i in range(2)]
    weight_map = {n: files[i] for i, part in enumerate(parts) for n in part}
    total = sum(v.numel() * v.element_size() for v in sd.values())
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    return [(files[i], {n: sd[n] for n in part}) for i, part in enumerate(parts)], index


class Hostile:
    """Unpickling it would run a shell command; the reader must refuse the global instead."""

    def __init__(self, call, arg):
        self.call, self.arg = call, arg

    def __reduce__(self):
        return (self.call, (self.arg,))


def main():
    sd = state_dict()
    write_safetensors(os.path.join(folder("tiny-bert-safetensors"), "model.safetensors"), sd)
    torch.save(sd, os.path.join(folder("tiny-bert-zip"), "pytorch_model.bin"))
    torch.save(sd, os.path.join(folder("tiny-bert-legacy"), "pytorch_model.bin"), _use_new_zipfile_serialization=False)
    torch.save(sd, os.path.join(folder("tiny-bert-protocol4"), "pytorch_model.bin"), pickle_protocol=4)
    torch.save(cast(sd, torch.float16), os.path.join(folder("tiny-bert-fp16"), "pytorch_model.bin"))
    torch.save(cast(sd, torch.bfloat16), os.path.join(folder("tiny-bert-bf16-legacy"), "pytorch_model.bin"),
               _use_new_zipfile_serialization=False)

    d = folder("tiny-bert-sharded-bin")
    parts, index = shards(sd, "bin")
    for f, part in parts:
        torch.save(part, os.path.join(d, f))
    with open(os.path.join(d, "pytorch_model.bin.index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")
    d = folder("tiny-bert-sharded-safetensors")
    parts, index = shards(sd, "safetensors")
    for f, part in parts:
        write_safetensors(os.path.join(d, f), part)
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")

    d = folder("hostile", config=False)
    marker = "/tmp/wb-hostile-pickle-ran"
    torch.save({"bert.embeddings.word_embeddings.weight": Hostile(os.system, "touch " + marker)},
               os.path.join(d, "system.bin"))
    torch.save(collections.OrderedDict([("classifier.bias", Hostile(eval, "open('%s', 'w')" % marker))]),
               os.path.join(d, "eval-legacy.bin"), _use_new_zipfile_serialization=False)
    with open(os.path.join(d, "exec.pkl"), "wb") as f:  # a bare pickle (protocol 4: STACK_GLOBAL)
        pickle.dump(Hostile(exec, "open('%s', 'w')" % marker), f, protocol=4)

    # Small seeds for fuzz/fuzz_torchpickle.cpp (besides copies of the fixtures above).
    seeds = os.path.join(HERE, "..", "..", "..", "fuzz", "corpus", "torchpickle")
    os.makedirs(seeds, exist_ok=True)
    tiny = collections.OrderedDict([("w", torch.tensor([1.0, -2.0])), ("v", torch.arange(6).view(2, 3).t())])
    torch.save(tiny, os.path.join(seeds, "tiny-zip.bin"))
    torch.save(tiny, os.path.join(seeds, "tiny-legacy.bin"), _use_new_zipfile_serialization=False)
    torch.save(tiny, os.path.join(seeds, "tiny-protocol5-legacy.bin"), _use_new_zipfile_serialization=False,
               pickle_protocol=5)

    # Sanity: torch's own weights-only loader reads every fixture back to the same values.
    for name in ("tiny-bert-zip", "tiny-bert-legacy", "tiny-bert-protocol4", "tiny-bert-fp16",
                 "tiny-bert-bf16-legacy"):
        # torch 1.13's weights_only reader has no FRAME (protocol 4): that one is read in full.
        back = torch.load(os.path.join(HERE, name, "pytorch_model.bin"), weights_only=name != "tiny-bert-protocol4")
        assert list(back.keys()) == list(sd.keys()), name
        for k, v in sd.items():
            assert torch.equal(back[k].to(v.dtype), v), (name, k)


if __name__ == "__main__":
    main()
