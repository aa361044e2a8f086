// The C ABI's entries: a family's entry from JSON arguments, the builder's methods, the hooks a
// binding gives as callbacks, and the families' helpers.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "capi_common.hpp"
#include "kc/families/affine.hpp"
#include "kc/families/attention.hpp"
#include "kc/families/blockscaled.hpp"
#include "kc/families/dense.hpp"
#include "kc/families/rows.hpp"

namespace kc::capi {
namespace {

template <class E> E pick_enum(const std::string& v, std::initializer_list<std::pair<const char*, E>> names,
                               const std::string& what) {
  std::string all;
  for (const auto& [n, e] : names) {
    if (v == n) return e;
    all += (all.empty() ? "" : ", ") + std::string(n);
  }
  throw Error(fmt::format("{}: '{}' is not one of {}", what, v, all));
}

attention::Cache cache(const json& j, const char* what) {
  return pick_enum<attention::Cache>(get<std::string>(j, "cache", what),
                                     {{"linear", attention::Cache::linear}, {"ring", attention::Cache::ring},
                                      {"paged", attention::Cache::paged}},
                                     std::string(what) + ": cache");
}

attention::Partials partials(const json& j, const char* what) {
  return pick_enum<attention::Partials>(get<std::string>(j, "form", what),
                                        {{"mlo", attention::Partials::mlo}, {"lse", attention::Partials::lse}},
                                        std::string(what) + ": form");
}

attention::Steps steps(const json& j, kc_shape_fn fn, void* ud, const char* what) {
  attention::Steps s;
  if (!j.contains("steps")) {
    if (fn) s.dot_depth = shape_hook(fn, ud, "dot_depth");
    return s;
  }
  const json& t = j.at("steps");
  const std::string w = std::string(what) + ": steps";
  only_keys(t, {"p", "score_ops", "empty", "base", "merged"}, w.c_str());
  s.p = pick_enum<attention::PRound>(get<std::string>(t, "p", w.c_str(), "f32"),
                                     {{"f32", attention::PRound::f32}, {"bf16", attention::PRound::bf16},
                                      {"tf32", attention::PRound::tf32}},
                                     w + ": p");
  s.score_ops = get<int>(t, "score_ops", w.c_str(), 1);
  s.empty = pick_enum<attention::Empty>(get<std::string>(t, "empty", w.c_str(), "propagate"),
                                        {{"propagate", attention::Empty::propagate}, {"zero", attention::Empty::zero}},
                                        w + ": empty");
  s.base = pick_enum<attention::LseBase>(get<std::string>(t, "base", w.c_str(), "e"),
                                         {{"e", attention::LseBase::e}, {"two", attention::LseBase::two}}, w + ": base");
  s.merged = get<bool>(t, "merged", w.c_str(), false);
  if (fn) s.dot_depth = shape_hook(fn, ud, "dot_depth");
  return s;
}

blockscaled::Weights weights(const std::string& v, const char* what) {
  using W = blockscaled::Weights;
  return pick_enum<W>(v,
                      {{"fp8_tensor", W::fp8_tensor}, {"fp8_channel", W::fp8_channel}, {"fp8_block128", W::fp8_block128},
                       {"mxfp4", W::mxfp4}, {"nvfp4", W::nvfp4}},
                      std::string(what) + ": weights");
}

blockscaled::Acts acts(const std::string& v, const char* what) {
  using A = blockscaled::Acts;
  return pick_enum<A>(v, {{"bf16", A::bf16}, {"fp8_tensor", A::fp8_tensor}, {"fp8_group128", A::fp8_group128}},
                      std::string(what) + ": acts");
}

Entry family(const std::string& f, const json& j, kc_shape_fn fn, void* ud) {
  const char* w = f.c_str();
  auto in = [&] { return dtype(get<std::string>(j, "in", w), w); };
  auto out = [&] { return dtype(get<std::string>(j, "out", w), w); };
  if (fn && f.rfind("attention.", 0) != 0) throw Error(f + ": takes no shape function (only attention's dot depth)");
  if (f == "rows.sum" || f == "rows.dot" || f == "rows.max" || f == "rows.softmax") {
    only_keys(j, {"in", "out"}, w);
    return f == "rows.sum" ? rows::sum(in(), out()) : f == "rows.dot" ? rows::dot(in(), out())
           : f == "rows.max" ? rows::max(in(), out()) : rows::softmax(in(), out());
  }
  if (f == "rows.rms_norm") return only_keys(j, {"in", "out", "eps"}, w), rows::rms_norm(in(), out(), get<double>(j, "eps", w, 1e-6));
  if (f == "rows.layer_norm")
    return only_keys(j, {"in", "out", "eps"}, w), rows::layer_norm(in(), out(), get<double>(j, "eps", w, 1e-5));
  if (f == "rows.argmax") return only_keys(j, {"in"}, w), rows::argmax(in());
  if (f == "rows.topk") return only_keys(j, {"in", "k"}, w), rows::topk(in(), get<int>(j, "k", w));
  if (f == "rows.geglu") return only_keys(j, {}, w), rows::geglu();
  if (f == "rows.swiglu") return only_keys(j, {}, w), rows::swiglu();
  if (f == "rows.add_rms_norm") {
    only_keys(j, {"form", "eps"}, w);
    return rows::add_rms_norm(pick_enum<rows::Residual>(get<std::string>(j, "form", w),
                                                         {{"rounded", rows::Residual::rounded},
                                                          {"once_rounded", rows::Residual::once_rounded}},
                                                         f + ": form"),
                              get<double>(j, "eps", w, 1e-6));
  }
  if (f == "dense.projection") return only_keys(j, {"out"}, w), dense::projection(out());
  if (f == "affine.projection")
    return only_keys(j, {"bits", "group", "out"}, w),
           affine::projection(get<int>(j, "bits", w), get<int>(j, "group", w), out());
  if (f == "attention.decode" || f == "attention.prompt") {
    only_keys(j, {"cache", "out", "steps", "page"}, w);
    const auto c = cache(j, w);
    const auto s = steps(j, fn, ud, w);
    const int64_t page = get<int64_t>(j, "page", w, 16);
    return f == "attention.decode" ? attention::decode(c, out(), s, page) : attention::prompt(c, out(), s, page);
  }
  if (f == "attention.split") {
    only_keys(j, {"cache", "form", "chunk", "steps", "page"}, w);
    return attention::split(cache(j, w), partials(j, w), get<int64_t>(j, "chunk", w), steps(j, fn, ud, w),
                            get<int64_t>(j, "page", w, 16));
  }
  if (f == "attention.merge")
    return only_keys(j, {"form", "out", "steps"}, w), attention::merge(partials(j, w), out(), steps(j, fn, ud, w));
  if (f == "attention.append") return only_keys(j, {"page"}, w), attention::append(get<int64_t>(j, "page", w, 16));
  if (f == "blockscaled.projection") {
    only_keys(j, {"weights", "acts", "out", "interval"}, w);
    return blockscaled::projection(weights(get<std::string>(j, "weights", w), w), acts(get<std::string>(j, "acts", w), w),
                                   out(), get<int64_t>(j, "interval", w, 0));
  }
  throw Error(fmt::format("no family '{}' (rows.sum, rows.dot, rows.max, rows.rms_norm, rows.layer_norm, rows.softmax, "
                          "rows.argmax, rows.topk, rows.geglu, rows.swiglu, rows.add_rms_norm, dense.projection, "
                          "affine.projection, attention.decode, attention.prompt, attention.split, attention.merge, "
                          "attention.append, blockscaled.projection)",
                          f));
}

// A hook whose failure is the binding's text (a Python traceback's last line), named by the hook.
void call(int rc, const char* hook) {
  if (rc != 0) throw Error(take_error((std::string(hook) + " failed without saying why").c_str()));
}

}  // namespace

std::function<double(const Shape&)> shape_hook(kc_shape_fn fn, void* ud, std::string hook) {
  if (!fn) throw Error(hook + ": no function given");
  return [fn, ud, hook](const Shape& s) {
    double v = NAN;
    if (fn(ud, reinterpret_cast<const kc_shape*>(&s), &v) != 0)
      throw Error(fmt::format("{} at {}: {}", hook, s.str(), take_error("the hook failed without saying why")));
    if (!std::isfinite(v)) throw Error(fmt::format("{} at {} gave {}, not a finite number", hook, s.str(), v));
    return v;
  };
}

}  // namespace kc::capi

using namespace kc;
using namespace kc::capi;

extern "C" {

kc_entry* kc_entry_family(const char* name, const char* text, kc_shape_fn fn, void* ud) {
  std::unique_ptr<kc_entry> e;
  if (guard([&] {
        if (!name) throw Error("kc_entry_family: no family named");
        const json j = parse(text, name);
        if (!j.is_object()) throw Error(std::string(name) + ": arguments must be a JSON object");
        e.reset(new kc_entry{family(name, j, fn, ud)});
      }))
    return nullptr;
  return e.release();
}

void kc_entry_free(kc_entry* e) { delete e; }

int kc_entry_apply(kc_entry* h, const char* method, const char* text) {
  return guard([&] {
    if (!h || !method) throw Error("kc_entry_apply: no entry or no method");
    const std::string m = method;
    const json j = parse(text, method);
    const char* w = method;
    Entry&& e = std::move(h->entry);
    if (m == "served") {
      only_keys(j, {"dims"}, w);
      auto dims = get<std::vector<std::pair<std::string, std::vector<int64_t>>>>(j, "dims", w);
      std::move(e).served(std::move(dims));
    } else if (m == "tile") {
      only_keys(j, {"dim", "tile", "step", "least"}, w);
      std::move(e).tile(get<std::string>(j, "dim", w), get<int64_t>(j, "tile", w), get<int64_t>(j, "step", w, 1),
                        get<int64_t>(j, "least", w, 1));
    } else if (m == "range") {
      only_keys(j, {"dim", "least", "step"}, w);
      std::move(e).range(get<std::string>(j, "dim", w), get<int64_t>(j, "least", w), get<int64_t>(j, "step", w, 1));
    } else if (m == "ops") {
      only_keys(j, {"ops", "mids"}, w);
      std::move(e).ops(get<int>(j, "ops", w), get<int>(j, "mids", w, 0));
    } else if (m == "ulp") {
      only_keys(j, {"function", "ulps"}, w);
      std::move(e).ulp(get<std::string>(j, "function", w), get<double>(j, "ulps", w));
    } else if (m == "hidden") {
      only_keys(j, {"why"}, w);
      std::move(e).hidden(get<std::string>(j, "why", w));
    } else if (m == "in_place") {
      only_keys(j, {"out", "in"}, w);
      std::move(e).in_place(get<std::string>(j, "out", w), get<std::string>(j, "in", w));
    } else if (m == "chained") {
      only_keys(j, {"inputs"}, w);
      std::move(e).chained(get<std::vector<std::string>>(j, "inputs", w));
    } else if (m == "launches") {
      only_keys(j, {"names"}, w);
      std::move(e).launches(get<std::vector<std::string>>(j, "names", w));
    } else if (m == "known") {
      only_keys(j, {"gate", "what"}, w);
      std::move(e).known(gate(j.at("gate"), w), get<std::string>(j, "what", w));
    } else if (m == "control") {
      only_keys(j, {"gate", "why"}, w);
      if (!j.contains("gate")) throw Error("control: missing argument 'gate'");
      std::move(e).control(gate(j.at("gate"), w), why(get<std::string>(j, "why", w), w));
    } else if (m == "note") {
      only_keys(j, {"text"}, w);
      std::move(e).note(get<std::string>(j, "text", w));
    } else {
      throw Error("no builder method '" + m +
                  "' (served, tile, range, ops, ulp, hidden, in_place, chained, launches, known, control, note)");
    }
  });
}

int kc_entry_sums(kc_entry* h, int acc, kc_shape_fn depth, void* ud, int ops, int mids) {
  return guard([&] {
    if (!h) throw Error("kc_entry_sums: no entry");
    if (!kc_dtype_name(acc)) throw Error(fmt::format("sums: accumulator type {} is not a type", acc));
    std::move(h->entry).sums(DType(acc), shape_hook(depth, ud, "sums depth"), ops, mids);
  });
}

int kc_entry_launch(kc_entry* h, kc_launch_fn fn, void* ud) {
  return guard([&] {
    if (!h || !fn) throw Error("kc_entry_launch: no entry or no function");
    std::move(h->entry).launch([fn, ud](const Buffers& b) { call(fn(ud, reinterpret_cast<const kc_buffers*>(&b)), "the launch"); });
  });
}

int kc_entry_replaces(kc_entry* h, const char* name, kc_launch_fn fn, void* ud) {
  return guard([&] {
    if (!h || !fn || !name) throw Error("kc_entry_replaces: no entry, name or function");
    std::move(h->entry).replaces(name, [fn, ud](const Buffers& b) {
      call(fn(ud, reinterpret_cast<const kc_buffers*>(&b)), "the replaced kernel's launch");
    });
  });
}

// A hook answering in text: the pick's form, or a rule's "" (kept) or what broke.
static std::string text_hook(kc_text_fn fn, void* ud, const void* arg, const char* hook) {
  std::vector<char> out(4096, '\0');
  call(fn(ud, arg, out.data(), out.size()), hook);
  out.back() = '\0';
  return out.data();
}

int kc_entry_picks(kc_entry* h, const char* forms_json, kc_text_fn fn, void* ud) {
  return guard([&] {
    if (!h || !fn) throw Error("kc_entry_picks: no entry or no function");
    auto pick = [fn, ud](const Shape& s) { return text_hook(fn, ud, &s, "the pick"); };
    if (!forms_json || !*forms_json) {
      std::move(h->entry).picks(pick);
    } else {
      const json j = parse(forms_json, "picks");
      std::move(h->entry).picks(get<std::vector<std::string>>(j, "forms", "picks"), pick);
    }
  });
}

int kc_entry_rule(kc_entry* h, const char* text, kc_text_fn fn, void* ud) {
  return guard([&] {
    if (!h || !fn || !text) throw Error("kc_entry_rule: no entry, text or function");
    std::move(h->entry).rule(text, [fn, ud](const Case& c) { return text_hook(fn, ud, &c, "the rule's check"); });
  });
}

int kc_entry_release(kc_entry* h, kc_void_fn fn, void* ud) {
  return guard([&] {
    if (!h || !fn) throw Error("kc_entry_release: no entry or no function");
    std::move(h->entry).release([fn, ud] { call(fn(ud), "the release"); });
  });
}

char* kc_entry_describe(const kc_entry* h) {
  char* out = nullptr;
  if (guard([&] {
        if (!h) throw Error("kc_entry_describe: no entry");
        const Spec& s = h->entry.spec;
        json dims = json::array();
        for (const auto& d : s.dims)
          dims.push_back({{"name", d.name}, {"served", d.served}, {"tiled", d.tiled}, {"tile", d.tile},
                          {"step", d.step}, {"least", d.least}});
        json j{{"dims", dims}, {"launches", s.launches}, {"control", s.control}, {"summed", s.sums && s.sums->summed},
               {"note", s.note}, {"rule", s.rule}, {"replaces", s.replaces}};
        if (s.control_gate) j["control_gate"] = int(*s.control_gate), j["control_why"] = why_name(s.control_why);
        out = strdup(j.dump().c_str());
      }))
    return nullptr;
  return out;
}

void kc_free_text(char* text) { std::free(text); }

char* kc_call(const char* fn, const char* text) {
  char* out = nullptr;
  if (guard([&] {
        if (!fn) throw Error("kc_call: no function named");
        const std::string f = fn;
        const json j = parse(text, fn);
        json r;
        if (f == "dense.slice_depth") {
          only_keys(j, {"k", "slices", "meet"}, fn);
          r = dense::slice_depth(get<int64_t>(j, "k", fn), get<int64_t>(j, "slices", fn), get<int64_t>(j, "meet", fn));
        } else if (f == "affine.words_per_row") {
          only_keys(j, {"k", "bits"}, fn);
          r = affine::words_per_row(get<int64_t>(j, "k", fn), get<int>(j, "bits", fn));
        } else if (f == "attention.scale" || f == "attention.geometry") {
          only_keys(j, {"cache", "shape", "page", "chunk"}, fn);
          Shape s;
          for (const auto& [k, v] : get<std::vector<std::pair<std::string, int64_t>>>(j, "shape", fn)) s.set(k, v);
          if (f == "attention.scale") {
            r = double(attention::scale(s));
          } else {
            const attention::Geometry g = attention::geometry(
                cache(j, fn), s, get<int64_t>(j, "page", fn, 16), get<int64_t>(j, "chunk", fn, 0));
            r = {{"seqs", g.seqs}, {"rows", g.rows}, {"kv_heads", g.kv_heads}, {"group", g.group},
                 {"q_heads", g.q_heads}, {"d", g.d}, {"keys", g.keys}, {"window", g.window}, {"slots", g.slots},
                 {"pages", g.pages}, {"max_pages", g.max_pages}, {"chunk", g.chunk}, {"chunks", g.chunks},
                 {"scale", double(g.scale)}};
          }
        } else {
          throw Error("kc_call: no helper '" + f +
                      "' (dense.slice_depth, affine.words_per_row, attention.scale, attention.geometry)");
        }
        out = strdup(r.dump().c_str());
      }))
    return nullptr;
  return out;
}

}  // extern "C"
