// The Trainer's fsdp argument -> a strategy (scenarios/import/fsdp_option.hpp): each FSDP option
// the Trainer knows, what it is simulated as, and the values the Trainer refuses.
#include <catch2/catch.hpp>

#include "scenarios/import/fsdp_option.hpp"

using scenarios::fsdp_choice;

TEST_CASE("fsdp option: each sharding becomes the strategy that simulates it", "[scenarios]") {
  CHECK(fsdp_choice("full_shard auto_wrap").strategy == "fsdp");
  CHECK(fsdp_choice("FULL_SHARD").strategy == "fsdp");
  CHECK(fsdp_choice("True").strategy == "fsdp");  // fsdp=True is full_shard
  CHECK(fsdp_choice("shard_grad_op").strategy == "zero2");
  CHECK(fsdp_choice("hybrid_shard").strategy == "hsdp");
  CHECK(fsdp_choice("hybrid_shard_zero2 auto_wrap").strategy == "hsdp");
  CHECK(fsdp_choice("no_shard").strategy == "ddp");
  for (const char* off : {"", "false", "False"}) {
    CHECK(fsdp_choice(off).strategy.empty());
    CHECK(fsdp_choice(off).error.empty());
  }
}

TEST_CASE("fsdp option: offload is ZeRO-2's optimizer offload under shard_grad_op, else a note", "[scenarios]") {
  const auto grad_op = fsdp_choice("shard_grad_op offload");
  CHECK(grad_op.strategy == "zero2");
  CHECK(grad_op.offload_optimizer);
  CHECK(grad_op.notes.empty());
  const auto full = fsdp_choice("full_shard offload auto_wrap");
  CHECK(full.strategy == "fsdp");
  CHECK_FALSE(full.offload_optimizer);
  REQUIRE(full.notes.size() == 1);
  CHECK(full.notes[0] == "fsdp offload: FSDP's CPU offload is not modelled for fsdp; the step is simulated without it");
}

TEST_CASE("fsdp option: what the Trainer refuses is an error", "[scenarios]") {
  CHECK(fsdp_choice("full_shard auto_wrapp").error ==
        "'auto_wrapp' is not an FSDP option (expected full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2, "
        "no_shard, offload or auto_wrap, as the Trainer takes them)");
  CHECK(fsdp_choice("offload").error.find("names no sharding") != std::string::npos);
  CHECK(fsdp_choice("full_shard shard_grad_op").error.find("more than one sharding") != std::string::npos);
}
