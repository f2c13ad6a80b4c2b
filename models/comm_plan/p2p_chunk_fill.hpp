// Simple's chunk pipeline inside one point-to-point transfer: the share of a channel's copy rate
// a part reaches.
//
// A part goes in chunks of p2pChunkSize (NCCL_P2P_NVL_CHUNKSIZE 512 KiB over NVLink on one node,
// else 128 KiB; src/init.cc computeBuffSizes). The sender writes a whole chunk into the peer's
// FIFO before posting it (src/device/sendrecv.h runSend: one directSend of chunkSize per loop;
// Primitives<..., ProtoSimple<1,1>, ...>: one slice per chunk, one step per slice, so the tail
// moves once per chunk), and the receiver's warps then copy it out (runRecv: directRecv of the
// same chunk). The copy-in of chunk i+1 overlaps the copy-out of chunk i (NCCL_STEPS = 8 FIFO
// slots), but one chunk's two copies never overlap: a two-stage pipeline at the channel's rate r
// over chunks c_1 >= c_2 >= ... (whole chunks, then the rest) ends at (c_1 + part) / r, the whole
// part plus its first chunk once more:
//   fill = part / (part + min(part, chunk))
// (k whole chunks: k / (k + 1); one chunk, however small: 1/2). A part one byte over k chunks
// takes one byte longer, never less (counting the last, partial chunk as whole would).
// LL hands over each 8-byte line as it is written (the receiver polls the line's flag), so LL
// has no such fill. Tests: tests/models/comm_plan/p2p_chunk_fill_test.cpp; checked on 2 x H200
// (scenarios/validation/h200x2/n2_a2a_sendrecv.json: alltoall and send/recv at 16-32 MiB, parts
// of 512 KiB - 1 MiB on 16 channels, were 21-40 % fast without it).
#pragma once

#include <cstdint>

#include "models/comm_plan/p2p_channels.hpp"

namespace models::collectives {

// The share of a channel's rate a Simple part of `part` bytes reaches (1 for part <= 0).
double p2p_chunk_fill(const P2pChannels& c, int64_t part);

}  // namespace models::collectives
