// The index of a plant by its name in an entry's gate 1 plants (Fill::plant), for the families'
// plant tests; a name the entry lacks fails the test.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "kc/spec.hpp"

inline int plant_index(const kc::Entry& e, const std::string& name) {
  for (size_t i = 0; i < e.rig.plants.size(); ++i)
    if (e.rig.plants[i] == name) return int(i);
  ADD_FAILURE() << "no plant '" << name << "'";
  return 0;
}
