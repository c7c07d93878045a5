// SPDX-License-Identifier: Apache-2.0
// preparePretrainingData(): read → tokenize in batches → split by piece hash → sequences
// (packed or A/B pairs) → masks (static) → train buckets on disk / eval file → shuffle buckets
// into shards → commit. The streaming equivalent of google-research/bert create_pretraining_data.py.
#include "core/corpus/pretrainingdata.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/data/mlmmasking.h"
#include "core/data/parallelfor.h"
#include "core/data/pretrainingrecord.h"
#include "core/corpus/pretrainingtext.h"
#include "core/data/recordbuckets.h"
#include "core/data/tfrecordwriter.h"
#include "core/events/stoptoken.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <regex>
#include <unistd.h>

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBatchBytes = size_t(4) << 20;             // text tokenized per parallel batch
constexpr int64_t kPieceSequences = 64;                     // a document piece: at most 64 × L tokens
constexpr int64_t kReservoirTokens = int64_t(8) << 20;      // next_sentence: tokens kept for random B
constexpr uint64_t kBucketBytes = uint64_t(32) << 20;       // wanted size of one shuffle bucket
constexpr uint64_t kShuffleBytes = uint64_t(64) << 20;      // at most this much shuffled in memory at once
constexpr uint64_t kMaxBuckets = 512;                       // open bucket files (file descriptors)
constexpr double kRecordBytesPerTextByte = 1.6;             // record bytes per text byte at L=128, an upper bound (measured: dynamic 1.0)
constexpr size_t kDocumentHashSlots = size_t(1) << 21;      // duplicate check: 16 MB, exact for 1.5 M documents

using Ids = std::vector<int32_t>;

uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

std::string fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// Hashes of the documents seen, with the split each was first seen in: an open-addressing
// table of fixed size (so memory does not grow); when it is 3/4 full, later documents are not
// checked any more (`saturated`).
class DocumentHashes
{
public:
    DocumentHashes() : m_slots(kDocumentHashSlots, 0) {}
    enum class Seen { New, SameSplit, OtherSplit, Unchecked };
    Seen add(uint64_t hash, int split)
    {
        const uint64_t key = (hash | 2) & ~uint64_t(1); // never 0; bit 0 holds the split
        size_t i = size_t(hash >> 11) & (m_slots.size() - 1);
        while (m_slots[i] != 0) {
            if ((m_slots[i] | 1) == (key | 1))
                return int(m_slots[i] & 1) == split ? Seen::SameSplit : Seen::OtherSplit;
            i = (i + 1) & (m_slots.size() - 1);
        }
        if (m_used >= m_slots.size() / 4 * 3) {
            saturated = true;
            return Seen::Unchecked;
        }
        m_slots[i] = key | uint64_t(split);
        ++m_used;
        return Seen::New;
    }
    bool saturated = false;

private:
    std::vector<uint64_t> m_slots;
    size_t m_used = 0;
};

struct Piece
{
    std::vector<Ids> sentences;
    bool startsDocument = true;
    int64_t tokens = 0;
};

struct Sequence
{
    Ids tokens;                 // [CLS] … [SEP] (… [SEP]), unpadded
    std::vector<int64_t> segments;
    bool randomNext = false;
};

class Builder
{
public:
    Builder(const PretrainingDataOptions &o, const FullTokenizer &tok, PretrainingDataReport &rep)
        : m_o(o), m_vocab(tok.vocab()), m_rep(rep), m_rng(o.random_seed), m_bucketRng(splitmix64(o.random_seed))
    {
        m_cls = m_vocab.id("[CLS]");
        m_sep = m_vocab.id("[SEP]");
        m_unk = m_vocab.find("[UNK]");
        m_mopts.masked_lm_prob = o.masked_lm_prob;
        m_mopts.max_predictions_per_seq = o.max_predictions_per_seq;
        m_mopts.whole_word_masking = o.do_whole_word_mask;
        m_static = o.masking == "static";
        m_maxSentence = o.next_sentence ? o.max_seq_length - 3 : o.max_seq_length - 2;
        m_reservoirCap = std::max<int64_t>(16, kReservoirTokens / (kPieceSequences * o.max_seq_length));
        for (int s = 0; s < 2; ++s) {
            const int64_t dupes = s == 0 ? rep.dupe_factor : 1;
            m_split[s].packers.resize(size_t(dupes));
            for (auto &p : m_split[s].packers)
                p.target = newTarget();
        }
    }

    std::function<void(const std::string &)> trainSink, evalSink;
    std::mt19937_64 &bucketRng() { return m_bucketRng; }

    void feed(const PretrainingTextDocument &doc, const std::vector<Ids> &ids)
    {
        if (!doc.continues)
            finishDocument(true);
        for (const Ids &s : ids) {
            if (s.empty())
                continue;
            for (const int32_t id : s)
                m_docHash = (m_docHash ^ uint64_t(uint32_t(id))) * 1099511628211ull; // FNV-1a over the ids
            m_docHash = (m_docHash ^ 0xFFFFFFFFull) * 1099511628211ull;        // sentence end
            ++m_rep.sentences;
            m_rep.tokens += int64_t(s.size());
            if (m_unk >= 0)
                m_rep.unk_tokens += std::count(s.begin(), s.end(), m_unk);
            m_docTokens += int64_t(s.size());
            if (int64_t(s.size()) > m_maxSentence)
                ++m_rep.sentences_split;
            for (size_t off = 0; off < s.size(); off += size_t(m_maxSentence)) {
                const size_t end = std::min(s.size(), off + size_t(m_maxSentence));
                m_piece.sentences.emplace_back(s.begin() + long(off), s.begin() + long(end));
                m_piece.tokens += int64_t(end - off);
            }
            if (m_piece.tokens >= kPieceSequences * m_o.max_seq_length) {
                flushPiece();
                m_piece.startsDocument = false;
                if (!m_docCut) {
                    ++m_rep.long_documents_cut;
                    m_docCut = true;
                }
            }
        }
    }

    void finish()
    {
        finishDocument(false);
        for (int s = 0; s < 2; ++s)
            for (auto &p : m_split[s].packers)
                emitPacked(s, p);
    }

private:
    struct Packer
    {
        Ids cur;
        int64_t target = 0;
        bool needSep = false;
    };
    struct SplitState
    {
        std::vector<Packer> packers;
        std::vector<Piece> reservoir;
        int64_t seen = 0;
    };

    void finishDocument(bool starting)
    {
        flushPiece();
        if (m_docTokens > m_o.max_seq_length - 2)
            ++m_rep.documents_longer_than_a_sequence;
        if (m_docTokens > 0) {
            switch (m_hashes.add(m_docHash, m_docSplit)) {
            case DocumentHashes::Seen::SameSplit: ++m_rep.duplicate_documents; break;
            case DocumentHashes::Seen::OtherSplit: ++m_rep.train_eval_overlap_documents; break;
            default: break;
            }
            m_rep.duplicate_check_saturated = m_hashes.saturated;
        }
        m_docHash = 1469598103934665603ull;
        m_docSplit = -1;
        m_docTokens = 0;
        m_docCut = false;
        m_piece.startsDocument = true;
        if (starting)
            ++m_rep.documents;
    }

    int64_t newTarget()
    {
        const int64_t maxNum = m_o.next_sentence ? m_o.max_seq_length - 3 : m_o.max_seq_length - 2;
        if (mlmUniform(m_rng) < m_o.short_seq_prob && maxNum > 2)
            return 2 + int64_t(mlmBelow(m_rng, uint64_t(maxNum - 1))); // randint(2, maxNum)
        return maxNum;
    }

    void flushPiece()
    {
        if (m_piece.sentences.empty())
            return;
        const bool eval = m_pieceIndex > 0 && m_o.eval_fraction > 0
            && double(splitmix64(uint64_t(m_pieceIndex) ^ splitmix64(m_o.random_seed)) >> 11) * (1.0 / 9007199254740992.0)
                < m_o.eval_fraction;
        ++m_pieceIndex;
        const int s = eval ? 1 : 0;
        if (m_docSplit < 0)
            m_docSplit = s;
        ++(eval ? m_rep.eval_documents : m_rep.train_documents);
        SplitState &st = m_split[s];
        if (m_o.next_sentence) {
            for (size_t d = 0; d < st.packers.size(); ++d)
                pairInstances(s, m_piece);
            ++st.seen;
            if (int64_t(st.reservoir.size()) < m_reservoirCap)
                st.reservoir.push_back(m_piece);
            else if (const uint64_t j = mlmBelow(m_rng, uint64_t(st.seen)); j < uint64_t(m_reservoirCap))
                st.reservoir[j] = m_piece;
        } else {
            for (auto &p : st.packers)
                pack(s, p, m_piece);
        }
        m_piece.sentences.clear();
        m_piece.tokens = 0;
    }

    // Without next-sentence pairs: contiguous sentences up to the target length, across
    // document ends with a [SEP] between documents; a sentence that does not fit an empty
    // sequence fills it and continues in the next.
    void pack(int s, Packer &p, const Piece &piece)
    {
        if (piece.startsDocument && !p.cur.empty())
            p.needSep = true;
        for (const Ids &sent : piece.sentences) {
            size_t off = 0;
            while (off < sent.size()) {
                const size_t rest = sent.size() - off, sepCost = p.needSep ? 1 : 0;
                if (int64_t(p.cur.size() + sepCost + rest) <= p.target) {
                    if (p.needSep)
                        p.cur.push_back(m_sep);
                    p.needSep = false;
                    p.cur.insert(p.cur.end(), sent.begin() + long(off), sent.end());
                    off = sent.size();
                } else if (p.cur.empty()) {
                    const size_t take = size_t(p.target);
                    p.cur.insert(p.cur.end(), sent.begin() + long(off), sent.begin() + long(off + take));
                    off += take;
                    emitPacked(s, p);
                } else {
                    emitPacked(s, p);
                }
            }
        }
    }

    void emitPacked(int s, Packer &p)
    {
        if (p.cur.empty())
            return;
        Sequence q;
        q.tokens.reserve(p.cur.size() + 2);
        q.tokens.push_back(m_cls);
        q.tokens.insert(q.tokens.end(), p.cur.begin(), p.cur.end());
        q.tokens.push_back(m_sep);
        q.segments.assign(q.tokens.size(), 0);
        emit(s, q);
        p.cur.clear();
        p.needSep = false;
        p.target = newTarget();
    }

    // google-research/bert create_instances_from_document for one piece.
    void pairInstances(int s, const Piece &doc)
    {
        const int64_t maxNum = m_o.max_seq_length - 3;
        const int64_t target = newTarget();
        const SplitState &st = m_split[s];
        std::vector<const Ids *> chunk;
        int64_t length = 0;
        const auto n = int64_t(doc.sentences.size());
        for (int64_t i = 0; i < n; ++i) {
            chunk.push_back(&doc.sentences[size_t(i)]);
            length += int64_t(doc.sentences[size_t(i)].size());
            if (i != n - 1 && length < target)
                continue;
            size_t aEnd = 1;
            if (chunk.size() >= 2)
                aEnd = 1 + size_t(mlmBelow(m_rng, uint64_t(chunk.size() - 1))); // randint(1, len - 1)
            Ids a, b;
            for (size_t k = 0; k < aEnd; ++k)
                a.insert(a.end(), chunk[k]->begin(), chunk[k]->end());
            bool randomNext = false;
            const bool haveOther = !st.reservoir.empty();
            if (haveOther && (chunk.size() == 1 || mlmUniform(m_rng) < 0.5)) {
                randomNext = true;
                const int64_t targetB = target - int64_t(a.size());
                const Piece &other = st.reservoir[size_t(mlmBelow(m_rng, st.reservoir.size()))];
                const size_t start = size_t(mlmBelow(m_rng, other.sentences.size()));
                for (size_t j = start; j < other.sentences.size(); ++j) {
                    b.insert(b.end(), other.sentences[j].begin(), other.sentences[j].end());
                    if (int64_t(b.size()) >= targetB)
                        break;
                }
                i -= int64_t(chunk.size() - aEnd); // the unused sentences start the next chunk
            } else if (chunk.size() >= 2) {
                for (size_t k = aEnd; k < chunk.size(); ++k)
                    b.insert(b.end(), chunk[k]->begin(), chunk[k]->end());
            } else if (a.size() >= 2) {
                // The first piece of a split has no other piece to draw B from: halve the sentence.
                b.assign(a.begin() + long(a.size() / 2), a.end());
                a.resize(a.size() / 2);
            }
            chunk.clear();
            length = 0;
            if (a.empty() || b.empty())
                continue;
            while (int64_t(a.size() + b.size()) > maxNum) { // truncate_seq_pair
                Ids &longer = a.size() > b.size() ? a : b;
                if (mlmUniform(m_rng) < 0.5)
                    longer.erase(longer.begin());
                else
                    longer.pop_back();
            }
            Sequence q;
            q.tokens.push_back(m_cls);
            q.tokens.insert(q.tokens.end(), a.begin(), a.end());
            q.tokens.push_back(m_sep);
            q.segments.assign(q.tokens.size(), 0);
            q.tokens.insert(q.tokens.end(), b.begin(), b.end());
            q.tokens.push_back(m_sep);
            q.segments.resize(q.tokens.size(), 1);
            q.randomNext = randomNext;
            emit(s, q);
        }
    }

    void emit(int s, const Sequence &q)
    {
        const auto L = size_t(m_o.max_seq_length);
        PretrainingRecord r;
        r.input_ids.assign(L, 0);
        r.input_mask.assign(L, 0);
        r.segment_ids.assign(L, 0);
        int64_t candidates = 0;
        for (size_t i = 0; i < q.tokens.size(); ++i) {
            r.input_ids[i] = q.tokens[i];
            r.input_mask[i] = 1;
            r.segment_ids[i] = q.segments[i];
            candidates += q.tokens[i] != m_cls && q.tokens[i] != m_sep ? 1 : 0;
        }
        r.next_sentence_labels = q.randomNext ? 1 : 0;
        if (m_static) {
            MlmMasked m = applyMlmMasking(r.input_ids, r.input_mask, m_vocab, m_mopts, m_rng);
            r.input_ids = std::move(m.input_ids);
            r.masked_lm_positions = std::move(m.masked_lm_positions);
            r.masked_lm_ids = std::move(m.masked_lm_ids);
            r.masked_lm_weights = std::move(m.masked_lm_weights);
            m_rep.masked_positions += int64_t(std::count(r.masked_lm_weights.begin(), r.masked_lm_weights.end(), 1.0f));
        } else {
            r.has_masked_lm = false;
            m_rep.masked_positions += mlmNumToPredict(candidates, m_mopts);
        }
        m_rep.sequence_tokens += int64_t(q.tokens.size());
        m_rep.random_next_sequences += r.next_sentence_labels;
        ++(s == 0 ? m_rep.train_sequences : m_rep.eval_sequences);
        (s == 0 ? trainSink : evalSink)(encodePretrainingRecord(r));
    }

    const PretrainingDataOptions &m_o;
    const Vocab &m_vocab;
    PretrainingDataReport &m_rep;
    std::mt19937_64 m_rng;
    std::mt19937_64 m_bucketRng; // bucket choice and bucket shuffles, apart from the sequences' draws
    MlmMaskingOptions m_mopts;
    bool m_static = false;
    int32_t m_cls = 0, m_sep = 0, m_unk = -1;
    int64_t m_maxSentence = 0, m_reservoirCap = 0;
    SplitState m_split[2];
    Piece m_piece;
    int64_t m_pieceIndex = 0, m_docTokens = 0;
    DocumentHashes m_hashes;
    uint64_t m_docHash = 1469598103934665603ull;
    int m_docSplit = -1;
    bool m_docCut = false;
};

/// How to fix an output folder that cannot be written: "Pass an --output_dir you may write to"
/// on the command line, "Choose an “Output folder” you may write to" in the window.
std::string writableOutputDirHint()
{
    return (optionWording() == OptionWording::Window ? "Choose an " : "Pass an ") + optionName("output_dir")
           + " you may write to";
}

void checkOptions(const PretrainingDataOptions &o)
{
    if (o.input_files.empty())
        throw Error("input_file", "no input was given",
                    PassOption("input_file", "<text file, folder, .csv, .tsv or .jsonl>") + ".");
    if (o.vocab_file.empty())
        throw Error("vocab_file", "no vocabulary was given",
                    PassOption("vocab_file", "vocab.txt") + ", or " + optionSetting("pretrained_model", "<model>") + ".");
    if (o.output_dir.empty())
        throw Error("output_dir", "no output folder was given", PassOption("output_dir", "<folder>") + ".");
    const int64_t minLength = o.next_sentence ? 5 : 3;
    if (o.max_seq_length < minLength || o.max_seq_length > 100000)
        throw Error("max_seq_length", "must be at least " + std::to_string(minLength) + " ([CLS], [SEP]"
                                          + (o.next_sentence ? std::string(" twice and a token of each sentence)")
                                                             : std::string(" and one token)"))
                                          + ", got " + std::to_string(o.max_seq_length));
    if (!(o.masked_lm_prob > 0.0 && o.masked_lm_prob <= 1.0))
        throw Error("masked_lm_prob", "must be in (0, 1], got " + std::to_string(o.masked_lm_prob),
                    "google-research/bert uses 0.15.");
    if (o.max_predictions_per_seq < 1)
        throw Error("max_predictions_per_seq", "must be at least 1, got " + std::to_string(o.max_predictions_per_seq));
    if (const int64_t most = maxUsefulPredictionsPerSeq(o.max_seq_length, o.masked_lm_prob);
        o.max_predictions_per_seq > most)
        throw Error("max_predictions_per_seq",
                    "max_predictions_per_seq=" + std::to_string(o.max_predictions_per_seq) + " is more than masked_lm_prob="
                        + fixed(o.masked_lm_prob, 2) + " can fill in a sequence of max_seq_length="
                        + std::to_string(o.max_seq_length) + ": about "
                        + std::to_string(std::max<int64_t>(1, int64_t(std::nearbyint(double(o.max_seq_length - 2) * o.masked_lm_prob))))
                        + " positions of a sequence are masked, and slots beyond " + std::to_string(most)
                        + " would always be padding",
                    "Use " + optionSetting("max_predictions_per_seq", std::to_string(most))
                        + " or less (about max_seq_length × masked_lm_prob), or raise " + optionName("masked_lm_prob")
                        + ".");
    if (!(o.short_seq_prob >= 0.0 && o.short_seq_prob <= 1.0))
        throw Error("short_seq_prob", "must be in [0, 1], got " + std::to_string(o.short_seq_prob));
    if (o.dupe_factor < 0 || o.dupe_factor > 1000)
        throw Error("dupe_factor", "must be in [1, 1000] (0: the default), got " + std::to_string(o.dupe_factor));
    if (o.masking != "static" && o.masking != "dynamic")
        throw Error("masking", "must be static or dynamic, got '" + o.masking + "'",
                    "dynamic: the trainer masks anew every epoch; static: the masks are written into the records "
                    "(google-research's run_pretraining.py reads only these).");
    if (!(o.eval_fraction >= 0.0 && o.eval_fraction < 1.0))
        throw Error("eval_fraction", "must be in [0, 1), got " + std::to_string(o.eval_fraction));
    if (o.num_output_shards < 1 || o.num_output_shards > 99999)
        throw Error("num_output_shards", "must be in [1, 99999], got " + std::to_string(o.num_output_shards));
    if (o.num_threads < 1)
        throw Error("num_threads", "must be at least 1, got " + std::to_string(o.num_threads));
}

std::string shardPath(const std::string &dir, int64_t i, int64_t n)
{
    if (n == 1)
        return (fs::path(dir) / "train.tf_record").string();
    char name[64];
    std::snprintf(name, sizeof name, "train.tf_record-%05lld-of-%05lld", static_cast<long long>(i),
                  static_cast<long long>(n));
    return (fs::path(dir) / name).string();
}

// Earlier train shards (another shard count) and an earlier eval file that are not outputs now.
void removeStaleOutputs(const std::string &dir, const PretrainingDataReport &rep)
{
    static const std::regex shard("train\\.tf_record(-[0-9]{5}-of-[0-9]{5})?");
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        const std::string full = e.path().string();
        const bool ours = std::find(rep.train_files.begin(), rep.train_files.end(), full) != rep.train_files.end();
        if ((std::regex_match(name, shard) && !ours) || (name == "eval.tf_record" && rep.eval_file.empty()))
            fs::remove(e.path(), ec);
    }
}

} // namespace

int64_t maxUsefulPredictionsPerSeq(int64_t maxSeqLength, double maskedLmProb)
{
    const auto fill = int64_t(std::ceil(double(maxSeqLength) * maskedLmProb - 1e-9));
    return std::max<int64_t>(4, (fill + 3) / 4 * 4);
}

void fitMaxPredictionsToSequence(PretrainingDataOptions &o)
{
    if (o.max_seq_length >= 1 && o.masked_lm_prob > 0.0 && o.masked_lm_prob <= 1.0)
        o.max_predictions_per_seq =
            std::min(o.max_predictions_per_seq, maxUsefulPredictionsPerSeq(o.max_seq_length, o.masked_lm_prob));
}

namespace {

// The report's settings, as the options give them (the counts come later).
PretrainingDataReport startReport(const PretrainingDataOptions &o)
{
    PretrainingDataReport rep;
    rep.email_body_only = o.email_body_only;
    rep.masking = o.masking;
    rep.dupe_factor = o.dupe_factor > 0 ? o.dupe_factor : (o.masking == "static" ? 10 : 1);
    rep.max_seq_length = o.max_seq_length;
    rep.max_predictions_per_seq = o.max_predictions_per_seq;
    rep.masked_lm_prob = o.masked_lm_prob;
    rep.short_seq_prob = o.short_seq_prob;
    rep.eval_fraction = o.eval_fraction;
    rep.whole_word_masking = o.do_whole_word_mask;
    rep.next_sentence = o.next_sentence;
    rep.random_seed = o.random_seed;
    rep.do_lower_case = o.do_lower_case;
    return rep;
}

// The special tokens every sequence needs, and the vocabulary's identity for the report.
void checkVocabulary(const PretrainingDataOptions &o, const FullTokenizer &tok, PretrainingDataReport &rep)
{
    for (const char *t : {"[CLS]", "[SEP]", "[MASK]"})
        if (tok.vocab().find(t) < 0)
            throw Error(o.vocab_file, std::string("the vocabulary has no ") + t + " token, which "
                                          + (std::string(t) == "[MASK]" ? "masked-language-model pretraining needs"
                                                                        : "every sequence starts or ends with"),
                        "Use the vocab.txt of a BERT model, or add a line " + std::string(t) + " to this one.");
    rep.vocab_file = fs::absolute(o.vocab_file).lexically_normal().string();
    std::ifstream in(o.vocab_file, std::ios::binary);
    rep.vocab_sha256 = sha256Hex(std::string(std::istreambuf_iterator<char>(in), {}));
    rep.vocab_size = tok.vocab().size();
}

// The output folder and the names of everything written into it.
void planOutputs(const PretrainingDataOptions &o, PretrainingDataReport &rep)
{
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec || !fs::is_directory(o.output_dir))
        throw Error(o.output_dir, "cannot create the output folder" + (ec ? ": " + ec.message() : std::string()),
                    writableOutputDirHint() + ".");
    rep.meta_path = (fs::path(o.output_dir) / "input_meta_data.json").string();
    rep.report_path = (fs::path(o.output_dir) / "prepare_report.json").string();
    for (int64_t i = 0; i < o.num_output_shards; ++i)
        rep.train_files.push_back(shardPath(o.output_dir, i, o.num_output_shards));
    if (o.eval_fraction > 0)
        rep.eval_file = (fs::path(o.output_dir) / "eval.tf_record").string();
}

// Enough buckets that one holds about kBucketBytes of records.
uint64_t bucketCount(const PretrainingDataOptions &o, const PretrainingDataReport &rep)
{
    const double estimate = double(rep.input_bytes) * (1.0 - o.eval_fraction) * double(rep.dupe_factor)
        * kRecordBytesPerTextByte * double(o.max_seq_length) / 128.0;
    return std::clamp<uint64_t>(uint64_t(std::ceil(estimate / double(kBucketBytes))), 1, kMaxBuckets);
}

// Reads and tokenizes in batches on a second thread (and the tokenizer threads) while this
// thread builds the sequences of the previous batch, in input order.
void readAndBuild(const PretrainingDataOptions &o, const FullTokenizer &tok, PretrainingTextReader &reader,
                  Builder &builder, const std::function<bool()> &stopRequested,
                  const std::function<void(uint64_t)> &afterBatch)
{
    struct Batch
    {
        std::vector<PretrainingTextDocument> docs;
        std::vector<std::vector<Ids>> ids;
        uint64_t bytesRead = 0;
    };
    auto produce = [&](Batch &b) {
        b.docs.clear();
        b.ids.clear();
        size_t bytes = 0;
        PretrainingTextDocument doc;
        while (bytes < kBatchBytes && reader.next(doc)) {
            for (const auto &sentence : doc.sentences)
                bytes += sentence.size();
            b.docs.push_back(std::move(doc));
        }
        b.ids.assign(b.docs.size(), {});
        const bool complete = parallelFor(b.docs.size(), o.num_threads, [&](size_t d) {
            b.ids[d].reserve(b.docs[d].sentences.size());
            for (const std::string &sentence : b.docs[d].sentences)
                b.ids[d].push_back(tok.tokenizeToIds(sentence));
        }, stopRequested);
        b.bytesRead = reader.bytesRead();
        return complete && !b.docs.empty();
    };
    Batch current, next;
    bool more = produce(current);
    afterBatch(current.bytesRead);
    while (more) {
        auto pending = std::async(std::launch::async, [&] { return produce(next); });
        for (size_t d = 0; d < current.docs.size(); ++d)
            builder.feed(current.docs[d], current.ids[d]);
        more = pending.get();
        std::swap(current, next);
        afterBatch(current.bytesRead);
    }
}

// The counts from the reader, and a corpus without any text refused.
void finishCounts(const PretrainingDataOptions &o, const PretrainingTextReader &reader, PretrainingDataReport &rep)
{
    rep.empty_rows = reader.emptyRows();
    rep.long_lines_split = reader.linesSplit();
    rep.long_line_cuts = reader.lineCuts();
    rep.long_line_cuts_inside_a_word = reader.lineCutsInsideAWord();
    rep.long_line_splits = reader.lineSplits();
    rep.text_column = reader.textColumn();
    rep.text_column_recognised = reader.textColumnRecognised();
    rep.unk_rate = rep.tokens ? double(rep.unk_tokens) / double(rep.tokens) : 0.0;
    const std::string inputName = o.input_files.size() == 1 ? o.input_files.front() : std::string("input_file");
    if (rep.tokens == 0)
        throw Error(inputName, "the corpus holds no text: " + std::to_string(rep.documents) + " document(s), "
                                   + std::to_string(rep.empty_rows) + " empty row(s), 0 tokens",
                    rep.text_column.empty()
                        ? std::string("Give text files with one sentence or line per line, documents separated by "
                                      "blank lines.")
                        : "The text was read from '" + rep.text_column + "'; "
                              // the window fills in the field: "fill in “Text column”"
                              + (optionWording() == OptionWording::Window ? passOption("text_column", "NAME")
                                                                          : passOption("text_column"))
                              + " to name another column.");
}

} // namespace

PretrainingDataReport preparePretrainingData(const PretrainingDataOptions &o, const PretrainingProgress &progress,
                                             const StopToken *stop)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto report = [&](double f, const std::string &stage) {
        if (progress)
            progress(std::clamp(f, 0.0, 1.0), stage);
    };
    const std::function<bool()> stopRequested = [stop] { return stop && stop->stopRequested(); };
    auto throwIfStopped = [&] {
        if (stopRequested())
            throw Error("prepare_pretraining", "cancelled", "Nothing was written.");
    };
    checkOptions(o);
    PretrainingDataReport rep = startReport(o);
    const FullTokenizer tok(o.vocab_file, o.do_lower_case, o.max_input_chars_per_word);
    checkVocabulary(o, tok, rep);
    PretrainingTextReader reader(o.input_files, o.input_format, o.text_column, o.email_body_only);
    rep.input_files = int64_t(reader.files().size());
    rep.input_bytes = reader.totalBytes();
    rep.input_format = reader.formatName();
    planOutputs(o, rep);

    // Training records go to buckets on disk, eval records straight to their file.
    RecordBuckets buckets(fs::path(o.output_dir) / (".prepare_pretraining-" + std::to_string(::getpid()) + ".tmp"),
                          bucketCount(o, rep), writableOutputDirHint() + ", on a disk with free space.");
    std::unique_ptr<TFRecordWriter> evalWriter;
    if (!rep.eval_file.empty())
        evalWriter = std::make_unique<TFRecordWriter>(rep.eval_file);
    Builder builder(o, tok, rep);
    builder.trainSink = [&](const std::string &payload) { buckets.add(builder.bucketRng(), payload); };
    builder.evalSink = [&](const std::string &payload) { evalWriter->write(payload); };
    report(0.0, "reading");
    readAndBuild(o, tok, reader, builder, stopRequested, [&](uint64_t bytesRead) {
        throwIfStopped();
        if (rep.input_bytes > 0)
            report(0.9 * double(bytesRead) / double(rep.input_bytes), "reading");
    });
    builder.finish();
    finishCounts(o, reader, rep);

    // Shuffle: every bucket in memory (at most kShuffleBytes at a time), dealt round-robin to the shards.
    std::vector<std::unique_ptr<TFRecordWriter>> shards;
    for (const auto &path : rep.train_files)
        shards.push_back(std::make_unique<TFRecordWriter>(path));
    const uint64_t numBuckets = buckets.count();
    buckets.deal(shards, builder.bucketRng(), kShuffleBytes, [&](uint64_t b) {
        report(0.9 + 0.1 * double(b + 1) / double(numBuckets), "shuffling");
        throwIfStopped();
    });
    rep.warnings = pretrainingDataWarnings(o, rep);
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Commit: the records first, the meta data last (its presence means a complete data set).
    for (auto &w : shards)
        w->commit();
    if (evalWriter)
        evalWriter->commit();
    writeFileAtomic(rep.report_path, pretrainingReportJson(rep));
    writeFileAtomic(rep.meta_path, pretrainingMetaJson(rep));
    removeStaleOutputs(o.output_dir, rep);
    report(1.0, "done");
    return rep;
}

} // namespace wb
