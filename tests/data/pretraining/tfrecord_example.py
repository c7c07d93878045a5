#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An independent TFRecord + tf.train.Example writer and reader (Python standard library only).

Written from the formats alone (tensorflow/core/lib/io/record_writer.cc framing with masked
CRC-32C; tensorflow/core/example/{example,feature}.proto wire format), so that the tests can
check that bert-workbench-cli's records read the way TensorFlow reads them, and that records
made like google-research/bert's create_pretraining_data.py read in the workbench.

  tfrecord_example.py write OUT.tf_record OUT.json   the fixture: pretraining records as
                                                     create_pretraining_data.py writes them, and
                                                     their values as JSON
  tfrecord_example.py read IN.tf_record              one JSON object per record on stdout:
                                                     {"feature": {"int64": [...]} | {"float": [...]}}
"""
import json
import struct
import sys


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire_type, payload):
    return varint((number << 3) | wire_type) + (varint(len(payload)) + payload if wire_type == 2 else payload)


def feature(kind, values):
    if kind == "int64":  # Feature.int64_list = 3, Int64List.value = 1 (packed)
        inner = field(1, 2, b"".join(varint(v) for v in values))
        return field(3, 2, inner)
    inner = field(1, 2, b"".join(struct.pack("<f", v) for v in values))  # Feature.float_list = 2
    return field(2, 2, inner)


def example(features):
    """features: list of (name, kind, values) in the order they are written."""
    entries = b""
    for name, kind, values in features:
        entry = field(1, 2, name.encode("utf-8")) + field(2, 2, feature(kind, values))
        entries += field(1, 2, entry)  # Features.feature (map entry) = 1
    return field(1, 2, entries)  # Example.features = 1


def frame(payload):
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked_crc(length)) + payload + struct.pack("<I", masked_crc(payload))


def read_varint(buf, pos):
    shift = result = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
    return result, pos


def read_fields(buf):
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield number, wire, value


def parse_feature(buf):
    for number, _, value in read_fields(buf):
        if number == 3:
            values = []
            for n2, wire, v in read_fields(value):
                if wire == 2:  # packed
                    p = 0
                    while p < len(v):
                        x, p = read_varint(v, p)
                        values.append(x - (1 << 64) if x >= 1 << 63 else x)
                else:
                    values.append(v - (1 << 64) if v >= 1 << 63 else v)
            return {"int64": values}
        if number == 2:
            values = []
            for n2, wire, v in read_fields(value):
                if wire == 2:
                    values.extend(struct.unpack("<%df" % (len(v) // 4), v))
                else:
                    values.append(struct.unpack("<f", v)[0])
            return {"float": values}
        if number == 1:
            return {"bytes": [v.decode("latin-1") for _, _, v in read_fields(value)]}
    return {}


def parse_example(buf):
    out = {}
    for number, _, features in read_fields(buf):
        if number != 1:
            continue
        for n2, _, entry in read_fields(features):
            name, value = None, b""
            for n3, _, v in read_fields(entry):
                if n3 == 1:
                    name = v.decode("utf-8")
                elif n3 == 2:
                    value = v
            out[name] = parse_feature(value)
    return out


def read_records(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        length_bytes = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        if length_crc != masked_crc(length_bytes):
            raise ValueError("bad length crc at byte %d" % pos)
        payload = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if data_crc != masked_crc(payload):
            raise ValueError("bad data crc at byte %d" % pos)
        yield payload
        pos += 16 + length


def fixture_records():
    """Three records of max_seq_length 16 and max_predictions_per_seq 4, as
    create_pretraining_data.py's write_instance_to_example_files builds them (ids of a
    vocabulary of 30 tokens: 0 [PAD], 1 [UNK], 2 [CLS], 3 [SEP], 4 [MASK], 5.. words)."""
    L, P = 16, 4
    recs = []
    seqs = [
        ([2, 5, 6, 4, 8, 3, 9, 10, 3], [0] * 6 + [1] * 3, [3], [7], 0),
        ([2, 11, 12, 13, 3, 14, 4, 4, 17, 18, 3], [0] * 5 + [1] * 6, [6, 7], [15, 16], 1),
        ([2, 20, 21, 22, 23, 24, 25, 3, 26, 27, 28, 29, 4, 19, 3, 3], [0] * 8 + [1] * 8, [1, 12, 13], [20, 4, 19], 0),
    ]
    for ids, seg, pos, lm_ids, nsp in seqs:
        n = len(ids)
        input_ids = ids + [0] * (L - n)
        input_mask = [1] * n + [0] * (L - n)
        segment_ids = seg + [0] * (L - n)
        weights = [1.0] * len(pos) + [0.0] * (P - len(pos))
        recs.append([
            ("input_ids", "int64", input_ids),
            ("input_mask", "int64", input_mask),
            ("segment_ids", "int64", segment_ids),
            ("masked_lm_positions", "int64", pos + [0] * (P - len(pos))),
            ("masked_lm_ids", "int64", lm_ids + [0] * (P - len(lm_ids))),
            ("masked_lm_weights", "float", weights),
            ("next_sentence_labels", "int64", [nsp]),
        ])
    return recs


def main(argv):
    if len(argv) == 4 and argv[1] == "write":
        recs = fixture_records()
        with open(argv[2], "wb") as f:
            for r in recs:
                f.write(frame(example(r)))
        with open(argv[3], "w") as f:
            json.dump([{name: {kind: values} for name, kind, values in r} for r in recs], f, indent=1)
            f.write("\n")
        return 0
    if len(argv) == 3 and argv[1] == "read":
        for payload in read_records(argv[2]):
            print(json.dumps(parse_example(payload), sort_keys=True))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
