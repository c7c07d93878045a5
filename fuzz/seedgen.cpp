// SPDX-License-Identifier: Apache-2.0
// Writes the binary seeds of fuzz/corpus/ with the product's own writers (the same calls
// the unit tests make): `fuzz_seedgen <corpus dir>`. Text seeds are committed as written.
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/io/event.pb.h"
#include "core/io/eventwriter.h"
#include "core/io/runevents.h"
#include "core/weights/safetensors.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
#include <zlib.h>

namespace fs = std::filesystem;

namespace {

void put(const fs::path &file, const std::string &bytes)
{
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string slurp(const fs::path &file)
{
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

wb::ClassifierRecord record(int64_t seq, int64_t label, bool floatLabel, bool weight)
{
    wb::ClassifierRecord r;
    for (int64_t i = 0; i < seq; ++i) {
        r.input_ids.push_back(i < 5 ? 2 + i : 0);
        r.input_mask.push_back(i < 5 ? 1 : 0);
        r.segment_ids.push_back(i >= 3 && i < 5 ? 1 : 0);
    }
    r.label_id = label;
    r.float_label = floatLabel;
    r.label_value = floatLabel ? 3.5f : float(label);
    if (weight)
        r.weight = 0.5f;
    r.example_id = 7;
    return r;
}

std::string tfrecordFile(const fs::path &tmp, wb::RecordCompression c, const std::vector<std::string> &payloads)
{
    const fs::path file = tmp / "records.tf_record";
    {
        wb::TFRecordWriter w(file.string(), c);
        for (const auto &p : payloads)
            w.write(p);
        w.commit();
    }
    return slurp(file);
}

std::string eventFile(const fs::path &tmp, const std::string &sub)
{
    const fs::path dir = tmp / sub;
    std::string path;
    {
        wb::EventWriter w(dir.string(), 1700000000.0);
        w.addScalar("loss", 1, 0.69, 1700000001.0);
        w.addScalar("learning_rate", 1, 5e-5, 1700000001.0);
        w.addScalar("eval_accuracy", 8, 0.75, 1700000002.0);
        w.flush();
        path = w.path();
    }
    return slurp(path);
}

/// TFRecord framing: mode byte, then the file (0) or the stream to compress (1 gzip, 2 zlib).
void writeTfrecordSeeds(const fs::path &corpus, const fs::path &tmp, const std::string &cls, const std::string &reg)
{
    const std::vector<std::string> payloads = {cls, reg, "", std::string(300, 'x')};
    const std::string plain = tfrecordFile(tmp, wb::RecordCompression::None, payloads);
    put(corpus / "tfrecord/plain", std::string(1, '\0') + plain);
    put(corpus / "tfrecord/gzip-file", std::string(1, '\0') + tfrecordFile(tmp, wb::RecordCompression::Gzip, payloads));
    put(corpus / "tfrecord/zlib-file", std::string(1, '\0') + tfrecordFile(tmp, wb::RecordCompression::Zlib, payloads));
    put(corpus / "tfrecord/gzip-stream", "\x01" + plain);
    put(corpus / "tfrecord/zlib-stream", "\x02" + plain);
    put(corpus / "tfrecord/skip", "\x03" + plain);
    put(corpus / "tfrecord/truncated", std::string(1, '\0') + plain.substr(0, plain.size() - 7));
}

/// Safetensors: header + data, as the export writes them.
void writeSafetensorsSeeds(const fs::path &corpus)
{
    std::vector<wb::SafetensorsEntry> entries = {
        {"bert.embeddings.word_embeddings.weight", "F32", {4, 2}, 0, 0},
        {"classifier.bias", "F16", {2}, 0, 0},
        {"bert.pooler.dense.bias", "BF16", {}, 0, 0},
    };
    std::string file = wb::buildSafetensorsHeader(entries, {{"format", "pt"}});
    file.append(size_t(entries.back().end), '\x01');
    put(corpus / "safetensors/three-tensors", file);
    std::vector<wb::SafetensorsEntry> none;
    put(corpus / "safetensors/empty", wb::buildSafetensorsHeader(none, {}));
}

/// TensorBoard: our own event file, its GZIP form, and a TF2 tensor scalar.
void writeEventFileSeeds(const fs::path &corpus, const fs::path &tmp)
{
    const std::string events = eventFile(tmp, "ours");
    put(corpus / "eventfile/ours", events);
    {
        wb::tb::Event e;
        e.set_wall_time(1700000003.0);
        e.set_step(3);
        auto *v = e.mutable_summary()->add_value();
        v->set_tag("epoch_loss");
        v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
        v->mutable_tensor()->set_dtype(1);
        v->mutable_tensor()->add_float_val(0.25f);
        wb::tb::Event d;
        d.set_step(4);
        auto *w = d.mutable_summary()->add_value();
        w->set_tag("epoch_accuracy");
        w->mutable_tensor()->set_dtype(2);
        const double x = 0.5;
        w->mutable_tensor()->set_tensor_content(std::string(reinterpret_cast<const char *>(&x), sizeof x));
        put(corpus / "eventfile/tf2-tensors", tfrecordFile(tmp, wb::RecordCompression::None,
                                                            {e.SerializeAsString(), d.SerializeAsString()}));
        put(corpus / "eventfile/tf2-gzip", tfrecordFile(tmp, wb::RecordCompression::Gzip,
                                                         {e.SerializeAsString(), d.SerializeAsString()}));
    }
}

/// The jsonl progress stream of one short run ("!" lines go to feedError).
void writeProgressSeeds(const fs::path &corpus)
{
    wb::RunStarted s;
    s.total_steps = 16; s.steps_per_epoch = 8; s.warmup_steps = 1; s.eval_steps = 2; s.num_labels = 2;
    s.parameter_count = 4386; s.model_dir = "/tmp/run"; s.device = "cpu"; s.wall_time = 1700000000.0;
    wb::StepMetrics m;
    m.step = 1; m.total_steps = 16; m.epoch = 0.125; m.loss = 0.69; m.learning_rate = 5e-5;
    m.examples_per_second = 120; m.wall_time = 1700000001.0;
    wb::EvalMetrics ev;
    ev.step = 8; ev.eval_loss = 0.6; ev.eval_accuracy = 0.75; ev.binary = true; ev.eval_f1 = 0.7;
    ev.num_examples = 8; ev.confusion = {{3, 1}, {1, 3}};
    wb::CheckpointSaved c{8, "/tmp/run/ckpt-8"};
    wb::RunFinished f;
    f.last_step = 16; f.final_train_loss = 0.4; f.last_checkpoint = "/tmp/run/ckpt-16";
    wb::RunFinished failed;
    failed.status = wb::RunStatus::Failed; failed.last_step = 3; failed.message = "disk full";
    failed.field = "/tmp/run/ckpt-3"; failed.hint = "free space";
    put(corpus / "progressjsonl/completed",
        wb::runEventLine(s) + "\n" + wb::runEventLine(m) + "\n" + wb::runEventLine(ev) + "\n" + wb::runEventLine(c)
            + "\n" + wb::runEventLine(std::string("epoch 1 done")) + "\nstray print\n" + wb::runEventLine(f) + "\n");
    put(corpus / "progressjsonl/failed", wb::runEventLine(s) + "\n" + wb::runEventLine(m)
                                             + "\n!error: /tmp/run/ckpt-3: disk full\n" + wb::runEventLine(failed) + "\n");
    put(corpus / "progressjsonl/nonfinite", R"({"event":"step","step":2,"loss":null,"learning_rate":1e400})" "\n"
                                            R"({"event":"eval","step":2,"confusion":[[1],[2,3,4]]})" "\n");
}
} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::cerr << "usage: fuzz_seedgen <corpus dir>\n";
        return 2;
    }
    const fs::path corpus = argv[1];
    const fs::path tmp = fs::temp_directory_path() / "wb-fuzz-seedgen";
    fs::remove_all(tmp);
    fs::create_directories(tmp);

    // Example → classifier record: 4 spec bytes, then the Example.
    // Byte 0: max_seq_length − 1 (mod 64); 1: num_labels − 1; 2: flags; 3: vocab_size − 1.
    const std::string cls = wb::encodeClassifierRecord(record(8, 1, false, false));
    const std::string reg = wb::encodeClassifierRecord(record(16, 0, true, true));
    put(corpus / "example/classification", std::string("\x07\x01\x0c\x3f", 4) + cls);
    put(corpus / "example/regression-weight", std::string("\x0f\x00\x03\x00", 4) + reg);
    put(corpus / "example/wrong-length", std::string("\x3f\x01\x00\x00", 4) + cls);

    writeTfrecordSeeds(corpus, tmp, cls, reg);
    writeSafetensorsSeeds(corpus);
    writeEventFileSeeds(corpus, tmp);
    writeProgressSeeds(corpus);
    fs::remove_all(tmp);
    std::cout << "seeds written to " << corpus << "\n";
    return 0;
}
