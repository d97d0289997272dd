#include "workloads/reference/dense_reversible.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace spatialsim::workloads::reference {
namespace {

using Mat = sim::Matrix<double>;

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("dense reversible reference: " + what);
}

void check_layer(const DenseLayer& layer, std::uint32_t d_in, std::uint32_t d_out, const std::string& name) {
  if (layer.weights.rows() != d_in || (d_out != 0 && layer.weights.cols() != d_out))
    fail(name + " has shape " + std::to_string(layer.weights.rows()) + " x " +
         std::to_string(layer.weights.cols()) + ", expected " + std::to_string(d_in) + " x " +
         std::to_string(d_out));
  if (!layer.bias.empty() && layer.bias.size() != layer.weights.cols())
    fail(name + " has a bias of the wrong size");
}

void check_net(const DenseReversible& net, const Mat& x) {
  if (net.f.empty() || net.f.size() != net.g.size()) fail("needs L >= 1 blocks with one F and one G each");
  const std::uint32_t d = net.entry.weights.cols();
  if (d % 2 != 0) fail("the trunk width must be even");
  check_layer(net.entry, x.cols(), d, "the entry layer");
  for (std::size_t k = 0; k < net.f.size(); ++k) {
    const std::string block = std::to_string(k + 1);
    check_layer(net.f[k], d / 2, d / 2, std::string("F") + block);
    check_layer(net.g[k], d / 2, d / 2, std::string("G") + block);
  }
  check_layer(net.exit, d, 0, "the exit layer");
}

// z = x W + b, plain loops (no BLAS: the reference shares no code path with what it checks).
Mat affine(const Mat& x, const DenseLayer& layer) {
  Mat z(x.rows(), layer.weights.cols());
  for (std::uint32_t t = 0; t < x.rows(); ++t) {
    for (std::uint32_t i = 0; i < x.cols(); ++i) {
      const double xi = x(t, i);
      for (std::uint32_t j = 0; j < z.cols(); ++j) z(t, j) += xi * layer.weights(i, j);
    }
    if (!layer.bias.empty())
      for (std::uint32_t j = 0; j < z.cols(); ++j) z(t, j) += layer.bias[j];
  }
  return z;
}

Mat activate(const Mat& z, mappings::Activation a) {
  Mat out(z.rows(), z.cols());
  for (std::size_t k = 0; k < z.size(); ++k) out.data()[k] = mappings::activate(a, z.data()[k]);
  return out;
}

// dL/dz from dL/d act(z).
Mat through_activation(const Mat& upstream, const Mat& z, mappings::Activation a) {
  Mat out(z.rows(), z.cols());
  for (std::size_t k = 0; k < z.size(); ++k)
    out.data()[k] = upstream.data()[k] * mappings::activation_derivative(a, z.data()[k]);
  return out;
}

Mat plus(const Mat& a, const Mat& b) {
  Mat out = a;
  for (std::size_t k = 0; k < out.size(); ++k) out.data()[k] += b.data()[k];
  return out;
}

Mat columns(const Mat& m, std::uint32_t first, std::uint32_t count) {
  Mat out(m.rows(), count);
  for (std::uint32_t t = 0; t < m.rows(); ++t)
    for (std::uint32_t k = 0; k < count; ++k) out(t, k) = m(t, first + k);
  return out;
}

Mat side_by_side(const Mat& a, const Mat& b) {
  Mat out(a.rows(), a.cols() + b.cols());
  for (std::uint32_t t = 0; t < a.rows(); ++t) {
    for (std::uint32_t k = 0; k < a.cols(); ++k) out(t, k) = a(t, k);
    for (std::uint32_t k = 0; k < b.cols(); ++k) out(t, a.cols() + k) = b(t, k);
  }
  return out;
}

// Given dL/dz of the layer z = x W + b: adds dW = x^T dz and db = sum_t dz to (dw, db); returns dL/dx.
Mat backward_affine(const Mat& x, const Mat& dz, const DenseLayer& layer, Mat& dw, std::vector<double>& db) {
  dw = Mat(layer.weights.rows(), layer.weights.cols());
  for (std::uint32_t t = 0; t < x.rows(); ++t)
    for (std::uint32_t i = 0; i < x.cols(); ++i)
      for (std::uint32_t j = 0; j < dz.cols(); ++j) dw(i, j) += x(t, i) * dz(t, j);
  db.assign(layer.bias.size(), 0.0);
  if (!layer.bias.empty())
    for (std::uint32_t t = 0; t < dz.rows(); ++t)
      for (std::uint32_t j = 0; j < dz.cols(); ++j) db[j] += dz(t, j);
  Mat dx(x.rows(), x.cols());
  for (std::uint32_t t = 0; t < x.rows(); ++t)
    for (std::uint32_t i = 0; i < x.cols(); ++i) {
      double sum = 0.0;
      for (std::uint32_t j = 0; j < dz.cols(); ++j) sum += dz(t, j) * layer.weights(i, j);
      dx(t, i) = sum;
    }
  return dx;
}

}  // namespace

ReversibleTrace forward(const DenseReversible& net, const Mat& x) {
  check_net(net, x);
  const std::uint32_t h = net.entry.weights.cols() / 2;
  ReversibleTrace tr;
  tr.entry_pre_activation = affine(x, net.entry);
  const Mat entry_out = activate(tr.entry_pre_activation, net.activation);
  tr.a.push_back(columns(entry_out, 0, h));
  tr.b.push_back(columns(entry_out, h, h));
  for (std::size_t k = 0; k < net.f.size(); ++k) {
    tr.f_pre.push_back(affine(tr.b.back(), net.f[k]));
    tr.a.push_back(plus(tr.a.back(), activate(tr.f_pre.back(), net.activation)));
    tr.g_pre.push_back(affine(tr.a.back(), net.g[k]));
    tr.b.push_back(plus(tr.b.back(), activate(tr.g_pre.back(), net.activation)));
  }
  tr.outputs = affine(side_by_side(tr.a.back(), tr.b.back()), net.exit);
  return tr;
}

double loss(const DenseReversible& net, const Mat& x, const Mat& targets) {
  return loss_value(net.loss, forward(net, x).outputs, targets);
}

Gradients gradients(const DenseReversible& net, const Mat& x, const Mat& targets) {
  const ReversibleTrace tr = forward(net, x);
  const std::size_t L = net.f.size();
  const std::uint32_t h = net.entry.weights.cols() / 2;
  Gradients g;
  g.loss = loss_value(net.loss, tr.outputs, targets);
  g.weights.resize(2 * L + 2);
  g.bias.resize(2 * L + 2);

  const Mat dy = loss_gradient(net.loss, tr.outputs, targets);
  const Mat d_trunk =
      backward_affine(side_by_side(tr.a[L], tr.b[L]), dy, net.exit, g.weights[2 * L + 1], g.bias[2 * L + 1]);
  Mat da = columns(d_trunk, 0, h);  // dL/da_k, dL/db_k from everything downstream of block k
  Mat db = columns(d_trunk, h, h);
  for (std::size_t k = L; k-- > 0;) {
    // b_{k+1} = b_k + G(a_{k+1}): a_{k+1} also feeds G; b_k receives db unchanged.
    const Mat dz_g = through_activation(db, tr.g_pre[k], net.activation);
    da = plus(da, backward_affine(tr.a[k + 1], dz_g, net.g[k], g.weights[2 * k + 2], g.bias[2 * k + 2]));
    // a_{k+1} = a_k + F(b_k): a_k receives da unchanged, b_k also through F.
    const Mat dz_f = through_activation(da, tr.f_pre[k], net.activation);
    db = plus(db, backward_affine(tr.b[k], dz_f, net.f[k], g.weights[2 * k + 1], g.bias[2 * k + 1]));
  }
  const Mat dz_entry = through_activation(side_by_side(da, db), tr.entry_pre_activation, net.activation);
  backward_affine(x, dz_entry, net.entry, g.weights[0], g.bias[0]);
  return g;
}

std::vector<DenseLayer> layers_in_order(const DenseReversible& net) {
  std::vector<DenseLayer> out{net.entry};
  for (std::size_t k = 0; k < net.f.size(); ++k) {
    out.push_back(net.f[k]);
    out.push_back(net.g[k]);
  }
  out.push_back(net.exit);
  return out;
}

DenseReversible with_layers(const DenseReversible& net, std::vector<DenseLayer> layers) {
  if (layers.size() < 4 || layers.size() % 2 != 0) fail("needs entry, F and G of L >= 1 blocks, exit");
  DenseReversible out;
  out.activation = net.activation;
  out.loss = net.loss;
  out.entry = std::move(layers.front());
  out.exit = std::move(layers.back());
  for (std::size_t l = 1; l + 1 < layers.size(); l += 2) {
    out.f.push_back(std::move(layers[l]));
    out.g.push_back(std::move(layers[l + 1]));
  }
  return out;
}

}  // namespace spatialsim::workloads::reference
