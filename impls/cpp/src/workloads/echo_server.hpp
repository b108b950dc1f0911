// echo-server (workloads/echo-server.md): a TCP server on 127.0.0.1 that answers each request with
// its payload reversed after wait_us µs, in seq, threads or one epoll loop.
#pragma once

#include <cstdint>
#include <iostream>

#include "protocol.hpp"

namespace parbench::echo_server {

constexpr std::uint32_t kMaxPayload = 65536;
constexpr std::int64_t kMaxWaitUs = 10'000'000;

// The spec's reply in place: `message` holds the 8-byte header then the payload, which is reversed.
void make_reply(char* message, std::size_t size);

// The whole conversation: listen, start the model, the ready line on `out`, one stats line per line
// of `in`, and at the end of `in` the listener closed and the model's threads ended or left blocked
// on connections their clients still hold (the process exits after).
void serve(const Invocation& call, std::istream& in, std::ostream& out);

}  // namespace parbench::echo_server
