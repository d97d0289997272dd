#pragma once
// Writes what an independent autograd needs to verify a run (MODEL.md section 8): under
// `/runs/<schedule>/check`, the initial parameters of every layer, the first step's inputs and targets,
// its loss, the network's outputs, the gradients assembled from the tiles after that step, before the
// update, and the parameters after that update. Layout: docs/hdf5.md, "Check export". A reversible model's
// layers are exported in the order entry, F1, G1, ..., exit (named by the `layer_names` attribute), with its
// reconstruction drift.
//
// Usage:
//   write_check_export(file, setup, result);   // after write_results(), before file.commit()

#include "analysis/hdf5_file.h"
#include "workloads/run_setup.h"
#include "workloads/schedules/i_schedule.h"
#include "workloads/training_run.h"

namespace spatialsim::analysis {

// Contract: `result` ran in an arithmetic mode; throws std::invalid_argument otherwise.
void write_check_export(Hdf5File& file, const workloads::RunSetup& setup, const workloads::RunResult& result);

// Forward-gradient schedules also write what an independent JVP needs: `tangent_scalars` (the K values
// d_k the tiles formed in the first step) and every tangent v_k of the trunk, regenerated
// (`tangents/<k>/layers/<l>/weights`, `bias`), with attributes `tangent_kind`, `tangent_seed`,
// `trunk_layers`. Call after write_check_export.
void write_tangent_export(Hdf5File& file, const workloads::RunSetup& setup,
                          const workloads::RunResult& result, const workloads::ForwardGradientPlan& plan);

}  // namespace spatialsim::analysis
