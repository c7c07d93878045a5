// SPDX-License-Identifier: Apache-2.0
// TFRecord read throughput with both CRCs verified (and Example decoding separately).
// Usage: bench_tfrecord [DIR] [RECORDS]
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

int main(int argc, char **argv)
{
    const std::string dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path().string();
    const long n = argc > 2 ? std::stol(argv[2]) : 200000;
    const std::string path = dir + "/bench_tfrecord.tf_record";
    wb::ClassifierRecord r;
    r.input_ids.assign(128, 0);
    r.input_mask.assign(128, 0);
    r.segment_ids.assign(128, 0);
    {
        wb::TFRecordWriter w(path);
        for (long i = 0; i < n; ++i) {
            for (int k = 0; k < 128; ++k) {
                r.input_ids[size_t(k)] = (i * 31 + k * 977) % 30522;
                r.input_mask[size_t(k)] = k < 100;
            }
            r.label_id = i % 2;
            w.write(wb::encodeClassifierRecord(r));
        }
        w.commit();
    }
    const double mb = double(std::filesystem::file_size(path)) / 1e6;
    auto time = [&](bool decode) {
        const auto t0 = std::chrono::steady_clock::now();
        wb::TFRecordReader reader(path);
        std::string payload;
        wb::RecordSpec spec;
        spec.vocab_size = 30522;
        spec.type_vocab_size = 2;
        wb::ClassifierRecord rec;
        long count = 0;
        while (reader.read(payload)) {
            if (decode)
                wb::decodeClassifierRecord(payload, spec, rec);
            ++count;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "{\"bench\":\"" << (decode ? "tfrecord_read_decode" : "tfrecord_read_crc") << "\",\"records\":"
                  << count << ",\"mb\":" << mb << ",\"seconds\":" << s << ",\"mb_per_s\":" << mb / s << "}\n";
    };
    time(false); // warms the page cache
    time(false);
    time(true);
    std::remove(path.c_str());
    return 0;
}
