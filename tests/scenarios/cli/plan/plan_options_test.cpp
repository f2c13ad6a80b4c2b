// `commsim plan`'s comma-list options (scenarios/cli/plan/plan_options.hpp): a bad item is refused
// at its own column in the option's value ("--OPTION:1:COL", as a file's errors are at
// FILE:LINE:COL), with a "did you mean" where a known name is within a typo of it.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/cli/plan/plan_options.hpp"

namespace {
// The one line a user sees for these arguments, or "no error".
std::string options_error(const scenarios::PlanArgs& a) {
  try {
    (void)scenarios::plan_options(a);
  } catch (const scenarios::UserError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("plan options: an unknown strategy is refused at its item, with the strategies near it", "[scenarios]") {
  scenarios::PlanArgs a;
  //             1234567890123456
  a.strategies = "megatron,zero4,fsdp";
  CHECK(options_error(a) ==
        "--strategies:1:10: unknown strategy 'zero4' (did you mean zero1, zero2, zero3? expected megatron, zero1, "
        "zero2, zero3, zero3+offload, fsdp, hsdp or ddp)");
  a.strategies = "fsdp, fdsp";  // a swapped pair of letters, after a space
  CHECK(options_error(a) ==
        "--strategies:1:7: unknown strategy 'fdsp' (did you mean fsdp? expected megatron, zero1, zero2, zero3, "
        "zero3+offload, fsdp, hsdp or ddp)");
  a.strategies = "ddp,offload";
  CHECK(options_error(a).rfind("--strategies:1:5: unknown strategy 'offload' (did you mean zero3+offload? expected",
                               0) == 0);
  a.strategies = "ddp,pipeline";  // near none of them: the list alone
  CHECK(options_error(a) ==
        "--strategies:1:5: unknown strategy 'pipeline' (expected megatron, zero1, zero2, zero3, zero3+offload, fsdp, "
        "hsdp or ddp)");
  a.strategies = "ddp,,fsdp";
  CHECK(options_error(a) == "--strategies:1:5: empty item in 'ddp,,fsdp' (expected a,b,c)");
  a.strategies = "ddp,fsdp,ddp";  // a repeat counts once
  CHECK(scenarios::plan_options(a).space.strategies == std::vector<std::string>{"ddp", "fsdp"});
}

TEST_CASE("plan options: a bad number in a list is refused at its item", "[scenarios]") {
  scenarios::PlanArgs a;
  a.micro_batches = "1,2,x4,8";
  CHECK(options_error(a) == "--micro-batches:1:5: 'x4' is not a whole number from 1 to 1024");
  a.micro_batches = "1, 2048";
  CHECK(options_error(a) == "--micro-batches:1:4: '2048' is not a whole number from 1 to 1024");
  a.micro_batches = "";
  a.cp = "1,2,0";
  CHECK(options_error(a) == "--cp:1:5: '0' is not a whole number from 1 to 64");
  a.cp = "";
  a.pods = "1,8,65";
  CHECK(options_error(a) == "--pods-per-node:1:5: '65' is not a whole number from 1 to 64");
  a.pods = "";
  a.domain_hosts = "16,eighteen";
  CHECK(options_error(a) == "--hosts-per-domain:1:4: 'eighteen' is not a whole number from 1 to 1024");
}

TEST_CASE("plan options: recompute modes, instances and GPU counts are refused at their item", "[scenarios]") {
  scenarios::PlanArgs a;
  a.recompute = "none,ful";
  CHECK(options_error(a) ==
        "--recompute:1:6: unknown recompute 'ful' (did you mean full? expected none, selective or full)");
  a.recompute = "";
  a.instances = "p5.48xlarge,p5.48xlarg";
  CHECK(options_error(a).rfind("--instances:1:13: unknown instance 'p5.48xlarg' (did you mean p5.48xlarge", 0) == 0);
  a.instances = "";
  a.gpus = " 8..1x6";
  CHECK(options_error(a) == "--gpus:1:5: '1x6' is not a GPU count (expected a whole number >= 1)");
  a.gpus = "8.. 1x6";
  CHECK(options_error(a) == "--gpus:1:5: '1x6' is not a GPU count (expected a whole number >= 1)");
  a.gpus = "  x..16";
  CHECK(options_error(a) == "--gpus:1:3: 'x' is not a GPU count (expected a whole number >= 1)");
}
