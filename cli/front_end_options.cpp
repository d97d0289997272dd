// The options the front end itself owns; defaults are in configs/default.ini.
#include "sim/option_spec.h"

namespace spatialsim::cli {
namespace {

const sim::OptionRegistration options{
    {"schedule", "list", "schedules to run on the same model, data and machine, comma-separated"},
    {"out", "path", "results file (HDF5), written under a temporary name and renamed when complete"},
    {"check", "bool",
     "verify the run against the dense reference (gradients; forward-gradient schedules: the d_k and the "
     "head); exit 1 if a check fails"},
    {"export_check", "bool", "also export weights, inputs, targets and gradients for an outside check"},
    {"trace", "bool",
     "record every message and every change of stashed storage into /runs/<schedule>/trace (memory "
     "grows with the messages: for small runs)"},
    {"chrome_trace", "path", "write a Chrome trace-event JSON file here; empty: none"},
};

}  // namespace
}  // namespace spatialsim::cli
