#pragma once
// How far the backward pass's reconstructed trunk values are from the forward pass's (MODEL.md section 8:
// the reversible tolerance is looser because of this). Measured, never corrected: the backward pass uses the
// reconstructed values, drift included.

namespace spatialsim::workloads::reversible {

struct ReconstructionDrift {
  double max_abs_error = 0;  // max |x_reconstructed - x_forward| over a_0..a_{L-1}, b_0..b_{L-1}, all tokens
  double max_abs_value = 0;  // max |x_forward| over the same elements, for scale
  double relative() const { return max_abs_value == 0 ? max_abs_error : max_abs_error / max_abs_value; }
};

}  // namespace spatialsim::workloads::reversible
