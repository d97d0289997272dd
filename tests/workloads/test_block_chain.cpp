// What the two chain programs share (block_chain.h, host_injection.h, loss_stage_setup): the blocks' specs
// for an mlp and for a reversible model, their parameters round-tripping through the tiles, the
// wavefront timers, and the loss stage on the last block's output tiles.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/workloads/network_test_support.h"
#include "workloads/block_chain.h"
#include "workloads/chain_ports.h"
#include "workloads/host_injection.h"
#include "workloads/loss_stage.h"
#include "workloads/parameters.h"

namespace spatialsim::workloads {
namespace {

using testing_support::config_with;

struct Chain {
  RunSetup run;
  NetworkSetup setup;
};

Chain chain_of(const std::vector<std::string>& overrides) {
  const RunSetup run = setup_from_config(config_with(overrides));
  return {run, NetworkSetup{run.model, run.placement, run.bytes, wavefront_sizes(7, 3), 5, true, run.seed}};
}

// Receives nothing: the blocks here are only built, loaded and read.
struct NoListener : mappings::BlockListener<double> {
  void on_forward_output(sim::Engine&, std::uint32_t, std::uint32_t, std::uint32_t,
                         mappings::ValuesPtr<double>, std::uint32_t, sim::Cycle, sim::Phase) override {}
  void on_backward_output(sim::Engine&, std::uint32_t, std::uint32_t, std::uint32_t,
                          mappings::ValuesPtr<double>, std::uint32_t, sim::Cycle) override {}
};

TEST(BlockChain, AnMlpGetsOneSpecPerLayerTheLastLinearTheFirstWithoutInputGradient) {
  const Chain c = chain_of({"--model.widths=9,14,6,4", "--mapping.block=2x3", "--model.bias=false"});
  const std::vector<mappings::BlockSpec> specs = block_specs(c.setup);
  ASSERT_EQ(specs.size(), 3u);
  for (std::uint32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(specs[l].layer, l);
    EXPECT_EQ(specs[l].d_in, c.setup.model.widths[l]);
    EXPECT_EQ(specs[l].d_out, c.setup.model.widths[l + 1]);
    EXPECT_EQ(specs[l].apply_activation, l < 2);
    EXPECT_EQ(specs[l].computes_input_gradient, l > 0);
    EXPECT_FALSE(specs[l].has_bias);
    EXPECT_EQ(specs[l].tangents, 0u);
    EXPECT_EQ(specs[l].wavefront_tokens, c.setup.wavefront_tokens);
  }
}

TEST(BlockChain, AReversibleModelGetsItsDenseLayersInCouplingOrder) {
  const Chain c = chain_of({"--model.kind=reversible", "--model.width=8", "--model.depth=2",
                            "--model.inputs=5", "--model.outputs=3", "--mapping.block=2x2"});
  const std::vector<mappings::BlockSpec> specs = block_specs(c.setup);
  const std::vector<DenseLayerShape> shapes = c.setup.model.dense_layers();
  ASSERT_EQ(specs.size(), shapes.size());  // entry, F1, G1, F2, G2, exit
  for (std::uint32_t l = 0; l < specs.size(); ++l) {
    EXPECT_EQ(specs[l].d_in, shapes[l].d_in);
    EXPECT_EQ(specs[l].d_out, shapes[l].d_out);
    EXPECT_EQ(specs[l].apply_activation, l + 1 < specs.size()) << l;  // the exit layer is linear
    EXPECT_EQ(specs[l].computes_input_gradient, l > 0) << l;          // nothing needs dX of the entry
  }
}

TEST(BlockChain, RefusesAPlacementWithoutOneBlockPerLayer) {
  Chain c = chain_of({"--model.widths=9,14,6"});
  c.setup.placement.blocks.pop_back();
  EXPECT_THROW((void)block_specs(c.setup), std::logic_error);
}

TEST(BlockChain, ParametersLoadedOntoTheTilesComeBackAndGradientsStartAtZero) {
  const Chain c = chain_of({"--model.widths=9,14,6", "--mapping.block=2x3"});
  const sim::Grid grid(c.run.grid_width, c.run.grid_height, c.run.topology);
  NoListener listener;
  BlockChain<double> blocks = make_blocks<double>(block_specs(c.setup), grid, listener);
  const NetworkParameters w = init_parameters(c.setup.model, 3);
  load_parameters(blocks, w);
  const NetworkParameters back = collect_parameters(blocks);
  const NetworkParameters g = collect_gradients(blocks);
  ASSERT_EQ(back.size(), w.size());
  for (std::size_t l = 0; l < w.size(); ++l) {
    EXPECT_EQ(back[l].weights, w[l].weights);
    EXPECT_EQ(back[l].bias, w[l].bias);
    for (double v : g[l].weights.values()) EXPECT_EQ(v, 0.0);
  }
}

// Records the timers it is given.
struct TimerLog : sim::MessageHandler {
  std::vector<std::pair<sim::Cycle, sim::Message>> got;
  void on_message(sim::Engine& engine, const sim::Message& m) override { got.emplace_back(engine.now(), m); }
};

TEST(HostInjection, PostsOneInjectTimerPerWavefrontAnIntervalApart) {
  const Chain c = chain_of({"--model.widths=9,14,6", "--mapping.block=2x3"});
  const sim::Grid grid(c.run.grid_width, c.run.grid_height, c.run.topology);
  NoListener listener;
  const BlockChain<double> blocks = make_blocks<double>(block_specs(c.setup), grid, listener);
  const HostInjection injection(c.setup, 1);
  EXPECT_EQ(injection.total_tokens(), 7u);
  sim::Engine engine(grid, c.run.timing);
  TimerLog log;
  engine.set_handler(&log);
  injection.schedule(engine, *blocks.front());
  engine.run();
  ASSERT_EQ(log.got.size(), 3u);  // 7 tokens in wavefronts of 3, 3, 1
  for (std::uint32_t wf = 0; wf < 3; ++wf) {
    EXPECT_EQ(log.got[wf].first, 5u * wf);
    EXPECT_EQ(log.got[wf].second.port, port_id(ChainPort::inject));
    EXPECT_EQ(log.got[wf].second.serial, wf);
    EXPECT_EQ(log.got[wf].second.dst, blocks.front()->lane_entry_tile(0));
  }
  EXPECT_EQ(engine.counters().byte_hops.total(), 0u);  // timers, not traffic
}

TEST(LossStageSetup, SitsOnTheLastBlocksOutputTilesOnTheChainPorts) {
  const Chain c = chain_of({"--model.widths=9,14,6", "--mapping.block=2x3", "--model.loss=cross-entropy"});
  const sim::Grid grid(c.run.grid_width, c.run.grid_height, c.run.topology);
  NoListener listener;
  const BlockChain<double> blocks = make_blocks<double>(block_specs(c.setup), grid, listener);
  const auto& last = *blocks.back();
  const LossStageSetup ls = loss_stage_setup(c.setup, last);
  EXPECT_EQ(ls.loss, Loss::cross_entropy);
  EXPECT_EQ(ls.cols, last.col_ranges());
  ASSERT_EQ(ls.output_tiles.size(), last.spec().layout.cols);
  for (std::uint32_t j = 0; j < ls.output_tiles.size(); ++j)
    EXPECT_EQ(ls.output_tiles[j], last.output_tile(j));
  EXPECT_EQ(ls.total_tokens, 7u);
  EXPECT_EQ(ls.layer_tag, 1u);
  EXPECT_EQ(ls.reduce_port, port_id(ChainPort::loss_reduce));
  EXPECT_EQ(ls.broadcast_port, port_id(ChainPort::loss_broadcast));
  EXPECT_TRUE(ls.wants_gradient);
  EXPECT_EQ(ls.tangents, 0u);
}

}  // namespace
}  // namespace spatialsim::workloads
