#pragma once
// diagnose_log: what an NCCL log means for the job's communication, in plain words. Each finding
// names the evidence (the log lines' values) and what to do; the ids are stable for tests and
// scripts. Thresholds are written next to each rule with the reason.
#include <string>
#include <vector>

#include "models/readers/nccl_log.hpp"

namespace models::nccl {

enum class Severity { Info, Warning, Critical };
const char* severity_name(Severity s);  // "info", "warning", "critical"

struct Finding {
  Severity severity = Severity::Info;
  std::string id;       // "net-plugin-failed", "ranks-isolated", "p2p-read", "gdr-off",
                        // "few-channels", "protocol-forced", "long-bootstrap",
                        // "intra-node-transports-disabled", "example-tuner", "nccl-warnings"
  std::string message;  // what the log shows and what it costs
  std::string advice;   // what to change
};

// Most severe first, then in rule order. `instance`: the machine the findings name (a catalog
// name, `commsim nccl-log --instance`); empty: the log's own platform line.
std::vector<Finding> diagnose_log(const readers::NcclLogReport& report, const std::string& instance = "");

// GPUs per host of an instance name from the catalog (models/hw), 0 when unknown.
int instance_gpus(const std::string& instance);

}  // namespace models::nccl
