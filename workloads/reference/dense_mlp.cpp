#include "workloads/reference/dense_mlp.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace spatialsim::workloads::reference {

namespace {

using Mat = sim::Matrix<double>;

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("dense reference: " + what);
}

void check_net(const DenseMlp& net, const Mat& x) {
  if (net.layers.empty()) fail("the net has no layers");
  std::uint32_t width = x.cols();
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const auto& layer = net.layers[l];
    if (layer.weights.rows() != width) {
      fail("layer " + std::to_string(l) + " expects " + std::to_string(layer.weights.rows()) +
           " inputs but receives " + std::to_string(width));
    }
    if (!layer.bias.empty() && layer.bias.size() != layer.weights.cols()) {
      fail("layer " + std::to_string(l) + " has " + std::to_string(layer.bias.size()) + " biases for " +
           std::to_string(layer.weights.cols()) + " outputs");
    }
    width = layer.weights.cols();
  }
}

void check_same_shape(const Gradients& a, const Gradients& b) {
  if (a.weights.size() != b.weights.size() || a.bias.size() != b.bias.size() ||
      a.weights.size() != a.bias.size()) {
    fail("parameter sets have different layer counts");
  }
  for (std::size_t l = 0; l < a.weights.size(); ++l) {
    if (a.weights[l].rows() != b.weights[l].rows() || a.weights[l].cols() != b.weights[l].cols() ||
        a.bias[l].size() != b.bias[l].size()) {
      fail("parameter sets differ in shape at layer " + std::to_string(l));
    }
  }
}

// a (m x k) times b (k x n), plain triple loop in i-k-j order (row-major friendly). No BLAS on purpose:
// the reference must not share a code path with anything it checks.
Mat multiply(const Mat& a, const Mat& b) {
  Mat c(a.rows(), b.cols());
  for (std::uint32_t i = 0; i < a.rows(); ++i) {
    double* ci = c.row(i);
    for (std::uint32_t k = 0; k < a.cols(); ++k) {
      const double aik = a(i, k);
      const double* bk = b.row(k);
      for (std::uint32_t j = 0; j < b.cols(); ++j) ci[j] += aik * bk[j];
    }
  }
  return c;
}

// a^T (k x m, given a as m x k) times b (m x n): the weight gradient x^T delta.
Mat multiply_transposed_left(const Mat& a, const Mat& b) {
  Mat c(a.cols(), b.cols());
  for (std::uint32_t t = 0; t < a.rows(); ++t) {
    const double* at = a.row(t);
    const double* bt = b.row(t);
    for (std::uint32_t i = 0; i < a.cols(); ++i) {
      double* ci = c.row(i);
      for (std::uint32_t j = 0; j < b.cols(); ++j) ci[j] += at[i] * bt[j];
    }
  }
  return c;
}

// a (m x n) times b^T (n x k, given b as k x n): the input gradient delta W^T.
Mat multiply_transposed_right(const Mat& a, const Mat& b) {
  Mat c(a.rows(), b.rows());
  for (std::uint32_t i = 0; i < a.rows(); ++i) {
    const double* ai = a.row(i);
    for (std::uint32_t k = 0; k < b.rows(); ++k) {
      const double* bk = b.row(k);
      double sum = 0.0;
      for (std::uint32_t j = 0; j < a.cols(); ++j) sum += ai[j] * bk[j];
      c(i, k) = sum;
    }
  }
  return c;
}

void add_bias_rows(Mat& z, const std::vector<double>& bias) {
  if (bias.empty()) return;
  for (std::uint32_t t = 0; t < z.rows(); ++t) {
    double* zt = z.row(t);
    for (std::uint32_t j = 0; j < z.cols(); ++j) zt[j] += bias[j];
  }
}

}  // namespace

ForwardTrace forward(const DenseMlp& net, const Mat& x) {
  check_net(net, x);
  ForwardTrace trace;
  trace.inputs.reserve(net.layers.size());
  trace.pre_activations.reserve(net.layers.size());
  Mat current = x;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    const auto& layer = net.layers[l];
    Mat z = multiply(current, layer.weights);
    add_bias_rows(z, layer.bias);
    trace.inputs.push_back(std::move(current));
    const bool last = l + 1 == net.layers.size();
    if (last) {
      // The last layer is linear: its z is the output the loss sees.
      trace.outputs = z;
    } else {
      current = Mat(z.rows(), z.cols());
      for (std::size_t i = 0; i < z.size(); ++i)
        current.data()[i] = mappings::activate(net.activation, z.data()[i]);
    }
    trace.pre_activations.push_back(std::move(z));
  }
  return trace;
}

double loss(const DenseMlp& net, const Mat& x, const Mat& targets) {
  return loss_value(net.loss, forward(net, x).outputs, targets);
}

Gradients gradients(const DenseMlp& net, const Mat& x, const Mat& targets) {
  const ForwardTrace trace = forward(net, x);
  const std::size_t layer_count = net.layers.size();
  Gradients g;
  g.loss = loss_value(net.loss, trace.outputs, targets);
  g.weights.resize(layer_count);
  g.bias.resize(layer_count);

  // delta = dL/dz_l, starting from dL/dY (the last layer is linear, so dL/dz_{L-1} = dL/dY).
  Mat delta = loss_gradient(net.loss, trace.outputs, targets);
  for (std::size_t l = layer_count; l-- > 0;) {
    const auto& layer = net.layers[l];
    g.weights[l] = multiply_transposed_left(trace.inputs[l], delta);
    if (!layer.bias.empty()) {
      g.bias[l].assign(delta.cols(), 0.0);
      for (std::uint32_t t = 0; t < delta.rows(); ++t) {
        for (std::uint32_t j = 0; j < delta.cols(); ++j) g.bias[l][j] += delta(t, j);
      }
    }
    if (l == 0) break;  // dL/dx itself is not a parameter gradient
    // dL/dx_l = delta W_l^T, then through the activation that produced x_l from z_{l-1}.
    Mat dx = multiply_transposed_right(delta, layer.weights);
    const Mat& z_prev = trace.pre_activations[l - 1];
    for (std::size_t i = 0; i < dx.size(); ++i) {
      dx.data()[i] *= mappings::activation_derivative(net.activation, z_prev.data()[i]);
    }
    delta = std::move(dx);
  }
  return g;
}

double directional_derivative(const DenseMlp& net, const Mat& x, const Mat& targets,
                              const Gradients& direction) {
  check_same_shape(zeros_like(net), direction);
  const ForwardTrace trace = forward(net, x);
  // Tangent of the current layer's input; the data does not depend on the parameters, so dx_0 = 0.
  Mat tangent(x.rows(), x.cols());
  Mat dz;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    // dz_l = dx_l W_l + x_l V_l + dB_l (product rule on x_l W_l + b_l).
    dz = multiply(tangent, net.layers[l].weights);
    const Mat x_v = multiply(trace.inputs[l], direction.weights[l]);
    for (std::size_t i = 0; i < dz.size(); ++i) dz.data()[i] += x_v.data()[i];
    add_bias_rows(dz, direction.bias[l]);
    if (l + 1 == net.layers.size()) break;  // the last layer is linear: dY = dz
    const Mat& z = trace.pre_activations[l];
    tangent = Mat(dz.rows(), dz.cols());
    for (std::size_t i = 0; i < dz.size(); ++i) {
      tangent.data()[i] = mappings::activation_derivative(net.activation, z.data()[i]) * dz.data()[i];
    }
  }
  const Mat dl_dy = loss_gradient(net.loss, trace.outputs, targets);
  double sum = 0.0;
  for (std::size_t i = 0; i < dz.size(); ++i) sum += dl_dy.data()[i] * dz.data()[i];
  return sum;
}

Gradients zeros_like(const DenseMlp& net) {
  Gradients z;
  for (const auto& layer : net.layers) {
    z.weights.emplace_back(layer.weights.rows(), layer.weights.cols());
    z.bias.emplace_back(layer.bias.size(), 0.0);
  }
  return z;
}

double dot(const Gradients& a, const Gradients& b) {
  check_same_shape(a, b);
  double sum = 0.0;
  for (std::size_t l = 0; l < a.weights.size(); ++l) {
    for (std::size_t i = 0; i < a.weights[l].size(); ++i)
      sum += a.weights[l].data()[i] * b.weights[l].data()[i];
    for (std::size_t j = 0; j < a.bias[l].size(); ++j) sum += a.bias[l][j] * b.bias[l][j];
  }
  return sum;
}

}  // namespace spatialsim::workloads::reference
