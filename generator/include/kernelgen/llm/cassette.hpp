#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "kernelgen/llm/http.hpp"

namespace kernelgen::llm {

// A cassette: the wire responses of a run, keyed by sample (op/r<round>/s<sample>), so that replaying it
// drives the whole pipeline after the transport exactly as the recorded run did. Each entry says who wrote the
// completion: the model that returned it, or "hand-written" for a response no model API returned.
//
//   {"kernelgen_cassette": 1,
//    "entries": [{"key": "relu/r1/s0", "wire_format": "openai", "author": "openai/gpt-4o",
//                 "status": 200, "body": {...the provider's JSON...}}]}
//
// A replayed response carries its author and wire format in the x-kernelgen-author and
// x-kernelgen-wire-format headers, which the client trusts only from a replay.
Transport replay_transport(const std::filesystem::path& cassette);

// Wraps a live transport and appends every successful response to the cassette (created if missing),
// written atomically after each response; safe to call from concurrent samples.
Transport recording_transport(Transport live, const std::filesystem::path& cassette, const std::string& wire_format,
                              const std::string& author);

}  // namespace kernelgen::llm
