#include "workloads/run_setup.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "mappings/partition.h"
#include "mappings/placement/pipeline_stages.h"
#include "sim/counters.h"
#include "sim/machine_limits.h"
#include "sim/option_spec.h"
#include "sim/text.h"
#include "workloads/optimizers/i_optimizer.h"

namespace spatialsim::workloads {
namespace {

const sim::OptionRegistration options{
    {"step.tokens", "tokens", "T: tokens per training step"},
    {"step.wavefront", "tokens", "T_g: tokens per wavefront; the step runs ceil(T / T_g) wavefronts"},
    {"step.interval", "cycles",
     "cycles between wavefront injections; 0 = the first block's latency for one wavefront"},
    {"mapping.block", "tiles",
     "RxC: every layer's block, r rows (splitting d_in) by c columns (splitting d_out)"},
    {"mapping.placement", "choice", "how the layers' blocks are laid out on the grid (spatialsim --list)"},
    {"mapping.stages", "stages",
     "p: pipeline stages, each a block that L/p consecutive layers share, time-multiplexed (MODEL.md "
     "section 5); 0 = fully spatial, one block per layer (p = L)"},
    {"mapping.grid", "tiles", "WxH grid, or auto: the placement's bounding box"},
    {"machine.topology", "choice", "mesh | torus"},
    {"machine.hop_latency", "cycles", "cycles per hop"},
    {"machine.link_bytes_per_cycle", "bytes/cycle",
     "link bandwidth; 0 = unlimited (latency-only, no contention)"},
    {"machine.flops_per_cycle", "flops/cycle", "per-tile compute rate; 0 = compute takes no time"},
    {"machine.sram_bytes", "bytes", "local memory per tile; 0 = unlimited"},
    {"machine.act_bytes", "bytes", "b_a: bytes per activation or gradient element on a link or in a stash"},
    {"machine.psum_bytes", "bytes", "b_p: bytes per partial-sum element on a link"},
    {"machine.weight_bytes", "bytes", "bytes per weight element in SRAM"},
    {"energy.preset", "choice", "the price list (spatialsim --list shows its prices and source)"},
    {"energy.hop_pj", "pJ/byte-hop", "override the preset's price per byte-hop (empty: preset)"},
    {"energy.sram_pj", "pJ/byte", "override the preset's price per SRAM byte (empty: preset)"},
    {"energy.flop_pj", "pJ/flop", "override the preset's price per flop (empty: preset)"},
    {"train.steps", "steps", "training steps; each ends with every tile updating its own slice (no traffic)"},
    {"train.optimizer", "choice", "applied by each tile to its own slice (spatialsim --list)"},
    {"train.lr", "1", "learning rate", sim::OptionReach::values_only},
    {"sim.seed", "1", "seed of weights, data and tangents", sim::OptionReach::values_only},
    {"sim.arith", "choice", "fp32 | fp64 (tiles compute real values) | none (counting only, same counts)"},
    {"sim.threads", "threads", "worker threads for sweeps and schedules; 0 = all cores"},
};

std::uint32_t positive_u32(const sim::Config& config, const std::string& key) {
  return static_cast<std::uint32_t>(config.get_whole_in(key, 1, 0xFFFFFFFFull));
}

std::string dims(std::uint32_t a, std::uint32_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

// At most 2^32 cycles between wavefronts, so that no cycle count can wrap (the hop latency's limit is
// sim::kMaxHopLatency, which the kernel command applies too).
constexpr std::uint64_t kMaxInterval = 0xFFFFFFFFull;

// Real prices are below a few hundred pJ per unit (an off-chip DRAM byte costs tens of pJ; the presets are
// all below 100), so 10^6 pJ (a microjoule per byte or flop) is beyond any machine while still far above
// every preset; and with counts below 2^62 (sim::kCountLimit) the three energies sum to at most about
// 1.4 x 10^25 pJ, so no energy can become inf or lose its meaning in a double.
constexpr double kMaxPricePj = 1e6;

double price_from_config(const sim::Config& config, const std::string& key) {
  const double price = config.get_nonnegative_double(key);
  if (!(price <= kMaxPricePj))
    config.fail(key,
                "must be at most 1e6 pJ (a microjoule per unit, beyond any real machine; the presets are "
                "below 100): give the price in pJ, or leave it empty for the preset's");
  return price;
}

// The host's memory in bytes (0 if the system does not say).
long double host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<long double>(pages) * static_cast<long double>(page) : 0;
}

// "960 GB", "48.6 kB": three digits in the largest unit that keeps one before the point.
std::string bytes_text(long double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  std::size_t u = 0;
  while (bytes >= 1000 && u + 1 < std::size(units)) {
    bytes /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3Lg %s", bytes, units[u]);
  return text;
}

// What to change when `blocks` blocks of r x c tiles (one per layer, or per pipeline stage when `stages`
// is set) do not fit a grid: a smaller block always; fewer blocks when there are several, by fewer layers
// or stages (mapping.stages: consecutive layers share a block). `by_tiles`: the blocks' own tiles are too
// many, so it can say how many of this size fit; otherwise the placement's bounding box is too large,
// which fewer blocks shrink by an amount the placement decides.
std::string fewer_blocks_fix(std::uint64_t blocks, std::uint64_t stages, std::uint32_t r, std::uint32_t c,
                             bool by_tiles) {
  const std::string smaller = "a smaller mapping.block";
  const std::uint64_t fit = sim::Grid::kMaxTiles / (std::uint64_t{r} * c);
  if (blocks <= 1 || fit == 0) return smaller;
  // "at most 5 blocks of 2x2 fit", only where the tiles decide it.
  const std::string how_many =
      by_tiles ? "at most " + sim::counted(fit, "block", "blocks") + " of " + dims(r, c) + " fit" : "";
  if (stages == 0)
    return "fewer layers, pipeline stages that share blocks (mapping.stages" +
           (how_many.empty() ? "" : "; " + how_many) + "), or " + smaller;
  return "fewer mapping.stages" + (how_many.empty() ? "" : " (" + how_many + ")") + " or " + smaller;
}

// An option the user set, and how many times it made a size larger than its default would.
struct Growth {
  std::string key;
  long double factor = 0;
};

// Of the model's options the user set, the one that grew `measure` of the model the most: each is put
// back to its default alone and the model rebuilt. {"", 0} when none is set. An error about a size names
// this option rather than whichever the user happened to set first.
Growth model_option_that_grew(const sim::Config& config, const ModelSpec& model,
                              long double (*measure)(const std::vector<DenseLayerShape>&)) {
  Growth best;
  const long double actual = measure(model.dense_layers());
  for (const char* key : {"model.widths", "model.inputs", "model.width", "model.depth", "model.outputs"}) {
    const std::string* default_value = config.default_raw(key);
    if (!config.is_explicit(key) || default_value == nullptr) continue;
    sim::Config with_default = config;
    with_default.set(key, *default_value, "default");
    long double smaller = 0;
    try {
      smaller = measure(model_from_config(with_default).dense_layers());
    } catch (const sim::ConfigError&) {
      continue;  // its default does not fit with the other options (a reversible model's width): no measure
    }
    if (smaller > 0 && actual / smaller > best.factor) best = {key, actual / smaller};
  }
  return best;
}

long double weight_count(const std::vector<DenseLayerShape>& layers) {
  long double n = 0;
  for (const DenseLayerShape& layer : layers)
    n += static_cast<long double>(layer.d_in) * static_cast<long double>(layer.d_out);
  return n;
}

// The main term of pass_bound's per-token sum, times the passes the schedules make (4 + L).
long double passes_times_weights(const std::vector<DenseLayerShape>& layers) {
  return (4 + static_cast<long double>(layers.size())) * weight_count(layers);
}

// How many times a whole-number option the user set exceeds its default (0 when not set or not a number).
long double growth_over_default(const sim::Config& config, const std::string& key, long double value) {
  const std::string* default_value = config.default_raw(key);
  if (!config.is_explicit(key) || default_value == nullptr) return 0;
  try {
    const long double base = std::stold(*default_value);
    return base > 0 ? value / base : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

// Arithmetic mode allocates every value it computes with. Sizes whose smallest part of that is beyond the
// host's memory are refused before anything is allocated (an allocation failing midway was reported as
// "internal error: std::bad_alloc"): the tiles' weight slices and gradient accumulators, the fp64 buffer a
// layer is drawn into, and the step's inputs and targets in fp64, with the teacher's matrices and hidden
// layer. Stashes, messages and the optimizer's state come on top; they depend on the schedule.
void check_values_fit_in_memory(const sim::Config& config, const RunSetup& s,
                                const std::vector<DenseLayerShape>& layers) {
  if (s.arithmetic == Arithmetic::none) return;
  const long double memory = host_memory_bytes();
  if (memory == 0) return;
  auto wide = [](std::uint64_t v) { return static_cast<long double>(v); };
  const long double value = s.arithmetic == Arithmetic::fp32 ? 4 : 8;
  long double parameters = 0, widest = 0;
  for (const DenseLayerShape& layer : layers) {
    const long double weights = wide(layer.d_in) * wide(layer.d_out);
    parameters += weights + wide(layer.d_out);
    widest = std::max(widest, weights);
  }
  const long double model = 2 * value * parameters + 8 * widest;
  const long double d_in = wide(s.model.inputs()), d_out = wide(s.model.outputs()), T = wide(s.tokens);
  const long double data = 8 * T * (d_in + d_out);
  const long double teacher =
      s.data.task == Task::teacher ? 8 * wide(s.data.teacher_width) * (d_in + d_out + T) : 0;
  const long double needed = model + data + teacher;
  if (needed <= memory) return;
  // Name the largest part, and of the model's options the one that grew it the most.
  std::string key = "step.tokens", fix = "fewer step.tokens";
  if (teacher >= model && teacher >= data) {
    key = "data.teacher_width";
    fix = "a narrower teacher";
  } else if (model >= data) {
    const Growth grew = model_option_that_grew(config, s.model, weight_count);
    key = grew.key.empty() ? "model.width" : grew.key;
    fix = "narrower or fewer layers";
  }
  config.fail(key, "makes this run's values too large for this machine: in " +
                       std::string(name(s.arithmetic)) + " they need at least " + bytes_text(needed) +
                       " (the tiles' weights and gradients " + bytes_text(model) + ", the step's data " +
                       bytes_text(data + teacher) + "), and it has " + bytes_text(memory) + "; give " + fix +
                       ", or sim.arith=none to count without values");
}

}  // namespace

std::uint32_t threads_from_config(const sim::Config& config) {
  return static_cast<std::uint32_t>(config.get_whole_in("sim.threads", 0, kMaxThreads, "0 = all cores"));
}

bool run_reads(const std::string& key) {
  const std::string section = key.substr(0, key.find('.'));
  if (section.size() == key.size()) return true;  // no section: out, schedule, check, ...
  return section != "sweep" && section != "compare" && section != "kernel" && section != "crossover" &&
         section != "theory";
}

RunSetup setup_from_config(const sim::Config& config) {
  RunSetup s;
  s.model = model_from_config(config);
  s.data = data_from_config(config);
  s.tokens = positive_u32(config, "step.tokens");
  s.tokens_per_wavefront = positive_u32(config, "step.wavefront");
  if (s.tokens_per_wavefront > s.tokens)
    config.fail("step.wavefront", "is larger than step.tokens = " + std::to_string(s.tokens) +
                                      "; a wavefront holds at most the step's tokens");
  s.steps = positive_u32(config, "train.steps");
  s.optimizer = config.get_choice("train.optimizer", OptimizerRegistry::names());
  s.learning_rate = config.get_nonnegative_double("train.lr");

  // Machine.
  s.topology = sim::topology_from_config(config);
  s.timing.hop_latency = sim::hop_latency_from_config(config);
  s.timing.link_bytes_per_cycle = config.get_uint("machine.link_bytes_per_cycle");
  s.timing.flops_per_cycle = config.get_uint("machine.flops_per_cycle");
  s.timing.sram_bytes_per_tile = config.get_uint("machine.sram_bytes");
  s.bytes.activation = positive_u32(config, "machine.act_bytes");
  s.bytes.partial_sum = positive_u32(config, "machine.psum_bytes");
  s.bytes.weight = positive_u32(config, "machine.weight_bytes");

  // Energy prices: the preset, then any explicit override.
  std::vector<std::string> presets;
  for (const auto& p : sim::energy_presets()) presets.push_back(p.name);
  s.prices = sim::energy_preset(config.get_choice("energy.preset", presets));
  if (!config.raw("energy.hop_pj").empty()) s.prices.hop_pj = price_from_config(config, "energy.hop_pj");
  if (!config.raw("energy.sram_pj").empty()) s.prices.sram_pj = price_from_config(config, "energy.sram_pj");
  if (!config.raw("energy.flop_pj").empty()) s.prices.flop_pj = price_from_config(config, "energy.flop_pj");

  s.arithmetic = arithmetic_from_config(config);
  if (s.learning_rate > largest_learning_rate(s.arithmetic)) {  // fp32 only: lr is a finite double
    char largest[32];
    std::snprintf(largest, sizeof largest, "%.6g", largest_learning_rate(s.arithmetic));
    config.fail("train.lr", "is beyond the largest " + std::string(name(s.arithmetic)) + " number (" +
                                largest +
                                "), which the tiles update their weights in; give a smaller rate or "
                                "sim.arith=fp64");
  }
  // A softmax over one class is 1 whatever its logit (counting mode computes no loss and draws no data).
  if (s.arithmetic != Arithmetic::none && s.model.outputs() < 2) {
    const std::string fix = "give at least 2 outputs (model.outputs, or the last of model.widths) or ";
    if (s.model.loss == Loss::cross_entropy)
      config.fail("model.loss", "is 0 whatever the weights with one output (a softmax over one class); " +
                                    fix + "model.loss=mse");
    if (s.data.task == Task::mixture)
      config.fail("data.task",
                  "draws one class per output, and with one output every token is of the same "
                  "class; " +
                      fix + "data.task=teacher");
  }
  s.seed = config.get_uint("sim.seed");
  s.threads = threads_from_config(config);

  const std::vector<DenseLayerShape> layers = s.model.dense_layers();
  check_values_fit_in_memory(config, s, layers);

  // Blocks: every dense layer (a reversible model's F and G included) gets the same r x c block, in
  // placement order; it must fit the layer (no silent shrinking).
  const auto [r, c] = config.get_dims("mapping.block");
  for (std::uint32_t l = 0; l < layers.size(); ++l) {
    const std::uint32_t d_in = layers[l].d_in;
    const std::uint32_t d_out = layers[l].d_out;
    if (r > d_in || c > d_out) {
      // The block that fits every layer, not just this one (following a hint to fail on the next layer).
      std::uint32_t rows = r, cols = c;
      for (const DenseLayerShape& layer : layers) {
        rows = std::min(rows, layer.d_in);
        cols = std::min(cols, layer.d_out);
      }
      config.fail("mapping.block", "does not fit layer " + std::to_string(l) + " (d_in = " +
                                       std::to_string(d_in) + ", d_out = " + std::to_string(d_out) +
                                       "): rows must be <= d_in and columns <= d_out for every layer; give "
                                       "a block of at most " +
                                       dims(rows, cols));
    }
  }
  s.placement_name = config.get_choice("mapping.placement", mappings::PlacementRegistry::names());
  const auto layer_count = static_cast<std::uint32_t>(layers.size());
  const std::uint64_t stages = config.get_uint("mapping.stages");
  if (stages > layer_count)
    config.fail("mapping.stages", "is more than the model's " + std::to_string(layer_count) +
                                      " dense layers (a stage holds at least one layer); give at most " +
                                      std::to_string(layer_count) + ", or 0 for one block per layer");
  // Each block holds its own tiles, so more blocks' tiles than a grid may have cannot be placed: refused
  // before placing, whose time and memory grow with the tiles (100000 layers of 64x64 blocks took minutes).
  const std::uint64_t block_count = stages == 0 ? layer_count : stages;
  const std::uint64_t block_tiles = std::uint64_t{r} * c;  // < 2^64; block_count * block_tiles may not be
  if (block_tiles > sim::Grid::kMaxTiles / block_count)
    config.fail("mapping.grid", "would need at least " + sim::counted(block_count, "block", "blocks") +
                                    " of " + dims(r, c) + " tiles, more than the " +
                                    std::to_string(sim::Grid::kMaxTiles) + " a grid may have; give " +
                                    fewer_blocks_fix(block_count, stages, r, c, /*by_tiles=*/true));
  const auto strategy = mappings::PlacementRegistry::create(s.placement_name, config);
  if (stages == 0) {
    s.placement = strategy->place(std::vector<mappings::BlockShape>(layer_count, mappings::BlockShape{r, c}));
  } else {
    const auto p = static_cast<std::uint32_t>(stages);
    s.placement =
        mappings::share_stages(strategy->place(std::vector<mappings::BlockShape>(p, {r, c})), layer_count);
  }

  const auto [w, h] =
      config.get_dims("mapping.grid", /*allow_auto=*/true, sim::Config::DimsNames::width_by_height);
  if (w == 0) {
    s.grid_width = s.placement.width;
    s.grid_height = s.placement.height;
    if (std::uint64_t{s.grid_width} * s.grid_height > sim::Grid::kMaxTiles)
      config.fail("mapping.grid",
                  "would be the placement's " + dims(s.grid_width, s.grid_height) + " tiles, more than the " +
                      std::to_string(sim::Grid::kMaxTiles) + " a grid may have; give " +
                      fewer_blocks_fix(stages == 0 ? layer_count : stages, stages, r, c, /*by_tiles=*/false));
  } else {
    if (const std::string why = sim::grid_size_problem(w, h); !why.empty()) config.fail("mapping.grid", why);
    if (w < s.placement.width || h < s.placement.height) {
      config.fail("mapping.grid",
                  "is too small: the " + s.placement_name + " placement of this model needs at least " +
                      dims(s.placement.width, s.placement.height) + " tiles; give a larger grid or auto");
    }
    s.grid_width = w;
    s.grid_height = h;
  }

  // Injection interval: the first block's latency for one wavefront (MODEL.md section 6): its hops, the
  // serialization of one lane message when links are finite, and one tile's compute time: for each layer
  // the block holds, which with pipeline stages is every layer of the first stage (the longest).
  s.injection_interval = config.get_whole_in("step.interval", 0, kMaxInterval,
                                             "cycles; 0 = the first block's latency for one wavefront");
  if (s.injection_interval == 0) {
    const std::uint32_t r0 = s.placement.blocks[0].rows;
    const std::uint32_t c0 = s.placement.blocks[0].cols;
    sim::Cycle interval = s.timing.hop_latency * (r0 + c0 - 1);
    const std::uint64_t d_in_slice = (layers[0].d_in + r0 - 1) / r0;
    if (s.timing.link_bytes_per_cycle != 0) {
      const std::uint64_t lane_bytes =
          std::uint64_t{s.bytes.activation} * s.tokens_per_wavefront * d_in_slice;
      interval += sim::ceil_div(lane_bytes, s.timing.link_bytes_per_cycle);
    }
    if (s.timing.flops_per_cycle != 0) {
      // The layers the first block holds: layer 0 alone, or the first stage's, which share its block.
      for (std::uint32_t l = 0; l < layer_count && s.placement.blocks[l] == s.placement.blocks[0]; ++l) {
        interval += s.timing.compute_cycles(mappings::busiest_tile_product_flops(
            s.tokens_per_wavefront, layers[l].d_in, layers[l].d_out, r0, c0));
      }
    }
    s.injection_interval = interval;
  }
  // The exact schedules make at most 4 + L passes: forward, the backward's three products, and up to L
  // recomputations (revolve with one slot).
  if (pass_bound(s) * (4 + static_cast<long double>(layers.size())) >= sim::kCountLimit) {
    // Name the option the user set that grew the bound the most over its default: a model option (its
    // layers' weights times the passes), the tokens, the steps or the grid (the longest route).
    Growth grew = model_option_that_grew(config, s.model, passes_times_weights);
    const std::pair<const char*, long double> others[] = {
        {"step.tokens", growth_over_default(config, "step.tokens", static_cast<long double>(s.tokens))},
        {"train.steps", growth_over_default(config, "train.steps", static_cast<long double>(s.steps))},
        {"mapping.grid", config.is_explicit("mapping.grid")
                             ? (static_cast<long double>(s.grid_width) + s.grid_height + 2) /
                                   (static_cast<long double>(s.placement.width) + s.placement.height + 2)
                             : 0}};
    for (const auto& [k, factor] : others)
      if (factor > grew.factor) grew = {k, factor};
    const std::string key = grew.key.empty() ? "step.tokens" : grew.key;
    config.fail(key,
                "makes this run too large to count: with step.tokens = " + std::to_string(s.tokens) +
                    ", train.steps = " + std::to_string(s.steps) +
                    " and these layer widths a count could pass 2^62 and wrap; give fewer tokens or steps, "
                    "narrower layers or a smaller grid");
  }
  return s;
}

long double pass_bound(const RunSetup& s) {
  // In long double (64-bit mantissa): close enough to compare with 2^62, and no overflow for any size.
  auto wide = [](std::uint64_t v) { return static_cast<long double>(v); };
  // Per token, one pass over layer l on an r x c block: 2 d_in d_out flops; at most d_in d_out weights
  // read; d_in and d_out elements moved along the block (lanes, partial sums, rebroadcasts: c or r hops),
  // stashed on up to c tiles, and carried between blocks or from the host (at most w + h + 2 hops).
  const long double bytes = wide(std::max({s.bytes.activation, s.bytes.partial_sum, s.bytes.weight}));
  const long double route = wide(s.grid_width) + wide(s.grid_height) + 2;
  const std::vector<DenseLayerShape> layers = s.model.dense_layers();
  long double per_token = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const long double d_in = wide(layers[l].d_in), d_out = wide(layers[l].d_out);
    const long double block = wide(s.placement.blocks[l].rows) + wide(s.placement.blocks[l].cols);
    per_token += d_in * d_out * (2 + bytes) + 2 * bytes * (d_in + d_out) * (block + route);
  }
  return wide(s.steps) * wide(s.tokens) * per_token;
}

}  // namespace spatialsim::workloads
