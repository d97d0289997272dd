#pragma once
// Helpers for the analysis tests: a scratch directory per test and readers that go straight through the
// HDF5 C++ API, so round trips check the file format, not our own reader.
//
// Usage:
//   class MyTest : public ScratchDirTest {};
//   TEST_F(MyTest, X) { Hdf5File f(path("a.h5")); ...; H5::H5File in(path("a.h5"), H5F_ACC_RDONLY); }

#include <H5Cpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/matrix.h"

namespace spatialsim::analysis::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterized test names contain '/'
    }
    m_dir = std::filesystem::temp_directory_path() /
            ("spatialsim_test_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  std::vector<std::string> dir_entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(m_dir)) names.push_back(e.path().filename());
    return names;
  }

  std::filesystem::path m_dir;
};

inline std::string read_string_attribute(const H5::H5Object& object, const std::string& name) {
  const H5::Attribute attr = object.openAttribute(name);
  std::string value;
  attr.read(attr.getStrType(), value);
  return value;
}

template <class T>
T read_attribute(const H5::H5Object& object, const std::string& name, const H5::PredType& mem_type) {
  T value{};
  object.openAttribute(name).read(mem_type, &value);
  return value;
}

inline std::vector<std::string> read_string_array_attribute(const H5::H5Object& object,
                                                            const std::string& name) {
  const H5::Attribute attr = object.openAttribute(name);
  const H5::DataSpace space = attr.getSpace();
  std::vector<char*> raw(static_cast<std::size_t>(space.getSimpleExtentNpoints()));
  const H5::StrType type = attr.getStrType();
  attr.read(type, raw.data());
  std::vector<std::string> out(raw.begin(), raw.end());
  H5Dvlen_reclaim(type.getId(), space.getId(), H5P_DEFAULT, raw.data());
  return out;
}

inline std::vector<hsize_t> dims_of(const H5::DataSet& dataset) {
  const H5::DataSpace space = dataset.getSpace();
  std::vector<hsize_t> dims(static_cast<std::size_t>(space.getSimpleExtentNdims()));
  space.getSimpleExtentDims(dims.data());
  return dims;
}

template <class T>
std::vector<T> read_all(const H5::DataSet& dataset, const H5::PredType& mem_type) {
  std::vector<T> out(static_cast<std::size_t>(dataset.getSpace().getSimpleExtentNpoints()));
  dataset.read(out.data(), mem_type);
  return out;
}

inline std::vector<std::string> read_variable_strings(const H5::DataSet& dataset) {
  const H5::DataSpace space = dataset.getSpace();
  std::vector<char*> raw(static_cast<std::size_t>(space.getSimpleExtentNpoints()));
  const H5::StrType type = dataset.getStrType();
  if (!raw.empty()) dataset.read(raw.data(), type);
  std::vector<std::string> out(raw.begin(), raw.end());
  if (!raw.empty()) H5Dvlen_reclaim(type.getId(), space.getId(), H5P_DEFAULT, raw.data());
  return out;
}

inline std::vector<std::string> read_fixed_strings(const H5::DataSet& dataset) {
  const H5::StrType type = dataset.getStrType();
  const std::size_t width = type.getSize();
  const auto n = static_cast<std::size_t>(dataset.getSpace().getSimpleExtentNpoints());
  std::vector<char> raw(n * width);
  if (n > 0) dataset.read(raw.data(), type);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) {
    std::string s(raw.data() + i * width, width);
    s.resize(s.find('\0') == std::string::npos ? width : s.find('\0'));
    out.push_back(s);
  }
  return out;
}

// A 2-D fp64 dataset as a matrix, and any fp64 dataset as a flat vector.
inline sim::Matrix<double> read_matrix(const H5::H5File& file, const std::string& path) {
  const H5::DataSet ds = file.openDataSet(path);
  hsize_t dims[2] = {0, 0};
  ds.getSpace().getSimpleExtentDims(dims);
  sim::Matrix<double> m(static_cast<std::uint32_t>(dims[0]), static_cast<std::uint32_t>(dims[1]));
  ds.read(m.data(), H5::PredType::NATIVE_DOUBLE);
  return m;
}

inline std::vector<double> read_vector(const H5::H5File& file, const std::string& path) {
  const H5::DataSet ds = file.openDataSet(path);
  std::vector<double> v(static_cast<std::size_t>(ds.getSpace().getSimpleExtentNpoints()));
  ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
  return v;
}

}  // namespace spatialsim::analysis::testing
