// SPDX-License-Identifier: Apache-2.0
#include "core/data/pretrainingdataset.h"

#include "core/config/optionwords.h"
#include "core/data/classifierdataset.h"
#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"


#include <algorithm>
#include <cstring>
#include <random>

namespace wb {

namespace {

/// How to write records this reader takes, in the wording in force (the command's name follows
/// it), as the hint of each of readInt64Feature's errors; built only when a record is bad.
std::string writeHint()
{
    return "write the records with " + commandName("prepare_pretraining")
           + " or google-research/bert create_pretraining_data.py, with the max_seq_length and "
             "max_predictions_per_seq of input_meta_data.json";
}

FeatureHints writeHints() { return {writeHint(), writeHint(), writeHint()}; }

SequenceHints sequenceHints()
{
    return {"the records were made with another vocab.txt than the model's bert_config.json", writeHint(),
            "check type_vocab_size in bert_config.json"};
}

void readInts(const tensorflow::Example &ex, const std::string &name, int64_t length, const char *lengthName,
              std::vector<int64_t> &out)
{
    readInt64Feature(ex, name, length, lengthName, writeHints, out);
}

} // namespace

// The tf.train.Example wire format written directly (protobuf's encoding,
// https://protobuf.dev/programming-guides/encoding/): Example{features=1} → Features{map
// feature=1} → one entry per feature {key=1, value=2} → Feature{float_list=2 | int64_list=3} →
// a packed `value=1`. The bytes equal protobuf's deterministic serialization (entries sorted by
// key; tested against it in core.pretrainingdata), without building the message.
namespace {

size_t varintSize(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

char *putVarint(char *out, uint64_t v)
{
    while (v >= 0x80) {
        *out++ = static_cast<char>(v | 0x80);
        v >>= 7;
    }
    *out++ = static_cast<char>(v);
    return out;
}

struct WireFeature
{
    std::string_view name;
    bool isInt = true;             // int64_list, else float_list
    const int64_t *ints = nullptr;
    const float *floats = nullptr;
    size_t count = 0;
    size_t payload = 0, list = 0, feature = 0, entry = 0; // sizes, inner to outer
};

void measure(WireFeature &f)
{
    if (f.isInt) {
        for (size_t i = 0; i < f.count; ++i)
            f.payload += varintSize(uint64_t(f.ints[i]));
    } else {
        f.payload = 4 * f.count;
    }
    f.list = f.count ? 1 + varintSize(f.payload) + f.payload : 0;
    f.feature = 1 + varintSize(f.list) + f.list;
    const size_t key = 1 + varintSize(f.name.size()) + f.name.size();
    f.entry = key + 1 + varintSize(f.feature) + f.feature;
}

char *write(char *out, const WireFeature &f)
{
    *out++ = 0x0A; // Features.feature (map entry)
    out = putVarint(out, f.entry);
    *out++ = 0x0A; // entry key
    out = putVarint(out, f.name.size());
    std::memcpy(out, f.name.data(), f.name.size());
    out += f.name.size();
    *out++ = 0x12; // entry value: Feature
    out = putVarint(out, f.feature);
    *out++ = f.isInt ? 0x1A : 0x12; // Feature.int64_list = 3 | float_list = 2
    out = putVarint(out, f.list);
    if (!f.count)
        return out;
    *out++ = 0x0A; // packed value = 1
    out = putVarint(out, f.payload);
    if (f.isInt) {
        for (size_t i = 0; i < f.count; ++i)
            out = putVarint(out, uint64_t(f.ints[i]));
    } else {
        for (size_t i = 0; i < f.count; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &f.floats[i], 4);
            for (int k = 0; k < 4; ++k)
                *out++ = static_cast<char>(bits >> (8 * k)); // fixed32, little-endian
        }
    }
    return out;
}

} // namespace

std::string encodeMaskedLmRecord(const MaskedLmRecord &r)
{
    const int64_t nsp = r.next_sentence_label;
    auto ints = [](std::string_view name, const std::vector<int64_t> &v) {
        WireFeature f;
        f.name = name;
        f.ints = v.data();
        f.count = v.size();
        return f;
    };
    WireFeature features[7];
    size_t n = 0;
    features[n++] = ints("input_ids", r.input_ids); // in key order
    features[n++] = ints("input_mask", r.input_mask);
    if (r.has_masks) {
        features[n++] = ints("masked_lm_ids", r.masked_lm_ids);
        features[n++] = ints("masked_lm_positions", r.masked_lm_positions);
        WireFeature w;
        w.name = "masked_lm_weights";
        w.isInt = false;
        w.floats = r.masked_lm_weights.data();
        w.count = r.masked_lm_weights.size();
        features[n++] = w;
    }
    WireFeature label;
    label.name = "next_sentence_labels";
    label.ints = &nsp;
    label.count = 1;
    features[n++] = label;
    features[n++] = ints("segment_ids", r.segment_ids);
    size_t body = 0;
    for (size_t i = 0; i < n; ++i) {
        measure(features[i]);
        body += 1 + varintSize(features[i].entry) + features[i].entry;
    }
    std::string out(1 + varintSize(body) + body, '\0');
    char *p = out.data();
    *p++ = 0x0A; // Example.features
    p = putVarint(p, body);
    for (size_t i = 0; i < n; ++i)
        p = write(p, features[i]);
    return out;
}

void decodeMaskedLmRecord(std::string_view payload, const MaskedLmSpec &spec, MaskedLmRecord &r)
{
    const tensorflow::Example ex = parseExample(payload);
    const int64_t L = spec.max_seq_length, P = spec.max_predictions_per_seq;
    readInts(ex, "input_ids", L, "max_seq_length", r.input_ids);
    readInts(ex, "input_mask", L, "max_seq_length", r.input_mask);
    readInts(ex, "segment_ids", L, "max_seq_length", r.segment_ids);
    checkSequenceIds(r.input_ids, r.input_mask, r.segment_ids, L, spec.vocab_size, spec.type_vocab_size,
                     sequenceHints);
    const char *maskFeatures[] = {"masked_lm_positions", "masked_lm_ids", "masked_lm_weights"};
    int present = 0;
    for (const char *name : maskFeatures)
        present += findFeature(ex, name) ? 1 : 0;
    r.has_masks = present > 0;
    if (present == 0 && spec.masks_required)
        throw Error({}, "the record has no masked_lm_positions, masked_lm_ids or masked_lm_weights (a dynamic-masking "
                        "record; the record has " + describeFeatures(ex) + ")",
                    "this run uses the records' own masks (static masking): prepare the data with "
                        + optionSetting("masking", "static")
                        + ", or use a data set whose input_meta_data.json says \"masking\": \"dynamic\"");
    if (present > 0) {
        readInts(ex, "masked_lm_positions", P, "max_predictions_per_seq", r.masked_lm_positions);
        readInts(ex, "masked_lm_ids", P, "max_predictions_per_seq", r.masked_lm_ids);
        const std::string what = "float_list of max_predictions_per_seq = " + std::to_string(P);
        const tensorflow::Feature &w = requireFeature(ex, "masked_lm_weights", what, writeHint);
        if (w.kind_case() != tensorflow::Feature::kFloatList)
            throw Error({}, std::string("feature 'masked_lm_weights' is a ") + featureKindName(w) + ", expected a " + what,
                        writeHint());
        if (w.float_list().value_size() != P)
            throw Error({}, "feature 'masked_lm_weights' has " + std::to_string(w.float_list().value_size())
                                + " values but max_predictions_per_seq is " + std::to_string(P),
                        writeHint());
        r.masked_lm_weights.assign(w.float_list().value().begin(), w.float_list().value().end());
        for (int64_t k = 0; k < P; ++k) {
            const int64_t pos = r.masked_lm_positions[size_t(k)];
            if (pos < 0 || pos >= L)
                throw Error({}, "masked_lm_positions[" + std::to_string(k) + "] = " + std::to_string(pos)
                                    + " is outside [0, max_seq_length = " + std::to_string(L) + ")",
                            writeHint());
            const int64_t id = r.masked_lm_ids[size_t(k)];
            if (id < 0 || (spec.vocab_size > 0 && id >= spec.vocab_size))
                throw Error({}, "masked_lm_ids[" + std::to_string(k) + "] = " + std::to_string(id)
                                    + " is outside [0, vocab_size = " + std::to_string(spec.vocab_size) + ")",
                            "the records were made with another vocab.txt than the model's bert_config.json");
            const float wk = r.masked_lm_weights[size_t(k)];
            if (!(wk >= 0.0f) || wk > 1e6f)
                throw Error({}, "masked_lm_weights[" + std::to_string(k) + "] = " + std::to_string(wk)
                                    + " is not a weight (1.0 for a prediction, 0.0 for padding)",
                            writeHint());
        }
    } else {
        r.masked_lm_positions.assign(size_t(P), 0);
        r.masked_lm_ids.assign(size_t(P), 0);
        r.masked_lm_weights.assign(size_t(P), 0.0f);
    }
    std::vector<int64_t> nsp;
    readInts(ex, "next_sentence_labels", 1, "1", nsp);
    if (nsp[0] != 0 && nsp[0] != 1)
        throw Error({}, "next_sentence_labels = " + std::to_string(nsp[0]) + " is not 0 (B follows A) or 1 (B is random)",
                    writeHint());
    r.next_sentence_label = nsp[0];
}

namespace {

/// The length of `name` in `ex` when it is an int64_list; -1 when absent; throws for another kind.
int64_t intListLength(const tensorflow::Example &ex, const std::string &name)
{
    const tensorflow::Feature *f = findFeature(ex, name);
    if (!f)
        return -1;
    if (f->kind_case() != tensorflow::Feature::kInt64List)
        throw Error({}, "feature '" + name + "' is a " + featureKindName(*f) + ", expected an int64_list", writeHint());
    return f->int64_list().value_size();
}

bool anyEqualsOne(const tensorflow::Example &ex, const std::string &name)
{
    const tensorflow::Feature *f = findFeature(ex, name);
    if (!f || f->kind_case() != tensorflow::Feature::kInt64List)
        return false;
    const auto &v = f->int64_list().value();
    return std::find(v.begin(), v.end(), int64_t(1)) != v.end();
}

} // namespace

MaskedLmRecordShapes readMaskedLmRecordShapes(const std::string &pattern)
{
    MaskedLmRecordShapes s;
    s.files = expandFilePattern(pattern);
    std::string payload;
    for (const std::string &file : s.files) {
        TFRecordReader reader(file);
        while (reader.read(payload)) {
            try {
                const tensorflow::Example ex = parseExample(payload);
                const int64_t L = intListLength(ex, "input_ids");
                if (L < 0)
                    throw Error({}, "feature 'input_ids' is missing; the record has " + describeFeatures(ex), writeHint());
                const int64_t P = intListLength(ex, "masked_lm_positions");
                if (s.records == 0) {
                    s.max_seq_length = L;
                    s.has_masks = P >= 0;
                    s.max_predictions_per_seq = std::max<int64_t>(P, 0);
                    s.first_record = reader.location();
                } else if (L != s.max_seq_length) {
                    throw Error({}, "input_ids has " + std::to_string(L) + " tokens, but " + s.first_record + " has "
                                        + std::to_string(s.max_seq_length)
                                        + ": every record of a set must have one max_seq_length",
                                "train on records written with one " + optionName("max_seq_length")
                                    + " (pass the sets of other lengths in runs of their own)");
                } else if ((P >= 0) != s.has_masks || (P >= 0 && P != s.max_predictions_per_seq)) {
                    const auto describe = [](int64_t n) {
                        return n < 0 ? std::string("no masked_lm_positions") : std::to_string(n) + " masked_lm_positions";
                    };
                    throw Error({}, "the record has " + describe(P) + ", but " + s.first_record + " has "
                                        + describe(s.has_masks ? s.max_predictions_per_seq : -1)
                                        + ": every record of a set must have one max_predictions_per_seq",
                                "train on records written with one " + optionName("max_predictions_per_seq")
                                    + " and one kind of masking");
                }
                s.next_sentence = s.next_sentence || anyEqualsOne(ex, "segment_ids")
                                  || anyEqualsOne(ex, "next_sentence_labels");
            } catch (const Error &e) {
                throw Error(reader.location(), e.what(), e.hint());
            }
            ++s.records;
        }
    }
    if (s.records == 0)
        throw Error(pattern, "the files hold no record",
                    "write the records with create_pretraining_data.py or " + commandName("prepare_pretraining")
                        + " (an empty corpus gives no sequences)");
    return s;
}

void appendToBatch(PretrainingBatch &b, const MaskedLmRecord &r)
{
    if (b.size == 0) {
        b.seq_length = int64_t(r.input_ids.size());
        b.predictions = int64_t(r.masked_lm_positions.size());
        b.input_ids.clear();
        b.input_mask.clear();
        b.segment_ids.clear();
        b.masked_lm_positions.clear();
        b.masked_lm_ids.clear();
        b.masked_lm_weights.clear();
        b.next_sentence_labels.clear();
    }
    b.input_ids.insert(b.input_ids.end(), r.input_ids.begin(), r.input_ids.end());
    b.input_mask.insert(b.input_mask.end(), r.input_mask.begin(), r.input_mask.end());
    b.segment_ids.insert(b.segment_ids.end(), r.segment_ids.begin(), r.segment_ids.end());
    b.masked_lm_positions.insert(b.masked_lm_positions.end(), r.masked_lm_positions.begin(), r.masked_lm_positions.end());
    b.masked_lm_ids.insert(b.masked_lm_ids.end(), r.masked_lm_ids.begin(), r.masked_lm_ids.end());
    b.masked_lm_weights.insert(b.masked_lm_weights.end(), r.masked_lm_weights.begin(), r.masked_lm_weights.end());
    b.next_sentence_labels.push_back(r.next_sentence_label);
    ++b.size;
}

struct PretrainingDataset::Private
{
    PretrainingDataOptions o;
    std::vector<std::string> files;
    size_t fileIndex = 0;
    std::unique_ptr<TFRecordReader> reader;
    int64_t global = 0; // records seen in this pass (for sharding)
    std::mt19937_64 rng;
    std::vector<MaskedLmRecord> buffer;
    std::string payload;

    /// The next record of this shard in file order; false at the end of the files.
    bool readOrdered(MaskedLmRecord &r)
    {
        while (true) {
            if (!reader) {
                if (fileIndex >= files.size())
                    return false;
                reader = std::make_unique<TFRecordReader>(files[fileIndex]);
            }
            if (!reader->read(payload)) {
                reader.reset();
                ++fileIndex;
                continue;
            }
            const int64_t k = global++;
            if (k % o.num_shards != o.shard_index)
                continue;
            try {
                decodeMaskedLmRecord(payload, o.spec, r);
            } catch (const Error &e) {
                throw Error(reader->location(), e.what(), e.hint());
            }
            return true;
        }
    }

    void restart()
    {
        reader.reset();
        fileIndex = 0;
        global = 0;
    }
};

PretrainingDataset::PretrainingDataset(PretrainingDataOptions options) : d(std::make_unique<Private>())
{
    d->o = std::move(options);
    if (d->o.batch_size < 1)
        throw Error("batch_size", "the batch size must be at least 1");
    if (d->o.num_shards < 1 || d->o.shard_index < 0 || d->o.shard_index >= d->o.num_shards)
        throw Error("shard_index", "shard " + std::to_string(d->o.shard_index) + " of " + std::to_string(d->o.num_shards)
                                       + " does not exist");
    d->files = expandFilePattern(d->o.pattern);
    d->rng.seed(d->o.seed);
    d->o.shuffle_buffer = std::max<int64_t>(1, d->o.shuffle_buffer);
}

PretrainingDataset::~PretrainingDataset() = default;

int64_t PretrainingDataset::batchSize() const
{
    return d->o.batch_size;
}

const std::vector<std::string> &PretrainingDataset::files() const { return d->files; }

bool PretrainingDataset::nextRecord(MaskedLmRecord &r)
{
    if (!d->o.training)
        return d->readOrdered(r);
    // Training: a shuffle buffer over a stream that repeats (shuffle before repeat, as
    // tf.data's shuffle(buffer).repeat() order of run_pretraining.py's input_fn).
    while (int64_t(d->buffer.size()) < d->o.shuffle_buffer) {
        MaskedLmRecord next;
        if (d->readOrdered(next)) {
            d->buffer.push_back(std::move(next));
            continue;
        }
        if (d->global == 0)
            throw Error(d->o.pattern, "the pretraining data holds no record for this reader",
                        "prepare the corpus again; it needs at least one sequence (and one batch) of records");
        if (!d->buffer.empty())
            break; // end of a pass: drain what is buffered, then start the next pass
        d->restart();
    }
    std::uniform_int_distribution<size_t> pick(0, d->buffer.size() - 1);
    const size_t k = pick(d->rng);
    std::swap(d->buffer[k], d->buffer.back());
    r = std::move(d->buffer.back());
    d->buffer.pop_back();
    if (d->buffer.empty() && !d->reader && d->fileIndex >= d->files.size())
        d->restart();
    return true;
}

bool PretrainingDataset::next(PretrainingBatch &batch)
{
    batch.size = 0;
    MaskedLmRecord r;
    while (batch.size < d->o.batch_size && nextRecord(r))
        appendToBatch(batch, r);
    return batch.size > 0;
}

void PretrainingDataset::reset()
{
    d->restart();
    d->buffer.clear();
}

StaticMaskingBatches::StaticMaskingBatches(PretrainingDataOptions options)
    : m_data([&] {
          options.spec.masks_required = true;
          return options;
      }())
{
}

DynamicMaskingBatches::DynamicMaskingBatches(PretrainingDataOptions options, Vocab vocab, MlmMaskingOptions masking)
    : m_data([&] {
          options.spec.masks_required = false;
          return options;
      }()),
      m_vocab(std::move(vocab)), m_masking(masking), m_seed(options.seed), m_rng(options.seed)
{
    m_masking.max_predictions_per_seq = options.spec.max_predictions_per_seq;
    (void)m_vocab.id("[MASK]"); // the error naming the vocab file, before the first batch
}

bool DynamicMaskingBatches::next(PretrainingBatch &batch)
{
    batch.size = 0;
    MaskedLmRecord r;
    while (batch.size < m_data.batchSize() && m_data.nextRecord(r)) {
        MlmMasked m = applyMlmMasking(r.input_ids, r.input_mask, m_vocab, m_masking, m_rng);
        r.input_ids = std::move(m.input_ids);
        r.masked_lm_positions = std::move(m.masked_lm_positions);
        r.masked_lm_ids = std::move(m.masked_lm_ids);
        r.masked_lm_weights = std::move(m.masked_lm_weights);
        r.has_masks = true;
        appendToBatch(batch, r);
    }
    return batch.size > 0;
}

void DynamicMaskingBatches::reset()
{
    m_data.reset();
    m_rng.seed(m_seed);
}

} // namespace wb
