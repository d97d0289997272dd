#pragma once
// Moving layer l's outputs (held by its output tiles, one range J_j of features per column) to layer
// l+1's lane entries (one range I_i per row). Each overlap of a producer range and a consumer range is
// one transfer; with matching partitions there is exactly one transfer per row, from column j = i.
// The backward pass uses the same transfers in reverse (dX pieces back to the producer's output tiles).

#include <cstdint>
#include <vector>

#include "mappings/partition.h"

namespace spatialsim::mappings {

struct Transfer {
  std::uint32_t producer_col = 0;
  std::uint32_t consumer_row = 0;
  Range features;  // absolute feature indices of the overlap
};

struct RedistributionPlan {
  std::vector<Transfer> transfers;                 // ordered by producer column, then consumer row
  std::vector<std::uint32_t> pieces_per_row;       // incoming transfers per consumer row
  std::vector<std::uint32_t> pieces_per_col;       // transfers leaving each producer column
  std::vector<std::vector<std::uint32_t>> by_col;  // transfer indices per producer column
  std::vector<std::vector<std::uint32_t>> by_row;  // transfer indices per consumer row
};

inline RedistributionPlan plan_redistribution(const std::vector<Range>& producer_cols,
                                              const std::vector<Range>& consumer_rows) {
  RedistributionPlan plan;
  plan.pieces_per_row.assign(consumer_rows.size(), 0);
  plan.pieces_per_col.assign(producer_cols.size(), 0);
  plan.by_col.resize(producer_cols.size());
  plan.by_row.resize(consumer_rows.size());
  for (std::uint32_t j = 0; j < producer_cols.size(); ++j) {
    for (std::uint32_t i = 0; i < consumer_rows.size(); ++i) {
      const Range overlap = intersect(producer_cols[j], consumer_rows[i]);
      if (overlap.size == 0) continue;
      const auto id = static_cast<std::uint32_t>(plan.transfers.size());
      plan.transfers.push_back({j, i, overlap});
      ++plan.pieces_per_row[i];
      ++plan.pieces_per_col[j];
      plan.by_col[j].push_back(id);
      plan.by_row[i].push_back(id);
    }
  }
  return plan;
}

}  // namespace spatialsim::mappings
