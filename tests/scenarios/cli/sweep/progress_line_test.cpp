// The sweep's progress line: done/total with the percentage, points from an earlier run (--resume)
// counted as done but not in the rate, the rate, an ETA while points remain, the failures.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "scenarios/cli/sweep/progress_line.hpp"

namespace {
std::string read_back(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) s += static_cast<char>(c);
  return s;
}
}  // namespace

TEST_CASE("scenarios: the sweep progress line has done/total, rate, ETA while points remain, failures", "[scenarios]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  // 10 points, 2 of them written by an earlier run.
  scenarios::ProgressLine p(log, /*terminal=*/false, 10, 2);
  CHECK(p.text() == "sweep 2/10 points (20%), 2 from the earlier run, 0 failed");  // nothing run yet: no rate
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  p.point_done(false);
  p.point_done(true);
  const std::string t = p.text();
  CHECK(t.rfind("sweep 4/10 points (40%), 2 from the earlier run, ", 0) == 0);
  // A rate (points/s, or the time per point when slower than one a second), and 6 points left: an ETA.
  CHECK((t.find(" points/s, ETA ") != std::string::npos || t.find(" per point, ETA ") != std::string::npos));
  CHECK(t.size() > 10);
  CHECK(t.substr(t.size() - 10) == ", 1 failed");
  p.finish();
  // Not a terminal: the first point's line at once (later ones at most once a second), and the last.
  const std::string out = read_back(log);
  CHECK(out.rfind("sweep 3/10 points (30%), 2 from the earlier run, ", 0) == 0);
  CHECK(out.find("\r") == std::string::npos);
  // The last line: the same counts (its rate has moved on with the clock).
  const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
  CHECK(last.rfind("sweep 4/10 points (40%), 2 from the earlier run, ", 0) == 0);
  CHECK(last.substr(last.size() - 11) == ", 1 failed\n");
  std::fclose(log);
}

TEST_CASE("scenarios: the last progress line of a finished sweep has no ETA", "[scenarios]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  scenarios::ProgressLine p(log, /*terminal=*/true, 1, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.point_done(false);
  p.finish();
  const std::string out = read_back(log);
  CHECK(out.find("ETA") == std::string::npos);
  CHECK(out.find("sweep 1/1 points (100%)") != std::string::npos);
  // A terminal: the line is rewritten in place (\r, erase to the end), a newline only at the end.
  CHECK(out.rfind("\rsweep 1/1", 0) == 0);
  CHECK(out.back() == '\n');
  std::fclose(log);
}
