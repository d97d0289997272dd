// The layering of STYLE.md section 1, checked on the source tree: dependencies point one way (workloads ->
// mappings -> sim; analysis reads them; the command line sits on top), the engine knows nothing of neural
// networks, and a schedule knows nothing of how messages are routed. The library is one archive, so the
// linker would not catch an include that points upward; this test does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace spatialsim {
namespace {

namespace fs = std::filesystem;

struct Include {
  std::string from;  // the including file, relative to the source root
  int line;
  std::string header;  // as written between the quotes
};

// The top folders each folder may include from (its own included).
const std::map<std::string, std::set<std::string>>& allowed_folders() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"sim", {"sim"}},
      {"mappings", {"sim", "mappings"}},
      {"kernels", {"sim", "kernels"}},
      {"workloads", {"sim", "mappings", "workloads"}},
      {"analysis", {"sim", "mappings", "workloads", "analysis"}},
      {"cli", {"sim", "mappings", "workloads", "analysis", "kernels", "cli"}},
  };
  return allowed;
}

// A schedule decides what is stashed and recomputed; the engine, the grid, messages and the blocks that
// send them are below what it may see. Of mappings/ it needs only the names of the stash policies.
bool schedule_may_include(const std::string& header) {
  static const std::set<std::string> routing = {"sim/engine.h", "sim/grid.h", "sim/message.h",
                                                "sim/event_queue.h", "sim/storage_ledger.h"};
  if (routing.count(header)) return false;
  return !header.starts_with("mappings/") || header == "mappings/x_stash.h";
}

std::string top_folder(const std::string& path) {
  return path.substr(0, path.find('/'));
}

// Every broken rule, one line each ("file:line includes header: why").
std::vector<std::string> layering_violations(const std::vector<Include>& includes) {
  std::vector<std::string> found;
  for (const auto& inc : includes) {
    const std::string where = inc.from + ":" + std::to_string(inc.line) + " includes " + inc.header;
    const std::string from = top_folder(inc.from);
    const std::string to = top_folder(inc.header);
    const auto rule = allowed_folders().find(from);
    if (inc.header.find('/') == std::string::npos)
      found.push_back(where + ": project headers are named from the source root");
    else if (rule != allowed_folders().end() && allowed_folders().count(to) && !rule->second.count(to))
      found.push_back(where + ": " + from + "/ may not depend on " + to + "/");
    else if (inc.from.starts_with("workloads/schedules/") && !schedule_may_include(inc.header))
      found.push_back(where + ": a schedule knows nothing of how messages are routed");
  }
  return found;
}

std::vector<Include> includes_in(const fs::path& root) {
  static const std::regex quoted(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Include> includes;
  for (const auto& folder : allowed_folders()) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder.first)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      std::ifstream in(entry.path());
      std::string text;
      for (int line = 1; std::getline(in, text); ++line) {
        std::smatch m;
        if (std::regex_search(text, m, quoted))
          includes.push_back({fs::relative(entry.path(), root).generic_string(), line, m[1]});
      }
    }
  }
  return includes;
}

TEST(Layering, TheCheckCatchesEachKindOfBrokenRule) {
  const auto found = layering_violations({
      {"sim/engine.cpp", 3, "workloads/loss.h"},
      {"mappings/values.h", 4, "analysis/theory.h"},
      {"workloads/schedules/impl/mine.cpp", 5, "sim/grid.h"},
      {"workloads/schedules/impl/mine.cpp", 6, "mappings/weight_stationary_block.h"},
      {"kernels/kernel_base.h", 7, "workloads/data.h"},
      {"analysis/theory.cpp", 8, "theory.h"},
  });
  ASSERT_EQ(found.size(), 6u);
  EXPECT_EQ(found[0], "sim/engine.cpp:3 includes workloads/loss.h: sim/ may not depend on workloads/");
  EXPECT_EQ(found[2],
            "workloads/schedules/impl/mine.cpp:5 includes sim/grid.h: a schedule knows nothing of how "
            "messages are routed");
  EXPECT_EQ(found[5],
            "analysis/theory.cpp:8 includes theory.h: project headers are named from the source root");
}

TEST(Layering, TheCheckAcceptsWhatTheLayersAllow) {
  EXPECT_TRUE(layering_violations({
                                      {"sim/engine.cpp", 1, "sim/grid.h"},
                                      {"workloads/schedules/impl/backprop.cpp", 2, "mappings/x_stash.h"},
                                      {"workloads/schedules/impl/backprop.cpp", 3, "sim/config.h"},
                                      {"workloads/network_program.cpp", 4, "sim/engine.h"},
                                      {"cli/main.cpp", 5, "kernels/i_kernel.h"},
                                      {"analysis/sweep.cpp", 6, "workloads/training_run.h"},
                                  })
                  .empty());
}

TEST(Layering, TheSourceTreeKeepsItsLayers) {
  const auto includes = includes_in(SPATIALSIM_SOURCE_DIR);
  // Sanity: the scan found the tree (a wrong root would pass vacuously).
  ASSERT_GT(includes.size(), 300u);
  for (const auto& violation : layering_violations(includes)) ADD_FAILURE() << violation;
}

}  // namespace
}  // namespace spatialsim
