// Toy entries registered in the test binary only: each one correct, or broken in one known way.
#include <cmath>
#include <stdexcept>

#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "toy.hpp"

using kc::Buffers;
using kc::Gate;
using kc::Why;

namespace {
kc::Entry scale_env(kc::Entry e) {
  return std::move(e).served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8);
}
kc::Entry rowsum_env(kc::Entry e) {
  return std::move(e)
      .served({{"rows", {1, 6}}, {"cols", {64, 256}}})
      .tile("cols", 64, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 8 + 3); });
}
// Sums a row in fp16, one rounding per add.
void rowsum_fp16(const Buffers& b) {
  int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  for (int64_t i = 0; i < rows; ++i) {
    float s = 0;
    for (int64_t j = 0; j < cols; ++j) s = kc::from_f16(kc::to_f16(s + b.in<float>("x")[i * cols + j]));
    b.out<float>("y")[i] = s;
  }
}
}  // namespace

KC_KERNEL("toy/scale/ok", cpu) { return scale_env(toy::scale()).launch(toy::scale_kernel); }

KC_KERNEL("toy/rowsum/ok", cpu) { return rowsum_env(toy::rowsum()).launch(toy::rowsum_kernel); }

// Drops NaN (fmaxf-like): gate 1 fails, and the spec says so.
static void scale_drops_nan(const Buffers& b) {
  toy::scale_kernel(b);
  float* y = b.out<float>("y");
  for (size_t i = 0; i < b.count("y"); ++i)
    if (std::isnan(y[i])) y[i] = 0;
}
KC_KERNEL("toy/known/still_fails", cpu) {
  return scale_env(toy::scale()).known(Gate::nonfinite, "NaN becomes 0").launch(scale_drops_nan);
}
KC_KERNEL("toy/known/fixed", cpu) {
  return scale_env(toy::scale()).known(Gate::nonfinite, "NaN becomes 0").launch(toy::scale_kernel);
}
KC_CONTROL("toy/control/red", cpu) {
  return scale_env(toy::scale()).control(Gate::nonfinite, Why::class_mismatch).launch(scale_drops_nan);
}
KC_CONTROL("toy/control/green", cpu) {
  return scale_env(toy::scale()).control(Gate::nonfinite, Why::class_mismatch).launch(toy::scale_kernel);
}

// Writes its outputs on its first call only.
KC_KERNEL("toy/first_run_only", cpu) {
  return scale_env(toy::scale()).launch([n = 0](const Buffers& b) mutable {
    if (n++ == 0) toy::scale_kernel(b);
  });
}
KC_KERNEL("toy/past_end", cpu) {
  return scale_env(toy::scale()).launch([](const Buffers& b) {
    toy::scale_kernel(b);
    b.out<float>("y")[b.count("y")] = 1;  // one element past the end: into the guard
  });
}
KC_KERNEL("toy/into_input", cpu) {
  return scale_env(toy::scale()).launch([](const Buffers& b) {
    toy::scale_kernel(b);
    const_cast<float*>(b.in<float>("x"))[0] = 7;  // after reading: outputs stay right
  });
}
// y = 2 x written over x (y shares x's memory): the harness restores x before every run, so each of
// gate 2's runs reads the case's x, not the previous run's y.
KC_KERNEL("toy/scale/in_place", cpu) {
  return scale_env(toy::scale()).in_place("y", "x").launch(toy::scale_kernel);
}
KC_KERNEL("toy/throws", cpu) {
  return scale_env(toy::scale()).launch([](const Buffers&) { throw std::runtime_error("simulated trap"); });
}

KC_KERNEL("toy/rowsum/fp16", cpu) { return rowsum_env(toy::rowsum()).launch(rowsum_fp16); }
KC_KERNEL("toy/rowsum/weak", cpu) { return rowsum_env(toy::rowsum(false)).launch(toy::rowsum_kernel); }
KC_KERNEL("toy/rowsum/weak_hidden", cpu) {
  return rowsum_env(toy::rowsum(false)).hidden("toy: margins only").launch(toy::rowsum_kernel);
}
// Loses the last input of a partial 64-column tile: right at whole tiles, wrong at the edges.
KC_KERNEL("toy/rowsum/tail", cpu) {
  return rowsum_env(toy::rowsum()).launch([](const Buffers& b) {
    int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
    int64_t used = cols % 64 ? cols - 1 : cols;
    for (int64_t i = 0; i < rows; ++i) b.out<float>("y")[i] = toy::lanes_sum(b.in<float>("x") + i * cols, used);
  });
}
KC_KERNEL("toy/rowsum/replace_ok", cpu) {
  return rowsum_env(toy::rowsum()).replaces("toy/rowsum/ok", toy::rowsum_kernel).launch(toy::rowsum_kernel);
}
KC_KERNEL("toy/rowsum/replace_ulp", cpu) {
  return rowsum_env(toy::rowsum())
      .replaces("toy/rowsum/ok", toy::rowsum_kernel)
      .launch([](const Buffers& b) {
        toy::rowsum_kernel(b);
        float* y = b.out<float>("y");
        y[0] = std::nextafter(y[0], INFINITY);
      });
}

// A launcher with two forms: past 128 columns the wide one, which loses a ragged row's last column.
// The fixed gate 3 shapes reach the wide form only at 256 columns (whole tiles), where it is right.
static void scale_wide_drops_tail(const Buffers& b) {
  toy::scale_kernel(b);
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  if (cols > 128 && cols % 64)
    for (int64_t r = 0; r < rows; ++r) b.out<float>("y")[r * cols + cols - 1] = 0;
}
static kc::Entry forms_env() {
  return toy::scale()
      .served({{"rows", {1, 5}}, {"cols", {16, 256}}})
      .tile("cols", 64, 8, 8)
      .launches({"toy/forms/narrow", "toy/forms/wide"});
}
static std::string forms_pick(const kc::Shape& s) { return s["cols"] > 128 ? "toy/forms/wide" : "toy/forms/narrow"; }
KC_KERNEL("toy/forms/unpicked", cpu) { return forms_env().launch(scale_wide_drops_tail); }
static const std::vector<std::string> forms = {"toy/forms/narrow", "toy/forms/wide"};
KC_KERNEL("toy/forms/picked", cpu) { return forms_env().picks(forms_pick).launch(scale_wide_drops_tail); }
KC_KERNEL("toy/forms/picked_ok", cpu) { return forms_env().picks(forms, forms_pick).launch(toy::scale_kernel); }
// Three forms, the middle one (65..128 columns) dropping NaN to 0: neither extreme shape (16 and 256
// columns) takes it, so only gates 1, 2 and 4 running every form see it.
static void scale_mid_drops_nan(const Buffers& b) {
  toy::scale_kernel(b);
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  if (cols > 64 && cols <= 128)
    for (int64_t i = 0; i < rows * cols; ++i)
      if (std::isnan(b.out<float>("y")[i])) b.out<float>("y")[i] = 0;
}
KC_KERNEL("toy/forms/mid_drops_nan", cpu) {
  return toy::scale()
      .served({{"rows", {1, 5}}, {"cols", {16, 256}}})
      .tile("cols", 64, 8, 8)
      .launches({"toy/forms3/narrow", "toy/forms3/mid", "toy/forms3/wide"})
      .picks([](const kc::Shape& s) {
        return std::string(s["cols"] <= 64 ? "toy/forms3/narrow" : s["cols"] <= 128 ? "toy/forms3/mid" : "toy/forms3/wide");
      })
      .launch(scale_mid_drops_nan);
}
// A form taken only below the served columns (at the tile's least, 8): gate 3 runs it, gates 1, 2 and
// 4 keep to the served ranges (a fill may need the served least) and do not.
KC_KERNEL("toy/forms/below_served", cpu) {
  return toy::scale()
      .served({{"rows", {1, 5}}, {"cols", {16, 256}}})
      .tile("cols", 64, 8, 8)
      .launches({"toy/forms4/tiny", "toy/forms4/main"})
      .picks([](const kc::Shape& s) { return std::string(s["cols"] < 16 ? "toy/forms4/tiny" : "toy/forms4/main"); })
      .launch(toy::scale_kernel);
}
// Picks a form its spec does not list: an error, never a pass.
KC_KERNEL("toy/forms/misnamed", cpu) {
  return forms_env().picks(forms, [](const kc::Shape&) { return std::string("toy/forms/other"); }).launch(toy::scale_kernel);
}

// Launch hooks that say what they start, for a backend that watches launches (launch_watch_test):
// records toy/launch/main (toy_main, 256 threads), toy/launch/wide (toy_wide, 256) and
// toy/launch/other (toy_other, another entry's) are the test backend's table.
static kc::Entry launch_env(std::vector<std::string> launches = {"toy/launch/main"}) {
  return toy::scale().served({{"rows", {1, 5}}, {"cols", {16, 256}}}).tile("cols", 64, 8, 8).launches(std::move(launches));
}
static void scale_as(const Buffers& b, const char* fn, int threads) {
  toy::launched(fn, threads);
  toy::scale_kernel(b);
}
KC_KERNEL("toy/launch/ok", cpu) {
  return launch_env().launch([](const Buffers& b) { scale_as(b, "toy_main", 256); });
}
// Also starts a helper no launch record registers: gate 5 never saw its limits.
KC_KERNEL("toy/launch/unrecorded", cpu) {
  return launch_env().launch([](const Buffers& b) {
    toy::launched("toy_helper", 64);
    scale_as(b, "toy_main", 256);
  });
}
KC_KERNEL("toy/launch/big_block", cpu) {
  return launch_env().launch([](const Buffers& b) { scale_as(b, "toy_main", 512); });
}
KC_KERNEL("toy/launch/not_ours", cpu) {
  return launch_env().launch([](const Buffers& b) { scale_as(b, "toy_other", 128); });
}
// Launches its kernel on the legacy default stream, not the harness's: an error, whatever the gates saw.
KC_KERNEL("toy/launch/default_stream", cpu) {
  return launch_env().launch([](const Buffers& b) {
    toy::launched("toy_main", 256, "the legacy default stream");
    toy::scale_kernel(b);
  });
}
KC_CONTROL("toy/launch/stream_control", cpu) {
  return launch_env()
      .control(Gate::limits, Why::stream)
      .launch([](const Buffers& b) {
        toy::launched("toy_main", 256, "the legacy default stream");
        toy::scale_kernel(b);
      });
}
// Picks the wide form past 128 columns, but its launcher takes it only past 192.
static kc::Entry picked_env(int wide_from) {
  return launch_env({"toy/launch/main", "toy/launch/wide"})
      .picks([](const kc::Shape& s) { return std::string(s["cols"] > 128 ? "toy/launch/wide" : "toy/launch/main"); })
      .launch([wide_from](const Buffers& b) {
        scale_as(b, b.shape()["cols"] > wide_from ? "toy_wide" : "toy_main", 256);
      });
}
KC_KERNEL("toy/launch/picked", cpu) { return picked_env(128); }
KC_KERNEL("toy/launch/pick_lies", cpu) { return picked_env(192); }
KC_CONTROL("toy/launch/control", cpu) {
  return launch_env()
      .control(Gate::limits, Why::launch)
      .launch([](const Buffers& b) {
        toy::launched("toy_helper", 64);
        scale_as(b, "toy_main", 256);
      });
}

// Chained toys (Spec::chained, gate 2's chained run; chained_test.cpp's backend plays the upstream
// kernel): y = 2 x read after the wait on the kernel ahead, or before it (the control).
KC_KERNEL("toy/chained/waits", cpu) {
  return scale_env(toy::scale()).chained({"x"}).launch([](const Buffers& b) {
    toy::wait_ahead();
    toy::scale_kernel(b);
  });
}
KC_CONTROL("toy/chained/early", cpu) {
  return scale_env(toy::scale()).chained({"x"}).control(Gate::repeat, Why::bytes_differ).launch([](const Buffers& b) {
    toy::scale_kernel(b);
    toy::wait_ahead();
  });
}
KC_KERNEL("toy/chained/names_an_output", cpu) {
  return scale_env(toy::scale()).chained({"y"}).launch(toy::scale_kernel);
}
