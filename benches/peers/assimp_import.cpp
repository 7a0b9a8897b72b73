// Times assimp's in-memory import of each file named on the command line: the file is read
// into memory once, then `Assimp::Importer::ReadFileFromMemory` runs N times (a fresh
// Importer each time, no post-processing, the timer around the call only). Prints one line
// per file: "<path>\t<median µs>\t<min µs>". Run by benches/peers/peers.py.
#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s RUNS HINT FILE...\n", argv[0]);
        return 2;
    }
    const int runs = std::atoi(argv[1]);
    const char* hint = argv[2];
    for (int i = 3; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::vector<double> micros;
        micros.reserve(runs);
        bool ok = true;
        for (int r = 0; r < runs; ++r) {
            Assimp::Importer importer;
            auto started = std::chrono::steady_clock::now();
            const aiScene* scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), 0, hint);
            auto took = std::chrono::steady_clock::now() - started;
            ok = ok && scene != nullptr;
            micros.push_back(std::chrono::duration<double, std::micro>(took).count());
        }
        std::sort(micros.begin(), micros.end());
        if (!ok) {
            std::printf("%s\tfailed\tfailed\n", argv[i]);
            continue;
        }
        std::printf("%s\t%.2f\t%.2f\n", argv[i], micros[micros.size() / 2], micros.front());
        std::fflush(stdout);
    }
    return 0;
}
