// A message template keeps what is fixed for a path and fills in what each wavefront's message changes.
#include <gtest/gtest.h>

#include "mappings/message_template.h"

namespace spatialsim::mappings {
namespace {

TEST(MessageTemplate, FillsInTheWavefrontsNumbersAndKeepsTheRest) {
  const MessageTemplate path{.base = {.src = 5,
                                      .dst = 9,
                                      .bytes = 777,  // replaced: a template's size is per token
                                      .kind = sim::MessageKind::psum,
                                      .phase = sim::Phase::forward,
                                      .depth = 3,
                                      .port = 2,
                                      .group = 4,
                                      .serial = 1,
                                      .slot = 6},
                             .bytes_per_token = 2 * 13};
  const sim::Message m = path.make(/*wf=*/11, /*tokens=*/7, sim::Phase::recompute, /*depth=*/40);
  EXPECT_EQ(m.src, 5u);
  EXPECT_EQ(m.dst, 9u);
  EXPECT_EQ(m.kind, sim::MessageKind::psum);
  EXPECT_EQ(m.port, 2u);
  EXPECT_EQ(m.group, 4u);
  EXPECT_EQ(m.slot, 6u);
  EXPECT_EQ(m.bytes, 2u * 13u * 7u);
  EXPECT_EQ(m.phase, sim::Phase::recompute);
  EXPECT_EQ(m.depth, 40u);
  EXPECT_EQ(m.serial, 11u);
  EXPECT_EQ(m.payload, sim::kNoPayload);
}

}  // namespace
}  // namespace spatialsim::mappings
